"""What the synchronous and the asyncio client share: their settings and channel, the metadata
of a call, and a session's identity. Only the calls themselves differ (awaited or not)."""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Tuple, Union

from tether import _requests
from tether._channel import TLS, call_metadata, open_channel
from tether._proto import pb_grpc
from tether._retry import RetryPolicy
from tether.errors import invalid_argument
from tether.types import InitReport, SessionInfo

# Where a client connects when given no target and TETHER_SERVER is unset: tether-server's default.
DEFAULT_TARGET = "127.0.0.1:50051"


class ClientBase:
    """A connection to a tether server (or to several replicas, for sweeps).

    Args:
        target: ``"host:port"``, a comma-separated list of replicas, or ``"dns:///name:port"``
            (see tether._channel); default ``$TETHER_SERVER``, else ``127.0.0.1:50051``.
        token: bearer token sent as ``authorization: Bearer <token>`` on every call; default
            ``$TETHER_TOKEN`` (none when unset).
        token_file: a file holding the token instead (its first non-empty line, stripped, as
            the CLI's ``--token-file``; a token in a file stays out of ``ps`` and shell
            history); default ``$TETHER_TOKEN_FILE``. Give ``token`` or ``token_file``, not
            both; either one given here overrides both variables.
        tls: a :class:`TLS` (CA, client certificate and key, server-name override), ``True`` for
            TLS with the system's roots, or None/False for plaintext.
        timeout: deadline of each attempt of a unary call [s].
        stream_timeout: deadline of a whole stream (simulate, session streams) [s]; None = none.
        retry: the UNAVAILABLE retry policy.
        metadata: extra (key, value) pairs sent on every call.
        channel_options: extra gRPC channel arguments.
    """

    _aio = False  # the asyncio client opens a grpc.aio channel

    def __init__(self, target: Optional[str] = None, *, token: Optional[str] = None,
                 token_file: Union[str, "os.PathLike[str]", None] = None,
                 tls: Union[TLS, bool, None] = None, timeout: float = 30.0,
                 stream_timeout: Optional[float] = None, retry: RetryPolicy = RetryPolicy(),
                 metadata: Sequence[Tuple[str, str]] = (),
                 channel_options: Sequence[Tuple[str, Any]] = ()) -> None:
        self.target = target or os.environ.get("TETHER_SERVER") or DEFAULT_TARGET
        self.tls = TLS() if tls is True else (tls or None)
        self._token = resolve_token(token, token_file)
        self.timeout = timeout
        self.stream_timeout = stream_timeout
        self.retry = retry
        self._metadata = tuple(metadata)
        self._channel, self._resolved = open_channel(self.target, self.tls, channel_options,
                                                     aio=self._aio)
        self._stub = pb_grpc.SimulationServiceStub(self._channel)

    def __repr__(self) -> str:
        return f"tether.{type(self).__name__}({self.target!r}{', tls' if self.tls else ''})"

    def _call_metadata(self, session_key: Optional[str] = None):
        return call_metadata(self._token, self._metadata, session_key)

    def _stream(self, method: str, request, session_key: Optional[str] = None):
        """Starts a server-streaming call (not retried here)."""
        return getattr(self._stub, method)(request, timeout=self.stream_timeout,
                                           metadata=self._call_metadata(session_key))


def read_token_file(path: Union[str, "os.PathLike[str]"], source: str) -> str:
    """The bearer token in ``path``: its first non-empty line without surrounding white space.
    ``source`` (the argument or variable that named the file) starts every error message."""
    try:
        with open(path, encoding="utf-8") as file:
            for line in file:
                if line.strip():
                    return line.strip()
    except OSError as error:
        raise invalid_argument(source, f"cannot read '{os.fspath(path)}': "
                               f"{error.strerror}") from None
    except UnicodeDecodeError:
        raise invalid_argument(source, f"'{os.fspath(path)}' is not UTF-8 text") from None
    raise invalid_argument(source, f"'{os.fspath(path)}' holds no token (no non-empty line)")


def resolve_token(token: Optional[str],
                  token_file: Union[str, "os.PathLike[str]", None]) -> Optional[str]:
    """The token a client sends: ``token`` or ``token_file`` if either is given, else
    ``$TETHER_TOKEN`` or the file ``$TETHER_TOKEN_FILE`` names; None for no token. Two sources
    at the same level are refused rather than one silently preferred."""
    if token is not None and token_file is not None:
        raise invalid_argument("token_file", "give token or token_file, not both")
    if token is not None:
        return token
    if token_file is not None:
        return read_token_file(token_file, "token_file")
    from_variable = os.environ.get("TETHER_TOKEN") or None
    file_variable = os.environ.get("TETHER_TOKEN_FILE") or None
    if from_variable is not None and file_variable is not None:
        raise invalid_argument("TETHER_TOKEN_FILE", "TETHER_TOKEN is set too; set one of them")
    if file_variable is not None:
        return read_token_file(file_variable, "TETHER_TOKEN_FILE")
    return from_variable


class SessionBase:
    """A session's identity and last known state, shared by Session and AsyncSession."""

    def __init__(self, client: ClientBase, info: SessionInfo, routing_key: str) -> None:
        self._client = client
        self.info = info
        """The session as last reported (creation, ``refresh``, ``update``)."""
        self.routing_key = routing_key
        """The x-tether-session value of this session's calls (a fork keeps its parent's)."""
        self.last_summary = None
        """The summary of the last stream that sent one."""
        self.last_view_summary = None
        """The summary of the last ``view()`` that ended with one (its own stop condition, or
        ``"SESSION_DELETED"``)."""
        self.columns: tuple = ()
        """The columns of the last stream (its header)."""
        self.replica = ""
        """The replica that served the last stream, when the server names itself."""
        self._call = None
        self._paused = False
        self._resume_at: Optional[int] = None  # the sample after the last one received

    @property
    def name(self) -> str:
        """``"sessions/ID"``."""
        return self.info.name

    @property
    def id(self) -> str:
        return self.info.name[len("sessions/"):]

    @property
    def init_report(self) -> InitReport:
        """What the last consistent initialization (create or update) corrected."""
        return self.info.init_report

    def __repr__(self) -> str:
        return (f"tether.{type(self).__name__}({self.name!r}, state={self.info.state!r}, "
                f"t={self.info.t})")

    def _view_request(self, start_sample_index, columns, frame_samples, max_samples,
                      stop_time):
        """The StreamStatesRequest of ``view()``: view_only; the horizon is the driver's."""
        request = _requests.stream_request(
            self.name, t_end=None, output_interval=None, columns=columns,
            frame_samples=frame_samples, indefinite=False, realtime_factor=0.0,
            start_sample_index=start_sample_index, max_samples=max_samples, stop_time=stop_time)
        request.view_only = True
        return request

    def _stream_request(self, t_end, output_interval, columns, frame_samples, indefinite,
                        realtime_factor, start_sample_index, max_samples, stop_time):
        """The StreamStatesRequest of ``stream()``: by default from the sample after the last one
        received, so a paused or broken stream continues without gap or duplicate."""
        if start_sample_index is None:
            start_sample_index = self._resume_at
        return _requests.stream_request(
            self.name, t_end=t_end, output_interval=output_interval, columns=columns,
            frame_samples=frame_samples, indefinite=indefinite, realtime_factor=realtime_factor,
            start_sample_index=start_sample_index, max_samples=max_samples, stop_time=stop_time)
