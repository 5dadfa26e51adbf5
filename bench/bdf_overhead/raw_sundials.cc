#include "bdf_overhead/raw_sundials.h"

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <ida/ida.h>
#include <ida/ida_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>

namespace tether::bench {
namespace {

using integrate::MatrixEntry;
using integrate::OdeSystem;

// What the callbacks see: the system, its Jacobian's values, M's diagonal.
struct Problem {
  OdeSystem* system = nullptr;
  std::vector<double> jacobian;
  std::vector<double> mass;  // diagonal, IDA only
  long evaluations = 0;
};

std::span<double> Elements(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<std::size_t>(N_VGetLength(v))};
}

// J ← scale·∂F/∂x on the dense matrix (column-major), plus c_j·M on its diagonal.
int FillJacobian(Problem& p, double t, N_Vector x, double scale, double c_j, SUNMatrix j) {
  if (!p.system->Jacobian(t, Elements(x), p.jacobian)) return 1;
  SUNMatZero(j);
  double* data = SUNDenseMatrix_Data(j);
  const auto n = static_cast<std::size_t>(SUNDenseMatrix_Rows(j));
  const std::span<const MatrixEntry> pattern = p.system->jacobian_pattern();
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    data[std::size_t{pattern[k].col} * n + pattern[k].row] = scale * p.jacobian[k];
  }
  for (std::size_t i = 0; i < p.mass.size(); ++i) data[i * n + i] += c_j * p.mass[i];
  return 0;
}

int CvodeRhs(double t, N_Vector x, N_Vector f, void* data) {
  auto& p = *static_cast<Problem*>(data);
  ++p.evaluations;
  return p.system->Evaluate(t, Elements(x), Elements(f)) ? 0 : 1;
}

int CvodeJacobian(double t, N_Vector x, N_Vector, SUNMatrix j, void* data, N_Vector, N_Vector,
                  N_Vector) {
  return FillJacobian(*static_cast<Problem*>(data), t, x, 1.0, 0.0, j);
}

int IdaResidual(double t, N_Vector x, N_Vector xp, N_Vector r, void* data) {
  auto& p = *static_cast<Problem*>(data);
  ++p.evaluations;
  const std::span<double> g = Elements(r);
  if (!p.system->Evaluate(t, Elements(x), g)) return 1;
  const std::span<const double> d = Elements(xp);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = p.mass[i] * d[i] - g[i];  // M x' − F
  return 0;
}

int IdaJacobian(double t, double c_j, N_Vector x, N_Vector, N_Vector, SUNMatrix j, void* data,
                N_Vector, N_Vector, N_Vector) {
  return FillJacobian(*static_cast<Problem*>(data), t, x, -1.0, c_j, j);
}

// The SUNDIALS objects of one run, released in reverse order.
struct Objects {
  SUNContext context = nullptr;
  N_Vector x = nullptr, xp = nullptr, atol = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  void* cvode = nullptr;
  void* ida = nullptr;
  ~Objects() {
    if (cvode != nullptr) CVodeFree(&cvode);
    if (ida != nullptr) IDAFree(&ida);
    if (solver != nullptr) SUNLinSolFree(solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    for (N_Vector v : {atol, xp, x}) {
      if (v != nullptr) N_VDestroy(v);
    }
    if (context != nullptr) SUNContext_Free(&context);
  }
};

void Prepare(OdeSystem& system, std::span<const double> x0, const RawOptions& options,
             Problem* p, Objects* s) {
  const auto n = static_cast<sunindextype>(x0.size());
  p->system = &system;
  p->jacobian.assign(system.jacobian_pattern().size(), 0.0);
  SUNContext_Create(nullptr, &s->context);
  s->x = N_VNew_Serial(n, s->context);
  s->xp = N_VNew_Serial(n, s->context);
  std::copy(x0.begin(), x0.end(), Elements(s->x).begin());
  if (!options.atol_per_component.empty()) {
    s->atol = N_VNew_Serial(n, s->context);
    std::copy(options.atol_per_component.begin(), options.atol_per_component.end(),
              Elements(s->atol).begin());
  }
  s->matrix = SUNDenseMatrix(n, n, s->context);
  s->solver = SUNLinSol_Dense(s->x, s->matrix, s->context);
}

std::string Failure(const char* integrator, int flag) {
  return std::string(integrator) + " failed with flag " + std::to_string(flag);
}

}  // namespace

