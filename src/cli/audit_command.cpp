// `kspeed audit FILE...`: the ten conditions of MODEL.md section 6 in benchmark results and
// kspeed workloads; with --require-comparable, exit 1 when several files are not comparable.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "command.hpp"
#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/report/reports.hpp"
#include "output_options.hpp"
#include "run_names.hpp"

namespace kspeed::cli {

namespace {

// Many files' conditions, kept until the answer above them is printed: each distinct string
// once (10^5 runs of one SGLang file repeat their model, engine and settings), each entry three
// indices and a status, about 14 bytes instead of four strings (~200 bytes with their text).
class CompactConditions {
 public:
  void add(const engine::FileConditions& file) {
    files_.push_back({intern(file.source), intern(file.format),
                      static_cast<std::uint32_t>(entries_.size()),
                      static_cast<std::uint32_t>(file.conditions.size())});
    for (const engine::ConditionEntry& entry : file.conditions) {
      entries_.push_back(
          {intern(entry.key), intern(entry.value), intern(entry.missing), entry.status});
    }
  }
  std::size_t size() const { return files_.size(); }
  // The file's conditions as the view reads them (`compared` is not kept: the tally used it).
  engine::FileConditions at(std::size_t index) const {
    const KeptFile& kept = files_.at(index);
    engine::FileConditions file;
    file.source = strings_[kept.source];
    file.format = strings_[kept.format];
    for (std::uint32_t e = kept.first_entry; e < kept.first_entry + kept.entries; ++e) {
      engine::ConditionEntry entry;
      entry.key = strings_[entries_[e].key];
      entry.status = entries_[e].status;
      entry.value = strings_[entries_[e].value];
      entry.missing = strings_[entries_[e].missing];
      file.conditions.push_back(std::move(entry));
    }
    return file;
  }

 private:
  struct KeptEntry {
    std::uint32_t key;
    std::uint32_t value;
    std::uint32_t missing;
    engine::ConditionStatus status;
  };
  struct KeptFile {
    std::uint32_t source;
    std::uint32_t format;
    std::uint32_t first_entry;
    std::uint32_t entries;
  };
  std::uint32_t intern(const std::string& text) {
    if (const auto found = index_.find(text); found != index_.end()) return found->second;
    const auto id = static_cast<std::uint32_t>(strings_.size());
    strings_.push_back(text);  // a deque: the views in index_ stay valid as it grows
    index_.emplace(strings_.back(), id);
    return id;
  }
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, std::uint32_t> index_;
  std::vector<KeptEntry> entries_;
  std::vector<KeptFile> files_;
};

struct AuditFlags {
  std::vector<std::string> files;
  bool require_comparable = false;
  std::string require_stated;
  std::string run;
  OutputOptions output;
};

class AuditCommand final : public Command {
 public:
  explicit AuditCommand(CLI::App& command) : app_(&command) {
    app_->add_option("files", flags_.files,
                     "Benchmark results (vllm bench serve JSON, AIPerf profile_export_aiperf.json "
                     "or profile_export.jsonl, SGLang bench_serving JSONL: one result per line) "
                     "and kspeed workloads (also kspeed profile --emit-workload's)")
        ->type_name("FILE...");
    app_->add_flag("--require-comparable", flags_.require_comparable,
                   "Exit 1 when the results are not comparable (a stated condition differs): a "
                   "gate for benchmark dashboards");
    app_->add_option("--require-stated", flags_.require_stated,
                     "Exit 1 unless every file states each condition (comma-separated keys, e.g. "
                     "model,concurrency,token_counts): partial or omitted fails")
        ->type_name("COND[,...]");
    add_run_option(*app_, flags_.run);
    add_output_options(*app_, flags_.output);
    app_->footer(
        "\nThe ten conditions (docs/audit.md): model; hardware; engine; precision; token "
        "counts;\nprefix caching; concurrency and arrivals; speculative decoding; goodput and "
        "percentiles;\nmetric definitions. Each is stated (with the value), partial or "
        "omitted. Two results are\nnot comparable when a condition both state differs; one "
        "that a file omits cannot be checked.\n"
        "\nExamples:\n"
        "  kspeed audit result.json                          what the result states and omits\n"
        "  kspeed audit base.json new.json --require-comparable   CI gate: exit 1 when they "
        "differ\n"
        "  kspeed audit sglang-runs.jsonl --format csv       one record per run and condition\n"
        "  kspeed audit sglang-runs.jsonl --run 3            the third run alone\n" +
        exit_codes_help(ExitCodes::not_comparable));
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (flags_.files.empty()) {
      throw InputError(
          "kspeed audit needs at least one file: kspeed audit RESULT [RESULT...] (a vllm bench "
          "serve JSON, an AIPerf export, SGLang bench_serving JSONL or a kspeed workload; see "
          "kspeed audit --help)");
    }
    check_output_options(flags_.output);
    run_ = parse_run_number(flags_.run);
    const std::vector<std::string> required = required_conditions(flags_.require_stated);
    std::vector<std::string> unmet_by_key(required.size());
    const auto note_unstated = [&](const engine::FileConditions& file) {
      for (std::size_t k = 0; k < required.size(); ++k) {
        add_unstated(unmet_by_key[k], required[k], file);
      }
    };
    engine::Audit audit;
    if (parse_output_format(flags_.output) == report::Format::text()) {
      audit = emit_text_as_read(note_unstated);
    } else {
      std::vector<engine::FileConditions> files;
      for (const std::string& path : flags_.files) {
        for_each_run(path, [&](io::BenchResult&& result) {
          note_unstated(result.conditions);
          files.push_back(std::move(result.conditions));
        });
      }
      audit = engine::audit_conditions(std::move(files));
      render_and_emit(audit, report::audit_view, report::audit_document, flags_.output);
    }
    if (flags_.require_comparable && audit.file_count >= 2 && !audit.comparable) {
      std::string differing;
      for (const std::string& key : audit.differing) {
        differing += (differing.empty() ? "" : ", ") + key;
      }
      std::cerr << "kspeed: gate failed: --require-comparable: the results differ in " << differing
                << "\n";
      return kExitGateFailed;
    }
    std::string unmet;
    for (const std::string& text : unmet_by_key) {
      if (!text.empty()) unmet += (unmet.empty() ? "" : "; ") + text;
    }
    if (!unmet.empty()) {
      std::cerr << "kspeed: gate failed: --require-stated: " << unmet << "\n";
      return kExitGateFailed;
    }
    return kExitOk;
  }

