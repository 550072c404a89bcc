#pragma once
// Flat records (fixed keys, scalar values) written straight to text as they are produced, for
// outputs too large to hold as a JSON tree: a 100,000-point sweep. The bytes are the ones the
// json, jsonl and csv writers print for the same records built as ordered_json (same number
// formatting, same escaping), so the two paths are interchangeable; the golden cases prove it.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kspeed/engine/chain/sweep.hpp"
#include "kspeed/report/document.hpp"

namespace kspeed::report {

/// One record's fields, in order. A record is described once, against this interface, and
/// written either into an ordered_json (JsonRecord) or as text (RecordWriter).
class RecordFields {
 public:
  RecordFields() = default;
  RecordFields(const RecordFields&) = delete;
  RecordFields& operator=(const RecordFields&) = delete;
  RecordFields(RecordFields&&) = delete;
  RecordFields& operator=(RecordFields&&) = delete;
  virtual ~RecordFields() = default;

  virtual void null(std::string_view key) = 0;
  virtual void integer(std::string_view key, std::int64_t value) = 0;
  /// A non-finite number is written as null, as nlohmann::json does.
  virtual void number(std::string_view key, double value) = 0;
  virtual void text(std::string_view key, std::string_view value) = 0;
};

/// The fields into an ordered_json object (for Document::records and tests).
class JsonRecord final : public RecordFields {
 public:
  void null(std::string_view key) override;
  void integer(std::string_view key, std::int64_t value) override;
  void number(std::string_view key, double value) override;
  void text(std::string_view key, std::string_view value) override;
  ordered_json& json() { return json_; }

 private:
  ordered_json json_ = ordered_json::object();
};

/// The three ways a stream of records is printed.
enum class RecordFormat {
  jsonl,      ///< one compact object per line (write_jsonl)
  csv,        ///< a header from the first record's keys, then one row per record (write_csv)
  json_rows,  ///< the objects of an array nested at depth 2 of a json tree indented by 2
};

/// Receives the text in pieces of about a megabyte, in order.
using TextSink = std::function<void(std::string_view)>;

/// Writes records as text into a buffer handed to `sink` whenever it grows past a megabyte, so
/// memory stays flat however many records there are. Usage: begin(); fields...; end(); per
/// record, then finish().
class RecordWriter final : public RecordFields {
 public:
  RecordWriter(RecordFormat format, TextSink sink);

  /// Text before the first record (a json tree's head), passed through the same buffer.
  void raw(std::string_view text);
  void begin();
  void end();
  /// Hands what is buffered to the sink.
  void finish();
  /// Records ended so far.
  std::int64_t records() const { return records_; }

  void null(std::string_view key) override;
  void integer(std::string_view key, std::int64_t value) override;
  void number(std::string_view key, double value) override;
  void text(std::string_view key, std::string_view value) override;

 private:
  void key(std::string_view name);
  void value(std::string_view json_text, std::string_view csv_text);
  void flush_if_large();

  RecordFormat format_;
  TextSink sink_;
  std::string buffer_;
  std::string header_;  ///< csv: the first record's keys, written before its row
  std::int64_t records_ = 0;
  bool first_field_ = true;
};

/// The sweep's document written as it is produced (sweep_document.cpp): byte for byte what the
/// json (json_rows), jsonl or csv writer prints for sweep_document(sweep), without building it.
void write_sweep(const engine::Sweep& sweep, RecordFormat format, const TextSink& sink);

/// `text` as a JSON string literal, exactly as ordered_json::dump writes it (invalid UTF-8
/// replaced with U+FFFD).
std::string json_string(std::string_view text);

}  // namespace kspeed::report
