#include "kspeed/report/wording.hpp"

#include "kspeed/report/human.hpp"

#include <cmath>

namespace kspeed::report {

namespace {

using engine::Warning;
using engine::WarningCode;

// Token counts and flags are whole numbers: 1024, not 1024.0.
ordered_json json_number(double value) {
  constexpr double kExactInteger = 9007199254740992.0;  // 2^53
  if (std::floor(value) == value && std::fabs(value) < kExactInteger) {
    return static_cast<std::int64_t>(value);
  }
  return value;
}

std::string tokens_text(double tokens) {
  return human_count(static_cast<std::int64_t>(tokens)) + " tokens";
}

std::string phase_name(const Warning& warning) {
  return warning.phase ? std::string(to_string(*warning.phase)) : std::string("the");
}

// "a context of 1,024 tokens is below the smallest context in the prefill share table (4,096
// tokens): using that point's share 18.0% (clamped); --extrapolate model continues ..."
std::string outside_table_sentence(const Warning& w) {
  const bool below = w.number("below_table") != 0;
  const std::string where = "a context of " + tokens_text(w.number("context_tokens")) + " is " +
                            (below ? "below the smallest" : "above the largest") +
                            " context in the " + phase_name(w) + " share table (" +
                            tokens_text(w.number("edge_context_tokens")) + ")";
  if (w.code == WarningCode::share_clamped) {
    return where + ": using that point's share " + human_percent(w.number("share")) +
           " (clamped); --extrapolate model continues the edge segment instead";
  }
  return where + ": continuing the edge segment gives " + human_percent(w.number("share")) +
         " (extrapolated; a model, not a measurement)";
}

std::string contradiction_sentence(const Warning& w) {
  const bool compute = w.code == WarningCode::compute_speedup_no_gain;
  return std::string(compute ? "--compute-speedup " : "--bytes-reduction ") +
         human_plain(w.number("factor")) + " on " + phase_name(w) + " attention: it is " +
         (compute ? "memory-bound" : "compute-bound") + " (intensity " +
         human_figure(w.number("intensity_flop_per_byte")) + " vs ridge " +
         human_figure(w.number("ridge_flop_per_byte")) + " FLOP/byte), so " +
         (compute ? "faster arithmetic" : "moving fewer bytes") + " gains only " +
         human_figure(w.number("speedup")) + "×; " +
         (compute ? "fewer bytes (--bytes-reduction) or more of the bandwidth "
                    "(--bandwidth-efficiency) are what help"
                  : "faster arithmetic (--compute-speedup) is what helps");
}

std::string memory_sentence(const Warning& w) {
  const std::string need =
      "weights and KV cache need " + human_figure(w.number("needed_gb")) + " GB per GPU";
  const std::string have =
      "more than the " + human_plain(w.number("memory_gb")) + " GB of " + w.text("gpu");
  if (w.number("at_response_end") != 0) {
    return need + " at the end of the response, " + have +
           ": this deployment does not fit (raise --tp or lower --batch); the modelled figures "
           "still follow the roofline";
  }
  return need + ", " + have +
         ": the deployment does not fit; raise --tp or lower --batch (the figures still follow "
         "the roofline)";
}

}  // namespace

std::string warning_code(const Warning& warning) {
  std::string code(to_string(warning.code));
  switch (warning.code) {
    case WarningCode::share_clamped:
    case WarningCode::share_extrapolated:
      return phase_name(warning) + "_" + code;
    case WarningCode::compute_speedup_no_gain:
    case WarningCode::bytes_reduction_no_gain:
      return phase_name(warning) + "_attention_" + code;
    default:
      return code;
  }
}

std::string warning_sentence(const Warning& w) {
  switch (w.code) {
    case WarningCode::share_clamped:
    case WarningCode::share_extrapolated:
      return outside_table_sentence(w);
    case WarningCode::ttft_scaled:
      return "TTFT " + human_ms(w.number("reference_ttft_ms")) + " was measured at " +
             tokens_text(w.number("reference_prompt_tokens")) + "; scaled to " +
             tokens_text(w.number("prompt_tokens")) +
             " with the cost model (pass --ttft to use a measurement)";
    case WarningCode::share_model_mismatch:
      return "workload '" + w.text("workload") + "' measured its attention shares on " +
             w.text("workload_model") + ", but --model is " + w.text("model") +
             ": the share table may not carry over; pass --share/--decode-share measured on "
             "this model";
    case WarningCode::memory_exceeded:
      return memory_sentence(w);
    case WarningCode::compute_speedup_no_gain:
    case WarningCode::bytes_reduction_no_gain:
      return contradiction_sentence(w);
    case WarningCode::summary_without_timeline:
      return "a kernel summary has no timeline: one whole-capture share, no phases";
    case WarningCode::no_step_annotations:
      return "no engine step annotations found: one unphased share over the whole trace "
             "(profile with vLLM, SGLang or TensorRT-LLM's profiler to get prefill and decode "
             "apart)";
    case WarningCode::steps_without_phase:
      return "steps found, but none states its phase (ProfilerStep#N or idle steps): unphased "
             "share";
    case WarningCode::kernels_outside_steps:
      return human_count(static_cast<std::int64_t>(w.number("kernel_executions"))) +
             " kernel executions ran outside every step: counted in the whole trace, not in any "
             "phase";
    case WarningCode::share_point_left_out:
      return phase_name(w) + " context " +
             human_count(static_cast<std::int64_t>(w.number("context_tokens"))) + ": share " +
             human_percent(w.number("share")) +
             " left out (a share table needs shares strictly between 0 and 1)";
  }
  return std::string(to_string(w.code));
}

ordered_json warnings_json(const std::vector<Warning>& warnings) {
  ordered_json out = ordered_json::array();
  for (const Warning& warning : warnings) {
    ordered_json entry;
    entry["code"] = warning_code(warning);
    entry["input"] = warning.input;
    ordered_json numbers = ordered_json::object();
    for (const auto& [name, value] : warning.numbers) numbers[name] = json_number(value);
    for (const auto& [name, value] : warning.names) numbers[name] = value;
    entry["values"] = numbers;
    entry["message"] = warning_sentence(warning);
    out.push_back(entry);
  }
  return out;
}

const char* bound_name(engine::Bound bound) {
  return bound == engine::Bound::memory ? "memory" : "compute";
}

const char* lever_kind_name(engine::LeverKind kind) {
  switch (kind) {
    case engine::LeverKind::compute:
      return "compute";
    case engine::LeverKind::bytes:
      return "bytes";
    case engine::LeverKind::bandwidth:
      return "bandwidth";
    case engine::LeverKind::combined:
      return "combined";
  }
  return "unknown";
}

std::string bandwidth_efficiency_text(const engine::Levers& levers) {
  return "bandwidth efficiency " + human_plain(levers.bandwidth_efficiency_before) + " → " +
         human_plain(levers.bandwidth_efficiency_after);
}

ordered_json levers_json(const engine::Levers& levers) {
  ordered_json out;
  out["compute_speedup"] = levers.compute_speedup;
  out["bytes_reduction"] = levers.bytes_reduction;
  out["bandwidth_efficiency_before"] = levers.bandwidth_efficiency_before;
  out["bandwidth_efficiency_after"] = levers.bandwidth_efficiency_after;
  out["compute_efficiency"] = levers.compute_efficiency;
  return out;
}

std::string worded_error(const std::string& message) {
  std::string out;
  std::size_t at = 0;
  while (at < message.size()) {
    const std::size_t open = message.find('{', at);
    const std::size_t close = open == std::string::npos ? open : message.find('}', open);
    if (close == std::string::npos) break;
    const std::string mark = message.substr(open + 1, close - open - 1);
    out += message.substr(at, open - at);
    if (mark.rfind("flag:", 0) == 0) {
      out += "--" + mark.substr(5);
    } else if (mark.rfind("count:", 0) == 0) {
      out += human_count(std::stoll(mark.substr(6)));
    } else if (mark.rfind("number:", 0) == 0) {
      out += mark.substr(7);  // already the shortest round-trip text (number_mark)
    } else {
      out += message.substr(open, close - open + 1);  // not a mark: braces from a file name
    }
    at = close + 1;
  }
  return out + message.substr(std::min(at, message.size()));
}

// "prefill measured at 512 tokens per request; decode at a KV length of 1025 per request".
std::string token_counts_condition(const engine::Workload& workload) {
  auto contexts = [](const std::vector<engine::SharePoint>& points) {
    std::string out;
    for (const auto& point : points) {
      out +=
          (out.empty() ? "" : ", ") + std::to_string(static_cast<long long>(point.context_tokens));
    }
    return out;
  };
  std::string text;
  if (!workload.prefill_shares.empty()) {
    text =
        "prefill measured at " + contexts(workload.prefill_shares) + " prompt tokens per request";
  }
  if (!workload.decode_shares.empty()) {
    text += (text.empty() ? "" : "; ") + std::string("decode measured at a KV length of ") +
            contexts(workload.decode_shares) + " tokens per request";
  }
  return text;
}

}  // namespace kspeed::report
