#include "kspeed/io/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kspeed/error.hpp"

namespace kspeed::io {

namespace fs = std::filesystem;

std::string read_text_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw InputError(std::string(what) + " '" + path +
                     "' does not exist: check the path (relative paths start from the current "
                     "folder)");
  }
  if (fs::is_directory(status)) {
    throw InputError(std::string(what) + " '" + path + "' is a folder: expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(std::string(what) + " '" + path + "' cannot be read: " + std::strerror(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
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
