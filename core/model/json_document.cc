#include "model/json_document.h"

#include <set>
#include <string>
#include <utility>

namespace tether::model {
namespace {

// A spec nests at most four levels (mass[i][j], parameters.m.value); deeper JSON is refused
// at once rather than built.
constexpr std::size_t kMaxNesting = 16;

// SAX handler that builds the DOM through nlohmann's own builder while tracking the JSON path
// of the current value, so that duplicate keys and overflowing numbers are reported by path.
class DocumentBuilder {
 public:
  DocumentBuilder(std::string_view text, Json& root, std::vector<SpecProblem>& problems)
      : text_(text), dom_(root, /*allow_exceptions_=*/false), problems_(problems) {}

  bool null() { return Scalar(dom_.null()); }
  bool boolean(bool value) { return Scalar(dom_.boolean(value)); }
  bool number_integer(Json::number_integer_t value) { return Scalar(dom_.number_integer(value)); }
  bool number_unsigned(Json::number_unsigned_t value) {
    return Scalar(dom_.number_unsigned(value));
  }
  bool number_float(Json::number_float_t value, const Json::string_t& text) {
    return Scalar(dom_.number_float(value, text));
  }
  bool string(Json::string_t& value) { return Scalar(dom_.string(value)); }
  bool binary(Json::binary_t& value) { return Scalar(dom_.binary(value)); }

  bool start_object(std::size_t size) {
    if (!Open()) return false;
    frames_.push_back(Frame{});
    return dom_.start_object(size);
  }
  bool key(Json::string_t& name) {
    Frame& frame = frames_.back();
    frame.key = name;
    if (!frame.keys.insert(name).second) {
      problems_.push_back(
          {Path(), 0, "duplicate key '" + name + "' (JSON keeps only one of the values)"});
    }
    return dom_.key(name);
  }
  bool end_object() { return Close(dom_.end_object()); }
  bool start_array(std::size_t size) {
    if (!Open()) return false;
    Frame frame;
    frame.array = true;
    frames_.push_back(std::move(frame));
    return dom_.start_array(size);
  }
  bool end_array() { return Close(dom_.end_array()); }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& error) {
    constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406
    // `position` counts the bytes read up to the end of the offending token, where nlohmann's
    // own message points too (`last_token` may include text before the token, so it cannot
    // locate the token's start).
    const TextPosition where = PositionOf(text_, position == 0 ? 0 : position - 1);
    const std::string at =
        "line " + std::to_string(where.line) + ", column " + std::to_string(where.column);
    if (error.id == kNumberOverflow) {
      problems_.push_back(
          {Path(), 0, "number " + last_token + " at " + at + " is not a finite double"});
    } else {
      problems_.push_back({"", 0, "invalid JSON at " + at + ": " + Reason(error.what())});
    }
    failed_ = true;
    return false;
  }

  [[nodiscard]] bool failed() const { return failed_; }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;  // arrays: index of the next element
    std::string key;        // objects: the current key
    std::set<std::string> keys;
  };

  bool Open() {
    if (frames_.size() < kMaxNesting) return true;
    problems_.push_back({Path(), 0,
                         "JSON nested deeper than " + std::to_string(kMaxNesting) +
                             " levels; a model spec needs at most 4"});
    failed_ = true;
    return false;
  }

  bool Scalar(bool ok) {
    Advance();
    return ok;
  }
  bool Close(bool ok) {
    frames_.pop_back();
    Advance();
    return ok;
  }
  void Advance() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  // Path of the current value, e.g. "mass[1][0]" or "parameters.m".
  [[nodiscard]] std::string Path() const {
    std::string path;
    for (const Frame& frame : frames_) {
      if (frame.array) {
        path += "[" + std::to_string(frame.index) + "]";
      } else {
        path += (path.empty() ? "" : ".") + frame.key;
      }
    }
    return path;
  }
  // nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 2:
  // syntax error while parsing value - ..."; keep the part after the position.
  static std::string Reason(std::string_view what) {
    const std::size_t colon = what.find(": ");
    return std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
  }

  std::string_view text_;
  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::vector<SpecProblem>& problems_;
  std::vector<Frame> frames_;
  bool failed_ = false;
};

}  // namespace

TextPosition PositionOf(std::string_view text, std::size_t offset) {
  TextPosition position;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

std::optional<Json> ReadJsonDocument(std::string_view text, std::vector<SpecProblem>& problems) {
  Json root;
  DocumentBuilder builder(text, root, problems);
  const bool ok = Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (!ok || builder.failed()) return std::nullopt;
  return root;
}

}  // namespace tether::model
