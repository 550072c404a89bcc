#include "kspeed/io/trace/byte_source.hpp"
#include "kspeed/io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kspeed/error.hpp"

namespace kspeed::io::trace {

namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, std::string path)
      : fd_(fd), path_(std::move(path)), cap_(max_stream_bytes()) {}
  ~FileSource() override { ::close(fd_); }

  std::size_t read(char* out, std::size_t capacity) override {
    for (;;) {
      const ssize_t n = ::read(fd_, out, capacity);
      if (n >= 0) {
        position_ += static_cast<std::uint64_t>(n);
        if (cap_ && position_ > *cap_) {
          refuse_too_large("'" + path_ + "'", *cap_, "a smaller input");
        }
        return static_cast<std::size_t>(n);
      }
      if (errno != EINTR) {
        throw InputError(path_ + ": reading failed after " + std::to_string(position_) +
                         " bytes: " + std::strerror(errno));
      }
    }
  }
  std::uint64_t file_position() const override { return position_; }

 private:
  int fd_;
  std::string path_;
  std::optional<std::uint64_t> cap_;  ///< KSPEED_MAX_INPUT_BYTES, when set
  std::atomic<std::uint64_t> position_{0};
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::size_t read(char* out, std::size_t capacity) override {
    const std::size_t n = std::min(capacity, bytes_.size() - position_);
    std::memcpy(out, bytes_.data() + position_, n);
    position_ += n;
    return n;
  }
  std::uint64_t file_position() const override { return position_; }

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
};

class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string head, std::unique_ptr<ByteSource> rest)
      : head_(std::move(head)), rest_(std::move(rest)) {}
  std::size_t read(char* out, std::size_t capacity) override {
    if (offset_ < head_.size()) {
      const std::size_t n = std::min(capacity, head_.size() - offset_);
      std::memcpy(out, head_.data() + offset_, n);
      offset_ += n;
      return n;
    }
    return rest_->read(out, capacity);
  }
  std::uint64_t file_position() const override { return rest_->file_position(); }

 private:
  std::string head_;
  std::size_t offset_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

