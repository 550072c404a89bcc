#pragma once
// Load levels typed by hand: a run's aggregate numbers for a user who has no result files
// (`kspeed calibrate --level KEY=VALUE,...`, repeatable, or `--levels FILE`, a CSV whose header
// names the same keys, one level a row). docs/calibrate.md lists the keys:
//   the load:    rate (req/s) with arrivals (constant | poisson), or concurrency (clients of a
//                closed loop); requests (sent) or duration_s (seconds an open loop sent for);
//                prompt, output (mean tokens); max_inflight (an open loop's cap); label
//   the figures: ttft_, tpot_ and e2e_ + mean_ms | p50_ms | p90_ms | p99_ms, itl_p50_ms and
//                itl_p99_ms (per-token gaps as sglang reports them), achieved_rate (req/s)
// With no tpot_ or itl_ figure, the mean per-token time is (E2E - TTFT) / (output - 1) from the
// means, as kspeed reads an inference-perf stage. Every value is checked; an error names the
// level, the key, what was expected and the fix.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/io/serving/measured_load.hpp"

namespace kspeed::io {

/// One typed level: its load and figures as a measured level, and a closed loop's clients.
struct TypedLevel {
  MeasuredLoad load;
  std::int64_t concurrency = 0;  ///< > 0: a closed loop of that many clients
};

/// The keys a typed level takes, in the order docs/calibrate.md lists them.
const std::vector<std::string>& typed_level_keys();

/// One --level value: KEY=VALUE pairs separated by commas. `where` names it in errors
/// ("--level 2"); `number` (from 1) names the level when it has no label.
TypedLevel parse_typed_level(std::string_view text, const std::string& where, std::size_t number);

/// A levels CSV: a header of keys, then one level a row (no quoting: labels hold no comma).
std::vector<TypedLevel> parse_typed_levels_csv(std::string_view text, const std::string& source);
std::vector<TypedLevel> read_typed_levels_csv(const std::string& path);

}  // namespace kspeed::io
