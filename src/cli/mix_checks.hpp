#pragma once
// kspeed mix's checks of its inputs before the work (mix_command.cpp calls them).

#include <optional>
#include <vector>

#include "kspeed/engine/chain/kernel_speedup_table.hpp"
#include "kspeed/engine/chain/mix.hpp"
#include "kspeed/engine/chain/scenario.hpp"
#include "kspeed/engine/serving/serving_replay.hpp"
#include "mix_flags.hpp"

namespace kspeed::cli {

/// Refuses a replay of more work than kspeed does, naming what to lower: a response longer
/// than any context window, more replicas than requests, or replicas x requests past a billion.
void check_replay_work(const MixFlags& flags, const engine::ServingSetup& serving,
                       const engine::RequestOutcomes& outcomes);

/// --kernel-speedup-table, read; a table by batch size is refused (mix prices each request
/// alone). None without the flag.
std::optional<engine::KernelSpeedupTable> read_speedup_table(
    const MixFlags& flags, const engine::EstimateOptions& options);

}  // namespace kspeed::cli
