"""Parameter sweeps: many independent Simulate runs, ``concurrency`` at a time, one row per run.

    client = tether.Client("10.0.0.1:50051,10.0.0.2:50051")   # or "dns:///tether-headless:50051"
    df = client.sweep("pendulum", grid={"l": (1, 3, 3), "m": (1, 2, 4)}, t_end=10, concurrency=8)

Each run is one ``Simulate`` call; with a list or DNS target the channel spreads them over the
replicas (gRPC round_robin). A run that fails transiently (UNAVAILABLE, or RESOURCE_EXHAUSTED from a
server that refused to start it: tether._retry.is_transient_failure) is retried with the client's
RetryPolicy (the channel picks the next ready replica); a run that fails numerically is a row with
its termination, not retried.

Rows, in run order (the columns of ``tether sweep``'s CSV and JSONL, client/cli/sweep_table.h):

    run            0-based run index (also the DataFrame's index)
    <parameters>   the swept parameters' values
    status         the run's gRPC status code: "OK", "ABORTED" (numerical failure),
                   "INVALID_ARGUMENT", "UNAVAILABLE" (not run: every attempt found no replica), ...
    termination    "REACHED_END", "PROJECTION_FAILED", "STEP_LIMIT", ...; "" without a summary
    t              time of the last sample [s], whose values the columns hold (a failed run's
                   own time is in its message); without a sample, the last good state's
    <columns>      the last sample's value of every streamed column (NaN without samples)
    <stats>        the chosen Statistics fields (``stats=``)
    cpu_seconds    the server's CPU time for the run [s]
    replica        the replica that ran it ("" when the server does not name itself)
    attempts       calls made (> 1 after transient failures were retried)
    message        the termination's diagnosis or the error message ("" when it reached the end)
"""
from __future__ import annotations

import math
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from tether import _requests
from tether._retry import is_transient_failure
from tether.design import Design, make_design
from tether.errors import TetherError, did_you_mean, invalid_argument
from tether.result import Result
from tether.types import Statistics

if TYPE_CHECKING:  # pragma: no cover
    from tether.client import Client

# Statistics written by default besides cpu_seconds (which every row has).
DEFAULT_STATS = ("steps", "rejected_steps", "projection_iterations", "max_residual_position",
                 "max_residual_velocity")
# Fields of Statistics a sweep may report (cpu_seconds is always there).
STAT_NAMES = tuple(n for n in Statistics.__dataclass_fields__ if n != "cpu_seconds")
# Columns every row has besides parameters, final values and statistics.
FIXED_COLUMNS = ("run", "status", "termination", "t", "cpu_seconds", "replica", "attempts",
                 "message")


def check_stats(stats: Iterable[str]) -> List[str]:
    """The stats names, each checked against Statistics."""
    names = list(stats)
    for name in names:
        if name not in STAT_NAMES:
            raise invalid_argument("stats", f"'{name}' is not a statistic"
                                   + did_you_mean(name, STAT_NAMES) + "; one of "
                                   + ", ".join(STAT_NAMES))
    return names


def one_line(text: str) -> str:
    """A message as one CSV/JSONL-friendly line."""
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def run_row(index: int, parameters: Mapping[str, float], outcome: Union[Result, TetherError],
            stats: Sequence[str]) -> Dict[str, Any]:
    """The row of one run (module docstring)."""
    row: Dict[str, Any] = {"run": index, **parameters}
    if isinstance(outcome, TetherError):
        row.update(status=outcome.code_name, termination="", t=math.nan)
        row.update({name: math.nan for name in stats})
        row.update(cpu_seconds=math.nan, replica="", attempts=outcome.attempts,
                   message=one_line(outcome.message))
        return row
    summary = outcome.summary
    row.update(status=outcome.error.code_name if outcome.error is not None else "OK",
               termination=outcome.termination,
               t=summary.t if summary is not None else math.nan)
    last = outcome.frames[-1] if outcome.frames else None
    has_sample = last is not None and len(last.t) > 0
    if has_sample:
        row["t"] = float(last.t[-1])  # the time of the values below
    for j, column in enumerate(outcome.columns):
        row[column.name] = float(last.values[-1, j]) if has_sample else math.nan
    statistics = summary.statistics.as_dict() if summary is not None else {}
    row.update({name: statistics.get(name, math.nan) for name in stats})
    message = summary.message if summary is not None and not summary.reached_end else ""
    if not message and outcome.error is not None:
        message = outcome.error.message
    row.update(cpu_seconds=statistics.get("cpu_seconds", math.nan), replica=outcome.replica,
               attempts=outcome.attempts, message=one_line(message))
    return row


def rows_frame(rows: Sequence[Dict[str, Any]], design: Design,
               stats: Sequence[str]) -> pd.DataFrame:
    """The DataFrame of the rows, columns in the documented order, indexed by run."""
    value_columns: List[str] = []
    for row in rows:
        for key in row:
            if key not in FIXED_COLUMNS and key not in design.names and key not in stats \
                    and key not in value_columns:
                value_columns.append(key)
    order = (["run", *design.names, "status", "termination", "t", *value_columns, *stats]
             + ["cpu_seconds", "replica", "attempts", "message"])
    frame = pd.DataFrame(list(rows), columns=order)
    return frame.set_index("run", drop=False).rename_axis(None)


