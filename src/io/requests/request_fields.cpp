// Field-level parsing shared by the request-log readers: CSV records, numbers with the quirks of
// real files, timestamps, the column-mapping spec, excerpts for errors.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "kspeed/error.hpp"
#include "kspeed/io/units.hpp"
#include "request_readers.hpp"

namespace kspeed::io::requests {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_nonfinite_word(std::string_view text) {
  const std::string word = lower(trim(text));
  return word == "inf" || word == "+inf" || word == "-inf" || word == "infinity" ||
         word == "-infinity" || word == "+infinity" || word == "nan";
}

std::optional<double> to_double(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

void split_csv(std::string_view record, std::vector<std::string>& fields) {
  fields.clear();
  fields.emplace_back();
  bool quoted = false;
  for (std::size_t i = 0; i < record.size(); ++i) {
    const char c = record[i];
    if (quoted) {
      if (c == '"' && i + 1 < record.size() && record[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
}

bool next_csv_record(TextLines& lines, std::string& record, std::int64_t& first_line) {
  if (!lines.next(record)) return false;
  first_line = lines.line_number();
  // A record continues while an odd number of quotes is open ("" escapes come in pairs).
  auto open_quotes = [](std::string_view text) {
    return std::count(text.begin(), text.end(), '"') % 2 == 1;
  };
  bool open = open_quotes(record);
  std::string more;
  while (open && lines.next(more)) {
    if (record.size() + more.size() >= lines.limit()) lines.refuse_long(first_line);
    record += '\n';
    record += more;
    open = open != open_quotes(more);
  }
  return true;
}

std::string header_key(std::string_view name) {
  name = trim(name);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
    name = name.substr(1, name.size() - 2);
  }
  return lower(trim(name));
}

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && out.size() < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4U];
      out += kHex[c & 0xfU];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() >= limit && text.size() > limit) out += "...";
  return out;
}

std::optional<std::int64_t> parse_tokens(std::string_view text, std::string_view field,
                                         std::int64_t minimum, RowProblem& problem) {
  const std::string expected = minimum > 0 ? "a whole number >= 1" : "a whole number >= 0";
  const auto fail = [&](const std::string& why) {
    problem = {std::string(field) + " is not " + expected,
               std::string(field) + " is '" + excerpt(trim(text)) + "'" + why + ": expected " +
                   expected + " of tokens"};
    return std::nullopt;
  };
  if (trim(text).empty()) return fail(" (empty)");
  const std::optional<double> value = to_double(text);
  if (!value || !std::isfinite(*value)) return fail("");
  if (*value != std::floor(*value)) return fail(" (not whole)");
  if (*value < static_cast<double>(minimum)) return fail(*value < 0 ? " (negative)" : "");
  if (*value > static_cast<double>(kMaxTokens)) {
    problem = {std::string(field) + " is out of range",
               std::string(field) + " is " + excerpt(trim(text)) + ": expected at most " +
                   std::to_string(kMaxTokens) + " tokens"};
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*value);
}

std::optional<double> parse_duration(std::string_view text, std::string_view field, double scale,
                                     RowProblem& problem) {
  const std::optional<double> value = to_double(text);
  if (value && std::isfinite(*value) && *value >= 0 && *value * scale <= kMaxDurationMs) {
    return *value * scale;
  }
  const std::string why = is_nonfinite_word(text) ? " (not finite)"
                          : value && *value < 0   ? " (negative)"
                          : value                 ? " (out of range)"
                                                  : "";
  problem = {std::string(field) + " is not a duration >= 0", std::string(field) + " is '" +
                                                                 excerpt(trim(text)) + "'" + why +
                                                                 ": expected a finite number >= 0"};
  return std::nullopt;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil,
// http://howardhinnant.github.io/date_algorithms.html).
std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool digits(std::string_view text, std::size_t at, std::size_t count, std::int64_t& out) {
  if (at + count > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_datetime_ns(std::string_view text) {
  text = trim(text);
  std::int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 19 || !digits(text, 0, 4, year) || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != ' ' && text[10] != 'T') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second) ||
      month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::int64_t fraction_ns = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    std::int64_t scale = 100000000;
    const std::size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) {
      fraction_ns += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == start) return std::nullopt;
  }
  std::int64_t offset_s = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    std::int64_t oh = 0, om = 0;
    const std::int64_t sign = text[at] == '-' ? -1 : 1;
    if (!digits(text, at + 1, 2, oh)) return std::nullopt;
    std::size_t next = at + 3;
    if (next < text.size() && text[next] == ':') ++next;
    if (!digits(text, next, 2, om)) return std::nullopt;
    offset_s = sign * (oh * 3600 + om * 60);
    at = next + 2;
  }
  if (at != text.size()) return std::nullopt;
  const std::int64_t seconds =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  // 64-bit nanoseconds reach 292 years either side of 1970 (1677-2262); a date outside is not a
  // request's arrival (found by fuzz_request_log: year 3023 overflowed).
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1000000000 - 1;
  if (seconds > kMaxSeconds || seconds < -kMaxSeconds) return std::nullopt;
  return seconds * 1000000000 + fraction_ns;
}

