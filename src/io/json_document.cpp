#include "kspeed/io/json_document.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::io {

namespace {

constexpr std::size_t kMaxDepth = 32;
// A number longer than this is not a figure anyone writes; refusing it keeps strtod linear.
constexpr std::size_t kMaxNumberChars = 100;

struct LineColumn {
  std::size_t line = 1;
  std::size_t column = 1;
};

LineColumn locate(std::string_view text, std::size_t byte_offset) {
  LineColumn where;
  const std::size_t end = std::min(byte_offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

bool looks_binary(std::string_view text) {
  return text.find('\0') != std::string_view::npos;
}

bool is_json_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// One linear pass over the text before nlohmann parses it, for what nlohmann's DOM parser does
// not check or checks too dearly: nesting depth (its parse callback, the other way to limit
// depth, makes an array of objects cost O(n^2)), duplicate keys (it keeps the last silently)
// and numbers that overflow a double (it throws out_of_range.406 without a place). The pass is
// tolerant: at anything it does not expect it stops and leaves the syntax error to nlohmann.
class StructureCheck {
 public:
  StructureCheck(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}

  void run() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (c == '{' || c == '[') {
        if (levels_.size() == kMaxDepth) {
          throw InputError(name_ + ": nesting is deeper than " + std::to_string(kMaxDepth) +
                           " levels: expected a flat kspeed document");
        }
        levels_.push_back(Level{c == '{', {}, {}, 0});
        ++i;
      } else if (c == '}' || c == ']') {
        if (levels_.empty()) return;
        levels_.pop_back();
        ++i;
      } else if (c == ',') {
        if (!levels_.empty() && !levels_.back().object) ++levels_.back().index;
        ++i;
      } else if (c == '"') {
        const std::size_t after = string_end(i);
        if (after == std::string_view::npos) return;
        note_key(i, after);
        i = after;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        i = check_number(i);
      } else {
        ++i;
      }
    }
  }

 private:
  struct Level {
    bool object = false;
    std::string key;                                    // the member being read (objects)
    std::unordered_map<std::string, std::size_t> seen;  // key -> byte offset (objects)
    std::size_t index = 0;                              // the element being read (arrays)
  };

  // Just after the closing quote of the string opening at `open`, or npos when it never closes.
  std::size_t string_end(std::size_t open) const {
    for (std::size_t i = open + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        ++i;
      } else if (text_[i] == '"') {
        return i + 1;
      }
    }
    return std::string_view::npos;
  }

  // A string followed by ':' inside an object is a key: remember it, refuse it twice.
  void note_key(std::size_t open, std::size_t after) {
    if (levels_.empty() || !levels_.back().object) return;
    std::size_t next = after;
    while (next < text_.size() && is_json_space(text_[next])) ++next;
    if (next >= text_.size() || text_[next] != ':') return;
    const std::string_view raw = text_.substr(open + 1, after - open - 2);
    std::string key(raw);
    if (raw.find('\\') != std::string_view::npos) {
      const nlohmann::json decoded =
          nlohmann::json::parse(text_.substr(open, after - open), nullptr, false);
      if (!decoded.is_string()) return;  // a bad escape: nlohmann says where
      key = decoded.get<std::string>();
    }
    Level& level = levels_.back();
    const auto [first, inserted] = level.seen.emplace(key, open);
    if (!inserted) {
      const LineColumn earlier = locate(text_, first->second);
      fail(open, "the key '" + excerpt(key) + "' appears twice in one object (first at line " +
                     std::to_string(earlier.line) +
                     "): JSON readers disagree on which one counts; keep one");
    }
    level.key = std::move(key);
  }

