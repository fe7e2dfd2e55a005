// Entries of inline-counted translation blocks (arm/core_block_count.cc,
// riscv/hart_block_count.cc), one per translation: a block's generated code stores its
// entry's address, so entries never move. Allocated below 2 GiB where the system allows
// (mmap MAP_32BIT), so that the address is a 32-bit immediate: one host instruction per
// block instead of two.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace faultline::engine {

// Chunks of memory, low where possible, freed with the pool.
class LowChunks {
 public:
  LowChunks() = default;
  LowChunks(const LowChunks&) = delete;
  LowChunks& operator=(const LowChunks&) = delete;
  ~LowChunks();
  void* Allocate(size_t bytes);

 private:
  struct Chunk {
    void* at;
    size_t bytes;
    bool mapped;  // mmap'd, else new[]
  };
  std::vector<Chunk> chunks_;
};

template <typename T>
class BlockArena {
  static_assert(std::is_trivially_destructible_v<T>, "entries are freed with their chunk");

 public:
  T* New() {
    if (chunk_ == nullptr || used_ == kChunk) {
      chunk_ = static_cast<T*>(chunks_.Allocate(kChunk * sizeof(T)));
      used_ = 0;
    }
    return new (&chunk_[used_++]) T{};
  }

 private:
  static constexpr size_t kChunk = 1024;  // entries per chunk
  LowChunks chunks_;
  T* chunk_ = nullptr;
  size_t used_ = 0;  // entries of the last chunk in use
};

// The road's ring of entries (road_ring.h), low as the entries are, so that the translated
// code's store into it takes the ring's address as a 32-bit displacement (EmitRing): two
// host instructions per block fewer than an add of a 64-bit base.
template <typename T>
class RingSlots {
 public:
  explicit RingSlots(size_t n) { Reset(n); }
  // A new ring of n empty slots (the old one is freed: no translated code may still
  // address it).
  void Reset(size_t n) {
    chunks_ = std::make_unique<LowChunks>();
    slots_ = static_cast<const T**>(chunks_->Allocate(n * sizeof(const T*)));
    std::fill(slots_, slots_ + n, nullptr);
  }
  const T** get() const { return slots_; }
  const T*& operator[](size_t i) const { return slots_[i]; }

 private:
  std::unique_ptr<LowChunks> chunks_;
  const T** slots_ = nullptr;
};

}  // namespace faultline::engine
