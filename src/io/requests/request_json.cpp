#include "request_json.hpp"

#include <cmath>

#include "kspeed/io/json_document.hpp"
#include "kspeed/io/units.hpp"

namespace kspeed::io::requests {

nlohmann::json parse_json_tight(std::string_view text) {
  // Below a megabyte (a JSONL line) the plain parser: the callback costs time on every value.
  constexpr std::size_t kTightFrom = std::size_t{1} << 20;
  if (text.size() < kTightFrom) return nlohmann::json::parse(text, nullptr, false);
  // An array grows by doubling as it is parsed: 70 gaps of a vLLM --save-detailed `itls` entry
  // sit in room for 128. Each array is trimmed when it closes (same values, half the room).
  const nlohmann::json::parser_callback_t trim = [](int, nlohmann::json::parse_event_t event,
                                                    nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::array_end && parsed.is_array()) {
      parsed.get_ref<nlohmann::json::array_t&>().shrink_to_fit();
    }
    return true;
  };
  return nlohmann::json::parse(text, trim, false);
}

std::optional<nlohmann::json> parse_json_text(std::string_view text, RowProblem& problem) {
  // Deeper than any real record: refused before nlohmann builds it, so no later step (a copy,
  // a message quoting the value) walks a 100,000-level tree.
  if (const std::optional<std::size_t> at = json_nesting_beyond(text, kMaxRecordDepth)) {
    problem = {"nested deeper than " + std::to_string(kMaxRecordDepth) + " levels",
               "the JSON nests deeper than " + std::to_string(kMaxRecordDepth) +
                   " levels (at character " + std::to_string(*at + 1) +
                   "): expected a flat record (real logs nest under 10 levels)"};
    return std::nullopt;
  }
  // Python's json.dumps writes Infinity and NaN, which strict JSON forbids.
  const bool nonfinite =
      text.find("Infinity") != std::string_view::npos || text.find("NaN") != std::string_view::npos;
  const std::string cleaned = nonfinite ? without_nonfinite_literals(text) : std::string();
  const std::string_view parsed = nonfinite ? std::string_view(cleaned) : text;
  nlohmann::json value = parse_json_tight(parsed);
  if (value.is_discarded()) {
    if (const std::optional<std::string> number = number_beyond_double(parsed)) {
      const std::string field = number_field(parsed, *number);
      problem = {"a number beyond a double",
                 "the number " + excerpt(*number) +
                     (field.empty() ? std::string() : " (field " + excerpt(field) + ")") +
                     " is beyond the range of a double (about 1.8e308): expected a plausible "
                     "figure"};
      return std::nullopt;
    }
    problem = {"not a complete JSON value",
               "'" + excerpt(text, 50) + "' is not a complete JSON value (" +
                   std::to_string(text.size()) +
                   " characters; truncated?): expected one JSON object per line"};
    return std::nullopt;
  }
  return value;
}

std::string number_field(std::string_view text, std::string_view number) {
  // The key just before the number ("ttft": 1e309 -> ttft); empty in an array or when unsure.
  const std::size_t at = text.find(number);
  if (at == std::string_view::npos) return {};
  std::size_t i = text.find_last_not_of(" \t\r\n", at == 0 ? 0 : at - 1);
  if (at == 0 || i == std::string_view::npos || text[i] != ':') return {};
  i = text.find_last_not_of(" \t\r\n", i == 0 ? 0 : i - 1);
  if (i == std::string_view::npos || i == 0 || text[i] != '"') return {};
  const std::size_t open = text.rfind('"', i - 1);
  if (open == std::string_view::npos) return {};
  return std::string(text.substr(open + 1, i - open - 1));
}

std::optional<std::string> number_beyond_double(std::string_view text) {
  // The parser's own diagnosis: out_of_range 406, "number overflow parsing '1e400'". Parsing
  // again with exceptions costs one more pass, on a line that failed already.
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
  } catch (const nlohmann::json::out_of_range& error) {
    const std::string_view message = error.what();
    const std::size_t open = message.find('\'');
    const std::size_t close = message.rfind('\'');
    if (error.id == 406 && open != std::string_view::npos && close > open) {
      return std::string(message.substr(open + 1, close - open - 1));
    }
  } catch (const nlohmann::json::exception&) {
  }
  return std::nullopt;
}

