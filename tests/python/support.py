"""Shared helpers of the Python tests: tether-server processes on loopback and the `tether` CLI.

Servers listen on 127.0.0.1 with port 0 and report the port they got on stderr (a JSON line
`{"event":"serving","port":N}`); every wait here is bounded, so a broken server fails a test
instead of hanging it.
"""
import itertools
import json
import os
import signal
import subprocess
import threading
import time

START_TIMEOUT = 30.0  # seconds for a server to report its port (a loaded 2-core CI machine)
STOP_TIMEOUT = 30.0


class ServerProcess:
    """A tether-server child process; `address` is "127.0.0.1:PORT". Each is named replica-N
    (x-tether-replica): the processes share a host name, which is the server's default."""

    started = itertools.count()

    def __init__(self, binary, *extra_args):
        self.name = f"replica-{next(ServerProcess.started)}"
        self.process = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:0", "--drain-grace", "0", "--quiet",
             "--replica-name", self.name, *extra_args],
            stderr=subprocess.PIPE, text=True)
        self.port = self._wait_for_port()
        self.address = f"127.0.0.1:{self.port}"
        # Keep draining stderr so that the server never blocks on a full pipe.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def _wait_for_port(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "serving":
                return event["port"]
        self.process.kill()
        raise RuntimeError("tether-server did not report a port")

    def kill(self):
        """SIGKILL: the replica disappears mid-call, as a crashed pod does."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=STOP_TIMEOUT)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_TIMEOUT)
        return self.process.returncode


def run_cli(cli, *args, timeout=120.0, check=True):
    """Runs `tether args...` (TETHER_SERVER unset) and returns the CompletedProcess."""
    env = dict(os.environ)
    env.pop("TETHER_SERVER", None)
    result = subprocess.run([cli, *args], capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        raise AssertionError(
            f"tether {' '.join(args)} exited {result.returncode}:\n{result.stderr}")
    return result


# An index-1 model whose solution x(t) = 1/(1 − k t) blows up at t = 1/k: with t_end = 1 it runs
# to the end for k < 1 and fails numerically for k > 1 (the step size underflows or x overflows).
BLOWUP_SPEC = {
    "name": "blowup",
    "title": "x' = k x^2: finite-time blow-up at t = 1/k",
    "form": "index1",
    "parameters": {"k": {"value": 0.5}},
    "differential": ["x"],
    "algebraic": ["a"],
    "rhs": ["a"],
    "constraints": ["a - k*x^2"],
    "initial": {"x": 1, "a": 0.5},
    "simulation": {"t_end": 1, "output_interval": 0.1},
}


# A harmonic oscillator x'' = −k x as an index-1 model (a = x''), registered by the tests.
OSCILLATOR_SPEC = {
    "name": "py-oscillator",
    "title": "Harmonic oscillator registered from Python",
    "form": "index1",
    "parameters": {"k": {"value": 1.0}},
    "differential": ["x", "v"],
    "algebraic": ["a"],
    "rhs": ["v", "a"],
    "constraints": ["a + k*x"],
    "initial": {"x": 1, "v": 0, "a": -1},
    "simulation": {"t_end": 1, "output_interval": 0.1},
}
