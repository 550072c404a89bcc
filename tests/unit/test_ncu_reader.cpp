// The Nsight Compute CSV reader: both pages, old and new versions, real-file quirks, and the
// errors for what is not a usable export. Fixtures in tests/fixtures/ncu state their own answers
// in the lines before the header; the real samples in ../shared/data/ncu are read when present.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "kspeed/error.hpp"
#include "kspeed/io/files.hpp"
#include "kspeed/io/ncu_reader.hpp"

namespace unit_ncu_reader {

using Catch::Matchers::Contains;
using kspeed::InputError;
using kspeed::engine::ProfiledKernel;
using kspeed::io::ncu_unit_scale;
using kspeed::io::NcuPage;
using kspeed::io::NcuReport;
using kspeed::io::parse_ncu_csv;
using kspeed::io::try_parse_ncu_csv;

namespace {

const std::string kFixtures = std::string(KSPEED_SOURCE_DIR) + "/tests/fixtures/ncu/";
const std::string kShared = std::string(KSPEED_SOURCE_DIR) + "/../shared/data/ncu/";

NcuReport fixture(const std::string& name) {
  return kspeed::io::load_ncu_csv(kFixtures + name);
}

bool present(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  WARN("skipped: " << path << " is not present (../shared/data/ncu holds the real ncu exports)");
  return false;
}

const std::string kDetailsHeader =
    "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string message_of(const std::string& text) {
  try {
    parse_ncu_csv(text, "t.csv");
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("ncu units scale to SI base units", "[ncu][reader]") {
  CHECK(ncu_unit_scale("nsecond") == Approx(1e-9));
  CHECK(ncu_unit_scale("usecond") == Approx(1e-6));
  CHECK(ncu_unit_scale("msecond") == Approx(1e-3));
  CHECK(ncu_unit_scale("second") == 1);
  CHECK(ncu_unit_scale("ns") == Approx(1e-9));
  CHECK(ncu_unit_scale("byte") == 1);
  CHECK(ncu_unit_scale("Kbyte") == 1e3);
  CHECK(ncu_unit_scale("Mbyte") == 1e6);
  CHECK(ncu_unit_scale("Gbyte") == 1e9);
  CHECK(ncu_unit_scale("KiB") == 1024);
  CHECK(ncu_unit_scale("GB") == 1e9);
  CHECK(ncu_unit_scale("Gbyte/second") == 1e9);
  CHECK(ncu_unit_scale("cycle/nsecond") == Approx(1e9));
  CHECK(ncu_unit_scale("cycle/usecond") == Approx(1e6));
  CHECK(ncu_unit_scale("Ghz") == 1e9);
  CHECK(ncu_unit_scale("%") == 1);
  CHECK(ncu_unit_scale("register/thread") == 1);
  CHECK(ncu_unit_scale("SM") == 1);
  CHECK(ncu_unit_scale("") == 1);
}

TEST_CASE("details fixture: preamble, CRLF, scaled units, a multi-line rule row", "[ncu][reader]") {
  const NcuReport report = fixture("details-flash-fwd.csv");
  CHECK(report.page == NcuPage::details);
  REQUIRE(report.kernels.size() == 2);
  const ProfiledKernel& flash = report.kernels[0];
  CHECK(flash.id == "0");
  CHECK(flash.name ==
        "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>"
        "(Flash_fwd_params)");
  CHECK(flash.device == "0");
  CHECK(flash.compute_capability == "9.0");
  CHECK(flash.line == 11);  // the header is line 10, after nine lines of preamble
  CHECK(flash.number("Duration") == Approx(0.25e-3));
  CHECK(flash.find("Duration")->unit == "msecond");
  CHECK(flash.find("Duration")->section == "GPU Speed Of Light Throughput");
  CHECK(flash.number("dram__bytes_read.sum") == Approx(40e6));
  CHECK(flash.number("dram__bytes_write.sum") == Approx(8e6));  // "8,000.00" Kbyte
  CHECK(flash.number("DRAM Frequency") == Approx(2.62e9));      // cycle/nsecond
  CHECK(flash.number("sm__sass_thread_inst_executed_op_ffma_pred_on.sum") == 1'000'000);
  CHECK(flash.number("Memory Throughput") == Approx(42.0));  // percent stays percent
  // The rule row spans lines 16-17, so the next metric is on line 18.
  CHECK(flash.find("dram__bytes_read.sum")->line == 18);
  CHECK(flash.find("Function Cache Configuration")->text == "CachePreferNone");
  CHECK_FALSE(flash.number("Function Cache Configuration"));

  const ProfiledKernel& cache = report.kernels[1];
  CHECK(cache.name.find("reshape_and_cache_flash_kernel") != std::string::npos);
  CHECK(cache.number("Duration") == Approx(12345e-9));
  CHECK(cache.find("dram__bytes_read.sum")->text == "n/a");
  CHECK_FALSE(cache.number("dram__bytes_read.sum"));
  // The last row stops after the unit: the value is missing, not an error.
  REQUIRE(cache.find("dram__bytes_write.sum") != nullptr);
  CHECK_FALSE(cache.number("dram__bytes_write.sum"));
}

TEST_CASE("raw fixture: units row, arrays, a row shorter than the header", "[ncu][reader]") {
  const NcuReport report = fixture("raw-paged-attention.csv");
  CHECK(report.page == NcuPage::raw);
  REQUIRE(report.kernels.size() == 2);
  const ProfiledKernel& paged = report.kernels[0];
  CHECK(paged.name == "paged_attention_v2_kernel");
  CHECK(paged.device == "NVIDIA H100 80GB HBM3");
  CHECK(paged.compute_capability == "9.0");
  CHECK(paged.number("gpu__time_duration") == Approx(1234.5e-6));
  CHECK(paged.number("dram__read_bytes") == Approx(2'048'000));
  CHECK(paged.number("launch__grid_size") == 1024);
  CHECK(paged.find("inst_executed")->elements == std::vector<double>{32, 32, 4});
  CHECK_FALSE(paged.number("inst_executed"));
  CHECK(paged.find("Kernel Time") == nullptr);  // launch columns are not metrics
  const ProfiledKernel& reduce = report.kernels[1];
  CHECK(reduce.number("gpu__time_duration") == Approx(3e-6));
  CHECK_FALSE(reduce.number("dram__read_bytes"));
  CHECK(reduce.number("dram__write_bytes") == 0);
  CHECK_FALSE(reduce.number("sm__sol_pct"));  // beyond the end of the short row
}

TEST_CASE("raw export naming its GPU: the display name, not the Device index (issue 20)",
          "[ncu][reader]") {
  const NcuReport report = fixture("raw-b200-flashinfer.csv");
  REQUIRE(report.kernels.size() == 2);
  CHECK(report.kernels[0].device == "NVIDIA B200");  // the "Device" column holds "0"
  CHECK(report.kernels[0].compute_capability == "10.0");
  CHECK(kspeed::io::gpu_preset_for_device("NVIDIA B200") == "b200");
  CHECK(kspeed::io::gpu_preset_for_device("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(kspeed::io::gpu_preset_for_device("NVIDIA A100-SXM4-80GB") == "a100-sxm-80gb");
  // Other parts of the same name have other clocks and bandwidth: no preset.
  CHECK_FALSE(kspeed::io::gpu_preset_for_device("NVIDIA H100 PCIe"));
  CHECK_FALSE(kspeed::io::gpu_preset_for_device("NVIDIA A100-SXM4-40GB"));
  CHECK_FALSE(kspeed::io::gpu_preset_for_device("0"));
  CHECK(kspeed::io::compute_capability_of_preset("b200") == "10.0");
  CHECK(kspeed::io::compute_capability_of_preset("h200-sxm") == "9.0");
  CHECK_FALSE(kspeed::io::compute_capability_of_preset("mi300x"));
}

TEST_CASE("bad ncu inputs: failed run, not ncu, interleaved IDs, not a number", "[ncu][reader]") {
  SECTION("a log of a failed run names the first ==ERROR== line") {
    CHECK_THROWS_WITH(fixture("failed-run.log"),
                      Contains("failed-run.log:2: ncu reported '==ERROR== ERR_NVGPUCTRPERM") &&
                          Contains("wrote no result table"));
    CHECK_THROWS_AS(try_parse_ncu_csv("==PROF== Connected to process 1\n", "t"), InputError);
  }
  SECTION("a CSV that is not an ncu export is declined, or named as such") {
    const std::string text = kspeed::io::read_text_file(kFixtures + "not-ncu.csv", "csv");
    CHECK_FALSE(try_parse_ncu_csv(text, "not-ncu.csv"));
    CHECK_FALSE(try_parse_ncu_csv("", "empty"));
    CHECK_FALSE(try_parse_ncu_csv("{\"traceEvents\": []}", "trace.json"));
    CHECK_THROWS_WITH(fixture("not-ncu.csv"),
                      Contains("not-ncu.csv:1: not an Nsight Compute CSV export") &&
                          Contains("starts with 'ID,name,value'") && Contains("ncu --csv"));
  }
  SECTION("a launch whose rows resume after another launch's") {
    CHECK_THROWS_WITH(fixture("interleaved-ids.csv"),
                      Contains("interleaved-ids.csv:4: a row of launch ID 0 after rows of launch "
                               "ID 1; launch 0's rows started at line 2"));
  }
  SECTION("a quantity that is not a number") {
    CHECK_THROWS_WITH(fixture("not-a-number.csv"),
                      Contains("not-a-number.csv:3: metric 'dram__bytes.sum' holds '12 MB', which "
                               "is not a number (its unit is 'byte')"));
  }
  SECTION("malformed thousands separators are not numbers") {
    CHECK_THAT(message_of(kDetailsHeader + "\"0\",\"k\",\"s\",\"m\",\"byte\",\"1,2\"\n"),
               Contains("t.csv:2: metric 'm' holds '1,2'"));
  }
  SECTION("program output inside the table") {
    CHECK_THAT(
        message_of(kDetailsHeader + "\"0\",\"k\",\"s\",\"m\",\"byte\",\"1\"\n" + "step 3 done\n"),
        Contains("t.csv:3: the ID column holds 'step 3 done'"));
  }
  SECTION("one launch ID with two kernel names") {
    CHECK_THAT(
        message_of(kDetailsHeader + "\"0\",\"a\",\"s\",\"m\",\"byte\",\"1\"\n" +
                   "\"0\",\"b\",\"s\",\"n\",\"byte\",\"1\"\n"),
        Contains("t.csv:3: launch ID 0 names kernel 'b', but its rows from line 2 name 'a'"));
  }
  SECTION("two exports concatenated") {
    CHECK_THAT(
        message_of(kDetailsHeader + "\"0\",\"a\",\"s\",\"m\",\"byte\",\"1\"\n" + kDetailsHeader),
        Contains("t.csv:3: a second header line"));
  }
  SECTION("a raw page without its units row") {
    CHECK_THAT(message_of("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                          "\"0\",\"k\",\"1\"\n"),
               Contains("t.csv:2: the raw page's second row should hold the metrics' units"));
  }
}

TEST_CASE("tolerated: BOM, CRLF, no preamble, ==PROF== lines inside the table", "[ncu][reader]") {
  const std::string text = "\xEF\xBB\xBF" + kDetailsHeader +
                           "\"3\",\"k\",\"s\",\"gpu__time_duration.sum\",\"usecond\",\"2.5\"\r\n"
                           "==PROF== Disconnected from process 1\r\n"
                           "\"3\",\"k\",\"s\",\"gpu__time_duration.sum\",\"usecond\",\"9\"\r\n";
  const NcuReport report = parse_ncu_csv(text, "bom.csv");
  REQUIRE(report.kernels.size() == 1);
  CHECK(report.kernels[0].id == "3");
  CHECK(report.kernels[0].number("gpu__time_duration.sum") == Approx(2.5e-6));  // first wins
}

TEST_CASE("a compute capability out of range is left out (found by fuzzing)", "[ncu][reader]") {
  const NcuReport report = parse_ncu_csv(
      "\"ID\",\"Kernel Name\",\"device__attribute_compute_capability_major\","
      "\"device__attribute_compute_capability_minor\"\n"
      "\"\",\"\",\"\",\"\"\n"
      "\"0\",\"k\",\"5.12e17\",\"0\"\n"
      "\"1\",\"k\",\"8.00\",\"6.00\"\n",
      "cc.csv");
  REQUIRE(report.kernels.size() == 2);
  CHECK_FALSE(report.kernels[0].compute_capability);
  CHECK(report.kernels[1].compute_capability == "8.6");
}

TEST_CASE("real A100 details export (older ncu): 10 launches, thousands separators",
          "[ncu][reader][real]") {
  const std::string path = kShared + "a100-flashattn-v1-bert-details.csv";
  if (!present(path)) return;
  const NcuReport report = kspeed::io::load_ncu_csv(path);
  CHECK(report.page == NcuPage::details);
  REQUIRE(report.kernels.size() == 10);
  const ProfiledKernel& fmha = report.kernels[7];
  CHECK(fmha.id == "7");
  CHECK(fmha.name.rfind("void fmha_fwd_loop_kernel<", 0) == 0);
  CHECK(fmha.line == 435);
  CHECK_FALSE(fmha.device);                         // this ncu version wrote no Device/CC columns
  CHECK(fmha.number("dram__bytes.sum") == 61'824);  // "61,824"
  CHECK(fmha.find("dram__bytes.sum")->line == 435);
  CHECK(fmha.number("sm__cycles_elapsed.avg.per_second") == Approx(945'954'313.37));
  CHECK(fmha.number("sm__inst_executed_pipe_tensor.sum") == 2'048);
  CHECK(report.kernels[5].name.find("cutlass_80_wmma_tensorop_f16_s161616gemm") !=
        std::string::npos);
}

TEST_CASE("real Blackwell details export (new ncu): preamble, Device and CC columns",
          "[ncu][reader][real]") {
  const std::string path = kShared + "blackwell-cublaslt-fp8-gemm-details.csv";
  if (!present(path)) return;
  const NcuReport report = kspeed::io::load_ncu_csv(path);
  REQUIRE(report.kernels.size() == 1);
  const ProfiledKernel& gemm = report.kernels[0];
  CHECK(gemm.device == "0");
  CHECK(gemm.compute_capability == "10.0");
  CHECK(gemm.line == 5);
  CHECK(gemm.number("Duration") == Approx(406'240e-9));
  CHECK(gemm.find("Duration")->line == 10);
  CHECK(gemm.number("SM Frequency") == Approx(1'239'496'049.13));
  CHECK(gemm.find("Enabled TPC IDs")->text == "all");
}

TEST_CASE("real legacy raw export: metrics read by name", "[ncu][reader][real]") {
  const std::string path = kShared + "gtx1080-vectoradd-raw-legacy.csv";
  if (!present(path)) return;
  const NcuReport report = kspeed::io::load_ncu_csv(path);
  CHECK(report.page == NcuPage::raw);
  REQUIRE(report.kernels.size() == 3);
  const ProfiledKernel& first = report.kernels[0];
  CHECK(first.name == "vecAdd");
  CHECK(first.device == "NVIDIA GeForce GTX 1080");
  CHECK(first.compute_capability == "6.1");
  CHECK(first.number("gpu__time_duration") == Approx(2'720e-9));  // "2,720.00" nsecond
  CHECK(first.number("dram__read_bytes") == 7'552);
  CHECK(first.number("dram__write_bytes") == 384);
  CHECK(first.find("inst_executed")->elements.size() == 24);
  CHECK(report.kernels[2].number("dram__read_bytes") == 2'176);
}

}  // namespace unit_ncu_reader
