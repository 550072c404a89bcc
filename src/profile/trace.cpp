#include "kspeed/profile/trace.hpp"

#include <algorithm>
#include <cstring>

namespace kspeed::profile {

std::string_view to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kineto_json:
      return "kineto-json";
    case TraceFormat::nsys_sqlite:
      return "nsys-sqlite";
    case TraceFormat::nsys_stats_csv:
      return "nsys-stats-csv";
  }
  return "unknown";
}

namespace {

// A cheap key for the recent-name cache: the length and the 8 bytes at the middle and at the
// end, where kernel names that share a long template prefix ("void at::native::...") differ.
std::size_t recent_key(std::string_view name) {
  std::uint64_t middle = 0;
  std::uint64_t tail = 0;
  if (name.size() >= 8) {
    std::memcpy(&middle, name.data() + (name.size() - 8) / 2, 8);
    std::memcpy(&tail, name.data() + name.size() - 8, 8);
  }
  // Fibonacci hashing of the mixed words: multiply by 2^64/phi and keep the top bits.
  const std::uint64_t mixed = (middle * 31 + tail) ^ (name.size() * 0x9E3779B97F4A7C15ULL);
  return static_cast<std::size_t>((mixed * 0x9E3779B97F4A7C15ULL) >> 56);
}

}  // namespace

std::uint32_t KernelNameTable::intern(std::string_view name) {
  // One lookup per kernel event. Kernel names are long (C++ template signatures of 30-1,400
  // bytes) and a trace repeats a few dozen of them, so a small cache keyed by a few bytes and
  // checked by comparison answers most lookups without hashing the whole name. Names of one
  // length often differ in a single byte (MT32x32 against MT64x32), which no cheap key sees:
  // each key holds the last kRecentWays names that had it. A miss looks the name up in the
  // map (which owns one copy of each distinct name) and becomes the set's first entry.
  std::uint32_t* set = &recent_[(recent_key(name) % kRecentSets) * kRecentWays];
  for (std::size_t way = 0; way < kRecentWays && set[way] != kNoName; ++way) {
    if (names_[set[way]] == name) return set[way];
  }
  auto it = ids_.find(name);
  if (it == ids_.end()) {
    it = ids_.emplace(std::string(name), static_cast<std::uint32_t>(names_.size())).first;
    names_.emplace_back(name);
  }
  std::copy_backward(set, set + kRecentWays - 1, set + kRecentWays);
  set[0] = it->second;
  return it->second;
}

bool looks_like_step_annotation(std::string_view name) {
  return name.starts_with("execute_") || name.starts_with("step[") ||
         name.starts_with("[Executor] _forward_step") || name.starts_with("ProfilerStep#");
}

}  // namespace kspeed::profile
