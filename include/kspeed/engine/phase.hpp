#pragma once
// The phases of LLM inference, for the whole program: where a change applies (estimate,
// roofline) and what a profiled engine step did (profile).

#include <string_view>

namespace kspeed::engine {

enum class Phase {
  prefill,   ///< context (prompt) work
  decode,    ///< generation work, one token per step
  both,      ///< a change applied to prefill and decode (estimate --phase both)
  mixed,     ///< a profiled step that did both at once (chunked prefill): reported on its own
  unphased,  ///< a profiled step whose phase is unknown (no annotation, or ProfilerStep)
};

/// "prefill", "decode", "both", "mixed", "unphased".
constexpr std::string_view to_string(Phase phase) {
  switch (phase) {
    case Phase::prefill:
      return "prefill";
    case Phase::decode:
      return "decode";
    case Phase::both:
      return "both";
    case Phase::mixed:
      return "mixed";
    case Phase::unphased:
      return "unphased";
  }
  return "unknown";
}

}  // namespace kspeed::engine
