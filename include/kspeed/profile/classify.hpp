#pragma once
// The kernel classifier: which GPU kernels are attention, and which are its neighbours. The
// classes themselves are domain vocabulary (engine/chain/kernel_class.hpp), shared with the engine's
// measured roofline; the regex rules that assign them live here. Patterns are
// regular expressions searched anywhere in the whole kernel name (demangled or mangled), because
// wrappers bury the telling part deep inside templates (TRACES.md, "Attention kernel names").

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/engine/chain/kernel_class.hpp"
#include "kspeed/profile/regex.hpp"

namespace kspeed::profile {

using engine::in_scope;
using engine::kernel_class_names;
using engine::KernelClass;
using engine::kKernelClassCount;
using engine::kShareScopes;
using engine::parse_kernel_class;
using engine::ShareScope;
using engine::to_string;

/// One rule: kernels whose name contains a match of `regex` belong to `kernel_class`.
struct KernelPattern {
  KernelClass kernel_class = KernelClass::other;
  std::string regex;    ///< POSIX extended syntax, searched (not anchored) in the whole name
  std::string library;  ///< where the pattern comes from, for people ("FlashInfer", "--patterns")
};

/// The built-in rules, most specific first (KV write and RoPE before core attention, so a fused
/// RoPE+KV kernel is not counted as attention).
const std::vector<KernelPattern>& builtin_patterns();

/// An ordered rule list compiled once; the first matching rule wins.
class KernelClassifier {
 public:
  /// Throws InputError when a rule's regex does not compile (naming the rule).
  explicit KernelClassifier(std::vector<KernelPattern> patterns);

  /// The class of `name`, and the index of the rule that matched (npos: none, class other).
  KernelClass classify(const std::string& name, std::size_t* rule = nullptr) const;
  const std::vector<KernelPattern>& patterns() const { return patterns_; }

 private:
  std::vector<KernelPattern> patterns_;
  std::vector<Regex> compiled_;
};

}  // namespace kspeed::profile
