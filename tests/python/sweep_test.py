"""Sweeps against three local tether-server processes, through `tether sweep` and `client.sweep`:
a 3×4 grid returns 12 rows in run order equal to single runs; a server killed mid-sweep loses no
run; --resume completes a partial output (one cut short by Ctrl-C, one with rows removed); a
numerically failing parameter set is reported in its row; the Latin hypercube and --from tables
give the same parameter sets in both languages.

Run by ctest as:  VENV/bin/python sweep_test.py --server TETHER_SERVER --cli TETHER
"""
import argparse
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np
import pandas as pd

import tether
from support import BLOWUP_SPEC, ServerProcess, run_cli

ARGS = None
SERVERS = []

# The 3×4 grid of the issue: pendulum length l (3 levels) × mass m (4 levels).
GRID = ["--grid", "l=1.5:2.5:3", "--grid", "m=1:2.5:4"]
RUN = ["--t-end", "2", "--method", "dop853", "--output-interval", "0.1"]


def read_csv(text):
    return pd.read_csv(io.StringIO(text), float_precision="round_trip", keep_default_na=False,
                       na_values=["nan"])


def targets():
    return ",".join(s.address for s in SERVERS)


def sweep(*args, check=True, timeout=180.0):
    return run_cli(ARGS.cli, "--server", targets(), "sweep", *args, timeout=timeout, check=check)


class SweepTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tether-sweep-test-")
        cls.client = tether.Client(targets())

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_grid_rows_in_order_equal_single_runs(self):
        result = sweep("pendulum", *GRID, *RUN, "--concurrency", "4", "--trajectories",
                       self.path("trajectories"))
        rows = read_csv(result.stdout)
        self.assertEqual(len(rows), 12)
        self.assertEqual(list(rows["run"]), list(range(12)))
        # Full factorial, first factor slowest: l = 1.5, 2, 2.5 each with m = 1, 1.5, 2, 2.5.
        self.assertEqual(list(rows["l"]), [1.5] * 4 + [2.0] * 4 + [2.5] * 4)
        self.assertEqual(list(rows["m"]), [1.0, 1.5, 2.0, 2.5] * 3)
        self.assertEqual(set(rows["status"]), {"OK"})
        self.assertEqual(set(rows["termination"]), {"REACHED_END"})
        self.assertEqual(set(rows["replica"]), {server.name for server in SERVERS},
                         "round_robin spreads the runs over all three, each named by its server")
        for _, row in rows.iterrows():
            # Simulate is deterministic: the same request gives the same numbers on any replica.
            single = self.client.simulate("pendulum", t_end=2, method="dop853", output_interval=0.1,
                                          parameters={"l": row["l"], "m": row["m"]})
            last = single.df.iloc[-1]
            for column in ("x", "y", "vx", "vy", "lambda_1", "energy"):
                self.assertEqual(row[column], last[column], f"run {row['run']} {column}")
            self.assertEqual(row["steps"], single.summary.statistics.steps)
            self.assertEqual(row["t"], 2.0)
            trajectory = read_csv(open(self.path(f"trajectories/run-{row['run']:06d}.csv")).read())
            pd.testing.assert_frame_equal(trajectory, single.df.reset_index(), check_exact=True)

        # The Python sweep of the same design: the same rows (replica and CPU time aside).
        frame = self.client.sweep("pendulum", grid={"l": (1.5, 2.5, 3), "m": (1, 2.5, 4)},
                                  t_end=2, method="dop853", output_interval=0.1, concurrency=4)
        same = [c for c in rows.columns if c not in ("replica", "cpu_seconds", "attempts")]
        self.assertEqual(list(frame.columns), list(rows.columns))
        pd.testing.assert_frame_equal(frame[same].reset_index(drop=True), rows[same],
                                      check_exact=True, check_dtype=False)

    def test_numerical_failure_is_reported_in_its_row(self):
        # k = 0.5 runs to t = 1; k = 2 blows up at t = 0.5 (x = 1/(1 − k t)).
        spec = self.path("blowup.json")
        with open(spec, "w") as f:
            json.dump(BLOWUP_SPEC, f)
        result = sweep("--spec", spec, "--values", "k=0.5,2,0.25", "--format", "jsonl", check=False)
        self.assertEqual(result.returncode, 1, result.stderr)  # some run failed
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual([r["run"] for r in rows], [0, 1, 2])
        self.assertEqual([r["status"] for r in rows], ["OK", "ABORTED", "OK"])
        failed = rows[1]
        self.assertIn(failed["termination"], ("STEP_SIZE_UNDERFLOW", "NON_FINITE"))
        # t and x are the last sample's (the grid point t = 0.5, which the numerical solution
        # reaches a hair before it fails, x near the pole), not a mix of that sample and the
        # failure's time, which the message names.
        self.assertEqual(failed["t"], 0.5)
        self.assertGreater(failed["x"], 1e6)
        self.assertIn("at t = 0.5000000", failed["message"])
        self.assertEqual(failed["attempts"], 1, "a numerical failure is not retried")
        self.assertIn("1 failed", result.stderr)
        frame = self.client.sweep(BLOWUP_SPEC, values={"k": [0.5, 2, 0.25]})
        self.assertEqual(list(frame["termination"]), [r["termination"] for r in rows])
        self.assertEqual(list(frame["t"]), [r["t"] for r in rows])

    def test_resume_completes_a_partial_output(self):
        full = read_csv(sweep("pendulum", *GRID, *RUN).stdout)
        # A partial output: rows 1, 5 and 11 missing (a sweep cut short out of order).
        partial = self.path("partial.csv")
        kept = full[~full["run"].isin([1, 5, 11])]
        kept.to_csv(partial, index=False)
        refused = sweep("pendulum", *GRID, *RUN, "--output", partial, check=False)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("--resume completes it", refused.stderr)
        resumed = sweep("pendulum", *GRID, *RUN, "--output", partial, "--resume")
        self.assertIn("12 of 12 runs done (9 from the output before)", resumed.stderr)
        done = read_csv(open(partial).read())
        self.assertEqual(list(done["run"]), list(range(12)))
        same = [c for c in full.columns if c not in ("replica", "cpu_seconds")]
        pd.testing.assert_frame_equal(done[same], full[same], check_exact=True)
        # A resume of another design is refused, naming the mismatch.
        other = sweep("pendulum", "--grid", "l=1:2:3", "--grid", "m=1:2.5:4", *RUN, "--output",
                      partial, "--resume", check=False)
        self.assertEqual(other.returncode, 2)
        self.assertIn("a different sweep?", other.stderr)

    def test_ctrl_c_keeps_finished_rows_and_resume_runs_the_rest(self):
        output = self.path("interrupted.jsonl")
        # Long runs (rk4 at a small fixed step), one at a time: the interrupt lands mid-sweep.
        slow = ["pendulum", "--values", "l=1,1.5,2,2.5,3,3.5", "--t-end", "20", "--method", "rk4",
                "--step", "2e-4", "--output-interval", "1", "--format", "jsonl", "--output", output]
        env = dict(os.environ)
        env.pop("TETHER_SERVER", None)
        process = subprocess.Popen([ARGS.cli, "--server", targets(), "sweep", *slow,
                                    "--concurrency", "1"],
                                   stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if os.path.exists(output) and open(output).read().count("\n") >= 1:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        rows = [json.loads(line) for line in open(output).read().splitlines()]
        if process.returncode == 0:
            self.skipTest("the sweep finished before the interrupt (too fast for this test)")
        self.assertEqual(process.returncode, 130, stderr)
        self.assertIn("interrupted", stderr)
        self.assertGreaterEqual(len(rows), 1)
        self.assertLess(len(rows), 6)
        self.assertTrue(all(r["status"] == "OK" for r in rows), "only finished runs are written")
        resumed = sweep(*slow, "--resume", "--concurrency", "3")
        self.assertIn(f"({len(rows)} from the output before)", resumed.stderr)
        rows = [json.loads(line) for line in open(output).read().splitlines()]
        self.assertEqual([r["run"] for r in rows], list(range(6)))
        self.assertEqual([r["l"] for r in rows], [1, 1.5, 2, 2.5, 3, 3.5])

    def test_latin_hypercube_and_table_match_python(self):
        latin = sweep("pendulum", "--latin", "l=1:3", "--latin", "g=9:10", "--samples", "5",
                      "--seed", "42", "--t-end", "0.1")
        rows = read_csv(latin.stdout)
        frame = self.client.sweep("pendulum", latin={"l": (1, 3), "g": (9, 10)}, samples=5,
                                  seed=42, t_end=0.1)
        for name in ("l", "g"):
            self.assertEqual(list(rows[name]), list(frame[name]))  # the same SplitMix64 draws
        # The defining property: each of the 5 strata of each range holds exactly one sample.
        self.assertEqual(sorted(np.floor((rows["l"] - 1) / 2 * 5)), [0, 1, 2, 3, 4])
        self.assertEqual(sorted(np.floor((rows["g"] - 9) / 1 * 5)), [0, 1, 2, 3, 4])
        table = self.path("params.csv")
        rows[["l", "g"]].to_csv(table, index=False)
        from_table = read_csv(sweep("pendulum", "--from", table, "--t-end", "0.1").stdout)
        pd.testing.assert_frame_equal(from_table[["l", "g", "x", "y"]], rows[["l", "g", "x", "y"]],
                                      check_exact=True)

    def test_usage_errors_name_the_flag(self):
        result = sweep("pendulum", "--grid", "l=1:3", "--set", "m=abc", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--grid 'l=1:3': expected NAME=START:STOP:N", result.stderr)
        self.assertIn("--set 'm=abc': 'abc' is not a number", result.stderr)
        result = sweep("pendulum", "--grid", "l=1:3:3", "--set", "l=2", "--stats", "stpes",
                       check=False)
        self.assertIn("--set 'l': the parameter is also swept", result.stderr)
        self.assertIn("--stats 'stpes': not a statistic", result.stderr)
        result = run_cli(ARGS.cli, "--server", "127.0.0.1:1,nohost", "sweep", "pendulum",
                         "--values", "l=1", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("'nohost' is not HOST:PORT", result.stderr)
        # A design too large to build is refused before it is built, by both clients.
        result = sweep("pendulum", "--grid", "l=1:3:10000", "--grid", "g=9:10:1001", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("the design has more than 10000000 runs", result.stderr)
        with self.assertRaises(tether.TetherError) as raised:
            self.client.sweep("pendulum", grid={"l": (1, 3, 10000), "g": (9, 10, 1001)})
        self.assertIn("more than 10000000 runs", str(raised.exception))


class BusyServerTest(unittest.TestCase):
    """A server whose one stream slot is held refuses runs with RESOURCE_EXHAUSTED ("retry
    later"): client.sweep retries them, as UNAVAILABLE, until the slot is free."""

    def test_refused_runs_are_retried_until_a_stream_is_free(self):
        server = ServerProcess(ARGS.server, "--max-streams", "1")
        holder = None
        try:
            # Up to 60 attempts 0.05–0.2 s apart (≈ 11 s): far longer than the 1 s hold below.
            client = tether.Client(server.address, retry=tether.RetryPolicy(
                max_attempts=60, initial_backoff=0.05, max_backoff=0.2))
            client.session("pendulum", session_id="py-busy", t_end=1000)
            holder = subprocess.Popen([ARGS.cli, "--server", server.address, "stream", "py-busy",
                                       "--realtime", "1", "--format", "csv"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.assertTrue(self.wait_until_refused(server.address), "the slot was never taken")
            threading.Timer(1.0, holder.kill).start()
            rows = client.sweep("pendulum", values={"l": [1, 2]}, t_end=0.1, concurrency=2)
            client.close()
        finally:
            if holder is not None and holder.poll() is None:
                holder.kill()
            server.stop()
        self.assertEqual(list(rows["status"]), ["OK", "OK"], list(rows["message"]))
        self.assertGreater(rows["attempts"].max(), 1, "no run was refused and retried")

    @staticmethod
    def wait_until_refused(address):
        """Whether a run is refused RESOURCE_EXHAUSTED within 10 s (200 tries 50 ms apart)."""
        with tether.Client(address) as probe:
            for _ in range(200):
                try:
                    probe.simulate("pendulum", t_end=0.01)
                except tether.TetherError as error:
                    if error.code_name == "RESOURCE_EXHAUSTED":
                        return True
                time.sleep(0.05)
        return False


class KilledReplicaTest(unittest.TestCase):
    """Runs after SweepTest (the suite in __main__ orders them): it kills one of the servers."""

    def test_server_killed_mid_sweep_loses_no_run(self):
        output = os.path.join(tempfile.mkdtemp(prefix="tether-sweep-kill-"), "rows.csv")
        # 36 runs, 9 at a time: once the victim's first row is written (rows go out in run order),
        # at least 27 runs remain, so it is in the middle of some whatever the runs' speed.
        args = ["pendulum", "--values", ",".join(["l=1"] + [str(1 + i / 10) for i in range(1, 36)]),
                "--t-end", "20", "--method", "rk4", "--step", "1e-4", "--output-interval", "1",
                "--concurrency", "9", "--output", output]
        victim = SERVERS[1]
        env = dict(os.environ)
        env.pop("TETHER_SERVER", None)
        process = subprocess.Popen([ARGS.cli, "--server", targets(), "sweep", *args],
                                   stderr=subprocess.PIPE, text=True, env=env)
        # Kill the victim once it has finished a run (so round_robin is sending it calls): with 9
        # runs of 2·10⁵ RK4 steps in flight over 3 replicas, it is then in the middle of others.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            text = open(output).read() if os.path.exists(output) else ""
            complete = text[: text.rfind("\n") + 1]
            if f",{victim.name}," in complete:
                break
            time.sleep(0.02)
        victim.kill()
        _, stderr = process.communicate(timeout=300)
        self.assertEqual(process.returncode, 0, stderr)
        rows = read_csv(open(output).read())
        self.assertEqual(list(rows["run"]), list(range(36)))
        self.assertEqual(set(rows["status"]), {"OK"})
        self.assertEqual(set(rows["termination"]), {"REACHED_END"})
        retried = rows[rows["attempts"] > 1]
        # The runs in flight on the killed replica failed with UNAVAILABLE and ran again elsewhere.
        self.assertGreaterEqual(len(retried), 1, "no run was in flight on the killed replica")
        self.assertTrue((retried["replica"] != victim.name).all())
        print(f"{len(retried)} runs retried after the kill; replicas: "
              f"{rows['replica'].value_counts().to_dict()}", file=sys.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--cli", required=True)
    ARGS, rest = parser.parse_known_args()
    # One worker thread each, as pinned replicas: three servers, three workers in all.
    SERVERS.extend(ServerProcess(ARGS.server, "--worker-threads", "1") for _ in range(3))
    loader = unittest.TestLoader()
    if rest:  # e.g. `-k resume`: unittest's own selection
        loader.testNamePatterns = [f"*{pattern}*" for pattern in rest
                                   if not pattern.startswith("-")]
    # The kill comes last: the other tests want all three replicas.
    suite = unittest.TestSuite([loader.loadTestsFromTestCase(SweepTest),
                                loader.loadTestsFromTestCase(BusyServerTest),
                                loader.loadTestsFromTestCase(KilledReplicaTest)])
    try:
        result = unittest.TextTestRunner(verbosity=2).run(suite)
    finally:
        for server in SERVERS:
            server.stop()
    sys.exit(0 if result.wasSuccessful() else 1)
