"""The Python client against a real tether-server that serves TLS with bearer tokens, as the
shipped deployment does (deploy/k8s): certificates from scripts/dev-certs made at test time, a
token file of salted hashes from `tether-server hash-token`. Covers the TLS handshake and a
stream, a wrong CA and plaintext refused, `token_file=` and TETHER_TOKEN_FILE (the CLI's
--token-file semantics: the first non-empty line, stripped; errors name the file), a missing
token UNAUTHENTICATED, and tenants kept apart.

Run by ctest as:
  VENV/bin/python client_security_test.py --server TETHER_SERVER --dev-certs scripts/dev-certs
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import grpc

import tether
from support import ServerProcess

ARGS = None
SERVER = None
DIR = None  # the scratch directory of certificates and tokens
DEADLINE = 10.0  # seconds per call: the server answers these at once
NO_RETRY = tether.RetryPolicy(max_attempts=1)


def tokens_for(tenants):
    """A fresh random token per tenant, written to DIR/<tenant>.token (with the blank lines and
    white space a hand-edited file may have), and the server's token file of their hashes."""
    lines = []
    for tenant in tenants:
        token = os.urandom(16).hex()
        with open(os.path.join(DIR, f"{tenant}.token"), "w") as f:
            f.write(f"\n  {token}  \n\n")
        hashed = subprocess.run([ARGS.server, "hash-token", "--tenant", tenant], input=token,
                                capture_output=True, text=True, timeout=DEADLINE, check=True)
        lines.append(hashed.stdout)
    path = os.path.join(DIR, "tokens")
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def token_path(tenant):
    return os.path.join(DIR, f"{tenant}.token")


def tls():
    """The dev CA; the server certificate names 127.0.0.1, the address dialled."""
    return tether.TLS(ca=os.path.join(DIR, "certs", "ca.crt"))


class TlsAndTokensTest(unittest.TestCase):
    def client(self, **kwargs):
        kwargs.setdefault("tls", tls())
        client = tether.Client(SERVER.address, timeout=DEADLINE, retry=NO_RETRY, **kwargs)
        self.addCleanup(client.close)
        return client

    def assert_code(self, code, call):
        with self.assertRaises(tether.TetherError) as caught:
            call()
        self.assertEqual(caught.exception.code, code, caught.exception.message)
        return caught.exception

    def test_token_file_over_tls_streams_a_run(self):
        client = self.client(token_file=token_path("team-a"))
        self.assertIn("pendulum", [m.name for m in client.models()])
        # A whole Simulate stream over TLS: 0.1 s steps to t = 1 give 11 samples (t = 0 included).
        result = client.simulate("pendulum", t_end=1.0, output_interval=0.1)
        self.assertEqual(result.termination, "REACHED_END")
        self.assertEqual(len(result.df), 11)

    def test_token_file_from_the_environment(self):
        with mock.patch.dict(os.environ, {"TETHER_TOKEN_FILE": token_path("team-a")}):
            os.environ.pop("TETHER_TOKEN", None)
            client = self.client()
        self.assertIn("pendulum", [m.name for m in client.models()])

    def test_without_a_token_unauthenticated(self):
        with mock.patch.dict(os.environ, {}):
            os.environ.pop("TETHER_TOKEN", None)
            os.environ.pop("TETHER_TOKEN_FILE", None)
            client = self.client()
        error = self.assert_code(grpc.StatusCode.UNAUTHENTICATED, client.models)
        self.assertIn("bearer token", error.message)

    def test_a_token_not_in_the_file_unauthenticated(self):
        self.assert_code(grpc.StatusCode.UNAUTHENTICATED, self.client(token="not-a-token").models)

    def test_tenants_do_not_see_each_others_sessions(self):
        a = self.client(token_file=token_path("team-a"))
        b = self.client(token_file=token_path("team-b"))
        session = a.session("pendulum")
        self.addCleanup(session.delete)
        self.assertIn(session.name, [s.name for s in a.sessions()])
        self.assertNotIn(session.name, [s.name for s in b.sessions()])
        # NOT_FOUND, not PERMISSION_DENIED: another tenant cannot tell the session exists.
        self.assert_code(grpc.StatusCode.NOT_FOUND, lambda: b.get_session(session.name))

    def test_wrong_ca_refused(self):
        client = self.client(token_file=token_path("team-a"),
                             tls=tether.TLS(ca=os.path.join(DIR, "other", "ca.crt")))
        self.assert_code(grpc.StatusCode.UNAVAILABLE, client.models)

    def test_plaintext_refused(self):
        client = self.client(token_file=token_path("team-a"), tls=None)
        self.assert_code(grpc.StatusCode.UNAVAILABLE, client.models)


