"""Runs the notebook-style example client/python/examples/pendulum_drift.py headless (matplotlib's
Agg backend) against a real tether-server, and checks the figure and the numbers it reports:
with projection the position residual stays at the projection tolerance, without it drifts.

Run by ctest as:  VENV/bin/python example_test.py --server TETHER_SERVER --example FILE --output DIR
"""
import argparse
import os
import subprocess
import sys

from support import ServerProcess

# The coupled projection keeps ‖Φ‖∞ ≤ 1e-12·l² ≈ 6e-12 (l = 2.5 m); 1e-9 leaves room for the
# scaling convention. RK4 with h = 0.01 s and no projection drifts by far more than 1e-6 over
# 50 s (chapter 11's observation; the CLI's end-to-end test sees ~1e-5 already at 10 s).
PROJECTED_BOUND = 1e-9
UNPROJECTED_FLOOR = 1e-6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--example", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    figure = os.path.join(args.output, "pendulum_drift.png")
    if os.path.exists(figure):
        os.remove(figure)
    server = ServerProcess(args.server)
    try:
        env = dict(os.environ, TETHER_SERVER=server.address, MPLBACKEND="Agg")
        run = subprocess.run([sys.executable, args.example, figure], capture_output=True, text=True,
                             env=env, timeout=300, cwd=args.output)
    finally:
        server.stop()
    print(run.stdout)
    if run.returncode != 0:
        sys.exit(f"the example exited {run.returncode}:\n{run.stderr}")
    residuals = {}
    for line in run.stdout.splitlines():
        for name in ("projection (coupled)", "Baumgarte", "none"):
            if line.startswith(name):
                residuals[name] = float(line[len(name):].split()[0])
    checks = [
        (os.path.getsize(figure) > 10_000 if os.path.exists(figure) else False,
         f"{figure} was not written (or is implausibly small)"),
        (set(residuals) == {"projection (coupled)", "Baumgarte", "none"},
         f"the example's table lacks a run: {residuals}"),
        (residuals.get("projection (coupled)", 1.0) <= PROJECTED_BOUND,
         f"projected residual {residuals.get('projection (coupled)')} > {PROJECTED_BOUND}"),
        (residuals.get("none", 0.0) >= UNPROJECTED_FLOOR,
         f"unprojected residual {residuals.get('none')} < {UNPROJECTED_FLOOR}: no drift shown"),
    ]
    failures = [message for ok, message in checks if not ok]
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