  std::size_t check_number(std::size_t start) {
    std::size_t end = start;
    bool plain_integer = true;
    while (end < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[end])) != 0 || text_[end] == '-' ||
            text_[end] == '+' || text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E')) {
      if (text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E') plain_integer = false;
      ++end;
    }
    const std::string_view number = text_.substr(start, end - start);
    if (number.size() > kMaxNumberChars) {
      fail(start, "a number of " + std::to_string(number.size()) +
                      " characters: expected a plain figure (at most " +
                      std::to_string(kMaxNumberChars) + " characters)");
    }
    // Integers too long for 64 bits are read as doubles, which holds any 100-digit integer.
    if (!plain_integer) {
      const double value = std::strtod(std::string(number).c_str(), nullptr);
      if (std::isinf(value)) {
        fail(start, "the number " + excerpt(number) +
                        " is beyond the range of a double (about 1.8e308): expected a "
                        "plausible figure");
      }
    }
    return end;
  }

  // The field being read, as JsonReader names it ("request.ttft_ms", "patterns[2].regex").
  std::string path() const {
    std::string out;
    for (const Level& level : levels_) {
      if (level.object) {
        if (level.key.empty()) continue;
        out += (out.empty() ? "" : ".") + excerpt(level.key);
      } else {
        out += "[" + std::to_string(level.index) + "]";
      }
    }
    return out.empty() ? std::string("top level") : out;
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    const LineColumn where = locate(text_, offset);
    throw InputError(name_ + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                     ": " + path() + ": " + message);
  }

  std::string_view text_;
  std::string name_;
  std::vector<Level> levels_;
};

}  // namespace

std::string describe_json_type(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

std::optional<std::size_t> json_nesting_beyond(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::string json_value_excerpt(const nlohmann::json& value, std::size_t limit) {
  const auto scalar = [](const nlohmann::json& v) {
    return v.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  };
  if (!value.is_structured()) return scalar(value);
  // An explicit stack of open containers: each level is a frame on the heap, not the stack.
  struct Frame {
    const nlohmann::json* container;
    nlohmann::json::const_iterator next;
  };
  std::string out(value.is_object() ? "{" : "[");
  std::vector<Frame> open{{&value, value.cbegin()}};
  while (!open.empty() && out.size() <= limit) {
    Frame& top = open.back();
    if (top.next == top.container->cend()) {
      out += top.container->is_object() ? '}' : ']';
      open.pop_back();
      continue;
    }
    if (top.next != top.container->cbegin()) out += ',';
    const nlohmann::json::const_iterator item = top.next++;
    if (top.container->is_object()) out += scalar(nlohmann::json(item.key())) + ":";
    if (item->is_structured()) {
      out += item->is_object() ? '{' : '[';
      open.push_back({&*item, item->cbegin()});
    } else {
      out += scalar(*item);
    }
  }
  return out;
}

std::string join_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

nlohmann::json parse_json_document(std::string_view text, std::string_view source) {
  const std::string name(source);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw InputError(name + ": the file is empty: expected a JSON object");
  }
  if (looks_binary(text)) {
    throw InputError(name + ": the file is " + describe_binary(text) + "; expected JSON text");
  }
  StructureCheck(text, name).run();
  try {
    return nlohmann::json::parse(text, nullptr, true, false);
  } catch (const nlohmann::json::parse_error& error) {
    const LineColumn where = locate(text, error.byte == 0 ? 0 : error.byte - 1);
    const bool truncated = error.byte >= text.size();
    const std::string what = error.what();
    // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1,
    // column 2: "; kspeed states the place itself, so keep only what follows.
    const std::size_t colon = what.find(": ", what.find("parse error"));
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    throw InputError(
        name + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " +
        (truncated ? "the JSON ends early (truncated file?): " : "not valid JSON: ") + detail);
  } catch (const nlohmann::json::exception& error) {
    // StructureCheck refuses what nlohmann reports as out_of_range; this is the safety net.
    throw InputError(name + ": not a document kspeed can read: " + error.what());
  }
}

void check_json_document(std::string_view text, std::string_view source) {
  // A valid text is accepted by nlohmann's validating parser, which keeps nothing; only a text
  // it refuses is parsed in full, for parse_json_document's message with the line and column.
  // StructureCheck (duplicate keys, depth, number ranges) runs either way.
  const std::string name(source);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos || looks_binary(text)) {
    (void)parse_json_document(text, source);
    return;
  }
  StructureCheck(text, name).run();
  if (!nlohmann::json::accept(text)) (void)parse_json_document(text, source);
}

