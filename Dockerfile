# tether in a container, four stages on Debian 12 (the project's build platform):
#   deps     scripts/install-deps and the source tree: what both build and test start from
#   build    the release preset: tether-server and tether, installed stripped into /opt/tether
#   test     `docker build --target test .`: the whole suite, by the command .ci/run runs; it
#            starts from deps, not from build, so the project is compiled once per target, and
#            its build tree is removed in the same layer, so the image keeps only the sources
#   runtime  the default target: the two binaries, their shared libraries, a non-root user
# Every build command here is one CI runs too (tests/deploy/check_deploy.py keeps them in step),
# so CI exercises this file's steps although no Docker engine runs in CI; scripts/container-test
# builds and smoke-tests the images where an engine (podman or docker) is available.
ARG DEBIAN_IMAGE=debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS deps
WORKDIR /src
# npm's own settings pass through to scripts/install-deps behind an intercepting proxy:
#   --build-arg NPM_CONFIG_REGISTRY=https://mirror.example/npm/
#   --build-arg NPM_CONFIG_CA="$(cat corporate-ca.pem)"   (the PEM text itself)
ARG NPM_CONFIG_REGISTRY
ARG NPM_CONFIG_CA
# Dependencies first, in their own layer: it is rebuilt only when the dependency lists change.
COPY scripts/install-deps scripts/install-deps
COPY tools/package.json tools/package-lock.json tools/
RUN scripts/install-deps
COPY . .

FROM deps AS build
# The commit the binaries report (--version, GetServerInfo): the build context has no .git, so
#   --build-arg TETHER_GIT_COMMIT=$(git rev-parse --short HEAD)   (without it: "unknown")
ARG TETHER_GIT_COMMIT
RUN cmake --preset release
RUN cmake --build --preset release
RUN cmake --install build/release --prefix /opt/tether --strip

FROM deps AS test
RUN scripts/test && rm -rf build

FROM ${DEBIAN_IMAGE} AS runtime
# The shared libraries tether-server and tether load (tests/deploy/check_deploy.py compares
# this list with `ldd` of the built binaries): gRPC 1.51 with its reflection and error-details
# libraries, protobuf 3.21, libmicrohttpd (the HTTP listener) with the GnuTLS libraries it
# loads, and the C++ runtime.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 libre2-9 libc-ares2 libssl3 \
      libmicrohttpd12 libgnutls30 libp11-kit0 libidn2-0 libunistring2 libtasn1-6 libnettle8 \
      libhogweed6 libgmp10 libffi8 \
      zlib1g libstdc++6 libgcc-s1 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*
# A system user without login shell or home; uid/gid 10001 as deploy/k8s/deployment.yaml's
# securityContext expects.
RUN groupadd --system --gid 10001 tether \
 && useradd --system --uid 10001 --gid tether --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tether
COPY --from=build /opt/tether/bin/tether-server /opt/tether/bin/tether /usr/local/bin/
USER 10001:10001
# Inside a container the server must listen on every interface (its default is loopback only).
# An environment variable, not CMD: `docker run -e TETHER_LISTEN=0.0.0.0:8080` moves the port,
# and the health check below follows it.
ENV TETHER_LISTEN=0.0.0.0:50051
EXPOSE 50051
# `tether health` asks grpc.health.v1 on TETHER_LISTEN's port over loopback and exits 0 on
# SERVING only; a draining server reports NOT_SERVING and turns the container unhealthy.
# It speaks plaintext: with TLS on TETHER_LISTEN (deploy/) point it at the plaintext
# --health-listen port instead, as deploy/compose.yaml's health check does.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["tether", "health"]
ENTRYPOINT ["tether-server"]
