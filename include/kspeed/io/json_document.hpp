#pragma once
// Reading small JSON documents (workloads, models, GPUs) strictly: the document must be JSON,
// not too deeply nested, every field of the expected type, and no key kspeed does not know.
// Each error names the source, the field's path, what was expected and what was found.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::io {

/// Parses `text` (named `source` in errors), in time linear in its size. Rejects empty, binary,
/// malformed, truncated and nested-deeper-than-32 documents, duplicate keys and numbers beyond
/// a double's range, with the line, column and field of the problem.
nlohmann::json parse_json_document(std::string_view text, std::string_view source);

/// parse_json_document's checks without keeping the parse: throws the same InputError for the
/// same text, and builds no tree for a valid one (a 43 MB document's tree is about its size).
void check_json_document(std::string_view text, std::string_view source);

/// The plausible values of a figure, for JsonReader::number_in_range.
struct NumberRange {
  double min = 0;             ///< smallest accepted value (inclusive)
  double max = 0;             ///< largest accepted value (inclusive)
  std::string_view expected;  ///< for the message, e.g. "TB/s from 0.01 to 100"
};

/// Field access that explains itself. `path` is the field's location, e.g. "request.ttft_ms".
class JsonReader {
 public:
  explicit JsonReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  /// Throws InputError "<source>: <path>: <message>".
  [[noreturn]] void fail(std::string_view path, std::string_view message) const;

  /// Requires an object whose keys are all in `known` (did-you-mean otherwise).
  void expect_object(const nlohmann::json& value, std::string_view path,
                     const std::vector<std::string>& known) const;
  /// Requires `key` to be present in `object` (which is at `path`).
  const nlohmann::json& required(const nlohmann::json& object, std::string_view path,
                                 const std::string& key) const;

  std::string string_value(const nlohmann::json& value, std::string_view path) const;
  double number_value(const nlohmann::json& value, std::string_view path) const;
  double positive_number(const nlohmann::json& value, std::string_view path) const;
  /// A number inside `range` (NaN and infinities are outside every range); with a positive
  /// minimum, zero and negative numbers get positive_number's message first.
  double number_in_range(const nlohmann::json& value, std::string_view path,
                         const NumberRange& range) const;
  /// A whole number >= 1, or a string with a k/m suffix ("128k").
  std::int64_t token_count(const nlohmann::json& value, std::string_view path) const;
  /// Milliseconds: a number, or a string with a unit ("0.5s").
  double duration_ms(const nlohmann::json& value, std::string_view path) const;
  /// A share: a number in [0, 1], or a percentage string ("85%").
  double share(const nlohmann::json& value, std::string_view path) const;

 private:
  std::string source_;
};

/// The deepest nesting a request log's record, a benchmark result or a trace event may have:
/// 64 levels (a kspeed document: 32). Real files nest under 10; the limit keeps every reader
/// and every message about a value linear and off the stack's edge.
inline constexpr std::size_t kMaxRecordDepth = 64;

/// The byte offset of the first '{' or '[' that opens a level deeper than `limit` in `text`
/// (strings skipped), or nullopt. One linear pass; tolerant of malformed text.
std::optional<std::size_t> json_nesting_beyond(std::string_view text, std::size_t limit);

/// The compact JSON text of `value`, cut after about `limit` characters, written without
/// recursion (nlohmann's dump() recurses once per level of nesting), for quoting a bad value.
std::string json_value_excerpt(const nlohmann::json& value, std::size_t limit);

/// "a string", "a number", "an object", ... for messages.
std::string describe_json_type(const nlohmann::json& value);

/// `parent.key` or `key` at the top.
std::string join_path(std::string_view parent, std::string_view key);

}  // namespace kspeed::io
