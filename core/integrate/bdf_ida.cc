#include "integrate/bdf_ida.h"

#include <ida/ida.h>
#include <ida/ida_ls.h>

#include <algorithm>
#include <cstdlib>

#include "integrate/bdf.h"

namespace tether::integrate {

namespace {

bool Check(int flag, const char* call, std::string* why) {
  if (flag == IDA_SUCCESS) return true;
  char* name = IDAGetReturnFlagName(flag);
  *why = std::string("SUNDIALS rejected ") + call + " (" + name + ")";
  std::free(name);
  return false;
}

// The sorted distinct values of `key` over M's entries with a non-zero value.
template <typename Key>
std::vector<std::uint32_t> NonZeroLines(std::span<const MatrixEntry> pattern,
                                        std::span<const double> values, Key key) {
  std::vector<std::uint32_t> lines;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (values[k] != 0.0) lines.push_back(key(pattern[k]));
  }
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

std::uint32_t IndexIn(const std::vector<std::uint32_t>& lines, std::uint32_t line) {
  return static_cast<std::uint32_t>(std::lower_bound(lines.begin(), lines.end(), line) -
                                    lines.begin());
}

}  // namespace

IdaEngine::IdaEngine(const OdeSystem& system, const StepperOptions& options)
    : BdfEngine(system, options),
      mass_pattern_(system.mass_pattern().begin(), system.mass_pattern().end()),
      mass_values_(system.mass_values().begin(), system.mass_values().end()),
      projection_(system.has_projection()) {}

IdaEngine::~IdaEngine() {
  if (ida_ != nullptr) IDAFree(&ida_);
}

std::unique_ptr<IdaEngine> IdaEngine::Create(const OdeSystem& system,
                                             const StepperOptions& options, std::string* why) {
  std::unique_ptr<IdaEngine> engine(new IdaEngine(system, options));
  if (!engine->SetUp(system, why)) return nullptr;
  return engine;
}

bool IdaEngine::SetUp(const OdeSystem& system, std::string* why) {
  const auto n = static_cast<sunindextype>(size());
  if (context() == nullptr) {
    *why = "SUNDIALS could not create its context";
    return false;
  }
  x_.reset(N_VNew_Serial(n, context()));
  dxdt_.reset(N_VNew_Serial(n, context()));
  work_.reset(N_VNew_Serial(n, context()));
  weights_.reset(N_VNew_Serial(n, context()));
  ida_ = IDACreate(context());
  if (!x_ || !dxdt_ || !work_ || !weights_ || ida_ == nullptr) {
    *why = "SUNDIALS could not allocate IDA's memory";
    return false;
  }
  N_VConst(0.0, x_.get());
  N_VConst(0.0, dxdt_.get());
  if (!SetUpMassBlock(why)) return false;
  // The initial condition is set by Restart (IDAReInit) before the first step.
  if (!Check(IDAInit(ida_, &Residual, 0.0, x_.get(), dxdt_.get()), "IDAInit", why)) return false;
  if (!Check(IDASetUserData(ida_, this), "IDASetUserData", why)) return false;
  if (!Check(IDASetErrHandlerFn(ida_, &OnError, this), "IDASetErrHandlerFn", why)) return false;
  if (!SetUpErrorControl(system, why)) return false;

  const std::span<const MatrixEntry> jacobian = system.jacobian_pattern();
  const std::span<const MatrixEntry> patterns[] = {jacobian, mass_pattern_};
  // Without a symbolic Jacobian, IDA's difference quotients fill a dense matrix unaided.
  const std::span<const std::span<const MatrixEntry>> used =
      jacobian.empty() ? std::span<const std::span<const MatrixEntry>>() : patterns;
  newton_ = BdfLinearSolver::Create(BdfLinearSolver::Choose(system), size(), used, x_.get(),
                                    context(), why);
  if (!newton_) return false;
  if (!Check(IDASetLinearSolver(ida_, newton_->solver(), newton_->matrix()),
             "IDASetLinearSolver", why)) {
    return false;
  }
  // Newton corrections as solved (bdf.h): every iterate satisfies linear equations exactly.
  if (!Check(IDASetLinearSolutionScaling(ida_, SUNFALSE), "IDASetLinearSolutionScaling", why)) {
    return false;
  }
  if (!jacobian.empty()) {
    jacobian_values_.assign(jacobian.size(), 0.0);
    if (!Check(IDASetJacFn(ida_, &Jacobian), "IDASetJacFn", why)) return false;
  }
  return true;
}

bool IdaEngine::SetUpErrorControl(const OdeSystem& system, std::string* why) {
  const StepperOptions& o = options();
  if (!MakeAbsoluteTolerances(&atol_, why)) return false;
  const int tolerances = atol_ ? IDASVtolerances(ida_, o.rtol, atol_.get())
                               : IDASStolerances(ida_, o.rtol, o.atol);
  if (!Check(tolerances, "the tolerances", why)) return false;
  if (!Check(IDASetMaxOrd(ida_, 5), "IDASetMaxOrd", why) ||
      !Check(IDASetMaxStep(ida_, o.max_step), "IDASetMaxStep", why) ||
      !Check(IDASetMaxErrTestFails(ida_, o.max_rejections), "IDASetMaxErrTestFails", why) ||
      !Check(IDASetMaxConvFails(ida_, o.max_rejections), "IDASetMaxConvFails", why)) {
    return false;
  }
  // Index-2/3 components and the derivatives kept as unknowns (x_k' = x_i, OdeSystem::
  // derivative_of) leave the error test (IDA's suppressalg masks the id = 0 ones; the id
  // vector has no other use here, as IDACalcIC is not called). An error δ in such an x_i
  // moves x_k by about h·δ, which x_k's own test sees; tested themselves, a derivative that
  // jumps (a kink in an input: the NAND gate's pulses) fails every step down to the floor.
  const std::span<const std::uint8_t> index = system.variable_index();
  const std::span<const std::uint32_t> derivative_of = system.derivative_of();
  const auto suppressed = [&](std::size_t i) {
    return (!index.empty() && index[i] >= 2) ||
           (!derivative_of.empty() && derivative_of[i] != i);
  };
  std::size_t count = 0;
  for (std::size_t i = 0; i < size(); ++i) {
    if (suppressed(i)) ++count;
  }
  if (count == 0) return true;
  id_.reset(N_VNew_Serial(static_cast<sunindextype>(size()), context()));
  if (!id_) {
    *why = "SUNDIALS could not allocate IDA's id vector";
    return false;
  }
  const std::span<double> id = sundials::Elements(id_.get());
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = suppressed(i) ? 0.0 : 1.0;
  return Check(IDASetId(ida_, id_.get()), "IDASetId", why) &&
         Check(IDASetSuppressAlg(ida_, SUNTRUE), "IDASetSuppressAlg", why);
}

bool IdaEngine::SetUpMassBlock(std::string* why) {
  auto row = [](const MatrixEntry& e) { return e.row; };
  auto col = [](const MatrixEntry& e) { return e.col; };
  mass_rows_ = NonZeroLines(std::span<const MatrixEntry>(mass_pattern_), mass_values_, row);
  mass_columns_ = NonZeroLines(std::span<const MatrixEntry>(mass_pattern_), mass_values_, col);
  if (mass_rows_.empty() && mass_columns_.empty()) return true;  // M = 0: x' = 0 at a start
  if (mass_rows_.size() != mass_columns_.size()) {
    *why = "bdf (IDA) needs M's non-zero rows and columns to form a square regular block (the "
           "semi-explicit or mass-matrix form of an index-1 DAE); M has " +
           std::to_string(mass_rows_.size()) + " non-zero rows and " +
           std::to_string(mass_columns_.size()) + " non-zero columns";
    return false;
  }
  std::vector<MatrixEntry> block;
  std::vector<double> block_values;
  for (std::size_t k = 0; k < mass_pattern_.size(); ++k) {
    if (mass_values_[k] == 0.0) continue;
    block.push_back({IndexIn(mass_rows_, mass_pattern_[k].row),
                     IndexIn(mass_columns_, mass_pattern_[k].col)});
    block_values.push_back(mass_values_[k]);
  }
  const std::size_t m = mass_rows_.size();
  block_rhs_.reset(N_VNew_Serial(static_cast<sunindextype>(m), context()));
  block_solution_.reset(N_VNew_Serial(static_cast<sunindextype>(m), context()));
  if (!block_rhs_ || !block_solution_) {
    *why = "SUNDIALS could not allocate the mass block's vectors";
    return false;
  }
  const BdfLinearSolver::Kind kind = m >= BdfLinearSolver::kSparseFromSize
                                         ? BdfLinearSolver::Kind::kSparse
                                         : BdfLinearSolver::Kind::kDense;
  const std::span<const MatrixEntry> patterns[] = {block};
  mass_block_ = BdfLinearSolver::Create(kind, m, patterns, block_rhs_.get(), context(), why);
  if (!mass_block_) return false;
  const std::span<double> values = mass_block_->Clear(mass_block_->matrix());
  const std::span<const std::size_t> slots = mass_block_->slots(0);
  for (std::size_t k = 0; k < slots.size(); ++k) values[slots[k]] += block_values[k];
  if (SUNLinSolInitialize(mass_block_->solver()) != 0 ||
      SUNLinSolSetup(mass_block_->solver(), mass_block_->matrix()) != 0) {
    *why = "bdf (IDA) needs M's non-zero block (" + std::to_string(m) + " × " +
           std::to_string(m) + ") to be regular; its LU factorization failed";
    return false;
  }
  return true;
}

int IdaEngine::Restart(double t, std::span<const double> x, double initial_step) {
  const std::span<double> y = sundials::Elements(x_.get());
  std::copy(x.begin(), x.end(), y.begin());
  const std::span<double> f = sundials::Elements(work_.get());
  start_evaluations_ = 1;
  if (EvaluateF(t, y, f) != 0) return kStartFailed;
  // M_RD x'_D = F_R, x'_A = 0.
  const std::span<double> dxdt = sundials::Elements(dxdt_.get());
  std::fill(dxdt.begin(), dxdt.end(), 0.0);
  if (mass_block_) {
    const std::span<double> rhs = sundials::Elements(block_rhs_.get());
    for (std::size_t r = 0; r < mass_rows_.size(); ++r) rhs[r] = f[mass_rows_[r]];
    if (SUNLinSolSolve(mass_block_->solver(), mass_block_->matrix(), block_solution_.get(),
                       block_rhs_.get(), 0.0) != 0) {
      return IDA_LSOLVE_FAIL;
    }
    const std::span<const double> solution = sundials::Elements(block_solution_.get());
    for (std::size_t d = 0; d < mass_columns_.size(); ++d) dxdt[mass_columns_[d]] = solution[d];
  }
  resumable_ = true;
  const int flag = IDASetInitStep(ida_, initial_step > 0.0 ? initial_step : options().step);
  return flag == IDA_SUCCESS ? IDAReInit(ida_, t, x_.get(), dxdt_.get()) : flag;
}

int IdaEngine::Advance(double t_stop, double h_min, double* t_reached,
                       std::span<double> x_new) {
  int flag = IDASetMinStep(ida_, h_min);
  if (flag == IDA_SUCCESS) flag = IDASetStopTime(ida_, t_stop);
  if (flag == IDA_SUCCESS) {
    flag = IDASolve(ida_, t_stop, t_reached, x_.get(), dxdt_.get(), IDA_ONE_STEP);
  }
  if (flag < 0) return flag;
  const std::span<const double> raw = sundials::Elements(x_.get());
  std::copy(raw.begin(), raw.end(), x_new.begin());
  if (!projection_) return flag;
  if (Project(*t_reached, x_new, {}) != 0) return kProjectionFailed;
  // How far the projection moved IDA's state, in IDA's error norm (the step's weights).
  const std::span<double> moved = sundials::Elements(work_.get());
  for (std::size_t i = 0; i < moved.size(); ++i) moved[i] = x_new[i] - raw[i];
  IDAGetErrWeights(ida_, weights_.get());
  resumable_ = N_VWrmsNorm(work_.get(), weights_.get()) <= Bdf::kIdaResumeDistance;
  return flag;
}

bool IdaEngine::Derivative(double t, int k, std::span<double> out) const {
  if (IDAGetDky(ida_, t, k, work_.get()) != IDA_SUCCESS) return false;
  const std::span<const double> d = sundials::Elements(work_.get());
  std::copy(d.begin(), d.end(), out.begin());
  return true;
}

int IdaEngine::last_order() const {
  int k = 0;
  IDAGetLastOrder(ida_, &k);
  return k;
}

double IdaEngine::next_step() const {
  double h = 0.0;
  IDAGetCurrentStep(ida_, &h);
  return h;
}

double IdaEngine::error_norm() const {
  if (IDAGetEstLocalErrors(ida_, work_.get()) != IDA_SUCCESS ||
      IDAGetErrWeights(ida_, weights_.get()) != IDA_SUCCESS) {
    return 0.0;
  }
  return id_ ? N_VWrmsNormMask(work_.get(), weights_.get(), id_.get())
             : N_VWrmsNorm(work_.get(), weights_.get());
}

BdfCounters IdaEngine::counters() const {
  BdfCounters c;
  long lin_evaluations = 0;
  IDAGetNumSteps(ida_, &c.steps);
  IDAGetNumResEvals(ida_, &c.evaluations);
  IDAGetNumLinResEvals(ida_, &lin_evaluations);
  c.evaluations += lin_evaluations + start_evaluations_;
  IDAGetNumErrTestFails(ida_, &c.error_test_failures);
  IDAGetNumStepSolveFails(ida_, &c.solve_failures);
  IDAGetNumJacEvals(ida_, &c.jacobians);
  IDAGetNumLinSolvSetups(ida_, &c.factorizations);
  IDAGetNumNonlinSolvIters(ida_, &c.newton_iterations);
  return c;
}

FlagMeaning IdaEngine::Meaning(int flag) const {
  if (flag >= 0) return FlagMeaning::kSuccess;
  switch (flag) {
    case IDA_TOO_MUCH_WORK:
    case IDA_TOO_MUCH_ACC:
    case IDA_ERR_FAIL:
    case IDA_CONV_FAIL:
    case IDA_LSETUP_FAIL:  // the Newton matrix could not be factored
    case IDA_LSOLVE_FAIL:
      return FlagMeaning::kStepSize;
    case IDA_RES_FAIL:
    case IDA_REP_RES_ERR:
    case kStartFailed:
      return FlagMeaning::kCallback;
    case kProjectionFailed:
      return FlagMeaning::kProjectionFailed;
    default:
      return FlagMeaning::kSetup;
  }
}

std::string IdaEngine::FlagName(int flag) const {
  if (flag == kStartFailed) return "F failed at the start state";
  if (flag == kProjectionFailed) return "the projection of IDA's step failed";
  char* name = IDAGetReturnFlagName(flag);
  std::string text = name;
  std::free(name);
  return text;
}

int IdaEngine::Residual(double t, N_Vector x, N_Vector dxdt, N_Vector residual, void* engine) {
  auto& self = *static_cast<IdaEngine*>(engine);
  const std::span<double> r = sundials::Elements(residual);
  if (const int failed = self.EvaluateF(t, sundials::Elements(x), r)) return failed;
  // G ← M x' − F
  for (double& value : r) value = -value;
  const std::span<const double> xp = sundials::Elements(dxdt);
  for (std::size_t k = 0; k < self.mass_pattern_.size(); ++k) {
    const MatrixEntry& e = self.mass_pattern_[k];
    r[e.row] += self.mass_values_[k] * xp[e.col];
  }
  return 0;
}

int IdaEngine::Jacobian(double t, double c_j, N_Vector x, N_Vector /*dxdt*/, N_Vector /*residual*/,
                        SUNMatrix jacobian, void* engine, N_Vector, N_Vector, N_Vector) {
  auto& self = *static_cast<IdaEngine*>(engine);
  if (const int failed = self.EvaluateJacobian(t, sundials::Elements(x), self.jacobian_values_)) {
    return failed;
  }
  // ∂G/∂x + c_j ∂G/∂x' = c_j M − ∂F/∂x
  const std::span<double> values = self.newton_->Clear(jacobian);
  const std::span<const std::size_t> f_slots = self.newton_->slots(0);
  for (std::size_t k = 0; k < f_slots.size(); ++k) values[f_slots[k]] -= self.jacobian_values_[k];
  const std::span<const std::size_t> m_slots = self.newton_->slots(1);
  for (std::size_t k = 0; k < m_slots.size(); ++k) {
    values[m_slots[k]] += c_j * self.mass_values_[k];
  }
  return 0;
}

}  // namespace tether::integrate