RawRun RunRawCvode(OdeSystem& system, std::span<const double> x0, double t_end,
                   const RawOptions& options) {
  Problem p;
  Objects s;
  Prepare(system, x0, options, &p, &s);
  s.cvode = CVodeCreate(CV_BDF, s.context);
  CVodeInit(s.cvode, &CvodeRhs, 0.0, s.x);
  CVodeSetUserData(s.cvode, &p);
  if (s.atol != nullptr) {
    CVodeSVtolerances(s.cvode, options.rtol, s.atol);
  } else {
    CVodeSStolerances(s.cvode, options.rtol, options.atol);
  }
  CVodeSetMaxOrd(s.cvode, 5);
  CVodeSetMaxErrTestFails(s.cvode, options.max_failures);
  CVodeSetMaxConvFails(s.cvode, options.max_failures);
  CVodeSetMaxNumSteps(s.cvode, -1);  // unlimited: the whole run is one call
  CVodeSetMinStep(s.cvode, options.min_step);
  CVodeSetLinearSolver(s.cvode, s.solver, s.matrix);
  CVodeSetJacFn(s.cvode, &CvodeJacobian);
  CVodeSetStopTime(s.cvode, t_end);
  double t = 0.0;
  RawRun run;
  const int flag = CVode(s.cvode, t_end, s.x, &t, CV_NORMAL);
  if (flag < 0) run.error = Failure("CVODE", flag);
  CVodeGetNumSteps(s.cvode, &run.steps);
  run.evaluations = p.evaluations;
  const std::span<const double> x = Elements(s.x);
  run.x.assign(x.begin(), x.end());
  return run;
}

RawRun RunRawIda(OdeSystem& system, std::span<const double> x0, double t_end,
                 const RawOptions& options) {
  Problem p;
  Objects s;
  Prepare(system, x0, options, &p, &s);
  p.mass.assign(x0.size(), 0.0);
  const std::span<const MatrixEntry> mass = system.mass_pattern();
  for (std::size_t k = 0; k < mass.size(); ++k) p.mass[mass[k].row] = system.mass_values()[k];
  const std::span<double> xp = Elements(s.xp);
  system.Evaluate(0.0, x0, xp);  // x'_i = F_i / M_ii on the differential components
  for (std::size_t i = 0; i < xp.size(); ++i) xp[i] = p.mass[i] != 0.0 ? xp[i] / p.mass[i] : 0.0;
  s.ida = IDACreate(s.context);
  IDAInit(s.ida, &IdaResidual, 0.0, s.x, s.xp);
  IDASetUserData(s.ida, &p);
  if (s.atol != nullptr) {
    IDASVtolerances(s.ida, options.rtol, s.atol);
  } else {
    IDASStolerances(s.ida, options.rtol, options.atol);
  }
  IDASetMaxOrd(s.ida, 5);
  IDASetMaxErrTestFails(s.ida, options.max_failures);
  IDASetMaxConvFails(s.ida, options.max_failures);
  IDASetMaxNumSteps(s.ida, -1);
  IDASetMinStep(s.ida, options.min_step);
  IDASetLinearSolver(s.ida, s.solver, s.matrix);
  IDASetLinearSolutionScaling(s.ida, SUNFALSE);
  IDASetJacFn(s.ida, &IdaJacobian);
  IDASetStopTime(s.ida, t_end);
  double t = 0.0;
  RawRun run;
  const int flag = IDASolve(s.ida, t_end, &t, s.x, s.xp, IDA_NORMAL);
  if (flag < 0) run.error = Failure("IDA", flag);
  IDAGetNumSteps(s.ida, &run.steps);
  run.evaluations = p.evaluations + 1;  // with the start's F, as bdf counts it
  const std::span<const double> x = Elements(s.x);
  run.x.assign(x.begin(), x.end());
  return run;
}

}  // namespace tether::bench
