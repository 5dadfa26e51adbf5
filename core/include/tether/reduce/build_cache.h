// Builds of reduced models, kept while their model is in use (registered, or held by a session
// or a caller), so that index reduction and program compilation happen once per model and
// options, not once per session. A session copies the cached build (ReducedModel is a value:
// programs, workspaces, parameters) and then owns its copy; the build itself is never handed
// out.
//
// Keyed by the model's identity (the object its shared_ptr owns) and every ReduceOptions field.
// A build holds its model, so no other model can take its address while the entry lives; a
// replaced model is a new object, hence a new entry, never served the old build. An entry whose
// build has become its model's last owner (the registry deleted or replaced the model, and no
// session or caller holds it: an inline spec's run that ended) is dropped at the next Build, so
// a deleted model's compiled programs do not outlive it. Beyond that at most `kCapacity`
// entries are kept, the least recently used dropped first. Thread-safe; a build runs outside
// the lock, so two sessions of one new model may both build it once.
#pragma once

#include <cstddef>
#include <memory>

#include "tether/reduce/reduced_model.h"

namespace tether::reduce {

class BuildCache {
 public:
  static constexpr std::size_t kCapacity = 64;

  // The process' cache (the service's sessions and the CLI's runs share it).
  static BuildCache& Shared();

  // A copy of the build of `model` with `options`, building it on a miss. Errors are not
  // cached: a failed build is repeated (and fails again) on the next call.
  ReduceResult Build(const std::shared_ptr<const model::Model>& model,
                     const ReduceOptions& options);

  struct Counts {
    std::size_t hits = 0;
    std::size_t misses = 0;
    std::size_t size = 0;
  };
  [[nodiscard]] Counts counts() const;
  // Drops every build (tests; a caller that must measure a cold build).
  void Clear();

  BuildCache();
  ~BuildCache();
  BuildCache(const BuildCache&) = delete;
  BuildCache& operator=(const BuildCache&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tether::reduce
