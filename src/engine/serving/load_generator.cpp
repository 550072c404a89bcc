#include "kspeed/engine/serving/load_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace kspeed::engine {

namespace {

// The replay's bound on a request's lengths (batch_replay.cpp's kMaxTokens).
constexpr double kMaxGeneratedTokens = 1 << 28;

// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): distinct, well-mixed seeds for
// the generator's streams from one user seed.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + stream * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::int32_t whole_tokens(double value) {
  return static_cast<std::int32_t>(std::clamp(std::round(value), 1.0, kMaxGeneratedTokens));
}

}  // namespace

std::uint64_t arrival_seed(std::uint64_t seed) {
  return mix_seed(seed, 1);
}
std::uint64_t prompt_seed(std::uint64_t seed) {
  return mix_seed(seed, 2);
}
std::uint64_t output_seed(std::uint64_t seed) {
  return mix_seed(seed, 3);
}

double LoadRandom::uniform() {
  // The top 53 bits, offset by half a step: never 0 or 1, so log() and 1/u stay finite.
  return (static_cast<double>(bits_() >> 11) + 0.5) * 0x1.0p-53;
}

double LoadRandom::exponential(double mean) {
  return -mean * std::log(uniform());
}

double LoadRandom::normal() {
  if (spare_normal_) {
    const double value = *spare_normal_;
    spare_normal_.reset();
    return value;
  }
  const double radius = std::sqrt(-2.0 * std::log(uniform()));
  const double angle = 2.0 * std::numbers::pi * uniform();
  spare_normal_ = radius * std::sin(angle);
  return radius * std::cos(angle);
}

double LoadRandom::gamma(double shape, double scale) {
  // Shape below 1: Gamma(k) = Gamma(k + 1) · U^(1/k) (Marsaglia and Tsang, section 6).
  if (shape < 1) return gamma(shape + 1, scale) * std::pow(uniform(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
  }
}

ArrivalGenerator::ArrivalGenerator(const ArrivalSpec& spec, std::uint64_t seed)
    : spec_(spec), random_(seed) {}

double ArrivalGenerator::next_s() {
  const std::int64_t index = sent_++;
  if (index == 0 || spec_.process == ArrivalProcess::trace) return last_s_ = 0;
  const double mean_gap_s = 1.0 / spec_.rate_per_s;
  switch (spec_.process) {
    case ArrivalProcess::constant:
      // From the index, not a running sum: no rounding drifts over a million gaps.
      return last_s_ = static_cast<double>(index) * mean_gap_s;
    case ArrivalProcess::poisson:
      return last_s_ += random_.exponential(mean_gap_s);
    case ArrivalProcess::gamma: {
      const double shape = 1.0 / (spec_.cv * spec_.cv);
      return last_s_ += random_.gamma(shape, mean_gap_s / shape);
    }
    case ArrivalProcess::trace:
      break;
  }
  return last_s_;
}

LengthSampler::LengthSampler(const LengthSpec& spec, std::uint64_t seed)
    : spec_(spec), random_(seed) {}

std::int32_t LengthSampler::next() {
  switch (spec_.kind) {
    case LengthSpec::Kind::fixed:
      return whole_tokens(spec_.first);
    case LengthSpec::Kind::uniform: {
      // Whole numbers first..second, each with probability 1 / (second - first + 1).
      const double span = spec_.second - spec_.first + 1;
      return whole_tokens(
          std::min(spec_.second, spec_.first + std::floor(random_.uniform() * span)));
    }
    case LengthSpec::Kind::lognormal: {
      // The lognormal whose own mean and standard deviation are the spec's.
      const double variance =
          std::log1p((spec_.second * spec_.second) / (spec_.first * spec_.first));
      const double mu = std::log(spec_.first) - variance / 2;
      return whole_tokens(std::exp(mu + std::sqrt(variance) * random_.normal()));
    }
    case LengthSpec::Kind::list: {
      const auto n = static_cast<double>(spec_.values.size());
      const auto at = std::min(spec_.values.size() - 1,
                               static_cast<std::size_t>(std::floor(random_.uniform() * n)));
      return spec_.values[at];
    }
  }
  return 1;
}

std::vector<ReplayRequest> generate_load(const LoadSpec& spec) {
  ArrivalGenerator arrivals(spec.arrivals, arrival_seed(spec.seed));
  LengthSampler prompts(spec.prompt, prompt_seed(spec.seed));
  LengthSampler outputs(spec.output, output_seed(spec.seed));
  const bool timed = spec.arrivals.process != ArrivalProcess::trace;
  const bool by_duration = spec.duration_s.has_value() && timed;
  std::vector<ReplayRequest> out;
  if (!by_duration) out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, spec.requests)));
  for (std::int64_t i = 0; by_duration || i < spec.requests; ++i) {
    ReplayRequest request;
    request.arrival_s = arrivals.next_s();
    if (by_duration && request.arrival_s >= *spec.duration_s) break;
    request.prompt_tokens = prompts.next();
    request.response_tokens = outputs.next();
    out.push_back(request);
  }
  return out;
}

}  // namespace kspeed::engine
