"""Parameter designs of sweeps: full-factorial grids, explicit levels, Latin hypercubes, tables.

The same rules as ``tether sweep`` (client/cli/sweep_design.h), number for number, so a design
given to the CLI and to ``client.sweep`` runs the same parameter sets in the same order:

* ``grid={"l": (1.0, 3.0, 3)}``, like ``--grid l=1:3:3``: N levels from START to STOP, level i
  = START + (STOP − START)·i/(N − 1), the last exactly STOP (N = 1 needs START = STOP).
* ``values={"m": [1, 2, 5]}``, like ``--values m=1,2,5``: the levels as given.
* Grid and value factors form the full factorial, the first factor varying slowest (grid factors
  in the order given, then value factors).
* ``latin={"g": (9.7, 9.9)}, samples=N, seed=S``, like ``--latin g=9.7:9.9 --samples N --seed
  S``: an N-sample Latin hypercube (McKay, Beckman & Conover 1979): each dimension's range is cut
  into N equal strata and every stratum is used exactly once, in a random order, at a uniformly
  random point inside it. Randomness: SplitMix64 (Steele, Lea & Flood 2014) seeded with S, so
  both implementations draw the same numbers: for each dimension in order, a Fisher–Yates
  shuffle of 0..N−1 (for i = N−1 … 1: j = ⌊u·(i+1)⌋), then N offsets; u = (x >> 11)·2⁻⁵³.
* ``table=`` a DataFrame or CSV file, like ``--from params.csv``: one run per row, one parameter
  per column.
* Several kinds together: the product, factorial slowest, then the hypercube, then the table.
* A design holds at most ``MAX_RUNS`` (10 million) runs, refused before it is built.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from tether.errors import invalid_argument

_MASK64 = (1 << 64) - 1
MAX_RUNS = 10_000_000  # kMaxSweepRuns of client/cli/sweep_design.h


class SplitMix64:
    """SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
    2014): a 64-bit state advanced by the golden-ratio increment and a mixing function. Chosen
    because it is fully specified in ten lines, so Python and C++ produce the same stream."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def uniform(self) -> float:
        """A double in [0, 1): the top 53 bits times 2⁻⁵³."""
        return (self.next() >> 11) * (1.0 / (1 << 53))


def grid_levels(name: str, start: float, stop: float, n: int) -> List[float]:
    """N levels from START to STOP inclusive (module docstring)."""
    if not (math.isfinite(start) and math.isfinite(stop)):
        raise invalid_argument(f"grid.{name}", f"START and STOP must be finite, got {start}:{stop}")
    if not 1 <= n <= MAX_RUNS:
        raise invalid_argument(f"grid.{name}", f"N = {n}; must be from 1 to {MAX_RUNS}")
    if n == 1:
        if start != stop:
            raise invalid_argument(f"grid.{name}", f"N = 1 needs START = STOP, got {start}:{stop}")
        return [start]
    levels = [start + (stop - start) * i / (n - 1) for i in range(n - 1)]
    return levels + [stop]


def latin_hypercube(ranges: Sequence[Tuple[str, float, float]], samples: int,
                    seed: int) -> List[List[float]]:
    """``samples`` rows over the (name, lo, hi) dimensions (module docstring)."""
    if not 1 <= samples <= MAX_RUNS:
        raise invalid_argument("samples",
                               f"{samples}; must be from 1 to {MAX_RUNS} with a Latin hypercube")
    rng = SplitMix64(seed)
    columns = []
    for name, lo, hi in ranges:
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
            raise invalid_argument(f"latin.{name}", f"{lo}:{hi}; must be finite with LO <= HI")
        strata = list(range(samples))
        for i in range(samples - 1, 0, -1):
            j = min(int(rng.uniform() * (i + 1)), i)
            strata[i], strata[j] = strata[j], strata[i]
        columns.append([lo + (hi - lo) * ((strata[k] + rng.uniform()) / samples)
                        for k in range(samples)])
    return [list(row) for row in zip(*columns)] if columns else []


@dataclass(frozen=True)
class Design:
    """The runs of a sweep: parameter names and one value tuple per run, in run order."""

    names: Tuple[str, ...]
    runs: Tuple[Tuple[float, ...], ...]

    def __len__(self) -> int:
        return len(self.runs)

    def parameters(self, index: int) -> Dict[str, float]:
        """The parameter overrides of run ``index``."""
        return dict(zip(self.names, self.runs[index]))


def _read_table(table: Any) -> Tuple[List[str], List[List[float]]]:
    import pandas as pd
    frame = table if isinstance(table, pd.DataFrame) else None
    if frame is None:
        path = Path(table)
        try:
            frame = pd.read_csv(path)
        except (OSError, ValueError) as error:
            raise invalid_argument("table", f"cannot read '{path}': {error}") from None
    names = [str(c) for c in frame.columns]
    rows = []
    for number, row in enumerate(frame.itertuples(index=False), start=1):
        try:
            rows.append([float(v) for v in row])
        except (TypeError, ValueError):
            raise invalid_argument("table", f"row {number} is not all numbers: {list(row)}") \
                from None
    return names, rows


def _levels(value: Any, name: str) -> List[float]:
    """A grid entry: (start, stop, n)."""
    try:
        start, stop, n = value
        return grid_levels(name, float(start), float(stop), int(n))
    except (TypeError, ValueError):
        raise invalid_argument(f"grid.{name}", f"{value!r}; expected (START, STOP, N)") from None


def _refuse_above_max_runs(block_sizes: Sequence[int]) -> None:
    if math.prod(block_sizes) > MAX_RUNS:
        raise invalid_argument("design", f"more than {MAX_RUNS} runs (the product of the factors' "
                               "levels, samples and rows)")


def make_design(grid: Optional[Mapping[str, Any]] = None,
                values: Optional[Mapping[str, Sequence[float]]] = None,
                latin: Optional[Mapping[str, Tuple[float, float]]] = None,
                samples: Optional[int] = None, seed: int = 0,
                table: Union[None, str, Path, Any] = None) -> Design:
    """The design of the given parts (module docstring)."""
    names: List[str] = []

    def claim(name: str, where: str) -> None:
        if name in names:
            raise invalid_argument(where, f"parameter '{name}' is given twice")
        names.append(name)

    factors: List[List[float]] = []
    for name, spec in (grid or {}).items():
        claim(name, f"grid.{name}")
        factors.append(_levels(spec, name))
    for name, levels in (values or {}).items():
        claim(name, f"values.{name}")
        levels = [float(v) for v in levels]
        if not levels:
            raise invalid_argument(f"values.{name}", "no values")
        factors.append(levels)
    _refuse_above_max_runs([len(levels) for levels in factors])
    blocks: List[List[Tuple[float, ...]]] = [[tuple(p) for p in product(*factors)]]
    if latin:
        for name in latin:
            claim(name, f"latin.{name}")
        ranges = [(name, float(lo), float(hi)) for name, (lo, hi) in latin.items()]
        blocks.append([tuple(r) for r in latin_hypercube(ranges, samples or 0, seed)])
    elif samples is not None:
        raise invalid_argument("samples", "given without a Latin hypercube (latin=...)")
    if table is not None:
        table_names, rows = _read_table(table)
        for name in table_names:
            claim(name, f"table.{name}")
        blocks.append([tuple(r) for r in rows])
    if not names:
        raise invalid_argument("design",
                               "no parameters to sweep: give grid, values, latin or table")
    _refuse_above_max_runs([len(block) for block in blocks])
    runs = tuple(tuple(v for part in combination for v in part) for combination in product(*blocks))
    return Design(tuple(names), runs)
