#include "kspeed/io/length_file.hpp"

#include <charconv>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"

namespace kspeed::io {

namespace {

// The replay's bound on a request's lengths (batch_replay.cpp's kMaxTokens).
constexpr std::int64_t kMaxFileLength = std::int64_t{1} << 28;

bool is_length_separator(char c) {
  return c == ' ' || c == '\t' || c == ',' || c == '\r';
}

}  // namespace

std::vector<std::int32_t> parse_lengths(std::string_view text, const std::string& source,
                                        std::string_view flag) {
  std::vector<std::int32_t> lengths;
  std::int64_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (!line.empty() && line.front() == '#') continue;
    while (!line.empty()) {
      std::size_t start = 0;
      while (start < line.size() && is_length_separator(line[start])) ++start;
      std::size_t stop = start;
      while (stop < line.size() && !is_length_separator(line[stop])) ++stop;
      const std::string_view item = line.substr(start, stop - start);
      line = line.substr(stop);
      if (item.empty()) continue;
      std::int64_t value = 0;
      const auto [rest, error] = std::from_chars(item.data(), item.data() + item.size(), value);
      if (error != std::errc{} || rest != item.data() + item.size() || value < 1 ||
          value > kMaxFileLength) {
        throw InputError(std::string(flag) + ": " + source + ":" + std::to_string(line_number) +
                         ": '" + std::string(item) +
                         "' is not a length (a whole number of tokens from 1 to 268435456); the "
                         "file holds lengths separated by spaces, commas or lines, '#' comments");
      }
      lengths.push_back(static_cast<std::int32_t>(value));
    }
  }
  if (lengths.empty()) {
    throw InputError(std::string(flag) + ": " + source +
                     " holds no lengths: write one whole number of tokens a line (e.g. the "
                     "prompt lengths of a benchmark run)");
  }
  return lengths;
}

std::vector<std::int32_t> read_length_file(const std::string& path, std::string_view flag) {
  return parse_lengths(read_text_file(path, std::string(flag) + " file"), path, flag);
}

}  // namespace kspeed::io
