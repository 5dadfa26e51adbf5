// Simulate's RunSource: builds a run from a model name or an inline spec, streams it to
// options.t_end, and keeps nothing afterwards.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "run_source.h"
#include "tenant_models.h"

namespace tether::server {

class OneShotRun final : public RunSource {
 public:
  // A model name resolves among what `tenant` sees of `models`; a spec_json of at most
  // `max_spec_bytes` is parsed under `limits` (ServerConfig::ModelLimits).
  OneShotRun(const TenantModels* models, std::string tenant, v1::SimulateRequest request,
             std::size_t max_spec_bytes, model::SpecLimits limits, std::uint64_t max_steps,
             std::uint64_t max_samples);

  grpc::Status Begin(const std::atomic<bool>* cancel, v1::StreamHeader* header) override;
  simulate::Status Next(std::size_t max_samples, std::chrono::steady_clock::time_point return_by,
                        v1::Frame* frame) override;
  void Delivered(const v1::Frame& /*frame*/) override {}
  grpc::Status Summarize(const simulate::Status& end, v1::StreamSummary* summary) override;
  [[nodiscard]] simulate::Statistics Work() const override {
    return simulation_ == nullptr ? simulate::Statistics{} : simulation_->statistics();
  }
  void End(const simulate::Status& /*end*/) override { simulation_.reset(); }

 private:
  grpc::Status ResolveModel(std::shared_ptr<const model::Model>* out) const;

  const TenantModels* models_;
  std::string tenant_;
  v1::SimulateRequest request_;
  std::size_t max_spec_bytes_;
  model::SpecLimits limits_;
  std::uint64_t max_steps_;
  std::uint64_t max_samples_;  // ServerConfig::max_samples_per_stream
  const std::atomic<bool>* cancel_ = nullptr;
  std::unique_ptr<simulate::Simulation> simulation_;
  SampleWriter writer_;
  double t_start_ = 0.0;
  double t_end_ = 0.0;
  std::uint64_t samples_sent_ = 0;
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
};

// Builds and initializes a run (CreateSession and Simulate share it): options from the
// request, then Simulation::Create. INVALID_ARGUMENT lists every problem, including a failed
// consistent initialization (field "initial_values") and an infinite options.t_end (a run has
// a horizon; only StreamStatesRequest.indefinite streams without one).
grpc::Status CreateRun(std::shared_ptr<const model::Model> model,
                       const google::protobuf::Map<std::string, double>& parameters,
                       const google::protobuf::Map<std::string, double>& initial_values,
                       const google::protobuf::RepeatedPtrField<std::string>& fixed,
                       const v1::SimulationOptions& options, std::uint64_t max_steps_cap,
                       std::unique_ptr<simulate::Simulation>* out);

}  // namespace tether::server
