#pragma once
// `kspeed mix --plot FILE.svg`: the CDF of TTFT and E2E before and after the change over the
// log's requests (plots.cpp; drawn by chart::render_cdf_svg).

#include <string>
#include <vector>

#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/mix_result.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"
#include "kspeed/report/chart/cdf_chart.hpp"

namespace kspeed::report {

/// The four distributions (TTFT and E2E, before and after), one sample per request; requests
/// without a value (an E2E without a TPOT) are left out by the chart. With `replayed` (mix
/// --replay) they are the replay's, queueing included, as the headline quotes (issue 30).
chart::CdfChart mix_chart(const engine::MixResult& result, const engine::RequestOutcomes& outcomes,
                          const engine::PerRequestReplay* replayed = nullptr);
/// mix_chart as a self-contained SVG.
std::string mix_svg(const engine::MixResult& result, const engine::RequestOutcomes& outcomes,
                    const std::string& title = {},
                    const engine::PerRequestReplay* replayed = nullptr);

}  // namespace kspeed::report
