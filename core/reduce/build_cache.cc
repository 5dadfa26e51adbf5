#include "tether/reduce/build_cache.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <tuple>
#include <vector>

namespace tether::reduce {
namespace {

using Key = std::tuple<const model::Model*, AlgebraicMode, double, int, bool>;

Key KeyOf(const model::Model* model, const ReduceOptions& options) {
  return {model, options.algebraic, options.newton_tolerance, options.max_newton_iterations,
          options.jacobian};
}

}  // namespace

struct BuildCache::State {
  struct Entry {
    Key key;
    std::weak_ptr<const model::Model> model;  // the object the key's pointer names
    std::shared_ptr<const ReducedModel> build;  // owns the model: the key's address stays its
    std::uint64_t last_use = 0;

    // Nothing but this build owns the model any more (no registry, session or caller does), so
    // no one can ask for it again.
    [[nodiscard]] bool Orphaned() const { return model.use_count() <= 1; }
  };
  // Removes the orphaned entries (and `key`'s, when given) and returns their builds, to be
  // destroyed outside the lock.
  std::vector<std::shared_ptr<const ReducedModel>> TakeOrphans(const Key* key);
  mutable std::mutex mutex;
  std::vector<Entry> entries;
  std::uint64_t clock = 0;
  std::size_t hits = 0;
  std::size_t misses = 0;
};

std::vector<std::shared_ptr<const ReducedModel>> BuildCache::State::TakeOrphans(const Key* key) {
  std::vector<std::shared_ptr<const ReducedModel>> taken;
  std::erase_if(entries, [&](Entry& e) {
    if (!e.Orphaned() && (key == nullptr || e.key != *key)) return false;
    taken.push_back(std::move(e.build));
    return true;
  });
  return taken;
}

BuildCache::BuildCache() : state_(std::make_unique<State>()) {}
BuildCache::~BuildCache() = default;

BuildCache& BuildCache::Shared() {
  static BuildCache cache;
  return cache;
}

ReduceResult BuildCache::Build(const std::shared_ptr<const model::Model>& model,
                               const ReduceOptions& options) {
  const Key key = KeyOf(model.get(), options);
  std::shared_ptr<const ReducedModel> build;
  std::vector<std::shared_ptr<const ReducedModel>> orphans;  // destroyed after the unlock
  {
    std::lock_guard lock(state_->mutex);
    orphans = state_->TakeOrphans(nullptr);
    for (State::Entry& entry : state_->entries) {
      if (entry.key != key) continue;
      entry.last_use = ++state_->clock;
      build = entry.build;
      ++state_->hits;
      break;
    }
  }
  if (build != nullptr) return {std::make_unique<ReducedModel>(*build), {}};

  ReduceResult built = ReducedModel::Build(model, options);
  if (!built.reduced) return built;
  auto prototype = std::make_shared<const ReducedModel>(*built.reduced);
  std::vector<std::shared_ptr<const ReducedModel>> replaced;  // destroyed after the unlock
  std::lock_guard lock(state_->mutex);
  ++state_->misses;
  auto& entries = state_->entries;
  // Orphaned models' builds (and a concurrent build of this key) first, then the least
  // recently used beyond capacity.
  replaced = state_->TakeOrphans(&key);
  if (entries.size() >= kCapacity) {
    const auto oldest = std::min_element(
        entries.begin(), entries.end(),
        [](const auto& a, const auto& b) { return a.last_use < b.last_use; });
    replaced.push_back(std::move(oldest->build));
    entries.erase(oldest);
  }
  entries.push_back({key, model, std::move(prototype), ++state_->clock});
  return built;
}

BuildCache::Counts BuildCache::counts() const {
  std::lock_guard lock(state_->mutex);
  return {state_->hits, state_->misses, state_->entries.size()};
}

void BuildCache::Clear() {
  std::lock_guard lock(state_->mutex);
  state_->entries.clear();
}

}  // namespace tether::reduce
