// Nesting depth: the fuzzed bytes are wrapped in brackets as deep as the first two bytes say (up
// to 131,071 levels, deeper than the fuzzer's length limit lets an input spell out), then given
// to every JSON reader that takes a whole text: a request log (as one line and as a second line),
// a benchmark result, a kspeed document. Each must refuse or read it; a stack overflow (dump(),
// a copy, a recursive walk over a deep value) is a finding.
#include <string>

#include "fuzz_common.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/requests/request_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::size_t depth = (std::size_t{data[0]} << 9 | std::size_t{data[1]} << 1) & 0x1FFFF;
  const bool objects = (data[2] & 1U) != 0;
  const std::string_view inner = kspeed::fuzz::as_text(data + 3, size - 3);
  std::string text = R"({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": )";
  for (std::size_t i = 0; i < depth; ++i) text += objects ? "{\"a\":" : "[";
  text += inner;
  for (std::size_t i = 0; i < depth; ++i) text += objects ? '}' : ']';
  text += "}";
  const auto ignore = [](const kspeed::engine::Request&) {};
  kspeed::fuzz::expect_input_error_at_most(
      [&] { kspeed::io::read_request_log_text(text + "\n", "fuzz", {}, ignore); });
  kspeed::fuzz::expect_input_error_at_most([&] {
    const std::string good =
        R"({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]})";
    kspeed::io::read_request_log_text(good + "\n" + text + "\n", "fuzz", {}, ignore);
  });
  kspeed::fuzz::expect_input_error_at_most([&] { kspeed::io::parse_bench_results(text, "fuzz"); });
  kspeed::fuzz::expect_input_error_at_most([&] { kspeed::io::parse_json_document(text, "fuzz"); });
  (void)kspeed::io::json_nesting_beyond(text, kspeed::io::kMaxRecordDepth);
  return 0;
}
