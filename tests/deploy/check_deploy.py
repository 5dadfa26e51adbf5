#!/usr/bin/python3
"""Offline consistency checks of tether's container and deployment files.

Each subcommand is one ctest test (tests/deploy/CMakeLists.txt):

  dockerfile SOURCE_DIR [SERVER_BIN CLIENT_BIN]
      The Dockerfile's build commands are the ones CI runs: every script it calls exists and is
      executable, every preset it names is defined in CMakePresets.json, the test stage runs
      what .ci/run runs, the runtime stage copies the binaries the install rules produce, and
      (given the built binaries) its package list covers every shared library they load.
  manifests SOURCE_DIR RENDERED.yaml SERVER_BIN
      The rendered Kubernetes objects agree with each other, with the server's drain sequence
      and with the image: flags, ports, probes, grace periods, users, selectors, ConfigMaps; the
      TLS and token files the environment names lie in read-only secret volumes mounted as
      directories; the probes ask the plaintext --health-listen port; every flag and TETHER_*
      variable is one the built tether-server's --help lists.
  envoy SOURCE_DIR
      deploy/envoy.yaml has the structure of an Envoy v3 bootstrap that pins session calls by
      consistent hashing on the header deploy/README.md documents (Envoy is not installed here),
      terminates the clients' TLS and re-encrypts to the pods, verifying the name it sends; every
      certificate file it reads is in a secret volume of k8s/proxy.yaml.
  compose SOURCE_DIR
      deploy/compose.yaml runs the server as the manifests do (arguments, environment, the files
      it names mounted), checks health on the plaintext health port, runs `tether sweep` over its
      replicas with TLS, and mounts the proxy's certificate files where envoy.yaml reads them.
  health_names SOURCE_DIR SERVER_BIN CLIENT_BIN
      Every grpc.health.v1 service name the files in deploy/ ask for (Kubernetes gRPC probes,
      Envoy's grpc_health_check, compose health checks, and the image's HEALTHCHECK that
      compose relies on) is SERVING on a real tether-server; a name none of them uses is not.
  server SOURCE_DIR SERVER_BIN CLIENT_BIN
      The built tether-server starts with the Deployment's arguments and environment (on free
      loopback ports), a models dir laid out as a ConfigMap volume is (links into ..data), and
      certificates (scripts/dev-certs) and a token file laid out as the secret volumes are:
      compose's health check passes on the plaintext health port, which serves nothing else; a
      TLS call with the CA and a token lists the ConfigMap's models, also when verifying the
      name Envoy verifies; plaintext and token-less calls are refused; SIGTERM ends it with
      exit 0 within the drain grace.

Every problem is printed on its own line, naming the file and what disagrees; the exit code is
1 if there was any. Run with Debian's interpreter (/usr/bin/python3, which has python3-yaml).
"""

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import yaml

SESSION_HEADER = "x-tether-session"
SERVICE_NAME = "tether.v1.SimulationService"
GRPC_PORT = 50051
# The secrets deploy/k8s mounts (deploy/README.md, "TLS in the deployment") and their keys.
SERVER_TLS_SECRET = "tether-tls"
PROXY_TLS_SECRET = "tether-proxy-tls"
TOKENS_SECRET = "tether-tokens"
TLS_SECRET_KEYS = {"tls.crt", "tls.key", "ca.crt"}
# Each server variable that names a file, and the secret that file must come from.
SECRET_FILE_VARIABLES = {"TETHER_TLS_CERT": SERVER_TLS_SECRET, "TETHER_TLS_KEY": SERVER_TLS_SECRET,
                         "TETHER_TLS_CLIENT_CA": SERVER_TLS_SECRET,
                         "TETHER_SERVER_TOKEN_FILE": TOKENS_SECRET}
BASE_IMAGE = "debian:bookworm-slim"
# Packages of debian:bookworm-slim's "required" set whose libraries need no install step.
BASE_IMAGE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}


class Problems:
    """Collects problems; `check` records one when a condition fails."""

    def __init__(self):
        self.items = []
        self.checked = 0

    def check(self, condition, message):
        self.checked += 1
        if not condition:
            self.items.append(message)
        return condition

    def finish(self, name):
        for item in self.items:
            print(f"{name}: {item}", file=sys.stderr)
        if self.items:
            print(f"{name}: {len(self.items)} problem(s) in {self.checked} checks", file=sys.stderr)
            return 1
        print(f"{name}: {self.checked} checks passed")
        return 0


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def parse_duration_seconds(text):
    """'20s' → 20, '1m30s' → 90, '500ms' → 0.5; None if not a duration."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * units[u] for n, u in parts)


def drain_grace_seconds(args):
    """tether-server's --drain-grace (integer milliseconds) in seconds; None if absent or not
    an integer."""
    value = flag_values(args).get("--drain-grace", "")
    return int(value) / 1000 if value.isdigit() else None


def flag_values(args):
    """['--a=1', '--b', '2'] → {'--a': '1', '--b': '2'}."""
    values = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--") and "=" in arg:
            key, value = arg.split("=", 1)
            values[key] = value
        elif arg.startswith("--") and i + 1 < len(args) and not args[i + 1].startswith("--"):
            values[arg] = args[i + 1]
            i += 1
        elif arg.startswith("--"):
            values[arg] = ""
        i += 1
    return values


def port_of(address):
    """'0.0.0.0:50052' → 50052; None if there is no numeric port."""
    _, _, port = (address or "").rpartition(":")
    return int(port) if port.isdigit() else None


def container_env(container):
    """A container's literal environment: {name: value} (valueFrom entries are left out)."""
    return {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}


def mount_holding(path, mounts):
    """The mount (a dict with mountPath, or a compose 'SOURCE:TARGET[:ro]' string split into
    (source, target, options)) whose target directory holds `path`, and the path inside it."""
    for mount in mounts:
        target = mount["mountPath"] if isinstance(mount, dict) else mount[1]
        if os.path.dirname(path) == target.rstrip("/"):
            return mount, os.path.basename(path)
    return None, None


def check_secret_file(problems, where, what, path, secret, mounts, volumes):
    """`path` (the file `what` names) is a key of `secret`, mounted read-only as a directory:
    a subPath mount is a copy the kubelet never refreshes, so a rotated secret would not reach
    the process (which re-reads the file by itself). `mounts` are a container's volumeMounts,
    `volumes` its pod's volumes by name."""
    mount, key = mount_holding(path, mounts)
    if not problems.check(mount is not None, f"{where}: {what} {path} is in no mounted "
                          "directory"):
        return
    volume = volumes.get(mount["name"], {}).get("secret", {})
    problems.check(volume.get("secretName") == secret, f"{where}: {what} {path} is read from "
                   f"volume {mount['name']}, not from secret {secret}")
    problems.check(mount.get("readOnly") is True and "subPath" not in mount,
                   f"{where}: the mount of {secret} must be readOnly and without subPath (a "
                   "subPath copy never sees a rotated secret)")
    if secret != TOKENS_SECRET:
        problems.check(key in TLS_SECRET_KEYS, f"{where}: {what} names key {key}; a "
                       f"kubernetes.io/tls secret holds {sorted(TLS_SECRET_KEYS)}")
    items = [i.get("path") for i in volume.get("items", [])]
    problems.check(not items or key in items, f"{where}: volume {mount['name']} projects "
                   f"{items}, not {key}")


def server_help(server_bin, problems):
    """The built tether-server's --help text, or None (a problem recorded)."""
    if not problems.check(server_bin and os.path.isfile(server_bin), f"built binary "
                          f"'{server_bin}' not found: build tether-server before this test"):
        return None
    result = subprocess.run([server_bin, "--help"], capture_output=True, text=True, timeout=20)
    problems.check(result.returncode == 0, f"{server_bin} --help exited {result.returncode}")
    return result.stdout


def help_flags_and_variables(text):
    """({'--listen', ...}, {'TETHER_LISTEN', ...}) as CLI11 prints them in --help."""
    flags = set(re.findall(r"(?:^|[\s,])(--[a-z][a-z0-9-]*)", text))
    variables = set(re.findall(r"\(Env:(TETHER_[A-Z0-9_]+)\)", text))
    return flags, variables


