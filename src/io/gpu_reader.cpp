#include "kspeed/io/gpu_reader.hpp"

#include "kspeed/error.hpp"
#include "kspeed/io/embedded_data.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/preset_lookup.hpp"

namespace kspeed::io {

namespace {

using nlohmann::json;

const std::vector<std::string> kGpuTopKeys = {
    "name",      "description", "source",       "peak_dense_tflops",  "hbm_bandwidth_tbs",
    "memory_gb", "sources",     "interconnect", "memory_visible_gib", "memory_type"};
const std::vector<std::string> kInterconnectKeys = {
    "name", "per_direction_gbs", "collective_latency_us", "all_to_all_latency_us", "source"};
const std::vector<std::string> kPrecisions = {"fp64", "tf32", "bf16", "fp16",
                                              "fp8",  "fp6",  "fp4",  "int8"};
const std::vector<std::string> kFigureKeys = {"peak_dense_tflops", "hbm_bandwidth_tbs", "memory_gb",
                                              "memory_visible_gib"};
// Above this a "TB/s" figure is almost certainly GB/s (the fastest HBM today is ~8 TB/s).
constexpr double kImplausibleTbs = 100.0;
// Plausible figures, far outside today's parts (A100 to B200: 312 to 4,500 dense TFLOP/s,
// 2 to 8 TB/s, 80 to 192 GB): they stop a typo or a 5e-324 from reaching the roofline as
// inf or NaN, not a real GPU.
constexpr NumberRange kPeakTflops{0.01, 1e6, "dense TFLOP/s from 0.01 to 1e6"};
constexpr NumberRange kBandwidthTbs{1e-3, 1e9, "TB/s from 0.001 to 100"};
constexpr NumberRange kMemoryGb{0.01, 1e6, "GB from 0.01 to 1e6"};
// PCIe Gen3 x1 (~1 GB/s) to far beyond NVLink 5's 900 GB/s a direction; latency up to 10 ms.
constexpr NumberRange kLinkGbs{0.01, 1e6, "GB/s per direction from 0.01 to 1e6"};
constexpr NumberRange kLatencyUs{0, 1e4, "microseconds from 0 to 10,000"};

std::string optional_string(const JsonReader& reader, const json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() ? std::string() : reader.string_value(*found, key);
}

// Dense peaks by precision, in the file's order. BF16 is required: it is the default precision.
std::vector<engine::PeakFigure> read_peaks(const JsonReader& reader, const json& object) {
  reader.expect_object(object, "peak_dense_tflops", kPrecisions);
  std::vector<engine::PeakFigure> peaks;
  for (const auto& item : object.items()) {
    peaks.push_back(
        {item.key(),
         reader.number_in_range(item.value(), "peak_dense_tflops." + item.key(), kPeakTflops)});
  }
  if (!object.contains("bf16")) {
    reader.fail("peak_dense_tflops",
                "missing 'bf16': every GPU needs its dense BF16 peak (TFLOP/s, without "
                "sparsity), the precision kspeed uses by default");
  }
  return peaks;
}

// "hbm" or "gddr": which family's prior bandwidth efficiency the step model starts from.
engine::MemoryKind read_memory_kind(const JsonReader& reader, const json& value) {
  const std::string text = reader.string_value(value, "memory_type");
  if (text == "hbm") return engine::MemoryKind::hbm;
  if (text == "gddr") return engine::MemoryKind::gddr;
  reader.fail("memory_type",
              "expected \"hbm\" (HBM2e/HBM3/HBM3e) or \"gddr\" (GDDR6/6X/7), found \"" + text +
                  "\"; leave it out when unknown (the pooled prior is used)");
}

engine::FigureSources read_sources(const JsonReader& reader, const json& object,
                                   const std::vector<std::string>& figures) {
  reader.expect_object(object, "sources", figures);
  engine::FigureSources sources;
  for (const auto& item : object.items()) {
    sources.emplace_back(item.key(), reader.string_value(item.value(), "sources." + item.key()));
  }
  return sources;
}

// The GPU-to-GPU link tensor parallelism all-reduces over: its name, per-direction bandwidth
// and (optional, 0 when not cited) per-collective latencies: an all-reduce's and an expert-
// parallel dispatch or combine all-to-all's.
engine::Interconnect read_interconnect(const JsonReader& reader, const json& object) {
  reader.expect_object(object, "interconnect", kInterconnectKeys);
  engine::Interconnect link;
  link.name =
      reader.string_value(reader.required(object, "interconnect", "name"), "interconnect.name");
  link.per_direction_gbs =
      reader.number_in_range(reader.required(object, "interconnect", "per_direction_gbs"),
                             "interconnect.per_direction_gbs", kLinkGbs);
  if (object.contains("collective_latency_us")) {
    link.collective_latency_us = reader.number_in_range(
        object["collective_latency_us"], "interconnect.collective_latency_us", kLatencyUs);
  }
  if (object.contains("all_to_all_latency_us")) {
    link.all_to_all_latency_us = reader.number_in_range(
        object["all_to_all_latency_us"], "interconnect.all_to_all_latency_us", kLatencyUs);
  }
  link.source = optional_string(reader, object, "source");
  return link;
}

}  // namespace

engine::Gpu parse_gpu(std::string_view text, std::string_view source) {
  const json document = parse_json_document(text, source);
  const JsonReader reader{std::string(source)};
  reader.expect_object(document, "", kGpuTopKeys);
  engine::Gpu gpu;
  gpu.name = optional_string(reader, document, "name");
  gpu.description = optional_string(reader, document, "description");
  gpu.source = optional_string(reader, document, "source");
  gpu.peak_dense_tflops = read_peaks(reader, reader.required(document, "", "peak_dense_tflops"));
  gpu.hbm_bandwidth_tbs = reader.number_in_range(reader.required(document, "", "hbm_bandwidth_tbs"),
                                                 "hbm_bandwidth_tbs", kBandwidthTbs);
  if (gpu.hbm_bandwidth_tbs > kImplausibleTbs) {
    reader.fail("hbm_bandwidth_tbs", "expected TB/s, found " +
                                         document["hbm_bandwidth_tbs"].dump() +
                                         ": that looks like GB/s (write 3.35 for 3,350 GB/s)");
  }
  gpu.memory_gb =
      reader.number_in_range(reader.required(document, "", "memory_gb"), "memory_gb", kMemoryGb);
  if (document.contains("memory_type")) {
    gpu.memory = read_memory_kind(reader, document["memory_type"]);
  }
  if (document.contains("memory_visible_gib")) {
    gpu.memory_visible_gib =
        reader.number_in_range(document["memory_visible_gib"], "memory_visible_gib", kMemoryGb);
    if (*gpu.memory_visible_gib * 1.073741824 > gpu.memory_gb * 1.1) {
      reader.fail("memory_visible_gib",
                  "the visible memory (GiB) exceeds the GPU's memory_gb by more than 10%: write "
                  "cudaMemGetInfo's total in GiB (2^30 bytes), as vLLM logs total_gpu_memory");
    }
  }
  if (document.contains("sources")) {
    gpu.figure_sources = read_sources(reader, document["sources"], kFigureKeys);
  }
  if (document.contains("interconnect")) {
    gpu.interconnect = read_interconnect(reader, document["interconnect"]);
  }
  return gpu;
}

std::vector<std::string> builtin_gpu_names() {
  return builtin_names("gpus");
}

std::string_view builtin_gpu_text(std::string_view name) {
  return builtin_text(kGpuKind, name);
}

engine::Gpu load_gpu(const std::string& file_or_name) {
  return load_named(file_or_name, kGpuKind, parse_gpu);
}

}  // namespace kspeed::io
