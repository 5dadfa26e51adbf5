// Translations between the core's types and the tether.v1 messages. No policy lives here:
// defaults and limits are the service's business, the numerics the core's.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/map.h>

#include "errors.h"
#include "tether/model/model.h"
#include "tether/simulate/simulation.h"
#include "tether/v1/simulation_service.pb.h"

namespace tether::server {

inline constexpr std::string_view kModelPrefix = "models/";
inline constexpr std::string_view kSessionPrefix = "sessions/";

// "models/pendulum" or "pendulum" → "pendulum"; likewise for sessions.
std::string_view StripPrefix(std::string_view name, std::string_view prefix);

// The model resource; `columns` are the ones a session streams (simulate::DefaultColumns).
v1::Model ModelToProto(const model::Model& model, bool builtin,
                       const std::vector<simulate::Column>& columns);

void TimestampToProto(std::chrono::system_clock::time_point time, google::protobuf::Timestamp* out);
void ColumnToProto(const simulate::Column& column, v1::Column* out);
void StatisticsToProto(const simulate::Statistics& statistics, v1::Statistics* out);
void InitializationToProto(const simulate::InitializationReport& report,
                           v1::InitializationReport* out);
void OptionsToProto(const simulate::Options& options, v1::SimulationOptions* out);

// Core options from the request: absent fields take the core's defaults, except t_end and
// output_interval, which take the model's suggestions first. Unknown enum values and method
// names are violations "options.<field>"; range checks are the core's (Options::IsValid).
simulate::Options OptionsFromProto(const v1::SimulationOptions& proto, const model::Model& model,
                                   std::vector<FieldViolation>* violations);

std::map<std::string, double> ToMap(const google::protobuf::Map<std::string, double>& map);

}  // namespace tether::server
