// kspeed mix's checks of its inputs before the work: the replay's size and the kernel-speedup
// table's kind (mix_checks.hpp).
#include "mix_checks.hpp"

#include <algorithm>
#include <cstdint>

#include "kspeed/error.hpp"
#include "kspeed/io/kernel_speedup_reader.hpp"
#include "kspeed/report/human.hpp"

namespace kspeed::cli {

namespace {

// Replicas x requests the replay accepts (check_replay_work).
constexpr double kMaxReplicaWork = 1e9;
// The longest response the replay accepts, in tokens (check_replay_work): it takes one decode
// step a token, about 0.4 us each (Release; a 10-million-token response replayed in 3.8 s of
// CPU), where the readers' own cap, 128m, took minutes. No model answers with 10 million tokens
// (no context window is longer).
constexpr std::int64_t kMaxReplayResponseTokens = 10'000'000;

}  // namespace

// The replay looks at every replica at each event, so its work grows as replicas times
// requests: a replica beyond one per request never runs one, and past kMaxReplicaWork
// replica-requests the replay would run for minutes. Refused, naming what to lower.
void check_replay_work(const MixFlags& flags, const engine::ServingSetup& serving,
                       const engine::RequestOutcomes& outcomes) {
  const std::size_t requests = outcomes.size();
  std::int64_t longest = 0;
  for (const engine::RequestOutcome& outcome : outcomes) {
    longest = std::max<std::int64_t>(longest, outcome.response_tokens);
  }
  if (longest > kMaxReplayResponseTokens) {
    throw InputError("--replay: " + flags.log + " has a response of " +
                     report::human_count(longest) +
                     " tokens; the replay takes a decode step a token, and past " +
                     report::human_count(kMaxReplayResponseTokens) +
                     " (longer than any model's context) it would run for minutes: drop that "
                     "request from the log, or run kspeed mix without --replay");
  }
  const auto replicas =
      static_cast<std::uint64_t>(std::max<std::int64_t>(1, serving.arrivals.replicas));
  if (replicas > 1 && replicas > requests) {
    throw InputError("--replicas " + flags.replicas + ": " +
                     (flags.log.empty() ? std::string("the generated load") : flags.log) +
                     " holds " + report::human_count(static_cast<std::int64_t>(requests)) +
                     " requests, and a replica beyond one per request never runs one: lower "
                     "--replicas to at most " +
                     report::human_count(static_cast<std::int64_t>(requests)));
  }
  if (static_cast<double>(replicas) * static_cast<double>(requests) > kMaxReplicaWork) {
    throw InputError("--replicas " + flags.replicas + " over " +
                     report::human_count(static_cast<std::int64_t>(requests)) +
                     " requests is more replay work than kspeed does (replicas x requests at "
                     "most " +
                     report::human_count(static_cast<std::int64_t>(kMaxReplicaWork)) +
                     "): lower --replicas, or replay a sample of the log");
  }
}

// --kernel-speedup-table: a table by context, read at each request's prompt, by the chain and
// by the replay (each request's attention work in a shared step over its own speedup). A
// table by batch size is refused: the chain runs each request alone (no batch to read it at).
std::optional<engine::KernelSpeedupTable> read_speedup_table(
    const MixFlags& flags, const engine::EstimateOptions& options) {
  if (flags.speedup_table_path.empty()) return std::nullopt;
  if (options.kernel_speedup) {
    throw InputError(
        "--kernel-speedup-table gives each request's kernel speedup at its prompt: drop "
        "--kernel-speedup");
  }
  engine::KernelSpeedupTable table = io::load_kernel_speedup_table(flags.speedup_table_path);
  if (table.key != engine::SpeedupKey::context) {
    throw InputError("--kernel-speedup-table " + flags.speedup_table_path +
                     " is by batch size, and mix prices each request alone (batch 1): give a "
                     "table by context ('context,speedup'), read at each request's prompt");
  }
  return table;
}

}  // namespace kspeed::cli
