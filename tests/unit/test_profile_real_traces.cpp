// The two real traces in ../shared/data/traces (README there): the shares issue 4 must show.
// Skipped, with a warning, when ../shared/data is not present.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/profile/analysis.hpp"
#include "kspeed/profile/workload.hpp"

namespace unit_profile_real_traces {

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

TEST_CASE("real SGLang trace: the idle gap, both shares and the warning", "[profile][real]") {
  const std::string path = kTraces + "sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz";
  if (!present(path)) return;
  const FileResult file = analyse(path);
  REQUIRE(file.steps.size() == 1);
  const GroupTimes& t = file.steps[0].times;
  // python3 over the file: its 555 kernels span 473.74 ms, busy 9.76 ms, largest gap 463.30 ms;
  // core 2.128 ms = 21.79% of kernel time and 0.449% of wall time.
  CHECK(t.largest_gap_ns == Approx(463.30e6).margin(0.01e6));
  CHECK(t.wall_ns == Approx(473.74e6).margin(0.01e6));
  CHECK(static_cast<double>(t.busy_ns) / static_cast<double>(t.wall_ns) < 0.03);
  CHECK(t.under(Denominator::kernel_time).shares().core == Approx(0.2179).margin(0.0005));
  CHECK(t.under(Denominator::wall_time).shares().core == Approx(0.004492).margin(0.000005));
  const auto idle = std::find_if(file.notes.begin(), file.notes.end(), [](const auto& note) {
    return note.code == kspeed::engine::WarningCode::gpu_idle_in_step;
  });
  REQUIRE(idle != file.notes.end());
  CHECK(idle->number("largest_gap_ms") == Approx(463.30).margin(0.01));
}

TEST_CASE("real traces: the emitted workloads carry the measured request", "[profile][real]") {
  const std::string decode_path = kTraces + "sglang-mi300x-qwen3-8b-decode-bs32.trace.json.gz";
  const std::string prefill_path = kTraces + "vllm-b200-gptoss-prefill.trace.json.gz";
  if (!present(decode_path) || !present(prefill_path)) return;
  ProfileResult decode;
  decode.files.push_back(analyse(decode_path));
  const kspeed::engine::Workload d = workload_from_profile(decode, ShareScope::core).workload;
  CHECK(d.request.prompt_tokens == 1024);  // KV length 1,025 per request, minus its new token
  CHECK_FALSE(d.request.response_tokens.has_value());  // the trace does not show it
  REQUIRE(d.request.tpot_ms.has_value());
  CHECK(*d.request.tpot_ms == Approx(9.765).margin(0.01));  // the step's kernel time
  CHECK(d.batch == 32);
  CHECK(d.share_denominator == "kernel-time");
  REQUIRE(d.measured_steps.size() == 1);
  CHECK(d.measured_steps[0].wall_ms == Approx(473.74).margin(0.01));

  ProfileResult prefill;
  prefill.files.push_back(analyse(prefill_path));
  const kspeed::engine::Workload p = workload_from_profile(prefill, ShareScope::core).workload;
  CHECK(p.request.prompt_tokens == 888);
  CHECK_FALSE(p.request.response_tokens.has_value());
  CHECK_FALSE(p.request.ttft_ms.has_value());  // a step split by tokens is not a request's wait
  CHECK_FALSE(p.request.tpot_ms.has_value());

  // Two different setups are named field by field.
  const auto differences = setup_differences({decode.files[0], prefill.files[0]});
  CHECK(differences ==
        std::vector<SetupField>{SetupField::device, SetupField::engine, SetupField::world_size});
  CHECK(setup_differences({decode.files[0], decode.files[0]}).empty());
}

}  // namespace unit_profile_real_traces
