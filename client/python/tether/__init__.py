"""tether: the Python client of the tether DAE simulation service.

    import tether
    client = tether.Client("127.0.0.1:50051")
    client.models()                                   # the catalog and registered models
    r = client.simulate("pendulum", t_end=10, method="dop853", parameters={"l": 3})
    r.df                                              # pandas, indexed by t, units in r.df.attrs
    r.summary.termination, r.init_report.changes
    with client.session("pendulum") as s:             # a stateful run you can pause and steer
        for frame in s.stream(t_end=1): ...
    client.sweep("pendulum", grid={"l": (1, 3, 5)})   # one row per run, across replicas

``tether.aio.AsyncClient`` is the same API for asyncio. Every failure is a :class:`TetherError`
with the gRPC code, message and field violations. The raw protobuf messages are in ``tether.v1``.
"""
from importlib.metadata import PackageNotFoundError, version as _version

from tether._channel import TLS
from tether._retry import RetryPolicy
from tether.client import Client
from tether.design import Design, make_design
from tether.errors import ErrorInfo, FieldViolation, TetherError
from tether.result import Frame, Result
from tether.session import Session
from tether.types import (Change, Column, Event, InitReport, Model, Parameter, Progress,
                          SessionInfo, Statistics, Summary, Variable)

try:
    __version__ = _version("tether")
except PackageNotFoundError:  # pragma: no cover - imported from a source tree
    __version__ = "0+unknown"

__all__ = [
    "Change", "Client", "Column", "Design", "ErrorInfo", "Event", "FieldViolation", "Frame",
    "InitReport", "Model", "Parameter", "Progress", "Result", "RetryPolicy", "Session",
    "SessionInfo", "Statistics", "Summary", "TLS", "TetherError", "Variable", "make_design",
]
