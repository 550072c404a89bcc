#pragma once
// The roofline: attainable FLOP/s against arithmetic intensity (FLOP per byte), both on log
// axes (Williams, Waterman & Patterson, "Roofline", CACM 2009). The roof is the memory slope
// up to the ridge and the compute peak after it; each kernel is a point, and each lever an
// arrow from where the kernel is to where the lever would put it.

#include <string>
#include <vector>

namespace kspeed::report::chart {

/// Where a kernel would sit after one lever (FP8 KV cache, split-KV, a faster kernel …).
struct RooflineLever {
  std::string name;                    ///< "FP8 KV cache (2× fewer bytes)"
  double intensity_flop_per_byte = 0;  ///< > 0
  double flops_per_s = 0;              ///< attained, > 0
};

/// A kernel as it is, and its levers.
struct RooflineKernel {
  std::string name;                    ///< "decode attention, batch 64, 32K"
  double intensity_flop_per_byte = 0;  ///< > 0
  double flops_per_s = 0;              ///< attained now, > 0
  std::vector<RooflineLever> levers;
};

struct RooflineChart {
  std::string title;
  std::string subtitle;
  std::string roof_name;             ///< "H100 SXM, BF16 dense"
  double peak_flops_per_s = 0;       ///< the compute roof, > 0
  double bandwidth_bytes_per_s = 0;  ///< the memory slope, > 0
  std::vector<RooflineKernel> kernels;
  /// Compute roofs after a compute lever (FLOP/s, dashed): faster arithmetic raises the peak, so
  /// a lever point above the old peak sits under its own roof.
  std::vector<double> raised_peaks_flops_per_s;
  std::string x_title = "arithmetic intensity (FLOP/byte, log scale)";
  std::string y_title = "attainable performance (TFLOP/s, log scale)";
  double width = 800;
  double height = 500;
};

/// A self-contained SVG 1.1 document. Each kernel and lever point is a <circle class="point">
/// with data-kernel, data-lever (empty for the kernel as it is), data-x (FLOP/byte) and data-y
/// (FLOP/s); the ridge is a <line class="ridge"> with data-x; the plot group states both scales.
std::string render_roofline_svg(const RooflineChart& chart);

}  // namespace kspeed::report::chart
