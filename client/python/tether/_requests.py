"""Building requests from Python arguments, shared by the sync and the asyncio client.

Solver options are the fields of ``tether.v1.SimulationOptions`` by their proto names
(``t_end``, ``method``, ``rtol``, ``projection``, ...): the proto is their one definition, read
here through its descriptor. Enum options take the short lower-case name of the value
(``projection="none"`` for ``PROJECTION_METHOD_NONE``).
"""
from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

from google.protobuf.descriptor import FieldDescriptor

from tether._proto import pb
from tether.errors import did_you_mean, invalid_argument

# A model given by name ("pendulum" or "models/pendulum"), as a spec dict, or as a spec file.
ModelSource = Union[str, Mapping[str, Any], "os.PathLike[str]"]
# A spec to register: a dict, or the path of a JSON file.
SpecSource = Union[Mapping[str, Any], str, "os.PathLike[str]"]

_OPTION_FIELDS = pb.SimulationOptions.DESCRIPTOR.fields_by_name


def model_name(name: str) -> str:
    """``"models/pendulum"`` for ``"pendulum"`` or ``"models/pendulum"``."""
    return name if name.startswith("models/") else "models/" + name


def session_name(name: str) -> str:
    """``"sessions/run-1"`` for ``"run-1"`` or ``"sessions/run-1"``."""
    return name if name.startswith("sessions/") else "sessions/" + name


def new_session_id() -> str:
    """A client-chosen session id, so that the routing key (x-tether-session) is known before the
    replica is chosen: ``py-`` and 16 hex digits (ids match ``[a-z][a-z0-9-]{0,62}``)."""
    return "py-" + uuid.uuid4().hex[:16]


def spec_text(spec: SpecSource) -> str:
    """The JSON text of a spec given as a dict or as a file path."""
    if isinstance(spec, Mapping):
        return json.dumps(spec)
    path = Path(spec)
    try:
        return path.read_text()
    except OSError as error:
        raise invalid_argument("spec", f"cannot read '{path}': {error.strerror}") from None


def _enum_prefix(enum_descriptor) -> str:
    """``"PROJECTION_METHOD_"`` from the value ``PROJECTION_METHOD_UNSPECIFIED``."""
    return enum_descriptor.values[0].name[: -len("UNSPECIFIED")]


def enum_short_names(enum_descriptor) -> list:
    """``["none", "baumgarte", ...]``: value names without prefix, lower case, no UNSPECIFIED."""
    prefix = _enum_prefix(enum_descriptor)
    return [v.name[len(prefix):].lower() for v in enum_descriptor.values[1:]]


def enum_value_name(enum_descriptor, number: int) -> str:
    """``"REACHED_END"`` for TERMINATION_REACHED_END's number: the name without its prefix."""
    return enum_descriptor.values_by_number[number].name[len(_enum_prefix(enum_descriptor)):]


def _enum_number(name: str, value: Any, enum_descriptor) -> int:
    if isinstance(value, str):
        full = _enum_prefix(enum_descriptor) + value.upper()
        if full in enum_descriptor.values_by_name and not full.endswith("UNSPECIFIED"):
            return enum_descriptor.values_by_name[full].number
    choices = enum_short_names(enum_descriptor)
    raise invalid_argument(f"options.{name}", f"'{value}' is not one of {', '.join(choices)}"
                           + did_you_mean(str(value), choices))


def simulation_options(options: Mapping[str, Any]) -> "pb.SimulationOptions":
    """SimulationOptions from ``{"t_end": 10, "method": "dop853", ...}``; None values are absent.

    Raises TetherError (INVALID_ARGUMENT) naming an unknown option (with the closest name) or a
    value of the wrong type."""
    message = pb.SimulationOptions()
    for name, value in options.items():
        if value is None:
            continue
        field = _OPTION_FIELDS.get(name)
        if field is None:
            raise invalid_argument(name, "not a simulation option"
                                   + did_you_mean(name, _OPTION_FIELDS))
        if field.type == FieldDescriptor.TYPE_ENUM:
            value = _enum_number(name, value, field.enum_type)
        try:
            setattr(message, name, value)
        except (TypeError, ValueError) as error:
            raise invalid_argument(f"options.{name}", f"{value!r}: {error}") from None
    return message


