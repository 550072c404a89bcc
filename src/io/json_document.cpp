#include "kspeed/io/json_document.hpp"

#include <algorithm>

#include "kspeed/error.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::io {

namespace {

constexpr int kMaxDepth = 32;

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

std::string join_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

nlohmann::json parse_json_document(std::string_view text, std::string_view source) {
  const std::string name(source);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw InputError(name + ": the file is empty: expected a JSON object");
  }
  if (looks_binary(text)) {
    throw InputError(name + ": the file is binary (it contains NUL bytes): expected JSON text");
  }
  bool too_deep = false;
  // Reject deep nesting during the parse, before it can cost stack or memory.
  const nlohmann::json::parser_callback_t limit_depth =
      [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > kMaxDepth) {
          too_deep = true;
        }
        return !too_deep;
      };
  try {
    nlohmann::json document = nlohmann::json::parse(text, limit_depth, true, false);
    if (too_deep) {
      throw InputError(name + ": nesting is deeper than " + std::to_string(kMaxDepth) +
                       " levels: expected a flat kspeed document");
    }
    return document;
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
  }
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
      fail(join_path(path, item.key()),
           "unknown key '" + item.key() + "'" + suggestion_suffix(item.key(), known));
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
