#!/usr/bin/python3
"""Offline consistency checks of tether's container and deployment files.

Each subcommand is one ctest test (tests/deploy/CMakeLists.txt):

  dockerfile SOURCE_DIR [SERVER_BIN CLIENT_BIN]
      The Dockerfile's build commands are the ones CI runs: every script it calls exists and is
      executable, every preset it names is defined in CMakePresets.json, the test stage runs
      what .ci/run runs, the runtime stage copies the binaries the install rules produce, and
      (given the built binaries) its package list covers every shared library they load.
  manifests SOURCE_DIR RENDERED.yaml
      The rendered Kubernetes objects agree with each other, with the server's drain sequence
      and with the image: flags, ports, probes, grace periods, users, selectors, ConfigMaps.
  envoy SOURCE_DIR
      deploy/envoy.yaml has the structure of an Envoy v3 bootstrap that pins session calls by
      consistent hashing on the header deploy/README.md documents (Envoy is not installed here).
  compose SOURCE_DIR
      deploy/compose.yaml runs the server as the manifests do and `tether sweep` over its replicas.
  health_names SOURCE_DIR SERVER_BIN CLIENT_BIN
      Every grpc.health.v1 service name the files in deploy/ ask for (Kubernetes gRPC probes,
      Envoy's grpc_health_check, compose health checks, and the image's HEALTHCHECK that
      compose relies on) is SERVING on a real tether-server; a name none of them uses is not.
  server SOURCE_DIR SERVER_BIN CLIENT_BIN
      The built tether-server starts with the Deployment's arguments (on a free loopback port)
      and a models dir laid out as a ConfigMap volume is (links into ..data), the image's
      HEALTHCHECK command reports it healthy, the ConfigMap's models are listed, and SIGTERM
      ends it with exit 0 within the drain grace.

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


def check_manifests(source_dir, rendered):
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

    # Native gRPC probes on grpc.health.v1 with the names the server registers.
    readiness = container.get("readinessProbe", {}).get("grpc", {})
    liveness = container.get("livenessProbe", {})
    problems.check(readiness.get("port") == GRPC_PORT and readiness.get("service") == SERVICE_NAME,
                   f"Deployment/tether: readinessProbe is not grpc on {GRPC_PORT} for "
                   f"{SERVICE_NAME}: {readiness}")
    problems.check(liveness.get("grpc", {}).get("port") == GRPC_PORT,
                   f"Deployment/tether: livenessProbe is not grpc on {GRPC_PORT}")
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

    types = []
    walk_types(config, types)
    for type_url in types:
        problems.check(type_url.startswith("type.googleapis.com/envoy.") and ".v3." in type_url,
                       f"envoy.yaml: @type {type_url} is not an Envoy v3 type")
    readme = read(os.path.join(source_dir, "deploy/README.md"))
    problems.check(SESSION_HEADER in readme, f"deploy/README.md does not document {SESSION_HEADER}")
    return problems.finish("envoy")


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
    return problems.finish("compose")

# ---------------------------------------------------------------------------------- server


def configmap_volume(source, target):
    """Lays out `target` as the kubelet mounts a ConfigMap: the files in a timestamped hidden
    directory, `..data` linking to it, and one link per key through `..data`."""
    payload = os.path.join(target, "..2026_01_01_00_00_00.000000000")
    os.makedirs(payload)
    for name in os.listdir(source):
        if name.endswith(".json"):
            shutil.copy(os.path.join(source, name), payload)
            os.symlink(os.path.join("..data", name), os.path.join(target, name))
    os.symlink(os.path.basename(payload), os.path.join(target, "..data"))


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


def run_client(problems, what, command, timeout=20, env=None):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        problems.check(False, f"{what}: `{' '.join(command)}` did not finish in {timeout} s")
        return None
    problems.check(result.returncode == 0, f"{what}: `{' '.join(command)}` exited "
                   f"{result.returncode}: {result.stderr.strip()}")
    return result


def check_server(source_dir, server_bin, client_bin):
    problems = Problems()
    for binary in (server_bin, client_bin):
        problems.check(binary and os.path.isfile(binary), f"built binary '{binary}' not found: "
                       "build tether-server and tether before this test")
    if problems.items:
        return problems.finish("server")
    deployment = yaml.safe_load(read(os.path.join(source_dir, "deploy/k8s/deployment.yaml")))
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    drain = drain_grace_seconds(args)
    problems.check(drain is not None, "deployment.yaml: no --drain-grace=MILLISECONDS argument")
    _, stages, _ = parse_dockerfile(read(os.path.join(source_dir, "Dockerfile")))
    health = next((i.rest for i in stages.get("runtime", []) if i.keyword == "HEALTHCHECK"), "")
    health_command = yaml.safe_load(health[health.index("CMD") + 3:].strip()) if "CMD" in health \
        else None
    problems.check(isinstance(health_command, list), "Dockerfile: no exec-form HEALTHCHECK CMD")
    if problems.items:
        return problems.finish("server")

    port = free_port()
    address = f"127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="tether-deploy-") as scratch:
        models_dir = os.path.join(scratch, "models")
        os.makedirs(models_dir)
        configmap_volume(os.path.join(source_dir, "deploy/k8s/models"), models_dir)
        # The Deployment's arguments, but on a free loopback port and the scratch models dir.
        command = [server_bin]
        for arg in args:
            if arg.startswith("--listen="):
                arg = f"--listen={address}"
            elif arg.startswith("--models-dir="):
                arg = f"--models-dir={models_dir}"
            command.append(arg)
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            up = wait_for_port(port, server, 15)
            if not problems.check(up, f"`{' '.join(command)}` did not listen within 15 s "
                                  f"(exit {server.poll()}): {read(log_path).strip()[-2000:]}"):
                return problems.finish("server")
            # The image's command in the image's environment, its TETHER_LISTEN moved to this
            # port as `docker run -e TETHER_LISTEN=…` would.
            probe = [client_bin if w == "tether" else w for w in health_command]
            image_env = dict(i.rest.split("=", 1) for i in stages["runtime"]
                             if i.keyword == "ENV" and "=" in i.rest)
            listen = image_env.get("TETHER_LISTEN", f"0.0.0.0:{GRPC_PORT}")
            probe_env = {k: v for k, v in os.environ.items() if k != "TETHER_SERVER"}
            probe_env["TETHER_LISTEN"] = listen.rsplit(":", 1)[0] + f":{port}"
            run_client(problems, "HEALTHCHECK", probe, env=probe_env)
            listed = run_client(problems, "models", [client_bin, "models", "--server", address])
            for name in os.listdir(os.path.join(source_dir, "deploy/k8s/models")):
                model = name[:-len(".json")]
                problems.check(listed is None or model in listed.stdout,
                               f"`tether models` does not list {model} from the ConfigMap")
            # SIGTERM with nothing open: the drain ends at once, exit 0 well inside the grace.
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(timeout=(drain or 5) + 5)
                problems.check(code == 0, f"tether-server exited {code} on SIGTERM: "
                               f"{read(log_path).strip()[-2000:]}")
            except subprocess.TimeoutExpired:
                problems.check(False, f"tether-server still running {(drain or 5) + 5} s after "
                               "SIGTERM")
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

    port = free_port()
    address = f"127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="tether-health-") as scratch:
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen([server_bin, f"--listen={address}", "--quiet"], stdout=log,
                                      stderr=subprocess.STDOUT)
        try:
            if not problems.check(wait_for_port(port, server, 15),
                                  f"tether-server did not listen within 15 s (exit "
                                  f"{server.poll()}): {read(log_path).strip()[-2000:]}"):
                return problems.finish("health_names")
            for name in names:
                where = ", ".join(w for n, w in found if n == name)
                command = [client_bin, "health", "--server", address, "--service", name]
                result = subprocess.run(command, capture_output=True, text=True, timeout=20)
                problems.check(result.returncode == 0 and result.stdout.strip() == "SERVING",
                               f"health of '{name}' (asked by {where}): exit {result.returncode}, "
                               f"{(result.stdout + result.stderr).strip()}")
            # A name no file uses is refused, so the names above are served on purpose.
            unknown = "tether.v1.NoSuchService"
            result = subprocess.run([client_bin, "health", "--server", address, "--service",
                                     unknown], capture_output=True, text=True, timeout=20)
            problems.check(result.returncode != 0, f"health of '{unknown}' exited 0: "
                           f"{result.stdout.strip()}")
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
             "manifests SOURCE_DIR RENDERED.yaml | envoy SOURCE_DIR | compose SOURCE_DIR | "
             "health_names SOURCE_DIR SERVER_BIN CLIENT_BIN | server SOURCE_DIR SERVER_BIN CLIENT_BIN")
    if len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    command, source_dir, rest = argv[1], argv[2], argv[3:]
    if command == "dockerfile" and len(rest) in (0, 2):
        return check_dockerfile(source_dir, rest if rest else None)
    if command == "manifests" and len(rest) == 1:
        return check_manifests(source_dir, rest[0])
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
