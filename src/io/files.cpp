#include "kspeed/io/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
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

double peer_wait_seconds() {
  const char* setting = std::getenv(kPeerWaitVariable);
  if (setting == nullptr || *setting == '\0') return kDefaultPeerWaitSeconds;
  char* end = nullptr;
  const double seconds = std::strtod(setting, &end);
  if (end == setting || *end != '\0' || !(seconds >= 0 && seconds <= 3600)) {
    throw InputError(std::string(kPeerWaitVariable) + "='" + excerpt(setting) +
                     "' is not valid: expected seconds from 0 to 3600 (10 is the default)");
  }
  return seconds;
}

namespace {

bool is_fifo(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
}

[[noreturn]] void refuse_no_peer(const std::string& label, double seconds, bool reading) {
  char waited[32];
  std::snprintf(waited, sizeof waited, "%g", seconds);
  throw InputError(label + " is a named pipe that no program " +
                   (reading ? "writes to" : "reads from") + " (waited " + waited +
                   " s): start the " + (reading ? "writer" : "reader") +
                   " first, or give a file (set " + kPeerWaitVariable + " to wait longer)");
}

}  // namespace

int open_for_reading(const std::string& path, const std::string& label) {
  if (!is_fifo(path)) return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const double seconds = peer_wait_seconds();  // may throw: before the helper thread starts
  // open(2) of a FIFO blocks until a writer opens it, and cannot be given a timeout: it runs on
  // a helper thread while this one waits. Past the wait, opening the FIFO for writing (which
  // succeeds at once: the helper is its reader) releases the helper, and the path is refused.
  struct Shared {
    std::mutex mutex;
    std::condition_variable done;
    bool opened = false;
    int fd = -1;
    int error = 0;
  };
  auto shared = std::make_shared<Shared>();
  std::thread opener([shared, path] {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const int error = errno;
    const std::lock_guard<std::mutex> lock(shared->mutex);
    shared->fd = fd;
    shared->error = error;
    shared->opened = true;
    shared->done.notify_one();
  });
  std::unique_lock<std::mutex> lock(shared->mutex);
  const bool in_time = shared->done.wait_for(lock, std::chrono::duration<double>(seconds),
                                             [&] { return shared->opened; });
  lock.unlock();
  if (in_time) {
    opener.join();
    errno = shared->error;
    return shared->fd;
  }
  const int release = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (release >= 0) {
    opener.join();
    ::close(release);
    if (shared->fd >= 0) ::close(shared->fd);
  } else {
    opener.detach();  // cannot be released: it ends with the process
  }
  refuse_no_peer(label, seconds, true);
}

