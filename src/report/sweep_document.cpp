// `kspeed sweep` for programs (docs/json-format.md, docs/schema/sweep*.json): one flat record per
// point with fixed columns — the same keys, in the same order, for every row and every run
// (null where a value does not apply), so a CSV has one header and a dashboard fixed fields.
// The record is described once (sweep_record) and either built as ordered_json (a Document) or
// streamed as text (write_sweep), which keeps a 100,000-point sweep's json under a second.
#include "kspeed/report/record_writer.hpp"
#include "kspeed/report/reports.hpp"
#include "kspeed/report/wording.hpp"

namespace kspeed::report {

namespace {

using engine::SweepRow;

template <class T>
void put(RecordFields& out, std::string_view name, T value) {
  if constexpr (std::is_integral_v<T>) {
    out.integer(name, value);
  } else {
    out.number(name, value);
  }
}

template <class T>
void put_optional(RecordFields& out, std::string_view name, const std::optional<T>& value) {
  if (value) {
    put(out, name, *value);
  } else {
    out.null(name);
  }
}

// `name` and `name_provenance` (docs/json-format.md: a field and its provenance).
template <class T>
void put_with_provenance(RecordFields& out, const std::string& name,
                         const engine::WithProvenance<T>& value) {
  put(out, name, value.value);
  out.text(name + "_provenance", engine::to_string(value.provenance));
}

// An optional value: null and "none" when absent.
template <class T>
void put_with_provenance(RecordFields& out, const std::string& name,
                         const std::optional<engine::WithProvenance<T>>& value) {
  if (value) {
    put_with_provenance(out, name, *value);
  } else {
    out.null(name);
    out.text(name + "_provenance", "none");
  }
}

// "Less time", which is not "faster": 1.72× faster is 41.9% less time, 1 − 1/1.72.
double latency_reduction_pct(double speedup) {
  return (1 - 1 / speedup) * 100;
}

// TPOT after the change: modelled when decode is targeted, else unchanged (TPOT itself).
double tpot_after(const SweepRow& row) {
  return row.tpot_after_ms ? row.tpot_after_ms->value : row.tpot_ms.value;
}

// The point's warning codes, ';'-separated.
std::string warning_codes(const SweepRow& row) {
  std::string codes;
  for (const engine::Warning& warning : row.warnings) {
    codes += (codes.empty() ? "" : ";") + warning_code(warning);
  }
  return codes;
}

void sweep_record(RecordFields& out, const engine::Sweep& sweep, const SweepRow& row) {
  const engine::EstimateResult& r = row.result;
  out.integer("schema_version", kSchemaVersion);
  out.text("workload_name", sweep.workload.name);
  out.text("phase", to_string(sweep.phase));
  put_with_provenance(out, "prompt_tokens", row.prompt_tokens);
  put_with_provenance(out, "response_tokens", row.response_tokens);
  put_optional(out, "platform_batch", row.batch);
  put_with_provenance(out, "kernel_speedup", row.kernel_speedup);
  put_optional(out, "levers_compute_speedup", row.compute_speedup);
  put_optional(out, "levers_bytes_reduction", row.bytes_reduction);
  put_with_provenance(out, "prefill_attention_share", row.prefill_share);
  put_with_provenance(out, "decode_attention_share", row.decode_share);
  put_with_provenance(out, "ttft_ms", row.ttft_ms);
  put_with_provenance(out, "tpot_ms", row.tpot_ms);
  out.number("prefill_attention_speedup", r.prefill.attention.speedup);
  out.number("prefill_speedup", r.prefill.phase.speedup);
  put_optional(out, "prefill_ceiling", r.prefill.phase.ceiling);
  // TTFT = prefill's GPU time + T0 (fitted or given): its own level when T0 > 0, else null
  const std::optional<double> ttft_fixed_ms =
      r.ttft ? std::optional<double>(r.ttft->time_before_ms - r.prefill.phase.time_before_ms)
             : std::nullopt;
  put_optional(out, "ttft_fixed_ms", ttft_fixed_ms);
  put_optional(out, "ttft_speedup",
               r.ttft ? std::optional<double>(r.ttft->speedup) : std::optional<double>());
  out.number("request_ttft_after_ms",
             r.ttft ? r.ttft->time_after_ms : r.prefill.phase.time_after_ms);
  out.number("decode_speedup", r.decode.phase.speedup);
  put_optional(out, "decode_ceiling", r.decode.phase.ceiling);
  out.number("request_tpot_after_ms", tpot_after(row));
  out.number("request_speedup", r.request.speedup);
  put_optional(out, "request_ceiling", r.request.ceiling);
  out.number("request_e2e_before_ms", r.request.time_before_ms);
  out.number("request_e2e_after_ms", r.request.time_after_ms);
  out.number("request_latency_reduction_pct", latency_reduction_pct(r.request.speedup));
  out.number("request_improvement_pct", r.improvement_pct);
  out.text("warnings", warning_codes(row));
}

// A swept axis by the name of its column in the rows (the engine names the deployment's batch
// and the levers without the `platform_` / `levers_` prefix estimate's columns carry).
std::string swept_column(const std::string& axis) {
  if (axis == "batch") return "platform_batch";
  if (axis == "compute_speedup" || axis == "bytes_reduction") return "levers_" + axis;
  return axis;
}

// Everything of the json tree but its rows.
ordered_json sweep_head(const engine::Sweep& sweep) {
  ordered_json tree;
  tree["schema_version"] = kSchemaVersion;
  tree["kspeed_version"] = KSPEED_VERSION;
  tree["command"] = "sweep";
  tree["workload"] = {{"name", sweep.workload.name}, {"citation", sweep.workload.source}};
  tree["phase"] = to_string(sweep.phase);
  tree["swept"] = ordered_json::array();
  for (const std::string& axis : sweep.swept) {
    tree["swept"].push_back(swept_column(axis));
  }
  return tree;
}

}  // namespace

Document sweep_document(const engine::Sweep& sweep, SweepParts parts) {
  Document document;
  std::vector<ordered_json> records;
  records.reserve(sweep.rows.size());
  for (const SweepRow& row : sweep.rows) {
    JsonRecord record;
    sweep_record(record, sweep, row);
    records.push_back(std::move(record.json()));
  }
  if (parts == SweepParts::records) {
    document.records = std::move(records);
    return document;
  }
  document.tree = sweep_head(sweep);
  if (parts == SweepParts::tree) {
    // A 100,000-point sweep's rows are moved, not copied, when only the tree is wanted.
    document.tree["rows"] = ordered_json(std::move(records));
    return document;
  }
  document.tree["rows"] = records;
  document.records = std::move(records);
  return document;
}

Document sweep_document(const engine::Sweep& sweep) {
  return sweep_document(sweep, SweepParts::both);
}

void write_sweep(const engine::Sweep& sweep, RecordFormat format, const TextSink& sink) {
  if (sweep.rows.empty() && format == RecordFormat::json_rows) {
    sink(sweep_document(sweep).tree.dump(2) + "\n");  // `"rows": []`, as the json writer prints it
    return;
  }
  RecordWriter writer(format, sink);
  std::string tail;
  if (format == RecordFormat::json_rows) {
    // The head as ordered_json::dump(2) prints it, with `"rows": [` in place of its closing
    // brace: "{\n  ...\n}" becomes "{\n  ...,\n  \"rows\": [\n" (the rows are never empty).
    std::string head =
        sweep_head(sweep).dump(2, ' ', false, ordered_json::error_handler_t::replace);
    head.resize(head.size() - 2);  // "\n}"
    writer.raw(head + ",\n  \"rows\": [\n");
    tail = "\n  ]\n}\n";
  }
  for (const SweepRow& row : sweep.rows) {
    writer.begin();
    sweep_record(writer, sweep, row);
    writer.end();
  }
  writer.raw(tail);
  writer.finish();
}

}  // namespace kspeed::report
