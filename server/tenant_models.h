// The models each tenant sees: the shared catalog (built-in models and models_dir, read-only
// to tenants) and the models the tenant registered itself, in a registry of its own. A tenant
// never sees, finds, deletes or is told the names of another tenant's models: every name
// resolves in the caller's registry first, then in the catalog, and a "did you mean" only
// suggests names the caller can see. Two tenants may register models of the same name.
//
// Without tenants (no token file) every call goes to the shared registry alone, which holds
// the catalog and every registered model, exactly as a single-tenant server does.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tether/model/registry.h"

namespace tether::server {

class TenantModels {
 public:
  // `shared`: the catalog (and, without tenants, every registered model); outlives this.
  // `max_registered`: models registered at run time by all tenants together;
  // `max_per_tenant`: by one tenant (used with tenants only).
  TenantModels(model::ModelRegistry* shared, bool tenants, model::SpecLimits limits,
               std::size_t max_registered, std::size_t max_per_tenant);

  [[nodiscard]] std::shared_ptr<const model::Model> Find(const std::string& tenant,
                                                         std::string_view name) const;
  // "model 'x' not found (did you mean 'y'?)" among the names `tenant` sees.
  [[nodiscard]] std::string NotFoundMessage(const std::string& tenant, std::string_view name) const;
  [[nodiscard]] bool IsBuiltin(std::string_view name) const { return shared_->IsBuiltin(name); }
  // What `tenant` sees, sorted by name.
  [[nodiscard]] std::vector<model::ModelRegistry::Entry> List(const std::string& tenant) const;
  // As ModelRegistry::Register, in `tenant`'s registry; a name the catalog holds is
  // kAlreadyExists (the catalog is shared), and kLimit's message names the quota reached:
  // max_registered_models (server-wide) or tenant_max_registered_models.
  model::RegistryResult Register(const std::string& tenant, std::string_view json_text,
                                 bool replace);
  // With tenants: how many models each tenant that has any registered (for the metrics).
  [[nodiscard]] std::map<std::string, std::size_t> RegisteredByTenant() const;
  // As ModelRegistry::Remove, in `tenant`'s registry; a catalog model is kReadOnly.
  model::RegistryResult Remove(const std::string& tenant, std::string_view name);

 private:
  // The tenant's registry, or null if it never registered a model (mutex_ held).
  [[nodiscard]] model::ModelRegistry* Own(const std::string& tenant) const;

  model::ModelRegistry* shared_;
  const bool tenants_;
  const model::SpecLimits limits_;
  const std::size_t max_registered_;
  const std::size_t max_per_tenant_;
  mutable std::mutex mutex_;  // guards own_ (the registries themselves are thread-safe)
  std::map<std::string, std::unique_ptr<model::ModelRegistry>> own_;
};

}  // namespace tether::server