 private:
  // Each run `path` stands for, as it is read: every run of the file (streamed: an SGLang JSONL
  // of 10^5 runs is never held whole), or with --run the Nth alone; a FILE:LINE name, that run.
  void for_each_run(const std::string& path, const io::BenchResultSink& take) const {
    if (names_a_run(path)) {
      for (io::BenchResult& result : runs_of(path, run_)) take(std::move(result));
      return;
    }
    if (!run_) {
      io::for_each_bench_result(path, take);
      return;
    }
    std::int64_t seen = 0;
    io::for_each_bench_result(path, [&](io::BenchResult&& result) {
      if (++seen == *run_) take(std::move(result));
    });
    if (seen < *run_) {
      throw InputError("--run " + std::to_string(*run_) + ": " + path + " holds " +
                       std::to_string(seen) + (seen == 1 ? " run" : " runs") +
                       ": give a run from 1 to " + std::to_string(seen));
    }
  }

  // The condition keys of --require-stated ("token-counts" is read as token_counts).
  static std::vector<std::string> required_conditions(const std::string& text) {
    std::vector<std::string> keys;
    if (text.empty()) return keys;
    const std::vector<std::string> known(std::begin(engine::kConditionKeys),
                                         std::end(engine::kConditionKeys));
    std::stringstream list(text);
    std::string key;
    while (std::getline(list, key, ',')) {
      std::replace(key.begin(), key.end(), '-', '_');
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        throw InputError("--require-stated: '" + key + "' is not a condition" +
                         io::suggestion_suffix(key, known));
      }
      keys.push_back(key);
    }
    return keys;
  }

  // Text, written as the files are read: each file's section is rendered from a compact copy
  // of its conditions once the answer above them (which needs every file) is known, so 10^5
  // SGLang runs never hold their text, their parse or their rendered report at once. Returns
  // the summary (no files) for the gates.
  engine::Audit emit_text_as_read(
      const std::function<void(const engine::FileConditions&)>& note_unstated) {
    engine::AuditTally tally;
    CompactConditions kept;
    for (const std::string& path : flags_.files) {
      for_each_run(path, [&](io::BenchResult&& result) {
        tally.add(result.conditions);
        note_unstated(result.conditions);
        kept.add(result.conditions);
      });
    }
    const engine::Audit summary = tally.summary();
    const report::Style style = output_style(flags_.output);
    const auto text = [&style](report::View view) {
      return report::render(report::Report{std::move(view), {}}, report::Format::text(), style);
    };
    const engine::FileConditions only = kept.size() == 1 ? kept.at(0) : engine::FileConditions{};
    const report::View head = report::audit_head_view(summary, kept.size() == 1 ? &only : nullptr);
    stream_and_emit(
        [&](const report::TextSink& sink) {
          sink(text(head));
          // Each part starts with a subheading, which the text renderer sets off by a blank line.
          for (std::size_t i = 0; i < kept.size(); ++i) {
            sink("\n" + text(report::audit_file_view(kept.at(i))));
          }
          sink("\n" + text(report::audit_tail_view(summary)));
        },
        head, flags_.output);
    return summary;
  }

  // Adds to `text` "KEY is omitted by FILE" or "KEY is partial in FILE (lacks ...)" when `file`
  // does not state `key` ("; " between them); the --require-stated message, one key at a time.
  static void add_unstated(std::string& text, const std::string& key,
                           const engine::FileConditions& file) {
    for (const engine::ConditionEntry& entry : file.conditions) {
      if (entry.key != key || entry.status == engine::ConditionStatus::stated) continue;
      text += (text.empty() ? "" : "; ") + key +
              (entry.status == engine::ConditionStatus::omitted
                   ? " is omitted by " + file.source
                   : " is partial in " + file.source + " (lacks " + entry.missing + ")");
    }
  }

  CLI::App* app_;
  AuditFlags flags_;
  std::optional<std::int64_t> run_;  ///< --run, parsed
};

}  // namespace

std::unique_ptr<Command> make_audit_command(CLI::App& command) {
  return std::make_unique<AuditCommand>(command);
}

}  // namespace kspeed::cli
