#include "kspeed/io/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "kspeed/error.hpp"
#include "kspeed/io/trace/byte_source.hpp"

namespace kspeed::io {

namespace fs = std::filesystem;

void refuse_too_large(const std::string& label, std::uint64_t limit, std::string_view expected) {
  throw InputError(label + " is larger than " + std::to_string(limit) +
                   " bytes, the most kspeed reads from an input file: expected " +
                   std::string(expected) + " (set " + std::string(kMaxInputBytesVariable) +
                   " to raise the limit)");
}

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

namespace {

// FNV-1a, 64 bit, over a regular file's bytes; nullopt when it cannot be read (the trace reader
// reports that with its own error).
std::optional<std::uint64_t> content_hash(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::uint64_t hash = 14695981039346656037ULL;
  std::vector<unsigned char> chunk(std::size_t{1} << 20);
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n <= 0) {
      ::close(fd);
      if (n < 0) return std::nullopt;
      return hash;
    }
    for (ssize_t i = 0; i < n; ++i) {
      hash = (hash ^ chunk[static_cast<std::size_t>(i)]) * 1099511628211ULL;
    }
  }
}

}  // namespace

// Paths are quoted whole up to this length (a trace path is often long).
constexpr std::size_t kPathExcerpt = 512;

void check_distinct_files(const std::vector<std::string>& paths, std::string_view what) {
  struct Seen {
    std::string path;
    dev_t device;
    ino_t inode;
    off_t size;
    std::optional<std::uint64_t> hash;
  };
  std::vector<Seen> seen;
  for (const std::string& path : paths) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    Seen current{path, info.st_dev, info.st_ino, info.st_size, std::nullopt};
    for (Seen& earlier : seen) {
      const bool same_file = earlier.device == current.device && earlier.inode == current.inode;
      bool same_content = false;
      if (!same_file && earlier.size == current.size) {
        if (!earlier.hash) earlier.hash = content_hash(earlier.path);
        if (!current.hash) current.hash = content_hash(current.path);
        same_content = earlier.hash && current.hash && *earlier.hash == *current.hash;
      }
      if (same_file || same_content) {
        throw InputError(std::string(what) + " '" + excerpt(current.path, kPathExcerpt) + "' " +
                         (same_file ? "is the same file as '" : "has the same content as '") +
                         excerpt(earlier.path, kPathExcerpt) +
                         "': one file counted twice would weigh its steps double; give each "
                         "file once");
      }
    }
    seen.push_back(std::move(current));
  }
}

InputFile::InputFile(std::string path, std::string_view what, std::string_view expected)
    : path_(std::move(path)),
      label_(std::string(what) + " '" + excerpt(path_, kPathExcerpt) + "'") {
  // One open, then fstat on the descriptor: a stat by name before the open would be a second
  // look at a path that may have changed (and, for /dev/fd/N, a different file).
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      throw InputError(label_ +
                       " does not exist: check the path (relative paths start from the current "
                       "folder)");
    }
    throw InputError(label_ + " cannot be read: " + std::strerror(error));
  }
  struct stat info {};
  if (::fstat(fd_, &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      ::close(fd_);
      fd_ = -1;
      throw InputError(label_ + " is a folder: expected " + std::string(expected));
    }
    regular_ = S_ISREG(info.st_mode);
    if (regular_) size_ = static_cast<std::uint64_t>(info.st_size);
  }
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

const std::string& InputFile::head(std::size_t bytes) {
  while (!at_end_ && head_.size() < bytes) {
    const std::size_t old_size = head_.size();
    head_.resize(bytes);
    const ssize_t n = ::read(fd_, head_.data() + old_size, bytes - old_size);
    head_.resize(old_size + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0) at_end_ = true;
    if (n < 0 && errno != EINTR) {
      throw InputError(label_ + " cannot be read: " + std::strerror(errno));
    }
  }
  return head_;
}

