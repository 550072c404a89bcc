// Shares from the fixtures, each of which states the shares it must produce (in its
// "kspeed_fixture" key, its .sql comment or its .expected sidecar).
#include <catch2/catch.hpp>

#include <algorithm>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/trace_reader.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/io/workload_writer.hpp"
#include "kspeed/profile/analysis.hpp"
#include "kspeed/profile/workload.hpp"
#include "kspeed/report/wording.hpp"

namespace unit_profile_analysis {

using namespace kspeed::profile;
using Catch::Matchers::Contains;

namespace {

const std::string kFixtures = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/profile/";

FileResult analyse(const std::string& fixture, Denominator denominator = Denominator::kernel_time) {
  static const KernelClassifier classifier(builtin_patterns());
  AnalysisOptions options;
  options.denominator = denominator;
  return analyse_trace(kspeed::io::trace::read_trace_file(kFixtures + fixture), classifier,
                       options);
}

const PhaseResult& phase(const FileResult& file, Phase which) {
  const PhaseResult* found = find_phase(file, which);
  REQUIRE(found != nullptr);
  return *found;
}

// Exact to 1e-9: fixture times are whole microseconds, so shares are exact ratios.
void check_shares(const PhaseResult& result, double core, double core_kv, double core_kv_rope) {
  const Shares shares = result.times.share_times.shares();
  CHECK(shares.core == Approx(core).margin(1e-9));
  CHECK(shares.core_kv == Approx(core_kv).margin(1e-9));
  CHECK(shares.core_kv_rope == Approx(core_kv_rope).margin(1e-9));
}

}  // namespace

TEST_CASE("vLLM eager: launches and the GPU-side annotation attribute every kernel", "[profile]") {
  const FileResult file = analyse("vllm-eager.trace.json");
  CHECK(file.engine == "vLLM");
  CHECK(file.phased);
  CHECK(file.attribution.via_launch == 6);
  CHECK(file.attribution.via_gpu_annotation == 1);
  CHECK(file.attribution.outside_steps == 0);
  const PhaseResult& prefill = phase(file, Phase::prefill);
  CHECK(prefill.steps == 1);
  CHECK(prefill.context_tokens == 100);
  CHECK(prefill.times.kernel_ns == 100000);
  check_shares(prefill, 0.30, 0.40, 0.50);
  check_shares(phase(file, Phase::decode), 0.20, 0.20, 0.20);
  check_shares(file.whole_trace, 0.25, 0.30, 0.35);
  REQUIRE(file.prefill_points.size() == 1);
  CHECK(file.prefill_points[0].context_tokens == 100);
  CHECK(file.decode_points.empty());
  REQUIRE_FALSE(prefill.top_attention.empty());
  CHECK(prefill.top_attention[0].library == "FlashAttention");
  CHECK(phase(file, Phase::decode).top_unclassified[0].name == "void gemm_1<float>(int)");
}

TEST_CASE("graph replay: kernels after the annotation closed belong to its step", "[profile]") {
  for (const char* fixture : {"sglang-graph.trace.json", "sglang-graph.trace.json.gz"}) {
    INFO(fixture);
    const FileResult file = analyse(fixture);
    CHECK(file.engine == "SGLang");
    CHECK(file.attribution.via_launch == 11);
    CHECK(file.attribution.outside_steps == 1);
    const PhaseResult& prefill = phase(file, Phase::prefill);
    check_shares(prefill, 0.30, 0.30, 0.30);
    CHECK(prefill.context_tokens == 1024);
    const PhaseResult& decode = phase(file, Phase::decode);
    CHECK(decode.steps == 2);
    check_shares(decode, 0.20, 0.225, 0.25);
    CHECK(decode.times.class_ns[static_cast<std::size_t>(KernelClass::attention_metadata)] == 5000);
    // Mixed steps are their own class, folded into neither phase.
    const PhaseResult& mixed = phase(file, Phase::mixed);
    CHECK(mixed.steps == 1);
    check_shares(mixed, 0.40, 0.40, 0.40);
    CHECK(file.whole_trace.times.share_times.shares().core == Approx(140.0 / 510).margin(1e-9));
    REQUIRE(file.prefill_points.size() == 1);
    CHECK(file.prefill_points[0].context_tokens == 512);
    CHECK(file.steps.size() == 4);
  }
}

TEST_CASE("ROCm with legacy categories and vLLM ~0.13 annotations", "[profile]") {
  const FileResult file = analyse("rocm-legacy.trace.json");
  CHECK(file.engine == "vLLM");
  CHECK(file.info.platform == "ROCm");
  CHECK(file.attribution.via_launch == 5);
  check_shares(phase(file, Phase::prefill), 0.45, 0.45, 0.45);
  check_shares(phase(file, Phase::decode), 0.40, 0.40, 0.40);
  check_shares(file.whole_trace, 0.425, 0.425, 0.425);
}

TEST_CASE("nsys SQLite: TensorRT-LLM steps, correlation joined per process", "[profile]") {
  const FileResult file = analyse("trtllm-nvtx.sqlite");
  CHECK(file.engine == "TensorRT-LLM");
  CHECK(file.attribution.via_launch == 7);
  check_shares(phase(file, Phase::prefill), 0.40, 0.40, 0.40);
  check_shares(phase(file, Phase::decode), 0.25, 0.30, 0.30);
  check_shares(phase(file, Phase::mixed), 0.30, 0.30, 0.30);
  check_shares(file.whole_trace, 95.0 / 300, 100.0 / 300, 100.0 / 300);
}

TEST_CASE("nsys stats CSV: one whole-capture share, no phases", "[profile]") {
  const FileResult file = analyse("nsys-kern-sum.csv");
  CHECK_FALSE(file.phased);
  REQUIRE(file.phases.size() == 1);
  CHECK(file.phases[0].phase == Phase::unphased);
  check_shares(file.phases[0], 0.25, 0.35, 0.40);
  CHECK(file.whole_trace.times.kernel_count == 70);
  REQUIRE_FALSE(file.notes.empty());
  CHECK(file.notes[0].code == kspeed::engine::WarningCode::summary_without_timeline);
  CHECK_THAT(kspeed::report::warning_sentence(file.notes[0]), Contains("no timeline"));
  CHECK_THROWS_WITH(analyse("nsys-kern-sum.csv", Denominator::busy_time),
                    Contains("{flag:denominator} busy-time needs kernel start times"));
}

TEST_CASE("several ranks: per-file results and a time-weighted aggregate with spread",
          "[profile]") {
  ProfileResult result;
  result.files = {analyse("rank0.trace.json"), analyse("rank1.trace.json")};
  CHECK(result.files[1].info.rank == 1);
  CHECK(result.files[1].info.world_size == 2);
  result.aggregate = aggregate_files(result.files);
  REQUIRE(result.aggregate.size() == 1);
  const PhaseSpread& prefill = result.aggregate[0];
  CHECK(prefill.phase == Phase::prefill);
  CHECK(prefill.files == 2);
  CHECK(prefill.share_times.shares().core == Approx(0.35).margin(1e-9));
  CHECK(prefill.min.core == Approx(0.30).margin(1e-9));
  CHECK(prefill.max.core == Approx(0.40).margin(1e-9));

  // The emitted workload merges the ranks' points at the same context and reads back.
  const EmittedWorkload emitted = workload_from_profile(result, ShareScope::core);
  REQUIRE(emitted.workload.prefill_shares.size() == 1);
  CHECK(emitted.workload.prefill_shares[0].context_tokens == 256);
  CHECK(emitted.workload.prefill_shares[0].share == Approx(0.35).margin(1e-9));
  const auto text = kspeed::io::workload_to_json_text(emitted.workload);
  const auto back = kspeed::io::parse_workload(text, "emitted");
  CHECK(back.prefill_shares.size() == 1);
  CHECK(back.conditions.front().first == "hardware");
  CHECK(back.conditions.front().second == "NVIDIA H100 80GB HBM3");
}

TEST_CASE("busy and wall time count overlap once and include idle gaps", "[profile]") {
  // Two streams on one GPU: attention 0-40 us on stream 7, a GEMM 20-60 on stream 8, then idle
  // until another GEMM at 100-120. Kernel time 100, busy 80, wall 120; attention 40 in each.
  const std::string text = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "step[EXTEND bs=1 toks=64]", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 0, "dur": 40, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 8, "ts": 20, "dur": 40, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100, "dur": 20, "args": {"correlation": 9}}]})";
  const auto trace = kspeed::io::trace::read_trace_bytes(text, "overlap.json");
  const KernelClassifier classifier(builtin_patterns());
  for (auto [denominator, expected] :
       {std::pair{Denominator::kernel_time, 0.40}, std::pair{Denominator::busy_time, 0.50},
        std::pair{Denominator::wall_time, 40.0 / 120}}) {
    AnalysisOptions options;
    options.denominator = denominator;
    const FileResult file = analyse_trace(trace, classifier, options);
    INFO(to_string(denominator));
    CHECK(file.phases.at(0).times.share_times.shares().core == Approx(expected).margin(1e-9));
    CHECK(file.phases.at(0).times.busy_ns == 80000);
    CHECK(file.phases.at(0).times.wall_ns == 120000);
  }
}

