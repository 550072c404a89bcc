// `kspeed gpus` and `kspeed models` list the built-in presets with the figures that matter for
// the roofline; `kspeed gpus show NAME` / `kspeed models show NAME` print one as JSON, a template
// for your own file.
#include <fmt/format.h>

#include <functional>
#include <iostream>

#include "command.hpp"
#include "kspeed/engine/deployment/kv_layout.hpp"
#include "kspeed/engine/roofline/roofline.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/model_reader.hpp"
#include "kspeed/report/table.hpp"

namespace kspeed::cli {

namespace {

// What differs between the two preset commands.
struct PresetKind {
  const char* command;  ///< "gpus"
  const char* noun;     ///< "GPU"
  std::function<std::vector<std::string>()> names;
  std::function<std::string_view(std::string_view)> text;
  std::function<report::Table()> table;
  const char* example;  ///< a name for the help examples
};

std::string number(double value) {
  return fmt::format("{}", value);
}

report::Table gpu_table() {
  report::Table table;
  table.header = {"name",   "BF16 TFLOP/s", "FP8 TFLOP/s", "HBM TB/s",
                  "HBM GB", "ridge BF16",   "ridge FP8",   "description"};
  table.align = {report::Align::left,  report::Align::right, report::Align::right,
                 report::Align::right, report::Align::right, report::Align::right,
                 report::Align::right, report::Align::left};
  for (const std::string& name : io::builtin_gpu_names()) {
    const engine::Gpu gpu = io::load_gpu(name);
    const double bf16 = engine::peak_tflops(gpu, "bf16").value_or(0);
    const std::optional<double> fp8 = engine::peak_tflops(gpu, "fp8");
    auto ridge = [&gpu](double peak) {
      return fmt::format("{:.1f}", engine::ridge_flop_per_byte({peak, gpu.hbm_bandwidth_tbs}));
    };
    table.rows.push_back({name, number(bf16), fp8 ? number(*fp8) : "—",
                          number(gpu.hbm_bandwidth_tbs), number(gpu.memory_gb), ridge(bf16),
                          fp8 ? ridge(*fp8) : "—", gpu.description});
  }
  return table;
}

std::string attention_text(const engine::ModelArch& m) {
  std::string text =
      m.attention == engine::AttentionType::mla
          ? fmt::format("MLA {} heads, latent {} + RoPE {}", m.query_heads, m.mla.kv_lora_rank,
                        m.mla.qk_rope_head_dim)
          : fmt::format("GQA {}/{} heads × {}", m.query_heads, m.kv_heads, m.head_dim);
  if (m.sliding_window_layers > 0) {
    text +=
        fmt::format(", window {} on {} layers", m.sliding_window_tokens, m.sliding_window_layers);
  }
  if (m.chunked_attention_layers > 0) {
    text += fmt::format(", chunks of {} on {} layers", m.attention_chunk_tokens,
                        m.chunked_attention_layers);
  }
  if (m.linear.layers > 0) {
    text += fmt::format(" on {} layers; linear attention on {}",
                        engine::softmax_attention_layers(m), m.linear.layers);
  }
  return text;
}

report::Table model_table() {
  report::Table table;
  table.header = {"name", "layers", "attention", "params (active)", "weights", "KV"};
  table.align = {report::Align::left,  report::Align::right, report::Align::left,
                 report::Align::right, report::Align::left,  report::Align::left};
  for (const std::string& name : io::builtin_model_names()) {
    const engine::ModelArch m = io::load_model(name);
    const std::string params =
        m.active_params_billions == m.total_params_billions
            ? fmt::format("{}B", m.total_params_billions)
            : fmt::format("{}B ({}B)", m.total_params_billions, m.active_params_billions);
    table.rows.push_back(
        {name, std::to_string(m.layers), attention_text(m), params, m.weight_dtype, m.kv_dtype});
  }
  return table;
}

class PresetsCommand final : public Command {
 public:
  PresetsCommand(CLI::App& command, PresetKind kind) : kind_(std::move(kind)), app_(&command) {
    show_ = app_->add_subcommand("show", std::string("Print a built-in ") + kind_.noun +
                                             " as JSON: a template for your own file");
    show_->add_option("name", name_, std::string("The ") + kind_.noun + "'s name")
        ->required()
        ->type_name("NAME");
    app_->footer(fmt::format("\nExamples:\n  kspeed {0}\n  kspeed {0} show {1} > my.json   then "
                             "edit, and pass the file by its path\n",
                             kind_.command, kind_.example) +
                 exit_codes_help());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    if (show_->parsed()) {
      std::cout << kind_.text(name_) << std::flush;
      return 0;
    }
    std::cout << report::render_text_table(kind_.table()) << std::flush;
    return 0;
  }

 private:
  PresetKind kind_;
  CLI::App* app_;
  CLI::App* show_;
  std::string name_;
};

// `kspeed kv-layouts`: the KV cache layouts --kv-layout takes, with their storage per value.
class KvLayoutsCommand final : public Command {
 public:
  explicit KvLayoutsCommand(CLI::App& command) : app_(&command) {
    app_->footer(
        "\nExamples:\n  kspeed kv-layouts\n  kspeed estimate --model deepseek-r1 "
        "--gpu h200-sxm --kv-layout fp8-ds-mla\n" +
        exit_codes_help());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    report::Table table;
    table.header = {"name", "bits/value", "description", "source"};
    table.align = {report::Align::left, report::Align::right, report::Align::left,
                   report::Align::left};
    for (const engine::KvLayout& layout : engine::kv_layouts()) {
      const std::string bits = layout.packed_mla_bytes_per_token > 0
                                   ? fmt::format("{} B/token", layout.packed_mla_bytes_per_token)
                                   : fmt::format("{}", layout.bits_per_value);
      table.rows.push_back({std::string(layout.name), bits, std::string(layout.description),
                            std::string(layout.source)});
    }
    std::cout << report::render_text_table(table) << std::flush;
    return 0;
  }

 private:
  CLI::App* app_;
};

}  // namespace

std::unique_ptr<Command> make_kv_layouts_command(CLI::App& command) {
  return std::make_unique<KvLayoutsCommand>(command);
}

std::unique_ptr<Command> make_gpus_command(CLI::App& command) {
  return std::make_unique<PresetsCommand>(
      command, PresetKind{"gpus", "GPU", io::builtin_gpu_names, io::builtin_gpu_text, gpu_table,
                          "h100-sxm"});
}

std::unique_ptr<Command> make_models_command(CLI::App& command) {
  return std::make_unique<PresetsCommand>(
      command, PresetKind{"models", "model", io::builtin_model_names, io::builtin_model_text,
                          model_table, "llama-3.1-70b"});
}

}  // namespace kspeed::cli
