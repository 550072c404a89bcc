#pragma once
// Errors that reach the user. Thrown anywhere below main, caught once in cli::run, printed as
// `kspeed: error: <message>` on stderr and turned into a documented exit code.

#include <array>
#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kspeed {

/// Exit codes: the contract with scripts and CI (documented in README and --help).
enum ExitCode : int {
  kExitOk = 0,          ///< success
  kExitGateFailed = 1,  ///< a --min-* gate was not met
  kExitBadInput = 2,    ///< bad usage or bad input; nothing was written
  kExitInternal = 3,    ///< a bug in kspeed (please report it)
};

/// Bad input from the user: a flag value, a workload file, a trace. The message says what was
/// wrong, where, what was expected and how to fix it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How many bytes of input a message quotes at most (excerpt()).
inline constexpr std::size_t kExcerptBytes = 60;

namespace detail {

// Length of the well-formed UTF-8 sequence at text[i] (1 to 4), or 0 when it is malformed
// (overlong, surrogate, past U+10FFFF, cut short). RFC 3629 section 4's table.
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace detail

/// A short, terminal-safe excerpt of input for an error message: at most `max_bytes` bytes of
/// `text`, control characters escaped (`\n`, `\r`, `\t`, `\e`, `\a`, `\x7f`; C1 controls such
/// as U+009B, which some terminals read as CSI, as `\u009b`), malformed UTF-8 as `\xff`, and
/// "... (N bytes)" when cut. Files are quoted through this so a 10 MB key gives a short message
/// and an ESC in a kernel name cannot restyle the terminal.
namespace detail {

// excerpt() and terminal_safe() in one pass: controls escaped, malformed UTF-8 as \xNN, at most
// max_bytes of input; newlines kept as newlines when keep_newlines.
inline std::string escape_controls(std::string_view text, std::size_t max_bytes,
                                   bool keep_newlines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || (keep_newlines && c == '\n')) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case 0x1b:
          out += "\\e";
          break;
        case 0x07:
          out += "\\a";
          break;
        default:
          out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      }
      ++i;
      continue;
    }
    const std::size_t length = detail::utf8_sequence_length(text, i);
    if (length == 0) {
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      ++i;
    } else if (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      out += std::string("\\u00") + kHex[second >> 4] + kHex[second & 15];
      i += 2;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace detail

inline std::string excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes) {
  return detail::escape_controls(text, max_bytes, false);
}

/// Text from files made safe for a terminal without shortening it: the escapes of excerpt(),
/// newlines kept. The report applies it to every word a view holds, so an ESC in a kernel name
/// prints as `\e` instead of restyling the terminal.
inline std::string terminal_safe(std::string_view text) {
  return detail::escape_controls(text, std::string_view::npos, true);
}

/// Error messages from the engine and the trace analysis name flags and numbers by marks that the
/// CLI words when it prints the error (report::worded_error): flag_mark("tp") becomes "--tp",
/// count_mark(131072) becomes "131,072" (the one number formatter). So the engine and the
/// analysis hold no flag names and format no numbers, yet their errors say what to pass.
inline std::string flag_mark(std::string_view flag) {
  return "{flag:" + std::string(flag) + "}";
}

inline std::string count_mark(long long count) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), count);
  return "{count:" + std::string(digits.data(), ec == std::errc{} ? end : digits.data()) + "}";
}

/// A number that is not a count (a share, a latency): number_mark(0.18) becomes "0.18" in the
/// worded error (the shortest text that reads back as the same double).
inline std::string number_mark(double value) {
  std::array<char, 32> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  return "{number:" + std::string(digits.data(), ec == std::errc{} ? end : digits.data()) + "}";
}

}  // namespace kspeed