TEST_CASE("kernels listed out of order merge per device like sorted ones", "[profile]") {
  // The analysis merges busy intervals as it walks the kernels in (device, start) order; a file
  // that lists them out of order (devices interleaved, a late kernel first) must give the same
  // union. Device 0: 0-40 and 20-60 overlap (busy 60), idle to 100, 100-120: busy 80, gap 40.
  // Device 1: 5-15 and 30-35: busy 15, gap 15. Busy 95; wall 0-120; attention union 40 + 10.
  const std::string text = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "step[EXTEND bs=1 toks=64]", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100, "dur": 20, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 1, "tid": 7, "ts": 5, "dur": 10, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 8, "ts": 20, "dur": 40, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 1, "tid": 7, "ts": 30, "dur": 5, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 0, "dur": 40, "args": {"correlation": 9}}]})";
  const auto trace = kspeed::io::trace::read_trace_bytes(text, "unsorted.json");
  AnalysisOptions options;
  options.denominator = Denominator::busy_time;
  const FileResult file = analyse_trace(trace, KernelClassifier(builtin_patterns()), options);
  const GroupTimes& t = file.phases.at(0).times;
  CHECK(t.kernel_count == 5);
  CHECK(t.kernel_ns == 115000);
  CHECK(t.busy_ns == 95000);
  CHECK(t.wall_ns == 120000);
  CHECK(t.largest_gap_ns == 40000);
  CHECK(t.scope_union_ns[0] == 50000);
  CHECK(t.share_times.shares().core == Approx(50.0 / 95).margin(1e-9));
  CHECK(file.whole_trace.times.busy_ns == 95000);
}

