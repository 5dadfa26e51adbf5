#include "ida_pendulum/ida_chain.h"

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <memory>

namespace tether::bench {
namespace {

// The residual and Jacobian see the problem through this block of user data.
struct Problem {
  const ChainKinematics* kinematics = nullptr;
  Eigen::Index n2 = 0;  // 2n: number of coordinates
  Eigen::Index m = 0;   // n: number of constraints
  // Scratch, sized once.
  Eigen::MatrixXd phi_q, phi_q_v, hessian;
  Eigen::VectorXd phi, h;
};

using Map = Eigen::Map<Eigen::VectorXd>;

int Residual(sunrealtype /*t*/, N_Vector yy, N_Vector yp, N_Vector rr, void* data) {
  auto& p = *static_cast<Problem*>(data);
  const Eigen::Index n2 = p.n2, m = p.m;
  const Map y(N_VGetArrayPointer(yy), 2 * n2 + 2 * m);
  const Map dy(N_VGetArrayPointer(yp), 2 * n2 + 2 * m);
  Map r(N_VGetArrayPointer(rr), 2 * n2 + 2 * m);
  const auto q = y.segment(0, n2), v = y.segment(n2, n2);
  const auto lambda = y.segment(2 * n2, m), mu = y.segment(2 * n2 + m, m);
  const ChainKinematics& k = *p.kinematics;
  k.PhiQ(q, &p.phi_q);
  k.Phi(q, &p.phi);
  k.H(q, v, &p.h);
  r.segment(0, n2) = dy.segment(0, n2) - v - p.phi_q.transpose() * mu;
  r.segment(n2, n2) = k.mass_diagonal().cwiseProduct(dy.segment(n2, n2)) -
                      p.phi_q.transpose() * lambda - k.force();
  r.segment(2 * n2, m) = p.phi;
  r.segment(2 * n2 + m, m) = p.h;
  return 0;
}

// J = ∂F/∂y + c_j ∂F/∂y', block by block (rows: the four residual groups of the header).
int Jacobian(sunrealtype /*t*/, sunrealtype cj, N_Vector yy, N_Vector /*yp*/, N_Vector /*rr*/,
             SUNMatrix jac, void* data, N_Vector, N_Vector, N_Vector) {
  auto& p = *static_cast<Problem*>(data);
  const Eigen::Index n2 = p.n2, m = p.m, size = 2 * n2 + 2 * m;
  const Map y(N_VGetArrayPointer(yy), size);
  const auto q = y.segment(0, n2), v = y.segment(n2, n2);
  const auto lambda = y.segment(2 * n2, m), mu = y.segment(2 * n2 + m, m);
  const ChainKinematics& k = *p.kinematics;
  // SUNDIALS dense matrices are column-major, as Eigen's default.
  Eigen::Map<Eigen::MatrixXd> j(SUNDenseMatrix_Data(jac), size, size);
  j.setZero();
  k.PhiQ(q, &p.phi_q);
  k.PhiQ(v, &p.phi_q_v);  // ∂(Φ_q v)/∂q, as Φ_q is linear in q
  const Eigen::Index V = n2, L = 2 * n2, U = 2 * n2 + m;
  k.PhiHessian(mu, &p.hessian);
  j.block(0, 0, n2, n2) = -p.hessian;
  j.block(0, 0, n2, n2).diagonal().array() += cj;
  j.block(0, V, n2, n2).diagonal().setConstant(-1.0);
  j.block(0, U, n2, m) = -p.phi_q.transpose();
  k.PhiHessian(lambda, &p.hessian);
  j.block(V, 0, n2, n2) = -p.hessian;
  j.block(V, V, n2, n2).diagonal() = cj * k.mass_diagonal();
  j.block(V, L, n2, m) = -p.phi_q.transpose();
  j.block(L, 0, m, n2) = p.phi_q;
  j.block(U, 0, m, n2) = p.phi_q_v;
  j.block(U, V, m, n2) = p.phi_q;
  return 0;
}

// Owners of the SUNDIALS objects, released in reverse order of creation.
struct Sundials {
  SUNContext context = nullptr;
  N_Vector y = nullptr, yp = nullptr, id = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  void* ida = nullptr;

