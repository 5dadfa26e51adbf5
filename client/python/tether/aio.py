"""The asyncio client: :class:`AsyncClient`, the same API as :class:`tether.Client` over grpc.aio.

    async with tether.aio.AsyncClient("127.0.0.1:50051") as client:
        result = await client.simulate("pendulum", t_end=10)
        session = await client.session("pendulum")
        async for frame in session.stream(t_end=1):
            ...
        await session.delete()
        df = await client.sweep("pendulum", grid={"l": (1, 3, 3)}, concurrency=8)

Requests, results, errors and the retry policy are those of the synchronous client (shared code);
only the calls are awaited. Create and use an AsyncClient inside one running event loop.
"""
from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Dict, Iterable, List, Mapping, Optional, Union

import grpc
import pandas as pd

from tether import _requests
from tether._base import ClientBase, SessionBase
from tether._channel import WARM_UP_SETTLE, WARM_UP_TIMEOUT, replica_of
from tether._proto import HEALTH_CHECK_METHOD, health_pb2, pb
from tether._retry import Retryable, is_transient_failure, only_unavailable
from tether.errors import TetherError, from_rpc_error
from tether.result import Frame, Result, StreamAssembler
from tether.sweep import SweepPlan
from tether.types import Model, SessionInfo

class AsyncClient(ClientBase):
    """The asyncio twin of :class:`tether.Client` (same arguments, awaitable methods)."""

    _aio = True

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    async def _unary(self, method: str, request, session_key: Optional[str] = None):
        call = getattr(self._stub, method)
        waits = self.retry.waits()
        attempt = 1
        while True:
            try:
                return await call(request, timeout=self.timeout,
                                  metadata=self._call_metadata(session_key))
            except grpc.aio.AioRpcError as error:
                wait = next(waits, None) if error.code() == grpc.StatusCode.UNAVAILABLE else None
                if wait is None:
                    raise from_rpc_error(error, attempt) from None
                await asyncio.sleep(wait)
                attempt += 1

    async def _list_all(self, method: str, request, field: str) -> list:
        """As Client._list_all."""
        items = []
        while True:
            page = await self._unary(method, request)
            items.extend(getattr(page, field))
            if not page.next_page_token:
                return items
            request.page_token = page.next_page_token

    async def models(self) -> List[Model]:
        """As Client.models."""
        return [Model.from_proto(m)
                for m in await self._list_all("ListModels", pb.ListModelsRequest(), "models")]

    async def describe(self, model: str) -> Model:
        """As Client.describe."""
        return Model.from_proto(await self._unary("GetModel", pb.GetModelRequest(
            name=_requests.model_name(model))))

    async def register(self, spec: _requests.SpecSource, *, replace: bool = False) -> Model:
        """As Client.register."""
        return Model.from_proto(await self._unary("RegisterModel", pb.RegisterModelRequest(
            spec_json=_requests.spec_text(spec), replace=replace)))

    async def delete_model(self, model: str) -> None:
        """As Client.delete_model."""
        await self._unary("DeleteModel", pb.DeleteModelRequest(name=_requests.model_name(model)))

    async def simulate(self, model: _requests.ModelSource, *, t_end: Optional[float] = None,
                       parameters: Optional[Mapping[str, float]] = None,
                       method: Optional[str] = None, output_interval: Optional[float] = None,
                       initial_values: Optional[Mapping[str, float]] = None,
                       fixed: Optional[Iterable[str]] = None,
                       columns: Optional[Iterable[str]] = None, frame_samples: int = 0,
                       **options: Any) -> Result:
        """As Client.simulate."""
        request = _requests.simulate_request(
            model, parameters=parameters, initial_values=initial_values, fixed=fixed,
            columns=columns, frame_samples=frame_samples,
            options=dict(options, t_end=t_end, method=method, output_interval=output_interval))
        return await self.simulate_request(request)

    async def simulate_request(self, request: "pb.SimulateRequest",
                               retryable: Retryable = only_unavailable) -> Result:
        """As Client.simulate_request (cancelling the awaiting task cancels the call)."""
        waits = self.retry.waits()
        attempt = 1
        while True:
            call = self._stream("Simulate", request)
            assembler = StreamAssembler()
            try:
                async for chunk in call:
                    assembler.consume(chunk)
                result = assembler.result(replica=replica_of(await call.initial_metadata()))
                result.attempts = attempt
                return result
            except grpc.aio.AioRpcError as error:
                retry = retryable(error.code().name, assembler.summary is not None)
                wait = next(waits, None) if retry else None
                if wait is not None:
                    await asyncio.sleep(wait)
                    attempt += 1
                    continue
                failure = from_rpc_error(error, attempt)
                if assembler.header is None:
                    raise failure from None
                result = assembler.result(failure, replica_of(await call.initial_metadata()))
                result.attempts = attempt
                return result

    async def session(self, model: str, *, session_id: Optional[str] = None,
                      parameters: Optional[Mapping[str, float]] = None,
                      initial_values: Optional[Mapping[str, float]] = None,
                      fixed: Optional[Iterable[str]] = None, t_end: Optional[float] = None,
                      method: Optional[str] = None, output_interval: Optional[float] = None,
                      **options: Any) -> "AsyncSession":
        """As Client.session."""
        session_id = session_id or _requests.new_session_id()
        request = _requests.create_session_request(
            model, session_id, parameters=parameters, initial_values=initial_values, fixed=fixed,
            options=dict(options, t_end=t_end, method=method, output_interval=output_interval))
        info = SessionInfo.from_proto(await self._unary("CreateSession", request, session_id))
        return AsyncSession(self, info, session_id)

    async def sessions(self) -> List[SessionInfo]:
        """As Client.sessions."""
        return [SessionInfo.from_proto(s) for s in
                await self._list_all("ListSessions", pb.ListSessionsRequest(), "sessions")]

    async def health(self, service: str = "") -> str:
        """As Client.health."""
        check = self._channel.unary_unary(
            HEALTH_CHECK_METHOD,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString)
        try:
            response = await check(health_pb2.HealthCheckRequest(service=service),
                                   timeout=self.timeout, metadata=self._call_metadata())
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

    async def warm_up(self) -> None:
        """As Client.warm_up."""
        if not self._resolved.balanced:
            return
        try:
            await asyncio.wait_for(self._channel.channel_ready(), WARM_UP_TIMEOUT)
        except asyncio.TimeoutError:
            return
        await asyncio.sleep(WARM_UP_SETTLE)

    async def sweep(self, model: _requests.ModelSource, **kwargs: Any) -> pd.DataFrame:
        """As Client.sweep (the arguments are tether.sweep.SweepPlan's): at most ``concurrency``
        runs in flight; cancelling the awaiting task cancels them all."""
        plan = SweepPlan(model, **kwargs)
        await self.warm_up()
        limit = asyncio.Semaphore(plan.concurrency)

        async def one(index: int) -> Dict[str, Any]:
            async with limit:
                try:
                    outcome: Union[Result, TetherError] = await self.simulate_request(
                        plan.requests[index], retryable=is_transient_failure)
                except TetherError as error:
                    outcome = error
            return plan.finish_run(index, outcome)

        try:
            rows = await asyncio.gather(*(one(i) for i in range(len(plan.design))))
        finally:
            plan.bar.finish()
        return plan.frame(rows)


