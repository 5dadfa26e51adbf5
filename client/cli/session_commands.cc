#include "cli/session_commands.h"

#include <algorithm>

#include "cli/enum_text.h"
#include "cli/exit_codes.h"
#include "cli/exit_status.h"
#include "cli/number_format.h"
#include "cli/proto_json.h"
#include "cli/run_command.h"
#include "tether/server/flags.h"
#include "tether/version.h"

namespace tether::cli {
namespace {

std::string Pad(std::string text, std::size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

}  // namespace

int SessionsListCommand(Connection& connection, bool json, std::ostream& out, std::ostream& err) {
  auto sessions = connection.client().ListAllSessions();
  if (!sessions.ok()) return ReportError(err, "sessions list (" + connection.description() + ")", sessions.error());
  if (json) {
    v1::ListSessionsResponse all;
    for (const v1::Session& s : *sessions) *all.add_sessions() = s;
    out << ProtoJson(all);
    return kExitOk;
  }
  std::size_t width = 7;
  for (const v1::Session& s : *sessions) width = std::max(width, s.name().size());
  out << Pad("SESSION", width) << "  " << Pad("MODEL", 20) << "  " << Pad("STATE", 9)
      << "  T [s]     SAMPLES\n";
  for (const v1::Session& s : *sessions) {
    out << Pad(s.name(), width) << "  " << Pad(s.model(), 20) << "  " << Pad(StateText(s.state()), 9)
        << "  " << Pad(FormatShort(s.t(), 6), 8) << "  " << s.next_sample_index() << '\n';
  }
  return kExitOk;
}

int SessionsShowCommand(Connection& connection, const std::string& session, bool json,
                        std::ostream& out, std::ostream& err) {
  auto result = connection.client().GetSession(session);
  if (!result.ok()) return ReportError(err, "sessions show " + session, result.error());
  if (json) {
    out << ProtoJson(*result);
    return kExitOk;
  }
  const v1::Session& s = *result;
  out << s.name() << '\n'
      << "  model: " << s.model() << '\n'
      << "  state: " << StateText(s.state()) << " at t = " << FormatShort(s.t(), 10)
      << " s, next sample " << s.next_sample_index() << '\n';
  if (!s.last_message().empty()) out << "  last: " << s.last_message() << '\n';
  out << "  values:";
  for (int i = 0; i < s.columns_size() && i < s.values_size(); ++i) {
    out << " " << s.columns(i).name() << " = " << FormatShort(s.values(i), 10);
  }
  out << "\n  statistics: " << s.statistics().steps() << " steps, " << s.statistics().samples()
      << " samples, max residual position " << FormatShort(s.statistics().max_residual_position(), 3)
      << ", velocity " << FormatShort(s.statistics().max_residual_velocity(), 3) << '\n';
  return kExitOk;
}

int SessionsDeleteCommand(Connection& connection, const std::string& session, std::ostream& out,
                          std::ostream& err) {
  auto result = connection.client().DeleteSession(session);
  if (!result.ok()) return ReportError(err, "sessions delete " + session, result.error());
  out << "deleted " << client::SessionName(session) << '\n';
  return kExitOk;
}

int SessionsControlCommand(Connection& connection, const std::string& session, bool pause,
                           const std::vector<std::string>& set,
                           const std::vector<std::string>& values, std::ostream& out,
                           std::ostream& err) {
  v1::ControlSessionRequest request;
  request.set_name(session);
  request.set_pause(pause);
  std::map<std::string, double> parameters, states;
  std::vector<std::string> problems;
  ParseAssignments("--set", set, &parameters, &problems);
  ParseAssignments("--value", values, &states, &problems);
  if (!problems.empty() || (!pause && parameters.empty() && states.empty())) {
    if (problems.empty()) problems.push_back("give --pause, --set NAME=VALUE or --value NAME=VALUE");
    for (const std::string& p : problems) err << "tether: sessions control: " << p << '\n';
    return kExitUsageError;
  }
  request.mutable_parameters()->insert(parameters.begin(), parameters.end());
  request.mutable_values()->insert(states.begin(), states.end());
  auto result = connection.client().ControlSession(request);
  if (!result.ok()) return ReportError(err, "sessions control " + session, result.error());
  out << result->name() << ": " << (pause ? "pause requested" : "change accepted") << "; state "
      << StateText(result->state()) << ", next sample " << result->next_sample_index() << '\n';
  return kExitOk;
}

int HealthCommand(Connection& connection, const std::string& service, std::ostream& out,
                  std::ostream& err) {
  auto status = connection.client().Health(service);
  if (!status.ok()) {
    ReportError(err, "health (" + connection.description() + ")", status.error());
    return kExitServerUnreachable;
  }
  out << client::HealthStatusName(*status) << '\n';
  return *status == client::HealthStatus::kServing ? kExitOk : kExitServerUnreachable;
}

int VersionCommand(Connection* connection, bool json, std::ostream& out, std::ostream& err) {
  v1::ServerInfo info;
  if (connection != nullptr) {
    auto result = connection->client().GetServerInfo();
    if (!result.ok()) {
      ReportError(err, "version (" + connection->description() + ")", result.error());
      return kExitServerUnreachable;
    }
    info = *result;
  }
  if (json) {
    // The same fields as ServerInfo's for this binary (none holds a quote or a backslash).
    std::string text = "{\n\"client\": {\"version\": \"" + std::string(kVersion) +
                       "\", \"git_commit\": \"" + std::string(kGitCommit) + "\", \"build\": \"" +
                       std::string(kBuildType) + ", " + std::string(kCompiler) + "\"}";
    if (connection != nullptr) text += ",\n\"server\": " + ProtoJson(info);
    out << text << "}\n";
    return kExitOk;
  }
  out << server::VersionText("tether") << '\n';
  if (connection == nullptr) return kExitOk;
  out << "server " << connection->description() << ": tether-server " << info.version()
      << " (commit " << info.git_commit() << ", " << info.build() << ")"
      << (info.draining() ? ", draining" : "") << "\n  methods:";
  for (const std::string& method : info.methods()) out << " " << method;
  out << "\n  limits: " << info.max_sessions() << " sessions, " << info.max_streams()
      << " streams, " << info.max_frame_samples() << " samples per frame, "
      << info.max_spec_bytes() << " spec bytes (" << info.max_spec_variables()
      << " variables, " << info.max_spec_constraints() << " constraints, "
      << info.max_spec_nodes() << " expression nodes), " << info.max_steps_per_stream()
      << " steps per stream; idle sessions live " << FormatShort(info.session_ttl_seconds(), 6)
      << " s\n";
  return kExitOk;
}

}  // namespace tether::cli
