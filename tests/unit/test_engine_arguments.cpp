// The engine settings a run's deployment files state (io/serving/engine_arguments.hpp): vLLM's
// arguments in the forms a Kubernetes manifest, a JSON-style list and a shell command line write
// them, underscores read as dashes, boolean --[no-]enable-X, templates not taken, two values of
// one setting a conflict, and the shared inference-perf run's manifest.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "kspeed/io/serving/engine_arguments.hpp"

namespace unit_engine_arguments {

using namespace kspeed::io;

namespace {

const std::string kSharedServing = KSPEED_SOURCE_DIR "/../shared/data/serving/";

}  // namespace

TEST_CASE("vLLM arguments in a Kubernetes manifest's args list", "[engine_arguments]") {
  const StatedEngineArguments stated = scan_vllm_arguments(
      "      containers:\n"
      "      - args:\n"
      "        - \"--model=$(MODEL_ID)\"\n"
      "        - \"--gpu_memory_utilization=0.9\"\n"
      "        - \"--max-model-len=512\"\n"
      "        - \"--max-num-seqs=128\"\n"
      "        - \"--no-enable-prefix-caching\"\r\n"
      "        - \"--no-enable-chunked-prefill\"\n"
      "        - --max-num-batched-tokens\n"
      "        - \"4096\"\n",
      "deploy.yaml");
  REQUIRE(stated.max_num_seqs);
  CHECK(stated.max_num_seqs->value == 128);
  CHECK(stated.max_num_seqs->where == "deploy.yaml:6");
  REQUIRE(stated.gpu_memory_utilization);
  CHECK(stated.gpu_memory_utilization->value == 0.9);
  CHECK(stated.max_model_len->value == 512);
  REQUIRE(stated.chunked_prefill);
  CHECK_FALSE(stated.chunked_prefill->value);
  CHECK(stated.chunked_prefill->where == "deploy.yaml:8");
  REQUIRE(stated.prefix_caching);
  CHECK_FALSE(stated.prefix_caching->value);
  REQUIRE(stated.max_num_batched_tokens);
  CHECK(stated.max_num_batched_tokens->value == 4096);
  CHECK(stated.max_num_batched_tokens->where == "deploy.yaml:9");
  CHECK_FALSE(stated.tensor_parallel_size);
  CHECK(stated.conflicts.empty());
}

TEST_CASE("vLLM arguments on a command line and in a JSON-style list", "[engine_arguments]") {
  const StatedEngineArguments line = scan_vllm_arguments(
      "# serve it\n"
      "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 4 \\\n"
      "  --max_num_seqs 256 --enable-chunked-prefill --max-num-batched-tokens=$TOKENS\n",
      "serve.sh");
  CHECK(line.tensor_parallel_size->value == 4);
  CHECK(line.max_num_seqs->value == 256);
  CHECK(line.max_num_seqs->where == "serve.sh:3");
  CHECK(line.chunked_prefill->value);
  CHECK_FALSE(line.max_num_batched_tokens);  // a template, not a number
  CHECK_FALSE(line.block_size);
  // --block-size sizes the KV cache's blocks (validate's replay reads it).
  const StatedEngineArguments blocks =
      scan_vllm_arguments("vllm serve m --block-size 32 --block_size=32\n", "b.sh");
  REQUIRE(blocks.block_size);
  CHECK(blocks.block_size->value == 32);
  CHECK(blocks.block_size->where == "b.sh:1");
  CHECK(scan_vllm_arguments("--block-size 16\n--block-size 32\n", "c.sh")
            .conflict_on("--block-size") != nullptr);
  const StatedEngineArguments list = scan_vllm_arguments(
      "args: [\"--max-num-seqs\", \"64\", \"--enable-chunked-prefill=False\"]\n", "c.yaml");
  CHECK(list.max_num_seqs->value == 64);
  CHECK_FALSE(list.chunked_prefill->value);
  // Older vLLM took the value as the next word.
  const StatedEngineArguments old = scan_vllm_arguments("--enable-chunked-prefill false", "o.sh");
  CHECK_FALSE(old.chunked_prefill->value);
  // A commented-out argument is not stated; a fraction above 1 is no utilisation.
  const StatedEngineArguments commented =
      scan_vllm_arguments("# --max-num-seqs 8\n--gpu-memory-utilization 1.5\n", "x.sh");
  CHECK(commented.empty());
}

TEST_CASE("one setting stated with two values is a conflict", "[engine_arguments]") {
  const StatedEngineArguments stated = scan_vllm_arguments(
      "--max-num-seqs=128\n---\n--max-num-seqs=256\n--max-num-seqs=128\n", "two.yaml");
  REQUIRE(stated.conflicts.size() == 1);
  const StatedConflict* conflict = stated.conflict_on("--max-num-seqs");
  REQUIRE(conflict != nullptr);
  CHECK(conflict->detail == "128 at two.yaml:1, 256 at two.yaml:3");
  CHECK(stated.conflict_on("--max-num-batched-tokens") == nullptr);
}

TEST_CASE("a folder's deployment files, in name order", "[engine_arguments]") {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / "kspeed_engine_arguments_test";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "a.yaml") << "- \"--max-num-seqs=32\"\n";
  std::ofstream(folder / "b.sh") << "vllm serve m --max-num-seqs 48\n";
  std::ofstream(folder / "stage_0_lifecycle_metrics.json") << "{\"--max-num-seqs\": 1}";
  const StatedEngineArguments stated = read_engine_arguments(folder.string());
  CHECK(stated.max_num_seqs->value == 32);
  CHECK(stated.max_num_seqs->where == "a.yaml:1");
  REQUIRE(stated.conflict_on("--max-num-seqs") != nullptr);
  CHECK(stated.conflict_on("--max-num-seqs")->detail == "32 at a.yaml:1, 48 at b.sh:1");
  CHECK(read_engine_arguments((folder / "missing").string()).empty());
  std::filesystem::remove_all(folder);
}

TEST_CASE("the shared inference-perf run's manifest", "[engine_arguments][real]") {
  const std::string run = kSharedServing + "inferenceperf-h100-llama31-8b-vllm0.11";
  if (!std::filesystem::exists(run)) {
    WARN("skipped: " << run << " is not present (../shared/data)");
    return;
  }
  // manifests.yaml lines 23-27, read with grep: --gpu_memory_utilization=0.9,
  // --max-model-len=512, --max-num-seqs=128, --no-enable-prefix-caching,
  // --no-enable-chunked-prefill.
  const StatedEngineArguments stated = read_engine_arguments(run);
  CHECK(stated.max_num_seqs->value == 128);
  CHECK(stated.max_num_seqs->where == "manifests.yaml:25");
  CHECK_FALSE(stated.chunked_prefill->value);
  CHECK_FALSE(stated.prefix_caching->value);
  CHECK(stated.gpu_memory_utilization->value == 0.9);
  CHECK(stated.max_model_len->value == 512);
  CHECK_FALSE(stated.max_num_batched_tokens);
  CHECK(stated.conflicts.empty());
}

}  // namespace unit_engine_arguments
