// Native code for compiled programs: compile latency and evaluation speed of the backends
// against the switch interpreter (core/expr/native_code.h records the decision this measures).
// Writes native_code.json and native_code.md.
//
//  Workloads: every catalog model's full program set (stage, invariants, mass, outputs and the
//  implicit steppers' ∂F/∂z, as ReducedModel::Build compiles them), and the planar chains of
//  bench/common/chain.h (n = 16 and 64 bodies; the stage program is the hot one).
//  Backends: the interpreter (Program::Interpret), asmjit (Program::AttachNativeCode, what
//  tether ships) and, when the bench was built with LLVM 15, ORC LLJIT (llvm_backend.h).
//  Compile latency is thread CPU time: asmjit's the minimum over --repeats compilations of
//  each program, LLVM's one compilation of each (its JIT keeps every module). Evaluation time
//  is the minimum thread CPU time per call over --repeats batches, summed over the programs:
//  one evaluation of each. Every native result is compared bit for bit with the interpreter's.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/arguments.h"
#include "common/chain.h"
#include "common/cpu_timer.h"
#include "common/report.h"
#include "tether/expr/program.h"
#include "tether/model/model.h"
#include "tether/model/registry.h"
#include "tether/reduce/reduced_model.h"

#ifdef TETHER_BENCH_WITH_LLVM
#include "native_code/llvm_backend.h"
#endif

namespace tether::bench {
namespace {

struct Workload {
  std::string name;
  std::shared_ptr<const model::Model> model;
  std::unique_ptr<reduce::ReducedModel> reduced;
};

// Totals over a workload's programs.
struct Measured {
  std::size_t programs = 0;
  std::size_t instructions = 0;
  std::size_t asmjit_bytes = 0;
  double asmjit_compile = 0.0;  // s
  double llvm_compile = 0.0;    // s
  double interpreter_eval = 0.0;  // s per evaluation of every program
  double asmjit_eval = 0.0;
  double llvm_eval = 0.0;
  std::size_t asmjit_mismatches = 0;  // outputs not bit-identical to the interpreter's
  std::size_t llvm_mismatches = 0;
  bool llvm = false;
};

bool Same(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
         (a != a && b != b);
}

class Bench {
 public:
  explicit Bench(const Arguments& args) : args_(args) {
#ifdef TETHER_BENCH_WITH_LLVM
    std::string why;
    llvm_ = LlvmBackend::Create(&why);
    if (!llvm_) std::fprintf(stderr, "native_code: LLVM backend unavailable: %s\n", why.c_str());
#endif
  }

  [[nodiscard]] bool has_llvm() const {
#ifdef TETHER_BENCH_WITH_LLVM
    return llvm_ != nullptr;
#else
    return false;
#endif
  }

