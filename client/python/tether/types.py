"""Plain Python views of the wire messages: models, columns, events, summaries, sessions.

Each type keeps the proto message it came from in ``.proto`` for anything not mirrored here.
Enum values appear as their names without the proto prefix: a termination is ``"REACHED_END"``
(``TERMINATION_REACHED_END``), a column kind ``"multiplier"`` (``COLUMN_KIND_MULTIPLIER``).
Units are the spec's, ``""`` when it gives none; times are in seconds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from tether._proto import pb
from tether._requests import enum_value_name


def _lower_name(enum_type, number: int) -> str:
    return enum_value_name(enum_type.DESCRIPTOR, number).lower()


@dataclass(frozen=True)
class Column:
    """One streamed column."""

    name: str
    unit: str
    kind: str
    """``"state"``, ``"multiplier"``, ``"algebraic"``, ``"output"``, ``"inequality_multiplier"``,
    ``"active"``."""

    @classmethod
    def from_proto(cls, column: "pb.Column") -> "Column":
        return cls(column.name, column.unit, _lower_name(pb.ColumnKind, column.kind))


@dataclass(frozen=True)
class Variable:
    """A state variable of a model."""

    name: str
    unit: str
    role: str
    """``"coordinate"``, ``"velocity"``, ``"differential"`` or ``"algebraic"``."""
    initial_value: float


@dataclass(frozen=True)
class Parameter:
    """A model parameter, its default value and the range a session's value must lie in."""

    name: str
    unit: str
    default_value: float
    description: str = ""
    minimum: Optional[float] = None
    """Smallest value a session may give it (inclusive); ``None``: no lower bound."""
    maximum: Optional[float] = None
    """Largest value a session may give it (inclusive); ``None``: no upper bound."""

    @classmethod
    def from_proto(cls, parameter: "pb.Parameter") -> "Parameter":
        return cls(parameter.name, parameter.unit, parameter.default_value,
                   parameter.description,
                   parameter.minimum if parameter.HasField("minimum") else None,
                   parameter.maximum if parameter.HasField("maximum") else None)


@dataclass(frozen=True)
class Model:
    """A model of the catalog or a registered one (``client.describe``)."""

    name: str
    """The bare name, e.g. ``"pendulum"`` (the resource name is ``"models/pendulum"``)."""
    title: str
    description: str
    form: str
    """``"mechanical"``, ``"index1"``, ``"index2"``, ``"implicit"`` (its analysis is
    ``proto.implicit_analysis``)."""
    builtin: bool
    variables: Tuple[Variable, ...]
    parameters: Tuple[Parameter, ...]
    invariants: Tuple[str, ...]
    columns: Tuple[Column, ...]
    inequalities: Tuple[str, ...]
    suggested_t_end: Optional[float]
    suggested_output_interval: Optional[float]
    proto: Any = field(repr=False, compare=False)

    @classmethod
    def from_proto(cls, model: "pb.Model") -> "Model":
        return cls(
            name=model.name[len("models/"):] if model.name.startswith("models/") else model.name,
            title=model.title, description=model.description,
            form=_lower_name(pb.ModelForm, model.form), builtin=model.builtin,
            variables=tuple(Variable(v.name, v.unit, _lower_name(pb.VariableRole, v.role),
                                     v.initial_value) for v in model.variables),
            parameters=tuple(Parameter.from_proto(p) for p in model.parameters),
            invariants=tuple(model.invariants),
            columns=tuple(Column.from_proto(c) for c in model.columns),
            inequalities=tuple(model.inequalities),
            suggested_t_end=model.suggested_t_end if model.HasField("suggested_t_end") else None,
            suggested_output_interval=(model.suggested_output_interval
                                       if model.HasField("suggested_output_interval") else None),
            proto=model)


@dataclass(frozen=True)
class Change:
    """One initial value that consistent initialization moved."""

    name: str
    given: float
    corrected: float


@dataclass(frozen=True)
class InitReport:
    """What consistent initialization changed (residuals are ∞-norms in constraint units)."""

    changes: Tuple[Change, ...]
    residual_position_before: float
    residual_velocity_before: float
    residual_position_after: float
    residual_velocity_after: float
    iterations: int
    summary: str

    @classmethod
    def from_proto(cls, report: "pb.InitializationReport") -> "InitReport":
        return cls(tuple(Change(c.name, c.given, c.corrected) for c in report.changes),
                   report.residual_position_before, report.residual_velocity_before,
                   report.residual_position_after, report.residual_velocity_after,
                   report.iterations, report.summary)