std::string InputFile::read_text() {
  // Bounded whatever the file is: a regular file is refused by its size before it is read; a
  // pipe or a device (/dev/zero) is read in chunks until the limit, and refused at the first
  // NUL byte, since no text input holds one.
  const std::uint64_t limit = max_input_bytes();
  if (regular_ && size_ > limit) refuse_too_large(label_, limit);
  std::string text = std::move(head_);
  head_.clear();
  const auto check = [&](std::string_view got) {
    if (got.find('\0') != std::string_view::npos) {
      throw InputError(excerpt(path_) +
                       ": the file is binary (it contains NUL bytes): expected JSON text");
    }
  };
  check(text);
  if (text.size() > limit) refuse_too_large(label_, limit);
  std::vector<char> chunk(std::size_t{1} << 16);
  while (!at_end_) {
    const ssize_t n = ::read(fd_, chunk.data(), chunk.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(label_ + " cannot be read after " + std::to_string(text.size()) +
                       " bytes: " + std::strerror(errno));
    }
    const std::string_view got(chunk.data(), static_cast<std::size_t>(n));
    check(got);
    if (text.size() + got.size() > limit) refuse_too_large(label_, limit);
    text.append(got);
  }
  at_end_ = true;
  return text;
}

std::unique_ptr<trace::ByteSource> InputFile::stream(std::size_t offset) {
  if (regular_) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<trace::ByteSource> rest = trace::descriptor_source(std::exchange(fd_, -1), path_);
  std::string replay = offset < head_.size() ? head_.substr(offset) : std::string();
  head_.clear();
  if (replay.empty()) return rest;
  return trace::prefixed_source(std::move(replay), std::move(rest));
}

std::string read_text_file(const std::string& path, std::string_view what) {
  InputFile file(path, what);
  return file.read_text();
}

std::optional<FileIdentity> file_identity(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) return std::nullopt;
    return FileIdentity{
        static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino), {}};
  }
  // Not there yet: the folder it will be created in, and its name there. A symlink that
  // dangles names the file writing through it would create, so its links are followed first
  // (at most 40, the kernel's own limit).
  std::error_code ec;
  fs::path target(path);
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) break;
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  if (fs::path resolved = fs::weakly_canonical(target, ec); !ec) target = resolved;
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (::stat(folder.c_str(), &info) != 0) return std::nullopt;
  return FileIdentity{static_cast<std::uint64_t>(info.st_dev),
                      static_cast<std::uint64_t>(info.st_ino), target.filename().string()};
}

void check_outputs_distinct(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs) {
  struct Seen {
    const NamedPath* named;
    FileIdentity identity;
  };
  std::vector<Seen> input_files;
  for (const NamedPath& input : inputs) {
    if (auto identity = file_identity(input.first); identity && identity->name.empty()) {
      input_files.push_back({&input, *identity});
    }
  }
  const auto quoted = [](const NamedPath& named) {
    return named.second + " '" + excerpt(named.first, kPathExcerpt) + "'";
  };
  std::vector<Seen> output_files;
  for (const NamedPath& output : outputs) {
    const std::optional<FileIdentity> identity = file_identity(output.first);
    if (!identity) continue;
    for (const Seen& input : input_files) {
      if (input.identity == *identity) {
        throw InputError(quoted(output) + " is also " + quoted(*input.named) +
                         ": writing it would replace what kspeed reads; write to another file");
      }
    }
    for (const Seen& earlier : output_files) {
      if (earlier.identity == *identity) {
        throw InputError(quoted(output) + " is the same file as " + quoted(*earlier.named) +
                         ": one output would replace the other; give each output its own file");
      }
    }
    output_files.push_back({&output, *identity});
  }
}