# ---------------------------------------------------------------------------------- Dockerfile


class Instruction:
    def __init__(self, keyword, rest, line):
        self.keyword = keyword
        self.rest = rest
        self.line = line

    def exec_form(self):
        """The JSON array of an exec-form instruction, else None."""
        text = self.rest.strip()
        if text.startswith("["):
            return yaml.safe_load(text)
        return None


def parse_dockerfile(text):
    """Stages as {name: [Instruction]}, in order, plus the global ARG defaults."""
    logical = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append((start, pending + stripped))
        pending = ""
    args, stages, order = {}, {}, []
    current = None
    for number, line in logical:
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "ARG" and current is None:
            name, _, default = rest.partition("=")
            args[name.strip()] = default.strip()
        elif keyword == "FROM":
            words = rest.split()
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else str(len(order))
            current = name
            order.append(name)
            stages[name] = [Instruction("FROM", words[0], number)]
        elif current is not None:
            stages[current].append(Instruction(keyword, rest.strip(), number))
    return args, stages, order


def shell_commands(run_text):
    """A RUN line's commands, split at && and ; (enough for this Dockerfile's RUN lines)."""
    return [shlex.split(part) for part in re.split(r"&&|;", run_text) if part.strip()]


def ci_command(source_dir):
    """The command .ci/run hands over to (`exec scripts/test` → ['scripts/test'])."""
    lines = [l.strip() for l in read(os.path.join(source_dir, ".ci/run")).splitlines()]
    for line in lines:
        if line.startswith("exec "):
            return shlex.split(line)[1:]
    return None


def install_targets(source_dir):
    """Target names of every install(TARGETS ...) in the project's CMakeLists.txt files."""
    targets = set()
    keywords = {"EXPORT", "RUNTIME", "LIBRARY", "ARCHIVE", "INCLUDES", "DESTINATION",
                "FILE_SET", "PUBLIC_HEADER", "COMPONENT"}
    for root, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if d not in {"build", "node_modules", ".git", "tools"}]
        if "CMakeLists.txt" not in files:
            continue
        text = read(os.path.join(root, "CMakeLists.txt"))
        for match in re.finditer(r"install\s*\(\s*TARGETS\s+([^)]*)\)", text):
            for word in match.group(1).split():
                if word in keywords:
                    break
                targets.add(word)
    return targets


def dpkg_file_owners():
    """{installed file path: package}, read from dpkg's file lists (one `dpkg -S` per library
    would scan them all each time)."""
    owners = {}
    info = "/var/lib/dpkg/info"
    for name in os.listdir(info):
        if not name.endswith(".list"):
            continue
        package = name[:-len(".list")].split(":")[0]
        with open(os.path.join(info, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                owners.setdefault(line.rstrip("\n"), package)
    return owners


def linked_packages(binary, owners, problems):
    """Debian packages owning the shared libraries `binary` loads (via ldd): {library: package}."""
    result = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if not problems.check(result.returncode == 0, f"ldd {binary} failed: {result.stderr.strip()}"):
        return {}
    found = {}
    for line in result.stdout.splitlines():
        match = re.search(r"=>\s+(/\S+)", line)
        if not match:
            continue
        library = match.group(1)
        # Merged /usr: ldd may name /lib/... where dpkg lists /usr/lib/... or the reverse.
        candidates = (library, os.path.realpath(library),
                      re.sub(r"^/lib/", "/usr/lib/", library),
                      re.sub(r"^/usr/lib/", "/lib/", library))
        found[os.path.basename(library)] = next(
            (owners[c] for c in candidates if c in owners), None)
    return found


def preset_field(presets, name, field):
    """A configure preset's field, looked up through its `inherits` chain (first parent wins)."""
    preset = presets.get(name, {})
    if field in preset:
        return preset[field]
    parents = preset.get("inherits", [])
    for parent in [parents] if isinstance(parents, str) else parents:
        value = preset_field(presets, parent, field)
        if value is not None:
            return value
    return None


def check_dockerfile(source_dir, binaries):
    problems = Problems()
    path = os.path.join(source_dir, "Dockerfile")
    args, stages, order = parse_dockerfile(read(path))
    presets = yaml.safe_load(read(os.path.join(source_dir, "CMakePresets.json")))
    configure = {p["name"]: p for p in presets.get("configurePresets", [])}
    build = {p["name"] for p in presets.get("buildPresets", [])}

    for stage in ("deps", "build", "test", "runtime"):
        problems.check(stage in stages, f"Dockerfile: no stage named '{stage}'")
    if problems.items:
        return problems.finish("dockerfile")
    problems.check(order[-1] == "runtime",
                   f"Dockerfile: the last stage (the default target) is '{order[-1]}', not runtime")
    for name in ("deps", "runtime"):
        image = stages[name][0].rest
        image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), image)
        problems.check(image == BASE_IMAGE, f"Dockerfile: stage {name} starts FROM {image}, "
                       f"expected {BASE_IMAGE}")
    # Both start from the dependencies and sources, so `--target test` compiles once.
    for name in ("build", "test"):
        problems.check(stages[name][0].rest == "deps",
                       f"Dockerfile: stage {name} starts FROM {stages[name][0].rest}, expected deps")

    # Deps and build stages: copied paths exist, scripts are executable, presets are defined.
    commands = []
    for ins in stages["deps"] + stages["build"]:
        if ins.keyword == "COPY":
            sources = ins.rest.split()[:-1]
            for source in sources:
                if source != ".":
                    problems.check(os.path.exists(os.path.join(source_dir, source)),
                                   f"Dockerfile:{ins.line}: COPY of {source}, which does not exist")
        if ins.keyword == "RUN":
            commands.extend((ins.line, c) for c in shell_commands(ins.rest))
    words = [c for _, c in commands]
    problems.check(["scripts/install-deps"] in words,
                   "Dockerfile: the build stage does not run scripts/install-deps")
    install_prefix = None
    for line, command in commands:
        program = command[0]
        if "/" in program:
            file = os.path.join(source_dir, program)
            problems.check(os.path.isfile(file) and os.access(file, os.X_OK),
                           f"Dockerfile:{line}: runs {program}, which is not an executable file")
        if program != "cmake":
            continue
        options = flag_values(command[1:])
        if command[1:2] == ["--build"]:
            preset = options.get("--preset")
            problems.check(preset in build,
                           f"Dockerfile:{line}: build preset '{preset}' not in CMakePresets.json")
            problems.check(preset == "release", f"Dockerfile:{line}: builds preset '{preset}', "
                           "expected release")
        elif command[1:2] == ["--install"]:
            binary_dir = preset_field(configure, "release", "binaryDir") or ""
            expected = binary_dir.replace("${sourceDir}/", "").replace("${presetName}", "release")
            problems.check(command[2] == expected, f"Dockerfile:{line}: installs from {command[2]}, "
                           f"but the release preset builds into {expected}")
            install_prefix = options.get("--prefix")
            problems.check("--strip" in options,
                           f"Dockerfile:{line}: installs unstripped binaries (add --strip)")
        elif "--preset" in options:
            preset = options["--preset"]
            problems.check(preset in configure,
                           f"Dockerfile:{line}: configure preset '{preset}' not in CMakePresets.json")
            problems.check(preset == "release", f"Dockerfile:{line}: configures preset '{preset}', "
                           "expected release")
    problems.check(install_prefix is not None,
                   "Dockerfile: the build stage runs no `cmake --install ... --prefix DIR`")

    # Test stage: the same command as CI.
    expected = ci_command(source_dir)
    problems.check(expected is not None, ".ci/run: no `exec COMMAND` line found")
    # One RUN: CI's command, then the build tree removed in the same layer (a dev build tree is
    # gigabytes the test image need not keep).
    test_runs = [shell_commands(i.rest) for i in stages["test"] if i.keyword == "RUN"]
    shown = "; ".join(" && ".join(" ".join(c) for c in run) for run in test_runs)
    problems.check(test_runs == [[expected, ["rm", "-rf", "build"]]],
                   f"Dockerfile: the test stage runs `{shown}`, but should run .ci/run's "
                   f"`{' '.join(expected or [])}` && rm -rf build")

    # Runtime stage: the installed binaries, non-root, port, health check, entrypoint.
    runtime = stages["runtime"]
    copied = []
    for ins in runtime:
        if ins.keyword == "COPY" and ins.rest.startswith("--from=build"):
            copied.extend(ins.rest.split()[1:-1])
    installed = install_targets(source_dir)
    for target in ("tether-server", "tether"):
        problems.check(target in installed,
                       f"no install(TARGETS {target} ...) rule in the project's CMakeLists.txt")
        problems.check(f"{install_prefix}/bin/{target}" in copied,
                       f"Dockerfile: the runtime stage does not copy {install_prefix}/bin/{target}")
    users = [i.rest for i in runtime if i.keyword == "USER"]
    problems.check(len(users) == 1 and users[0].split(":")[0] not in ("0", "root"),
                   f"Dockerfile: the runtime stage must set one non-root USER, has {users}")
    problems.check(any(i.keyword == "EXPOSE" and str(GRPC_PORT) in i.rest.split() for i in runtime),
                   f"Dockerfile: the runtime stage does not EXPOSE {GRPC_PORT}")
    # The port comes from TETHER_LISTEN (so `-e TETHER_LISTEN=…` moves it) and the health check
    # follows that variable: no address in either CMD or HEALTHCHECK.
    health = " ".join(next((i.rest for i in runtime if i.keyword == "HEALTHCHECK"), "").split())
    problems.check(health.endswith('CMD ["tether", "health"]'),
                   f"Dockerfile: HEALTHCHECK does not run `tether health` (which reads "
                   f"TETHER_LISTEN's port): {health}")
    env = dict(i.rest.split("=", 1) for i in runtime if i.keyword == "ENV" and "=" in i.rest)
    problems.check(env.get("TETHER_LISTEN") == f"0.0.0.0:{GRPC_PORT}",
                   f"Dockerfile: ENV TETHER_LISTEN is {env.get('TETHER_LISTEN')}, expected "
                   f"0.0.0.0:{GRPC_PORT}")
    entry = next((i.exec_form() for i in runtime if i.keyword == "ENTRYPOINT"), None)
    cmd = next((i.exec_form() for i in runtime if i.keyword == "CMD"), None)
    problems.check(entry == ["tether-server"], f"Dockerfile: ENTRYPOINT is {entry}")
    problems.check(cmd is None or "--listen" not in flag_values(cmd),
                   f"Dockerfile: CMD {cmd} overrides TETHER_LISTEN with --listen")

    # The same uid as the manifests' securityContext.
    deployment = yaml.safe_load(read(os.path.join(source_dir, "deploy/k8s/deployment.yaml")))
    uid = deployment["spec"]["template"]["spec"]["securityContext"].get("runAsUser")
    problems.check(users and users[0].split(":")[0] == str(uid),
                   f"Dockerfile: USER {users} differs from deployment.yaml runAsUser {uid}")

    # The runtime packages cover every library the binaries load.
    listed = set()
    for ins in runtime:
        if ins.keyword == "RUN" and "apt-get install" in ins.rest:
            for command in shell_commands(ins.rest):
                if command[:2] == ["apt-get", "install"]:
                    listed.update(w for w in command[2:] if not w.startswith("-"))
    if binaries is not None:
        owners = dpkg_file_owners()
        for binary in binaries:
            if not problems.check(binary and os.path.isfile(binary),
                                  f"built binary '{binary}' not found: build tether-server and "
                                  "tether before this test"):
                continue
            for library, package in sorted(linked_packages(binary, owners, problems).items()):
                problems.check(package is not None,
                               f"{os.path.basename(binary)} loads {library}, owned by no package")
                problems.check(package is None or package in listed | BASE_IMAGE_PACKAGES,
                               f"{os.path.basename(binary)} loads {library} from {package}, which "
                               "the runtime stage does not install")
    return problems.finish("dockerfile")


