// The text of a model spec named on the command line: a file, or "-" for standard input
// (`tether validate - < spec.json`, `generate | tether run --spec -`).
#pragma once

#include <string>

namespace tether::cli {

// false and *why ("cannot read 'x.json': No such file or directory") when it cannot be read, is
// empty, or is not UTF-8 text ("'x.bin' is not UTF-8 text (byte 0x9f at offset 12), ...").
bool ReadSpecText(const std::string& path, std::string* text, std::string* why);

}  // namespace tether::cli
