#pragma once
// The replay's load models: requests made from a stated arrival process and length
// distributions, seeded and deterministic (the same spec and seed give the same requests on
// every platform: the draws are kspeed's own transforms of mt19937_64, whose sequence the C++
// standard fixes, not <random>'s distributions, whose algorithms it leaves to the library).
//
// Arrival processes, at a mean rate R (requests/s), the first request at 0:
//   poisson   exponential gaps of mean 1/R (a Poisson process: vllm bench serve's default,
//             inference-perf's "poisson" load)
//   gamma:CV  gamma-distributed gaps of mean 1/R and coefficient of variation CV (shape 1/CV²;
//             CV 1 is Poisson, below 1 smoother, above 1 burstier: vllm bench serve
//             --burstiness 1/CV²)
//   constant  gaps of exactly 1/R
// Lengths: a fixed count, uniform:A:B (whole numbers A..B, each equally likely),
// lognormal:MEAN:SD (the token counts' own mean and standard deviation, rounded, at least 1), or
// values drawn with replacement from a list (a file of lengths).

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "kspeed/engine/serving/batch_replay.hpp"

namespace kspeed::engine {

enum class ArrivalProcess : std::uint8_t {
  trace,     ///< the log's own timestamps (no generated arrivals)
  poisson,   ///< exponential gaps
  gamma,     ///< gamma gaps with a stated coefficient of variation
  constant,  ///< equal gaps
};

struct ArrivalSpec {
  ArrivalProcess process = ArrivalProcess::trace;
  double rate_per_s = 0;  ///< > 0 unless trace
  double cv = 1;          ///< gamma: the gaps' coefficient of variation, > 0
};

struct LengthSpec {
  enum class Kind : std::uint8_t { fixed, uniform, lognormal, list };
  Kind kind = Kind::fixed;
  double first = 1;                  ///< fixed: the count; uniform: A; lognormal: the mean
  double second = 1;                 ///< uniform: B; lognormal: the standard deviation
  std::vector<std::int32_t> values;  ///< list: drawn with replacement, each >= 1
};

/// What the generator makes: `requests` requests, or (with a duration and an arrival process)
/// every request arriving before `duration_s`.
struct LoadSpec {
  ArrivalSpec arrivals;
  LengthSpec prompt;
  LengthSpec output;
  std::int64_t requests = 0;
  std::optional<double> duration_s;
  std::uint64_t seed = 0;
};

/// Uniform, exponential, normal and gamma draws from mt19937_64 by fixed formulas.
class LoadRandom {
 public:
  explicit LoadRandom(std::uint64_t seed) : bits_(seed) {}
  double uniform();  ///< in (0, 1)
  double exponential(double mean);
  double normal();                           ///< standard normal (Box-Muller)
  double gamma(double shape, double scale);  ///< Marsaglia and Tsang (2000)

 private:
  std::mt19937_64 bits_;
  std::optional<double> spare_normal_;
};

/// Arrival times of one process, in order, the first at 0.
class ArrivalGenerator {
 public:
  ArrivalGenerator(const ArrivalSpec& spec, std::uint64_t seed);
  double next_s();

 private:
  ArrivalSpec spec_;
  LoadRandom random_;
  std::int64_t sent_ = 0;
  double last_s_ = 0;
};

/// Token counts of one length distribution.
class LengthSampler {
 public:
  LengthSampler(const LengthSpec& spec, std::uint64_t seed);
  std::int32_t next();

 private:
  LengthSpec spec_;
  LoadRandom random_;
};

/// The requests `spec` describes, in arrival order (no arrival process: all at 0, for a closed
/// loop). Arrivals, prompts and outputs are drawn from three streams of the seed, so changing one
/// distribution leaves the others' draws as they were.
std::vector<ReplayRequest> generate_load(const LoadSpec& spec);

/// The streams generate_load seeds its parts from.
std::uint64_t arrival_seed(std::uint64_t seed);
std::uint64_t prompt_seed(std::uint64_t seed);
std::uint64_t output_seed(std::uint64_t seed);

}  // namespace kspeed::engine