void check_output_path(const std::string& path, std::string_view flag) {
  const std::string named = std::string(flag) + " '" + excerpt(path) + "'";
  const fs::path target(path);
  if (path.empty()) {
    throw InputError(std::string(flag) + " was given an empty file name: expected a file, e.g. " +
                     std::string(flag) + " out.json");
  }
  if (target.filename().empty()) {
    throw InputError(named + " names a folder: expected a file name, e.g. " + std::string(flag) +
                     " out.json");
  }
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw InputError(named + ": the folder '" + excerpt(folder.string()) +
                     "' does not exist: create it first (mkdir -p " + excerpt(folder.string()) +
                     ")");
  }
  if (fs::is_directory(target, ec)) {
    throw InputError(named + " is a folder: expected a file name inside it");
  }
}

namespace {

// What a commit replaces: the file a symlink points to (the link stays a link), or the path
// itself. A target that exists and is not a regular file is written through instead.
struct ResolvedTarget {
  std::string path;
  bool write_through = false;
};

ResolvedTarget resolve_target(const std::string& path) {
  std::error_code ec;
  // /dev/stdout, /dev/fd/N and /proc/self/fd/N are links to whatever the shell opened: write
  // into that open file, never replace what the link happens to name.
  const bool special = path.starts_with("/dev/") || path.starts_with("/proc/");
  if (special && fs::exists(path, ec)) return {path, true};
  const fs::file_status status = fs::status(path, ec);  // follows symlinks
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) return {path, true};
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path resolved = fs::weakly_canonical(path, ec);
    if (!ec) return {resolved.string(), false};
  }
  return {path, false};
}

void write_all(int fd, std::string_view content, const std::string& named) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) {
      throw InputError(named + ": writing failed: " + std::strerror(errno) +
                       "; the old file is kept");
    }
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

StagedOutput::StagedOutput(std::string path, std::string_view flag)
    : path_(std::move(path)), flag_(flag) {
  check_output_path(path_, flag_);
  const ResolvedTarget resolved = resolve_target(path_);
  target_ = resolved.path;
  write_through_ = resolved.write_through;
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      flag_(std::move(other.flag_)),
      temp_(std::exchange(other.temp_, std::string())),
      content_(std::move(other.content_)),
      fd_(std::exchange(other.fd_, -1)),
      write_through_(other.write_through_) {}

StagedOutput::~StagedOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void StagedOutput::stage(std::string_view content) {
  begin();
  write(content);
  end();
}

void StagedOutput::begin() {
  content_.clear();
  if (write_through_) return;
  const std::string named = flag_ + " '" + excerpt(path_) + "'";
  const fs::path target(target_);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string temp = (folder / ("." + target.filename().string() + ".kspeed-XXXXXX")).string();
  fd_ = ::mkstemp(temp.data());
  if (fd_ < 0) {
    throw InputError(named + ": cannot create a temporary file in '" + excerpt(folder.string()) +
                     "': " + std::strerror(errno));
  }
  temp_ = temp;  // from here on the destructor removes it on any failure
}

void StagedOutput::write(std::string_view piece) {
  if (write_through_) {
    content_.append(piece);
    return;
  }
  try {
    write_all(fd_, piece, flag_ + " '" + excerpt(path_) + "'");
  } catch (...) {
    ::close(std::exchange(fd_, -1));
    throw;
  }
}

void StagedOutput::end() {
  if (write_through_) return;
  const std::string named = flag_ + " '" + excerpt(path_) + "'";
  const int fd = std::exchange(fd_, -1);
  // mkstemp creates the file 0600; an output file is an ordinary file (0644 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  const bool synced = ::fsync(fd) == 0;
  if (::close(fd) != 0 || !synced) {
    throw InputError(named + ": writing failed: " + std::strerror(errno) +
                     "; the old file is kept");
  }
}

void StagedOutput::commit() {
  const std::string named = flag_ + " '" + excerpt(path_) + "'";
  if (write_through_) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw InputError(named + ": cannot open it: " + std::strerror(errno));
    try {
      write_all(fd, content_, named);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    return;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    throw InputError(named + ": replacing the file failed: " + std::strerror(errno) +
                     "; the old file is kept");
  }
  temp_.clear();
}

void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view flag) {
  StagedOutput output(path, flag);
  output.stage(content);
  output.commit();
}

}  // namespace kspeed::io
