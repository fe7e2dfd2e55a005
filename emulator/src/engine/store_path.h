// Unicorn 2.0.1's guest-store path, replaced (store_path.cc).
#pragma once

#include <cstdint>

namespace faultline::engine {

// TLB entries of data pages this process has let take the inline store fast path. Zero
// means the replacement is not in effect: FAULTLINE_UNICORN_STORE_PATH=stock, or a
// libunicorn whose internal calls do not bind to the executable's definitions (a build
// with -Bsymbolic or without exported symbols), which is correct but ~6x slower.
uint64_t FastStorePages();

// Whether any engine of the Arm target translated code from a page of [begin, end): a
// write there by another master must drop that code (Core::MasterWrote).
bool ArmCodeIn(uint64_t begin, uint64_t end);

// How many pages any engine of the Arm target has become code pages so far (it only
// grows): what a cached answer that a page holds no code compares (the MVE unit's store
// pages, arm/core_mve.cc, and the vector stores emitted as ops that read them).
const uint64_t* ArmCodePagesMarked();

}  // namespace faultline::engine
