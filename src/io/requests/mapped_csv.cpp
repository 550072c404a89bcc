// CSV request logs through a column mapping: the user's own (--columns) and, as built-in
// mappings, the Azure, BurstGPT and trace-replay readers in their own files.
#include <algorithm>
#include <cctype>

#include "kspeed/error.hpp"
#include "request_readers.hpp"

namespace kspeed::io::requests {

namespace {

constexpr std::size_t kMissing = static_cast<std::size_t>(-1);

// A date-time whose year (its first four digits) is past what 64-bit nanoseconds since 1970
// hold (1678-2261): a range problem, not a format one.
bool outside_nanosecond_years(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  if (text.size() < 5 || text[4] != '-') return false;
  int year = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    year = year * 10 + (text[i] - '0');
  }
  return year < 1678 || year > 2261;
}

struct BoundColumn {
  const ColumnSpec* spec = nullptr;
  std::size_t index = kMissing;
};

std::size_t find_column(const std::vector<std::string>& header, const std::string& name) {
  const std::string key = header_key(name);
  const auto found = std::find_if(header.begin(), header.end(), [&](const std::string& column) {
    return header_key(column) == key;
  });
  return found == header.end() ? kMissing : static_cast<std::size_t>(found - header.begin());
}

bool is_false(std::string_view text) {
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return word == "false" || word == "0" || word == "no" || word == "f";
}

std::string header_list(const std::vector<std::string>& header) {
  std::string out;
  for (std::size_t i = 0; i < header.size() && i < 12; ++i) {
    out += (i == 0 ? "" : ",") + excerpt(header[i], 30);
  }
  return out + (header.size() > 12 ? ",..." : "");
}

// One row through the mapping; false (with `problem`) when the row cannot be used.
bool read_row(LogInput& input, const std::vector<std::string>& fields,
              const std::vector<std::pair<std::string, BoundColumn>>& bound,
              engine::Request& request, std::optional<std::int64_t>& arrival_ns,
              RowProblem& problem) {
  for (const auto& [key, column] : bound) {
    if (column.index >= fields.size()) {
      problem = {"row has fewer fields than the header",
                 "the row has " + std::to_string(fields.size()) + " fields, the header more; '" +
                     key + "' is missing: expected one field per header column"};
      return false;
    }
    const std::string& text = fields[column.index];
    const ColumnSpec& spec = *column.spec;
    if (key == "prompt" || key == "response" || key == "cached") {
      const std::optional<std::int64_t> tokens =
          parse_tokens(text,
                       key == "prompt"     ? "prompt length"
                       : key == "response" ? "response length"
                                           : "cached prefix",
                       key == "prompt" ? 1 : 0, problem);
      if (!tokens) return false;
      const std::int64_t value = *tokens * static_cast<std::int64_t>(spec.scale);
      if (key == "prompt")
        request.prompt_tokens = value;
      else if (key == "response")
        request.response_tokens = value;
      else
        request.cached_tokens = value;
    } else if (key == "arrival") {
      arrival_ns = spec.datetime ? parse_datetime_ns(text) : parse_timestamp_ns(text, spec.scale);
      if (!arrival_ns && spec.datetime && outside_nanosecond_years(text)) {
        problem = {"arrival time out of range",
                   "arrival time is '" + excerpt(text) +
                       "': a year outside 1678-2261, the span 64-bit nanoseconds since 1970 "
                       "reach: expected a date in it"};
        return false;
      }
      if (!arrival_ns) {
        problem = {"arrival time is not a timestamp",
                   "arrival time is '" + excerpt(text) + "': expected " +
                       (spec.datetime ? std::string("YYYY-MM-DD HH:MM:SS[.fraction]")
                                      : std::string("a number"))};
        return false;
      }
    } else if (key == "model") {
      request.model = text;
    } else if (key == "success") {
      if (is_false(text)) {
        problem = {"failed request",
                   "the request failed (" + excerpt(spec.column) + " is '" + excerpt(text) + "')"};
        return false;
      }
    } else if (!text.empty()) {  // durations; an empty cell is a missing measurement
      const std::optional<double> ms = parse_duration(text, key, spec.scale, problem);
      if (!ms) return false;
      if (key == "ttft")
        request.ttft_ms = ms;
      else if (key == "tpot")
        request.tpot_ms = ms;
      else if (key == "itl")
        request.itl_ms = ms;
      else
        request.e2e_ms = ms;
    }
  }
  (void)input;
  return true;
}

}  // namespace

bool header_has(const LogInput& input, std::initializer_list<const char*> columns) {
  std::vector<std::string> header;
  split_csv(input.head, header);
  for (const char* column : columns) {
    if (find_column(header, column) == kMissing) return false;
  }
  return true;
}

bool read_mapped_csv(LogInput& input, const ColumnMapping& mapping, bool force) {
  std::vector<std::string> header;
  split_csv(input.head, header);
  std::vector<std::pair<std::string, BoundColumn>> bound;
  std::string missing;
  // Pointers into `mapping`, which outlives the loop below.
  const auto bind = [&](const char* key, const ColumnSpec* spec) {
    if (spec == nullptr) return;
    const std::size_t index = find_column(header, spec->column);
    if (index == kMissing) {
      missing += (missing.empty() ? "'" : ", '") + excerpt(spec->column) + "' (" + key + ")";
    }
    bound.push_back({key, {spec, index}});
  };
  const auto optional = [](const std::optional<ColumnSpec>& spec) {
    return spec ? &*spec : nullptr;
  };
  bind("prompt", &mapping.prompt);
  bind("response", &mapping.response);
  bind("arrival", optional(mapping.arrival));
  bind("cached", optional(mapping.cached));
  bind("ttft", optional(mapping.ttft));
  bind("tpot", optional(mapping.tpot));
  bind("itl", optional(mapping.itl));
  bind("e2e", optional(mapping.e2e));
  bind("model", optional(mapping.model));
  bind("success", optional(mapping.success));
  if (!missing.empty()) {
    if (!force) return false;
    throw InputError(input.source + ":" + std::to_string(input.head_line) + ": no column " +
                     missing + " in the header '" + header_list(header) +
                     "': map each field to a column the header has");
  }

  std::string record;
  std::vector<std::string> fields;
  std::int64_t line = 0;
  while (next_csv_record(*input.rest, record, line)) {
    if (record.find_first_not_of(" \t") == std::string::npos) continue;  // blank line
    ++input.report->records;
    split_csv(record, fields);
    engine::Request request;
    request.line = line;
    std::optional<std::int64_t> arrival_ns;
    RowProblem problem;
    if (!read_row(input, fields, bound, request, arrival_ns, problem)) {
      input.skip(line, problem);
      continue;
    }
    if (mapping.zero_response_failed && request.response_tokens == 0) {
      input.skip(line,
                 {"failed request", "the request failed ('" + excerpt(mapping.response.column) +
                                        "' is 0, this format's mark of a failed request)"});
      continue;
    }
    if (request.cached_tokens && *request.cached_tokens >= request.prompt_tokens) {
      request.cached_tokens = request.prompt_tokens - 1;  // the last token is always computed
    }
    request.arrival_s = input.arrival_from_ns(arrival_ns, line);
    input.deliver(request);
  }
  return true;
}

}  // namespace kspeed::io::requests
