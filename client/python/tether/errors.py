"""One exception type for every failure a caller can act on: :class:`TetherError`.

A failed call carries its gRPC status code, the server's message and the decoded rich details the
tether server attaches in ``grpc-status-details-bin`` (a ``google.rpc.Status``):
``google.rpc.BadRequest`` field violations for INVALID_ARGUMENT (one per problem, e.g. field
``constraints[0]``, description ``col 7: unknown name 'lenght' (did you mean 'length'?)``) and
``google.rpc.ErrorInfo`` for numerical failures (reason ``PROJECTION_FAILED``, metadata ``t``,
``residual_position``, ...). Bad arguments found before any call (an unknown option name, a
malformed sweep specification) are TetherErrors with code INVALID_ARGUMENT too, so one ``except``
clause covers them all.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional, Sequence, Tuple

import grpc

from tether._proto import error_details_pb2, status_pb2

# The trailing metadata key of the binary google.rpc.Status (gRPC's rich error model).
STATUS_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True)
class FieldViolation:
    """One problem of a request (``google.rpc.BadRequest.FieldViolation``)."""

    field: str
    """Spec path or request field, e.g. ``"constraints[0]"`` or ``"options.rtol"``."""
    description: str
    """What is wrong there."""


@dataclass(frozen=True)
class ErrorInfo:
    """Why a run failed numerically (``google.rpc.ErrorInfo``)."""

    reason: str
    """E.g. ``"PROJECTION_FAILED"``, ``"STEP_SIZE_UNDERFLOW"``."""
    domain: str
    """``"tether.dev"``."""
    metadata: Mapping[str, str] = field(default_factory=dict)
    """``"t"``, ``"residual_position"``, ... as text."""


class TetherError(Exception):
    """A call (or the arguments of one) failed.

    Attributes:
        code: the gRPC status code (``grpc.StatusCode.INVALID_ARGUMENT``, ``NOT_FOUND``, ...).
        message: the server's message (or the client's, for arguments refused before a call).
        violations: every problem of the request, in the server's order.
        info: the numerical failure's reason and metadata, when the server sent one.
        attempts: calls made (> 1 when UNAVAILABLE was retried).
    """

    def __init__(self, code: grpc.StatusCode, message: str,
                 violations: Sequence[FieldViolation] = (), info: Optional[ErrorInfo] = None,
                 attempts: int = 1) -> None:
        self.code = code
        self.message = message
        self.violations: Tuple[FieldViolation, ...] = tuple(violations)
        self.info = info
        self.attempts = attempts
        super().__init__(self.__str__())

    @property
    def code_name(self) -> str:
        """``"INVALID_ARGUMENT"``, ``"NOT_FOUND"``, ... as in google/rpc/code.proto."""
        return self.code.name

    def __str__(self) -> str:
        """The code and message, then one indented line per violation (a violation the message
        already spells out is not repeated), then the ErrorInfo reason and metadata."""
        lines = [f"{self.code_name}: {self.message}"]
        for violation in self.violations:
            line = (f"{violation.field}: {violation.description}" if violation.field
                    else violation.description)
            if line not in self.message:
                lines.append("  " + line)
        if self.info is not None:
            metadata = ", ".join(f"{k} = {v}" for k, v in sorted(self.info.metadata.items()))
            lines.append(f"  {self.info.reason}" + (f" ({metadata})" if metadata else ""))
        return "\n".join(lines)

    def __reduce__(self):  # exceptions with keyword state must say how to pickle themselves
        return (TetherError, (self.code, self.message, self.violations, self.info, self.attempts))


def decode_status_details(blob: bytes) -> Tuple[Tuple[FieldViolation, ...], Optional[ErrorInfo]]:
    """The field violations and error info of a serialized ``google.rpc.Status``; unknown detail
    types are skipped, undecodable bytes give nothing."""
    status = status_pb2.Status()
    try:
        status.ParseFromString(blob)
    except Exception:  # noqa: BLE001 - a broken detail must not hide the status itself
        return (), None
    violations = []
    info = None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
            violations.extend(FieldViolation(v.field, v.description)
                              for v in bad_request.field_violations)
        elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            error_info = error_details_pb2.ErrorInfo()
            detail.Unpack(error_info)
            info = ErrorInfo(error_info.reason, error_info.domain, dict(error_info.metadata))
    return tuple(violations), info


def _details_blob(metadata: Optional[Iterable]) -> Optional[bytes]:
    for item in metadata or ():
        key, value = (item.key, item.value) if hasattr(item, "key") else item
        if key == STATUS_DETAILS_KEY:
            return value
    return None


def from_rpc_error(error: grpc.RpcError, attempts: int = 1) -> TetherError:
    """Converts a failed call (sync ``grpc.RpcError`` or ``grpc.aio.AioRpcError``)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message = (error.details() if hasattr(error, "details") else None) or str(error)
    trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    blob = _details_blob(trailing)
    violations, info = decode_status_details(blob) if blob else ((), None)
    return TetherError(code or grpc.StatusCode.UNKNOWN, message, violations, info, attempts)


def invalid_argument(field_name: str, description: str) -> TetherError:
    """A TetherError for an argument refused before any call."""
    return TetherError(grpc.StatusCode.INVALID_ARGUMENT, f"{field_name}: {description}",
                       [FieldViolation(field_name, description)])


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'rtol'?)`` for the closest candidate, or ``""``."""
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
