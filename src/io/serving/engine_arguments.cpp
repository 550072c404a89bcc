// vLLM server arguments stated by a run's deployment files (engine_arguments.hpp). The text is
// read as a stream of shell-like words, not parsed as YAML: the arguments are the same words in
// a manifest's args list (`- "--max-num-seqs=128"`, or `- --max-num-seqs` then `- "128"`), a
// JSON-style list (`args: ["--max-num-seqs", "128"]`) and a command line, so one scan reads them
// all and needs no YAML library.
#include "kspeed/io/serving/engine_arguments.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "kspeed/io/files.hpp"

namespace kspeed::io {

// Named, not anonymous: the unity build compiles several .cpp files as one, and these helpers'
// short names must not meet another file's.
namespace vllm_scan {

struct ArgumentWord {
  std::string text;
  std::int64_t line = 0;
};

bool is_word_separator(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '[' || c == ']' || c == ',' || c == '\\';
}

std::string without_quotes(std::string word) {
  word.erase(std::remove_if(word.begin(), word.end(), [](char c) { return c == '"' || c == '\''; }),
             word.end());
  return word;
}

// The words of a file, with their lines; a `#` starting a word starts a comment (YAML, shell).
std::vector<ArgumentWord> argument_words(std::string_view text) {
  std::vector<ArgumentWord> words;
  std::int64_t line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (is_word_separator(text[i])) {
      ++i;
      continue;
    }
    if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != '\n' && !is_word_separator(text[i])) ++i;
    std::string word = without_quotes(std::string(text.substr(start, i - start)));
    if (!word.empty() && word != "-") words.push_back({std::move(word), line});
  }
  return words;
}

// vLLM reads `--max_num_seqs` as `--max-num-seqs`.
std::string dashed(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::optional<std::int64_t> positive_integer(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

std::optional<double> positive_fraction(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value) || value <= 0 || value > 1) {
    return std::nullopt;
  }
  return value;
}

std::optional<bool> boolean_word(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

// Keeps the first statement of a setting; a later one with another value is a conflict.
template <class T>
void state(std::optional<StatedSetting<T>>& setting, const StatedSetting<T>& stated,
           const char* flag, std::vector<StatedConflict>& conflicts) {
  if (!setting) {
    setting = stated;
    return;
  }
  if (setting->value == stated.value) return;
  auto text = [](const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      return std::string(value ? "on" : "off");
    } else {
      std::string s = std::to_string(value);
      if constexpr (std::is_floating_point_v<T>) {
        s.erase(s.find_last_not_of('0') + 1);
        if (!s.empty() && s.back() == '.') s.pop_back();
      }
      return s;
    }
  };
  conflicts.push_back({flag, text(setting->value) + " at " + setting->where + ", " +
                                 text(stated.value) + " at " + stated.where});
}

template <class T>
void merge_setting(std::optional<StatedSetting<T>>& into,
                   const std::optional<StatedSetting<T>>& from, const char* flag,
                   std::vector<StatedConflict>& conflicts) {
  if (from) state(into, *from, flag, conflicts);
}

void merge_arguments(StatedEngineArguments& into, const StatedEngineArguments& from) {
  merge_setting(into.max_num_seqs, from.max_num_seqs, "--max-num-seqs", into.conflicts);
  merge_setting(into.max_num_batched_tokens, from.max_num_batched_tokens,
                "--max-num-batched-tokens", into.conflicts);
  merge_setting(into.chunked_prefill, from.chunked_prefill, "--enable-chunked-prefill",
                into.conflicts);
  merge_setting(into.prefix_caching, from.prefix_caching, "--enable-prefix-caching",
                into.conflicts);
  merge_setting(into.gpu_memory_utilization, from.gpu_memory_utilization,
                "--gpu-memory-utilization", into.conflicts);
  merge_setting(into.tensor_parallel_size, from.tensor_parallel_size, "--tensor-parallel-size",
                into.conflicts);
  merge_setting(into.max_model_len, from.max_model_len, "--max-model-len", into.conflicts);
  merge_setting(into.block_size, from.block_size, "--block-size", into.conflicts);
  into.conflicts.insert(into.conflicts.end(), from.conflicts.begin(), from.conflicts.end());
}

// A value setting: `--name=value`, or `--name` and the next word.
struct ValueFlag {
  const char* name;
  const char* flag;
  bool integer;  // else a fraction in (0, 1]
};

constexpr ValueFlag kValueFlags[] = {
    {"max-num-seqs", "--max-num-seqs", true},
    {"max-num-batched-tokens", "--max-num-batched-tokens", true},
    {"gpu-memory-utilization", "--gpu-memory-utilization", false},
    {"tensor-parallel-size", "--tensor-parallel-size", true},
    {"max-model-len", "--max-model-len", true},
    {"block-size", "--block-size", true},
};