  Measured Measure(const reduce::ReducedModel& reduced) {
    Measured m;
    m.llvm = has_llvm();
    const double min_seconds = args_.quick ? 1e-4 : 0.02;
    for (const expr::Program* source : reduced.programs()) {
      if (source->num_instructions() == 0) continue;
      ++m.programs;
      m.instructions += source->num_instructions();
      std::vector<double> in(source->num_inputs()), reference(source->num_outputs()),
          out(source->num_outputs());
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.3 + 0.01 * static_cast<double>(i);

      expr::Program interpreted = *source;
      interpreted.Interpret(in, reference);
      m.interpreter_eval += SecondsPerCall([&] { interpreted.Interpret(in, out); }, min_seconds,
                                           args_.repeats);

      double best = 1e300;
      expr::Program native;
      for (int r = 0; r < std::max(args_.repeats, 1); ++r) {
        native = *source;
        const double start = ThreadCpuSeconds();
        native.AttachNativeCode();
        best = std::min(best, ThreadCpuSeconds() - start);
      }
      m.asmjit_compile += best;
      m.asmjit_bytes += expr::GetNativeCodeCounts().code_bytes - bytes_seen_;
      bytes_seen_ = expr::GetNativeCodeCounts().code_bytes;
      if (native.has_native_code()) {
        native.Evaluate(in, out);
        for (std::size_t k = 0; k < out.size(); ++k) m.asmjit_mismatches += !Same(out[k], reference[k]);
        m.asmjit_eval += SecondsPerCall([&] { native.Evaluate(in, out); }, min_seconds,
                                        args_.repeats);
      }
#ifdef TETHER_BENCH_WITH_LLVM
      if (llvm_) {
        std::string why;
        const double start = ThreadCpuSeconds();
        const LlvmBackend::Entry entry = llvm_->Compile(*source, &why);
        m.llvm_compile += ThreadCpuSeconds() - start;
        if (entry == nullptr) {
          std::fprintf(stderr, "native_code: LLVM: %s\n", why.c_str());
          m.llvm = false;
        } else {
          std::vector<double> registers(source->initial_registers().begin(),
                                        source->initial_registers().end());
          entry(in.data(), out.data(), registers.data());
          for (std::size_t k = 0; k < out.size(); ++k) m.llvm_mismatches += !Same(out[k], reference[k]);
          m.llvm_eval += SecondsPerCall([&] { entry(in.data(), out.data(), registers.data()); },
                                        min_seconds, args_.repeats);
        }
      }
#endif
    }
    // Bytes of the last compilation of each program (the repeats compile the same code).
    m.asmjit_bytes /= static_cast<std::size_t>(std::max(args_.repeats, 1));
    return m;
  }

