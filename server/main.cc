// tether-server: parses flags (each also read from a TETHER_* environment variable; flags.h)
// into a ServerConfig and runs the server until SIGTERM/SIGINT.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "tether/server/flags.h"
#include "tether/server/server.h"

int main(int argc, char** argv) {
  CLI::App app{"tether-server: the tether gRPC simulation service (tether.v1.SimulationService, "
               "grpc.health.v1, reflection)"};
  app.set_version_flag("--version", tether::server::VersionText("tether-server"));
  tether::server::ServerFlags flags;
  tether::server::AddServerFlags(&app, &flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return tether::server::ReportFlagError(app, error, argc, argv, "tether-server");
  }
  tether::server::ServerConfig config;
  if (std::string why; !flags.Resolve(&config, &why)) {
    std::fprintf(stderr, "tether-server: %s\n", why.c_str());
    return 2;
  }
  return tether::server::RunServer(config);
}