def option_names() -> list:
    """Every simulation option's name, in proto order."""
    return [f.name for f in pb.SimulationOptions.DESCRIPTOR.fields]


def _float_map(field: str, values: Optional[Mapping[str, float]]) -> dict:
    result = {}
    for name, value in (values or {}).items():
        try:
            result[str(name)] = float(value)
        except (TypeError, ValueError):
            raise invalid_argument(f"{field}.{name}", f"{value!r} is not a number") from None
    return result


def simulate_request(model: ModelSource, *, parameters: Optional[Mapping[str, float]] = None,
                     initial_values: Optional[Mapping[str, float]] = None,
                     fixed: Optional[Iterable[str]] = None, columns: Optional[Iterable[str]] = None,
                     frame_samples: int = 0, options: Mapping[str, Any]) -> "pb.SimulateRequest":
    """The SimulateRequest of one run."""
    request = pb.SimulateRequest(
        parameters=_float_map("parameters", parameters),
        initial_values=_float_map("initial_values", initial_values),
        fixed=list(fixed or ()), columns=list(columns or ()), frame_samples=frame_samples,
        options=simulation_options(options))
    if isinstance(model, str):
        request.model = model_name(model)
    else:
        request.spec_json = spec_text(model)
    return request


def create_session_request(model: str, session_id: str, *,
                           parameters: Optional[Mapping[str, float]] = None,
                           initial_values: Optional[Mapping[str, float]] = None,
                           fixed: Optional[Iterable[str]] = None,
                           options: Mapping[str, Any]) -> "pb.CreateSessionRequest":
    """The CreateSessionRequest of ``client.session(...)``."""
    return pb.CreateSessionRequest(
        model=model_name(model), session_id=session_id,
        parameters=_float_map("parameters", parameters),
        initial_values=_float_map("initial_values", initial_values),
        fixed=list(fixed or ()), options=simulation_options(options))


def stream_request(name: str, *, t_end: Optional[float], output_interval: Optional[float],
                   columns: Optional[Iterable[str]], frame_samples: int, indefinite: bool,
                   realtime_factor: float, start_sample_index: Optional[int],
                   max_samples: Optional[int] = None,
                   stop_time: Optional[float] = None) -> "pb.StreamStatesRequest":
    """The StreamStatesRequest of ``session.stream(...)``; the server checks the values."""
    request = pb.StreamStatesRequest(name=name, columns=list(columns or ()),
                                     frame_samples=frame_samples, indefinite=indefinite,
                                     realtime_factor=realtime_factor)
    if t_end is not None:
        request.t_end = t_end
    if output_interval is not None:
        request.output_interval = output_interval
    if start_sample_index is not None:
        request.start_sample_index = start_sample_index
    if max_samples is not None:
        request.max_samples = max_samples
    if stop_time is not None:
        request.stop_time = stop_time
    return request


def update_request(name: str, parameters: Optional[Mapping[str, float]],
                   values: Optional[Mapping[str, float]]) -> "pb.UpdateSessionRequest":
    """The UpdateSessionRequest of ``session.update(...)``."""
    return pb.UpdateSessionRequest(name=name, parameters=_float_map("parameters", parameters),
                                   values=_float_map("values", values))


def control_request(name: str, parameters: Optional[Mapping[str, float]],
                    values: Optional[Mapping[str, float]], pause: bool) -> "pb.ControlSessionRequest":
    """The ControlSessionRequest of ``session.control(...)``."""
    return pb.ControlSessionRequest(name=name, pause=pause,
                                    parameters=_float_map("parameters", parameters),
                                    values=_float_map("values", values))