void JsonReader::fail(std::string_view path, std::string_view message) const {
  throw InputError(source_ + ": " + (path.empty() ? std::string("top level") : std::string(path)) +
                   ": " + std::string(message));
}

void JsonReader::expect_object(const nlohmann::json& value, std::string_view path,
                               const std::vector<std::string>& known) const {
  if (!value.is_object()) {
    fail(path, "expected an object, found " + describe_json_type(value));
  }
  for (const auto& item : value.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      fail(join_path(path, excerpt(item.key())),
           "unknown key '" + excerpt(item.key()) + "'" + suggestion_suffix(item.key(), known));
    }
  }
}

const nlohmann::json& JsonReader::required(const nlohmann::json& object, std::string_view path,
                                           const std::string& key) const {
  const auto found = object.find(key);
  if (found == object.end()) {
    fail(path, "missing required key '" + key + "'");
  }
  return *found;
}

std::string JsonReader::string_value(const nlohmann::json& value, std::string_view path) const {
  if (!value.is_string()) {
    fail(path, "expected a string, found " + describe_json_type(value));
  }
  return value.get<std::string>();
}

double JsonReader::number_value(const nlohmann::json& value, std::string_view path) const {
  if (!value.is_number()) {
    fail(path, "expected a number, found " + describe_json_type(value));
  }
  return value.get<double>();
}

double JsonReader::positive_number(const nlohmann::json& value, std::string_view path) const {
  const double number = number_value(value, path);
  if (!(number > 0)) {
    fail(path, "expected a number greater than 0, found " + value.dump());
  }
  return number;
}

double JsonReader::number_in_range(const nlohmann::json& value, std::string_view path,
                                   const NumberRange& range) const {
  const double number = range.min > 0 ? positive_number(value, path) : number_value(value, path);
  if (!(number >= range.min && number <= range.max)) {
    fail(path, "expected " + std::string(range.expected) + ", found " + value.dump());
  }
  return number;
}

std::int64_t JsonReader::token_count(const nlohmann::json& value, std::string_view path) const {
  if (value.is_string()) {
    return parse_token_count(value.get<std::string>(), source_ + ": " + std::string(path));
  }
  if (!value.is_number_integer() && !value.is_number_unsigned()) {
    fail(path, "expected a whole number of tokens (4096) or a string like \"128k\", found " +
                   (value.is_number() ? value.dump() : describe_json_type(value)));
  }
  if (value.is_number_unsigned() ? value.get<std::uint64_t>() < 1 : value.get<std::int64_t>() < 1) {
    fail(path, "expected a token count of at least 1, found " + value.dump());
  }
  if (value.is_number_unsigned() ? value.get<std::uint64_t>() > std::uint64_t{kMaxTokens}
                                 : value.get<std::int64_t>() > kMaxTokens) {
    fail(path, "token count " + value.dump() + " is too large: expected at most 134,217,728");
  }
  return value.get<std::int64_t>();
}

double JsonReader::duration_ms(const nlohmann::json& value, std::string_view path) const {
  if (value.is_string()) {
    return parse_duration_ms(value.get<std::string>(), source_ + ": " + std::string(path));
  }
  if (!value.is_number()) {
    fail(path,
         "expected milliseconds as a number (500) or a string with a unit (\"0.5s\"), "
         "found " +
             describe_json_type(value));
  }
  const double milliseconds = positive_number(value, path);
  if (milliseconds < kMinDurationMs) {
    fail(path, "expected at least 1e-6 ms (1 ns), found " + value.dump());
  }
  if (milliseconds > kMaxDurationMs) {
    fail(path, "expected at most 1e9 ms (about 11.6 days), found " + value.dump());
  }
  return milliseconds;
}

double JsonReader::share(const nlohmann::json& value, std::string_view path) const {
  if (value.is_string()) {
    return parse_share(value.get<std::string>(), source_ + ": " + std::string(path));
  }
  const double number = number_value(value, path);
  if (number < 0 || number > 1) {
    fail(path, "expected a share from 0 to 1, found " + value.dump());
  }
  return number;
}

}  // namespace kspeed::io