@dataclass(frozen=True)
class Statistics:
    """Counters of a run (cumulative over a session's life)."""

    steps: int
    rejected_steps: int
    rhs_evaluations: int
    projections: int
    projection_iterations: int
    samples: int
    max_residual_position: float
    max_residual_velocity: float
    cpu_seconds: float
    """Thread CPU time the server spent simulating [s]."""
    switches: int
    max_residual_inequality: float
    jacobian_evaluations: int = 0
    """Jacobian evaluations of the implicit methods (radau5, bdf); 0 for explicit ones."""
    lu_factorizations: int = 0
    newton_iterations: int = 0

    @classmethod
    def from_proto(cls, s: "pb.Statistics") -> "Statistics":
        return cls(s.steps, s.rejected_steps, s.rhs_evaluations, s.projections,
                   s.projection_iterations, s.samples, s.max_residual_position,
                   s.max_residual_velocity, s.cpu_seconds, s.switches, s.max_residual_inequality,
                   s.jacobian_evaluations, s.lu_factorizations, s.newton_iterations)

    def as_dict(self) -> Dict[str, float]:
        """Field name to value, in declaration order."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Summary:
    """The last message of a stream: why it ended and its counters."""

    termination: str
    """``"REACHED_END"``, ``"PROJECTION_FAILED"``, ``"CANCELLED"``, ..."""
    message: str
    t: float
    """Time of the last good state [s]."""
    next_sample_index: int
    statistics: Statistics
    max_residual_position: float
    max_residual_velocity: float
    max_residual_inequality: float
    samples_sent: int

    @property
    def reached_end(self) -> bool:
        return self.termination == "REACHED_END"

    @classmethod
    def from_proto(cls, s: "pb.StreamSummary") -> "Summary":
        return cls(enum_value_name(pb.Termination.DESCRIPTOR, s.termination), s.message, s.t,
                   s.next_sample_index, Statistics.from_proto(s.statistics),
                   s.max_residual_position, s.max_residual_velocity, s.max_residual_inequality,
                   s.samples_sent)


@dataclass(frozen=True)
class Event:
    """Something that happened at a sample."""

    sample_index: int
    t: float
    kind: str
    """``"resumed"``, ``"replayed"``, ``"updated"``, ``"grid_restarted"``, ``"activated"``,
    ``"deactivated"``."""
    message: str
    constraint: Optional[int]
    """activated/deactivated: the inequality's 0-based index; else None."""

    @property
    def is_switch(self) -> bool:
        return self.kind in ("activated", "deactivated")

    @classmethod
    def from_proto(cls, e: "pb.Event") -> "Event":
        return cls(e.sample_index, e.t, _lower_name(pb.EventKind, e.kind), e.message,
                   e.constraint if e.HasField("constraint") else None)


@dataclass(frozen=True)
class Progress:
    """How far a stream got after a frame."""

    t: float
    t_end: float
    fraction: float
    samples_sent: int
    wall_seconds: float

    @classmethod
    def from_proto(cls, p: "pb.Progress") -> "Progress":
        return cls(p.t, p.t_end, p.fraction, p.samples_sent, p.wall_seconds)


@dataclass(frozen=True)
class SessionInfo:
    """A session's state as the server last reported it (``Session.refresh()``)."""

    name: str
    model: str
    state: str
    """``"created"``, ``"running"``, ``"paused"``, ``"finished"``, ``"failed"``."""
    t: float
    next_sample_index: int
    values: Dict[str, float]
    """The current state over the session's columns."""
    parameters: Dict[str, float]
    init_report: InitReport
    statistics: Statistics
    last_termination: Optional[str]
    """None before any stream."""
    last_message: str
    proto: Any = field(repr=False, compare=False)

    @classmethod
    def from_proto(cls, s: "pb.Session") -> "SessionInfo":
        termination = (enum_value_name(pb.Termination.DESCRIPTOR, s.last_termination)
                       if s.last_termination else None)
        return cls(s.name, s.model, _lower_name(pb.SessionState, s.state), s.t,
                   s.next_sample_index, dict(zip((c.name for c in s.columns), s.values)),
                   dict(s.parameters), InitReport.from_proto(s.initialization),
                   Statistics.from_proto(s.statistics), termination, s.last_message, s)