TEST_CASE("a trace without steps gives one unphased share and says so", "[profile]") {
  const std::string text =
      R"([{"ph": "X", "cat": "kernel", "name": "paged_attention_v1_kernel", "pid": 0, "tid": 7, "ts": 0, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1, "dur": 3}])";
  const FileResult file = analyse_trace(kspeed::io::trace::read_trace_bytes(text, "plain.json"),
                                        KernelClassifier(builtin_patterns()), {});
  REQUIRE(file.phases.size() == 1);
  CHECK(file.phases[0].phase == Phase::unphased);
  CHECK(file.phases[0].times.share_times.shares().core == Approx(0.25).margin(1e-9));
  CHECK_THAT(kspeed::report::warning_sentence(file.notes.at(0)),
             Contains("no engine step annotations found"));
}

TEST_CASE("a trace with no kernels is an input error", "[profile]") {
  const std::string text =
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})";
  CHECK_THROWS_WITH(
      analyse_trace(kspeed::io::trace::read_trace_bytes(text, "cpu.json"),
                    KernelClassifier(builtin_patterns()), {}),
      Contains("cpu.json: the trace has no GPU kernel events ({count:1} events read)"));
}

TEST_CASE("emitted workloads leave out shares of exactly 0 or 1, with a note", "[profile]") {
  ProfileResult result;
  FileResult file;
  file.source = "t.json";
  // Two prefill steps of one request: 128 tokens all attention, 4,096 tokens 60% (core+kv).
  StepResult all_attention;
  all_attention.label.phase = kspeed::engine::Phase::prefill;
  all_attention.label.context_requests = 1;
  all_attention.label.context_tokens = 128;
  all_attention.times.kernel_count = 2;
  all_attention.times.kernel_ns = all_attention.times.busy_ns = all_attention.times.wall_ns = 100;
  all_attention.times.scope_kernel_ns = {100, 100, 100};
  StepResult half = all_attention;
  half.label.context_tokens = 4096;
  half.times.scope_kernel_ns = {50, 60, 70};
  file.steps = {all_attention, half};
  result.files.push_back(file);
  const EmittedWorkload emitted = workload_from_profile(result, ShareScope::core_kv);
  REQUIRE(emitted.workload.prefill_shares.size() == 1);
  CHECK(emitted.workload.prefill_shares[0].context_tokens == 4096);
  CHECK(emitted.workload.prefill_shares[0].share == Approx(0.60));
  REQUIRE(emitted.notes.size() == 1);
  CHECK(emitted.notes[0].number("share") == 1.0);
  CHECK_THAT(kspeed::report::warning_sentence(emitted.notes[0]),
             Contains("prefill context 128: share 100.0% left out"));
  CHECK(emitted.workload.name == "t");
}

