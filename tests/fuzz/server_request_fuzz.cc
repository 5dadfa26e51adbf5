// Fuzz target: the server's request handling in-process, as CreateSession and Simulate run it
// (server/one_shot_run.h: CreateRun — options from the wire, overrides, fixed values, consistent
// initialization), then the first samples of the run. The input is a SimulateRequest in
// protobuf text format (readable seeds; libFuzzer mutates the text): `model` names a catalog
// model, or `spec_json` carries a spec. The run's steps are capped, so no input can run long.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "convert.h"
#include "one_shot_run.h"
#include "tether/model/model.h"
#include "tether/model/registry.h"
#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace {

namespace model = tether::model;

// The catalog, parsed once (a name → model map, as the server's registry holds it).
const std::map<std::string, std::shared_ptr<const model::Model>>& Catalog() {
  static const auto* catalog = [] {
    auto* models = new std::map<std::string, std::shared_ptr<const model::Model>>;
    for (const model::CatalogEntry& entry : model::BuiltinCatalog()) {
      model::ModelResult parsed = model::ParseModel(entry.json);
      if (parsed.ok()) (*models)[parsed.model->name] = parsed.model;
    }
    return models;
  }();
  return *catalog;
}

// Steps of one fuzzed run at most: enough for a few samples of every catalog model.
constexpr std::uint64_t kMaxSteps = 2000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tether::v1::SimulateRequest request;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowPartialMessage(true);
  parser.SetRecursionLimit(50);
  // Errors in the text are the fuzzer's business, not the log's.
  class Silent : public google::protobuf::io::ErrorCollector {
    void AddError(int, int, const std::string&) override {}
  } silent;
  parser.RecordErrorsTo(&silent);
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!parser.ParseFromString(text, &request)) return 0;
  std::shared_ptr<const model::Model> spec;
  if (request.has_spec_json()) {
    model::ModelResult parsed = model::ParseModel(request.spec_json());
    if (!parsed.ok()) return 0;
    spec = parsed.model;
  } else {
    const auto found = Catalog().find(
        std::string(tether::server::StripPrefix(request.model(), tether::server::kModelPrefix)));
    if (found == Catalog().end()) return 0;
    spec = found->second;
  }
  std::unique_ptr<tether::simulate::Simulation> run;
  const grpc::Status status =
      tether::server::CreateRun(spec, request.parameters(), request.initial_values(),
                                request.fixed(), request.options(), kMaxSteps, &run);
  if (!status.ok() || run == nullptr) return 0;
  run->Advance(3, [](const tether::simulate::Sample&) {});
  return 0;
}
