// Native code against the interpreter on the same programs. native_code.h's contract: every
// instruction performs the same IEEE 754 operations in the same order as the interpreter, so
// every result is bit-identical, except that a NaN may differ in sign and payload (it is a NaN
// in both).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/expr/allocation_counter.h"
#include "tether/expr/parse.h"
#include "tether/expr/program.h"

namespace tether::expr {
namespace {

// Same bits, or both NaN.
::testing::AssertionResult SameValue(double native, double interpreted) {
  if (std::isnan(native) && std::isnan(interpreted)) return ::testing::AssertionSuccess();
  if (std::bit_cast<std::uint64_t>(native) == std::bit_cast<std::uint64_t>(interpreted)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "native " << native << " (0x" << std::hex
                                       << std::bit_cast<std::uint64_t>(native)
                                       << "), interpreter " << interpreted << " (0x"
                                       << std::bit_cast<std::uint64_t>(interpreted) << ")";
}

// Evaluates `program` both ways at `in` and compares every output.
void ExpectSameOutputs(Program& program, const std::vector<double>& in, const std::string& what) {
  std::vector<double> native(program.num_outputs());
  std::vector<double> interpreted(program.num_outputs());
  program.Evaluate(in, native);
  program.Interpret(in, interpreted);
  for (std::size_t k = 0; k < native.size(); ++k) {
    EXPECT_TRUE(SameValue(native[k], interpreted[k])) << what << ", output " << k;
  }
}

// Inputs that reach every branch of the operations: signed zeros, infinities, NaN, values
// outside asin's domain, negative bases of powers, huge and tiny magnitudes.
const double kSpecial[] = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.5,
                           -2.5,
                           3.0,
                           1e300,
                           -1e-300,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::denorm_min()};

class NativeCodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NativeCodeEnabled()) GTEST_SKIP() << "no native code backend on this platform";
  }
};

TEST_F(NativeCodeTest, CompileGivesNativeCodeAndCountsIt) {
  Context c;
  const Expr inputs[] = {c.Symbol("x")};
  const Expr outputs[] = {c.Unary(Op::kSin, c.Mul(inputs[0], inputs[0]))};
  const NativeCodeCounts before = GetNativeCodeCounts();
  const Program program = Compile(c, outputs, inputs);
  EXPECT_TRUE(program.has_native_code());
  const NativeCodeCounts after = GetNativeCodeCounts();
  EXPECT_EQ(after.compiled, before.compiled + 1);
  EXPECT_EQ(after.fallbacks, before.fallbacks);
  EXPECT_GT(after.code_bytes, before.code_bytes);
}

// Every operation (and every cheap form of a power) on every special input and every pair of
// them: NaN propagation, division by zero, domain errors and overflow behave as in the
// interpreter.
TEST_F(NativeCodeTest, EveryOperationOnSpecialValuesEqualsInterpreter) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y"), c.Symbol("z")};
  std::vector<Expr> outputs;
  for (const char* text :
       {"x + y",        "x - y",      "x*y",         "x/y",         "x^y",        "-x",
        "sin(x)",       "cos(x)",     "tan(x)",      "asin(x)",     "acos(x)",    "atan(x)",
        "atan2(x, y)",  "sinh(x)",    "cosh(x)",     "tanh(x)",     "exp(x)",     "log(x)",
        "sqrt(x)",      "abs(x)",     "sign(x)",     "min(x, y)",   "max(x, y)",  "select(x, y, z)",
        "x^2",          "x^3",        "x^4",         "x^7",         "x^-3",       "x^16",
        "x^-16",        "x^-1",       "x^0.5",       "x^-0.5",      "x^2.5",      "x^17",
        "x*y + z",      "x*y - z",    "z - x*y",     "-(x*y)",      "1/x",        "x/0",
        "(x - y)/(x - y)", "log(x) - log(y)", "0*(1/x)", "x^2*y + z^3*x - y/z"}) {
    const ParseResult parsed = Parse(c, text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << Describe(parsed.error);
    outputs.push_back(parsed.expr);
  }
  Program program = Compile(c, outputs, inputs);
  ASSERT_TRUE(program.has_native_code());
  for (double x : kSpecial) {
    for (double y : kSpecial) {
      for (double z : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
        ExpectSameOutputs(program, {x, y, z},
                          "x = " + std::to_string(x) + ", y = " + std::to_string(y) +
                              ", z = " + std::to_string(z));
      }
    }
  }
}

