#include "tether/client/client_options.h"

namespace tether::client {
namespace {

bool Fail(std::string* why, const std::string& message) {
  if (why != nullptr) *why = message;
  return false;
}

std::string Ms(std::chrono::milliseconds value) { return std::to_string(value.count()); }

}  // namespace

bool ClientOptions::IsValid(std::string* why) const {
  using std::chrono::milliseconds;
  if (deadline <= milliseconds(0)) {
    return Fail(why, "ClientOptions::deadline = " + Ms(deadline) + " ms; must be > 0");
  }
  if (stream_deadline < milliseconds(0)) {
    return Fail(why, "ClientOptions::stream_deadline = " + Ms(stream_deadline) + " ms; must be >= 0");
  }
  if (max_attempts < 1) {
    return Fail(why, "ClientOptions::max_attempts = " + std::to_string(max_attempts) + "; must be >= 1");
  }
  if (initial_backoff <= milliseconds(0)) {
    return Fail(why, "ClientOptions::initial_backoff = " + Ms(initial_backoff) + " ms; must be > 0");
  }
  if (max_backoff < initial_backoff) {
    return Fail(why, "ClientOptions::max_backoff = " + Ms(max_backoff) +
                         " ms; must be >= initial_backoff (" + Ms(initial_backoff) + " ms)");
  }
  if (!(backoff_multiplier >= 1.0)) {
    return Fail(why, "ClientOptions::backoff_multiplier = " + std::to_string(backoff_multiplier) +
                         "; must be >= 1");
  }
  return true;
}

}  // namespace tether::client