std::optional<std::int64_t> parse_timestamp_ns(std::string_view text, double unit_ns) {
  text = trim(text);
  // Integers exactly: a nanosecond timestamp such as 1759522419154568925 exceeds 2^53.
  std::int64_t whole = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), whole);
  if (error == std::errc() && end == text.data() + text.size() && !text.empty()) {
    const double limit = static_cast<double>(std::numeric_limits<std::int64_t>::max()) / unit_ns;
    if (std::abs(static_cast<double>(whole)) >= limit) return std::nullopt;
    if (unit_ns == 1.0) return whole;
    return whole * static_cast<std::int64_t>(unit_ns);  // units are whole nanoseconds
  }
  const std::optional<double> value = to_double(text);
  if (!value || !std::isfinite(*value) || std::abs(*value * unit_ns) >= 9.2e18) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(std::llround(*value * unit_ns));
}

std::string without_nonfinite_literals(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) {
        out += json[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    const std::string_view rest = json.substr(i);
    std::size_t matched = 0;
    for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
      if (rest.substr(0, word.size()) == word) {
        matched = word.size();
        break;
      }
    }
    if (matched > 0) {
      out += "null";
      i += matched - 1;
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// Unit of a mapped field: the multiplier to the record's unit.
ColumnSpec column_spec(std::string_view key, std::string_view value, std::string_view what) {
  ColumnSpec spec;
  const std::size_t colon = value.rfind(':');
  spec.column = std::string(trim(value.substr(0, colon)));
  const std::string unit =
      colon == std::string_view::npos ? "" : lower(trim(value.substr(colon + 1)));
  if (spec.column.empty()) {
    throw InputError(std::string(what) + ": '" + std::string(key) +
                     "=' names no column: expected KEY=COLUMN[:UNIT], e.g. ttft=ttft:s");
  }
  const bool duration = key == "ttft" || key == "tpot" || key == "itl" || key == "e2e";
  const auto bad_unit = [&](const char* expected) {
    return InputError(std::string(what) + ": unit '" + unit + "' of " + std::string(key) +
                      " is not known: expected " + expected);
  };
  if (duration) {
    if (unit.empty() || unit == "ms") return spec;
    if (unit == "s")
      spec.scale = 1000.0;
    else if (unit == "us")
      spec.scale = 1e-3;
    else if (unit == "ns")
      spec.scale = 1e-6;
    else
      throw bad_unit("s, ms, us or ns");
  } else if (key == "arrival") {
    spec.scale = 1e9;
    if (unit.empty() || unit == "s") return spec;
    if (unit == "ms")
      spec.scale = 1e6;
    else if (unit == "us")
      spec.scale = 1e3;
    else if (unit == "ns") {
      spec.scale = 1;
      spec.nanoseconds = true;
    } else if (unit == "datetime")
      spec.datetime = true;
    else
      throw bad_unit("s, ms, us, ns or datetime");
  } else if (key == "cached") {
    if (unit.empty() || unit == "tokens") return spec;
    RowProblem problem;
    const std::optional<std::int64_t> block = parse_tokens(unit, "block size", 1, problem);
    if (!block) throw bad_unit("tokens, or a block size in tokens (cached=hit_blocks:64)");
    spec.scale = static_cast<double>(*block);
  } else if (!unit.empty() && !(unit == "tokens" && (key == "prompt" || key == "response"))) {
    throw bad_unit(key == "prompt" || key == "response" ? "tokens" : "no unit");
  }
  return spec;
}

}  // namespace

ColumnMapping parse_column_mapping(std::string_view text, std::string_view what) {
  ColumnMapping mapping;
  bool has_prompt = false;
  bool has_response = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw InputError(std::string(what) + ": '" + excerpt(item) +
                       "' is not KEY=COLUMN[:UNIT]: expected e.g. "
                       "prompt=input_tokens,response=output_tokens,ttft=ttft:s");
    }
    const std::string key = lower(trim(item.substr(0, equals)));
    const ColumnSpec spec = column_spec(key, item.substr(equals + 1), what);
    if (key == "prompt") {
      mapping.prompt = spec;
      has_prompt = true;
    } else if (key == "response") {
      mapping.response = spec;
      has_response = true;
    } else if (key == "arrival")
      mapping.arrival = spec;
    else if (key == "cached")
      mapping.cached = spec;
    else if (key == "ttft")
      mapping.ttft = spec;
    else if (key == "tpot")
      mapping.tpot = spec;
    else if (key == "itl")
      mapping.itl = spec;
    else if (key == "e2e")
      mapping.e2e = spec;
    else if (key == "model")
      mapping.model = spec;
    else if (key == "success")
      mapping.success = spec;
    else {
      throw InputError(std::string(what) + ": unknown key '" + excerpt(key) +
                       "': expected arrival, prompt, response, cached, ttft, tpot, itl, e2e, "
                       "model or success");
    }
  }
  if (!has_prompt || !has_response) {
    throw InputError(std::string(what) + ": the mapping needs " +
                     (has_prompt ? "response=COLUMN" : "prompt=COLUMN") +
                     ": expected e.g. prompt=input_tokens,response=output_tokens");
  }
  return mapping;
}

}  // namespace kspeed::io::requests

namespace kspeed::io {
ColumnMapping parse_column_mapping(std::string_view text, std::string_view what) {
  return requests::parse_column_mapping(text, what);
}
}  // namespace kspeed::io
