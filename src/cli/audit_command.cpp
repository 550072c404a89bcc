// `kspeed audit FILE...`: the ten conditions of MODEL.md section 6 in benchmark results and
// kspeed workloads; with --require-comparable, exit 1 when several files are not comparable.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "kspeed/engine/chain/workload.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/bench_result.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/report/reports.hpp"
#include "output_options.hpp"

namespace kspeed::cli {

namespace {

struct AuditFlags {
  std::vector<std::string> files;
  bool require_comparable = false;
  std::string require_stated;
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
        "  kspeed audit sglang-runs.jsonl --format csv       one record per run and condition\n" +
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
    const std::vector<std::string> required = required_conditions(flags_.require_stated);
    std::vector<engine::FileConditions> files;
    for (const std::string& path : flags_.files) {
      for (io::BenchResult& result : io::read_bench_results(path)) {
        files.push_back(std::move(result.conditions));
      }
    }
    const engine::Audit audit = engine::audit_conditions(std::move(files));
    render_and_emit(audit, report::audit_view, report::audit_document, flags_.output);
    if (flags_.require_comparable && audit.files.size() >= 2 && !audit.comparable) {
      std::string differing;
      for (const std::string& key : audit.differing) {
        differing += (differing.empty() ? "" : ", ") + key;
      }
      std::cerr << "kspeed: gate failed: --require-comparable: the results differ in " << differing
                << "\n";
      return kExitGateFailed;
    }
    if (const std::string unmet = unstated(audit, required); !unmet.empty()) {
      std::cerr << "kspeed: gate failed: --require-stated: " << unmet << "\n";
      return kExitGateFailed;
    }
    return kExitOk;
  }

 private:
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

  // "concurrency is omitted by a.jsonl; token_counts is partial in b.json (lacks cached
  // input)", or "" when every file states every required condition.
  static std::string unstated(const engine::Audit& audit, const std::vector<std::string>& keys) {
    std::string text;
    for (const std::string& key : keys) {
      for (const engine::FileConditions& file : audit.files) {
        for (const engine::ConditionEntry& entry : file.conditions) {
          if (entry.key != key || entry.status == engine::ConditionStatus::stated) continue;
          text += (text.empty() ? "" : "; ") + key +
                  (entry.status == engine::ConditionStatus::omitted
                       ? " is omitted by " + file.source
                       : " is partial in " + file.source + " (lacks " + entry.missing + ")");
        }
      }
    }
    return text;
  }

  CLI::App* app_;
  AuditFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_audit_command(CLI::App& command) {
  return std::make_unique<AuditCommand>(command);
}

}  // namespace kspeed::cli
