#include "tether/model/registry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tether/expr/quote.h"
#include "tether/expr/suggest.h"

namespace tether::model {

ModelRegistry::ModelRegistry(SpecLimits limits, std::size_t max_registered)
    : limits_(limits), max_registered_(max_registered) {}

std::vector<SpecProblem> ModelRegistry::LoadBuiltinCatalog() {
  std::vector<SpecProblem> problems;
  for (const CatalogEntry& entry : BuiltinCatalog()) {
    RegistryResult result = Add(entry.json, /*builtin=*/true, /*replace=*/false);
    for (SpecProblem& problem : result.problems) {
      problem.path = std::string(entry.file) + (problem.path.empty() ? "" : ": " + problem.path);
      problems.push_back(std::move(problem));
    }
    if (result.status != RegistryStatus::kOk && result.status != RegistryStatus::kInvalid) {
      problems.push_back({std::string(entry.file), 0, result.message});
    }
  }
  return problems;
}

RegistryResult ModelRegistry::Register(std::string_view json_text, bool replace) {
  return Add(json_text, /*builtin=*/false, replace);
}

RegistryResult ModelRegistry::Add(std::string_view json_text, bool builtin, bool replace) {
  // Parse outside the lock: validation is the expensive part and touches no shared state. The
  // built-in catalog loads whatever the limits, which bound what users send.
  ModelResult parsed = ParseModel(json_text, builtin ? limits_.AtLeast(SpecLimits{}) : limits_);
  RegistryResult result;
  if (!parsed.ok()) {
    result.status = RegistryStatus::kInvalid;
    result.message = "invalid model spec: " + std::to_string(parsed.problems.size()) +
                     " problem(s); first: " + parsed.problems.front().ToString();
    result.problems = std::move(parsed.problems);
    return result;
  }
  const std::string& name = parsed.model->name;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (const auto existing = models_.find(name);
      replace && existing != models_.end() && !existing->second.builtin) {
    existing->second.model = parsed.model;
    result.model = parsed.model;
    return result;
  }
  if (replace && models_.contains(name)) {
    result.status = RegistryStatus::kReadOnly;
    result.message = "model '" + name +
                     "' belongs to the built-in catalog, which is read-only; register the spec "
                     "under another name";
    return result;
  }
  if (models_.contains(name)) {
    result.status = RegistryStatus::kAlreadyExists;
    result.message = "a model named '" + name + "' already exists" +
                     (models_.find(name)->second.builtin ? " in the built-in catalog" : "");
    return result;
  }
  if (!builtin && registered_count_ >= max_registered_) {
    result.status = RegistryStatus::kLimit;
    result.message = "cannot register '" + name + "': " + std::to_string(max_registered_) +
                     " models are registered already (the limit)";
    return result;
  }
  models_.emplace(name, Entry{parsed.model, builtin});
  if (!builtin) ++registered_count_;
  result.model = parsed.model;
  return result;
}

RegistryResult ModelRegistry::Remove(std::string_view name) {
  RegistryResult result;
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = models_.find(name);
  if (it == models_.end()) {
    result.status = RegistryStatus::kNotFound;
    result.message = NotFoundMessageLocked(name);
    return result;
  }
  if (it->second.builtin) {
    result.status = RegistryStatus::kReadOnly;
    result.message = "model " + expr::Quote(name) +
                     " is part of the built-in catalog and "
                     "cannot be removed";
    return result;
  }
  result.model = it->second.model;
  models_.erase(it);
  --registered_count_;
  return result;
}

std::shared_ptr<const Model> ModelRegistry::Find(std::string_view name) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = models_.find(name);
  return it == models_.end() ? nullptr : it->second.model;
}

std::string ModelRegistry::NotFoundMessage(std::string_view name) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return NotFoundMessageLocked(name);
}

std::string ModelRegistry::NotFoundMessageLocked(std::string_view name) const {
  std::vector<std::string> names;
  names.reserve(models_.size());
  for (const auto& entry : models_) names.push_back(entry.first);
  return "model " + expr::Quote(name) + " not found" + expr::DidYouMean(name, names);
}

bool ModelRegistry::IsBuiltin(std::string_view name) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = models_.find(name);
  return it != models_.end() && it->second.builtin;
}

std::vector<ModelRegistry::Entry> ModelRegistry::List() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Entry> entries;
  entries.reserve(models_.size());
  // std::map keeps its keys sorted, so this is the sorted-by-name order.
  for (const auto& [name, entry] : models_) entries.push_back(entry);
  return entries;
}

}  // namespace tether::model
