#include "client/xml_check.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tether::test {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

// Parses the file and prints the root tag; a parse error goes to stdout as "error: …".
constexpr const char* kScript =
    "import sys, xml.etree.ElementTree as E\n"
    "try:\n"
    "    print(E.parse(sys.argv[1]).getroot().tag)\n"
    "except Exception as e:\n"
    "    print('error: %s' % e)\n";

std::string RunParser(const std::string& path) {
  const std::string command = std::string(kPython) + " -c \"$TETHER_XML_SCRIPT\" '" + path + "' 2>&1";
  setenv("TETHER_XML_SCRIPT", kScript, 1);
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "error: cannot run " + std::string(kPython);
  std::array<char, 512> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) output += buffer.data();
  pclose(pipe);
  while (!output.empty() && output.back() == '\n') output.pop_back();
  return output;
}

}  // namespace

bool IsWellFormedSvgFile(const std::string& path, std::string* why) {
  const std::string root = RunParser(path);
  *why = root;
  return root == "{http://www.w3.org/2000/svg}svg";
}

bool IsWellFormedXml(const std::string& text, std::string* why) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tether_xml_check_" + std::to_string(getpid()) + ".xml");
  {
    std::ofstream out(path);
    out << text;
  }
  const std::string root = RunParser(path.string());
  std::filesystem::remove(path);
  *why = root;
  return root.rfind("error:", 0) != 0 && !root.empty();
}

}  // namespace tether::test