class Progress:
    """``\\r12/100 runs  1 failed  8.3 runs/s`` on stderr, redrawn at most every 0.1 s."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled
        self.done = self.failed = 0
        self.start = self.last = time.monotonic()
        self.lock = threading.Lock()

    def update(self, failed: bool) -> None:
        with self.lock:
            self.done += 1
            self.failed += int(failed)
            now = time.monotonic()
            if self.enabled and (now - self.last >= 0.1 or self.done == self.total):
                self.last = now
                rate = self.done / max(now - self.start, 1e-9)
                sys.stderr.write(f"\r{self.done}/{self.total} runs  {self.failed} failed  "
                                 f"{rate:.3g} runs/s\x1b[K")
                sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def trajectory_path(directory: Union[str, Path], index: int) -> Path:
    """``DIR/run-000042.csv``: a run's trajectory (the CLI names them the same)."""
    return Path(directory) / f"run-{index:06d}.csv"


def write_trajectory(directory: Union[str, Path], index: int, result: Result) -> None:
    """The run's samples as ``tether run --format csv`` writes them."""
    result.df.reset_index().to_csv(trajectory_path(directory, index), index=False)


class SweepPlan:
    """A checked sweep: its design, the request of every run, what to report, and the rows as
    runs finish. Shared by the synchronous and the asyncio sweep, which differ only in how they
    wait for the calls.

    Args:
        model: a model name, spec dict or spec path (inline specs reach every replica).
        grid, values, latin, samples, seed, table: the design (tether.design).
        concurrency: runs in flight at once, ≥ 1.
        stats: Statistics fields to report besides cpu_seconds.
        trajectories: a directory to write each run's samples into (``run-NNNNNN.csv``).
        progress: draw a progress line on stderr.
        parameters: overrides for every run (not swept); the rest as in ``Client.simulate``.
    """

    def __init__(self, model: _requests.ModelSource, *,
                 grid: Optional[Mapping[str, Any]] = None,
                 values: Optional[Mapping[str, Sequence[float]]] = None,
                 latin: Optional[Mapping[str, Any]] = None, samples: Optional[int] = None,
                 seed: int = 0, table: Any = None, concurrency: int = 4,
                 stats: Iterable[str] = DEFAULT_STATS,
                 trajectories: Union[None, str, Path] = None, progress: bool = False,
                 parameters: Optional[Mapping[str, float]] = None,
                 initial_values: Optional[Mapping[str, float]] = None,
                 fixed: Optional[Iterable[str]] = None, columns: Optional[Iterable[str]] = None,
                 t_end: Optional[float] = None, method: Optional[str] = None,
                 output_interval: Optional[float] = None, **options: Any) -> None:
        if concurrency < 1:
            raise invalid_argument("concurrency", f"{concurrency}; must be >= 1")
        self.concurrency = concurrency
        self.stats = check_stats(stats)
        self.design = make_design(grid, values, latin, samples, seed, table)
        for name in self.design.names:
            if name in (parameters or {}):
                raise invalid_argument(f"parameters.{name}", "is both fixed and swept")
        option_map = dict(options, t_end=t_end, method=method, output_interval=output_interval)
        self.requests = [
            _requests.simulate_request(model, parameters={**(parameters or {}),
                                                          **self.design.parameters(i)},
                                       initial_values=initial_values, fixed=fixed,
                                       columns=columns, options=option_map)
            for i in range(len(self.design))]
        self.trajectories = trajectories
        if trajectories is not None:
            Path(trajectories).mkdir(parents=True, exist_ok=True)
        self.bar = Progress(len(self.design), progress)

    def finish_run(self, index: int, outcome: Union[Result, TetherError]) -> Dict[str, Any]:
        """The row of a finished run (its trajectory written, the progress line advanced)."""
        if self.trajectories is not None and isinstance(outcome, Result) and outcome.frames:
            write_trajectory(self.trajectories, index, outcome)
        row = run_row(index, self.design.parameters(index), outcome, self.stats)
        self.bar.update(failed=row["status"] != "OK" or row["termination"] != "REACHED_END")
        return row

    def frame(self, rows: Sequence[Dict[str, Any]]) -> pd.DataFrame:
        self.bar.finish()
        return rows_frame(rows, self.design, self.stats)


def run_sweep(client: "Client", model: _requests.ModelSource, **kwargs: Any) -> pd.DataFrame:
    """Runs every parameter set of the design on threads and returns one row per run (module
    docstring; the arguments are SweepPlan's). Ctrl-C cancels the runs in flight and raises
    KeyboardInterrupt."""
    plan = SweepPlan(model, **kwargs)
    client.warm_up()
    calls: set = set()
    calls_lock = threading.Lock()
    stopping = threading.Event()

    def track(call) -> None:
        with calls_lock:
            calls.add(call)
        if stopping.is_set():
            call.cancel()

    def one(index: int) -> Dict[str, Any]:
        if stopping.is_set():
            return {}
        try:
            outcome: Union[Result, TetherError] = client.simulate_request(
                plan.requests[index], on_call=track, retryable=is_transient_failure)
        except TetherError as error:
            outcome = error
        return plan.finish_run(index, outcome)

    with ThreadPoolExecutor(max_workers=plan.concurrency,
                            thread_name_prefix="tether-sweep") as pool:
        futures = [pool.submit(one, i) for i in range(len(plan.design))]
        try:
            rows = [future.result() for future in futures]
        except KeyboardInterrupt:
            stopping.set()
            for future in futures:
                future.cancel()
            with calls_lock:
                for call in calls:
                    call.cancel()
            plan.bar.finish()
            raise
    return plan.frame(rows)
