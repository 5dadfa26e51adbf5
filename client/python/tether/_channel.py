"""Channels: targets (one server, a list of replicas, a DNS name), TLS and the call metadata.

Targets, as ``tether sweep --server`` reads them too:

    ``host:port``               one server (gRPC's default pick_first policy)
    ``host:port,host:port,...`` a list of replicas: each name is resolved once, here, and the
                                addresses become one ``ipv4:``/``ipv6:`` target balanced per call
                                by gRPC's own ``round_robin`` policy
    ``dns:///name:port``        every address of a DNS name (a Kubernetes headless Service), re-
                                resolved by gRPC when a connection fails, with ``round_robin``
    any other gRPC URI          as given (``ipv4:a:p,b:q`` and ``ipv6:`` lists with ``round_robin``)

Balancing is gRPC's: a failed replica's subchannel leaves the ready set and the next call goes to
another one. No balancer of our own.
"""
from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

import grpc

from tether.errors import invalid_argument

PemSource = Union[str, bytes, "os.PathLike[str]"]

# The service config that selects gRPC's round_robin policy (gRPC's load-balancing doc).
ROUND_ROBIN_SERVICE_CONFIG = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})

# Routing key of session-scoped calls (deploy/README.md: the proxy hashes it onto a replica).
SESSION_KEY_HEADER = "x-tether-session"
# The replica that served a call, when the server names itself in its initial metadata.
REPLICA_HEADER = "x-tether-replica"


@dataclass(frozen=True)
class TLS:
    """Transport security for a Client (``Client(target, tls=TLS(ca="ca.pem"))``).

    Each PEM source is a file path or the PEM bytes themselves.
    """

    ca: Optional[PemSource] = None
    """Root certificates to verify the server with; None = the system's roots."""
    cert: Optional[PemSource] = None
    """Client certificate chain, for mutual TLS (with ``key``)."""
    key: Optional[PemSource] = None
    """The client certificate's private key."""
    server_name: Optional[str] = None
    """Name to verify the server certificate against instead of the target's host name."""

    def credentials(self) -> grpc.ChannelCredentials:
        if (self.cert is None) != (self.key is None):
            raise invalid_argument("tls", "cert and key must be given together (mutual TLS)")
        return grpc.ssl_channel_credentials(root_certificates=_pem("tls.ca", self.ca),
                                            private_key=_pem("tls.key", self.key),
                                            certificate_chain=_pem("tls.cert", self.cert))


def _pem(field_name: str, source: Optional[PemSource]) -> Optional[bytes]:
    if source is None or isinstance(source, bytes):
        return source
    try:
        return Path(source).read_bytes()
    except OSError as error:
        raise invalid_argument(field_name, f"cannot read '{source}': {error.strerror}") from None


@dataclass(frozen=True)
class Target:
    """A resolved target: what gRPC dials and how it balances."""

    uri: str
    """The gRPC target string."""
    balanced: bool
    """Several replicas: calls are spread by round_robin."""
    authority: Optional[str]
    """The host:port to present (TLS name check, HTTP/2 :authority) for a resolved list."""


def _split_host_port(entry: str) -> Tuple[str, str]:
    host, sep, port = entry.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise invalid_argument("target", f"'{entry}' is not HOST:PORT")
    return host.strip("[]"), port


def _resolve(entry: str) -> Tuple[int, str]:
    host, port = _split_host_port(entry)
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise invalid_argument("target", f"cannot resolve '{host}': {error.strerror}") from None
    family, _, _, _, address = infos[0]
    ip = address[0]
    return family, (f"[{ip}]:{port}" if family == socket.AF_INET6 else f"{ip}:{port}")


def resolve_target(target: str) -> Target:
    """The gRPC target for ``target`` (module docstring)."""
    target = target.strip()
    if not target:
        raise invalid_argument("target", "empty; give HOST:PORT, a comma-separated list, "
                               "or dns:///NAME:PORT")
    if target.startswith("dns:"):
        return Target(target, True, None)
    if "," not in target or target.startswith(("ipv4:", "ipv6:", "unix:")):
        return Target(target, "," in target, None)
    entries = [e.strip() for e in target.split(",") if e.strip()]
    resolved = [_resolve(e) for e in entries]
    families = {family for family, _ in resolved}
    if len(families) > 1:
        raise invalid_argument("target", f"'{target}' mixes IPv4 and IPv6 addresses; gRPC's "
                               "ipv4:/ipv6: targets hold one family (use dns:/// or one family)")
    scheme = "ipv6" if families == {socket.AF_INET6} else "ipv4"
    return Target(f"{scheme}:" + ",".join(address for _, address in resolved), True, entries[0])


def channel_options(target: Target, tls: Optional[TLS]) -> List[Tuple[str, object]]:
    options: List[Tuple[str, object]] = []
    if target.balanced:
        options.append(("grpc.service_config", ROUND_ROBIN_SERVICE_CONFIG))
    if tls is not None and tls.server_name:
        options.append(("grpc.ssl_target_name_override", tls.server_name))
        options.append(("grpc.default_authority", tls.server_name))
    elif target.authority is not None:
        options.append(("grpc.default_authority", target.authority))
    return options


def open_channel(target: str, tls: Optional[TLS], extra_options: Sequence[Tuple[str, object]] = (),
                 aio: bool = False):
    """A grpc (or grpc.aio) channel to ``target`` (TLS when ``tls`` is given), and the Target."""
    resolved = resolve_target(target)
    options = channel_options(resolved, tls) + list(extra_options)
    module = grpc.aio if aio else grpc
    if tls is None:
        return module.insecure_channel(resolved.uri, options=options), resolved
    return module.secure_channel(resolved.uri, tls.credentials(), options=options), resolved


# Before a burst of calls on a fresh balanced channel: round_robin picks only among replicas
# already connected, and connecting takes a round trip or more, so calls issued at once would all
# go to the first replica that answered. The C++ sweep counts the replicas that answer
# (replica_target.h); grpcio shows no peer of a client call, so here the channel waits for its
# first connection and then this long for the others (about the C++ warm-up's quiet period).
WARM_UP_SETTLE = 0.1  # seconds
WARM_UP_TIMEOUT = 5.0  # seconds for the first connection; past it the calls report the problem


def call_metadata(token: Optional[str], extra: Sequence[Tuple[str, str]],
                  session_key: Optional[str] = None) -> Tuple[Tuple[str, str], ...]:
    """The metadata of one call: the bearer token, the session routing key, the caller's own."""
    metadata = list(extra)
    if token:
        metadata.append(("authorization", f"Bearer {token}"))
    if session_key:
        metadata.append((SESSION_KEY_HEADER, session_key))
    return tuple(metadata)


def replica_of(initial_metadata) -> str:
    """The x-tether-replica value of a call's initial metadata, or ``""``."""
    for item in initial_metadata or ():
        key, value = (item.key, item.value) if hasattr(item, "key") else item
        if key == REPLICA_HEADER:
            return value.decode() if isinstance(value, bytes) else value
    return ""
