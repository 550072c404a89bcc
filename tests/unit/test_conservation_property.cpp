// Issue 27's invariant, as a property over generated command lines: whatever inputs reach an
// estimate, each targeted phase's saved time is exactly the attention time it acted on times
// (1 − 1/s), and neither exceeds the phase's latency. Both sides are read from the answer's
// JSON (`prefill`/`decode`: attention_ms, attention_speedup, saved_ms, time_before_ms), so the
// property holds of what a program reads, not of an internal value. The command lines are drawn
// from a grammar of estimate's flags (workloads, deployments, latencies, shares, levers,
// phases) with a fixed seed; kConservationCases of them (docs/model.md quotes the count). The
// same invariant (tests/conservation_invariant.hpp, which the whole-command fuzz target asserts)
// is checked over kSweepCases sweeps (lists of contexts, batches, kernel speedups) and, where
// mix prints a saved time per request, over kMixCases runs of mix on a measured log.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../conservation_invariant.hpp"
#include "kspeed/cli/app.hpp"

namespace unit_conservation_property {

namespace {

constexpr int kConservationCases = 400;
constexpr int kSweepCases = 100;
constexpr int kMixCases = 40;

// One optional flag: absent, or one of its values.
struct Choice {
  std::vector<std::vector<std::string>> values;  ///< {} is "absent"
};

const std::vector<Choice>& grammar() {
  static const std::vector<Choice> choices = {
      {{{}, {"--workload", "deepseek-r1-fp8"}}},
      {{{},
        {"--model", "llama-3.1-8b", "--gpu", "h100-sxm"},
        {"--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tp", "8"},
        {"--model", "deepseek-r1", "--gpu", "h200-sxm", "--tp", "8"},
        {"--model", "qwen3-8b", "--gpu", "mi300x"}}},
      {{{}, {"--ctx", "1k"}, {"--ctx", "8k"}, {"--ctx", "32k"}, {"--ctx", "128k"}}},
      {{{}, {"--response-tokens", "1"}, {"--response-tokens", "128"}, {"--response-tokens", "2k"}}},
      {{{}, {"--batch", "1"}, {"--batch", "32"}, {"--batch", "64"}}},
      {{{}, {"--ttft", "500"}, {"--ttft", "20"}, {"--ttft", "5s"}}},
      {{{}, {"--tpot", "50"}, {"--tpot", "5"}, {"--tpot", "200"}}},
      {{{}, {"--share", "0.18"}, {"--share", "0.9"}}},
      {{{}, {"--decode-share", "0.3"}}},
      {{{},
        {"--kernel-speedup", "2"},
        {"--kernel-speedup", "1.3"},
        {"--kernel-speedup", "0.8"},
        {"--kernel-speedup", "10"},
        {"--bytes-reduction", "2"},
        {"--compute-speedup", "2", "--bytes-reduction", "1.5"}}},
      {{{}, {"--phase", "prefill"}, {"--phase", "decode"}, {"--phase", "both"}}},
      {{{}, {"--ttft-overhead", "10ms"}}},
  };
  return choices;
}

// Runs one command line with JSON to a file; null when it wrote none (a refusal, exit 2).
nlohmann::json run_json(const std::vector<std::string>& flags, int& code,
                        const char* command = "estimate") {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / "kspeed-conservation-property.json";
  std::filesystem::remove(out);
  std::vector<std::string> args = {"kspeed", command};
  args.insert(args.end(), flags.begin(), flags.end());
  for (const char* extra : {"--format", "json", "-o"}) args.emplace_back(extra);
  args.push_back(out.string());
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  code = kspeed::cli::run(static_cast<int>(argv.size()), argv.data());
  if (!std::filesystem::exists(out)) return nullptr;
  std::ifstream in(out);
  nlohmann::json document = nlohmann::json::parse(in);
  std::filesystem::remove(out);
  return document;
}

// sweep's grammar: estimate's deployments and change, with lists where sweep takes them.
const std::vector<Choice>& sweep_grammar() {
  static const std::vector<Choice> choices = {
      {{{"--model", "llama-3.1-8b", "--gpu", "h100-sxm"},
        {"--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tp", "8"},
        {"--model", "qwen3-8b", "--gpu", "mi300x"},
        {"--workload", "deepseek-r1-fp8"}}},
      {{{"--ctx", "1k,8k,32k"}, {"--ctx", "4k"}, {"--ctx", "2k:64k:x2"}}},
      {{{}, {"--response-tokens", "256"}, {"--response-tokens", "1"}}},
      {{{}, {"--batch", "1,8,32"}, {"--batch", "64"}}},
      {{{}, {"--ttft", "500"}, {"--ttft", "20"}}},
      {{{}, {"--tpot", "50"}, {"--tpot", "5"}}},
      {{{}, {"--share", "0.3"}, {"--decode-share", "0.4"}}},
      {{{}, {"--kernel-speedup", "1.5,2,4"}, {"--kernel-speedup", "0.8"}}},
      {{{}, {"--phase", "prefill"}, {"--phase", "decode"}, {"--phase", "both"}}},
      {{{}, {"--prefill-batch", "8"}}},
  };
  return choices;
}

// mix's grammar over one measured log (its TTFTs hold queueing: only the GPU part moves).
const std::vector<Choice>& mix_grammar() {
  static const std::vector<Choice> choices = {
      {{{}, {"--model", "llama-3.1-8b", "--gpu", "h100-sxm"}}},
      {{{}, {"--share", "0.3"}, {"--share", "0.9"}}},
      {{{}, {"--kernel-speedup", "1.5"}, {"--kernel-speedup", "10"}, {"--kernel-speedup", "0.8"}}},
      {{{}, {"--ttft-point", "1k=267ms", "--ttft-point", "8k=474ms"}}},
  };
  return choices;
}

std::vector<std::string> drawn_flags(const std::vector<Choice>& choices, std::mt19937& random) {
  std::vector<std::string> flags;
  for (const Choice& choice : choices) {
    const auto& values = choice.values;
    const std::vector<std::string>& picked =
        values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(random)];
    flags.insert(flags.end(), picked.begin(), picked.end());
  }
  return flags;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

// The invariant's code (docs/model.md quotes it; conservation_invariant.hpp holds the same for
// the fuzz target and the sweeps): per targeted phase, from the JSON,
//   saved_ms == attention_ms × (1 − 1/attention_speedup), attention_ms ≤ time_before_ms,
//   and a saving never exceeds the phase's latency.
void check_conserved(const nlohmann::json& phase, const std::string& name) {
  if (!phase.value("targeted", false)) return;
  const double attention = phase.at("attention_ms").get<double>();
  const double s = phase.at("attention_speedup").get<double>();
  const double saved = phase.at("saved_ms").get<double>();
  const double latency = phase.at("time_before_ms").get<double>();
  INFO(name << ": attention " << attention << " ms, s " << s << ", saved " << saved
            << " ms, latency " << latency << " ms");
  CHECK(saved == Approx(attention * (1 - 1 / s)).margin(1e-9));
  CHECK(attention <= latency * (1 + 1e-12) + 1e-12);
  CHECK(saved <= latency * (1 + 1e-12) + 1e-12);
  CHECK(phase.at("attention_ms_provenance").is_string());
}

TEST_CASE("saved = attention × (1 − 1/s) ≤ the phase's latency, over generated command lines",
          "[conservation][property]") {
  std::mt19937 random(20260427);
  int answered = 0;
  for (int i = 0; i < kConservationCases; ++i) {
    std::vector<std::string> flags;
    for (const Choice& choice : grammar()) {
      const auto& values = choice.values;
      const std::vector<std::string>& picked =
          values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(random)];
      flags.insert(flags.end(), picked.begin(), picked.end());
    }
    int code = 0;
    const nlohmann::json document = run_json(flags, code);
    INFO("kspeed estimate " << joined(flags) << " (exit " << code << ")");
    REQUIRE((code == 0 || code == 1 || code == 2));
    if (document.is_null()) continue;
    ++answered;
    check_conserved(document.at("prefill"), "prefill");
    check_conserved(document.at("decode"), "decode");
  }
  // Most lines are answered; a refusal (a missing input, a contradiction) is exit 2.
  CHECK(answered > kConservationCases / 2);
}

TEST_CASE("sweep: every row conserves attention time", "[conservation][property]") {
  std::mt19937 random(20261203);
  int answered = 0;
  for (int i = 0; i < kSweepCases; ++i) {
    const std::vector<std::string> flags = drawn_flags(sweep_grammar(), random);
    int code = 0;
    const nlohmann::json document = run_json(flags, code, "sweep");
    INFO("kspeed sweep " << joined(flags) << " (exit " << code << ")");
    REQUIRE((code == 0 || code == 1 || code == 2));
    if (document.is_null()) continue;
    ++answered;
    REQUIRE(document.at("rows").is_array());
    CHECK(kspeed::invariant::conservation_violation(document) == "");
  }
  CHECK(answered > kSweepCases / 2);
}

TEST_CASE("mix: no request saves more than its attention time", "[conservation][property]") {
  const std::string log = std::string(KSPEED_SOURCE_DIR) +
                          "/../shared/data/serving/llmservingsim-vllm0.19-per-request/"
                          "RTXPRO6000_Llama-3.1-8B/requests.jsonl";
  if (!std::filesystem::exists(log)) {
    WARN("skipped: " << log << " is not present");
    return;
  }
  const std::filesystem::path rows_path =
      std::filesystem::temp_directory_path() / "kspeed-conservation-property.ndjson";
  std::mt19937 random(20261204);
  int answered = 0;
  for (int i = 0; i < kMixCases; ++i) {
    std::vector<std::string> flags = {log, "--per-request", rows_path.string()};
    const std::vector<std::string> drawn = drawn_flags(mix_grammar(), random);
    flags.insert(flags.end(), drawn.begin(), drawn.end());
    std::filesystem::remove(rows_path);
    int code = 0;
    const nlohmann::json document = run_json(flags, code, "mix");
    INFO("kspeed mix " << joined(flags) << " (exit " << code << ")");
    REQUIRE((code == 0 || code == 1 || code == 2));
    if (document.is_null()) continue;
    ++answered;
    // Per request: the saved TTFT is attention's (share × the moved time, at most the whole
    // TTFT) × (1 − 1/s), never more than the TTFT; a slowdown (s < 1) costs time instead.
    std::ifstream in(rows_path);
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json row = nlohmann::json::parse(line);
      const double before = row.at("ttft_before_ms").get<double>();
      const double after = row.at("ttft_after_ms").get<double>();
      const double share = row.at("prefill_attention_share").get<double>();
      const double s = document.at("inputs").at("kernel_speedup").get<double>();
      const double bound = share * before * std::abs(1 - 1 / s);
      INFO("prompt " << row.at("prompt_tokens") << ": TTFT " << before << " -> " << after);
      CHECK(std::abs(before - after) <= bound * (1 + 1e-9) + 1e-9);
      CHECK(before - after <= before);
    }
  }
  std::filesystem::remove(rows_path);
  CHECK(answered > kMixCases / 2);
}

}  // namespace unit_conservation_property
