// tether-server: parses flags (each also read from a TETHER_* environment variable; flags.h)
// into a ServerConfig and runs the server until SIGTERM/SIGINT; `hash-token` makes a token
// file line.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "tether/server/flags.h"
#include "tether/server/server.h"

int main(int argc, char** argv) {
  CLI::App app{"tether-server: the tether gRPC simulation service (tether.v1.SimulationService, "
               "grpc.health.v1, reflection)"};
  app.set_version_flag("--version", tether::server::VersionText("tether-server"));
  tether::server::ServerFlags flags;
  tether::server::AddServerFlags(&app, &flags);
  std::string tenant;
  CLI::App* hash_token = app.add_subcommand(
      "hash-token",
      "Print the --token-file line of a token read from standard input: TENANT:SALT:HASH, "
      "with a random salt (e.g. `head -c 32 /dev/urandom | base64 | tee token | "
      "tether-server hash-token --tenant team-a >> tokens`)");
  hash_token->add_option("--tenant", tenant, "the tenant the token acts for ([a-z][a-z0-9_-]*)")
      ->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return tether::server::ReportFlagError(app, error, argc, argv, "tether-server");
  }
  if (*hash_token) {
    return tether::server::HashTokenCommand(tenant, std::cin, std::cout, std::cerr);
  }
  tether::server::ServerConfig config;
  if (std::string why; !flags.Resolve(&config, &why)) {
    std::fprintf(stderr, "tether-server: %s\n", why.c_str());
    return 2;
  }
  return tether::server::RunServer(config);
}
