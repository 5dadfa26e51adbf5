// Reading CSV (RFC 4180): fields separated by commas, records by CRLF or LF; a field in double
// quotes may hold commas, quotes (doubled) and line breaks. The writer's counterpart
// (csv_writer.h); used for `tether sweep --from params.csv` and to read a sweep's own output back
// for --resume.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace tether::cli {

struct CsvRecord {
  std::vector<std::string> fields;
  int line = 0;      // 1-based line the record starts on, for messages
  std::string text;  // the record as it appeared in the input, without its line ending
};

// Reads every record of `in` (a last line without a line ending included; empty lines skipped).
// False with *why ("line 4: unterminated quoted field") on malformed input.
bool ReadCsv(std::istream& in, std::vector<CsvRecord>* records, std::string* why);

}  // namespace tether::cli
