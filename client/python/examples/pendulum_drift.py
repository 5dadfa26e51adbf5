# %% [markdown]
# # The pendulum's drift, with and without projection
#
# The seed pendulum is a DAE: positions must stay on the circle x² + y² = l². Integrate its
# reduced ODE with an ordinary scheme and nothing keeps them there: the constraint residual
# ‖Φ‖ grows step by step (the "drift" of chapter 11). tether's projection pulls every step back
# onto the constraints; Baumgarte stabilization only damps the drift.
#
# Run it as a notebook (each `# %%` is a cell in VS Code or Jupytext) or as a script:
#
#     TETHER_SERVER=127.0.0.1:50051 python3 pendulum_drift.py [OUTPUT.png]
#
# It needs a running server (`tether serve` or tether-server) and matplotlib (Debian's
# python3-matplotlib).

# %%
import sys

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script draws into a file, no display needed
import matplotlib.pyplot as plt

import tether

client = tether.Client()  # $TETHER_SERVER, else 127.0.0.1:50051
output = sys.argv[1] if len(sys.argv) > 1 else "pendulum_drift.png"

# %% [markdown]
# Three runs of 50 s with the same fixed-step RK4 (h = 0.01 s), differing only in what happens
# after each step.

# %%
settings = dict(t_end=50, method="rk4", step=0.01, output_interval=0.05)
runs = {
    "projection (coupled)": client.simulate("pendulum", projection="coupled", **settings),
    "Baumgarte": client.simulate("pendulum", projection="baumgarte", **settings),
    "none": client.simulate("pendulum", projection="none", **settings),
}
for name, result in runs.items():
    result.check()  # raises if a run did not reach t_end

# %% [markdown]
# The residual of the position constraint on a log axis, and the energy E(t) − E(0): a drifting
# pendulum also gains or loses energy it should conserve.

# %%
fig, (residual_axis, energy_axis) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
for name, result in runs.items():
    df = result.df
    # A residual of exactly 0 has no logarithm; 1e-17 is below every double-precision residual.
    residual_axis.semilogy(df.index, df["residual_position"].clip(lower=1e-17), label=name)
    energy_axis.plot(df.index, df["energy"] - df["energy"].iloc[0], label=name)
units = runs["none"].df.attrs["units"]
residual_axis.set(xlabel="t [s]", ylabel="‖Φ‖∞  (x² + y² − l²)",
                  title="position constraint residual")
energy_axis.set(xlabel="t [s]", ylabel=f"E − E(0) [{units.get('energy') or 'J'}]",
                title="energy drift")
residual_axis.legend()
fig.savefig(output, dpi=100)
print(f"wrote {output}")

# %%
print(f"{'run':22}  {'max residual':>12}  {'final |E - E0|':>14}")
for name, result in runs.items():
    df = result.df
    drift = abs(df["energy"].iloc[-1] - df["energy"].iloc[0])
    print(f"{name:22}  {df['residual_position'].max():12.3e}  {drift:14.3e}")
