#include "block_arena.h"

#include <sys/mman.h>

namespace faultline::engine {

void* LowChunks::Allocate(size_t bytes) {
  void* low = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (low != MAP_FAILED) {
    chunks_.push_back({low, bytes, true});
  } else {  // any address works, at one more instruction per block
    chunks_.push_back({new std::byte[bytes], bytes, false});
  }
  return chunks_.back().at;
}

LowChunks::~LowChunks() {
  for (const Chunk& c : chunks_) {
    if (c.mapped) {
      munmap(c.at, c.bytes);
    } else {
      delete[] static_cast<std::byte*>(c.at);
    }
  }
}

}  // namespace faultline::engine
