// JSON output of `kspeed roofline`: docs/json-format.md, stable key order.
#include "kspeed/report/roofline_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class RooflineJsonReporter final : public Reporter<engine::RooflineResult> {
 public:
  void write(const engine::RooflineResult& result, std::ostream& out) const override {
    out << roofline_to_json(result).dump(2) << "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter<engine::RooflineResult>> make_roofline_json_reporter() {
  return std::make_unique<RooflineJsonReporter>();
}

}  // namespace kspeed::report
