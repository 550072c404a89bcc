// --format jsonl (NDJSON, https://github.com/ndjson/ndjson-spec): the csv rows as JSON objects,
// one per line, with typed values (numbers, booleans, null) instead of CSV text.
#include "kspeed/report/render.hpp"

namespace kspeed::report {

std::string write_jsonl(const Report& report, const Style& /*style*/) {
  std::string out;
  for (const ordered_json& record : report.document.records) {
    out += record.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace kspeed::report
