// The output formats, one registry row each. A writer draws a Report in one format; its
// definition lives in its own file (text_renderer.cpp, markdown_renderer.cpp, json_writer.cpp,
// csv_writer.cpp, jsonl_writer.cpp). A new format: one new file and one row here.
#include <array>

#include "kspeed/report/render.hpp"

namespace kspeed::report {

using Writer = std::string (*)(const Report& report, const Style& style);

std::string render_text(const Report& report, const Style& style);
std::string render_markdown(const Report& report, const Style& style);
std::string write_json(const Report& report, const Style& style);
std::string write_csv(const Report& report, const Style& style);
std::string write_jsonl(const Report& report, const Style& style);

namespace {

struct FormatEntry {
  const char* name;
  const char* alias;  ///< another accepted name, or ""
  const char* help;
  bool for_people;
  Writer writer;
};

constexpr std::array kFormats = {
    FormatEntry{"text", "", "a table for people", true, render_text},
    FormatEntry{"json", "", "for scripts and dashboards", false, write_json},
    FormatEntry{"csv", "", "one row per result", false, write_csv},
    FormatEntry{"markdown", "md", "for PR comments", true, render_markdown},
    FormatEntry{"jsonl", "ndjson", "the csv rows as JSON objects, one per line", false,
                write_jsonl},
};

}  // namespace

std::string_view Format::name() const {
  return kFormats.at(index_).name;
}

bool Format::for_people() const {
  return kFormats.at(index_).for_people;
}

std::optional<Format> parse_format(std::string_view name) {
  for (std::size_t i = 0; i < kFormats.size(); ++i) {
    if (name == kFormats.at(i).name || (!name.empty() && name == kFormats.at(i).alias)) {
      return Format(i);
    }
  }
  return std::nullopt;
}

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  names.reserve(kFormats.size());
  for (const FormatEntry& entry : kFormats) names.emplace_back(entry.name);
  return names;
}

std::string format_help() {
  std::string help;
  for (const FormatEntry& entry : kFormats) {
    help += (help.empty() ? "" : ", ") + std::string(entry.name) + " (" + entry.help + ")";
  }
  return help;
}

std::string render(const Report& report, Format format, const Style& style) {
  return kFormats.at(std::size_t{format.index_}).writer(report, style);
}

std::string paint(const Style& style, const std::string& text, Ansi attribute) {
  if (!style.color) {
    return text;
  }
  const char* code = "1";
  switch (attribute) {
    case Ansi::bold:
      code = "1";
      break;
    case Ansi::red:
      code = "31";
      break;
    case Ansi::green:
      code = "32";
      break;
    case Ansi::yellow:
      code = "33";
      break;
  }
  return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
}

}  // namespace kspeed::report