// Random programs over every operation, with heavy sharing (each node draws its operands from
// all earlier nodes, so registers are reused by liveness and outputs read temporaries,
// inputs and constants): the native code follows the interpreter bit for bit.
TEST_F(NativeCodeTest, RandomProgramsEqualInterpreter) {
  const Op kOps[] = {Op::kAdd,  Op::kSub,  Op::kMul,   Op::kDiv,  Op::kPow,  Op::kNeg,
                     Op::kSin,  Op::kCos,  Op::kTan,   Op::kAsin, Op::kAcos, Op::kAtan,
                     Op::kAtan2, Op::kSinh, Op::kCosh, Op::kTanh, Op::kExp,  Op::kLog,
                     Op::kSqrt, Op::kAbs,  Op::kSign,  Op::kFloor, Op::kMin, Op::kMax,
                     Op::kSelect};
  const double kConstants[] = {2.0, 3.0, -1.0, 0.5, -0.5, 5.0, -4.0, 0.0, 1.5};
  std::mt19937 rng(2026);
  std::uniform_real_distribution<double> value(-3.0, 3.0);
  for (int seed = 0; seed < 200; ++seed) {
    Context c;
    std::vector<Expr> inputs;
    for (const char* name : {"a", "b", "c", "d"}) inputs.push_back(c.Symbol(name));
    std::vector<Expr> pool = inputs;
    auto pick = [&] {
      return pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)];
    };
    for (int k = 0; k < 60; ++k) {
      const Op op = kOps[std::uniform_int_distribution<std::size_t>(0, std::size(kOps) - 1)(rng)];
      Expr e;
      if (op == Op::kPow && rng() % 2 == 0) {
        const double n = kConstants[rng() % std::size(kConstants)];
        e = c.Pow(pick(), c.Constant(n));
      } else if (op == Op::kSelect) {
        e = c.Select(pick(), pick(), pick());
      } else if (op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kDiv ||
                 op == Op::kPow || op == Op::kAtan2 || op == Op::kMin || op == Op::kMax) {
        const Expr b = rng() % 4 == 0 ? c.Constant(kConstants[rng() % std::size(kConstants)])
                                      : pick();
        e = c.Binary(op, pick(), b);
      } else {
        e = c.Unary(op, pick());
      }
      pool.push_back(e);
    }
    std::vector<Expr> outputs;
    for (int k = 0; k < 8; ++k) outputs.push_back(pick());
    outputs.push_back(c.Diff(outputs[0], inputs[0]));
    Program program = Compile(c, outputs, inputs);
    if (program.num_instructions() == 0) continue;
    ASSERT_TRUE(program.has_native_code()) << program.Disassemble();
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> in(inputs.size());
      for (double& v : in) {
        v = rng() % 8 == 0 ? kSpecial[rng() % std::size(kSpecial)] : value(rng);
      }
      ExpectSameOutputs(program, in, "seed " + std::to_string(seed));
    }
  }
}

// More values live at once than the native code has registers for (14), with library calls
// between their definitions and their uses: every value survives eviction and calls.
TEST_F(NativeCodeTest, ManyLiveValuesSurviveSpillsAndCalls) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y")};
  std::vector<Expr> values;
  for (int k = 1; k <= 40; ++k) {
    Expr v = c.Add(c.Mul(inputs[0], c.Constant(k)), inputs[1]);
    if (k % 7 == 0) v = c.Unary(Op::kSin, v);
    values.push_back(v);
  }
  Expr sum = c.Constant(0.5);
  for (std::size_t k = 0; k < values.size(); ++k) {
    sum = c.Add(sum, c.Mul(values[k], values[values.size() - 1 - k]));
  }
  std::vector<Expr> outputs = {sum, values[3], values[20]};
  Program program = Compile(c, outputs, inputs);
  ASSERT_TRUE(program.has_native_code());
  for (const std::vector<double>& in :
       std::vector<std::vector<double>>{{0.1, 0.2}, {-1.3, 2.9}, {7.0, -0.25}, {0.1, 0.2}}) {
    ExpectSameOutputs(program, in, "x = " + std::to_string(in[0]));
  }
}

