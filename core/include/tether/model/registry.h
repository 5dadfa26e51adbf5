// The set of models a process knows: the built-in catalog (models/*.json, compiled into the
// binary so it works from any directory) plus specs registered at run time.
// Thread-safe: every method may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>


#include "tether/model/model.h"

namespace tether::model {

// The catalog's spec texts as embedded at build time: (file name, JSON text).
struct CatalogEntry {
  std::string_view file;
  std::string_view json;
};
std::span<const CatalogEntry> BuiltinCatalog();

enum class RegistryStatus { kOk, kInvalid, kAlreadyExists, kNotFound, kReadOnly, kLimit };

struct RegistryResult {
  RegistryStatus status = RegistryStatus::kOk;
  std::shared_ptr<const Model> model;  // on kOk
  std::vector<SpecProblem> problems;   // on kInvalid
  std::string message;                 // human-readable summary for every non-OK status
};

class ModelRegistry {
 public:
  struct Entry {
    std::shared_ptr<const Model> model;
    bool builtin = false;
  };

  // `limits` bound the specs registered; the built-in catalog loads under limits no lower than
  // SpecLimits' defaults, whatever `limits` are.
  explicit ModelRegistry(SpecLimits limits = {}, std::size_t max_registered = 1000);

  // Loads every built-in catalog spec; a catalog spec that fails validation is a build bug,
  // reported in the returned problems (path prefixed with the file name).
  std::vector<SpecProblem> LoadBuiltinCatalog();

  // Validates `json_text` and adds the model. kAlreadyExists if the name is taken (unless
  // `replace`: a registered model of that name is then swapped for the new one at once, and
  // sessions created from the old one keep it; a catalog model is kReadOnly), kLimit when
  // `max_registered` models were registered already. An invalid spec changes nothing.
  RegistryResult Register(std::string_view json_text, bool replace = false);
  // Removes a registered model; kReadOnly for a catalog model, kNotFound if unknown.
  RegistryResult Remove(std::string_view name);

  [[nodiscard]] std::shared_ptr<const Model> Find(std::string_view name) const;
  // "model 'Pendulum' not found (did you mean 'pendulum'?)": the message for a name Find
  // does not know, with the closest known name (letter case first, then edit distance).
  [[nodiscard]] std::string NotFoundMessage(std::string_view name) const;
  [[nodiscard]] bool IsBuiltin(std::string_view name) const;
  // All models sorted by name.
  [[nodiscard]] std::vector<Entry> List() const;

 private:
  RegistryResult Add(std::string_view json_text, bool builtin, bool replace);
  std::string NotFoundMessageLocked(std::string_view name) const;  // mutex_ held

  SpecLimits limits_;
  std::size_t max_registered_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> models_;
  std::size_t registered_count_ = 0;
};

}  // namespace tether::model
