#include "integrate/dop853.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "integrate/stage.h"

namespace tether::integrate {

namespace {

// Coefficients of dop853.f (E. Hairer, http://www.unige.ch/~hairer/software.html), to 30
// digits as in SciPy's scipy/integrate/_ivp/dop853_coefficients.py (C, A, E3, E5, D).

// c_i, i = 1…16 (stages 1–12, the end point 13, the dense-output stages 14–16).
constexpr std::array<double, 16> kC = {
    0.0, 0.526001519587677318785587544488e-01, 0.789002279381515978178381316732e-01,
    0.118350341907227396726757197510, 0.281649658092772603273242802490,
    0.333333333333333333333333333333, 0.25, 0.307692307692307692307692307692,
    0.651282051282051282051282051282, 0.6, 0.857142857142857142857142857142, 1.0, 1.0, 0.1, 0.2,
    0.777777777777777777777777777778
};

// a_ij: row i (0-based) gives the stage-(i+1) argument x + h Σ_j a_ij k_j. Row 12 is b,
// the weights of the 8th-order solution, so stage 13 is F(t + h, x_new).
constexpr std::array<std::array<double, 15>, 16> kA = {{
    {},
    // stage 2
    {5.26001519587677318785587544488e-2},
    // stage 3
    {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2},
    // stage 4
    {2.95875854768068491816892993775e-2, 0.0, 8.87627564304205475450678981324e-2},
    // stage 5
    {2.41365134159266685502369798665e-1, 0.0, -8.84549479328286085344864962717e-1,
     9.24834003261792003115737966543e-1},
    // stage 6
    {3.7037037037037037037037037037e-2, 0.0, 0.0, 1.70828608729473871279604482173e-1,
     1.25467687566822425016691814123e-1},
    // stage 7
    {3.7109375e-2, 0.0, 0.0, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2,
     -1.7578125e-2},
    // stage 8
    {3.70920001185047927108779319836e-2, 0.0, 0.0, 1.70383925712239993810214054705e-1,
     1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2,
     8.27378916381402288758473766002e-3},
    // stage 9
    {6.24110958716075717114429577812e-1, 0.0, 0.0, -3.36089262944694129406857109825,
     -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1,
     2.01540675504778934086186788979e1, -4.34898841810699588477366255144e1},
    // stage 10
    {4.77662536438264365890433908527e-1, 0.0, 0.0, -2.48811461997166764192642586468,
     -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1,
     1.52792336328824235832596922938e1, -3.32882109689848629194453265587e1,
     -2.03312017085086261358222928593e-2},
    // stage 11
    {-9.3714243008598732571704021658e-1, 0.0, 0.0, 5.18637242884406370830023853209,
     1.09143734899672957818500254654, -8.14978701074692612513997267357,
     -1.85200656599969598641566180701e1, 2.27394870993505042818970056734e1,
     2.49360555267965238987089396762, -3.0467644718982195003823669022},
    // stage 12
    {2.27331014751653820792359768449, 0.0, 0.0, -1.05344954667372501984066689879e1,
     -2.00087205822486249909675718444, -1.79589318631187989172765950534e1,
     2.79488845294199600508499808837e1, -2.85899827713502369474065508674,
     -8.87285693353062954433549289258, 1.23605671757943030647266201528e1,
     6.43392746015763530355970484046e-1},
    // stage 13
    {5.42937341165687622380535766363e-2, 0.0, 0.0, 0.0, 0.0, 4.45031289275240888144113950566,
     1.89151789931450038304281599044, -5.8012039600105847814672114227,
     3.1116436695781989440891606237e-1, -1.52160949662516078556178806805e-1,
     2.01365400804030348374776537501e-1, 4.47106157277725905176885569043e-2},
    // stage 14
    {5.61675022830479523392909219681e-2, 0.0, 0.0, 0.0, 0.0, 0.0,
     2.53500210216624811088794765333e-1, -2.46239037470802489917441475441e-1,
     -1.24191423263816360469010140626e-1, 1.5329179827876569731206322685e-1,
     8.20105229563468988491666602057e-3, 7.56789766054569976138603589584e-3, -8.298e-3},
    // stage 15
    {3.18346481635021405060768473261e-2, 0.0, 0.0, 0.0, 0.0, 2.83009096723667755288322961402e-2,
     5.35419883074385676223797384372e-2, -5.49237485713909884646569340306e-2, 0.0, 0.0,
     -1.08347328697249322858509316994e-4, 3.82571090835658412954920192323e-4,
     -3.40465008687404560802977114492e-4, 1.41312443674632500278074618366e-1},
    // stage 16
    {-4.28896301583791923408573538692e-1, 0.0, 0.0, 0.0, 0.0, -4.69762141536116384314449447206,
     7.68342119606259904184240953878, 4.06898981839711007970213554331,
     3.56727187455281109270669543021e-1, 0.0, 0.0, 0.0, -1.39902416515901462129418009734e-3,
     2.9475147891527723389556272149, -9.15095847217987001081870187138},
}};

// b̂₃: the weights of the 3rd-order estimate at stages 1, 9, 12 (bhh1…bhh3 of dop853.f).
constexpr double kBhh1 = 0.244094488188976377952755905512;
constexpr double kBhh9 = 0.733846688281611857341361741547;
constexpr double kBhh12 = 0.220588235294117647058823529412e-1;

// e5_i = b_i − b̂₅_i, stages 1…12 (er1…er12 of dop853.f).
constexpr std::array<double, 12> kE5 = {
    0.1312004499419488073250102996e-1, 0.0, 0.0, 0.0, 0.0, -0.1225156446376204440720569753e1,
    -0.4957589496572501915214079952, 0.1664377182454986536961530415e1,
    -0.3503288487499736816886487290, 0.3341791187130174790297318841,
    0.8192320648511571246570742613e-1, -0.2235530786388629525884427845e-1
};

// d_{r,i}: rows 4…7 of the dense output (d4j…d7j of dop853.f), stages 1…16.
constexpr std::array<std::array<double, 16>, 4> kD = {{
    {-0.84289382761090128651353491142e1, 0.0, 0.0, 0.0, 0.0, 0.56671495351937776962531783590,
     -0.30689499459498916912797304727e1, 0.23846676565120698287728149680e1,
     0.21170345824450282767155149946e1, -0.87139158377797299206789907490,
     0.22404374302607882758541771650e1, 0.63157877876946881815570249290,
     -0.88990336451333310820698117400e-1, 0.18148505520854727256656404962e2,
     -0.91946323924783554000451984436e1, -0.44360363875948939664310572000e1},
    {0.10427508642579134603413151009e2, 0.0, 0.0, 0.0, 0.0, 0.24228349177525818288430175319e3,
     0.16520045171727028198505394887e3, -0.37454675472269020279518312152e3,
     -0.22113666853125306036270938578e2, 0.77334326684722638389603898808e1,
     -0.30674084731089398182061213626e2, -0.93321305264302278729567221706e1,
     0.15697238121770843886131091075e2, -0.31139403219565177677282850411e2,
     -0.93529243588444783865713862664e1, 0.35816841486394083752465898540e2},
    {0.19985053242002433820987653617e2, 0.0, 0.0, 0.0, 0.0, -0.38703730874935176555105901742e3,
     -0.18917813819516756882830838328e3, 0.52780815920542364900561016686e3,
     -0.11573902539959630126141871134e2, 0.68812326946963000169666922661e1,
     -0.10006050966910838403183860980e1, 0.77771377980534432092869265740,
     -0.27782057523535084065932004339e1, -0.60196695231264120758267380846e2,
     0.84320405506677161018159903784e2, 0.11992291136182789328035130030e2},
    {-0.25693933462703749003312586129e2, 0.0, 0.0, 0.0, 0.0, -0.15418974869023643374053993627e3,
     -0.23152937917604549567536039109e3, 0.35763911791061412378285349910e3,
     0.93405324183624310003907691704e2, -0.37458323136451633156875139351e2,
     0.10409964950896230045147246184e3, 0.29840293426660503123344363579e2,
     -0.43533456590011143754432175058e2, 0.96324553959188282948394950600e2,
     -0.39177261675615439165231486172e2, -0.14972683625798562581422125276e3},
}};

constexpr std::size_t kEndStage = 12;  // k13 = F(t + h, x_new), 0-based

// Σ_j w_j k_j[i] over a compile-time row w = Row::kWeights, in j order, with the zero weights
// left out: the same sum as the full loop (a zero term adds an exact zero to a finite sum, and
// every stage is finite, stage.h) without dop853.f's many multiplications by zero, unrolled.
// Stage j of component i is k[j·n + i].
template <typename Row, std::size_t... J>
double RowSum(const double* k, std::size_t n, std::size_t i,
              std::index_sequence<J...> /*unused*/) {
  double sum = 0.0;
  ((Row::kWeights[J] != 0.0 ? void(sum += Row::kWeights[J] * k[J * n + i]) : void()), ...);
  return sum;
}

template <typename Row>
double RowSum(const double* k, std::size_t n, std::size_t i) {
  return RowSum<Row>(k, n, i, std::make_index_sequence<Row::kWeights.size()>{});
}

template <std::size_t S>
struct ARow {  // stage S's argument weights a_S,j, j < S
  static constexpr std::array<double, S> kWeights = [] {
    std::array<double, S> w{};
    for (std::size_t j = 0; j < S; ++j) w[j] = kA[S][j];
    return w;
  }();
};
struct E5Row {
  static constexpr const std::array<double, 12>& kWeights = kE5;
};
template <std::size_t R>
struct DRow {
  static constexpr const std::array<double, 16>& kWeights = kD[R];
};

// work ← x + h Σ_{j<S} a_Sj k_j.
template <std::size_t S>
void StageArgument(std::span<const double> x, const double* k, double h, std::span<double> work) {
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i) work[i] = x[i] + h * RowSum<ARow<S>>(k, n, i);
}

using StageArgumentFn = void (*)(std::span<const double>, const double*, double,
                                 std::span<double>);

template <std::size_t... S>
constexpr std::array<StageArgumentFn, sizeof...(S)> StageArguments(
    std::index_sequence<S...> /*unused*/) {
  return {&StageArgument<S>...};
}

// StageArgument<S> by stage, S = 0…15 (x_new, row 12, is formed by Attempt with the error
// estimate's terms).
constexpr std::array<StageArgumentFn, Dop853::kStages> kStageArgument =
    StageArguments(std::make_index_sequence<Dop853::kStages>{});

}  // namespace

