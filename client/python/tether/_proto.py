"""The generated protobuf and gRPC modules, in one place.

They are generated at build time (setup.py) from the repository's .proto files. The google.rpc
messages come from googleapis-common-protos when that package is installed (so that both never
define google.rpc.Status twice in one process), otherwise from this package's own copy.
"""
from tether.v1 import simulation_service_pb2 as pb  # noqa: F401  (re-exported)
from tether.v1 import simulation_service_pb2_grpc as pb_grpc  # noqa: F401
from tether._rpc import health_pb2  # noqa: F401

try:  # pragma: no cover - depends on what else is installed
    from google.rpc import error_details_pb2, status_pb2  # type: ignore[import]
except ImportError:
    from tether._rpc import error_details_pb2, status_pb2  # noqa: F401

# Full method name of grpc.health.v1.Health/Check (called without a generated stub: health.proto's
# stub would import itself as grpc.health.v1, which is grpcio's own package name).
HEALTH_CHECK_METHOD = "/grpc.health.v1.Health/Check"

__all__ = ["HEALTH_CHECK_METHOD", "error_details_pb2", "health_pb2", "pb", "pb_grpc", "status_pb2"]
