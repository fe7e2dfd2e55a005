// The road's ring (engine/tcg_block.h EmitRing) read back: the translated code of each
// block stores its entry's address at ring[(at & mask) / 8] and adds 8 to `at`; the
// Cortex-M core (arm/core.cc) and the RV32 hart (riscv/hart.cc) pass what it holds to a
// `--trace` sink.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "faultline/guest.h"

namespace faultline::engine {

// Passes the entries from byte count `from` up to `to` to `sink` in batches, each made a
// TracedBlock by `traced`; `from` ends at `to`.
template <typename Entry, typename ToTraced>
void DrainRing(const Entry* const* ring, uint64_t mask, uint64_t& from, uint64_t to, const ToTraced& traced,
               const std::function<void(const TracedBlock*, size_t)>& sink) {
  std::array<TracedBlock, 4096> batch;
  size_t n = 0;
  for (; from < to; from += sizeof(void*)) {
    batch[n++] = traced(*ring[(from & mask) / sizeof(void*)]);
    if (n == batch.size()) {
      sink(batch.data(), n);
      n = 0;
    }
  }
  if (n > 0) sink(batch.data(), n);
}

}  // namespace faultline::engine
