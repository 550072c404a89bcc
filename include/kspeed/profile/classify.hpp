#pragma once
// Kernel classes: which GPU kernels are attention, and which are its neighbours. Patterns are
// regular expressions searched anywhere in the whole kernel name (demangled or mangled), because
// wrappers bury the telling part deep inside templates (TRACES.md, "Attention kernel names").

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kspeed/profile/regex.hpp"

namespace kspeed::profile {

enum class KernelClass {
  attention_core,      ///< the attention kernel itself (what a faster kernel replaces)
  kv_write,            ///< writing K and V into the paged cache
  rope,                ///< rotary position embedding
  attention_metadata,  ///< block tables, split counts, index building
  other,               ///< everything else (GEMMs, norms, communication, ...)
};
inline constexpr std::size_t kKernelClassCount = 5;

/// "attention_core", "kv_write", "rope", "attention_metadata", "other".
std::string_view to_string(KernelClass kernel_class);
/// Inverse of to_string; false for an unknown name.
bool parse_kernel_class(std::string_view name, KernelClass& out);
/// The class names, in enum order (for messages).
std::vector<std::string> kernel_class_names();

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

/// Kernel classes that form each share (cumulative: core, + KV write, + RoPE).
enum class ShareScope { core, core_kv, core_kv_rope };
inline constexpr std::array<ShareScope, 3> kShareScopes = {ShareScope::core, ShareScope::core_kv,
                                                           ShareScope::core_kv_rope};
/// "core", "core+kv", "core+kv+rope".
std::string_view to_string(ShareScope scope);
/// Whether kernels of `kernel_class` count towards a share of `scope`.
bool in_scope(KernelClass kernel_class, ShareScope scope);

}  // namespace kspeed::profile
