// The engine and the trace analysis compute only (STYLE.md): no I/O, formatting, JSON or CLI
// headers, no flag names and no number formatting. They return values (warnings too); the
// report layer words them and names the flags. One rule for both folders.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace unit_purity {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kForbiddenHeaders = {
    "fmt/",   "nlohmann/", "CLI/",    "iostream",   "fstream",        "sstream",
    "cstdio", "ostream",   "format>", "kspeed/io/", "kspeed/report/", "kspeed/cli/",
};

// Calls that turn numbers into text for people, or print.
const std::vector<std::string> kForbiddenCalls = {
    "fmt::",         "printf(",      "snprintf(",    "sprintf(",  "std::to_string(", "to_chars(",
    "ostringstream", "stringstream", "std::format(", "put_time(", "std::cout",       "std::cerr",
};

bool includes_forbidden(const std::string& line) {
  if (line.find("#include") == std::string::npos) return false;
  return std::any_of(kForbiddenHeaders.begin(), kForbiddenHeaders.end(),
                     [&line](const std::string& header) {
                       return line.find("<" + header) != std::string::npos ||
                              line.find("\"" + header) != std::string::npos;
                     });
}

bool is_comment(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line.compare(first, 2, "//") == 0;
}

// A flag name ("--ctx") inside a string literal: it would be the engine naming the CLI.
bool names_a_flag(const std::string& line) {
  static const std::regex literal(R"("(?:[^"\\]|\\.)*")");
  const std::string code = line.substr(0, line.find("///"));  // not in a trailing doc comment
  for (auto it = std::sregex_iterator(code.begin(), code.end(), literal);
       it != std::sregex_iterator(); ++it) {
    if (it->str().find("--") != std::string::npos) return true;
  }
  return false;
}

bool calls_a_formatter(const std::string& line) {
  const std::string code = line.substr(0, line.find("//"));
  return std::any_of(
      kForbiddenCalls.begin(), kForbiddenCalls.end(),
      [&code](const std::string& call) { return code.find(call) != std::string::npos; });
}

}  // namespace

TEST_CASE("the engine and the trace analysis compute only", "[engine][profile]") {
  int files = 0;
  for (const char* folder :
       {"src/engine", "include/kspeed/engine", "src/profile", "include/kspeed/profile"}) {
    // Recursive: the engine is in rooms (chain/, deployment/, serving/, roofline/, verify/).
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(KSPEED_SOURCE_DIR) / folder)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path());
      std::string line;
      ++files;
      while (std::getline(in, line)) {
        if (is_comment(line)) continue;
        INFO(entry.path().string() << ": " << line);
        CHECK_FALSE(includes_forbidden(line));
        CHECK_FALSE(names_a_flag(line));
        CHECK_FALSE(calls_a_formatter(line));
      }
    }
  }
  CHECK(files >= 30);  // the test saw the four folders, not empty ones
}

TEST_CASE("the purity rules catch what they are meant to", "[engine][profile]") {
  CHECK(includes_forbidden("#include <fmt/format.h>"));
  CHECK(includes_forbidden("#include \"kspeed/report/human.hpp\""));
  CHECK_FALSE(includes_forbidden("#include <string>"));
  CHECK(names_a_flag(R"(throw InputError("pass --ctx N");)"));
  CHECK_FALSE(names_a_flag("  --it;"));
  CHECK(calls_a_formatter("  return std::to_string(tokens) + \" tokens\";"));
  CHECK_FALSE(calls_a_formatter("  return to_string(phase);  // std::to_string( in a comment"));
}

}  // namespace unit_purity
