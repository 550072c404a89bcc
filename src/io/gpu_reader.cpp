#include "kspeed/io/gpu_reader.hpp"

#include <filesystem>

#include "kspeed/error.hpp"
#include "kspeed/io/embedded_data.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/preset_lookup.hpp"

namespace kspeed::io {

namespace {

using nlohmann::json;

const std::vector<std::string> kTopKeys = {
    "name",      "description", "source", "peak_dense_tflops", "hbm_bandwidth_tbs",
    "memory_gb", "sources"};
const std::vector<std::string> kPrecisions = {"fp64", "tf32", "bf16", "fp16",
                                              "fp8",  "fp6",  "fp4",  "int8"};
const std::vector<std::string> kFigureKeys = {"peak_dense_tflops", "hbm_bandwidth_tbs",
                                              "memory_gb"};
// Above this a "TB/s" figure is almost certainly GB/s (the fastest HBM today is ~8 TB/s).
constexpr double kImplausibleTbs = 100.0;

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
        {item.key(), reader.positive_number(item.value(), "peak_dense_tflops." + item.key())});
  }
  if (!object.contains("bf16")) {
    reader.fail("peak_dense_tflops",
                "missing 'bf16': every GPU needs its dense BF16 peak (TFLOP/s, without "
                "sparsity), the precision kspeed uses by default");
  }
  return peaks;
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

}  // namespace

engine::Gpu parse_gpu(std::string_view text, std::string_view source) {
  const json document = parse_json_document(text, source);
  const JsonReader reader{std::string(source)};
  reader.expect_object(document, "", kTopKeys);
  engine::Gpu gpu;
  gpu.name = optional_string(reader, document, "name");
  gpu.description = optional_string(reader, document, "description");
  gpu.source = optional_string(reader, document, "source");
  gpu.peak_dense_tflops = read_peaks(reader, reader.required(document, "", "peak_dense_tflops"));
  gpu.hbm_bandwidth_tbs = reader.positive_number(reader.required(document, "", "hbm_bandwidth_tbs"),
                                                 "hbm_bandwidth_tbs");
  if (gpu.hbm_bandwidth_tbs > kImplausibleTbs) {
    reader.fail("hbm_bandwidth_tbs", "expected TB/s, found " +
                                         document["hbm_bandwidth_tbs"].dump() +
                                         ": that looks like GB/s (write 3.35 for 3,350 GB/s)");
  }
  gpu.memory_gb = reader.positive_number(reader.required(document, "", "memory_gb"), "memory_gb");
  if (document.contains("sources")) {
    gpu.figure_sources = read_sources(reader, document["sources"], kFigureKeys);
  }
  return gpu;
}

std::vector<std::string> builtin_gpu_names() {
  return builtin_names("gpus");
}

std::string_view builtin_gpu_text(std::string_view name) {
  return builtin_preset_text("gpus", "GPU", name, "kspeed gpus");
}

engine::Gpu load_gpu(const std::string& file_or_name) {
  const bool is_path = looks_like_path(file_or_name);
  engine::Gpu gpu =
      is_path ? parse_gpu(read_text_file(file_or_name, "GPU file"), file_or_name)
              : parse_gpu(builtin_gpu_text(file_or_name), "built-in GPU '" + file_or_name + "'");
  if (gpu.name.empty()) {
    gpu.name = is_path ? std::filesystem::path(file_or_name).stem().string() : file_or_name;
  }
  return gpu;
}

}  // namespace kspeed::io