# ---------------------------------------------------------------------------------- manifests


def selector_matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def container_named(pod_spec, name):
    return next((c for c in pod_spec.get("containers", []) if c.get("name") == name), None)


def check_manifests(source_dir, rendered, server_bin):
    problems = Problems()
    objects = [o for o in yaml.safe_load_all(read(rendered)) if o]
    by_id = {(o["kind"], o["metadata"]["name"]): o for o in objects}

    def find(kind, name):
        obj = by_id.get((kind, name))
        problems.check(obj is not None, f"{kind}/{name} not rendered")
        return obj

    def config_map(prefix):
        """The generated ConfigMap named prefix-<hash> (kustomize's configMapGenerator)."""
        names = [n for (k, n) in by_id if k == "ConfigMap" and re.fullmatch(prefix + r"-\w+", n)]
        problems.check(len(names) == 1, f"ConfigMap {prefix}-<hash> rendered {len(names)} times")
        return by_id[("ConfigMap", names[0])] if len(names) == 1 else None

    server = find("Deployment", "tether")
    if server is None:
        return problems.finish("manifests")
    pod = server["spec"]["template"]["spec"]
    pod_labels = server["spec"]["template"]["metadata"]["labels"]
    problems.check(selector_matches(server["spec"]["selector"]["matchLabels"], pod_labels),
                   "Deployment/tether: selector does not match its pod labels")
    container = container_named(pod, "tether-server")
    if not problems.check(container is not None, "Deployment/tether: no container tether-server"):
        return problems.finish("manifests")

    # Flags the server is started with: listen on every interface, models dir, drain grace.
    flags = flag_values(container.get("args", []))
    problems.check(flags.get("--listen") == f"0.0.0.0:{GRPC_PORT}",
                   f"Deployment/tether: --listen is {flags.get('--listen')}, "
                   f"expected 0.0.0.0:{GRPC_PORT}")
    drain = drain_grace_seconds(container.get("args", []))
    problems.check(drain is not None, "Deployment/tether: no --drain-grace=MILLISECONDS argument")
    ports = [p.get("containerPort") for p in container.get("ports", [])]
    problems.check(GRPC_PORT in ports, f"Deployment/tether: containerPort {GRPC_PORT} not declared")

    # Shutdown: preStop pause + drain grace must fit in the termination grace period, or the
    # kubelet kills the server (SIGKILL) while streams are still being drained.
    pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    pause = float(pre_stop[1]) if len(pre_stop) == 2 and pre_stop[0] == "sleep" else None
    problems.check(pause is not None and pause > 0,
                   f"Deployment/tether: preStop is not a pause (`sleep N`): {pre_stop}")
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if drain is not None and pause is not None:
        problems.check(grace >= pause + drain, f"Deployment/tether: terminationGracePeriodSeconds "
                       f"{grace} < preStop {pause} s + --drain-grace {drain} s")

    # Native gRPC probes on grpc.health.v1 with the names the server registers, on the
    # plaintext --health-listen port: the kubelet's gRPC probes cannot speak TLS.
    health_port = port_of(flags.get("--health-listen"))
    problems.check(health_port is not None and health_port != GRPC_PORT,
                   f"Deployment/tether: --health-listen is {flags.get('--health-listen')}, "
                   f"expected a plaintext port of its own (not {GRPC_PORT})")
    problems.check(health_port in ports,
                   f"Deployment/tether: the health port {health_port} is not a declared "
                   "containerPort")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        grpc_probe = container.get(probe, {}).get("grpc", {})
        problems.check(grpc_probe.get("port") == health_port,
                       f"Deployment/tether: {probe} is not grpc on the --health-listen port "
                       f"{health_port}: {grpc_probe}")
    readiness = container.get("readinessProbe", {}).get("grpc", {})
    liveness = container.get("livenessProbe", {})
    problems.check(readiness.get("service") == SERVICE_NAME,
                   f"Deployment/tether: readinessProbe does not ask for {SERVICE_NAME}: "
                   f"{readiness}")
    # A draining server is NOT_SERVING; liveness must not restart it before it exits itself.
    window = liveness.get("periodSeconds", 10) * liveness.get("failureThreshold", 3)
    if drain is not None:
        problems.check(window >= drain, f"Deployment/tether: livenessProbe fails after {window} s, "
                       f"shorter than the drain grace {drain} s")

    # Hardening: non-root, read-only root, no privilege escalation, resources bounded.
    security = container.get("securityContext", {})
    problems.check(pod.get("securityContext", {}).get("runAsNonRoot") is True,
                   "Deployment/tether: pod securityContext.runAsNonRoot is not true")
    problems.check(security.get("readOnlyRootFilesystem") is True,
                   "Deployment/tether: readOnlyRootFilesystem is not true")
    problems.check(security.get("allowPrivilegeEscalation") is False,
                   "Deployment/tether: allowPrivilegeEscalation is not false")
    for kind in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            problems.check(resource in container.get("resources", {}).get(kind, {}),
                           f"Deployment/tether: resources.{kind}.{resource} not set")

    # The models ConfigMap (hash-suffixed) is mounted at --models-dir.
    models = config_map("tether-models")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    models_volume = volumes.get(mounts.get(flags.get("--models-dir"), ""), {})
    problems.check(models is not None and
                   models_volume.get("configMap", {}).get("name") == models["metadata"]["name"],
                   f"Deployment/tether: --models-dir {flags.get('--models-dir')} is not the mount "
                   "of the generated tether-models ConfigMap")
    if models is not None:
        keys = sorted(models.get("data", {}))
        files = sorted(f for f in os.listdir(os.path.join(source_dir, "deploy/k8s/models"))
                       if f.endswith(".json"))
        problems.check(keys and keys == files, f"ConfigMap tether-models holds {keys}, but "
                       f"deploy/k8s/models has {files} (list each in kustomization.yaml)")

    # TLS and tokens: each file the environment names is a key of the right secret, mounted
    # read-only as a directory. A subPath mount is a copy the kubelet never refreshes, so a
    # rotated secret would not reach the server (which re-reads the files by itself).
    env = container_env(container)
    for variable in ("TETHER_TLS_CERT", "TETHER_TLS_KEY", "TETHER_SERVER_TOKEN_FILE"):
        problems.check(variable in env, f"Deployment/tether: {variable} is not set (the "
                       "Deployment serves TLS with bearer tokens)")
    container_mounts = container.get("volumeMounts", [])
    for variable, secret in SECRET_FILE_VARIABLES.items():
        if variable not in env:
            continue
        check_secret_file(problems, "Deployment/tether", variable, env[variable], secret,
                          container_mounts, volumes)
    problems.check("--tls-cert" not in flags and "--token-file" not in flags,
                   "Deployment/tether: TLS and token files are set by the environment; "
                   "an argument as well would be two places for one setting")

    # Every flag and variable is one the built server accepts (a typo would stop it at start).
    help_text = server_help(server_bin, problems)
    if help_text is not None:
        known_flags, known_variables = help_flags_and_variables(help_text)
        problems.check("--listen" in known_flags and "TETHER_LISTEN" in known_variables,
                       "tether-server --help: could not read its flags (format changed?)")
        for flag in flags:
            problems.check(flag in known_flags,
                           f"Deployment/tether: tether-server has no flag {flag}")
        for variable in container.get("env", []):
            problems.check(variable["name"] in known_variables,
                           f"Deployment/tether: tether-server reads no variable {variable['name']}")

    # Services select the server pods and reach the named container port.
    for name, headless in (("tether", False), ("tether-headless", True)):
        service = find("Service", name)
        if service is None:
            continue
        spec = service["spec"]
        problems.check(selector_matches(spec.get("selector"), pod_labels),
                       f"Service/{name}: selector does not match the tether pods")
        problems.check((spec.get("clusterIP") == "None") == headless,
                       f"Service/{name}: clusterIP {'must' if headless else 'must not'} be None")
        for port in spec.get("ports", []):
            problems.check(port.get("port") == GRPC_PORT and port.get("targetPort") in
                           ("grpc", GRPC_PORT), f"Service/{name}: port {port} is not grpc:50051")

    hpa = find("HorizontalPodAutoscaler", "tether")
    if hpa is not None:
        target = hpa["spec"]["scaleTargetRef"]
        problems.check((target["kind"], target["name"]) == ("Deployment", "tether"),
                       f"HorizontalPodAutoscaler/tether: scales {target}, not Deployment/tether")
        problems.check(hpa["spec"].get("minReplicas", 1) >= 2,
                       "HorizontalPodAutoscaler/tether: minReplicas < 2 leaves no replica while "
                       "one drains")
    pdb = find("PodDisruptionBudget", "tether")
    if pdb is not None:
        problems.check(selector_matches(pdb["spec"]["selector"]["matchLabels"], pod_labels),
                       "PodDisruptionBudget/tether: selector does not match the tether pods")

    # The proxy runs deploy/envoy.yaml as generated into its ConfigMap.
    proxy = find("Deployment", "tether-proxy")
    envoy = config_map("tether-envoy")
    if proxy is not None and envoy is not None:
        proxy_pod = proxy["spec"]["template"]["spec"]
        names = [v.get("configMap", {}).get("name") for v in proxy_pod.get("volumes", [])]
        problems.check(envoy["metadata"]["name"] in names,
                       "Deployment/tether-proxy: does not mount the generated tether-envoy ConfigMap")
        problems.check(envoy["data"].get("envoy.yaml") == read(
                       os.path.join(source_dir, "deploy/envoy.yaml")),
                       "ConfigMap tether-envoy: envoy.yaml differs from deploy/envoy.yaml")
        proxy_service = find("Service", "tether-proxy")
        if proxy_service is not None:
            problems.check(selector_matches(proxy_service["spec"].get("selector"),
                                            proxy["spec"]["template"]["metadata"]["labels"]),
                           "Service/tether-proxy: selector does not match the proxy pods")
    return problems.finish("manifests")


