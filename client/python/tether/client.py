"""The synchronous client: :class:`Client`.

    import tether
    client = tether.Client("127.0.0.1:50051")
    result = client.simulate("pendulum", t_end=10, parameters={"l": 3}, method="dop853")
    result.df[["x", "y"]].plot()

Unary calls that fail with UNAVAILABLE are retried with backoff (:class:`RetryPolicy`), and so is
``simulate`` as a whole (a one-shot run keeps nothing on the server, so it may start again on
another replica); every other failure raises :class:`tether.TetherError` at once. A run that fails
numerically is not an exception: its Result carries the samples so far and the termination.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable, List, Mapping, Optional

import grpc

from tether import _requests
from tether._base import ClientBase
from tether._channel import WARM_UP_SETTLE, WARM_UP_TIMEOUT, replica_of
from tether._proto import HEALTH_CHECK_METHOD, health_pb2, pb
from tether._retry import Retryable, only_unavailable
from tether.errors import from_rpc_error
from tether.result import Result, StreamAssembler
from tether.session import Session
from tether.types import Model, SessionInfo


class Client(ClientBase):
    """A connection to a tether server or to several replicas; every call blocks (arguments:
    tether._base.ClientBase)."""

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- plumbing shared with Session -------------------------------------------------------

    def _unary(self, method: str, request, session_key: Optional[str] = None):
        """Calls the unary stub method, retrying UNAVAILABLE; raises TetherError."""
        call = getattr(self._stub, method)
        waits = self.retry.waits()
        attempt = 1
        while True:
            try:
                return call(request, timeout=self.timeout,
                            metadata=self._call_metadata(session_key))
            except grpc.RpcError as error:
                wait = next(waits, None) if error.code() == grpc.StatusCode.UNAVAILABLE else None
                if wait is None:
                    raise from_rpc_error(error, attempt) from None
                time.sleep(wait)
                attempt += 1

    def _list_all(self, method: str, request, field: str) -> list:
        """Every item of a paged List call, following next_page_token."""
        items = []
        while True:
            page = self._unary(method, request)
            items.extend(getattr(page, field))
            if not page.next_page_token:
                return items
            request.page_token = page.next_page_token

    # -- models -----------------------------------------------------------------------------

    def models(self) -> List[Model]:
        """The catalog and the registered models, sorted by name (every page)."""
        return [Model.from_proto(m)
                for m in self._list_all("ListModels", pb.ListModelsRequest(), "models")]

    def describe(self, model: str) -> Model:
        """One model: variables, parameters, invariants, columns. NOT_FOUND for an unknown name."""
        return Model.from_proto(self._unary("GetModel", pb.GetModelRequest(
            name=_requests.model_name(model))))

    def register(self, spec: _requests.SpecSource, *, replace: bool = False) -> Model:
        """Validates and registers a spec (a dict, or a JSON file's path). INVALID_ARGUMENT lists
        every problem as a field violation; ALREADY_EXISTS for a taken name, unless ``replace``
        (a registered model of that name is swapped in one step; the catalog is read-only)."""
        return Model.from_proto(self._unary("RegisterModel", pb.RegisterModelRequest(
            spec_json=_requests.spec_text(spec), replace=replace)))

    def delete_model(self, model: str) -> None:
        """Removes a registered model (the catalog is read-only: FAILED_PRECONDITION)."""
        self._unary("DeleteModel", pb.DeleteModelRequest(name=_requests.model_name(model)))

    # -- one-shot runs ----------------------------------------------------------------------

    def simulate(self, model: _requests.ModelSource, *, t_end: Optional[float] = None,
                 parameters: Optional[Mapping[str, float]] = None, method: Optional[str] = None,
                 output_interval: Optional[float] = None,
                 initial_values: Optional[Mapping[str, float]] = None,
                 fixed: Optional[Iterable[str]] = None, columns: Optional[Iterable[str]] = None,
                 frame_samples: int = 0, **options: Any) -> Result:
        """Runs a model once (Simulate) and returns the whole run.

        Args:
            model: a model name, a spec dict, or a spec file's ``pathlib.Path`` (run inline).
            t_end: end time [s] (default: the model's suggestion, else 10).
            parameters: parameter overrides by name.
            method: ``"euler"``, ``"rk4"``, ``"dp5"``, ``"dop853"``, ... (default dp5).
            output_interval: sample spacing [s]; 0 = every accepted step.
            initial_values: initial-value overrides by variable name.
            fixed: variables consistent initialization must not move.
            columns: columns to stream, in order (default all).
            frame_samples: samples per frame (0 = the server's default).
            **options: any other SimulationOptions field by name (``rtol=1e-10``,
                ``projection="none"``, ``metric="mass"``, ``max_steps=1000``, ...).

        Returns:
            The Result; a numerical failure is a Result whose ``termination`` names it (see
            ``Result.check``). Raises TetherError when no run took place (bad request, unknown
            model, unreachable server after the retries).
        """
        request = _requests.simulate_request(
            model, parameters=parameters, initial_values=initial_values, fixed=fixed,
            columns=columns, frame_samples=frame_samples,
            options=dict(options, t_end=t_end, method=method, output_interval=output_interval))
        return self.simulate_request(request)

    def simulate_request(self, request: "pb.SimulateRequest",
                         on_call: Optional[Callable[[Any], None]] = None,
                         retryable: Retryable = only_unavailable) -> Result:
        """Runs a prepared SimulateRequest (as ``simulate``), retrying UNAVAILABLE on whichever
        replica the channel picks next. ``on_call`` receives each call object as it starts (a
        sweep cancels them on interrupt); ``retryable(code_name, summarized)`` says which
        failures are retried (a sweep's rule is ``tether._retry.is_transient_failure``)."""
        waits = self.retry.waits()
        attempt = 1
        while True:
            call = self._stream("Simulate", request)
            if on_call is not None:
                on_call(call)
            assembler = StreamAssembler()
            try:
                for chunk in call:
                    assembler.consume(chunk)
                result = assembler.result(replica=replica_of(call.initial_metadata()))
                result.attempts = attempt
                return result
            except grpc.RpcError as error:
                retry = retryable(error.code().name, assembler.summary is not None)
                wait = next(waits, None) if retry else None
                if wait is not None:
                    time.sleep(wait)
                    attempt += 1
                    continue
                failure = from_rpc_error(error, attempt)
                if assembler.header is None:
                    raise failure from None
                result = assembler.result(failure, replica_of(call.initial_metadata()))
                result.attempts = attempt
                return result

    # -- sessions ---------------------------------------------------------------------------

    def session(self, model: str, *, session_id: Optional[str] = None,
                parameters: Optional[Mapping[str, float]] = None,
                initial_values: Optional[Mapping[str, float]] = None,
                fixed: Optional[Iterable[str]] = None, t_end: Optional[float] = None,
                method: Optional[str] = None, output_interval: Optional[float] = None,
                **options: Any) -> Session:
        """Creates a session (consistent initialization runs now; see ``Session.init_report``).

        ``session_id`` defaults to a client-chosen ``py-…`` id, which is also the routing key
        (``x-tether-session``) every call of the session carries, so that a proxy keeps the
        session's calls on its replica (deploy/README.md). Options as in ``simulate``; t_end is
        the horizon ``stream()`` runs to by default. Use it as a context manager to delete it on
        exit.
        """
        session_id = session_id or _requests.new_session_id()
        request = _requests.create_session_request(
            model, session_id, parameters=parameters, initial_values=initial_values, fixed=fixed,
            options=dict(options, t_end=t_end, method=method, output_interval=output_interval))
        info = SessionInfo.from_proto(self._unary("CreateSession", request, session_id))
        return Session(self, info, routing_key=session_id)

    def get_session(self, name: str, routing_key: Optional[str] = None) -> Session:
        """Attaches to an existing session (``"sessions/ID"`` or ``"ID"``). ``routing_key``: the
        root session's id for a fork (default: this session's id)."""
        full = _requests.session_name(name)
        key = routing_key or full[len("sessions/"):]
        info = SessionInfo.from_proto(self._unary("GetSession", pb.GetSessionRequest(name=full),
                                                  key))
        return Session(self, info, routing_key=key)

    def sessions(self) -> List[SessionInfo]:
        """Every session of the server (of the replica reached), sorted by name."""
        return [SessionInfo.from_proto(s)
                for s in self._list_all("ListSessions", pb.ListSessionsRequest(), "sessions")]

    # -- health and sweeps ------------------------------------------------------------------

    def health(self, service: str = "") -> str:
        """grpc.health.v1 status of ``service`` ("" = the server): ``"SERVING"``,
        ``"NOT_SERVING"``, ... One attempt: a probe wants the answer now."""
        check = self._channel.unary_unary(
            HEALTH_CHECK_METHOD,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString)
        try:
            response = check(health_pb2.HealthCheckRequest(service=service), timeout=self.timeout,
                             metadata=self._call_metadata())
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

    def warm_up(self) -> None:
        """Connects a balanced channel to its replicas before a burst of calls (``sweep`` does
        this): waits for the first connection, then briefly for the others (tether._channel)."""
        if not self._resolved.balanced:
            return
        try:
            grpc.channel_ready_future(self._channel).result(timeout=WARM_UP_TIMEOUT)
        except grpc.FutureTimeoutError:
            return
        time.sleep(WARM_UP_SETTLE)

    def sweep(self, model: _requests.ModelSource, **kwargs: Any):
        """Many independent runs of one model; one DataFrame row per run, in run order.

        See :class:`tether.sweep.SweepPlan` for the arguments (grid, values, latin, table,
        concurrency, stats, trajectories and every ``simulate`` option).
        """
        from tether.sweep import run_sweep
        return run_sweep(self, model, **kwargs)
