// Records written as text while they are produced (record_writer.hpp). Numbers go through
// nlohmann::json's own shortest round-trip formatter (Grisu2, detail::to_chars) and strings
// through its escaper whenever they hold anything but plain printable ASCII, so the bytes equal
// ordered_json::dump's; only the tree, its allocations and its key lookups are skipped.
#include "kspeed/report/record_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace kspeed::report {

std::string csv_escape(const std::string& cell);  // csv_writer.cpp

namespace {

// Handed to the sink past this size: large enough that writes are few, small enough that a
// million-row output never sits in memory twice.
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

// Indentation of a row object's braces and of its fields inside `"rows": [` of a json tree
// indented by 2 (the tree's depth 2 and 3).
constexpr std::string_view kRowIndent = "    ";
constexpr std::string_view kFieldIndent = "      ";

bool plain_ascii(std::string_view text) {
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string json_string(std::string_view text) {
  if (plain_ascii(text)) {
    std::string quoted;
    quoted.reserve(text.size() + 2);
    quoted += '"';
    quoted += text;
    quoted += '"';
    return quoted;
  }
  return ordered_json(std::string(text))
      .dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

void JsonRecord::null(std::string_view key) {
  json_[std::string(key)] = nullptr;
}

void JsonRecord::integer(std::string_view key, std::int64_t value) {
  json_[std::string(key)] = value;
}

void JsonRecord::number(std::string_view key, double value) {
  json_[std::string(key)] = value;
}

void JsonRecord::text(std::string_view key, std::string_view value) {
  json_[std::string(key)] = std::string(value);
}

RecordWriter::RecordWriter(RecordFormat format, TextSink sink)
    : format_(format), sink_(std::move(sink)) {
  buffer_.reserve(kFlushBytes + 4096);
}

void RecordWriter::raw(std::string_view text) {
  buffer_ += text;
  flush_if_large();
}

void RecordWriter::begin() {
  first_field_ = true;
  if (format_ == RecordFormat::json_rows) {
    buffer_ += records_ == 0 ? "" : ",\n";
    buffer_ += kRowIndent;
    buffer_ += "{\n";
  } else if (format_ == RecordFormat::jsonl) {
    buffer_ += '{';
  }
}

void RecordWriter::end() {
  switch (format_) {
    case RecordFormat::jsonl:
      buffer_ += "}\n";
      break;
    case RecordFormat::csv:
      if (records_ == 0) {
        // The header is the first record's keys; its row waits in the buffer behind it.
        buffer_.insert(0, header_ + "\n");
      }
      buffer_ += '\n';
      break;
    case RecordFormat::json_rows:
      buffer_ += '\n';
      buffer_ += kRowIndent;
      buffer_ += '}';
      break;
  }
  ++records_;
  flush_if_large();
}

void RecordWriter::finish() {
  if (!buffer_.empty()) {
    sink_(buffer_);
    buffer_.clear();
  }
}

void RecordWriter::flush_if_large() {
  // The csv header is inserted at the buffer's front when the first record ends: nothing may
  // leave before that.
  if (buffer_.size() >= kFlushBytes && (format_ != RecordFormat::csv || records_ > 0)) {
    finish();
  }
}

void RecordWriter::key(std::string_view name) {
  const bool first = std::exchange(first_field_, false);
  switch (format_) {
    case RecordFormat::jsonl:
      buffer_ += first ? "" : ",";
      buffer_ += json_string(name);
      buffer_ += ':';
      break;
    case RecordFormat::csv:
      buffer_ += first ? "" : ",";
      if (records_ == 0) {
        header_ += first ? "" : ",";
        header_ += csv_escape(std::string(name));
      }
      break;
    case RecordFormat::json_rows:
      buffer_ += first ? "" : ",\n";
      buffer_ += kFieldIndent;
      buffer_ += json_string(name);
      buffer_ += ": ";
      break;
  }
}

void RecordWriter::value(std::string_view json_text, std::string_view csv_text) {
  buffer_ += format_ == RecordFormat::csv ? csv_text : json_text;
}

void RecordWriter::null(std::string_view key_name) {
  key(key_name);
  value("null", "");
}

void RecordWriter::integer(std::string_view key_name, std::int64_t number) {
  key(key_name);
  std::array<char, 24> digits{};
  const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), number);
  const std::string_view text(digits.data(), static_cast<std::size_t>(result.ptr - digits.data()));
  value(text, text);
}

void RecordWriter::number(std::string_view key_name, double number) {
  key(key_name);
  if (!std::isfinite(number)) {
    value("null", "null");  // ordered_json dumps a non-finite number as null, in csv too
    return;
  }
  // nlohmann::json's serializer (its dump_float): the shortest digits that read back as the
  // same double, ".0" on whole numbers, an exponent only for very large or small magnitudes.
  std::array<char, 64> digits{};
  char* const end =
      nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), number);
  const std::string_view text(digits.data(), static_cast<std::size_t>(end - digits.data()));
  value(text, text);
}

void RecordWriter::text(std::string_view key_name, std::string_view string) {
  key(key_name);
  if (format_ == RecordFormat::csv) {
    value("", csv_escape(std::string(string)));  // csv_writer: strings raw, quoted when needed
  } else {
    value(json_string(string), "");
  }
}

}  // namespace kspeed::report