 private:
  const Arguments& args_;
  std::uint64_t bytes_seen_ = expr::GetNativeCodeCounts().code_bytes;
#ifdef TETHER_BENCH_WITH_LLVM
  std::unique_ptr<LlvmBackend> llvm_;
#endif
};

// The catalog with every program an implicit stepper adds, then the chains.
std::vector<Workload> Workloads(bool quick, std::vector<std::string>* problems) {
  std::vector<Workload> workloads;
  reduce::ReduceOptions with_jacobian;
  with_jacobian.jacobian = true;
  for (const model::CatalogEntry& entry : model::BuiltinCatalog()) {
    model::ModelResult parsed = model::ParseModel(entry.json);
    if (!parsed.ok()) {
      problems->push_back(std::string(entry.file) + ": " + parsed.ErrorText());
      continue;
    }
    reduce::ReduceResult built = reduce::ReducedModel::Build(parsed.model, with_jacobian);
    if (!built.reduced) {
      problems->push_back(std::string(entry.file) + ": " + built.error);
      continue;
    }
    workloads.push_back({parsed.model->name, parsed.model, std::move(built.reduced)});
    if (quick) break;
  }
  for (int links : quick ? std::vector<int>{4} : std::vector<int>{16, 64}) {
    const Chain chain = UnitChain(links);
    const std::string name = "chain-" + std::to_string(links);
    model::ModelResult parsed = model::ParseModel(ChainSpecJson(chain, ChainStart(links), name));
    if (!parsed.ok()) {
      problems->push_back(name + ": " + parsed.ErrorText());
      continue;
    }
    reduce::ReduceResult built = reduce::ReducedModel::Build(parsed.model, {});
    if (!built.reduced) {
      problems->push_back(name + ": " + built.error);
      continue;
    }
    workloads.push_back({name, parsed.model, std::move(built.reduced)});
  }
  return workloads;
}

std::string Micro(double seconds) { return Format(1e6 * seconds); }
std::string Nano(double seconds) { return Format(1e9 * seconds); }

int Run(int argc, char** argv) {
  Arguments args;
  std::string why;
  if (!ParseArguments(argc, argv, TETHER_BENCH_RESULTS_DIR, &args, &why)) {
    std::fprintf(stderr, "native_code: %s\n", why.c_str());
    return 2;
  }
  // The builds come without native code, so that each backend compiles from the same programs.
  expr::SetNativeCodeEnabled(false);
  std::vector<std::string> problems;
  std::vector<Workload> workloads = Workloads(args.quick, &problems);
  for (const std::string& p : problems) std::fprintf(stderr, "native_code: %s\n", p.c_str());
  if (workloads.empty()) return 1;

  Bench bench(args);
  Report report("native_code", args.command);
  Table table("Compile latency and evaluation time per workload (all its programs)",
              {"workload", "programs", "instructions", "asmjit compile [µs]",
               "LLVM compile [µs]", "interpreter [ns]", "asmjit [ns]", "LLVM [ns]",
               "interpreter / asmjit", "interpreter / LLVM"});
  Measured catalog;
  catalog.llvm = bench.has_llvm();
  auto& rows = report.json()["workloads"];
  for (Workload& w : workloads) {
    const Measured m = bench.Measure(*w.reduced);
    const bool is_chain = w.name.rfind("chain-", 0) == 0;
    if (!is_chain) {
      catalog.programs += m.programs;
      catalog.instructions += m.instructions;
      catalog.asmjit_bytes += m.asmjit_bytes;
      catalog.asmjit_compile += m.asmjit_compile;
      catalog.llvm_compile += m.llvm_compile;
      catalog.interpreter_eval += m.interpreter_eval;
      catalog.asmjit_eval += m.asmjit_eval;
      catalog.llvm_eval += m.llvm_eval;
      catalog.asmjit_mismatches += m.asmjit_mismatches;
      catalog.llvm_mismatches += m.llvm_mismatches;
      catalog.llvm = catalog.llvm && m.llvm;
    }
    auto add = [&](const std::string& name, const Measured& x) {
      table.AddRow({name, std::to_string(x.programs), std::to_string(x.instructions),
                    Micro(x.asmjit_compile), x.llvm ? Micro(x.llvm_compile) : "—",
                    Nano(x.interpreter_eval), Nano(x.asmjit_eval),
                    x.llvm ? Nano(x.llvm_eval) : "—",
                    Format(x.interpreter_eval / x.asmjit_eval),
                    x.llvm ? Format(x.interpreter_eval / x.llvm_eval) : "—"});
      rows.push_back({{"workload", name},
                      {"programs", x.programs},
                      {"instructions", x.instructions},
                      {"asmjit_code_bytes", x.asmjit_bytes},
                      {"asmjit_compile_s", x.asmjit_compile},
                      {"llvm_compile_s", x.llvm ? x.llvm_compile : -1.0},
                      {"interpreter_eval_s", x.interpreter_eval},
                      {"asmjit_eval_s", x.asmjit_eval},
                      {"llvm_eval_s", x.llvm ? x.llvm_eval : -1.0},
                      {"asmjit_mismatches", x.asmjit_mismatches},
                      {"llvm_mismatches", x.llvm_mismatches}});
    };
    if (is_chain) {
      if (catalog.programs > 0) {
        add("catalog, all " + std::to_string(catalog.programs) + " programs", catalog);
        catalog.programs = 0;
      }
      add(w.name, m);
    } else {
      add(w.name, m);
    }
  }
  report.AddTable(table);
  std::size_t asmjit_mismatches = 0, llvm_mismatches = 0;
  for (const auto& row : rows) {
    asmjit_mismatches += row["asmjit_mismatches"].get<std::size_t>();
    llvm_mismatches += row["llvm_mismatches"].get<std::size_t>();
  }
  report.AddNote("Outputs not bit-identical to the interpreter's: asmjit " +
                 std::to_string(asmjit_mismatches) +
                 (bench.has_llvm() ? ", LLVM " + std::to_string(llvm_mismatches) : "") + ".");
  if (!bench.has_llvm()) {
    report.AddNote("LLVM column empty: this build of the bench has no LLVM 15 (llvm-15-dev).");
  }
  report.AddNote("Compile latency is thread CPU time (asmjit: minimum of --repeats; LLVM: one "
                 "compilation per program, IR construction through machine code). Evaluation: "
                 "thread CPU time per call, minimum over batches, one evaluation of every "
                 "program of the workload.");
  for (const std::string& p : problems) report.AddNote("Skipped: " + p);
  if (!report.Write(args.results, &why)) {
    std::fprintf(stderr, "native_code: %s\n", why.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tether::bench

int main(int argc, char** argv) { return tether::bench::Run(argc, argv); }
