// Kernel speedup tables (sweep --kernel-speedup-table): CSV or JSON, chosen by the first byte.
#include "fuzz_common.hpp"
#include "kspeed/engine/chain/kernel_speedup_table.hpp"
#include "kspeed/io/kernel_speedup_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kspeed::fuzz::expect_input_error_at_most([&] {
    const kspeed::engine::KernelSpeedupTable table =
        kspeed::io::read_kernel_speedup_table(kspeed::fuzz::as_text(data, size), "fuzz.csv");
    // Every accepted table answers at any point with a positive, finite speedup.
    for (double at : {1.0, 4096.0, 1e9}) {
      const double speedup = kspeed::engine::speedup_at(table, at).value;
      if (!(speedup > 0) || speedup > 1e10) __builtin_trap();
    }
  });
  return 0;
}
