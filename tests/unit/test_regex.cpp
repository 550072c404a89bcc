// User regexes (`--patterns`): POSIX ERE only, nothing that matches in exponential time, and
// Perl syntax refused with a message that says what to write instead.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "kspeed/profile/classify.hpp"
#include "kspeed/profile/regex.hpp"

namespace unit_regex {

using Catch::Matchers::Contains;
using kspeed::profile::Regex;

TEST_CASE("POSIX extended patterns compile and match", "[regex]") {
  CHECK(Regex("flash_fwd|paged_attention").search("void flash::flash_fwd_kernel<>"));
  CHECK(Regex("^[[:alnum:]_]+$").search("gemm_bf16"));
  CHECK(Regex("[]\\\\1]x").search("\\x"));  // a backslash inside brackets is a literal
  CHECK(Regex("a{2,3}b{4}").search("aab bbbb aaabbbb"));
  const auto groups = Regex("step_([0-9]+)").captures("step_42");
  REQUIRE(groups);
  CHECK((*groups)[1] == "42");
}

TEST_CASE("back-references are refused: they match in exponential time", "[regex]") {
  CHECK_THROWS_WITH(Regex("(a*)*\\1b"), Contains("back-references (\\1) are not supported"));
  CHECK_THROWS_WITH(Regex("(x)\\9"), Contains("back-references (\\9)"));
}

TEST_CASE("Perl syntax that POSIX ERE lacks is an error saying so", "[regex]") {
  CHECK_THROWS_WITH(Regex("gemm\\d+"),
                    "\\d is Perl syntax, not POSIX extended: write [0-9] for \\d, [[:alnum:]_] "
                    "for \\w, [[:space:]] for \\s");
  CHECK_THROWS_WITH(Regex("\\w+_kernel"), Contains("\\w is Perl syntax"));
  CHECK_THROWS_WITH(Regex("a\\sb"), Contains("\\s is Perl syntax"));
  for (const char* lookaround : {"flash(?=_fwd)", "flash(?!_bwd)", "(?<=void )gemm", "(?:ab)+"}) {
    INFO(lookaround);
    CHECK_THROWS_WITH(Regex(lookaround), Contains("(?...) groups (lookahead (?=, (?!, "
                                                  "lookbehind (?<, non-capturing (?:) are Perl"));
  }
}

TEST_CASE("huge patterns and repetition bounds are refused before regcomp", "[regex]") {
  CHECK_THROWS_WITH(Regex(std::string(1001, 'a')),
                    "the pattern is {count:1001} bytes long: expected at most {count:1000}");
  CHECK_THROWS_WITH(Regex("((a{100}){100}){100}"),
                    Contains("repetition counts multiply to more than {count:1000} copies"));
  CHECK_NOTHROW(Regex("(a{10}){100}"));
}

TEST_CASE("the built-in kernel rules pass the same checks", "[regex]") {
  CHECK_NOTHROW(kspeed::profile::KernelClassifier(kspeed::profile::builtin_patterns()));
}

}  // namespace unit_regex