std::optional<nlohmann::json> json_object_or_none(std::string_view text) {
  RowProblem ignored;
  std::optional<nlohmann::json> value = parse_json_text(text, ignored);
  if (!value || !value->is_object()) return std::nullopt;
  return value;
}

const nlohmann::json* member(const nlohmann::json& object,
                             std::initializer_list<const char*> keys) {
  if (!object.is_object()) return nullptr;
  for (const char* key : keys) {
    const auto found = object.find(key);
    if (found != object.end()) return &*found;
  }
  return nullptr;
}

std::string json_excerpt(const nlohmann::json& value) {
  return excerpt(json_value_excerpt(value, 40), 40);
}

std::optional<std::int64_t> json_tokens(const nlohmann::json* value, std::string_view field,
                                        std::int64_t minimum, RowProblem& problem) {
  const std::string expected = minimum > 0 ? "a whole number >= 1" : "a whole number >= 0";
  if (value == nullptr) {
    problem = {std::string(field) + " is missing",
               std::string(field) + " is missing: expected " + expected + " of tokens"};
    return std::nullopt;
  }
  if (value->is_number()) {
    const double number = value->get<double>();
    if (std::isfinite(number) && number == std::floor(number) &&
        number >= static_cast<double>(minimum) && number <= static_cast<double>(kMaxTokens)) {
      return static_cast<std::int64_t>(number);
    }
  }
  problem = {
      std::string(field) + " is not " + expected,
      std::string(field) + " is " + json_excerpt(*value) + ": expected " + expected + " of tokens"};
  return std::nullopt;
}

std::optional<double> json_duration(const nlohmann::json* value, std::string_view field,
                                    double scale, RowProblem& problem) {
  if (value != nullptr && value->is_number()) {
    const double ms = value->get<double>() * scale;
    if (std::isfinite(ms) && ms >= 0 && ms <= kMaxDurationMs) return ms;
  }
  problem = {std::string(field) + " is not a duration >= 0",
             std::string(field) + " is " + (value ? json_excerpt(*value) : "missing") +
                 ": expected a finite number >= 0"};
  return std::nullopt;
}

std::optional<std::int64_t> json_timestamp_ns(const nlohmann::json* value, double unit_ns) {
  if (value == nullptr || !value->is_number()) return std::nullopt;
  if (value->is_number_integer()) {
    const auto whole = value->is_number_unsigned()
                           ? static_cast<double>(value->get<std::uint64_t>())
                           : static_cast<double>(value->get<std::int64_t>());
    if (std::abs(whole * unit_ns) >= 9.2e18) return std::nullopt;
    if (value->is_number_unsigned()) {
      return static_cast<std::int64_t>(value->get<std::uint64_t>()) *
             static_cast<std::int64_t>(unit_ns);
    }
    return value->get<std::int64_t>() * static_cast<std::int64_t>(unit_ns);
  }
  const double number = value->get<double>() * unit_ns;
  if (!std::isfinite(number) || std::abs(number) >= 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(number));
}

bool read_json_document(LogInput& input) {
  // The head is the document's first line, often all of it (json.dump writes one line): taken,
  // not copied, and given back when the text is not a JSON document (the callers quote it).
  const std::size_t head_size = input.head.size();
  std::string document_text = std::move(input.head);
  std::string line;
  while (input.rest->next(line)) {
    if (document_text.size() + line.size() >= input.rest->limit()) {
      input.rest->refuse_long(input.head_line);
    }
    document_text += '\n';
    document_text += line;
  }
  RowProblem problem;
  const std::optional<nlohmann::json> document = parse_json_text(document_text, problem);
  document_text.resize(head_size);
  input.head = std::move(document_text);
  if (!document) return false;
  // Tried last among the JSON readers: deciding needs the whole document.
  return read_vllm_json(input, *document) || read_guidellm_json(input, *document) ||
         refuse_llmd_report(input, *document) || refuse_aggregate_result(input, *document);
}

}  // namespace kspeed::io::requests
