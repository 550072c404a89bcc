// Whole commands, in process: the first bytes choose a command line from a small grammar of
// flags, the rest is the content of the input file it reads. Commands that read two files
// (diff, plan with two baselines, --calibrate beside a log) take the part after a line
// "--8<--" as the second, or else the content with every digit moved up by one: same shape,
// other numbers, so diff compares two different inputs instead of refusing one file twice.
// With bit 7 of the second byte, -o names a file whose name comes from the content's first
// bytes (any byte but '/' and NUL), so odd output names are fuzzed too. The reader, the engine, the
// report builder, every --format's writer and the CLI's own checks all run, so a report that
// cannot take what a reader let through is a finding too. Exit 0, 1 and 2 are outcomes; exit 3
// (an internal error) or anything that escapes cli::run is a finding. So is an answer that breaks
// issue 27's invariant: a JSON answer written to a file with a saved time must have saved =
// attention × (1 − 1/s) ≤ the phase's latency (conservation_invariant.hpp, as the property test).
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "../conservation_invariant.hpp"
#include "fuzz_common.hpp"
#include "kspeed/cli/app.hpp"

namespace {

// Each command reads FILE (the fuzzed bytes) in its own way.
const std::array<std::vector<std::string>, 15> kCommands = {{
    {"audit", "FILE"},
    {"diff", "FILE", "FILE", "--bootstrap", "20"},
    {"mix", "FILE"},
    {"mix", "FILE", "--by", "model", "--per-request", "OUT.ndjson"},
    {"mix", "FILE", "--replay"},
    {"profile", "FILE"},
    {"estimate", "--workload", "FILE", "--kernel-speedup", "2"},
    {"sweep", "--workload", "FILE", "--ctx", "1k,8k,32k", "--phase", "both"},
    {"estimate", "--ncu", "FILE", "--gpu", "h100-sxm", "--ctx", "8k", "--bytes-reduction", "2"},
    {"roofline", "--ncu", "FILE", "--gpu", "h100-sxm"},
    {"diff", "FILE", "FILE2", "--bootstrap", "20"},
    {"plan", "FILE", "--effect", "1%"},
    {"plan", "FILE", "FILE2", "--effect", "0.5%", "--repeats", "3", "--alpha", "0.01"},
    {"estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--calibrate", "FILE",
     "--calibrate-concurrency", "2"},
    {"mix", "FILE", "--replay", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--calibrate",
     "FILE2", "--calibrate-concurrency", "1"},
}};
const std::array<const char*, 5> kFormats = {"text", "json", "csv", "jsonl", "markdown"};

struct Scratch {
  std::string dir;
  Scratch() {
    std::string pattern = "/tmp/kspeed-fuzz-command-XXXXXX";
    dir = ::mkdtemp(pattern.data());
    // The reports and kspeed's error messages go nowhere: the fuzzer's own output (C stdio on
    // stderr) stays readable.
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
    std::cerr.rdbuf(nullptr);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Scratch scratch;
  if (size < 2) return 0;
  const std::vector<std::string>& chosen = kCommands.at(data[0] % kCommands.size());
  const char* format = kFormats.at((data[1] >> 1) % kFormats.size());
  const bool to_file = (data[1] & 1) != 0;
  const bool odd_output_name = (data[1] & 0x80U) != 0;
  const std::string content(reinterpret_cast<const char*>(data + 2), size - 2);
  std::string first = content;
  std::string second;
  if (const std::size_t cut = content.find("\n--8<--\n"); cut != std::string::npos) {
    first = content.substr(0, cut + 1);
    second = content.substr(cut + 8);
  } else {
    second = content;
    for (char& c : second) {
      if (c >= '0' && c <= '9') c = static_cast<char>('0' + (c - '0' + 1) % 10);
    }
  }
  const std::string input = scratch.dir + "/input";
  const std::string input2 = scratch.dir + "/input2";
  std::ofstream(input, std::ios::binary | std::ios::trunc) << first;
  std::ofstream(input2, std::ios::binary | std::ios::trunc) << second;
  std::string output = scratch.dir + "/out";
  if (odd_output_name) {
    std::string name;
    for (const char c : content.substr(0, 24)) {
      if (c != '/' && c != '\0') name += c;
    }
    output = scratch.dir + "/" + name;
  }
  std::vector<std::string> args = {"kspeed"};
  for (const std::string& word : chosen) {
    args.push_back(word == "FILE"         ? input
                   : word == "FILE2"      ? input2
                   : word == "OUT.ndjson" ? scratch.dir + "/out.ndjson"
                                          : word);
  }
  args.insert(args.end(), {"--format", format});
  if (to_file) args.insert(args.end(), {"-o", output});
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  ::setenv("KSPEED_MAX_INPUT_BYTES", "1048576", 1);
  const int code = kspeed::cli::run(static_cast<int>(argv.size()), argv.data());
  if (code != 0 && code != 1 && code != 2) std::abort();  // exit 3: a bug kspeed reports
  // The invariant, on every JSON answer written to a file (an answer kspeed refused wrote none).
  if (to_file && (code == 0 || code == 1) && std::string(format) == "json") {
    std::ifstream written(output);
    const nlohmann::json document = nlohmann::json::parse(written, nullptr, false);
    const std::string broke = kspeed::invariant::conservation_violation(document);
    if (!broke.empty()) {
      std::fprintf(stderr, "attention time not conserved: %s\n", broke.c_str());
      std::abort();
    }
  }
  // An output written under an odd name is removed, so the scratch folder stays small; a name
  // that escaped the folder would be a finding (it cannot: no '/').
  if (odd_output_name && output != scratch.dir + "/") ::unlink(output.c_str());
  return 0;
}
