// JSON output of `kspeed estimate`: docs/json-format.md, stable key order.
#include "kspeed/report/estimate_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class EstimateJsonReporter final : public Reporter<engine::Estimate> {
 public:
  void write(const engine::Estimate& estimate, std::ostream& out) const override {
    out << estimate_to_json(estimate).dump(2) << "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter<engine::Estimate>> make_estimate_json_reporter() {
  return std::make_unique<EstimateJsonReporter>();
}

}  // namespace kspeed::report
