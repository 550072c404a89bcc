// --calibrate files: the bytes are a file read_calibration_file opens (an AccelMark result or
// any per-request log), at concurrency 1 or as the file states (the first byte's bit 0). The
// fit itself is reached through fuzz_command's estimate --calibrate.
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>

#include "fuzz_common.hpp"
#include "kspeed/io/calibration_reader.hpp"

namespace {

std::string scratch_file() {
  std::string pattern = "/tmp/kspeed-fuzz-calibrate-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  ::close(fd);
  return pattern;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = scratch_file();
  if (size < 1) return 0;
  const bool stated = (data[0] & 1U) != 0;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  kspeed::fuzz::expect_input_error_at_most([&] {
    const kspeed::io::CalibrationFile file =
        kspeed::io::read_calibration_file(path, stated ? std::nullopt : std::optional(1.0));
    (void)file;
  });
  return 0;
}