// Outputs that are constants (long runs, short runs of zeros, constants that need a 64-bit
// immediate) or inputs are all written, over whatever the output array held before.
TEST_F(NativeCodeTest, ConstantAndInputOutputsAreWritten) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y")};
  std::vector<Expr> outputs(40, c.Constant(0.0));
  outputs.push_back(inputs[0]);
  outputs.insert(outputs.end(), 40, c.Constant(2.5));
  outputs.insert(outputs.end(), 3, c.Constant(0.0));
  outputs.push_back(c.Constant(1e300));
  outputs.push_back(c.Mul(inputs[0], inputs[1]));
  outputs.push_back(c.Constant(-0.0));
  outputs.push_back(c.Constant(0.0));
  outputs.push_back(inputs[1]);
  Program program = Compile(c, outputs, inputs);
  ASSERT_TRUE(program.has_native_code());
  const double in[] = {3.0, -4.0};
  std::vector<double> native(outputs.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> interpreted(outputs.size());
  program.Evaluate(in, native);
  program.Interpret(in, interpreted);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    EXPECT_TRUE(SameValue(native[k], interpreted[k])) << "output " << k;
    EXPECT_FALSE(std::isnan(native[k])) << "output " << k;
  }
}

// Copies share the machine code but not the register file: two copies evaluated in turn at
// different points each give their own results.
TEST_F(NativeCodeTest, CopiesEvaluateIndependently) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y")};
  const ParseResult parsed = Parse(c, "sin(x)*y + x^2/(1 + y^2)");
  ASSERT_TRUE(parsed.ok());
  const Expr outputs[] = {parsed.expr};
  Program first = Compile(c, outputs, inputs);
  Program second = first;
  ASSERT_TRUE(second.has_native_code());
  double a = 0, b = 0, a_ref = 0, b_ref = 0;
  const double p[] = {0.3, 1.7}, q[] = {-2.0, 0.25};
  first.Evaluate(p, {&a, 1});
  second.Evaluate(q, {&b, 1});
  first.Interpret(p, {&a_ref, 1});
  second.Interpret(q, {&b_ref, 1});
  EXPECT_TRUE(SameValue(a, a_ref));
  EXPECT_TRUE(SameValue(b, b_ref));
  EXPECT_NE(a, b);
}

