// The profile analysis computes only: no I/O, formatting, JSON or CLI headers (STYLE.md).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

TEST_CASE("profile sources include no I/O, formatting, JSON or CLI headers", "[profile]") {
  const std::vector<std::string> forbidden = {"fmt/",       "nlohmann/",     "CLI/",   "iostream",
                                              "fstream",    "sstream",       "cstdio", "ostream",
                                              "kspeed/io/", "kspeed/report/"};
  int files = 0;
  for (const char* folder : {"src/profile", "include/kspeed/profile"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(KSPEED_SOURCE_DIR) / folder)) {
      std::ifstream in(entry.path());
      std::string line;
      ++files;
      while (std::getline(in, line)) {
        if (line.find("#include") == std::string::npos) continue;
        INFO(entry.path().string() << ": " << line);
        CHECK_FALSE(std::any_of(forbidden.begin(), forbidden.end(), [&line](const std::string& h) {
          return line.find("<" + h) != std::string::npos ||
                 line.find("\"" + h) != std::string::npos;
        }));
      }
    }
  }
  CHECK(files >= 8);
}
