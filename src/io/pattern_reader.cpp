#include "kspeed/io/pattern_reader.hpp"

#include "kspeed/error.hpp"
#include "kspeed/io/json_document.hpp"
#include "kspeed/io/suggest.hpp"

namespace kspeed::io {

namespace {

const std::vector<std::string> kPatternTopKeys = {"replace_builtin", "patterns"};
const std::vector<std::string> kRuleKeys = {"class", "regex", "library"};

}  // namespace

PatternFile parse_pattern_file(std::string_view text, std::string_view source) {
  const nlohmann::json document = parse_json_document(text, source);
  const JsonReader reader{std::string(source)};
  reader.expect_object(document, "", kPatternTopKeys);
  PatternFile file;
  if (document.contains("replace_builtin")) {
    if (!document["replace_builtin"].is_boolean()) {
      reader.fail("replace_builtin", "expected true or false, found " +
                                         describe_json_type(document["replace_builtin"]));
    }
    file.replace_builtin = document["replace_builtin"].get<bool>();
  }
  const nlohmann::json& rules = reader.required(document, "", "patterns");
  if (!rules.is_array()) {
    reader.fail("patterns", "expected an array of {\"class\": ..., \"regex\": ...} rules, found " +
                                describe_json_type(rules));
  }
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const std::string at = "patterns[" + std::to_string(i) + "]";
    reader.expect_object(rules[i], at, kRuleKeys);
    profile::KernelPattern pattern;
    const std::string class_name =
        reader.string_value(reader.required(rules[i], at, "class"), at + ".class");
    if (!profile::parse_kernel_class(class_name, pattern.kernel_class)) {
      reader.fail(at + ".class", "unknown class '" + excerpt(class_name) + "'" +
                                     suggestion_suffix(class_name, profile::kernel_class_names()));
    }
    pattern.regex = reader.string_value(reader.required(rules[i], at, "regex"), at + ".regex");
    pattern.library = rules[i].contains("library")
                          ? reader.string_value(rules[i]["library"], at + ".library")
                          : std::string(source);
    file.patterns.push_back(std::move(pattern));
  }
  return file;
}

std::vector<profile::KernelPattern> combined_patterns(const PatternFile& file) {
  std::vector<profile::KernelPattern> patterns = file.patterns;
  if (!file.replace_builtin) {
    const auto& builtin = profile::builtin_patterns();
    patterns.insert(patterns.end(), builtin.begin(), builtin.end());
  }
  return patterns;
}

}  // namespace kspeed::io
