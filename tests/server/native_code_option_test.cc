// The server option that turns native code off: --native-code / TETHER_NATIVE_CODE parse into
// ServerConfig::native_code (on by default), and Server::Start applies it process-wide before
// any model is built.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tether/expr/program.h"
#include "tether/server/flags.h"
#include "tether/server/server.h"

namespace tether::server {
namespace {

// The ServerConfig that `args` give (after the program name), or a test failure.
ServerConfig Parse(std::vector<std::string> args) {
  CLI::App app{"test"};
  ServerFlags flags;
  AddServerFlags(&app, &flags);
  args.insert(args.begin(), "tether-server");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    ADD_FAILURE() << e.what();
  }
  ServerConfig config;
  std::string why;
  EXPECT_TRUE(flags.Resolve(&config, &why)) << why;
  return config;
}

TEST(NativeCodeOptionTest, FlagAndVariableTurnItOff) {
  ::unsetenv("TETHER_NATIVE_CODE");
  EXPECT_TRUE(ServerConfig{}.native_code);
  EXPECT_TRUE(Parse({}).native_code);
  EXPECT_FALSE(Parse({"--native-code=off"}).native_code);
  EXPECT_FALSE(Parse({"--native-code", "false"}).native_code);
  EXPECT_TRUE(Parse({"--native-code=on"}).native_code);
  ::setenv("TETHER_NATIVE_CODE", "off", 1);
  EXPECT_FALSE(Parse({}).native_code);
  EXPECT_TRUE(Parse({"--native-code=on"}).native_code);  // the flag overrides the variable
  ::unsetenv("TETHER_NATIVE_CODE");
}

TEST(NativeCodeOptionTest, StartAppliesIt) {
  // Before any server: the default, on where the platform has a backend.
  const bool available = expr::NativeCodeEnabled();
  ServerConfig config;
  config.listen = "";  // in-process only
  config.native_code = false;
  std::string error;
  auto off = Server::Start(config, &error);
  ASSERT_NE(off, nullptr) << error;
  EXPECT_FALSE(expr::NativeCodeEnabled());
  config.native_code = true;
  auto on = Server::Start(config, &error);
  ASSERT_NE(on, nullptr) << error;
  EXPECT_EQ(expr::NativeCodeEnabled(), available);
}

}  // namespace
}  // namespace tether::server
