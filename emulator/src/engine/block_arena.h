// Entries of inline-counted translation blocks (cpu/core_block_count.cc,
// riscv/hart_block_count.cc), one per translation: a block's generated code stores its
// entry's address, so entries never move. Allocated below 2 GiB where the system allows
// (mmap MAP_32BIT), so that the address is a 32-bit immediate: one host instruction per
// block instead of two.
#pragma once

#include <cstddef>
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

}  // namespace faultline::engine