class AsyncSession(SessionBase):
    """The asyncio twin of :class:`tether.Session`."""

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc_info) -> None:
        try:
            await self.delete()
        except Exception:  # noqa: BLE001 - already gone, or the server went away
            pass

    async def _unary(self, method: str, request):
        return await self._client._unary(method, request, self.routing_key)

    async def refresh(self) -> SessionInfo:
        self.info = SessionInfo.from_proto(
            await self._unary("GetSession", pb.GetSessionRequest(name=self.name)))
        return self.info

    async def stream(self, t_end: Optional[float] = None, *,
                     output_interval: Optional[float] = None,
                     columns: Optional[Iterable[str]] = None, frame_samples: int = 0,
                     indefinite: bool = False, realtime_factor: float = 0.0,
                     start_sample_index: Optional[int] = None,
                     max_samples: Optional[int] = None,
                     stop_time: Optional[float] = None) -> AsyncIterator[Frame]:
        """As Session.stream, as an async generator."""
        call = self._client._stream("StreamStates", self._stream_request(
            t_end, output_interval, columns, frame_samples, indefinite, realtime_factor,
            start_sample_index, max_samples, stop_time), self.routing_key)
        self._call, self._paused = call, False
        assembler = StreamAssembler(keep_frames=False)
        try:
            async for chunk in call:
                frame = assembler.consume(chunk)
                if chunk.WhichOneof("chunk") == "header":
                    self.columns = assembler.columns
                    self.replica = replica_of(await call.initial_metadata())
                if frame is not None:
                    self._resume_at = frame.first_sample_index + len(frame.t)
                    yield frame
                if assembler.summary is not None:
                    self.last_summary = assembler.summary
        except grpc.aio.AioRpcError as error:
            if not (self._paused and error.code() == grpc.StatusCode.CANCELLED):
                raise from_rpc_error(error) from None
        except asyncio.CancelledError:
            if not self._paused:
                raise
        finally:
            self._call = None
            call.cancel()

    async def view(self, *, start_sample_index: Optional[int] = None,
                   columns: Optional[Iterable[str]] = None, frame_samples: int = 0,
                   max_samples: Optional[int] = None,
                   stop_time: Optional[float] = None) -> AsyncIterator[Frame]:
        """As Session.view, as an async generator."""
        call = self._client._stream("StreamStates", self._view_request(
            start_sample_index, columns, frame_samples, max_samples, stop_time), self.routing_key)
        assembler = StreamAssembler(keep_frames=False)
        try:
            async for chunk in call:
                frame = assembler.consume(chunk)
                if frame is not None:
                    yield frame
                if assembler.summary is not None:
                    self.last_view_summary = assembler.summary
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None
        finally:
            call.cancel()

    async def run(self, t_end: Optional[float] = None, **kwargs) -> Result:
        """As Session.run."""
        frames: List[Frame] = []
        error = None
        try:
            async for frame in self.stream(t_end, **kwargs):
                frames.append(frame)
        except TetherError as failure:
            if not frames and self.last_summary is None:
                raise
            error = failure
        return Result(tuple(self.columns), frames, self.last_summary, self.info.init_report,
                      error, self.replica)

    def pause(self) -> None:
        """As Session.pause: cancels the open stream (from the loop body or another task) at
        once; the next ``stream()`` continues after the last sample received."""
        self._paused = True
        if self._call is not None:
            self._call.cancel()

    async def control(self, parameters: Optional[Mapping[str, float]] = None,
                      values: Optional[Mapping[str, float]] = None,
                      pause: bool = False) -> SessionInfo:
        """As Session.control: changes applied by the open stream at its next frame boundary
        (reported as an ``updated`` event), ``pause`` ends it there with nothing lost."""
        self.info = SessionInfo.from_proto(await self._unary(
            "ControlSession", _requests.control_request(self.name, parameters, values, pause)))
        return self.info

    async def update(self, parameters: Optional[Mapping[str, float]] = None,
                     values: Optional[Mapping[str, float]] = None) -> SessionInfo:
        """As Session.update."""
        self.info = SessionInfo.from_proto(await self._unary(
            "UpdateSession", _requests.update_request(self.name, parameters, values)))
        self._resume_at = None
        return self.info

    async def fork(self, session_id: Optional[str] = None) -> "AsyncSession":
        """As Session.fork."""
        info = SessionInfo.from_proto(await self._unary("ForkSession", pb.ForkSessionRequest(
            name=self.name, session_id=session_id or _requests.new_session_id())))
        return AsyncSession(self._client, info, self.routing_key)

    async def delete(self) -> None:
        """As Session.delete."""
        await self._unary("DeleteSession", pb.DeleteSessionRequest(name=self.name))
