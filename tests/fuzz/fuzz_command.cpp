// Whole commands, in process: the first bytes choose a command line from a small grammar of
// flags, the rest is the content of the one input file it reads. The reader, the engine, the
// report builder, every --format's writer and the CLI's own checks all run, so a report that
// cannot take what a reader let through is a finding too. Exit 0, 1 and 2 are outcomes; exit 3
// (an internal error) or anything that escapes cli::run is a finding.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "kspeed/cli/app.hpp"

namespace {

// Each command reads FILE (the fuzzed bytes) in its own way.
const std::array<std::vector<std::string>, 9> kCommands = {{
    {"audit", "FILE"},
    {"diff", "FILE", "FILE", "--bootstrap", "20"},
    {"mix", "FILE"},
    {"mix", "FILE", "--by", "model", "--per-request", "OUT.ndjson"},
    {"mix", "FILE", "--replay"},
    {"profile", "FILE"},
    {"estimate", "--workload", "FILE", "--kernel-speedup", "2"},
    {"estimate", "--ncu", "FILE", "--gpu", "h100-sxm", "--ctx", "8k", "--bytes-reduction", "2"},
    {"roofline", "--ncu", "FILE", "--gpu", "h100-sxm"},
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
  const std::string input = scratch.dir + "/input";
  {
    std::ofstream(input, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data + 2), static_cast<std::streamsize>(size - 2));
  }
  std::vector<std::string> args = {"kspeed"};
  for (const std::string& word : chosen) {
    args.push_back(word == "FILE"         ? input
                   : word == "OUT.ndjson" ? scratch.dir + "/out.ndjson"
                                          : word);
  }
  args.insert(args.end(), {"--format", format});
  if (to_file) args.insert(args.end(), {"-o", scratch.dir + "/out"});
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  ::setenv("KSPEED_MAX_INPUT_BYTES", "1048576", 1);
  const int code = kspeed::cli::run(static_cast<int>(argv.size()), argv.data());
  if (code != 0 && code != 1 && code != 2) std::abort();  // exit 3: a bug kspeed reports
  return 0;
}
