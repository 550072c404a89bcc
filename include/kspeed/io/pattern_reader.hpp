#pragma once
// `kspeed profile --patterns FILE`: kernel-class rules that extend or replace the built-in ones.
//   {"replace_builtin": false,
//    "patterns": [{"class": "attention_core", "regex": "my_attn_kernel", "library": "ours"}]}
// User rules come first, so they override the built-in ones; "replace_builtin": true drops
// the built-in rules altogether.

#include <string>
#include <string_view>
#include <vector>

#include "kspeed/profile/classify.hpp"

namespace kspeed::io {

struct PatternFile {
  bool replace_builtin = false;
  std::vector<profile::KernelPattern> patterns;
};

/// Parses and validates a patterns document; `source` names it in errors.
PatternFile parse_pattern_file(std::string_view text, std::string_view source);

/// The rule list the classifier uses: the file's rules, then (unless replaced) the built-ins.
std::vector<profile::KernelPattern> combined_patterns(const PatternFile& file);

}  // namespace kspeed::io
