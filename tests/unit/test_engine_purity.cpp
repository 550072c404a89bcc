// The engine computes only: no I/O, formatting, JSON or CLI headers (STYLE.md).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace fs = std::filesystem;

TEST_CASE("engine sources include no I/O, formatting, JSON or CLI headers", "[engine]") {
  const std::regex forbidden(
      R"re(#\s*include\s*[<"](fmt/|nlohmann/|CLI/|iostream|fstream|sstream|cstdio|ostream))re");
  int files = 0;
  for (const char* folder : {"src/engine", "include/kspeed/engine"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(KSPEED_SOURCE_DIR) / folder)) {
      std::ifstream in(entry.path());
      std::string line;
      ++files;
      while (std::getline(in, line)) {
        INFO(entry.path().string() << ": " << line);
        CHECK_FALSE(std::regex_search(line, forbidden));
      }
    }
  }
  CHECK(files >= 10);  // the test saw the engine, not an empty folder
}
