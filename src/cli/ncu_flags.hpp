#pragma once
// The flags that read a kernel profiler's export, shared by `kspeed roofline --ncu` and
// `kspeed estimate --ncu`: --ncu FILE, --kernel REGEX, --launch ID; and the measured levers.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "kspeed/engine/verify/measured_analysis.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

struct NcuFlags {
  std::string file, kernel, launch, mma_shape;
};

void add_ncu_flags(CLI::App& command, NcuFlags& flags);

/// Without --ncu, --kernel, --launch and --mma-shape have no export to read: InputError naming
/// the first one given and the fix.
void check_ncu_flags_need_file(const NcuFlags& flags);

/// The export's launches, measured and matched against --kernel, and the levers as the measured
/// roofline prices them (--bandwidth-efficiency's AFTER; its BEFORE is the measurement). The roof
/// and the model are the caller's. Throws InputError for an unreadable or broken export, a bad
/// --kernel regex, or --compute-efficiency (the measurement holds it).
engine::MeasuredRooflineQuery ncu_query(const NcuFlags& flags, const LeverFlags& levers);

/// The GPU preset the export's launches name (device__attribute_display_name), empty when none
/// does; fills query.export_preset.
std::string export_gpu_preset(engine::MeasuredRooflineQuery& query);

/// The GPU to price on: `gpu` (--gpu) when given, else the preset the export names (setting
/// query.gpu_from_export). Throws InputError naming the export's device when neither says.
std::string profiled_gpu(const std::string& gpu, engine::MeasuredRooflineQuery& query,
                         const std::string& alternatives);

}  // namespace kspeed::cli
