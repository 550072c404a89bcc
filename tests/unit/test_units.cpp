#include <catch2/catch.hpp>

#include "kspeed/error.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"

namespace unit_units {

using namespace kspeed::io;
using kspeed::InputError;

TEST_CASE("token counts take binary k and m suffixes", "[units]") {
  CHECK(parse_token_count("4096", "--ctx") == 4096);
  CHECK(parse_token_count("4k", "--ctx") == 4096);
  CHECK(parse_token_count("128k", "--ctx") == 131072);
  CHECK(parse_token_count("128K", "--ctx") == 131072);
  CHECK(parse_token_count("1m", "--ctx") == 1048576);
  CHECK(parse_token_count("128000", "--ctx") == 128000);  // a plain integer is exact
  CHECK(parse_token_count(" 8k ", "--ctx") == 8192);
}

TEST_CASE("bad token counts are rejected with the flag's name", "[units]") {
  for (const char* bad : {"0", "-5", "12q", "", "k", "1.5k", "4 k", "0k"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_token_count(bad, "--ctx"), InputError);
  }
  CHECK_THROWS_WITH(parse_token_count("99999999999999999999", "--ctx"),
                    Catch::Contains("--ctx") && Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_token_count("9007199254740993m", "--ctx"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_token_count("12q", "--ctx"), Catch::Contains("'12q'"));
}

TEST_CASE("durations are milliseconds unless suffixed", "[units]") {
  CHECK(parse_duration_ms("500", "--ttft") == 500.0);
  CHECK(parse_duration_ms("500ms", "--ttft") == 500.0);
  CHECK(parse_duration_ms("0.5s", "--ttft") == 500.0);
  CHECK(parse_duration_ms("250us", "--ttft") == Approx(0.25));
  CHECK(parse_duration_ms("2S", "--ttft") == 2000.0);
  for (const char* bad : {"0", "-1", "abc", "nan", "inf", "1e999", "5 minutes", "s", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_duration_ms(bad, "--ttft"), InputError);
  }
}

TEST_CASE("shares are fractions or percentages in [0, 1]", "[units]") {
  CHECK(parse_share("0.85", "--share") == 0.85);
  CHECK(parse_share("85%", "--share") == Approx(0.85));
  CHECK(parse_share("0", "--share") == 0.0);
  CHECK(parse_share("1", "--share") == 1.0);
  for (const char* bad : {"185%", "1.01", "-0.1", "abc", "nan", "%"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_share(bad, "--share"), InputError);
  }
}

TEST_CASE("positive numbers are finite and above zero", "[units]") {
  CHECK(parse_positive_number("2", "-s") == 2.0);
  CHECK(parse_positive_number("+1.5", "-s") == 1.5);
  CHECK(parse_positive_number("1e3", "-s") == 1000.0);
  for (const char* bad : {"0", "-2", "nan", "inf", "-inf", "2x", "", "1e-7"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_positive_number(bad, "-s"), InputError);
  }
}

TEST_CASE("did-you-mean suggests close names only", "[units]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(closest_match("jsn", {"text", "json", "csv"}) == std::optional<std::string>("json"));
  CHECK_FALSE(closest_match("xml", {"text", "json", "csv"}).has_value());
  CHECK(suggestion_suffix("xml", {"text", "json"}) == "; expected one of: text, json");
  CHECK(suggestion_suffix("reqest", {"request", "name"}) == ", did you mean 'request'?");
}

TEST_CASE("limits keep every sum finite and every loop short", "[units]") {
  CHECK(parse_token_count("128m", "--ctx") == kMaxTokens);
  CHECK_THROWS_WITH(parse_token_count("129m", "--ctx"), Catch::Contains("at most 134,217,728"));
  CHECK_THROWS_WITH(parse_duration_ms("1e300", "--ttft"), Catch::Contains("too long"));
  CHECK(parse_duration_ms("1e9", "--ttft") == 1e9);
  CHECK_THROWS_AS(parse_positive_number("1e-320", "-s"), InputError);
  CHECK_THROWS_AS(parse_positive_number("1e10", "-s"), InputError);
}

}  // namespace unit_units