TEST_CASE("a large softmax_warp_forward is named as math-path attention (issue 20)", "[profile]") {
  // A timesformer-like trace: no fused attention kernel, the softmax of an unfused
  // matmul-softmax-matmul attention at 44% of kernel time (4.4 of 10 us)
  const std::string text =
      R"json([{"ph": "X", "cat": "kernel", "name": "void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, const float*, int, int, int)", "pid": 0, "tid": 7, "ts": 0, "dur": 44},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 44, "dur": 56}])json";
  const FileResult file = analyse_trace(kspeed::io::trace::read_trace_bytes(text, "tf.json"),
                                        KernelClassifier(builtin_patterns()), {});
  const auto note = std::find_if(file.notes.begin(), file.notes.end(), [](const auto& n) {
    return n.code == kspeed::engine::WarningCode::math_path_attention;
  });
  REQUIRE(note != file.notes.end());
  CHECK(note->number("share_of_kernel_time") == Approx(0.44));
  CHECK(note->number("attention_core_share") == 0);
  CHECK_THAT(kspeed::report::warning_sentence(*note), Contains("44.0% of kernel time"));
  // A sampler's softmax, 5% of kernel time, is not attention: no note
  const std::string small =
      R"json([{"ph": "X", "cat": "kernel", "name": "softmax_warp_forward<float>", "pid": 0, "tid": 7, "ts": 0, "dur": 5},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 5, "dur": 95}])json";
  const FileResult sampler = analyse_trace(kspeed::io::trace::read_trace_bytes(small, "s.json"),
                                           KernelClassifier(builtin_patterns()), {});
  CHECK(std::none_of(sampler.notes.begin(), sampler.notes.end(), [](const auto& n) {
    return n.code == kspeed::engine::WarningCode::math_path_attention;
  }));
}

