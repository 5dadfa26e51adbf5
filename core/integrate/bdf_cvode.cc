#include "integrate/bdf_cvode.h"

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <cvode/cvode_proj.h>

#include <algorithm>
#include <cstdlib>

namespace tether::integrate {

namespace {

// Writes "SUNDIALS rejected <call>" to *why unless flag is CV_SUCCESS.
bool Check(int flag, const char* call, std::string* why) {
  if (flag == CV_SUCCESS) return true;
  char* name = CVodeGetReturnFlagName(flag);
  *why = std::string("SUNDIALS rejected ") + call + " (" + name + ")";
  std::free(name);
  return false;
}

}  // namespace

CvodeEngine::CvodeEngine(const OdeSystem& system, const StepperOptions& options)
    : BdfEngine(system, options) {}

CvodeEngine::~CvodeEngine() {
  if (cvode_ != nullptr) CVodeFree(&cvode_);
}

std::unique_ptr<CvodeEngine> CvodeEngine::Create(const OdeSystem& system,
                                                 const StepperOptions& options,
                                                 std::string* why) {
  std::unique_ptr<CvodeEngine> engine(new CvodeEngine(system, options));
  if (!engine->SetUp(system, why)) return nullptr;
  return engine;
}

bool CvodeEngine::SetUp(const OdeSystem& system, std::string* why) {
  const auto n = static_cast<sunindextype>(size());
  if (context() == nullptr) {
    *why = "SUNDIALS could not create its context";
    return false;
  }
  x_.reset(N_VNew_Serial(n, context()));
  work_.reset(N_VNew_Serial(n, context()));
  weights_.reset(N_VNew_Serial(n, context()));
  cvode_ = CVodeCreate(CV_BDF, context());
  if (!x_ || !work_ || !weights_ || cvode_ == nullptr) {
    *why = "SUNDIALS could not allocate CVODE's memory";
    return false;
  }
  N_VConst(0.0, x_.get());
  if (!MakeAbsoluteTolerances(&atol_, why)) return false;
  const StepperOptions& o = options();
  // The initial condition is set by Restart (CVodeReInit) before the first step.
  if (!Check(CVodeInit(cvode_, &Rhs, 0.0, x_.get()), "CVodeInit", why)) return false;
  if (!Check(CVodeSetUserData(cvode_, this), "CVodeSetUserData", why)) return false;
  if (!Check(CVodeSetErrHandlerFn(cvode_, &OnError, this), "CVodeSetErrHandlerFn", why)) {
    return false;
  }
  const int tolerances = atol_ ? CVodeSVtolerances(cvode_, o.rtol, atol_.get())
                               : CVodeSStolerances(cvode_, o.rtol, o.atol);
  if (!Check(tolerances, "the tolerances", why)) return false;
  if (!Check(CVodeSetMaxOrd(cvode_, 5), "CVodeSetMaxOrd", why)) return false;
  if (!Check(CVodeSetMaxStep(cvode_, o.max_step), "CVodeSetMaxStep", why)) return false;
  if (!Check(CVodeSetMaxErrTestFails(cvode_, o.max_rejections), "CVodeSetMaxErrTestFails",
             why) ||
      !Check(CVodeSetMaxConvFails(cvode_, o.max_rejections), "CVodeSetMaxConvFails", why)) {
    return false;
  }

  const std::span<const MatrixEntry> pattern = system.jacobian_pattern();
  const BdfLinearSolver::Kind kind = BdfLinearSolver::Choose(system);
  const std::span<const MatrixEntry> patterns[] = {pattern};
  newton_ = BdfLinearSolver::Create(kind, size(), patterns, x_.get(), context(), why);
  if (!newton_) return false;
  if (!Check(CVodeSetLinearSolver(cvode_, newton_->solver(), newton_->matrix()),
             "CVodeSetLinearSolver", why)) {
    return false;
  }
  if (!pattern.empty()) {
    jacobian_values_.assign(pattern.size(), 0.0);
    if (!Check(CVodeSetJacFn(cvode_, &Jacobian), "CVodeSetJacFn", why)) return false;
  }  // else CVODE's dense difference quotients

  if (system.has_projection()) {
    projected_.assign(size(), 0.0);
    if (!Check(CVodeSetProjFn(cvode_, &Projection), "CVodeSetProjFn", why) ||
        !Check(CVodeSetMaxNumProjFails(cvode_, o.max_rejections), "CVodeSetMaxNumProjFails",
               why)) {
      return false;
    }
  }
  return true;
}

int CvodeEngine::Restart(double t, std::span<const double> x, double initial_step) {
  std::copy(x.begin(), x.end(), sundials::Elements(x_.get()).begin());
  const int flag = CVodeSetInitStep(cvode_, initial_step > 0.0 ? initial_step : options().step);
  return flag == CV_SUCCESS ? CVodeReInit(cvode_, t, x_.get()) : flag;
}

int CvodeEngine::Advance(double t_stop, double h_min, double* t_reached,
                         std::span<double> x_new) {
  int flag = CVodeSetMinStep(cvode_, h_min);
  if (flag == CV_SUCCESS) flag = CVodeSetStopTime(cvode_, t_stop);
  if (flag == CV_SUCCESS) flag = CVode(cvode_, t_stop, x_.get(), t_reached, CV_ONE_STEP);
  if (flag >= 0) {
    const std::span<const double> x = sundials::Elements(x_.get());
    std::copy(x.begin(), x.end(), x_new.begin());
  }
  return flag;
}

bool CvodeEngine::Derivative(double t, int k, std::span<double> out) const {
  if (CVodeGetDky(cvode_, t, k, work_.get()) != CV_SUCCESS) return false;
  const std::span<const double> d = sundials::Elements(work_.get());
  std::copy(d.begin(), d.end(), out.begin());
  return true;
}

int CvodeEngine::last_order() const {
  int q = 0;
  CVodeGetLastOrder(cvode_, &q);
  return q;
}

double CvodeEngine::next_step() const {
  double h = 0.0;
  CVodeGetCurrentStep(cvode_, &h);
  return h;
}

double CvodeEngine::error_norm() const {
  // After a step, the weights are still those its error test used (CVODE recomputes them
  // at the start of the next one).
  if (CVodeGetEstLocalErrors(cvode_, work_.get()) != CV_SUCCESS ||
      CVodeGetErrWeights(cvode_, weights_.get()) != CV_SUCCESS) {
    return 0.0;
  }
  return N_VWrmsNorm(work_.get(), weights_.get());
}

BdfCounters CvodeEngine::counters() const {
  BdfCounters c;
  long lin_evaluations = 0;
  CVodeGetNumSteps(cvode_, &c.steps);
  CVodeGetNumRhsEvals(cvode_, &c.evaluations);
  CVodeGetNumLinRhsEvals(cvode_, &lin_evaluations);
  c.evaluations += lin_evaluations;
  CVodeGetNumErrTestFails(cvode_, &c.error_test_failures);
  CVodeGetNumStepSolveFails(cvode_, &c.solve_failures);
  if (!projected_.empty()) CVodeGetNumProjFails(cvode_, &c.projection_failures);
  CVodeGetNumJacEvals(cvode_, &c.jacobians);
  CVodeGetNumLinSolvSetups(cvode_, &c.factorizations);
  CVodeGetNumNonlinSolvIters(cvode_, &c.newton_iterations);
  return c;
}

FlagMeaning CvodeEngine::Meaning(int flag) const {
  if (flag >= 0) return FlagMeaning::kSuccess;
  switch (flag) {
    case CV_TOO_MUCH_WORK:
    case CV_TOO_MUCH_ACC:
    case CV_ERR_FAILURE:
    case CV_CONV_FAILURE:
    case CV_TOO_CLOSE:
    case CV_LSETUP_FAIL:  // the Newton matrix could not be factored
    case CV_LSOLVE_FAIL:
      return FlagMeaning::kStepSize;
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
    case CV_PROJFUNC_FAIL:
    case CV_REPTD_PROJFUNC_ERR:
      return FlagMeaning::kCallback;
    default:
      return FlagMeaning::kSetup;
  }
}

std::string CvodeEngine::FlagName(int flag) const {
  char* name = CVodeGetReturnFlagName(flag);
  std::string text = name;
  std::free(name);
  return text;
}

int CvodeEngine::Rhs(double t, N_Vector x, N_Vector dxdt, void* engine) {
  auto& self = *static_cast<CvodeEngine*>(engine);
  return self.EvaluateF(t, sundials::Elements(x), sundials::Elements(dxdt));
}

int CvodeEngine::Jacobian(double t, N_Vector x, N_Vector /*f*/, SUNMatrix jacobian,
                          void* engine, N_Vector, N_Vector, N_Vector) {
  auto& self = *static_cast<CvodeEngine*>(engine);
  if (const int failed = self.EvaluateJacobian(t, sundials::Elements(x), self.jacobian_values_)) {
    return failed;
  }
  // J ← ∂F/∂x on its pattern; the structural zeros (and the sparse diagonal) stay 0.
  const std::span<double> values = self.newton_->Clear(jacobian);
  const std::span<const std::size_t> slots = self.newton_->slots(0);
  for (std::size_t k = 0; k < slots.size(); ++k) values[slots[k]] = self.jacobian_values_[k];
  return 0;
}

int CvodeEngine::Projection(double t, N_Vector x, N_Vector correction, double /*tolerance*/,
                            N_Vector error, void* engine) {
  auto& self = *static_cast<CvodeEngine*>(engine);
  const std::span<const double> unprojected = sundials::Elements(x);
  std::copy(unprojected.begin(), unprojected.end(), self.projected_.begin());
  const std::span<double> e = error != nullptr ? sundials::Elements(error) : std::span<double>();
  if (const int failed = self.Project(t, self.projected_, e)) return failed;
  // correction ← P(x) − x: CVODE adds it to x and to its history.
  const std::span<double> c = sundials::Elements(correction);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = self.projected_[i] - unprojected[i];
  return 0;
}

}  // namespace tether::integrate
