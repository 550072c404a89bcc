#include "kspeed/engine/hardware.hpp"

#include <stdexcept>

#include "kspeed/engine/dtype.hpp"
#include "kspeed/error.hpp"

namespace kspeed::engine {

namespace {

// Tensor parallelism splits the query heads evenly; GQA KV heads are split too, or replicated
// when tp exceeds them, which needs tp to be a multiple of the KV heads (vLLM's rule).
void check_tensor_parallel(const ModelArch& model, std::int64_t tp) {
  const std::string tp_text = (flag_mark("tp") + " ") + count_mark(tp);
  if (model.query_heads % tp != 0) {
    throw InputError(tp_text + ": " + model.name + " has " + count_mark(model.query_heads) +
                     " query heads, which tensor parallelism cannot split " + count_mark(tp) +
                     " ways: use a divisor of " + count_mark(model.query_heads));
  }
  if (model.attention == AttentionType::gqa && model.kv_heads % tp != 0 &&
      tp % model.kv_heads != 0) {
    throw InputError(tp_text + ": " + model.name + " has " + count_mark(model.kv_heads) +
                     " KV heads: tp must divide them or be a multiple of them");
  }
}

std::string gpu_precisions(const Gpu& gpu) {
  std::string list;
  for (const PeakFigure& figure : gpu.peak_dense_tflops) {
    list += (list.empty() ? "" : ", ") + figure.precision;
  }
  return list;
}

}  // namespace

std::optional<double> peak_tflops(const Gpu& gpu, std::string_view precision) {
  for (const PeakFigure& figure : gpu.peak_dense_tflops) {
    if (figure.precision == precision) {
      return figure.tflops;
    }
  }
  return std::nullopt;
}

Platform make_platform(const PlatformChoice& choice) {
  const ModelArch& model = choice.model.value;
  check_tensor_parallel(model, choice.tensor_parallel.value);
  Platform platform;
  platform.model = choice.model;
  platform.gpu = choice.gpu;
  platform.batch = choice.batch;
  platform.tensor_parallel = choice.tensor_parallel;
  platform.kv_dtype = choice.kv_dtype
                          ? WithProvenance<std::string>{*choice.kv_dtype, Provenance::given}
                          : WithProvenance<std::string>{model.kv_dtype, Provenance::default_value};
  const std::optional<double> kv_bytes = dtype_bytes(platform.kv_dtype.value);
  if (!kv_bytes) {
    // Checked where it is read (--kv-dtype in the CLI, kv_dtype in a model file): a bug here.
    throw std::invalid_argument("make_platform: unknown KV cache type " + platform.kv_dtype.value);
  }
  platform.kv_bytes_per_element = *kv_bytes;
  platform.precision =
      choice.precision
          ? WithProvenance<std::string>{*choice.precision, Provenance::given}
          : WithProvenance<std::string>{std::string(kDefaultPrecision), Provenance::default_value};
  const std::optional<double> peak = peak_tflops(choice.gpu.value, platform.precision.value);
  if (!peak) {
    throw InputError((flag_mark("precision") + " ") + platform.precision.value + ": " +
                     choice.gpu.value.name + " has no dense " + platform.precision.value +
                     " peak (it has: " + gpu_precisions(choice.gpu.value) + ")");
  }
  platform.peak_tflops = *peak;
  return platform;
}

}  // namespace kspeed::engine