class TokenFileArgumentTest(unittest.TestCase):
    """Refused before any call, naming the argument or variable and the file."""

    def refused(self, source, **kwargs):
        with self.assertRaises(tether.TetherError) as caught:
            tether.Client(SERVER.address, tls=tls(), **kwargs)
        error = caught.exception
        self.assertEqual(error.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual([v.field for v in error.violations], [source])
        return error.message

    def test_missing_file(self):
        path = os.path.join(DIR, "no-such.token")
        message = self.refused("token_file", token_file=path)
        self.assertIn(path, message)

    def test_empty_file(self):
        path = os.path.join(DIR, "empty.token")
        with open(path, "w") as f:
            f.write("\n   \n")
        message = self.refused("token_file", token_file=path)
        self.assertIn(path, message)
        self.assertIn("no token", message)

    def test_missing_file_from_the_environment(self):
        path = os.path.join(DIR, "no-such-either.token")
        with mock.patch.dict(os.environ, {"TETHER_TOKEN_FILE": path}):
            os.environ.pop("TETHER_TOKEN", None)
            message = self.refused("TETHER_TOKEN_FILE")
        self.assertIn(path, message)

    def test_token_and_token_file(self):
        self.refused("token_file", token="t", token_file=token_path("team-a"))

    def test_both_variables(self):
        with mock.patch.dict(os.environ, {"TETHER_TOKEN": "t",
                                          "TETHER_TOKEN_FILE": token_path("team-a")}):
            self.refused("TETHER_TOKEN_FILE")

    def test_an_argument_overrides_the_variables(self):
        with mock.patch.dict(os.environ, {"TETHER_TOKEN": "wrong",
                                          "TETHER_TOKEN_FILE": "/nonexistent"}):
            client = tether.Client(SERVER.address, tls=tls(), token_file=token_path("team-a"),
                                   timeout=DEADLINE, retry=NO_RETRY)
        with client:
            self.assertIn("pendulum", [m.name for m in client.models()])


def main():
    global ARGS, SERVER, DIR
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="the tether-server binary")
    parser.add_argument("--dev-certs", required=True, help="scripts/dev-certs")
    ARGS, rest = parser.parse_known_args()
    if shutil.which("openssl") is None:
        print("openssl (Debian package openssl) is required", file=sys.stderr)
        return 1
    DIR = tempfile.mkdtemp(prefix="tether-security-")
    try:
        for name in ("certs", "other"):
            subprocess.run([ARGS.dev_certs, os.path.join(DIR, name)], check=True,
                           capture_output=True, timeout=60)
        token_file = tokens_for(["team-a", "team-b"])
        server_dir = os.path.join(DIR, "certs", "server")
        SERVER = ServerProcess(ARGS.server, "--tls-cert", os.path.join(server_dir, "tls.crt"),
                               "--tls-key", os.path.join(server_dir, "tls.key"),
                               "--token-file", token_file)
        try:
            program = unittest.main(argv=[sys.argv[0], *rest], exit=False)
        finally:
            SERVER.stop()
        return 0 if program.result.wasSuccessful() else 1
    finally:
        shutil.rmtree(DIR, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