std::unique_ptr<Stepper> Dop853::Clone() const { return std::make_unique<Dop853>(*this); }

void Dop853::ResizeStages(std::size_t n) {
  n_ = n;
  k_.assign(kStages * n, 0.0);
  work_.assign(n, 0.0);
  dense_.assign(7 * n, 0.0);
}

std::span<double> Dop853::Stage(std::size_t s) {
  return std::span<double>(k_).subspan(s * n_, n_);
}

StepStatus Dop853::ComputeStages(OdeSystem& system, double t, double h, std::size_t first,
                                 std::size_t last, int* evaluations) {
  for (std::size_t s = first; s <= last; ++s) {
    kStageArgument[s](x0(), k_.data(), h, work_);
    const StepStatus status = EvaluateStage(system, t + kC[s] * h, work_, Stage(s), evaluations);
    if (status != StepStatus::kAccepted) return status;
  }
  return StepStatus::kAccepted;
}

StepStatus Dop853::Attempt(OdeSystem& system, double t, double h, std::span<double> x_new,
                           double* err, int* evaluations) {
  const std::span<const double> f = f0();
  std::copy(f.begin(), f.end(), k_.begin());  // k1
  const StepStatus status = ComputeStages(system, t, h, 1, 11, evaluations);
  if (status != StepStatus::kAccepted) return status;
  // x_new ← x + h Σ b_j k_j, and with it the error estimate's terms: Σ b_j k_j is e3's too.
  const std::span<const double> x = x0();
  const double* k = k_.data();
  double e5_sum = 0.0;
  double e3_sum = 0.0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double b_sum = RowSum<ARow<kEndStage>>(k, n_, i);
    x_new[i] = x[i] + h * b_sum;
    if (err == nullptr) continue;
    const double sk = options().AbsoluteTolerance(i) +
                      options().rtol * std::max(std::abs(x[i]), std::abs(x_new[i]));
    const double e5 = RowSum<E5Row>(k, n_, i);
    const double e3 = b_sum - kBhh1 * k[i] - kBhh9 * k[8 * n_ + i] - kBhh12 * k[11 * n_ + i];
    e5_sum += (e5 / sk) * (e5 / sk);
    e3_sum += (e3 / sk) * (e3 / sk);
  }
  if (err != nullptr) *err = ErrorNorm(h, e5_sum, e3_sum);
  return StepStatus::kAccepted;
}

