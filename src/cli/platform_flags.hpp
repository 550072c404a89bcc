#pragma once
// The flags that place an attention kernel on a roofline, shared by `kspeed roofline` and
// `kspeed estimate`: the model and GPU (--model, --gpu, --batch, --tp, --kv-dtype, --precision)
// and the levers that describe a kernel change (--compute-speedup, --bytes-reduction,
// --bandwidth-efficiency, --compute-efficiency).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "kspeed/engine/deployment/hardware.hpp"
#include "kspeed/engine/roofline/roofline.hpp"

namespace kspeed::cli {

/// Flag values exactly as typed; empty means not given.
struct PlatformFlags {
  std::string model, gpu, batch, tp, kv_dtype, kv_layout, precision, spec_tokens, spec_accept,
      link_bandwidth, ep;
};

struct LeverFlags {
  std::string compute_speedup, bytes_reduction, bandwidth_efficiency, compute_efficiency;
};

void add_platform_flags(CLI::App& command, PlatformFlags& flags);
void add_lever_flags(CLI::App& command, LeverFlags& flags);

/// The levers, or nullopt when no lever flag was given.
std::optional<engine::Levers> parse_levers(const LeverFlags& flags);

/// What a workload file says about its platform (names and counts), each optional.
struct PlatformDefaults {
  std::optional<std::string> model, gpu;
  std::optional<std::int64_t> batch, tp;
  std::optional<std::string> kv_dtype;        ///< the workload's KV cache type (--kv-dtype default)
  std::optional<std::string> measured_model;  ///< the model the workload's KV type belongs to
};

/// The platform when both a model and a GPU are known (flags first, then `defaults` with source
/// workload); nullopt when neither flag names one and the defaults lack one. Throws InputError
/// when a flag was given but the other half is missing, or a preset is unknown.
std::optional<engine::Platform> resolve_platform(const PlatformFlags& flags,
                                                 const PlatformDefaults& defaults);

/// The platform of a model on a GPU that is not in a file (a custom roof from --peak-tflops and
/// --bandwidth-tbs); the flags' --gpu is ignored. `defaults` supplies the workload's KV type.
engine::Platform resolve_platform_on(const PlatformFlags& flags, const engine::Gpu& gpu,
                                     const PlatformDefaults& defaults = {});

}  // namespace kspeed::cli
