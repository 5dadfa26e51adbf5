# syntax=docker/dockerfile:1
# tether in a container, three stages on Debian 12 (the project's build platform):
#   build    scripts/install-deps, then the release preset: tether-server and tether
#   test     `docker build --target test .`: the whole suite, by the command .ci/run runs
#   runtime  the default target: the two binaries, their shared libraries, a non-root user
# Every build command here is one CI runs too (tests/deploy/check_dockerfile.py keeps them in
# step), so CI exercises this file's steps although no Docker engine runs in CI.
ARG DEBIAN_IMAGE=debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
WORKDIR /src
# Dependencies first, in their own layer: it is rebuilt only when the dependency lists change.
COPY scripts/install-deps scripts/install-deps
COPY tools/package.json tools/package-lock.json tools/
RUN scripts/install-deps
COPY . .
RUN cmake --preset release
RUN cmake --build --preset release
RUN cmake --install build/release --prefix /opt/tether

FROM build AS test
RUN scripts/test

FROM ${DEBIAN_IMAGE} AS runtime
# The shared libraries tether-server and tether load (tests/deploy/check_dockerfile.py compares
# this list with `ldd` of the built binaries): gRPC 1.51 with its reflection and error-details
# libraries, protobuf 3.21, and the C++ runtime.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 libre2-9 libc-ares2 libssl3 \
      zlib1g libstdc++6 libgcc-s1 \
 && rm -rf /var/lib/apt/lists/*
# A system user without login shell or home; uid/gid 10001 as deploy/k8s/deployment.yaml's
# securityContext expects.
RUN groupadd --system --gid 10001 tether \
 && useradd --system --uid 10001 --gid tether --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tether
COPY --from=build /opt/tether/bin/tether-server /opt/tether/bin/tether /usr/local/bin/
USER 10001:10001
EXPOSE 50051
# `tether health` asks grpc.health.v1 and exits 0 on SERVING only; a draining server reports
# NOT_SERVING and turns the container unhealthy.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["tether", "health", "--server", "127.0.0.1:50051"]
ENTRYPOINT ["tether-server"]
# Inside a container the server must listen on every interface (its default is loopback only).
CMD ["--listen=0.0.0.0:50051"]
