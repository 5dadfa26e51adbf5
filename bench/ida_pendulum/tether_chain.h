// tether's side of the work–precision comparison: the chain's spec (ChainSpecJson) run through
// simulate::Simulation with a given method and tolerance, coupled projection, the same output
// grid as IDA.
#pragma once

#include <memory>
#include <string>

#include <Eigen/Dense>

#include "tether/model/model.h"

namespace tether::bench {

struct TetherRunOptions {
  std::string method = "dp5";  // integrate::StepperNames(): "dp5", "dop853", "rk4"
  double tolerance = 1e-8;     // rtol = atol (adaptive methods), > 0
  double step = 0.0;           // fixed step [s] ("rk4"); 0 = automatic first step otherwise
  double t_end = 50.0;         // [s]
  int outputs = 1000;          // output grid t_end / outputs
  double projection_tolerance = 1e-12;  // simulate::Options::projection_tolerance (its default)
};

struct TetherRun {
  bool ok = false;
  std::string message;
  Eigen::VectorXd q_end, v_end;
  double max_residual = 0.0;  // largest ‖Φ‖∞ over the emitted samples
  long steps = 0;
  double create_cpu_seconds = 0.0;  // Simulation::Create (reduction, compilation, init)
};

// Parses a spec once; nullptr and the problems in `why` if it does not validate.
std::shared_ptr<const model::Model> ParseChainModel(const std::string& spec, std::string* why);

// One run of a mechanical model; the end state is read from the columns named after its states.
TetherRun RunTether(const std::shared_ptr<const model::Model>& model,
                    const TetherRunOptions& options);

}  // namespace tether::bench
