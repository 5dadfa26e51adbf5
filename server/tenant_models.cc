#include "tenant_models.h"

#include <algorithm>

#include "tether/expr/quote.h"
#include "tether/expr/suggest.h"

namespace tether::server {

TenantModels::TenantModels(model::ModelRegistry* shared, bool tenants, model::SpecLimits limits,
                           std::size_t max_registered, std::size_t max_per_tenant)
    : shared_(shared),
      tenants_(tenants),
      limits_(limits),
      max_registered_(max_registered),
      max_per_tenant_(max_per_tenant) {}

model::ModelRegistry* TenantModels::Own(const std::string& tenant) const {
  const auto it = own_.find(tenant);
  return it == own_.end() ? nullptr : it->second.get();
}

std::shared_ptr<const model::Model> TenantModels::Find(const std::string& tenant,
                                                       std::string_view name) const {
  if (tenants_) {
    std::lock_guard lock(mutex_);
    if (const model::ModelRegistry* own = Own(tenant)) {
      if (auto found = own->Find(name)) return found;
    }
  }
  return shared_->Find(name);
}

std::string TenantModels::NotFoundMessage(const std::string& tenant,
                                          std::string_view name) const {
  if (!tenants_) return shared_->NotFoundMessage(name);
  std::vector<std::string> names;
  for (const auto& entry : List(tenant)) names.push_back(entry.model->name);
  return "model " + expr::Quote(name) + " not found" + expr::DidYouMean(name, names);
}

std::vector<model::ModelRegistry::Entry> TenantModels::List(const std::string& tenant) const {
  std::vector<model::ModelRegistry::Entry> entries = shared_->List();
  if (!tenants_) return entries;
  {
    std::lock_guard lock(mutex_);
    if (const model::ModelRegistry* own = Own(tenant)) {
      for (auto& entry : own->List()) entries.push_back(std::move(entry));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.model->name < b.model->name; });
  return entries;
}

std::map<std::string, std::size_t> TenantModels::RegisteredByTenant() const {
  std::map<std::string, std::size_t> counts;
  std::lock_guard lock(mutex_);
  for (const auto& [tenant, registry] : own_) {
    if (const std::size_t n = registry->List().size(); n > 0) counts[tenant] = n;
  }
  return counts;
}

model::RegistryResult TenantModels::Register(const std::string& tenant,
                                             std::string_view json_text, bool replace) {
  if (!tenants_) return shared_->Register(json_text, replace);
  // Serialized, so that the server-wide count cannot be passed by two tenants at once.
  std::lock_guard lock(mutex_);
  std::size_t registered = 0;
  for (const auto& [name, registry] : own_) registered += registry->List().size();
  std::unique_ptr<model::ModelRegistry>& own = own_[tenant];
  if (own == nullptr) own = std::make_unique<model::ModelRegistry>(limits_, max_per_tenant_);
  const std::size_t before = own->List().size();
  // A replacement does not add to the count; whether this is one is known only after parsing,
  // so the server-wide limit is checked on the result.
  model::RegistryResult result = own->Register(json_text, replace);
  if (result.status == model::RegistryStatus::kLimit) {
    result.message = "tenant_max_registered_models = " + std::to_string(max_per_tenant_) +
                     " reached for this tenant; delete registered models first";
    return result;
  }
  if (result.status != model::RegistryStatus::kOk) return result;
  const std::string& name = result.model->name;
  if (shared_->Find(name) != nullptr) {
    model::RegistryResult removed = own->Remove(name);
    (void)removed;
    model::RegistryResult taken;
    taken.status = model::RegistryStatus::kAlreadyExists;
    taken.message = "a model named " + expr::Quote(name) + " already exists in the shared " +
                    (shared_->IsBuiltin(name) ? "built-in catalog" : "catalog (models_dir)");
    return taken;
  }
  if (own->List().size() > before && registered + 1 > max_registered_) {
    own->Remove(name);
    model::RegistryResult limit;
    limit.status = model::RegistryStatus::kLimit;
    limit.message = "max_registered_models = " + std::to_string(max_registered_) +
                    " reached (all tenants together); delete registered models first";
    return limit;
  }
  return result;
}

model::RegistryResult TenantModels::Remove(const std::string& tenant, std::string_view name) {
  if (!tenants_) return shared_->Remove(name);
  {
    std::lock_guard lock(mutex_);
    if (model::ModelRegistry* own = Own(tenant); own != nullptr && own->Find(name) != nullptr) {
      return own->Remove(name);
    }
  }
  model::RegistryResult result;
  if (shared_->Find(name) != nullptr) {
    result.status = model::RegistryStatus::kReadOnly;
    result.message = "model " + expr::Quote(name) + " belongs to the shared catalog, which is "
                     "read-only";
    return result;
  }
  result.status = model::RegistryStatus::kNotFound;
  result.message = NotFoundMessage(tenant, name);
  return result;
}

}  // namespace tether::server
