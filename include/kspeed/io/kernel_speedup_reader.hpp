#pragma once
// A kernel speedup table (engine::KernelSpeedupTable) from a small CSV or JSON file:
//
//   context,speedup        or   {"key": "context", "points": [{"at": "4k", "speedup": 1.8}, ...]}
//   4k,1.8                      (key "batch" for batch sizes; "at" may be a number or "4k")
//   32k,2.4
//
// A first byte of '{' (after a BOM and blanks) means JSON; anything else is CSV with a header
// naming the key (context, ctx or batch) and speedup. CRLF, a BOM, blank lines and quoted cells
// are tolerated. Points must be strictly increasing in context or batch.

#include <string>
#include <string_view>

#include "kspeed/engine/chain/kernel_speedup_table.hpp"

namespace kspeed::io {

/// Most points a table may hold: a kernel benchmark has a few dozen at most.
inline constexpr std::size_t kMaxSpeedupPoints = 10'000;

/// The table in `text`; `source` names it in errors (file:line). Throws InputError.
engine::KernelSpeedupTable read_kernel_speedup_table(std::string_view text,
                                                     std::string_view source);

/// The table in the file at `path` (read_text_file's limits and checks).
engine::KernelSpeedupTable load_kernel_speedup_table(const std::string& path);

}  // namespace kspeed::io
