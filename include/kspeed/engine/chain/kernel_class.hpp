#pragma once
// Kernel classes: the attention kernel and its neighbours, the vocabulary the trace analysis
// (profile/classify.hpp assigns them by regex over kernel names) and the engine's measured
// roofline share. Here, below both, so neither includes the other.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kspeed::engine {

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

/// Kernel classes that form each share (cumulative: core, + KV write, + RoPE).
enum class ShareScope { core, core_kv, core_kv_rope };
inline constexpr std::array<ShareScope, 3> kShareScopes = {ShareScope::core, ShareScope::core_kv,
                                                           ShareScope::core_kv_rope};
/// "core", "core+kv", "core+kv+rope".
std::string_view to_string(ShareScope scope);
/// Whether kernels of `kernel_class` count towards a share of `scope`.
bool in_scope(KernelClass kernel_class, ShareScope scope);

}  // namespace kspeed::engine
