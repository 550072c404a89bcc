#include "kspeed/io/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "kspeed/error.hpp"

namespace kspeed::io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void too_large(const std::string& label, std::uint64_t limit) {
  throw InputError(label + " is larger than " + std::to_string(limit) +
                   " bytes, the most kspeed reads from an input file: expected a small JSON "
                   "document (set " +
                   std::string(kMaxInputBytesVariable) + " to raise the limit)");
}

}  // namespace

std::uint64_t max_input_bytes() {
  const char* setting = std::getenv(kMaxInputBytesVariable);
  if (setting == nullptr || *setting == '\0') return kDefaultMaxInputBytes;
  std::uint64_t bytes = 0;
  const std::string_view text(setting);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (ec != std::errc() || end != text.data() + text.size() || bytes == 0) {
    throw InputError(std::string(kMaxInputBytesVariable) + "='" + excerpt(text) +
                     "' is not valid: expected a whole number of bytes >= 1 (268435456 is the "
                     "default, 256 MiB)");
  }
  return bytes;
}

std::string read_text_file(const std::string& path, std::string_view what) {
  const std::string label = std::string(what) + " '" + excerpt(path) + "'";
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw InputError(label +
                     " does not exist: check the path (relative paths start from the current "
                     "folder)");
  }
  if (fs::is_directory(status)) throw InputError(label + " is a folder: expected a file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(label + " cannot be read: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // Bounded whatever the file is: a regular file is refused by its size before it is read; a
  // pipe or a device (/dev/zero) is read in chunks until the limit, and refused at the first
  // NUL byte, since no JSON text holds one.
  const std::uint64_t limit = max_input_bytes();
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
      static_cast<std::uint64_t>(info.st_size) > limit) {
    too_large(label, limit);
  }
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 16);
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(label + " cannot be read after " + std::to_string(text.size()) +
                       " bytes: " + std::strerror(errno));
    }
    const std::string_view got(chunk.data(), static_cast<std::size_t>(n));
    if (got.find('\0') != std::string_view::npos) {
      throw InputError(excerpt(path) +
                       ": the file is binary (it contains NUL bytes): expected JSON text");
    }
    if (text.size() + got.size() > limit) too_large(label, limit);
    text.append(got);
  }
  return text;
}

void check_output_path(const std::string& path) {
  const fs::path target(path);
  if (target.filename().empty()) {
    throw InputError("-o '" + path + "' names a folder: expected a file name, e.g. -o out.json");
  }
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw InputError("-o '" + path + "': the folder '" + folder.string() +
                     "' does not exist: create it first (mkdir -p " + folder.string() + ")");
  }
  if (fs::is_directory(target, ec)) {
    throw InputError("-o '" + path + "' is a folder: expected a file name inside it");
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  check_output_path(path);
  const fs::path target(path);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string temp = (folder / ("." + target.filename().string() + ".kspeed-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw InputError("-o '" + path + "': cannot create a temporary file in '" + folder.string() +
                     "': " + std::strerror(errno));
  }
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      throw InputError("-o '" + path + "': writing failed: " + reason + "; the old file is kept");
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates the file 0600; an output file is an ordinary file (0644 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  const bool synced = ::fsync(fd) == 0;
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed || ::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temp.c_str());
    throw InputError("-o '" + path + "': replacing the file failed: " + reason +
                     "; the old file is kept");
  }
}

}  // namespace kspeed::io
