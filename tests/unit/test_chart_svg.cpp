// The SVG writer: escaping of hostile names, invalid UTF-8, numbers, and a well-formed frame.
#include <catch2/catch.hpp>

#include "chart_xml.hpp"
#include "kspeed/report/chart/svg.hpp"

namespace unit_chart_svg {

using namespace kspeed::report::chart;

TEST_CASE("text and attributes are escaped", "[chart]") {
  CHECK(escape_xml_text("a < b & c > d") == "a &lt; b &amp; c &gt; d");
  CHECK(escape_xml_text("say \"hi\" 'x'") == "say \"hi\" 'x'");
  CHECK(escape_xml_attribute("say \"hi\" 'x' <&>") ==
        "say &quot;hi&quot; &apos;x&apos; &lt;&amp;&gt;");
  CHECK(escape_xml_attribute("tab\there\nnew") == "tab&#9;here&#10;new");
  CHECK(escape_xml_text("cr\r") == "cr&#13;");
}

TEST_CASE("bytes that are not UTF-8, and controls XML forbids, become U+FFFD", "[chart]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(to_valid_utf8("plain ×∞ 😀") == "plain ×∞ 😀");
  CHECK(to_valid_utf8("a\xff"
                      "b") == "a" + fffd + "b");
  CHECK(to_valid_utf8("\xC3") == fffd);                                   // truncated sequence
  CHECK(to_valid_utf8("\xC0\xAF") == fffd + fffd);                        // overlong '/'
  CHECK(to_valid_utf8("\xED\xA0\x80") == fffd + fffd + fffd);             // a UTF-16 surrogate
  CHECK(to_valid_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // above U+10FFFF
  CHECK(to_valid_utf8(std::string("nul\0bell\x07", 9)) == "nul" + fffd + "bell" + fffd);
  CHECK(to_valid_utf8("\xEF\xBF\xBF") == fffd);  // U+FFFF
  CHECK(to_valid_utf8("tab\tlf\ncr\r") == "tab\tlf\ncr\r");
}

TEST_CASE("coordinates carry two decimals, data values round-trip", "[chart]") {
  CHECK(format_coordinate(12.5) == "12.5");
  CHECK(format_coordinate(300) == "300");
  CHECK(format_coordinate(1.0 / 3) == "0.33");
  CHECK(format_coordinate(-0.001) == "0");
  CHECK(format_data(1.0 / 0.575) == "1.7391304347826089");
  CHECK(std::stod(format_data(1.0 / 0.575)) == 1.0 / 0.575);
  CHECK(format_data(131072) == "131072");
}

TEST_CASE("a document with hostile names is well-formed XML that keeps them as text", "[chart]") {
  const std::string hostile = "<script>alert(\"x\")</script> & 'q' \xff";
  SvgDocument svg(300, 200, hostile, hostile);
  const Frame frame = layout_frame(300, 200, hostile, {{hostile, "#0072B2", LegendMark::line}}, 30);
  draw_header(svg, frame, hostile, hostile, {{hostile, "#0072B2", LegendMark::line}});
  svg.leaf("circle", {{"data-series", hostile}});
  const std::string text = svg.finish();
  CHECK(text.find("<script>") == std::string::npos);
  const auto root = chart_test::parse_xml(text);
  CHECK(root.name == "svg");
  CHECK(root.at("viewBox") == "0 0 300 200");
  const std::string decoded = "<script>alert(\"x\")</script> & 'q' \xEF\xBF\xBD";
  CHECK(root.find_all("title").front()->text == decoded);
  CHECK(root.find_all("circle").back()->at("data-series") == decoded);
  CHECK(root.find_all("text", "title").front()->text == decoded);
}

TEST_CASE("the XML checker in these tests rejects what is not well-formed", "[chart]") {
  // The checker must be able to fail, or the tests that lean on it prove nothing.
  CHECK_NOTHROW(chart_test::parse_xml("<a x=\"1\"><b/>t&amp;</a>"));
  CHECK_THROWS(chart_test::parse_xml("<a><b></a>"));
  CHECK_THROWS(chart_test::parse_xml("<a x=1/>"));
  CHECK_THROWS(chart_test::parse_xml("<a>1 < 2</a>"));
  CHECK_THROWS(chart_test::parse_xml("<a>&nbsp;</a>"));
  CHECK_THROWS(chart_test::parse_xml("<a x=\"1\" x=\"2\"/>"));
  CHECK_THROWS(chart_test::parse_xml("<a>\xff</a>"));
  CHECK_THROWS(chart_test::parse_xml("<a/><b/>"));
  CHECK_THROWS(chart_test::parse_xml("<a x=\"<\"/>"));
}

TEST_CASE("the palette is Okabe-Ito without yellow, and wraps", "[chart]") {
  CHECK(palette_colour(0) == "#0072B2");
  CHECK(palette_colour(1) == "#D55E00");
  CHECK(palette_colour(7) == "#0072B2");
}

TEST_CASE("line paths break at gaps and skip sub-pixel steps", "[chart]") {
  CHECK(line_path({{0, 0}, {10, 5}, {20, 10}}) == "M0 0 L10 5 L20 10");
  CHECK(line_path({{0, 0}, {std::nan(""), 1}, {20, 10}, {30, 10}}) == "M0 0 M20 10 L30 10");
  CHECK(line_path({{0, 0}, {0.1, 0.1}, {0.2, 0.2}, {0.3, 0.3}}) == "M0 0 L0.3 0.3");
  CHECK(line_path({{0, 0}, {0.1, 0}, {0.3, 0}, {0.4, 0}}) == "M0 0 L0.3 0 L0.4 0");
  CHECK(line_path({}).empty());
}

}  // namespace unit_chart_svg
