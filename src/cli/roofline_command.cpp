// `kspeed roofline`: flags to a RooflineQuery, then the engine, then a reporter.
#include "choice.hpp"
#include "command.hpp"
#include "estimate_flags.hpp"
#include "kspeed/engine/chain/answer_inputs.hpp"
#include "kspeed/engine/chain/conditions.hpp"
#include "kspeed/engine/roofline/roofline_analysis.hpp"
#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/gpu_reader.hpp"
#include "kspeed/io/ncu_reader.hpp"
#include "kspeed/io/suggest.hpp"
#include "kspeed/io/units.hpp"
#include "kspeed/io/workload_reader.hpp"
#include "kspeed/report/reports.hpp"
#include "ncu_flags.hpp"
#include "output_options.hpp"
#include "platform_flags.hpp"

namespace kspeed::cli {

namespace {

struct RooflineFlags {
  PlatformFlags platform;
  LeverFlags levers;
  NcuFlags ncu;
  std::string peak_tflops, bandwidth_tbs, ai, ctx;
  std::string deployment_file;  ///< --deployment: the platform of a kspeed calibrate file
  std::string workload = "deepseek-r1-fp8";  // the built-in workload, as estimate's default
  bool workload_given = false;  ///< --workload on the command line (else the built-in example)
  std::string phase = "decode";
  OutputOptions output;
  std::string plot_path;
  std::string plot_title;
  EstimateFlags provenance;  ///< --strict and --fail-on, with estimate's meaning
};

// The one check that roofline's kernel is in one phase ("both" is not a choice here).
engine::Phase parse_kernel_phase(const std::string& text) {
  return parse_choice<engine::Phase>(
      text, "--phase", "phase",
      {{"prefill", engine::Phase::prefill}, {"decode", engine::Phase::decode}},
      " (kspeed roofline looks at one kernel in one phase)");
}

// The roof: a GPU's figures, each overridable; or a custom roof from both figures. Returns the
// GPU the kernel runs on (a custom one holds only the two roofs and no memory figure).
engine::Gpu resolve_roof(const RooflineFlags& flags, engine::RooflineQuery& query) {
  engine::Gpu gpu;
  const bool custom =
      flags.platform.gpu.empty() && !flags.peak_tflops.empty() && !flags.bandwidth_tbs.empty();
  query.precision = flags.platform.precision.empty() ? std::string(engine::kDefaultPrecision)
                                                     : flags.platform.precision;
  if (!custom) {
    const std::string name =
        flags.platform.gpu.empty() ? engine::kDefaultRooflineGpu : flags.platform.gpu;
    gpu = io::load_gpu(name);
    const std::optional<double> peak = engine::peak_tflops(gpu, query.precision);
    if (!peak && flags.peak_tflops.empty()) {
      throw InputError("--precision " + query.precision + ": " + gpu.name + " has no dense " +
                       query.precision + " peak: pass --precision bf16, or --peak-tflops X");
    }
    query.gpu_name = gpu.name;
    query.peak_tflops = {peak.value_or(0), engine::Provenance::preset};
    query.bandwidth_tbs = {gpu.hbm_bandwidth_tbs, engine::Provenance::preset};
    query.memory_gb = gpu.memory_gb;
  } else {
    query.gpu_name = "custom";
    gpu.name = "custom";
  }
  if (!flags.peak_tflops.empty()) {
    query.peak_tflops = {io::parse_positive_number(flags.peak_tflops, "--peak-tflops"),
                         engine::Provenance::given};
  }
  if (!flags.bandwidth_tbs.empty()) {
    query.bandwidth_tbs = {io::parse_positive_number(flags.bandwidth_tbs, "--bandwidth-tbs"),
                           engine::Provenance::given};
  }
  // The platform's roof is the query's, overrides included.
  gpu.peak_dense_tflops = {{query.precision, query.peak_tflops.value}};
  gpu.hbm_bandwidth_tbs = query.bandwidth_tbs.value;
  return gpu;
}

// The kernel: a model's attention (with its deployment), or a bare intensity.
void resolve_kernel(const RooflineFlags& flags, const engine::Gpu& gpu,
                    engine::RooflineQuery& query) {
  query.phase = parse_kernel_phase(flags.phase);
  const bool has_model = !flags.platform.model.empty();
  const bool has_ai = !flags.ai.empty();
  if (has_model == has_ai) {
    throw InputError(has_model ? "--model and --ai both describe the kernel: give one of them"
                               : "kspeed roofline needs a kernel: --model NAME (kspeed models "
                                 "lists them) or --ai X (arithmetic intensity, FLOP/byte)");
  }
  if (has_ai) {
    for (const auto& [text, flag] : {std::pair{flags.ctx, "--ctx"},
                                     {flags.platform.batch, "--batch"},
                                     {flags.platform.tp, "--tp"},
                                     {flags.platform.kv_dtype, "--kv-dtype"}}) {
      if (!text.empty()) {
        throw InputError(std::string(flag) +
                         " sizes a model's attention: it needs --model, not --ai");
      }
    }
    query.given_intensity = io::parse_positive_number(flags.ai, "--ai");
    return;
  }
  // GCC 12 under -fsanitize misreads a temporary nullopt passed as resolve_input's workload
  // value (-Wmaybe-uninitialized): roofline has no workload, so the two-way rule is used.
  std::optional<std::int64_t> ctx;
  if (!flags.ctx.empty()) ctx = io::parse_token_count(flags.ctx, "--ctx");
  query.context_tokens = engine::given_or_default(ctx, engine::kDefaultRooflineContext);
  // The workload's KV cache type is the --kv-dtype default when --model is the model its shares
  // were measured on, as in estimate, so the two commands price the same bytes.
  const engine::Workload workload = io::load_workload(flags.workload);
  engine::Platform platform =
      resolve_platform_on(flags.platform, gpu,
                          {std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                           workload.kv_dtype, engine::workload_model_label(workload)});
  platform.gpu.provenance =
      flags.platform.gpu.empty() ? engine::Provenance::default_value : engine::Provenance::given;
  // The built-in example's KV cache type, --workload not given: an example's, not the user's.
  if (!flags.workload_given && platform.kv_dtype.provenance == engine::Provenance::workload) {
    platform.kv_dtype.provenance = engine::Provenance::illustrative;
  }
  query.platform = platform;
}

class RooflineCommand final : public Command {
 public:
  explicit RooflineCommand(CLI::App& command) : app_(&command) {
    add_kernel_flags();
    add_platform_flags(*app_, flags_.platform);
    add_roof_flags();
    add_lever_flags(*app_, flags_.levers);
    add_ncu_flags(*app_, flags_.ncu);
    add_provenance_flags(*app_, flags_.provenance);
    add_output_options(*app_, flags_.output);
    add_plot_option(*app_, flags_.plot_path,
                    "Also draw the roofline into FILE: the roof, the ridge, the kernel and where "
                    "each lever moves it");
    add_title_option(*app_, flags_.plot_title);
    app_->footer(footer());
  }