// A split program (expr::Split) at every split point: the four-array Evaluate reads and writes
// the arrays it is given, bit-identical to the interpreter on the whole arrays. The outputs
// cross the split with computed values, inputs and runs of constants (the stores that address
// out and out_tail differently); the arrays sit apart in memory, as a stepper's do.
TEST_F(NativeCodeTest, SplitProgramsReadAndWriteTheirFourArrays) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y"), c.Symbol("z")};
  std::vector<Expr> outputs = {inputs[1]};
  for (const char* text : {"-x*y + sin(z)", "abs(x - z)/y", "x^3 - y", "-(x*z)"}) {
    const ParseResult parsed = Parse(c, text);
    ASSERT_TRUE(parsed.ok()) << text;
    outputs.push_back(parsed.expr);
  }
  outputs.insert(outputs.end(), 3, c.Constant(0.0));
  outputs.insert(outputs.end(), 2, c.Constant(-7.25));
  outputs.push_back(inputs[2]);
  const std::vector<double> in = {0.75, -1.5, 2.0};
  for (std::size_t split_in = 0; split_in <= inputs.size(); ++split_in) {
    for (std::size_t split_out = 0; split_out <= outputs.size(); ++split_out) {
      Program program =
          Compile(c, outputs, inputs, {.inputs = split_in, .outputs = split_out});
      ASSERT_TRUE(program.has_native_code());
      EXPECT_EQ(program.split().inputs, split_in);
      std::vector<double> expected(outputs.size());
      program.Interpret(in, expected);
      const std::vector<double> head(in.begin(), in.begin() + static_cast<long>(split_in));
      const std::vector<double> tail(in.begin() + static_cast<long>(split_in), in.end());
      constexpr double kUnwritten = 1e9;  // no output's value
      std::vector<double> out(split_out, kUnwritten);
      std::vector<double> out_tail(outputs.size() - split_out, kUnwritten);
      program.Evaluate(head, tail, out, out_tail);
      out.insert(out.end(), out_tail.begin(), out_tail.end());
      // The two-array form splits the arrays itself.
      std::vector<double> whole(outputs.size());
      program.Evaluate(in, whole);
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        const std::string where = "split after input " + std::to_string(split_in) +
                                  " and output " + std::to_string(split_out) + ", output " +
                                  std::to_string(k);
        EXPECT_TRUE(SameValue(out[k], expected[k])) << where;
        EXPECT_TRUE(SameValue(whole[k], expected[k])) << where;
      }
    }
  }
}

// Outputs that overlap inputs (a caller computing z' into z) take the interpreter, which reads
// every input before writing: the results are those of separate arrays.
TEST_F(NativeCodeTest, OverlappingArraysGiveTheResultsOfSeparateOnes) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y"), c.Symbol("t")};
  const ParseResult parsed = Parse(c, "x*y + t");
  ASSERT_TRUE(parsed.ok());
  const std::vector<Expr> outputs = {inputs[1], c.Neg(inputs[0]), parsed.expr};
  Program program = Compile(c, outputs, inputs, {.inputs = 2, .outputs = 2});
  ASSERT_TRUE(program.has_native_code());
  std::vector<double> z = {3.0, 5.0};
  const std::vector<double> t = {0.5};
  std::vector<double> extra(1);
  program.Evaluate(z, t, z, extra);  // z ← (y, −x) in place
  EXPECT_EQ(z, (std::vector<double>{5.0, -3.0}));
  EXPECT_EQ(extra[0], 15.5);
}

TEST_F(NativeCodeTest, EvaluateDoesNotAllocate) {
  Context c;
  const std::vector<Expr> inputs = {c.Symbol("x"), c.Symbol("y")};
  const ParseResult parsed = Parse(c, "atan2(x, y) + exp(-x^2)");
  ASSERT_TRUE(parsed.ok());
  const Expr outputs[] = {parsed.expr};
  Program program = Compile(c, outputs, inputs);
  ASSERT_TRUE(program.has_native_code());
  const double in[] = {0.4, 0.9};
  double out = 0;
  const long before = tether::testing::AllocationCount();
  for (int i = 0; i < 1000; ++i) program.Evaluate(in, {&out, 1});
  EXPECT_EQ(tether::testing::AllocationCount(), before);
}

// Turned off, Compile leaves programs to the interpreter (and counts no fallback: nothing
// failed); turned on again, it compiles.
TEST_F(NativeCodeTest, SwitchTurnsNativeCodeOff) {
  Context c;
  const Expr inputs[] = {c.Symbol("x")};
  const Expr outputs[] = {c.Unary(Op::kCos, inputs[0])};
  const NativeCodeCounts before = GetNativeCodeCounts();
  SetNativeCodeEnabled(false);
  const Program off = Compile(c, outputs, inputs);
  SetNativeCodeEnabled(true);
  const Program on = Compile(c, outputs, inputs);
  EXPECT_FALSE(off.has_native_code());
  EXPECT_TRUE(on.has_native_code());
  EXPECT_EQ(GetNativeCodeCounts().fallbacks, before.fallbacks);
}

}  // namespace
}  // namespace tether::expr
