#include <cmath>
#include <cstdio>
#include <string>

#include "http_sse/sse_server.h"

namespace tether::bench {

std::string FrameJson(int samples) {
  // A pendulum of length 1 swinging at unit frequency: realistic digits, not repeated zeros.
  std::string json = R"({"first_sample":0,"columns":["t","x","y","vx","vy","lambda"],"rows":[)";
  char row[192];
  for (int i = 0; i < samples; ++i) {
    const double t = 1e-2 * i;
    const double x = std::sin(t);
    const double y = -std::cos(t);
    std::snprintf(row, sizeof row, "%s[%.17g,%.17g,%.17g,%.17g,%.17g,%.17g]", i == 0 ? "" : ",",
                  t, x, y, std::cos(t), std::sin(t), 9.81 * std::cos(t) + 1.0);
    json += row;
  }
  json += "]}";
  return json;
}

std::string SseEvent(std::uint64_t id, const std::string& frame) {
  std::string event = "id: " + std::to_string(id) + "\ndata: ";
  event.reserve(event.size() + frame.size() + 2);
  event += frame;
  event += "\n\n";
  return event;
}

}  // namespace tether::bench