  CLI::App& app() override { return *app_; }

  int execute() override {
    check_output_options(flags_.output);  // a bad --format, --color or -o fails before any work
    if (!flags_.plot_path.empty() && flags_.plot_path != "-") {
      io::check_output_path(flags_.plot_path, "--plot");
    }
    check_title_option(flags_.plot_title, flags_.plot_path);
    if (!flags_.provenance.fail_on.empty()) {  // a bad list fails before any work
      (void)engine::parse_input_filter(flags_.provenance.fail_on, "--fail-on");
    }
    take_deployment_file();
    if (!flags_.ncu.file.empty()) return execute_ncu();
    check_ncu_flags_need_file(flags_.ncu);
    flags_.workload_given = workload_option_ != nullptr && workload_option_->count() > 0;

    engine::RooflineQuery query;
    const engine::Gpu gpu = resolve_roof(flags_, query);
    resolve_kernel(flags_, gpu, query);
    if (const auto levers = parse_levers(flags_.levers)) {
      query.levers = *levers;
      query.levers_given = levers->changes_anything();
    }
    query.deployment_file = flags_.deployment_file;
    const engine::RooflineResult result = engine::analyse_roofline(query);
    check_input_provenance(flags_.provenance, result);
    const std::string svg =
        flags_.plot_path.empty() ? std::string() : report::roofline_svg(result, flags_.plot_title);
    stage_plot(flags_.plot_path, svg);
    render_and_emit(report::make_report(result, report::roofline_view, report::roofline_document),
                    flags_.output);
    write_plot(flags_.plot_path, svg);
    return kExitOk;
  }

 private:
  // --deployment FILE: the platform kspeed calibrate wrote, for the flags left out. Only the
  // platform applies here: the file's fitted step model prices whole steps, and the roofline
  // looks at one kernel (its figures are the GPU's and the model's, not a fit's).
  void take_deployment_file() {
    if (flags_.deployment_file.empty()) return;
    if (!flags_.ai.empty()) {
      throw InputError("--deployment " + flags_.deployment_file +
                       " names a model for the kernel, and --ai gives the kernel's intensity "
                       "instead: pass one");
    }
    (void)take_deployment_platform(flags_.platform, flags_.deployment_file);
  }

