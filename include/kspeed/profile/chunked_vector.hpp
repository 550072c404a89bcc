#pragma once
// A growable sequence stored in fixed-size chunks: appending never moves what is stored, so a
// trace of a million kernels never holds two copies of its kernel array while it grows (a
// std::vector doubling from 512K to 1M 48-byte records briefly needs 75 MB for 48 MB of data).

#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

namespace kspeed::profile {

template <class T>
class ChunkedVector {
 public:
  static constexpr std::size_t kChunkShift = 14;  ///< 16,384 elements per chunk
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkShift;
  static constexpr std::size_t kChunkMask = kChunkSize - 1;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator() = default;
    const_iterator(const ChunkedVector* owner, std::size_t index) : owner_(owner), index_(index) {}
    reference operator*() const { return (*owner_)[index_]; }
    pointer operator->() const { return &(*owner_)[index_]; }
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
    const ChunkedVector* owner_ = nullptr;
    std::size_t index_ = 0;
  };

  void push_back(const T& value) {
    if (size_ == chunks_.size() * kChunkSize) {
      chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunkSize));
    }
    chunks_[size_ >> kChunkShift][size_ & kChunkMask] = value;
    ++size_;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }

  T& operator[](std::size_t i) { return chunks_[i >> kChunkShift][i & kChunkMask]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kChunkShift][i & kChunkMask]; }
  const T& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("ChunkedVector::at");
    return (*this)[i];
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace kspeed::profile
