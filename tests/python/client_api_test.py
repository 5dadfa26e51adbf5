"""The Python client (package `tether`, installed into a fresh virtual environment) against a real
tether-server process: models, runs as DataFrames equal to the CLI's CSV, errors with field
violations, sessions (stream, pause, resume, update, fork, delete), and the asyncio variant.

Run by ctest as:  VENV/bin/python client_api_test.py --server TETHER_SERVER --cli TETHER
"""
import argparse
import asyncio
import io
import math
import sys
import threading
import unittest

import grpc
import numpy as np
import pandas as pd

import tether
import tether.aio
from support import BLOWUP_SPEC, OSCILLATOR_SPEC, ServerProcess, run_cli

ARGS = None

# The seed pendulum's position constraint x² + y² − l² is kept to a scaled residual ≤ 1e-12
# (the coupled projection's default tolerance); unscaled that is ≤ 1e-12·l² ≈ 6e-12 for l = 2.5.
RESIDUAL_TOLERANCE = 1e-9

def cli_csv(*args):
    """`tether run --server ... ARGS --format csv` as a DataFrame read with full precision."""
    result = run_cli(ARGS.cli, "--server", SERVER.address, "run", *args, "--format", "csv")
    return pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip",
                       keep_default_na=False, na_values=["nan"])


class ClientApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = tether.Client(SERVER.address)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def test_package_is_the_installed_one(self):
        # The test must exercise the installed wheel, not a source tree on sys.path.
        self.assertIn("site-packages", tether.__file__)
        self.assertRegex(tether.__version__, r"^\d+\.\d+\.\d+$")
        self.assertEqual(self.client.health(), "SERVING")

    def test_models_and_describe(self):
        names = [m.name for m in self.client.models()]
        self.assertIn("pendulum", names)
        self.assertEqual(names, sorted(names))
        model = self.client.describe("pendulum")
        self.assertEqual(model.form, "mechanical")
        self.assertTrue(model.builtin)
        self.assertEqual([p.name for p in model.parameters], ["m", "l", "g"])
        # models/pendulum.json: the rod length with its unit, description and range.
        rod = model.parameters[1]
        self.assertEqual((rod.unit, rod.default_value, rod.description),
                         ("m", 2.5, "length of the rod"))
        self.assertEqual((rod.minimum, rod.maximum), (0.01, 10.0))
        self.assertEqual(model.columns[0].name, "x")
        self.assertEqual(model.columns[0].kind, "state")
        self.assertIn("multiplier", [c.kind for c in model.columns])

    def test_register_describe_delete(self):
        model = self.client.register(OSCILLATOR_SPEC)
        self.assertEqual(model.name, "py-oscillator")
        # Its parameter has no range: None, not a bound of 0.
        self.assertEqual([(p.minimum, p.maximum) for p in model.parameters], [(None, None)])
        self.assertFalse(model.builtin)
        with self.assertRaises(tether.TetherError) as raised:
            self.client.register(OSCILLATOR_SPEC)
        self.assertEqual(raised.exception.code, grpc.StatusCode.ALREADY_EXISTS)
        self.assertEqual(self.client.register(OSCILLATOR_SPEC, replace=True).name, "py-oscillator")
        result = self.client.simulate("py-oscillator")
        # x = cos t: dp5 at rtol 1e-8 keeps the global error far below 1e-6 over one second.
        self.assertAlmostEqual(result.df["x"].iloc[-1], math.cos(1.0), delta=1e-6)
        self.client.delete_model("py-oscillator")
        with self.assertRaises(tether.TetherError) as raised:
            self.client.describe("py-oscillator")
        self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_simulate_dataframe_equals_cli_csv(self):
        """The same run through the CLI and through Python gives the same table, bit for bit: the
        CLI writes every number in its shortest round-tripping form."""
        args = ["pendulum", "--t-end", "2", "--method", "dop853", "--set", "l=3"]
        expected = cli_csv(*args)
        result = self.client.simulate("pendulum", t_end=2, method="dop853", parameters={"l": 3})
        self.assertTrue(result.ok)
        self.assertEqual(result.termination, "REACHED_END")
        pd.testing.assert_frame_equal(result.df.reset_index(), expected, check_exact=True)
        self.assertEqual(result.df.index.name, "t")
        self.assertEqual(result.df.attrs["units"]["t"], "s")
        self.assertIn("x", result.df.attrs["units"])
        self.assertLessEqual(result.df["residual_position"].max(), RESIDUAL_TOLERANCE)
        self.assertTrue(result.init_report.changes)  # the seed (0.86, 2.35) lies off the circle
        self.assertEqual(result.summary.statistics.samples, len(result.df))
        self.assertGreater(result.summary.statistics.cpu_seconds, 0)

    def test_inequality_model_dataframe_equals_cli_csv(self):
        # pds_half_plane: a switch on and off; the CSV's event column marks both samples.
        expected = cli_csv("pds_half_plane")
        result = self.client.simulate("pds_half_plane")
        # Values exact; dtypes aside: pandas reads the CSV's 0/1 of active_1 as integers.
        pd.testing.assert_frame_equal(result.df.reset_index(), expected, check_exact=True,
                                      check_dtype=False)
        switches = [e for e in result.events if e.is_switch]
        self.assertEqual([e.kind for e in switches], ["activated", "deactivated"])
        self.assertEqual(list(result.df["event"][result.df["event"] != ""]),
                         ["activated:0", "deactivated:0"])

    def test_columns_and_options_reach_the_server(self):
        result = self.client.simulate("pendulum", t_end=1, columns=["y", "x"], projection="none",
                                      method="euler", step=1e-3, output_interval=0.5)
        self.assertEqual(list(result.df.columns),
                         ["y", "x", "residual_position", "residual_velocity"])
        self.assertEqual(list(result.df.index), [0.0, 0.5, 1.0])
        # Without projection explicit Euler (first order) drifts off the circle by O(h) per unit
        # time, far above the projection's tolerance.
        self.assertGreater(result.df["residual_position"].iloc[-1], RESIDUAL_TOLERANCE)

    def test_unknown_option_is_refused_before_the_call(self):
        with self.assertRaises(tether.TetherError) as raised:
            self.client.simulate("pendulum", rtl=1e-6)
        error = raised.exception
        self.assertEqual(error.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(error.violations[0].field, "rtl")
        self.assertIn("did you mean 'rtol'", error.violations[0].description)
        with self.assertRaises(tether.TetherError) as raised:
            self.client.simulate("pendulum", projection="coupeld")
        self.assertIn("'coupeld' is not one of none, baumgarte, coupled, sequential",
                      str(raised.exception))
        self.assertIn("did you mean 'coupled'", str(raised.exception))

    def test_server_errors_carry_field_violations(self):
        bad = dict(OSCILLATOR_SPEC, name="py-api-bad", constraints=["a + kk*x"])
        with self.assertRaises(tether.TetherError) as raised:
            self.client.register(bad)
        error = raised.exception
        self.assertEqual(error.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(error.violations, "the server attaches google.rpc.BadRequest")
        self.assertIn("constraints[0]", error.violations[0].field)
        self.assertIn("unknown name 'kk'", error.violations[0].description)
        with self.assertRaises(tether.TetherError) as raised:
            self.client.simulate("pendulum", parameters={"lenght": 3})
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(any("lenght" in v.field + v.description
                            for v in raised.exception.violations))
        # Outside the rod length's range [0.01, 10] (models/pendulum.json).
        with self.assertRaises(tether.TetherError) as raised:
            self.client.simulate("pendulum", parameters={"l": 20})
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual([(v.field, v.description) for v in raised.exception.violations],
                         [("parameters.l",
                           "parameter 'l' = 20; must be in [0.01, 10] (the model's range)")])
        with self.assertRaises(tether.TetherError) as raised:
            self.client.simulate("no-such-model")
        self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_numerical_failure_is_a_result(self):
        # k = 2: x = 1/(1 − 2t) blows up at t = 0.5, before t_end = 1.
        result = self.client.simulate(BLOWUP_SPEC, parameters={"k": 2})
        self.assertFalse(result.ok)
        self.assertIn(result.termination, ("STEP_SIZE_UNDERFLOW", "NON_FINITE"))
        self.assertIsNotNone(result.error)
        self.assertEqual(result.error.code, grpc.StatusCode.ABORTED)
        self.assertIsNotNone(result.error.info)
        self.assertEqual(result.error.info.reason, result.termination)
        # The last good state: the numerical solution stays finite a hair past the pole, where
        # the error control gives up (within 1e-6 of it at these tolerances).
        self.assertLessEqual(result.summary.t, 0.5 + 1e-6)
        self.assertGreater(len(result.df), 0)  # the samples before the failure are kept
        with self.assertRaises(tether.TetherError):
            result.check()

    def test_session_lifecycle(self):
        with self.client.session("pendulum", t_end=2, output_interval=0.01) as session:
            self.assertTrue(session.id.startswith("py-"))
            self.assertEqual(session.info.state, "created")
            self.assertTrue(session.init_report.changes)
            indices = []
            for frame in session.stream(frame_samples=10):
                indices.extend(frame.sample_indices)
                if len(indices) >= 50:
                    session.pause()
            self.assertEqual(indices, list(range(len(indices))))
            self.assertGreaterEqual(len(indices), 50)
            self.assertLess(len(indices), 201)
            # Resuming continues after the last frame received: no gap, no duplicate.
            rest = session.run()
            self.assertEqual(rest.frames[0].first_sample_index, indices[-1] + 1)
            self.assertEqual(rest.termination, "REACHED_END")
            self.assertAlmostEqual(rest.df.index[-1], 2.0, places=12)
            self.assertEqual(session.refresh().state, "finished")

            info = session.update(parameters={"l": 2.0})
            self.assertEqual(info.parameters["l"], 2.0)
            # Changing l moves the state off the new circle: initialization corrects it.
            self.assertTrue(info.init_report.changes)
            fork = session.fork()
            self.assertEqual(fork.routing_key, session.routing_key)
            branch = fork.run(t_end=3)
            self.assertEqual(branch.termination, "REACHED_END")
            self.assertAlmostEqual(branch.df.index[-1], 3.0, places=12)
            x, y = branch.df["x"].iloc[-1], branch.df["y"].iloc[-1]
            self.assertAlmostEqual(x * x + y * y, 4.0, delta=RESIDUAL_TOLERANCE)
            fork.delete()
            names = [s.name for s in self.client.sessions()]
            self.assertIn(session.name, names)
            self.assertNotIn(fork.name, names)
        with self.assertRaises(tether.TetherError) as raised:
            session.refresh()
        self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_session_control_mid_stream(self):
        with self.client.session("pendulum", t_end=50, output_interval=0.01) as session:
            indices, updated, sent = [], [], False
            for frame in session.stream(frame_samples=5, indefinite=True):
                indices.extend(frame.sample_indices)
                updated.extend(e for e in frame.events if e.kind == "updated")
                if len(indices) >= 20 and not sent:
                    session.control(parameters={"l": 2.0})
                    sent = True
                if updated and len(indices) > updated[0].sample_index + 10:
                    session.control(pause=True)
            # The pause ends the stream at a frame boundary with nothing lost.
            self.assertEqual(indices, list(range(len(indices))))
            self.assertEqual(session.last_summary.termination, "PAUSED")
            self.assertEqual(session.last_summary.next_sample_index, len(indices))
            self.assertEqual(len(updated), 1)
            self.assertIn("l = 2 (was 2.5)", updated[0].message)
            self.assertEqual(session.refresh().parameters["l"], 2.0)
            with self.assertRaises(tether.TetherError) as raised:
                session.control(parameters={"nope": 1.0})
            self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            rest = session.run(t_end=session.info.t + 0.05)
            self.assertEqual(rest.frames[0].first_sample_index, len(indices))

    def test_session_stop_conditions_pause_without_loss(self):
        """max_samples and stop_time end the stream at a frame boundary, PAUSED, and the next
        stream() continues at the summary's next_sample_index: together the samples of an
        uninterrupted run, bit for bit (stop_time moves neither the grid nor a step)."""
        whole = self.client.session("pendulum", t_end=1, output_interval=0.01)
        whole_df = whole.run().df
        whole.delete()
        with self.client.session("pendulum", t_end=1, output_interval=0.01) as session:
            first = session.run(frame_samples=8, max_samples=37)
            self.assertEqual(first.termination, "PAUSED")
            self.assertEqual(session.last_summary.next_sample_index, 37)
            self.assertEqual(len(first.df), 37)
            second = session.run(stop_time=0.555)
            self.assertEqual(second.termination, "PAUSED")
            self.assertEqual(second.frames[0].first_sample_index, 37)
            self.assertGreaterEqual(second.df.index[-1], 0.555)
            self.assertLess(second.df.index[-2], 0.555)
            rest = session.run()
            self.assertEqual(rest.termination, "REACHED_END")
            joined = pd.concat([first.df, second.df, rest.df])
            pd.testing.assert_frame_equal(joined, whole_df, check_exact=True)

    def test_session_viewers_see_the_drivers_samples(self):
        """A viewer on its own client (as a dashboard's would be) gets the driver's samples from
        where it starts, replayed from the history, and ends at its stop condition (PAUSED) or
        when the session is deleted (SESSION_DELETED)."""
        session = self.client.session("pendulum", t_end=2, output_interval=0.01)
        driven = session.run()
        self.assertEqual(len(driven.df), 201)
        with tether.Client(SERVER.address) as other:
            watcher = other.get_session(session.name)
            frames = list(watcher.view(start_sample_index=0, max_samples=150, frame_samples=7))
            self.assertEqual(watcher.last_view_summary.termination, "PAUSED")
            viewed = pd.concat([f.df for f in frames])
            pd.testing.assert_frame_equal(viewed, driven.df.iloc[:150], check_exact=True)

            # Caught up, a viewer waits for more; deleting the session ends it.
            seen, caught_up = [], threading.Event()

            def view():
                for frame in watcher.view(start_sample_index=100):
                    seen.extend(frame.sample_indices)
                    if seen[-1] == 200:
                        caught_up.set()

            viewer = threading.Thread(target=view)
            viewer.start()
            self.assertTrue(caught_up.wait(20))
            session.delete()
            viewer.join(20)
            self.assertFalse(viewer.is_alive())
            self.assertEqual(seen, list(range(100, 201)))
            self.assertEqual(watcher.last_view_summary.termination, "SESSION_DELETED")

    def test_session_bad_option_names_the_field(self):
        with self.assertRaises(tether.TetherError) as raised:
            self.client.session("pendulum", rtol=-1)
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("rtol", str(raised.exception))

    def test_asyncio_client(self):
        async def scenario():
            async with tether.aio.AsyncClient(SERVER.address) as client:
                self.assertIn("pendulum", [m.name for m in await client.models()])
                result = await client.simulate("pendulum", t_end=2, method="dop853",
                                               parameters={"l": 3})
                sync = self.client.simulate("pendulum", t_end=2, method="dop853",
                                            parameters={"l": 3})
                pd.testing.assert_frame_equal(result.df, sync.df, check_exact=True)
                session = await client.session("pendulum", t_end=1)
                frames = [frame async for frame in session.stream(frame_samples=5)]
                indices = np.concatenate([f.sample_indices for f in frames])
                self.assertGreater(len(frames), 1)
                self.assertEqual(list(indices), list(range(len(indices))))
                self.assertEqual(frames[-1].t[-1], 1.0)
                self.assertEqual(session.last_summary.termination, "REACHED_END")
                fork = await session.fork()
                await fork.delete()
                await session.delete()
                with self.assertRaises(tether.TetherError) as raised:
                    await client.describe("no-such-model")
                self.assertEqual(raised.exception.code, grpc.StatusCode.NOT_FOUND)
                df = await client.sweep("pendulum", values={"l": [2.0, 3.0]}, t_end=1,
                                        concurrency=2)
                self.assertEqual(list(df["status"]), ["OK", "OK"])
        asyncio.run(scenario())

    def test_asyncio_session_pauses_and_steers(self):
        """The asyncio session's stop conditions, control() and pause() do what the synchronous
        session's do (test_session_control_mid_stream, test_session_lifecycle)."""
        async def scenario():
            async with tether.aio.AsyncClient(SERVER.address) as client:
                session = await client.session("pendulum", t_end=50, output_interval=0.01)
                async with session:
                    indices = []
                    async for frame in session.stream(frame_samples=8, max_samples=37):
                        indices.extend(frame.sample_indices)
                    self.assertEqual(indices, list(range(37)))
                    self.assertEqual(session.last_summary.termination, "PAUSED")
                    self.assertEqual(session.last_summary.next_sample_index, 37)
                    viewed = [f async for f in session.view(start_sample_index=30, max_samples=7)]
                    self.assertEqual(list(np.concatenate([f.sample_indices for f in viewed])),
                                     list(range(30, 37)))
                    self.assertEqual(session.last_view_summary.termination, "PAUSED")

                    # A change while it streams, then the server-side pause: nothing lost.
                    updated, sent = [], False
                    async for frame in session.stream(frame_samples=5, indefinite=True):
                        indices.extend(frame.sample_indices)
                        updated.extend(e for e in frame.events if e.kind == "updated")
                        if len(indices) >= 60 and not sent:
                            await session.control(parameters={"l": 2.0})
                            sent = True
                        if updated and len(indices) > updated[0].sample_index + 10:
                            await session.control(pause=True)
                    self.assertEqual(indices, list(range(len(indices))))
                    self.assertEqual(session.last_summary.termination, "PAUSED")
                    self.assertEqual(session.last_summary.next_sample_index, len(indices))
                    self.assertEqual(len(updated), 1)
                    self.assertIn("l = 2 (was 2.5)", updated[0].message)
                    self.assertEqual((await session.refresh()).parameters["l"], 2.0)
                    with self.assertRaises(tether.TetherError) as raised:
                        await session.control(parameters={"nope": 1.0})
                    self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)

                    # pause() cancels at once; the next stream continues after the last sample
                    # received.
                    async for frame in session.stream(frame_samples=4, indefinite=True):
                        indices.extend(frame.sample_indices)
                        if len(indices) >= updated[0].sample_index + 40:
                            session.pause()
                    # The cancelled stream may still run on the server for a moment, moving the
                    # session's t past a horizon read meanwhile: read it once the stream ended.
                    info = await session.refresh()
                    for _ in range(500):
                        if info.state != "running":
                            break
                        await asyncio.sleep(0.01)
                        info = await session.refresh()
                    self.assertNotEqual(info.state, "running")
                    rest = await session.run(t_end=info.t + 0.05)
                    self.assertEqual(rest.frames[0].first_sample_index, indices[-1] + 1)
                    self.assertEqual(rest.termination, "REACHED_END")
        asyncio.run(scenario())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    ARGS, rest = parser.parse_known_args()
    SERVER = ServerProcess(ARGS.server)
    try:
        program = unittest.main(argv=[sys.argv[0]] + rest, verbosity=2, exit=False)
    finally:
        code = SERVER.stop()
    sys.exit(0 if program.result.wasSuccessful() and code == 0 else 1)
