"""Cross-language test: a Python client (Debian python3-grpcio) against a real tether-server.

Run by ctest as:  /usr/bin/python3 cross_language_test.py --server PATH --stubs DIR
DIR holds the stubs generated at build time from proto/ with grpc_python_plugin, and the
health stubs from Debian's grpc-proto. The server listens on 127.0.0.1 with port 0; every call
has a deadline and every loop a bound, so nothing can hang.
"""
import argparse
import json
import math
import sys
import time
import unittest

from support import OSCILLATOR_SPEC as SPEC, ServerProcess

ARGS = None
DEADLINE = 20.0  # seconds per call: far above the pendulum's ~0.1 s runs, below ctest's timeout

# The seed pendulum has one position constraint x^2 + y^2 - l^2 (units m^2, l = 2.5 m). The
# coupled projection stops at a scaled residual <= 1e-12 (SimulationOptions default); the
# unscaled one is then <= 1e-12 * l^2 ~ 6e-12. 1e-9 leaves room for the scale convention.
RESIDUAL_TOLERANCE = 1e-9


class CrossLanguageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, ARGS.stubs)
        import grpc  # noqa: E402
        from tether_health import health_pb2, health_pb2_grpc
        from tether.v1 import simulation_service_pb2 as pb
        from tether.v1 import simulation_service_pb2_grpc as pb_grpc
        cls.grpc, cls.pb, cls.health_pb2 = grpc, pb, health_pb2
        cls.server = ServerProcess(ARGS.server)
        cls.channel = grpc.insecure_channel(cls.server.address)
        grpc.channel_ready_future(cls.channel).result(timeout=DEADLINE)
        cls.stub = pb_grpc.SimulationServiceStub(cls.channel)
        cls.health = health_pb2_grpc.HealthStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.stop()
        assert code == 0, f"tether-server exited {code}"

    def collect(self, call, limit=None):
        """Frames of a stream as (indices, t, rows, residuals); stops after `limit` samples."""
        columns, indices, times, rows, residuals, summary = None, [], [], [], [], None
        for chunk in call:
            kind = chunk.WhichOneof("chunk")
            if kind == "header":
                columns = len(chunk.header.columns)
            elif kind == "frame":
                f = chunk.frame
                for i, t in enumerate(f.t):
                    indices.append(f.first_sample_index + i)
                    times.append(t)
                    rows.append(list(f.values[i * columns:(i + 1) * columns]))
                    residuals.append((f.residual_position[i], f.residual_velocity[i]))
                if limit is not None and len(times) >= limit:
                    call.cancel()
                    break
            else:
                summary = chunk.summary
        return indices, times, rows, residuals, summary

    def test_session_lifecycle(self):
        pb = self.pb
        status = self.health.Check(self.health_pb2.HealthCheckRequest(), timeout=DEADLINE)
        self.assertEqual(status.status, self.health_pb2.HealthCheckResponse.SERVING)

        models = self.stub.ListModels(pb.ListModelsRequest(), timeout=DEADLINE)
        self.assertIn("models/pendulum", [m.name for m in models.models])

        registered = self.stub.RegisterModel(
            pb.RegisterModelRequest(spec_json=json.dumps(SPEC)), timeout=DEADLINE)
        self.assertEqual(registered.name, "models/py-oscillator")
        with self.assertRaises(self.grpc.RpcError) as error:
            self.stub.RegisterModel(pb.RegisterModelRequest(spec_json=json.dumps(SPEC)),
                                    timeout=DEADLINE)
        self.assertEqual(error.exception.code(), self.grpc.StatusCode.ALREADY_EXISTS)

        session = self.stub.CreateSession(
            pb.CreateSessionRequest(model="models/pendulum", session_id="py-run",
                                    options=pb.SimulationOptions(t_end=2.0, output_interval=0.01)),
            timeout=DEADLINE)
        self.assertEqual(session.name, "sessions/py-run")
        # The seed's (0.86, 2.35) lies off the circle: initialization must have moved it.
        self.assertTrue(session.initialization.changes)

        # First stream: cancelled after 50 samples.
        first = self.collect(self.stub.StreamStates(
            pb.StreamStatesRequest(name=session.name, frame_samples=10), timeout=DEADLINE), 50)
        for r in first[3]:
            self.assertLessEqual(r[0], RESIDUAL_TOLERANCE)
            self.assertLessEqual(r[1], RESIDUAL_TOLERANCE)
        self.assertEqual(first[0], list(range(len(first[0]))))

        # Wait (bounded) until the server has seen the cancellation.
        for _ in range(200):
            state = self.stub.GetSession(pb.GetSessionRequest(name=session.name), timeout=DEADLINE)
            if state.state != pb.SESSION_STATE_RUNNING:
                break
            time.sleep(0.01)
        # PAUSED, or FINISHED if the server had computed and sent the whole run already.
        self.assertIn(state.state, (pb.SESSION_STATE_PAUSED, pb.SESSION_STATE_FINISHED))

        # Resume from the last received sample + 1: no gap, no duplicate.
        resumed = self.collect(self.stub.StreamStates(
            pb.StreamStatesRequest(name=session.name, frame_samples=64,
                                   start_sample_index=first[0][-1] + 1), timeout=DEADLINE))
        self.assertEqual(resumed[0][0], first[0][-1] + 1)
        self.assertEqual(resumed[0], list(range(resumed[0][0], resumed[0][0] + len(resumed[0]))))
        self.assertEqual(resumed[4].termination, pb.TERMINATION_REACHED_END)
        self.assertAlmostEqual(resumed[1][-1], 2.0, places=12)
        for r in resumed[3]:
            self.assertLessEqual(max(r), RESIDUAL_TOLERANCE)

        self.stub.DeleteSession(pb.DeleteSessionRequest(name=session.name), timeout=DEADLINE)
        with self.assertRaises(self.grpc.RpcError) as error:
            self.stub.GetSession(pb.GetSessionRequest(name=session.name), timeout=DEADLINE)
        self.assertEqual(error.exception.code(), self.grpc.StatusCode.NOT_FOUND)

    def test_half_plane_streams_its_switches(self):
        """models/pds_half_plane: the point reaches the edge y = 0 at t_a ~ 0.815 (ACTIVATED), slides
        along it and leaves at t_d = ln 4 (DEACTIVATED); each event sits at a sample of its own t."""
        pb = self.pb
        events, times, inequality = [], {}, []
        for chunk in self.stub.Simulate(pb.SimulateRequest(model="models/pds_half_plane"),
                                        timeout=DEADLINE):
            if chunk.WhichOneof("chunk") != "frame":
                continue
            f = chunk.frame
            for i, t in enumerate(f.t):
                times[f.first_sample_index + i] = t
            inequality.extend(f.residual_inequality)
            events.extend(e for e in f.events
                          if e.kind in (pb.EVENT_KIND_ACTIVATED, pb.EVENT_KIND_DEACTIVATED))
        self.assertEqual([e.kind for e in events],
                         [pb.EVENT_KIND_ACTIVATED, pb.EVENT_KIND_DEACTIVATED])
        for e in events:
            self.assertTrue(e.HasField("constraint"))
            self.assertEqual(e.constraint, 0)
            self.assertEqual(times[e.sample_index], e.t)
        # Location error <= rtol-scale (1e-8) over the switch rates (0.42 and 1); 1e-6 is ample.
        self.assertAlmostEqual(events[1].t, math.log(4.0), delta=1e-6)
        self.assertEqual(len(inequality), len(times))
        # c = y has unit scale and the projection stops at |c| <= 1e-12 (see RESIDUAL_TOLERANCE).
        self.assertLessEqual(max(inequality), RESIDUAL_TOLERANCE)

    def test_bad_spec_lists_problems(self):
        with self.assertRaises(self.grpc.RpcError) as error:
            self.stub.RegisterModel(self.pb.RegisterModelRequest(spec_json="{"), timeout=DEADLINE)
        self.assertEqual(error.exception.code(), self.grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("spec_json", error.exception.details())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--stubs", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