double Dop853::ErrorNorm(double h, double e5_sum, double e3_sum) const {
  if (n_ == 0) return 0.0;  // no component, no error (the formula below would be 0/0)
  double denominator = e5_sum + 0.01 * e3_sum;
  if (denominator <= 0.0) denominator = 1.0;  // as dop853.f: both differences vanish
  return std::abs(h) * e5_sum / std::sqrt(static_cast<double>(n_) * denominator);
}

StepStatus Dop853::Finish(OdeSystem& system, double t, double h, std::span<const double> x_new,
                          int* evaluations) {
  const std::span<double> k13 = Stage(kEndStage);
  StepStatus status = EvaluateStage(system, t + h, x_new, k13, evaluations);
  if (status != StepStatus::kAccepted) return status;
  std::copy(k13.begin(), k13.end(), f_end().begin());
  {  // stages 12 and 13 share the abscissa t + h: x̃ = work_ (stage 12's argument), x̂ = x_new
    const std::span<const double> k12 = Stage(11);
    double numerator = 0.0;
    double denominator = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {
      numerator += (k13[i] - k12[i]) * (k13[i] - k12[i]);
      denominator += (x_new[i] - work_[i]) * (x_new[i] - work_[i]);
    }
    NoteStiffnessEstimate(denominator > 0.0 ? h * std::sqrt(numerator / denominator) : 0.0);
  }
  status = ComputeStages(system, t, h, kEndStage + 1, kStages - 1, evaluations);  // k14…k16
  if (status != StepStatus::kAccepted) return status;
  const std::span<const double> x = x0();
  const double* k = k_.data();
  for (std::size_t i = 0; i < n_; ++i) {
    const double delta = x_new[i] - x[i];
    const double r2 = h * k[i] - delta;
    dense_[i] = delta;
    dense_[n_ + i] = r2;
    dense_[2 * n_ + i] = delta - h * k13[i] - r2;
    dense_[3 * n_ + i] = h * RowSum<DRow<0>>(k, n_, i);
    dense_[4 * n_ + i] = h * RowSum<DRow<1>>(k, n_, i);
    dense_[5 * n_ + i] = h * RowSum<DRow<2>>(k, n_, i);
    dense_[6 * n_ + i] = h * RowSum<DRow<3>>(k, n_, i);
  }
  return StepStatus::kAccepted;
}

void Dop853::Interpolate(double t_out, std::span<double> x_out) const {
  double theta = 0.0;
  if (!InterpolateEnds(t_out, x_out, &theta)) return;
  const double theta1 = 1.0 - theta;
  const std::span<const double> x = x0();
  for (std::size_t i = 0; i < n_; ++i) {
    // Horner from the inside: r7, then alternately ·θ and ·θ' (dop853.f, CONTD8).
    double value = dense_[6 * n_ + i];
    for (std::size_t r = 6; r-- > 0;) {
      value = dense_[r * n_ + i] + ((r % 2 == 0) ? theta1 : theta) * value;
    }
    x_out[i] = x[i] + theta * value;
  }
}

}  // namespace tether::integrate