TEST_CASE("emitted workloads: TTFT is a request's share of its batched step, mixed steps kept",
          "[profile]") {
  // 15 prompts of 1,024 tokens prefilled in one 1.5 ms step; decode steps of 32 sequences at
  // 1,100 KV tokens, one with a 5 ms idle stretch longer than its 1 ms of GPU work; one mixed
  // step (2 prompts of 512 tokens with 30 decodes).
  auto step = [](const char* name, kspeed::engine::Phase phase, std::int64_t prefill_requests,
                 std::int64_t prefill_tokens, std::int64_t decode_requests, std::int64_t kv,
                 std::int64_t kernel_ns, std::int64_t attention_ns, std::int64_t gap_ns) {
    StepResult s;
    s.annotation = name;
    s.label.phase = phase;
    s.label.context_requests = prefill_requests;
    s.label.context_tokens = prefill_tokens;
    s.label.generation_requests = decode_requests;
    s.label.generation_kv_tokens = kv;
    s.times.kernel_count = 2;
    s.times.kernel_ns = s.times.busy_ns = kernel_ns;
    s.times.wall_ns = kernel_ns + gap_ns;
    s.times.largest_gap_ns = gap_ns;
    s.times.scope_kernel_ns = {attention_ns, attention_ns, attention_ns};
    s.times.scope_union_ns = s.times.scope_kernel_ns;
    return s;
  };
  using kspeed::engine::Phase;
  ProfileResult result;
  result.options.denominator = Denominator::wall_time;
  FileResult file;
  file.source = "batched.json";
  file.steps = {
      step("prefill", Phase::prefill, 15, 15360, 0, 0, 1'500'000, 300'000, 0),
      step("decode", Phase::decode, 0, 0, 32, 35200, 1'000'000, 200'000, 0),
      step("decode stalled", Phase::decode, 0, 0, 32, 35200, 1'000'000, 240'000, 5'000'000),
      step("mixed", Phase::mixed, 2, 1024, 30, 33000, 1'160'000, 260'000, 0)};
  result.files.push_back(file);
  const kspeed::engine::Workload w = workload_from_profile(result, ShareScope::core).workload;
  REQUIRE(w.profiled_steps.size() == 4);
  CHECK(w.request.prompt_tokens == 1024);
  // No TTFT and no response length: a trace of steps shows neither (issue 27)
  CHECK_FALSE(w.request.ttft_ms.has_value());
  CHECK(*w.request.tpot_ms == Approx(1.0));  // the stall is left out of the wall time
  CHECK_FALSE(w.request.response_tokens.has_value());
  CHECK(w.profiled_steps[2].profiler_gap_ms == Approx(5.0));
  CHECK(w.profiled_steps[2].time_ms == Approx(1.0));
  CHECK(w.profiled_steps[3].phase == Phase::mixed);
  CHECK_FALSE(w.profiled_steps[3].measures_ttft);  // prefill has steps of its own
  REQUIRE(w.decode_shares.size() == 1);
  CHECK(w.decode_shares[0].share == Approx(0.44 / 2.0));
  // --keep-idle-gaps: the stall stays in the wall time
  EmitOptions keep;
  keep.keep_idle_gaps = true;
  const kspeed::engine::Workload kept =
      workload_from_profile(result, ShareScope::core, keep).workload;
  CHECK(*kept.request.tpot_ms == Approx(3.5));
  // With no pure prefill step the mixed steps carry the prefill: 512 of the step's 1,054 tokens
  result.files[0].steps = {file.steps[1], file.steps[3]};
  const kspeed::engine::Workload mixed = workload_from_profile(result, ShareScope::core).workload;
  CHECK(mixed.request.prompt_tokens == 512);
  CHECK_FALSE(mixed.request.ttft_ms.has_value());
  CHECK(mixed.source.find("prefill measured in mixed") != std::string::npos);
}

}  // namespace unit_profile_analysis
