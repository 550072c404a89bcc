#pragma once
// The flags of `kspeed estimate`, shared with `kspeed sweep` (which accepts lists and ranges in
// some of them): one registration, one translation to engine options, so the two commands
// cannot drift apart.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "kspeed/engine/gates.hpp"
#include "kspeed/engine/scenario.hpp"
#include "ncu_flags.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

inline constexpr const char* kDefaultWorkload = "deepseek-r1-fp8";

// Flag values exactly as typed; parsed by kspeed's own parsers so every error names its flag.
struct EstimateFlags {
  std::string workload = kDefaultWorkload;
  std::string ctx, response_tokens, ttft, tpot, kernel_speedup, share, decode_share;
  std::vector<std::string> ttft_points;  // --ttft-point L=D, repeatable
  std::vector<std::string> tpot_points;  // --tpot-point L=D, repeatable
  std::string ttft_overhead;
  std::string phase;  // empty: prefill, or both when levers describe the change
  std::string extrapolate = "clamp";
  std::string share_model = "table";
  PlatformFlags platform;
  LeverFlags levers;
  NcuFlags ncu;  ///< --ncu FILE, --kernel, --launch: the kernel speedup priced from a profile
  std::string min_request_speedup, min_prefill_speedup;
  OutputOptions output;
};

/// Registers the workload, request, change, platform and lever flags.
void add_estimate_flags(CLI::App& app, EstimateFlags& flags);
/// Registers --min-request-speedup and --min-prefill-speedup.
void add_gate_flags(CLI::App& app, EstimateFlags& flags);

/// The engine's options from the typed flags (every error names its flag); no platform yet.
engine::EstimateOptions to_options(const EstimateFlags& flags);
engine::GateThresholds to_gates(const EstimateFlags& flags);

}  // namespace kspeed::cli
