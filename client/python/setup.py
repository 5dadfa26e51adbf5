"""Build hook of the tether Python package: generates the gRPC stubs from the repository's .proto
files into the build tree, so that the wheel carries them and the source tree never does.

Generated modules (package paths follow the .proto paths, so the stubs' own imports resolve):
  tether/v1/simulation_service_pb2.py, _pb2_grpc.py   from proto/tether/v1/simulation_service.proto
  tether/_rpc/status_pb2.py, error_details_pb2.py     from proto/google/rpc/*.proto (rich errors)
  tether/_rpc/health_pb2.py                           from client/proto/grpc/health/v1/health.proto
  tether/_api/http_pb2.py, annotations_pb2.py         from proto/google/api/*.proto (the service's
                                                      google.api.http options)

A generated module imports google.api by its proto path; that import is rewritten to prefer
googleapis-common-protos when it is installed (one definition of google/api/*.proto per
process) and to fall back on tether._api otherwise (Debian has no such Python package).

Tools: `protoc` (Debian protobuf-compiler) and `grpc_python_plugin` (protobuf-compiler-grpc), or
the environment variables PROTOC and GRPC_PYTHON_PLUGIN. The .proto files are read from the
repository this directory belongs to (../..), or from TETHER_REPOSITORY when it was copied away.
"""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# The repository checkout holding proto/ and client/proto/ (TETHER_REPOSITORY when this
# directory was copied elsewhere to build, as the tests do).
REPOSITORY = Path(os.environ.get("TETHER_REPOSITORY") or HERE.parent.parent)

# (proto path relative to its root, root, package the generated modules move into, with gRPC stub)
PROTOS = [
    ("tether/v1/simulation_service.proto", "proto", "tether/v1", True),
    ("google/api/http.proto", "proto", "tether/_api", False),
    ("google/api/annotations.proto", "proto", "tether/_api", False),
    ("google/rpc/status.proto", "proto", "tether/_rpc", False),
    ("google/rpc/error_details.proto", "proto", "tether/_rpc", False),
    ("grpc/health/v1/health.proto", "client/proto", "tether/_rpc", False),
]


def project_version() -> str:
    """The version in the top-level CMakeLists.txt's project() call: one definition for both."""
    cmake = REPOSITORY / "CMakeLists.txt"
    if cmake.exists():
        match = re.search(r"project\(\s*tether\s+VERSION\s+([0-9.]+)", cmake.read_text())
        if match:
            return match.group(1)
    return os.environ.get("TETHER_VERSION", "0.0.0")


def proto_root(root: str) -> Path:
    return REPOSITORY / root


def find_tool(variable: str, name: str, package: str) -> str:
    path = os.environ.get(variable) or shutil.which(name)
    if not path:
        raise SystemExit(f"tether: building the Python stubs needs `{name}` (Debian package "
                         f"{package}) on PATH, or {variable} set to its path")
    return path


class BuildWithStubs(build_py):
    """build_py, then protoc into the build directory."""

    def run(self):
        super().run()
        protoc = find_tool("PROTOC", "protoc", "protobuf-compiler")
        plugin = find_tool("GRPC_PYTHON_PLUGIN", "grpc_python_plugin", "protobuf-compiler-grpc")
        build_lib = Path(self.build_lib)
        with tempfile.TemporaryDirectory() as scratch:
            for relative, root, package, with_grpc in PROTOS:
                source = proto_root(root) / relative
                if not source.exists():
                    raise SystemExit(f"tether: {source} not found (set TETHER_REPOSITORY to the "
                                     "tether checkout)")
                command = [protoc, f"-I{proto_root(root)}", f"--python_out={scratch}"]
                if with_grpc:
                    command += [f"--grpc_python_out={scratch}",
                                f"--plugin=protoc-gen-grpc_python={plugin}"]
                subprocess.run(command + [relative], check=True)
                self.move_generated(Path(scratch), relative, build_lib / package, with_grpc)

    @staticmethod
    def move_generated(scratch: Path, relative: str, target: Path, with_grpc: bool) -> None:
        """Moves relative's modules into `target`. A generated message module imports only
        google.protobuf and google.api (rewritten on the way), so it may live in any package;
        the service stub imports its messages by the proto path (tether.v1), which is where it
        goes."""
        target.mkdir(parents=True, exist_ok=True)
        (target / "__init__.py").touch()
        stem = relative[: -len(".proto")]
        suffixes = ["_pb2.py"] + (["_pb2_grpc.py"] if with_grpc else [])
        for suffix in suffixes:
            generated = scratch / (stem + suffix)
            text = GOOGLE_API_IMPORT.sub(GOOGLE_API_FALLBACK, generated.read_text())
            (target / generated.name).write_text(text)


# `from google.api import annotations_pb2 as google_dot_api_dot_annotations__pb2`, as protoc
# writes it, and what it becomes.
GOOGLE_API_IMPORT = re.compile(r"^from google\.api import (\w+) as (\w+)$", re.MULTILINE)
GOOGLE_API_FALLBACK = (r"try:\n    from google.api import \1 as \2\n"
                       r"except ImportError:\n    from tether._api import \1 as \2")


setup(version=project_version(), cmdclass={"build_py": BuildWithStubs})
