// The engine computes only: no I/O, formatting, JSON or CLI headers (STYLE.md).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

TEST_CASE("engine sources include no I/O, formatting, JSON or CLI headers", "[engine]") {
  const std::vector<std::string> forbidden = {"fmt/",    "nlohmann/", "CLI/",   "iostream",
                                              "fstream", "sstream",   "cstdio", "ostream"};
  auto includes_forbidden = [&forbidden](const std::string& line) {
    if (line.find("#include") == std::string::npos) {
      return false;
    }
    return std::any_of(forbidden.begin(), forbidden.end(), [&line](const std::string& header) {
      return line.find("<" + header) != std::string::npos ||
             line.find("\"" + header) != std::string::npos;
    });
  };
  int files = 0;
  for (const char* folder : {"src/engine", "include/kspeed/engine"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(KSPEED_SOURCE_DIR) / folder)) {
      std::ifstream in(entry.path());
      std::string line;
      ++files;
      while (std::getline(in, line)) {
        INFO(entry.path().string() << ": " << line);
        CHECK_FALSE(includes_forbidden(line));
      }
    }
  }
  CHECK(files >= 10);  // the test saw the engine, not an empty folder
}