void state_value(StatedEngineArguments& arguments, const ValueFlag& flag, const std::string& text,
                 const std::string& where) {
  const std::string name = flag.flag;
  if (flag.integer) {
    const std::optional<std::int64_t> value = positive_integer(text);
    if (!value) return;
    const StatedSetting<std::int64_t> stated{*value, where};
    if (name == "--max-num-seqs")
      state(arguments.max_num_seqs, stated, flag.flag, arguments.conflicts);
    if (name == "--max-num-batched-tokens") {
      state(arguments.max_num_batched_tokens, stated, flag.flag, arguments.conflicts);
    }
    if (name == "--tensor-parallel-size") {
      state(arguments.tensor_parallel_size, stated, flag.flag, arguments.conflicts);
    }
    if (name == "--max-model-len")
      state(arguments.max_model_len, stated, flag.flag, arguments.conflicts);
    if (name == "--block-size") state(arguments.block_size, stated, flag.flag, arguments.conflicts);
    return;
  }
  if (const std::optional<double> value = positive_fraction(text)) {
    state(arguments.gpu_memory_utilization, StatedSetting<double>{*value, where}, flag.flag,
          arguments.conflicts);
  }
}

// `--[no-]enable-chunked-prefill` and `--[no-]enable-prefix-caching`, with an optional
// true/false word (`--enable-chunked-prefill=False`, older vLLM's `--enable-chunked-prefill
// false`). Returns whether the next word was taken as its value.
bool state_boolean(StatedEngineArguments& arguments, const std::string& name,
                   const std::optional<std::string>& attached, const ArgumentWord* next,
                   const std::string& where) {
  const bool negated = name.rfind("no-", 0) == 0;
  const std::string base = negated ? name.substr(3) : name;
  std::optional<StatedSetting<bool>>* setting = nullptr;
  const char* flag = nullptr;
  if (base == "enable-chunked-prefill") {
    setting = &arguments.chunked_prefill;
    flag = "--enable-chunked-prefill";
  } else if (base == "enable-prefix-caching") {
    setting = &arguments.prefix_caching;
    flag = "--enable-prefix-caching";
  } else {
    return false;
  }
  bool value = !negated;
  bool took_next = false;
  if (attached) {
    const std::optional<bool> word = boolean_word(*attached);
    if (!word) return false;
    value = negated ? !*word : *word;
  } else if (next != nullptr) {
    if (const std::optional<bool> word = boolean_word(next->text)) {
      value = negated ? !*word : *word;
      took_next = true;
    }
  }
  state(*setting, StatedSetting<bool>{value, where}, flag, arguments.conflicts);
  return took_next;
}

}  // namespace vllm_scan

bool StatedEngineArguments::empty() const {
  return !max_num_seqs && !max_num_batched_tokens && !chunked_prefill && !prefix_caching &&
         !gpu_memory_utilization && !tensor_parallel_size && !max_model_len && !block_size &&
         conflicts.empty();
}

const StatedConflict* StatedEngineArguments::conflict_on(std::string_view flag) const {
  const auto found = std::find_if(conflicts.begin(), conflicts.end(),
                                  [&](const StatedConflict& c) { return c.flag == flag; });
  return found == conflicts.end() ? nullptr : &*found;
}

StatedEngineArguments scan_vllm_arguments(std::string_view text, const std::string& file) {
  using namespace vllm_scan;
  StatedEngineArguments arguments;
  const std::vector<ArgumentWord> words = argument_words(text);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i].text;
    if (word.size() < 3 || word.rfind("--", 0) != 0) continue;
    const std::size_t equals = word.find('=');
    const std::string name =
        dashed(word.substr(2, equals == std::string::npos ? std::string::npos : equals - 2));
    std::optional<std::string> attached;
    if (equals != std::string::npos) attached = word.substr(equals + 1);
    const std::string where = file + ":" + std::to_string(words[i].line);
    const ArgumentWord* next = i + 1 < words.size() ? &words[i + 1] : nullptr;
    const auto flag = std::find_if(std::begin(kValueFlags), std::end(kValueFlags),
                                   [&](const ValueFlag& f) { return name == f.name; });
    if (flag != std::end(kValueFlags)) {
      if (attached) {
        state_value(arguments, *flag, *attached, where);
      } else if (next != nullptr && next->text.rfind('-', 0) != 0) {
        state_value(arguments, *flag, next->text, where);
        ++i;
      }
      continue;
    }
    if (state_boolean(arguments, name, attached, next, where)) ++i;
  }
  return arguments;
}

StatedEngineArguments read_engine_arguments(const std::string& folder) {
  using namespace vllm_scan;
  StatedEngineArguments arguments;
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) return arguments;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file(error) &&
        (extension == ".yaml" || extension == ".yml" || extension == ".sh")) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& path : files) {
    // The input limit holds here as for every input, worded for what these files are.
    const std::uint64_t limit = max_input_bytes();
    if (std::filesystem::file_size(path, error) > limit && !error) {
      refuse_too_large("deployment file '" + path.string() + "'", limit,
                       "a manifest or script of a few kB");
    }
    merge_arguments(arguments,
                    scan_vllm_arguments(read_text_file(path.string(), "a deployment file"),
                                        path.filename().string()));
  }
  return arguments;
}

}  // namespace kspeed::io
