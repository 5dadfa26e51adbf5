"""Sessions as objects: :class:`Session`.

    with client.session("pendulum", t_end=20, parameters={"l": 2}) as s:
        for frame in s.stream(t_end=5):          # frames as they are computed
            if frame.t[-1] > 2:
                s.pause()                        # ends the stream; the session keeps its state
        s.update(parameters={"l": 2.5})          # re-initializes at the current time
        what_if = s.fork()                       # a copy at the current state
        rest = s.run()                           # streams on to the horizon, collected
    # leaving the block deletes the session

A session lives in one replica's memory; every call for it carries its routing key
(``x-tether-session``: the root session's id, a fork keeps its parent's) so that a proxy sends it
there. Streams are not retried: a broken stream is continued by the next ``stream()`` call, which
asks for the sample after the last one received (``start_sample_index``), so nothing is lost or
repeated even if frames were in flight when the stream was cancelled.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Iterable, Iterator, List, Mapping, Optional

import grpc

from tether import _requests
from tether._base import SessionBase
from tether._channel import replica_of
from tether._proto import pb
from tether.errors import TetherError, from_rpc_error
from tether.result import Frame, Result, StreamAssembler
from tether.types import SessionInfo

if TYPE_CHECKING:  # pragma: no cover
    from tether.client import Client


class Session(SessionBase):
    """A session on the server (``client.session(...)``); see the module docstring."""

    def __init__(self, client: "Client", info: SessionInfo, routing_key: str) -> None:
        super().__init__(client, info, routing_key)
        self._lock = threading.Lock()  # pause() may come from another thread

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc_info) -> None:
        try:
            self.delete()
        except Exception:  # noqa: BLE001 - already gone, or the server went away: nothing to do
            pass

    def _unary(self, method: str, request):
        return self._client._unary(method, request, self.routing_key)

    def refresh(self) -> SessionInfo:
        """Reads the session's state from the server (GetSession)."""
        self.info = SessionInfo.from_proto(
            self._unary("GetSession", pb.GetSessionRequest(name=self.name)))
        return self.info

    def stream(self, t_end: Optional[float] = None, *, output_interval: Optional[float] = None,
               columns: Optional[Iterable[str]] = None, frame_samples: int = 0,
               indefinite: bool = False, realtime_factor: float = 0.0,
               start_sample_index: Optional[int] = None, max_samples: Optional[int] = None,
               stop_time: Optional[float] = None) -> Iterator[Frame]:
        """Advances the session and yields its frames as they arrive (StreamStates).

        Args:
            t_end: stream until this time [s] (default: the session's horizon).
            output_interval: sample spacing [s] (default: the session's).
            columns: column names to stream, in order (default all).
            frame_samples: samples per frame (0 = the server's default).
            indefinite: run with no horizon until ``pause()``.
            realtime_factor: simulated seconds per wall-clock second; 0 = as fast as possible.
            start_sample_index: first sample to send (replayed from the server's history if
                earlier than the session's next). Default: the sample after the last one this
                object received, so a paused or broken stream continues without gap or duplicate.
            max_samples: stop condition: end the stream after this many samples (≥ 1).
            stop_time: stop condition: end the stream after the first sample with t ≥ stop_time
                [s] (it moves neither the output grid nor a step).

        A stop condition or ``control(pause=True)`` pauses without loss: the stream ends at a
        frame boundary, ``last_summary.termination`` is ``"PAUSED"`` and its
        ``next_sample_index`` is where the next ``stream()`` starts.

        The generator ends when the stream does; ``last_summary`` then holds its summary. A
        numerical failure ends it with the TetherError (ABORTED with ErrorInfo) after every good
        frame; ``pause()`` ends it quietly.
        """
        call = self._client._stream("StreamStates", self._stream_request(
            t_end, output_interval, columns, frame_samples, indefinite, realtime_factor,
            start_sample_index, max_samples, stop_time), self.routing_key)
        with self._lock:
            self._call, self._paused = call, False
        assembler = StreamAssembler(keep_frames=False)
        try:
            for chunk in call:
                frame = assembler.consume(chunk)
                if chunk.WhichOneof("chunk") == "header":
                    self.columns = assembler.columns
                    self.replica = replica_of(call.initial_metadata())
                if frame is not None:
                    self._resume_at = frame.first_sample_index + len(frame.t)
                    yield frame
                if assembler.summary is not None:
                    self.last_summary = assembler.summary
        except grpc.RpcError as error:
            if not (self._paused and error.code() == grpc.StatusCode.CANCELLED):
                raise from_rpc_error(error) from None
        finally:
            with self._lock:
                self._call = None
            call.cancel()  # a no-op after the end; stops the call if the caller left the loop

    def view(self, *, start_sample_index: Optional[int] = None,
             columns: Optional[Iterable[str]] = None, frame_samples: int = 0,
             max_samples: Optional[int] = None,
             stop_time: Optional[float] = None) -> Iterator[Frame]:
        """Follows the session read-only (StreamStates with ``view_only``): yields the
        frames its driving stream computes (by this or any other client), from
        ``start_sample_index`` (replayed from the server's history; default: the session's current
        end), and waits for more while none come. It never advances the session, and the driver
        never waits for it: a viewer that falls behind the history gets a ``samples_lost`` event
        naming the lost range and continues at the oldest retained sample.

        It ends when the loop leaves it, at a stop condition (``max_samples``, ``stop_time`` [s])
        or when the session is deleted; ``last_view_summary`` then says which (``"PAUSED"``,
        ``"SESSION_DELETED"``). ``columns`` and ``frame_samples`` are as for ``stream()``."""
        call = self._client._stream("StreamStates", self._view_request(
            start_sample_index, columns, frame_samples, max_samples, stop_time), self.routing_key)
        assembler = StreamAssembler(keep_frames=False)
        try:
            for chunk in call:
                frame = assembler.consume(chunk)
                if frame is not None:
                    yield frame
                if assembler.summary is not None:
                    self.last_view_summary = assembler.summary
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            call.cancel()  # a no-op after the end; stops the call if the caller left the loop

    def run(self, t_end: Optional[float] = None, **kwargs) -> Result:
        """Streams (as ``stream``) and collects every frame into a Result. A numerical failure is
        returned as a Result with its termination and error, not raised."""
        frames: List[Frame] = []
        error = None
        try:
            for frame in self.stream(t_end, **kwargs):
                frames.append(frame)
        except TetherError as failure:
            if not frames and self.last_summary is None:
                raise
            error = failure
        return Result(tuple(self.columns), frames, self.last_summary, self.info.init_report, error,
                      self.replica)

    def pause(self) -> None:
        """Ends the open stream, if any (from the loop body or another thread), by cancelling
        it: at once, and without loss for this object, since the next ``stream()`` asks for the
        sample after the last one received (``start_sample_index``). ``control(pause=True)`` is
        the server-side pause instead: the stream ends at its next frame boundary with the
        summary's termination ``PAUSED``, the frames computed until then still arriving."""
        with self._lock:
            call, self._paused = self._call, True
        if call is not None:
            call.cancel()

    def control(self, parameters: Optional[Mapping[str, float]] = None,
                values: Optional[Mapping[str, float]] = None, pause: bool = False) -> SessionInfo:
        """Steers the session while it streams (ControlSession): new parameter and state values
        are applied by the open stream at its next frame boundary, consistent initialization
        runs, and the stream reports an ``updated`` event at the first sample after the change
        (its message names the change and the corrections). Without an open stream this is
        ``update()``. ``pause`` also ends the open stream there. Unknown names or non-finite
        values raise TetherError (INVALID_ARGUMENT) and change nothing."""
        self.info = SessionInfo.from_proto(self._unary(
            "ControlSession", _requests.control_request(self.name, parameters, values, pause)))
        return self.info

    def update(self, parameters: Optional[Mapping[str, float]] = None,
               values: Optional[Mapping[str, float]] = None) -> SessionInfo:
        """Changes parameters and/or state values between streams; consistent initialization
        runs again at the current time (``init_report`` says what it corrected)."""
        self.info = SessionInfo.from_proto(self._unary(
            "UpdateSession", _requests.update_request(self.name, parameters, values)))
        # The next stream starts where the server says (the samples before the update stay in
        # its history: any this object missed still come, then the update's event).
        self._resume_at = None
        return self.info

    def fork(self, session_id: Optional[str] = None) -> "Session":
        """A copy at the current state (a what-if branch), on the same replica; it keeps this
        session's routing key."""
        info = SessionInfo.from_proto(self._unary("ForkSession", pb.ForkSessionRequest(
            name=self.name, session_id=session_id or _requests.new_session_id())))
        return Session(self._client, info, self.routing_key)

    def delete(self) -> None:
        """Deletes the session (FAILED_PRECONDITION while a stream is open: pause it first)."""
        self._unary("DeleteSession", pb.DeleteSessionRequest(name=self.name))

