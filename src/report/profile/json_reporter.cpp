// JSON output of `kspeed profile`: docs/json-format.md, stable key order.
#include "kspeed/report/profile_report.hpp"
#include "reporters.hpp"

namespace kspeed::report {

namespace {

class ProfileJsonReporter final : public ProfileReporter {
 public:
  void write(const profile::ProfileResult& result, std::ostream& out) const override {
    out << profile_to_json(result).dump(2) << "\n";
  }
};

}  // namespace

std::unique_ptr<ProfileReporter> make_profile_json_reporter() {
  return std::make_unique<ProfileJsonReporter>();
}

}  // namespace kspeed::report
