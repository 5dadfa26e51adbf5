"""What the Python client puts on the wire and how it picks replicas, against small gRPC servers
written here that record what they receive: the bearer token, the session routing key (a fork
keeps its parent's), the replica name a server gives in its initial metadata, retries of
UNAVAILABLE on another replica of a list target, and TLS with a CA, a server-name override and
client certificates (mutual TLS), using certificates made at test time with openssl.

client_security_test.py runs the client against a real tether-server with TLS and tokens; this
file checks what the client puts on the wire, which a real server does not show.

Run by ctest as:  VENV/bin/python client_transport_test.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from concurrent import futures

import grpc

import tether
from tether.v1 import simulation_service_pb2 as pb
from tether.v1 import simulation_service_pb2_grpc as pb_grpc

DEADLINE = 10.0  # seconds per call; these servers answer at once


class RecordingService(pb_grpc.SimulationServiceServicer):
    """Answers a few RPCs with fixed messages and records every call's metadata."""

    def __init__(self, replica, unavailable_first=0):
        self.replica = replica
        self.calls = []  # (method, {key: value})
        self.unavailable_left = unavailable_first
        self.lock = threading.Lock()

    def _record(self, method, context):
        with self.lock:
            self.calls.append((method, dict(context.invocation_metadata())))

    def ListModels(self, request, context):
        self._record("ListModels", context)
        return pb.ListModelsResponse(
            models=[pb.Model(name="models/fake", form=pb.MODEL_FORM_INDEX1)])

    def Simulate(self, request, context):
        self._record("Simulate", context)
        with self.lock:
            if self.unavailable_left > 0:
                self.unavailable_left -= 1
                context.abort(grpc.StatusCode.UNAVAILABLE, "draining")
        context.send_initial_metadata((("x-tether-replica", self.replica),))
        k = request.parameters.get("k", 1.0)
        yield pb.StateChunk(header=pb.StreamHeader(columns=[pb.Column(
            name="x", unit="m", kind=pb.COLUMN_KIND_STATE)]))
        yield pb.StateChunk(frame=pb.Frame(first_sample_index=0, t=[0.0, 1.0], values=[0.0, k],
                                           residual_position=[0, 0], residual_velocity=[0, 0]))
        yield pb.StateChunk(summary=pb.StreamSummary(termination=pb.TERMINATION_REACHED_END, t=1.0,
                                                     statistics=pb.Statistics(steps=7)))

    def CreateSession(self, request, context):
        self._record("CreateSession", context)
        return pb.Session(name="sessions/" + request.session_id, model=request.model,
                          state=pb.SESSION_STATE_CREATED)

    def ForkSession(self, request, context):
        self._record("ForkSession", context)
        return pb.Session(name="sessions/" + request.session_id, state=pb.SESSION_STATE_CREATED)

    def GetSession(self, request, context):
        self._record("GetSession", context)
        return pb.Session(name=request.name, state=pb.SESSION_STATE_PAUSED)

    def DeleteSession(self, request, context):
        self._record("DeleteSession", context)
        from google.protobuf import empty_pb2
        return empty_pb2.Empty()


class FakeServer:
    """A gRPC server on 127.0.0.1 (port 0) serving RecordingService, plaintext or TLS."""

    def __init__(self, replica, credentials=None, unavailable_first=0):
        self.service = RecordingService(replica, unavailable_first)
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pb_grpc.add_SimulationServiceServicer_to_server(self.service, self.server)
        if credentials is None:
            self.port = self.server.add_insecure_port("127.0.0.1:0")
        else:
            self.port = self.server.add_secure_port("127.0.0.1:0", credentials)
        self.address = f"127.0.0.1:{self.port}"
        self.server.start()

    def stop(self):
        self.server.stop(grace=None).wait(DEADLINE)