int open_for_writing(const std::string& path, int flags, const std::string& label) {
  if (!is_fifo(path)) return ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags);
  // A FIFO opened for writing without O_NONBLOCK blocks until a reader comes; with it, the open
  // fails (ENXIO) while there is none. Tried every 10 ms until the wait is over.
  const double seconds = peer_wait_seconds();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | flags);
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return fd;
    }
    if (errno != ENXIO) return -1;
    if (std::chrono::steady_clock::now() >= deadline) refuse_no_peer(label, seconds, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string describe_binary(std::string_view head) {
  const auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  // UTF-16 by its byte-order mark, or by ASCII with a NUL after (or before) every character.
  std::size_t odd_nuls = 0;
  std::size_t even_nuls = 0;
  const std::size_t sample = std::min<std::size_t>(head.size(), 512);
  for (std::size_t i = 0; i < sample; ++i) {
    if (head[i] == '\0') ++(i % 2 == 0 ? even_nuls : odd_nuls);
  }
  const bool little =
      starts("\xFF\xFE") || (sample >= 8 && odd_nuls * 2 >= sample / 2 - 1 && even_nuls == 0);
  const bool big =
      starts("\xFE\xFF") || (sample >= 8 && even_nuls * 2 >= sample / 2 - 1 && odd_nuls == 0);
  if (little || big) {
    return std::string("UTF-16 text (") + (little ? "little" : "big") +
           "-endian): kspeed reads UTF-8; convert it (iconv -f UTF-16 -t UTF-8 FILE > "
           "FILE.utf8)";
  }
  if (starts("\x1F\x8B")) {
    return "gzip-compressed: this input is read as plain text; decompress it first (gunzip -k "
           "FILE)";
  }
  if (starts("PK\x03\x04")) return "a zip archive: extract the file from it first (unzip)";
  if (starts("\x28\xB5\x2F\xFD")) return "zstd-compressed: decompress it first (zstd -d)";
  if (starts("\xFD"
             "7zXZ"))
    return "xz-compressed: decompress it first (xz -dk)";
  if (starts("BZh")) return "bzip2-compressed: decompress it first (bunzip2 -k)";
  if (starts(std::string_view("SQLite format 3\0", 16))) {
    return "an SQLite database (an Nsight Systems export is read by kspeed profile)";
  }
  return "binary (it contains NUL bytes)";
}

std::optional<std::uint64_t> max_stream_bytes() {
  const char* setting = std::getenv(kMaxInputBytesVariable);
  if (setting == nullptr || *setting == '\0') return std::nullopt;
  return max_input_bytes();
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
  fd_ = open_for_reading(path_, label_);
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
      throw InputError(label_ + " is " + describe_binary(text.empty() ? got : text) +
                       "; expected text");
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
  // A set KSPEED_MAX_INPUT_BYTES bounds a streamed input too: a regular file by its size, before
  // it is read; a pipe as it is read (the byte source counts).
  if (const std::optional<std::uint64_t> cap = max_stream_bytes();
      cap && regular_ && size_ > *cap) {
    refuse_too_large(label_, *cap, "a smaller input");
  }
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
  std::vector<NamedPath> folder_files;  // the files inside folders given as inputs
  for (const NamedPath& input : inputs) {
    if (auto identity = file_identity(input.first); identity && identity->name.empty()) {
      input_files.push_back({&input, *identity});
    }
    // A folder given as an input (an AIPerf artifact folder, an LLMServingSim run) is read for
    // the files inside it: each is an input too. Its tree is walked to the depth the readers
    // look (3 levels) and at most 100,000 entries, so a huge folder costs a bounded time.
    std::error_code ec;
    if (!input.first.empty() && fs::is_directory(input.first, ec)) {
      constexpr int kFolderDepth = 3;
      constexpr std::size_t kFolderEntries = 100000;
      std::size_t entries = 0;
      for (fs::recursive_directory_iterator
               it(input.first, fs::directory_options::skip_permission_denied, ec),
           end;
           !ec && it != end && entries < kFolderEntries; it.increment(ec), ++entries) {
        if (it.depth() >= kFolderDepth) it.disable_recursion_pending();
        if (it->is_regular_file(ec)) {
          folder_files.emplace_back(
              it->path().string(),
              "a file of " + input.second + " '" + excerpt(input.first, kPathExcerpt) + "':");
        }
      }
    }
  }
  for (const NamedPath& file : folder_files) {
    if (auto identity = file_identity(file.first); identity && identity->name.empty()) {
      input_files.push_back({&file, *identity});
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

namespace {

// The temporary files being written, for the signal handler: fixed slots of plain chars, since
// a handler may only read memory no allocation moves. A path too long for a slot is not
// registered (then only an orderly exit removes it).
constexpr std::size_t kTempSlots = 16;
constexpr std::size_t kTempPathBytes = 4096;
char g_temp_paths[kTempSlots][kTempPathBytes];
volatile std::sig_atomic_t g_temp_used[kTempSlots];

void register_temporary(const std::string& path) {
  if (path.size() >= kTempPathBytes) return;
  for (std::size_t i = 0; i < kTempSlots; ++i) {
    if (g_temp_used[i] == 0) {
      std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
      g_temp_used[i] = 1;
      return;
    }
  }
}

void unregister_temporary(const std::string& path) {
  for (std::size_t i = 0; i < kTempSlots; ++i) {
    if (g_temp_used[i] != 0 && path == g_temp_paths[i]) g_temp_used[i] = 0;
  }
}

extern "C" void remove_temporaries_and_die(int signal_number) {
  for (std::size_t i = 0; i < kTempSlots; ++i) {
    if (g_temp_used[i] != 0) ::unlink(g_temp_paths[i]);  // async-signal-safe
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void remove_temporaries_on_signal() {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_die;
    sigemptyset(&action.sa_mask);
    // The other two are held while one runs, so two signals cannot interleave their cleanup.
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    ::sigaction(signal_number, &action, nullptr);
  }
}

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
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    unregister_temporary(temp_);
  }
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
  temp_ = temp;  // from here on the destructor removes it on any failure, a signal handler too
  register_temporary(temp_);
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
    const int fd = open_for_writing(path_, O_TRUNC, named);
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
  unregister_temporary(temp_);
  temp_.clear();
}

void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view flag) {
  StagedOutput output(path, flag);
  output.stage(content);
  output.commit();
}

}  // namespace kspeed::io