  // The measured kernels of an ncu export on the roof; with --model, beside the modelled kernel.
  int execute_ncu() {
    const bool custom_roof = !flags_.peak_tflops.empty() && !flags_.bandwidth_tbs.empty();
    if (!flags_.ai.empty()) {
      throw InputError(
          "--ai and --ncu both describe the kernel: the export measures it; drop --ai");
    }
    engine::MeasuredRooflineQuery query = ncu_query(flags_.ncu, flags_.levers);
    RooflineFlags flags = flags_;
    if (!custom_roof) {
      flags.platform.gpu =
          profiled_gpu(flags_.platform.gpu, query, ", or --peak-tflops X --bandwidth-tbs Y");
    } else {
      export_gpu_preset(query);
    }
    engine::RooflineQuery roof;
    const engine::Gpu gpu = resolve_roof(flags, roof);
    query.gpu_name = roof.gpu_name;
    query.gpu_compute_capability = io::compute_capability_of_preset(roof.gpu_name).value_or("");
    query.precision = roof.precision;
    query.peak_tflops = roof.peak_tflops;
    query.bandwidth_tbs = roof.bandwidth_tbs;
    if (!flags.platform.model.empty()) {
      resolve_kernel(flags, gpu, roof);
      const engine::RooflineResult modelled = engine::analyse_roofline(roof);
      query.modelled = modelled.step_cost;
      query.model_name = roof.platform->model.value.name;
    }
    check_measured_provenance(roof, query.levers_given);
    const engine::MeasuredRooflineResult result = engine::analyse_measured_roofline(query);
    const std::string svg = flags_.plot_path.empty()
                                ? std::string()
                                : report::measured_roofline_svg(result, flags_.plot_title);
    stage_plot(flags_.plot_path, svg);  // written with the report, atomically, or not at all
    render_and_emit(report::make_report(result, report::ncu_view, report::ncu_document),
                    flags_.output);
    write_plot(flags_.plot_path, svg);
    return kExitOk;
  }

  // --strict and --fail-on over what the measured answer stands on: the roof, the model beside
  // it (when given), the export's measured intensity and the levers (illustrative when none).
  void check_measured_provenance(const engine::RooflineQuery& roof, bool levers_given) const {
    engine::RooflineResult stands_on;
    stands_on.query = roof;
    stands_on.intensity_source = engine::Provenance::measured;
    stands_on.levers_illustrative = !levers_given;
    check_input_provenance(flags_.provenance, stands_on);
  }

  void add_kernel_flags() {
    app_->add_option("--phase", flags_.phase, "The kernel's phase: decode or prefill")
        ->type_name("PHASE")
        ->capture_default_str();
    app_->add_option("--ctx", flags_.ctx,
                     "Decode: tokens in each sequence's KV cache; prefill: the prompt length "
                     "(4096, 4k, 128k). Default: 4096")
        ->type_name("TOKENS");
    app_->add_option("--ai", flags_.ai,
                     "Arithmetic intensity in FLOP/byte, instead of a model (only ratios are "
                     "reported then)")
        ->type_name("X");
    app_->add_option("--deployment", flags_.deployment_file,
                     "A deployment file kspeed calibrate wrote: its model, GPU, tp, precision "
                     "and KV type (flags left out are taken from it; its fitted step model "
                     "prices whole steps, not this kernel)")
        ->type_name("FILE");
    workload_option_ =
        app_->add_option("--workload,-w", flags_.workload,
                         "The workload whose KV cache type is the --kv-dtype default when --model "
                         "is the model it was measured on (a JSON file, or a built-in name)")
            ->type_name("FILE|NAME")
            ->capture_default_str();
  }

  void add_roof_flags() {
    app_->add_option("--peak-tflops", flags_.peak_tflops,
                     "Dense peak TFLOP/s, overriding the GPU's (with --bandwidth-tbs and no "
                     "--gpu: a custom GPU). Default GPU: h100-sxm")
        ->type_name("X");
    app_->add_option("--bandwidth-tbs", flags_.bandwidth_tbs,
                     "HBM bandwidth in TB/s, overriding the GPU's")
        ->type_name("X");
  }

  static std::string footer() {
    return "\nExamples:\n"
           "  kspeed roofline --model llama-3.1-70b --gpu h100-sxm --ctx 8k\n"
           "  kspeed roofline --model llama-3.1-70b --gpu h100-sxm --bytes-reduction 2\n"
           "  kspeed roofline --model deepseek-r1 --gpu h200-sxm --kv-dtype fp8 --batch 64\n"
           "  kspeed roofline --model qwen3-8b --gpu b200 --phase prefill --ctx 32k\n"
           "  kspeed roofline --ai 8 --peak-tflops 989.4 --bandwidth-tbs 3.35 "
           "--bandwidth-efficiency 0.6:0.66\n"
           "  kspeed roofline --ncu report.csv --gpu a100-sxm-80gb --bytes-reduction 2\n"
           "  kspeed roofline --ncu report.csv --gpu h100-sxm --kernel flash_fwd --launch 7 "
           "--model llama-3.1-8b\n"
           "  kspeed gpus; kspeed models                       the presets\n" +
           exit_codes_help();
  }

  CLI::App* app_;
  CLI::Option* workload_option_ = nullptr;
  RooflineFlags flags_;
};

}  // namespace

std::unique_ptr<Command> make_roofline_command(CLI::App& command) {
  return std::make_unique<RooflineCommand>(command);
}

}  // namespace kspeed::cli