def make_certificates(directory):
    """A CA, a server certificate for the name tether.test, a client certificate, and a second
    CA that signed nothing of ours (openssl, EC P-256 keys: fast to make)."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)

    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ("ca", "other-ca"):
        run("req", "-x509", *key, "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "1",
            "-subj", f"/CN=tether test {ca}")
    with open(os.path.join(directory, "san.ext"), "w") as ext:
        ext.write("subjectAltName=DNS:tether.test\n")
    for name in ("server", "client"):
        run("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "1", "-extfile", "san.ext")


def read(directory, name):
    with open(os.path.join(directory, name), "rb") as f:
        return f.read()


class MetadataTest(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer("replica-a")

    def tearDown(self):
        self.server.stop()

    def test_token_reaches_the_server_on_every_call(self):
        with tether.Client(self.server.address, token="s3cret") as client:
            client.models()
            client.simulate("fake")
        for method, metadata in self.server.service.calls:
            self.assertEqual(metadata.get("authorization"), "Bearer s3cret", method)

    def test_no_token_sends_no_authorization(self):
        with tether.Client(self.server.address, token="") as client:
            client.models()
        self.assertNotIn("authorization", self.server.service.calls[0][1])

    def test_session_calls_carry_the_routing_key_and_forks_keep_the_parents(self):
        with tether.Client(self.server.address) as client:
            session = client.session("fake", session_id="run-42")
            fork = session.fork(session_id="run-42-what-if")
            fork.refresh()
            fork.delete()
            session.delete()
        keys = [(m, md.get("x-tether-session")) for m, md in self.server.service.calls]
        self.assertEqual(keys, [("CreateSession", "run-42"), ("ForkSession", "run-42"),
                                ("GetSession", "run-42"), ("DeleteSession", "run-42"),
                                ("DeleteSession", "run-42")])

    def test_client_chosen_session_ids_are_routing_keys(self):
        with tether.Client(self.server.address) as client:
            session = client.session("fake")
        self.assertRegex(session.id, r"^py-[0-9a-f]{16}$")
        self.assertEqual(self.server.service.calls[0][1]["x-tether-session"], session.id)

    def test_replica_named_in_initial_metadata(self):
        with tether.Client(self.server.address) as client:
            result = client.simulate("fake", parameters={"k": 2})
        self.assertEqual(result.replica, "replica-a")
        self.assertEqual(list(result.df["x"]), [0.0, 2.0])
        self.assertEqual(result.df.attrs["units"]["x"], "m")


class ReplicaListTest(unittest.TestCase):
    def test_round_robin_spreads_a_sweep_and_retries_unavailable_elsewhere(self):
        # b refuses its first two calls with UNAVAILABLE (a draining replica): those runs must be
        # retried and land somewhere, every run exactly once.
        servers = [FakeServer("a"), FakeServer("b", unavailable_first=2), FakeServer("c")]
        try:
            target = ",".join(s.address for s in servers)
            retry = tether.RetryPolicy(max_attempts=5, initial_backoff=0.01)
            with tether.Client(target, retry=retry) as client:
                df = client.sweep("fake", values={"k": [float(k) for k in range(12)]},
                                  concurrency=3)
        finally:
            for s in servers:
                s.stop()
        self.assertEqual(list(df["status"]), ["OK"] * 12)
        self.assertEqual(list(df["x"]), [float(k) for k in range(12)])  # each row its own run
        self.assertEqual(set(df["replica"]), {"a", "b", "c"})  # round_robin used them all
        self.assertGreaterEqual(df["attempts"].sum(), 12 + 2)
        self.assertEqual(list(df["steps"]), [7] * 12)

    def test_list_target_with_a_bad_entry_names_it(self):
        with self.assertRaises(tether.TetherError) as raised:
            tether.Client("127.0.0.1:1,localhost")
        self.assertIn("'localhost' is not HOST:PORT", str(raised.exception))


@unittest.skipIf(shutil.which("openssl") is None, "openssl (Debian package openssl) not installed")
class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tether-tls-")
        make_certificates(cls.dir)
        credentials = grpc.ssl_server_credentials(
            [(read(cls.dir, "server.key"), read(cls.dir, "server.pem"))],
            root_certificates=read(cls.dir, "ca.pem"), require_client_auth=True)
        cls.server = FakeServer("tls-replica", credentials)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.dir)

    def tls(self, **overrides):
        options = dict(ca=os.path.join(self.dir, "ca.pem"),
                       cert=os.path.join(self.dir, "client.pem"),
                       key=os.path.join(self.dir, "client.key"), server_name="tether.test")
        options.update(overrides)
        return tether.TLS(**options)

    def test_mutual_tls_with_server_name_override(self):
        with tether.Client(self.server.address, tls=self.tls(), token="t0ken") as client:
            self.assertEqual(client.models()[0].name, "fake")
            self.assertEqual(client.simulate("fake").replica, "tls-replica")
        self.assertEqual(self.server.service.calls[0][1]["authorization"], "Bearer t0ken")

    def test_pem_bytes_work_as_well_as_paths(self):
        tls = tether.TLS(ca=read(self.dir, "ca.pem"), cert=read(self.dir, "client.pem"),
                         key=read(self.dir, "client.key"), server_name="tether.test")
        with tether.Client(self.server.address, tls=tls) as client:
            self.assertEqual(len(client.models()), 1)

    def refused(self, tls):
        retry = tether.RetryPolicy(max_attempts=1)
        with tether.Client(self.server.address, tls=tls, retry=retry, timeout=DEADLINE) as client:
            with self.assertRaises(tether.TetherError) as raised:
                client.models()
        return raised.exception

    def test_wrong_ca_is_refused(self):
        error = self.refused(self.tls(ca=os.path.join(self.dir, "other-ca.pem")))
        self.assertEqual(error.code, grpc.StatusCode.UNAVAILABLE)

    def test_without_client_certificate_is_refused(self):
        error = self.refused(self.tls(cert=None, key=None))
        self.assertEqual(error.code, grpc.StatusCode.UNAVAILABLE)

    def test_wrong_server_name_is_refused(self):
        error = self.refused(self.tls(server_name="other.test"))
        self.assertEqual(error.code, grpc.StatusCode.UNAVAILABLE)

    def test_plaintext_client_is_refused(self):
        error = self.refused(None)
        self.assertEqual(error.code, grpc.StatusCode.UNAVAILABLE)

    def test_half_a_key_pair_is_an_argument_error(self):
        with self.assertRaises(tether.TetherError) as raised:
            tether.Client(self.server.address, tls=self.tls(key=None))
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("cert and key must be given together", str(raised.exception))


if __name__ == "__main__":
    unittest.main(argv=sys.argv, verbosity=2)
