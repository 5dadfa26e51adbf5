"""Installs the Python client as a user would: a fresh virtual environment of Debian's python3
that sees Debian's packages (--system-site-packages: grpcio, protobuf, numpy, pandas), then
`pip install --no-build-isolation --no-index` (offline, Debian's setuptools) of a copy of
client/python, so the build writes nothing into the source tree. The stubs are generated from
proto/ during that build. Finally checks that `import tether` resolves to the installed package.

Run by ctest (fixture python_client) as:
  /usr/bin/python3 install_client.py --repository SRC --venv DIR --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

INSTALL_TIMEOUT = 600  # seconds; pip plus protoc take ~10 s on an idle machine


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repository", required=True)
    parser.add_argument("--venv", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()

    for directory in (args.venv, args.work):
        shutil.rmtree(directory, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", args.venv], check=True)
    source = os.path.join(args.work, "python")
    shutil.copytree(os.path.join(args.repository, "client", "python"), source,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env = dict(os.environ, TETHER_REPOSITORY=args.repository, PIP_DISABLE_PIP_VERSION_CHECK="1")
    python = os.path.join(args.venv, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                    "--no-cache-dir", "--quiet", source],
                   check=True, env=env, timeout=INSTALL_TIMEOUT)
    # From / so that no source directory can shadow the installed package.
    where = subprocess.run([python, "-c", "import tether, tether.aio; print(tether.__file__)"],
                           check=True, capture_output=True, text=True, cwd="/").stdout.strip()
    site = os.path.join(os.path.realpath(args.venv), "lib")
    if not os.path.realpath(where).startswith(site):
        sys.exit(f"import tether found {where}, not the package installed under {args.venv}")
    print(f"installed tether at {where}")


if __name__ == "__main__":
    main()
