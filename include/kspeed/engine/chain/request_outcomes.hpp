#pragma once
// One request after the mix chain (RequestOutcome) and a run's outcomes, one per request in the
// order added, held in fixed-size chunks (RequestOutcomes).
//
// Why chunks (issue 26, replay memory): a std::vector that doubles holds its old and new arrays
// at once at each reallocation, and nothing of it can be given back before the whole goes. Here
// growing never copies what is held, and a reader that is done with a prefix (the replay once it
// has built its own requests from them) frees it chunk by chunk, so its own requests and the
// outcomes never coexist in full. A chunk is 8,192 outcomes (640 KiB).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <vector>

namespace kspeed::engine {

/// Where a request's TTFT came from.
enum class LatencySource : std::uint8_t {
  measured,   ///< the log's own measurement
  scaled,     ///< the reference TTFT scaled to this request's prompt (ReferenceLatency)
  reference,  ///< the reference TTFT itself (same prompt, nothing cached)
  fitted,     ///< TTFT = T0 + a·n·(1 + odds(L_eff)) fitted to measured points (ttft_fit)
  given,      ///< a TPOT given by the user or workload, not scaled with context
  modelled,   ///< the deployment's step model at this request's lengths (MixModel::step_model)
  missing,    ///< nothing to take it from
};

/// One request after the chain: 80 bytes, the per-request cost of a run. Latencies are doubles:
/// a measured log's percentiles must equal the tool's own to the last printed digit.
struct RequestOutcome {
  double arrival_s = 0;      ///< NaN when the log has no arrival time
  double prefill_share = 0;  ///< attention share of prefill at L_eff
  double ttft_before_ms = 0;
  double ttft_after_ms = 0;
  double tpot_before_ms = 0;  ///< NaN without a TPOT
  double tpot_after_ms = 0;   ///< NaN without a TPOT
  double e2e_before_ms = 0;   ///< NaN without a TPOT for a response of 2+ tokens
  double e2e_after_ms = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t response_tokens = 0;
  std::int32_t cached_tokens = 0;  ///< c used for the share (measured, simulated or stated)
  std::uint16_t model_index = 0;   ///< into MixRun::models; 0 is "" (not stated)
  LatencySource ttft_source = LatencySource::missing;
  LatencySource tpot_source = LatencySource::missing;
};

/// A run's outcomes in chunks of kChunkOutcomes: indexed and iterated like a vector, grown
/// without copying, freed from the front by a reader done with them.
class RequestOutcomes {
 public:
  static constexpr std::size_t kChunkOutcomes = 8192;

  RequestOutcomes() = default;
  RequestOutcomes(std::initializer_list<RequestOutcome> outcomes) {
    for (const RequestOutcome& outcome : outcomes) push_back(outcome);
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = RequestOutcome;
    using difference_type = std::ptrdiff_t;
    using pointer = const RequestOutcome*;
    using reference = const RequestOutcome&;

    const_iterator() = default;
    const_iterator(const RequestOutcomes* outcomes, std::size_t index)
        : outcomes_(outcomes), index_(index) {}
    reference operator*() const { return (*outcomes_)[index_]; }
    pointer operator->() const { return &(*outcomes_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const const_iterator& other) const { return index_ == other.index_; }

   private:
    const RequestOutcomes* outcomes_ = nullptr;
    std::size_t index_ = 0;
  };

  void push_back(const RequestOutcome& outcome) {
    if (size_ == chunks_.size() * kChunkOutcomes) {
      chunks_.push_back(std::make_unique<RequestOutcome[]>(kChunkOutcomes));
    }
    chunks_[size_ / kChunkOutcomes][size_ % kChunkOutcomes] = outcome;
    ++size_;
  }

  /// The i-th outcome added. Not after release_before(j) for i < j.
  const RequestOutcome& operator[](std::size_t i) const {
    return chunks_[i / kChunkOutcomes][i % kChunkOutcomes];
  }
  /// The outcome just added.
  const RequestOutcome& back() const { return (*this)[size_ - 1]; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

  /// Room in the chunk table for `outcomes` (the chunks themselves come as they fill).
  void reserve(std::size_t outcomes) {
    chunks_.reserve((outcomes + kChunkOutcomes - 1) / kChunkOutcomes);
  }

  /// Frees every chunk that holds only outcomes before `index`: the caller reads them no more.
  /// size() is unchanged; reading a freed outcome is an error.
  void release_before(std::size_t index) {
    for (std::size_t chunk = 0; chunk < index / kChunkOutcomes && chunk < chunks_.size(); ++chunk) {
      chunks_[chunk].reset();
    }
  }

  /// Frees every outcome; empty afterwards.
  void clear() {
    std::vector<std::unique_ptr<RequestOutcome[]>>().swap(chunks_);
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<RequestOutcome[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace kspeed::engine