// Inflates on a producer thread into a small queue of blocks: the parser (consumer) and zlib
// then run on two cores at once, so reading a .gz costs about max(inflate, parse), not the sum.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> compressed, std::string name)
      : compressed_(std::move(compressed)), name_(std::move(name)), cap_(max_stream_bytes()) {
    producer_ = std::thread([this] { produce(); });
  }
  ~GzipSource() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    producer_.join();
  }

  std::size_t read(char* out, std::size_t capacity) override {
    while (current_offset_ >= current_.size()) {
      if (!next_block()) return 0;
    }
    const std::size_t n = std::min(capacity, current_.size() - current_offset_);
    std::memcpy(out, current_.data() + current_offset_, n);
    current_offset_ += n;
    inflated_ += n;
    if (cap_ && inflated_ > *cap_) {
      refuse_too_large(name_ + " (inflated)", *cap_, "a smaller input");
    }
    return n;
  }
  std::uint64_t file_position() const override { return compressed_->file_position(); }

 private:
  static constexpr std::size_t kBlockBytes = 1 << 20;
  // 4 MB of inflated text in flight is enough to keep the parser fed (inflating is the slower
  // side); 8 cost 4 MB more peak memory on a dense 1 GB trace for no measurable speed.
  static constexpr std::size_t kQueuedBlocks = 4;

  bool next_block() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !queue_.empty() || finished_; });
    if (queue_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    spare_ = std::move(current_);
    current_ = std::move(queue_.front());
    queue_.pop_front();
    current_offset_ = 0;
    lock.unlock();
    changed_.notify_all();
    return true;
  }

  // Returns false when the consumer has gone away.
  bool push(std::vector<char>&& block) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return queue_.size() < kQueuedBlocks || stop_; });
    if (stop_) return false;
    queue_.push_back(std::move(block));
    lock.unlock();
    changed_.notify_all();
    return true;
  }

  void produce() {
    try {
      inflate_all();
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(name_ + ": " + message);
  }

  void inflate_all() {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) fail("cannot start zlib");  // 15+32: gzip or zlib
    struct Guard {
      z_stream* zs;
      ~Guard() { inflateEnd(zs); }
    } guard{&zs};
    std::vector<char> input(kBlockBytes);
    std::uint64_t compressed_total = 0;
    bool stream_ended = false;
    bool input_done = false;
    std::vector<char> block(kBlockBytes);
    std::size_t filled = 0;
    for (;;) {
      if (zs.avail_in == 0 && !input_done) {
        const std::size_t n = compressed_->read(input.data(), input.size());
        compressed_total += n;
        input_done = n == 0;
        zs.next_in = reinterpret_cast<Bytef*>(input.data());
        zs.avail_in = static_cast<uInt>(n);
      }
      if (stream_ended) {
        // Another gzip member may follow (pigz, concatenated files); anything else ends it.
        if (zs.avail_in == 0 && input_done) break;
        if (zs.avail_in == 0) continue;
        if (zs.next_in[0] != 0x1f) break;
        inflateReset(&zs);
        stream_ended = false;
      }
      zs.next_out = reinterpret_cast<Bytef*>(block.data() + filled);
      zs.avail_out = static_cast<uInt>(block.size() - filled);
      const int status = inflate(&zs, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        stream_ended = true;
      } else if (status == Z_BUF_ERROR && zs.avail_in == 0 && input_done) {
        // No progress possible: the input ended inside a member.
        fail("the gzip stream ends early after " + std::to_string(compressed_total) +
             " compressed bytes: the file is truncated (re-copy or re-download it)");
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        fail("corrupt gzip data near compressed byte " +
             std::to_string(compressed_total - zs.avail_in) + ": " +
             (zs.msg != nullptr ? std::string(zs.msg) : "zlib error " + std::to_string(status)) +
             " (re-copy the file, or check it with `gzip -t`)");
      }
      filled = block.size() - zs.avail_out;
      if (filled == block.size()) {
        if (!push(std::move(block))) return;
        block = take_spare();
        filled = 0;
      }
    }
    block.resize(filled);
    if (filled > 0) push(std::move(block));
  }

  std::vector<char> take_spare() {
    std::lock_guard lock(mutex_);
    std::vector<char> block;
    // Reusing a consumed block saves a page-faulting allocation per MB of output.
    if (spare_.capacity() >= kBlockBytes) block = std::move(spare_);
    spare_ = {};
    block.resize(kBlockBytes);
    return block;
  }

  std::unique_ptr<ByteSource> compressed_;
  std::string name_;
  std::optional<std::uint64_t> cap_;  ///< KSPEED_MAX_INPUT_BYTES, when set
  std::uint64_t inflated_ = 0;        ///< bytes handed to the reader
  std::thread producer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<char>> queue_;
  std::vector<char> spare_;
  bool stop_ = false;
  bool finished_ = false;
  std::exception_ptr error_;
  std::vector<char> current_;
  std::size_t current_offset_ = 0;
};

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw InputError("trace file '" + path +
                     "' does not exist: check the path (relative paths start from the current "
                     "folder)");
  }
  if (S_ISDIR(info.st_mode)) {
    throw InputError("trace file '" + path +
                     "' is a folder: expected a trace file (*.json, "
                     "*.json.gz, *.sqlite, *.csv)");
  }
  const int fd = open_for_reading(path, "trace file '" + path + "'");
  if (fd < 0) {
    throw InputError("trace file '" + path + "' cannot be read: " + std::strerror(errno));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::make_unique<FileSource>(fd, path);
}

std::unique_ptr<ByteSource> descriptor_source(int fd, std::string name) {
  return std::make_unique<FileSource>(fd, std::move(name));
}

std::unique_ptr<ByteSource> memory_source(std::string_view bytes) {
  return std::make_unique<MemorySource>(bytes);
}

std::unique_ptr<ByteSource> gzip_source(std::unique_ptr<ByteSource> compressed,
                                        std::string source_name) {
  return std::make_unique<GzipSource>(std::move(compressed), std::move(source_name));
}

std::unique_ptr<ByteSource> prefixed_source(std::string head, std::unique_ptr<ByteSource> rest) {
  return std::make_unique<PrefixedSource>(std::move(head), std::move(rest));
}

}  // namespace kspeed::io::trace
