"""Decoded streams: :class:`Frame` (one StateChunk's samples) and :class:`Result` (a whole run).

A stream's frames are columnar on the wire (``t[]`` and row-major ``values[]``); here they become
NumPy arrays and pandas DataFrames laid out exactly as ``tether run --format csv`` writes them:

    index ``t`` [s]; one column per streamed column (states, multipliers or algebraic variables,
    outputs, in the header's order); ``residual_position``, ``residual_velocity``; and for
    streams with inequality columns (``mu_i``/``active_i``) ``residual_inequality`` and ``event``
    (the switches located at the sample, ``"activated:0;deactivated:1"``, ``""`` for none).

``df.attrs["units"]`` maps ``"t"`` and every streamed column to its unit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import grpc
import numpy as np
import pandas as pd

from tether._proto import pb
from tether.errors import TetherError
from tether.types import Column, Event, InitReport, Progress, Summary

_INEQUALITY_KINDS = ("inequality_multiplier", "active")


def has_inequality_columns(columns: Sequence[Column]) -> bool:
    """True when the stream carries a column of an inequality constraint (mu_i or active_i): then
    its table gains ``residual_inequality`` and ``event`` (the CLI's rule, run_output.h)."""
    return any(c.kind in _INEQUALITY_KINDS for c in columns)


def event_labels(events: Sequence[Event]) -> str:
    """``"activated:0;deactivated:1"``: the CSV ``event`` field of one sample's switches."""
    return ";".join(f"{e.kind}:{e.constraint}" for e in events if e.is_switch)


def table(columns: Sequence[Column], t: np.ndarray, values: np.ndarray,
          residual_position: np.ndarray, residual_velocity: np.ndarray,
          residual_inequality: Optional[np.ndarray], first_sample_index: int,
          events: Sequence[Event]) -> pd.DataFrame:
    """The DataFrame of samples laid out as the CLI's CSV (module docstring)."""
    data: Dict[str, np.ndarray] = {c.name: values[:, j] for j, c in enumerate(columns)}
    data["residual_position"] = residual_position
    data["residual_velocity"] = residual_velocity
    if has_inequality_columns(columns):
        n = len(t)
        # A frame without residual_inequality in a stream with inequality columns is the server's
        # omission: NaN, as the CLI writes it, rather than a made-up 0.
        data["residual_inequality"] = (residual_inequality if residual_inequality is not None
                                       and len(residual_inequality) == n else np.full(n, np.nan))
        by_sample: Dict[int, List[Event]] = {}
        for e in events:
            if e.is_switch:
                by_sample.setdefault(e.sample_index - first_sample_index, []).append(e)
        data["event"] = np.array([event_labels(by_sample.get(i, ())) for i in range(n)],
                                 dtype=object)
    df = pd.DataFrame(data, index=pd.Index(t, name="t"))
    df.attrs["units"] = {"t": "s", **{c.name: c.unit for c in columns}}
    return df


@dataclass(frozen=True)
class Frame:
    """The samples of one StateChunk frame (consecutive sample indices)."""

    first_sample_index: int
    t: np.ndarray
    """Sample times [s], n entries."""
    values: np.ndarray
    """n × len(columns), in the columns' units."""
    residual_position: np.ndarray
    residual_velocity: np.ndarray
    residual_inequality: Optional[np.ndarray]
    """None when the model has no inequalities."""
    events: Tuple[Event, ...]
    progress: Progress
    columns: Tuple[Column, ...]

    @property
    def sample_indices(self) -> np.ndarray:
        return np.arange(self.first_sample_index, self.first_sample_index + len(self.t))

    @property
    def df(self) -> pd.DataFrame:
        """This frame's samples as a DataFrame (module docstring)."""
        return table(self.columns, self.t, self.values, self.residual_position,
                     self.residual_velocity, self.residual_inequality, self.first_sample_index,
                     self.events)

    @classmethod
    def from_proto(cls, frame: "pb.Frame", columns: Tuple[Column, ...]) -> "Frame":
        n = len(frame.t)
        values = np.array(frame.values, dtype=float)
        if values.size != n * len(columns):
            raise TetherError(grpc.StatusCode.DATA_LOSS,
                              f"frame at sample {frame.first_sample_index} has {values.size} "
                              f"values for {n} samples of {len(columns)} columns")
        inequality = (np.array(frame.residual_inequality, dtype=float)
                      if len(frame.residual_inequality) else None)
        return cls(frame.first_sample_index, np.array(frame.t, dtype=float),
                   values.reshape(n, len(columns)),
                   np.array(frame.residual_position, dtype=float),
                   np.array(frame.residual_velocity, dtype=float), inequality,
                   tuple(Event.from_proto(e) for e in frame.events),
                   Progress.from_proto(frame.progress), columns)


@dataclass
class Result:
    """A whole run (``client.simulate``) or stream (``session.run``).

    A run that failed numerically still has a Result: the samples before the failure, a summary
    whose termination names the cause, and ``error`` with the server's ErrorInfo. ``check()``
    turns that into an exception when the caller wants one.
    """

    columns: Tuple[Column, ...]
    frames: List[Frame] = field(repr=False)
    summary: Optional[Summary]
    """None if the stream broke before its summary."""
    init_report: Optional[InitReport]
    error: Optional[TetherError] = None
    """The non-OK status that ended the stream (a numerical failure: ABORTED with ErrorInfo)."""
    replica: str = ""
    """The server replica that ran it, when the server names itself (x-tether-replica)."""
    attempts: int = 1
    """Calls made: > 1 when the run was retried after UNAVAILABLE (on another replica)."""
    _df: Optional[pd.DataFrame] = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """The run reached its end with an OK status."""
        return self.error is None and self.summary is not None and self.summary.reached_end

    @property
    def termination(self) -> str:
        """The summary's termination, or ``""`` without a summary."""
        return self.summary.termination if self.summary is not None else ""

    @property
    def events(self) -> List[Event]:
        """Every event of every frame, in stream order."""
        return [e for f in self.frames for e in f.events]

    @property
    def df(self) -> pd.DataFrame:
        """All samples as one DataFrame (module docstring); built once, on first use."""
        if self._df is None:
            self._df = table(self.columns, *self._arrays(), self._first_index(), self.events)
        return self._df

    def check(self) -> "Result":
        """Returns self if the run reached its end; raises the TetherError that ended it (or one
        naming the termination) otherwise."""
        if self.ok:
            return self
        if self.error is not None:
            raise self.error
        message = self.summary.message if self.summary is not None else "no summary"
        raise TetherError(grpc.StatusCode.ABORTED,
                          f"{self.termination or 'stream ended'}: {message}")

    def _first_index(self) -> int:
        return self.frames[0].first_sample_index if self.frames else 0

    def _arrays(self):
        width = len(self.columns)
        if not self.frames:
            empty = np.empty(0)
            return empty, np.empty((0, width)), empty, empty, None
        t = np.concatenate([f.t for f in self.frames])
        values = np.concatenate([f.values for f in self.frames])
        position = np.concatenate([f.residual_position for f in self.frames])
        velocity = np.concatenate([f.residual_velocity for f in self.frames])
        inequality = None
        if any(f.residual_inequality is not None for f in self.frames):
            inequality = np.concatenate([f.residual_inequality if f.residual_inequality is not None
                                         else np.full(len(f.t), np.nan) for f in self.frames])
        return t, values, position, velocity, inequality


class StreamAssembler:
    """Consumes the StateChunks of one stream: the header's columns, frames, the summary."""

    def __init__(self, keep_frames: bool = True) -> None:
        """``keep_frames``: collect the frames for ``result()``; False for a stream whose frames
        are handed on as they come (an indefinite stream would otherwise grow without bound)."""
        self.columns: Tuple[Column, ...] = ()
        self.header: Optional["pb.StreamHeader"] = None
        self.init_report: Optional[InitReport] = None
        self.frames: List[Frame] = []
        self.summary: Optional[Summary] = None
        self._keep_frames = keep_frames

    def consume(self, chunk: "pb.StateChunk") -> Optional[Frame]:
        """Takes one chunk; returns the decoded Frame for a frame chunk, else None."""
        kind = chunk.WhichOneof("chunk")
        if kind == "header":
            self.header = chunk.header
            self.columns = tuple(Column.from_proto(c) for c in chunk.header.columns)
            self.init_report = InitReport.from_proto(chunk.header.initialization)
            return None
        if kind == "frame":
            frame = Frame.from_proto(chunk.frame, self.columns)
            if self._keep_frames:
                self.frames.append(frame)
            return frame
        if kind == "summary":
            self.summary = Summary.from_proto(chunk.summary)
        return None

    def result(self, error: Optional[TetherError] = None, replica: str = "") -> Result:
        return Result(self.columns, self.frames, self.summary, self.init_report, error, replica)
