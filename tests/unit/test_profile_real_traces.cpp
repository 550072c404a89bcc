// The two real traces in ../shared/data/traces (README there): the shares issue 4 must show.
// Skipped, with a warning, when ../shared/data is not present.
#include <catch2/catch.hpp>
#include <filesystem>

#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/profile/analysis.hpp"

using namespace kspeed::profile;

namespace {

const std::string kTraces = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/traces/";

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data holds the real traces)");
  return false;
}

FileResult analyse(const std::string& path) {
  const KernelClassifier classifier(builtin_patterns());
  return analyse_trace(kspeed::io::trace::read_trace_file(path), classifier, {});
}

}  // namespace

TEST_CASE("real vLLM B200 trace: one prefill step of 888 tokens", "[profile][real]") {
  const std::string path = kTraces + "vllm-b200-gptoss-prefill.trace.json.gz";
  if (!present(path)) return;
  const FileResult file = analyse(path);
  CHECK(file.info.gpu == "NVIDIA B200");
  CHECK(file.engine == "vLLM");
  CHECK(file.whole_trace.times.kernel_count == 768);
  REQUIRE(file.phases.size() == 1);
  const PhaseResult& prefill = file.phases[0];
  CHECK(prefill.phase == Phase::prefill);
  CHECK(prefill.steps == 1);
  CHECK(prefill.context_tokens == 888);
  CHECK(file.attribution.outside_steps == 0);
  // Core 0.273 + 0.213 ms of 10.863 ms; KV write 0.163 ms; RoPE 0.133 ms (python json check).
  const Shares shares = prefill.times.share_times.shares();
  CHECK(shares.core == Approx(0.04472).margin(0.00005));
  CHECK(shares.core_kv - shares.core == Approx(0.01497).margin(0.00005));
  CHECK(shares.core_kv_rope - shares.core_kv == Approx(0.01225).margin(0.00005));
}

TEST_CASE("real SGLang MI300X trace: HIP-graph decode", "[profile][real]") {
  const std::string path = kTraces + "sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz";
  if (!present(path)) return;
  const FileResult file = analyse(path);
  CHECK(file.info.gpu == "AMD Instinct MI300X");
  CHECK(file.info.platform == "ROCm");
  CHECK(file.engine == "SGLang");
  CHECK(file.whole_trace.times.kernel_count == 555);
  CHECK(file.attribution.via_launch == 555);  // graph replay: through the hipGraphLaunch
  REQUIRE(file.phases.size() == 1);
  const PhaseResult& decode = file.phases[0];
  CHECK(decode.phase == Phase::decode);
  CHECK(decode.steps == 1);
  const Shares shares = decode.times.share_times.shares();
  CHECK(shares.core == Approx(0.21790).margin(0.00005));
  CHECK(shares.core_kv - shares.core == Approx(0.01777).margin(0.00005));
  CHECK(shares.core_kv_rope - shares.core_kv == Approx(0.02005).margin(0.00005));
  // The KV length per request comes from TraceLens's enclosing execute_… annotation.
  REQUIRE(file.decode_points.size() == 1);
  CHECK(file.decode_points[0].context_tokens == 1025);
}
