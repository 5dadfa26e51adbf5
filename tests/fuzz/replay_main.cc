// Without libFuzzer: runs LLVMFuzzerTestOneInput once on every file of the directories (or on
// the files) given, so that the committed corpus is a regression test in every build. A crash,
// a sanitizer report or an abort fails the test; the file is named first.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int Replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", file.c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int failures = 0;
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (!entry.is_regular_file()) continue;
        failures += Replay(entry.path());
        ++count;
      }
    } else {
      failures += Replay(path);
      ++count;
    }
  }
  std::fprintf(stderr, "%zu inputs replayed\n", count);
  if (count == 0) {
    std::fprintf(stderr, "no inputs: give a corpus directory\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