# ---------------------------------------------------------------------------------- envoy


def walk_types(node, found):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "@type":
                found.append(value)
            walk_types(value, found)
    elif isinstance(node, list):
        for value in node:
            walk_types(value, found)


def check_envoy(source_dir):
    problems = Problems()
    config = yaml.safe_load(read(os.path.join(source_dir, "deploy/envoy.yaml")))
    resources = config.get("static_resources", {})
    clusters = {c["name"]: c for c in resources.get("clusters", [])}
    listeners = resources.get("listeners", [])
    problems.check(len(listeners) == 1, f"envoy.yaml: {len(listeners)} listeners, expected 1")
    if not listeners:
        return problems.finish("envoy")
    listener = listeners[0]
    problems.check(listener["address"]["socket_address"].get("port_value") == GRPC_PORT,
                   f"envoy.yaml: the listener is not on port {GRPC_PORT}")
    filters = [f for chain in listener.get("filter_chains", []) for f in chain.get("filters", [])]
    hcm = next((f for f in filters
                if f.get("name") == "envoy.filters.network.http_connection_manager"), None)
    if not problems.check(hcm is not None, "envoy.yaml: no http_connection_manager filter"):
        return problems.finish("envoy")
    manager = hcm["typed_config"]
    problems.check(manager.get("@type", "").endswith(
                   "http_connection_manager.v3.HttpConnectionManager"),
                   "envoy.yaml: http_connection_manager typed_config has the wrong @type")
    problems.check(manager.get("codec_type") in ("HTTP2", "AUTO"),
                   "envoy.yaml: the listener's codec does not accept HTTP/2 (gRPC)")
    http_filters = manager.get("http_filters", [])
    problems.check(http_filters and http_filters[-1].get("name") == "envoy.filters.http.router",
                   "envoy.yaml: the last http filter must be envoy.filters.http.router")
    check_envoy_grpc_web(manager, listener, problems)

    routes = [r for vh in manager["route_config"]["virtual_hosts"] for r in vh.get("routes", [])]
    hashed = [i for i, r in enumerate(routes) if r.get("route", {}).get("hash_policy")]
    problems.check(len(hashed) == 1, f"envoy.yaml: {len(hashed)} routes hash, expected 1")
    simulate = [i for i, r in enumerate(routes)
                if r["match"].get("prefix", "").endswith(f"{SERVICE_NAME}/Simulate")]
    problems.check(len(simulate) == 1, "envoy.yaml: no route of its own for Simulate")
    for i, route in enumerate(routes):
        cluster = route.get("route", {}).get("cluster")
        problems.check(cluster in clusters, f"envoy.yaml: route {i} names unknown cluster {cluster}")
        # Streams (StreamStates, Simulate) last longer than Envoy's 15 s default route timeout.
        problems.check(route.get("route", {}).get("timeout") == "0s",
                       f"envoy.yaml: route {i} keeps a timeout; streams need timeout: 0s")
    if len(hashed) == 1 and len(simulate) == 1:
        session = routes[hashed[0]]
        policy = session["route"]["hash_policy"][0].get("header", {})
        problems.check(policy.get("header_name") == SESSION_HEADER,
                       f"envoy.yaml: the session route hashes on {policy}, not {SESSION_HEADER}")
        headers = session["match"].get("headers", [])
        problems.check(any(h.get("name") == SESSION_HEADER and h.get("present_match") for h in
                           headers), f"envoy.yaml: the session route does not require "
                           f"{SESSION_HEADER}")
        # First match wins: Simulate must be matched before the session route could pin it.
        problems.check(simulate[0] < hashed[0], "envoy.yaml: the Simulate route must come before "
                       "the session route")
        lb = clusters.get(session["route"]["cluster"], {}).get("lb_policy")
        problems.check(lb in ("RING_HASH", "MAGLEV"), f"envoy.yaml: the session cluster balances "
                       f"by {lb}; consistent hashing needs RING_HASH or MAGLEV")
        stateless = clusters.get(routes[simulate[0]]["route"]["cluster"], {}).get("lb_policy")
        problems.check(stateless not in ("RING_HASH", "MAGLEV"),
                       "envoy.yaml: the Simulate cluster hashes; it should spread by load")

    for name, cluster in clusters.items():
        options = cluster.get("typed_extension_protocol_options", {}).get(
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions", {})
        problems.check("http2_protocol_options" in options.get("explicit_http_config", {}),
                       f"envoy.yaml: cluster {name} does not speak HTTP/2 upstream")
        problems.check(cluster.get("type") == "STRICT_DNS",
                       f"envoy.yaml: cluster {name} must be STRICT_DNS (one host per replica)")
        addresses = [e["endpoint"]["address"]["socket_address"]
                     for group in cluster["load_assignment"]["endpoints"]
                     for e in group["lb_endpoints"]]
        problems.check(addresses and all(a.get("port_value") == GRPC_PORT for a in addresses),
                       f"envoy.yaml: cluster {name} endpoints are not on port {GRPC_PORT}")
        problems.check(all(a.get("address") == "tether-headless" for a in addresses),
                       f"envoy.yaml: cluster {name} must resolve tether-headless (one address "
                       "per replica)")
        checks = [h.get("grpc_health_check", {}).get("service_name")
                  for h in cluster.get("health_checks", [])]
        problems.check(checks == [SERVICE_NAME], f"envoy.yaml: cluster {name} health checks "
                       f"{checks}, expected gRPC health of {SERVICE_NAME}")

    check_envoy_tls(source_dir, listener, clusters, problems)

    types = []
    walk_types(config, types)
    for type_url in types:
        problems.check(type_url.startswith("type.googleapis.com/envoy.") and ".v3." in type_url,
                       f"envoy.yaml: @type {type_url} is not an Envoy v3 type")
    readme = read(os.path.join(source_dir, "deploy/README.md"))
    problems.check(SESSION_HEADER in readme, f"deploy/README.md does not document {SESSION_HEADER}")
    return problems.finish("envoy")


def check_envoy_grpc_web(manager, listener, problems):
    """gRPC-web for browsers: the grpc_web and cors filters before the router, a codec and ALPN
    that accept HTTP/1.1, and a CORS policy with an explicit origin allow-list that lets pages
    read the gRPC status headers."""
    names = [f.get("name") for f in manager.get("http_filters", [])]
    for name, kind in (("envoy.filters.http.grpc_web", "grpc_web.v3.GrpcWeb"),
                       ("envoy.filters.http.cors", "cors.v3.Cors")):
        found = next((f for f in manager.get("http_filters", []) if f.get("name") == name), None)
        if not problems.check(found is not None, f"envoy.yaml: no {name} filter"):
            continue
        problems.check(found.get("typed_config", {}).get("@type", "").endswith(kind),
                       f"envoy.yaml: {name} typed_config is not {kind}")
        problems.check(names.index(name) < len(names) - 1 and names[-1] == "envoy.filters.http.router",
                       f"envoy.yaml: {name} must come before the router")
    problems.check(manager.get("codec_type") == "AUTO",
                   "envoy.yaml: gRPC-web needs codec_type AUTO (browsers may use HTTP/1.1)")
    alpn = [p for chain in listener.get("filter_chains", [])
            for p in chain.get("transport_socket", {}).get("typed_config", {})
                          .get("common_tls_context", {}).get("alpn_protocols", [])]
    problems.check("h2" in alpn and "http/1.1" in alpn,
                   f"envoy.yaml: the listener's ALPN {alpn} must offer h2 and http/1.1")
    policies = [vh.get("typed_per_filter_config", {}).get("envoy.filters.http.cors")
                for vh in manager["route_config"]["virtual_hosts"]]
    for policy in policies:
        if not problems.check(policy is not None and policy.get("@type", "").endswith(
                "cors.v3.CorsPolicy"), "envoy.yaml: a virtual host without a CorsPolicy"):
            continue
        origins = policy.get("allow_origin_string_match", [])
        problems.check(origins and all(o.get("exact", "").startswith("https://") for o in origins),
                       f"envoy.yaml: CORS origins {origins} must be an allow-list of exact https "
                       "origins")
        exposed = [h.strip() for h in policy.get("expose_headers", "").split(",")]
        problems.check({"grpc-status", "grpc-message"} <= set(exposed),
                       "envoy.yaml: CORS must expose grpc-status and grpc-message to pages")
        allowed = [h.strip() for h in policy.get("allow_headers", "").split(",")]
        problems.check({"x-grpc-web", "authorization", "content-type"} <= set(allowed),
                       "envoy.yaml: CORS must allow x-grpc-web, authorization and content-type")


def tls_context(holder, kind):
    """The typed_config of `holder`'s envoy.transport_sockets.tls transport socket if its @type
    is `kind` (DownstreamTlsContext or UpstreamTlsContext), else None."""
    socket_ = holder.get("transport_socket", {})
    config = socket_.get("typed_config", {})
    if socket_.get("name") == "envoy.transport_sockets.tls" and \
            config.get("@type", "").endswith(f".tls.v3.{kind}"):
        return config
    return None


def envoy_file_sources(source_dir):
    """The envoy container's mounts in k8s/proxy.yaml, and its pod's volumes by name."""
    documents = [d for d in yaml.safe_load_all(read(os.path.join(source_dir,
                                                                 "deploy/k8s/proxy.yaml"))) if d]
    proxy = next((d for d in documents if d["kind"] == "Deployment"), {})
    pod = proxy.get("spec", {}).get("template", {}).get("spec", {})
    envoy = container_named(pod, "envoy") or {}
    return envoy.get("volumeMounts", []), {v["name"]: v for v in pod.get("volumes", [])}


def walk_filenames(node, found):
    """Appends every `filename:` (an Envoy DataSource read from a file) in a parsed tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "filename" and isinstance(value, str):
                found.append(value)
            walk_filenames(value, found)
    elif isinstance(node, list):
        for value in node:
            walk_filenames(value, found)


def check_envoy_tls(source_dir, listener, clusters, problems):
    """Clients' TLS ends at the listener; every cluster re-encrypts to the pods and verifies the
    name it sends; each file Envoy reads is a key of the right secret, mounted by proxy.yaml."""
    mounts, volumes = envoy_file_sources(source_dir)

    def check_file(path, secret, what):
        check_secret_file(problems, "envoy.yaml (k8s/proxy.yaml's envoy container)", what, path,
                          secret, mounts, volumes)

    def common_tls(holder, kind, what):
        """The common_tls_context of `holder`'s `kind` TLS context, which must offer h2 by ALPN
        (gRPC); None (a problem recorded) if `holder` has none."""
        context = tls_context(holder, kind)
        if not problems.check(context is not None, f"envoy.yaml: {what} has no transport_socket "
                              f"with a {kind} (it would speak plaintext)"):
            return None
        common = context.get("common_tls_context", {})
        problems.check("h2" in common.get("alpn_protocols", []),
                       f"envoy.yaml: {what} does not offer h2 by ALPN (gRPC)")
        return common

    chains = listener.get("filter_chains", [])
    for i, chain in enumerate(chains):
        common = common_tls(chain, "DownstreamTlsContext", f"filter chain {i}")
        if common is None:
            continue
        certificates = common.get("tls_certificates", [])
        problems.check(len(certificates) == 1,
                       f"envoy.yaml: filter chain {i} has {len(certificates)} certificates, "
                       "expected 1")
        for certificate in certificates:
            for field in ("certificate_chain", "private_key"):
                check_file(certificate.get(field, {}).get("filename", ""), PROXY_TLS_SECRET,
                           f"listener {field}")

    for name, cluster in clusters.items():
        common = common_tls(cluster, "UpstreamTlsContext", f"cluster {name}")
        if common is None:
            continue
        upstream = tls_context(cluster, "UpstreamTlsContext")
        validation = common.get("validation_context", {})
        check_file(validation.get("trusted_ca", {}).get("filename", ""), SERVER_TLS_SECRET,
                   f"cluster {name} trusted_ca")
        problems.check(not common.get("tls_certificates"), f"envoy.yaml: cluster {name} sends a "
                       "client certificate, but the server runs without --tls-client-ca")
        # Without a subjectAltName matcher Envoy accepts any certificate the CA signed.
        sni = upstream.get("sni")
        names = [m.get("matcher", {}).get("exact") for m in
                 validation.get("match_typed_subject_alt_names", []) if m.get("san_type") == "DNS"]
        problems.check(bool(sni) and names == [sni], f"envoy.yaml: cluster {name} sends SNI "
                       f"{sni} but verifies the names {names}; verify exactly the name it sends")
    # The proxy needs the servers' CA, never their private key.
    for name, volume in volumes.items():
        secret = volume.get("secret", {})
        if secret.get("secretName") == SERVER_TLS_SECRET:
            keys = [i.get("key") for i in secret.get("items", [])]
            problems.check(keys == ["ca.crt"], f"k8s/proxy.yaml: volume {name} projects "
                           f"{keys or 'every key'} of {SERVER_TLS_SECRET}; only ca.crt belongs in "
                           "the proxy (the servers' tls.key must not)")
    # Both clusters reach the same pods: one name and one CA for all of them.
    snis = {(tls_context(c, "UpstreamTlsContext") or {}).get("sni") for c in clusters.values()}
    problems.check(len(snis) == 1, f"envoy.yaml: the clusters send different SNI names {snis}")


def envoy_upstream_name(source_dir):
    """The name Envoy verifies in the pods' certificates (its clusters' SNI)."""
    config = yaml.safe_load(read(os.path.join(source_dir, "deploy/envoy.yaml")))
    for cluster in config.get("static_resources", {}).get("clusters", []):
        upstream = tls_context(cluster, "UpstreamTlsContext")
        if upstream and upstream.get("sni"):
            return upstream["sni"]
    return None


# ---------------------------------------------------------------------------------- compose


def check_compose(source_dir):
    problems = Problems()
    compose = yaml.safe_load(read(os.path.join(source_dir, "deploy/compose.yaml")))
    services = compose.get("services", {})
    for name in ("tether", "sweep"):
        problems.check(name in services, f"compose.yaml: no service {name}")
    if problems.items:
        return problems.finish("compose")
    server, sweep = services["tether"], services["sweep"]
    deployment = yaml.safe_load(read(os.path.join(source_dir, "deploy/k8s/deployment.yaml")))
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    problems.check(server.get("command") == args, f"compose.yaml: the server runs "
                   f"{server.get('command')}, the Deployment {args}")
    drain = drain_grace_seconds(args)
    stop = parse_duration_seconds(str(server.get("stop_grace_period", "10s")))
    problems.check(drain is not None and stop is not None and stop > drain,
                   f"compose.yaml: stop_grace_period {stop} s must exceed the drain grace {drain} s")
    models_dir = flag_values(args).get("--models-dir")
    problems.check(any(v.split(":")[1] == models_dir for v in server.get("volumes", [])),
                   f"compose.yaml: nothing is mounted at --models-dir {models_dir}")
    # The same environment (TLS, tokens), each file it names in a directory mounted read-only:
    # a whole directory, as the secret volumes are, so replacing the files rotates them.
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    env = container_env(container)
    compose_env = {k: str(v) for k, v in (server.get("environment") or {}).items()}
    problems.check(compose_env == env, f"compose.yaml: the server's environment {compose_env} "
                   f"differs from the Deployment's {env}")
    volumes = [tuple(v.split(":")) for v in server.get("volumes", [])]
    for variable in SECRET_FILE_VARIABLES:
        if variable not in compose_env:
            continue
        mount, _ = mount_holding(compose_env[variable], volumes)
        problems.check(mount is not None and mount[2:] == ("ro",), f"compose.yaml: {variable}="
                       f"{compose_env[variable]} is in no directory mounted read-only")
    # The image's HEALTHCHECK asks TETHER_LISTEN's port in plaintext, which speaks TLS here;
    # compose must ask the plaintext health port instead.
    health_port = port_of(flag_values(args).get("--health-listen"))
    test = (server.get("healthcheck") or {}).get("test", [])
    words = [w for w in test if w not in ("CMD", "CMD-SHELL")] if isinstance(test, list) else []
    problems.check(tether_health_service(words) is not None and
                   port_of(flag_values(words[2:]).get("--server")) == health_port,
                   f"compose.yaml: the server's healthcheck {test} does not run `tether health "
                   f"--server 127.0.0.1:{health_port}` (the plaintext --health-listen port)")
    aliases = server.get("networks", {}).get("default", {}).get("aliases", [])
    problems.check("tether-headless" in aliases,
                   "compose.yaml: the server lacks the alias tether-headless that envoy.yaml uses")
    problems.check(sweep.get("depends_on", {}).get("tether", {}).get("condition") ==
                   "service_healthy", "compose.yaml: the sweep does not wait for a healthy server")

    # The sweep must reach every replica: a dns:/// target (round_robin over the addresses
    # Docker's DNS returns for the service), not one connection to one of them.
    script = " ".join(sweep.get("command", []))
    problems.check("tether sweep " in script and f"--server dns:///tether:{GRPC_PORT}" in script,
                   "compose.yaml: the sweep does not run "
                   f"`tether sweep --server dns:///tether:{GRPC_PORT}`")
    # TLS verified with a CA file and a token from a file, both mounted into the job.
    sweep_flags = flag_values(shlex.split(script.replace("\\\n", " ")))
    sweep_mounts = [tuple(v.split(":")) for v in sweep.get("volumes", [])]
    for flag in ("--tls-ca", "--token-file"):
        path = sweep_flags.get(flag)
        problems.check(path is not None and any(m[1] == path for m in sweep_mounts),
                       f"compose.yaml: the sweep's {flag} {path} is not a file mounted into it")
    levels = re.findall(r"--values \w+=([^\s]+)", script)
    values = levels[0].split(",") if levels else []
    problems.check(len(set(values)) >= 3, f"compose.yaml: the sweep has {len(set(values))} "
                   "distinct --values, expected several (≥ 3)")
    proxy = services.get("proxy", {})
    problems.check(any(v.endswith(":/etc/envoy/envoy.yaml:ro") and
                       os.path.realpath(os.path.join(source_dir, "deploy", v.split(":")[0])) ==
                       os.path.realpath(os.path.join(source_dir, "deploy/envoy.yaml"))
                       for v in proxy.get("volumes", [])),
                   "compose.yaml: the proxy does not mount deploy/envoy.yaml")
    # Every certificate file envoy.yaml reads is mounted into the proxy, file or directory.
    envoy_config = yaml.safe_load(read(os.path.join(source_dir, "deploy/envoy.yaml")))
    envoy_files = []
    walk_filenames(envoy_config, envoy_files)
    targets = [v.split(":")[1] for v in proxy.get("volumes", [])]
    for path in envoy_files:
        problems.check(path in targets or os.path.dirname(path) in targets,
                       f"compose.yaml: the proxy does not mount {path}, which envoy.yaml reads")
    return problems.finish("compose")

# ---------------------------------------------------------------------------------- server


def atomic_volume(files, target):
    """Lays out `target` as the kubelet mounts a ConfigMap or Secret: the files ({key: source
    path}) in a timestamped hidden directory, `..data` linking to it, and one link per key
    through `..data` (what a rotation swaps atomically)."""
    payload = os.path.join(target, "..2026_01_01_00_00_00.000000000")
    os.makedirs(payload)
    for key, source in files.items():
        shutil.copy(source, os.path.join(payload, key))
        os.symlink(os.path.join("..data", key), os.path.join(target, key))
    os.symlink(os.path.basename(payload), os.path.join(target, "..data"))


def configmap_volume(source, target):
    """A ConfigMap volume of the *.json files in `source` at `target`."""
    atomic_volume({name: os.path.join(source, name) for name in os.listdir(source)
                   if name.endswith(".json")}, target)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def run_client(problems, what, command, timeout=20, env=None, stdin=None):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                                stdin=stdin)
    except subprocess.TimeoutExpired:
        problems.check(False, f"{what}: `{' '.join(command)}` did not finish in {timeout} s")
        return None
    problems.check(result.returncode == 0, f"{what}: `{' '.join(command)}` exited "
                   f"{result.returncode}: {result.stderr.strip()}")
    return result


def secret_volumes(source_dir, server_bin, container, scratch, problems):
    """The server's secret volumes under `scratch`, laid out as the kubelet mounts them: the
    TLS secret from scripts/dev-certs (whose server certificate is what the deployment docs
    tell operators to make), the token secret from `tether-server hash-token` of a fresh token.
    Returns ({mountPath: scratch directory}, CA file, token file) or None."""
    certs = os.path.join(scratch, "certs")
    made = run_client(problems, "certificates", [os.path.join(source_dir, "scripts/dev-certs"),
                                                  certs], timeout=60)
    token_path = os.path.join(scratch, "client.token")
    with open(token_path, "w") as f:
        f.write(os.urandom(24).hex() + "\n")
    with open(token_path) as token:
        hashed = run_client(problems, "token file", [server_bin, "hash-token", "--tenant",
                                                     "deploy-test"], stdin=token)
    if problems.items or made is None or hashed is None:
        return None
    tokens_path = os.path.join(scratch, "tokens.txt")
    with open(tokens_path, "w") as f:
        f.write(hashed.stdout)
    contents = {SERVER_TLS_SECRET: {k: os.path.join(certs, "server", k) for k in TLS_SECRET_KEYS},
                TOKENS_SECRET: None}
    volumes = {v["name"]: v for v in container["pod"].get("volumes", [])}
    where = {}
    for mount in container.get("volumeMounts", []):
        secret = volumes.get(mount["name"], {}).get("secret", {}).get("secretName")
        if secret not in contents:
            continue
        directory = os.path.join(scratch, "volumes", mount["name"])
        os.makedirs(directory)
        if secret == TOKENS_SECRET:
            # The secret's one key: whatever file name TETHER_SERVER_TOKEN_FILE asks for.
            key = os.path.basename(container_env(container).get("TETHER_SERVER_TOKEN_FILE", ""))
            atomic_volume({key: tokens_path}, directory)
        else:
            atomic_volume(contents[secret], directory)
        where[mount["mountPath"]] = directory
    return where, os.path.join(certs, "ca.crt"), token_path


def check_server(source_dir, server_bin, client_bin):
    problems = Problems()
    for binary in (server_bin, client_bin):
        problems.check(binary and os.path.isfile(binary), f"built binary '{binary}' not found: "
                       "build tether-server and tether before this test")
    problems.check(shutil.which("openssl") is not None,
                   "openssl not found (Debian package openssl; scripts/install-deps)")
    if problems.items:
        return problems.finish("server")
    deployment = yaml.safe_load(read(os.path.join(source_dir, "deploy/k8s/deployment.yaml")))
    pod = deployment["spec"]["template"]["spec"]
    container = dict(pod["containers"][0], pod=pod)
    args = container["args"]
    drain = drain_grace_seconds(args)
    problems.check(drain is not None, "deployment.yaml: no --drain-grace=MILLISECONDS argument")
    compose = yaml.safe_load(read(os.path.join(source_dir, "deploy/compose.yaml")))
    health_test = compose.get("services", {}).get("tether", {}).get("healthcheck", {}).get("test")
    problems.check(isinstance(health_test, list) and health_test[:1] == ["CMD"],
                   f"compose.yaml: the server's healthcheck is not an exec-form CMD: {health_test}")
    upstream_name = envoy_upstream_name(source_dir)
    problems.check(upstream_name is not None, "envoy.yaml: no cluster sends an SNI name")
    if problems.items:
        return problems.finish("server")

    port, health_port, metrics_port = free_port(), free_port(), free_port()
    address = f"127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="tether-deploy-") as scratch:
        secrets = secret_volumes(source_dir, server_bin, container, scratch, problems)
        if secrets is None:
            return problems.finish("server")
        mounts, ca_file, token_file = secrets
        models_dir = os.path.join(scratch, "models")
        os.makedirs(models_dir)
        configmap_volume(os.path.join(source_dir, "deploy/k8s/models"), models_dir)
        # The Deployment's arguments, but on free loopback ports and the scratch models dir.
        moved = {"--listen": address, "--health-listen": f"127.0.0.1:{health_port}",
                 "--metrics-listen": f"127.0.0.1:{metrics_port}", "--models-dir": models_dir}
        command = [server_bin]
        for arg in args:
            flag = arg.split("=", 1)[0]
            command.append(f"{flag}={moved[flag]}" if flag in moved and "=" in arg else arg)
        # The Deployment's environment, each path moved from its mount to the scratch volume.
        env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
        for name, value in container_env(container).items():
            for mount_path, directory in mounts.items():
                if os.path.dirname(value) == mount_path:
                    value = os.path.join(directory, os.path.basename(value))
            env[name] = value
        for name in SECRET_FILE_VARIABLES:
            problems.check(name not in env or os.path.isfile(env[name]),
                           f"deployment.yaml: {name}={container_env(container).get(name)} is not "
                           "a file of its secret volume")
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            up = wait_for_port(port, server, 15) and wait_for_port(health_port, server, 15)
            if not problems.check(up, f"`{' '.join(command)}` did not listen within 15 s "
                                  f"(exit {server.poll()}): {read(log_path).strip()[-2000:]}"):
                return problems.finish("server")
            client_env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}

            def client(what, *arguments, refused=False):
                """Runs the CLI; a problem unless it succeeds (or, if `refused`, fails)."""
                if not refused:
                    return run_client(problems, what, [client_bin, *arguments], env=client_env)
                # A refusal is an exit code, not a hang: run_client's own problems (a non-zero
                # exit) are the expected outcome here and are dropped, except a timeout.
                quiet = Problems()
                result = run_client(quiet, what, [client_bin, *arguments], env=client_env)
                problems.check(result is not None, quiet.items[0] if quiet.items else what)
                problems.check(result is None or result.returncode != 0,
                               f"{what}: `tether {' '.join(arguments)}` succeeded; it must be "
                               "refused")
                return result

            # Compose's health check, moved to this health port: plaintext, no token.
            probe = [client_bin if w == "tether" else w for w in health_test[1:]]
            probe = [f"127.0.0.1:{health_port}" if port_of(w) is not None and ":" in w else w
                     for w in probe]
            run_client(problems, "compose healthcheck", probe, env=client_env)
            client("readiness probe's health name", "health", "--server",
                   f"127.0.0.1:{health_port}", "--service", SERVICE_NAME)
            # The health port serves health only: no models there, even with a token.
            client("the health port", "--server", f"127.0.0.1:{health_port}", "--token-file",
                   token_file, "models", refused=True)
            # TLS with the CA and a token: the ConfigMap's models are listed.
            tls = ["--server", address, "--tls-ca", ca_file]
            listed = client("TLS call", *tls, "--token-file", token_file, "models")
            for name in os.listdir(os.path.join(source_dir, "deploy/k8s/models")):
                model = name[:-len(".json")]
                problems.check(listed is None or model in listed.stdout,
                               f"`tether models` over TLS does not list {model} from the ConfigMap")
            # The name Envoy sends and verifies upstream is in the server's certificate.
            client(f"TLS call verifying the name {upstream_name} (envoy.yaml's SNI)", *tls,
                   "--tls-server-name", upstream_name, "--token-file", token_file, "models")
            # Refused: plaintext on the TLS port, and a TLS call without a token.
            client("plaintext call", "--server", address, "--token-file", token_file, "models",
                   refused=True)
            refused = client("call without a token", *tls, "models", refused=True)
            problems.check(refused is None or "UNAUTHENTICATED" in refused.stderr,
                           f"a call without a token did not end UNAUTHENTICATED: "
                           f"{refused.stderr.strip() if refused else ''}")
            # SIGTERM with nothing open: the drain ends at once, exit 0 well inside the grace.
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(timeout=(drain or 5) + 5)
                problems.check(code == 0, f"tether-server exited {code} on SIGTERM: "
                               f"{read(log_path).strip()[-2000:]}")
            except subprocess.TimeoutExpired:
                problems.check(False, f"tether-server still running {(drain or 5) + 5} s after "
                               "SIGTERM")
            with open(token_file) as f:
                token = f.read().strip()
            problems.check(token not in read(log_path), "the token appears in the server's log")
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    return problems.finish("server")


# ---------------------------------------------------------------------------------- health names


def health_names_in(node, where, found):
    """Appends (name, where) for every health check in a parsed YAML tree: a Kubernetes probe's
    `grpc` (service absent = ""), Envoy's `grpc_health_check` (service_name absent = ""), a
    compose `healthcheck.test` running `tether health`; YAML text embedded in a string (a
    ConfigMap's data) is parsed and searched too."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{where}.{key}"
            if key == "grpc" and isinstance(value, dict) and "port" in value:
                found.append((value.get("service", ""), here))
            elif key == "grpc_health_check" and isinstance(value, dict):
                found.append((value.get("service_name", ""), here))
            elif key == "healthcheck" and isinstance(value, dict) and "test" in value:
                test = value["test"]
                words = test if isinstance(test, list) else shlex.split(str(test))
                name = tether_health_service(words)
                if name is not None:
                    found.append((name, here))
            else:
                health_names_in(value, here, found)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            health_names_in(value, f"{where}[{i}]", found)
    elif isinstance(node, str) and "grpc_health_check" in node:
        try:
            embedded = list(yaml.safe_load_all(node))
        except yaml.YAMLError:
            return
        health_names_in(embedded, where, found)


def tether_health_service(words):
    """The service a `tether health [--service NAME]` command asks for ("" without --service);
    None if `words` is not such a command."""
    words = [w for w in words if w not in ("CMD", "CMD-SHELL")]
    if len(words) < 2 or os.path.basename(words[0]) != "tether" or words[1] != "health":
        return None
    return flag_values(words[2:]).get("--service", "")


def check_health_names(source_dir, server_bin, client_bin):
    problems = Problems()
    for binary in (server_bin, client_bin):
        problems.check(binary and os.path.isfile(binary), f"built binary '{binary}' not found: "
                       "build tether-server and tether before this test")
    if problems.items:
        return problems.finish("health_names")
    found = []
    deploy_dir = os.path.join(source_dir, "deploy")
    for root, _, files in os.walk(deploy_dir):
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(root, name)
            relative = os.path.relpath(path, source_dir)
            health_names_in(list(yaml.safe_load_all(read(path))), relative, found)
    _, stages, _ = parse_dockerfile(read(os.path.join(source_dir, "Dockerfile")))
    health = next((i.rest for i in stages.get("runtime", []) if i.keyword == "HEALTHCHECK"), "")
    if "CMD" in health:
        name = tether_health_service(yaml.safe_load(health[health.index("CMD") + 3:].strip()))
        if name is not None:
            found.append((name, "Dockerfile HEALTHCHECK (compose's health check)"))
    names = sorted({name for name, _ in found})
    # The files are known to ask for both; finding fewer means the search above broke.
    for expected in ("", SERVICE_NAME):
        problems.check(expected in names, f"no health check in deploy/ asks for '{expected}'; "
                       f"found {found}")

    # The names are asked on both ports that serve health: the main one (Envoy's checks, in
    # TLS in the deployment; plaintext here, the names are the same) and --health-listen (the
    # kubelet's probes, compose's health check).
    port, health_port = free_port(), free_port()
    address = f"127.0.0.1:{port}"
    health_address = f"127.0.0.1:{health_port}"
    with tempfile.TemporaryDirectory(prefix="tether-health-") as scratch:
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen([server_bin, f"--listen={address}",
                                       f"--health-listen={health_address}", "--quiet"], stdout=log,
                                      stderr=subprocess.STDOUT)
        try:
            if not problems.check(wait_for_port(port, server, 15) and
                                  wait_for_port(health_port, server, 15),
                                  f"tether-server did not listen within 15 s (exit "
                                  f"{server.poll()}): {read(log_path).strip()[-2000:]}"):
                return problems.finish("health_names")
            for target in (address, health_address):
                for name in names:
                    where = ", ".join(w for n, w in found if n == name)
                    command = [client_bin, "health", "--server", target, "--service", name]
                    result = subprocess.run(command, capture_output=True, text=True, timeout=20)
                    problems.check(result.returncode == 0 and result.stdout.strip() == "SERVING",
                                   f"health of '{name}' on {target} (asked by {where}): exit "
                                   f"{result.returncode}, "
                                   f"{(result.stdout + result.stderr).strip()}")
                # A name no file uses is refused, so the names above are served on purpose.
                unknown = "tether.v1.NoSuchService"
                result = subprocess.run([client_bin, "health", "--server", target, "--service",
                                         unknown], capture_output=True, text=True, timeout=20)
                problems.check(result.returncode != 0, f"health of '{unknown}' on {target} "
                               f"exited 0: {result.stdout.strip()}")
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    print(f"health_names: asked {len(names)} name(s) from {len(found)} health check(s): "
          + ", ".join(f"'{n}'" for n in names))
    return problems.finish("health_names")


def main(argv):
    usage = ("usage: check_deploy.py dockerfile SOURCE_DIR [SERVER_BIN CLIENT_BIN] | "
             "manifests SOURCE_DIR RENDERED.yaml SERVER_BIN | envoy SOURCE_DIR | "
             "compose SOURCE_DIR | "
             "health_names SOURCE_DIR SERVER_BIN CLIENT_BIN | server SOURCE_DIR SERVER_BIN CLIENT_BIN")
    if len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    command, source_dir, rest = argv[1], argv[2], argv[3:]
    if command == "dockerfile" and len(rest) in (0, 2):
        return check_dockerfile(source_dir, rest if rest else None)
    if command == "manifests" and len(rest) == 2:
        return check_manifests(source_dir, *rest)
    if command == "envoy" and not rest:
        return check_envoy(source_dir)
    if command == "compose" and not rest:
        return check_compose(source_dir)
    if command == "health_names" and len(rest) == 2:
        return check_health_names(source_dir, *rest)
    if command == "server" and len(rest) == 2:
        return check_server(source_dir, *rest)
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
