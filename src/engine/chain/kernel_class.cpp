#include "kspeed/engine/chain/kernel_class.hpp"

namespace kspeed::engine {

std::string_view to_string(KernelClass kernel_class) {
  switch (kernel_class) {
    case KernelClass::attention_core:
      return "attention_core";
    case KernelClass::kv_write:
      return "kv_write";
    case KernelClass::rope:
      return "rope";
    case KernelClass::attention_metadata:
      return "attention_metadata";
    case KernelClass::other:
      return "other";
  }
  return "other";
}

std::vector<std::string> kernel_class_names() {
  return {"attention_core", "kv_write", "rope", "attention_metadata", "other"};
}

bool parse_kernel_class(std::string_view name, KernelClass& out) {
  for (std::size_t i = 0; i < kKernelClassCount; ++i) {
    const auto candidate = static_cast<KernelClass>(i);
    if (to_string(candidate) == name) {
      out = candidate;
      return true;
    }
  }
  return false;
}

std::string_view to_string(ShareScope scope) {
  switch (scope) {
    case ShareScope::core:
      return "core";
    case ShareScope::core_kv:
      return "core+kv";
    case ShareScope::core_kv_rope:
      return "core+kv+rope";
  }
  return "core";
}

bool in_scope(KernelClass kernel_class, ShareScope scope) {
  switch (kernel_class) {
    case KernelClass::attention_core:
      return true;
    case KernelClass::kv_write:
      return scope != ShareScope::core;
    case KernelClass::rope:
      return scope == ShareScope::core_kv_rope;
    default:
      return false;
  }
}

}  // namespace kspeed::engine
