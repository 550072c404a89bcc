// --format json: the document's tree, indented, in a stable key order (docs/json-format.md).
// Names read from traces may hold bytes that are not UTF-8: they are replaced with U+FFFD rather
// than failing the run.
#include "kspeed/report/render.hpp"

namespace kspeed::report {

std::string write_json(const Report& report, const Style& /*style*/) {
  return report.document.tree.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace kspeed::report