  ~Sundials() {
    if (ida != nullptr) IDAFree(&ida);
    if (solver != nullptr) SUNLinSolFree(solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    for (N_Vector vector : {id, yp, y}) {
      if (vector != nullptr) N_VDestroy(vector);
    }
    if (context != nullptr) SUNContext_Free(&context);
  }
};

std::string Failure(const char* call, int flag, double t) {
  return std::string(call) + " failed with " + IDAGetReturnFlagName(flag) + " at t = " +
         std::to_string(t);
}

}  // namespace

bool IdaOptions::IsValid(std::string* why) const {
  auto fail = [why](const std::string& text) {
    if (why != nullptr) *why = "IdaOptions::" + text;
    return false;
  };
  if (!(rtol > 0.0)) return fail("rtol = " + std::to_string(rtol) + "; must be > 0");
  if (!(atol > 0.0)) return fail("atol = " + std::to_string(atol) + "; must be > 0");
  if (!(t_end > 0.0)) return fail("t_end = " + std::to_string(t_end) + "; must be > 0");
  if (outputs < 1) return fail("outputs = " + std::to_string(outputs) + "; must be >= 1");
  if (max_steps < 1) return fail("max_steps = " + std::to_string(max_steps) + "; must be >= 1");
  if (!(initial_step >= 0.0)) {
    return fail("initial_step = " + std::to_string(initial_step) + "; must be >= 0");
  }
  return true;
}

IdaRun RunIda(const ChainKinematics& kinematics, const Eigen::VectorXd& q0,
              const Eigen::VectorXd& v0, const IdaOptions& options) {
  IdaRun run;
  if (!options.IsValid(&run.message)) return run;
  Problem problem;
  problem.kinematics = &kinematics;
  problem.n2 = q0.size();
  problem.m = q0.size() / 2;
  const Eigen::Index n2 = problem.n2, m = problem.m, size = 2 * n2 + 2 * m;

  Sundials s;
  if (SUNContext_Create(nullptr, &s.context) != 0) {
    run.message = "SUNContext_Create failed";
    return run;
  }
  s.y = N_VNew_Serial(size, s.context);
  s.yp = N_VNew_Serial(size, s.context);
  s.id = N_VNew_Serial(size, s.context);
  Map y(N_VGetArrayPointer(s.y), size), yp(N_VGetArrayPointer(s.yp), size);
  Map id(N_VGetArrayPointer(s.id), size);
  Eigen::VectorXd acceleration, lambda;
  kinematics.Accelerations(q0, v0, &acceleration, &lambda);
  y << q0, v0, lambda, Eigen::VectorXd::Zero(m);
  yp << v0, acceleration, Eigen::VectorXd::Zero(2 * m);
  id << Eigen::VectorXd::Ones(2 * n2), Eigen::VectorXd::Zero(2 * m);  // 1 differential, 0 algebraic

  s.ida = IDACreate(s.context);
  int flag = IDAInit(s.ida, Residual, 0.0, s.y, s.yp);
  if (flag == IDA_SUCCESS) flag = IDASStolerances(s.ida, options.rtol, options.atol);
  if (flag == IDA_SUCCESS) flag = IDASetUserData(s.ida, &problem);
  if (flag == IDA_SUCCESS) flag = IDASetId(s.ida, s.id);
  if (flag == IDA_SUCCESS) flag = IDASetSuppressAlg(s.ida, SUNTRUE);
  if (flag == IDA_SUCCESS) flag = IDASetMaxNumSteps(s.ida, options.max_steps);
  if (flag == IDA_SUCCESS && options.initial_step > 0.0) {
    flag = IDASetInitStep(s.ida, options.initial_step);
  }
  s.matrix = SUNDenseMatrix(size, size, s.context);
  s.solver = SUNLinSol_Dense(s.y, s.matrix, s.context);
  if (flag == IDA_SUCCESS) flag = IDASetLinearSolver(s.ida, s.solver, s.matrix);
  if (flag == IDA_SUCCESS) flag = IDASetJacFn(s.ida, Jacobian);
  if (flag != IDA_SUCCESS) {
    run.message = Failure("IDA setup", flag, 0.0);
    return run;
  }

  Eigen::VectorXd phi;
  for (int k = 1; k <= options.outputs; ++k) {
    const double t_out = options.t_end * k / options.outputs;
    sunrealtype t_reached = 0.0;
    flag = IDASolve(s.ida, t_out, &t_reached, s.y, s.yp, IDA_NORMAL);
    if (flag < 0) {
      run.message = Failure("IDASolve", flag, t_reached);
      return run;
    }
    kinematics.Phi(y.segment(0, n2), &phi);
    run.max_residual = std::max(run.max_residual, phi.lpNorm<Eigen::Infinity>());
  }
  run.ok = true;
  run.q_end = y.segment(0, n2);
  run.v_end = y.segment(n2, n2);
  IDAGetNumSteps(s.ida, &run.steps);
  IDAGetNumResEvals(s.ida, &run.residual_evaluations);
  IDAGetNumJacEvals(s.ida, &run.jacobian_evaluations);
  return run;
}

}  // namespace tether::bench
