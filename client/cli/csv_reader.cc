#include "cli/csv_reader.h"

namespace tether::cli {
namespace {

// The state of the record being read.
struct RecordBuilder {
  CsvRecord record;
  std::string field;
  bool quoted = false;      // inside "..."
  bool was_quoted = false;  // the current field started with a quote
  bool any = false;         // the record has any character

  void EndField() {
    record.fields.push_back(std::move(field));
    field.clear();
    was_quoted = false;
  }
};

}  // namespace

bool ReadCsv(std::istream& in, std::vector<CsvRecord>* records, std::string* why) {
  RecordBuilder b;
  int line = 1;
  b.record.line = 1;
  char c = 0;
  auto finish_record = [&] {
    if (b.any) {
      b.EndField();
      records->push_back(std::move(b.record));
    }
    b = RecordBuilder{};
    b.record.line = line;
  };
  while (in.get(c)) {
    if (b.quoted) {
      if (c == '"') {
        if (in.peek() == '"') {
          in.get(c);
          b.field += '"';
          b.record.text += "\"\"";
          continue;
        }
        b.quoted = false;
      } else {
        if (c == '\n') ++line;
        b.field += c;
      }
      b.record.text += c;
      continue;
    }
    if (c == '\r' && in.peek() == '\n') continue;  // CRLF: the LF ends the record
    if (c == '\n') {
      ++line;
      finish_record();
      continue;
    }
    b.any = true;
    b.record.text += c;
    if (c == ',') {
      b.EndField();
    } else if (c == '"' && b.field.empty() && !b.was_quoted) {
      b.quoted = b.was_quoted = true;
    } else if (c == '"') {
      *why = "line " + std::to_string(line) +
             ": a quote inside an unquoted field (quote the field and double the quote)";
      return false;
    } else {
      b.field += c;
    }
  }
  if (b.quoted) {
    *why = "line " + std::to_string(b.record.line) + ": unterminated quoted field";
    return false;
  }
  finish_record();
  return true;
}

}  // namespace tether::cli
