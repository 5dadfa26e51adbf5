#include "cli/session_commands.h"

#include <algorithm>

#include "cli/exit_codes.h"
#include "cli/exit_status.h"
#include "cli/number_format.h"

namespace tether::cli {
namespace {

std::string StateText(v1::SessionState state) {
  switch (state) {
    case v1::SESSION_STATE_CREATED: return "created";
    case v1::SESSION_STATE_RUNNING: return "running";
    case v1::SESSION_STATE_PAUSED: return "paused";
    case v1::SESSION_STATE_FINISHED: return "finished";
    case v1::SESSION_STATE_FAILED: return "failed";
    default: return "unspecified";
  }
}

std::string Pad(std::string text, std::size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

}  // namespace

int SessionsListCommand(Connection& connection, std::ostream& out, std::ostream& err) {
  auto sessions = connection.client().ListAllSessions();
  if (!sessions.ok()) return ReportError(err, "sessions list (" + connection.description() + ")", sessions.error());
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

int SessionsShowCommand(Connection& connection, const std::string& session, std::ostream& out,
                        std::ostream& err) {
  auto result = connection.client().GetSession(session);
  if (!result.ok()) return ReportError(err, "sessions show " + session, result.error());
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

}  // namespace tether::cli
