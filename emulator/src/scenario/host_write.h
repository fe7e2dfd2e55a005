// A scenario's host writes (load:, write:, fill:) land inside one memory of the board:
// checked before any byte of them is made, so that a fill of 4 GiB is a message, not an
// allocation.
#pragma once

#include <fmt/core.h>

#include <string>

#include "faultline/board.h"
#include "faultline/error.h"

namespace faultline {

// Throws InputError at `where` ("file:line: setup[0].fill") unless one memory of `board`
// holds all of [address, address + size). `what` names the step ("fill", "write", "load").
inline void RequireInOneMemory(const Board& board, uint64_t address, uint64_t size, const std::string& what,
                               const std::string& where) {
  if (MemoryHolding(board, address, size)) return;
  const std::string range = fmt::format("{} of {} bytes at 0x{:08x}-0x{:x}", what, size, address, address + size - 1);
  if (std::optional<Memory> start = MemoryHolding(board, address, 1)) {
    const uint64_t room = start->base + start->size - address;
    throw InputError(where,
                     fmt::format("{} does not fit in one memory of board '{}': {} (0x{:08x}-0x{:08x}) holds {} "
                                 "bytes from 0x{:08x}",
                                 range, board.name, start->name, start->base, start->base + start->size - 1, room,
                                 address),
                     fmt::format("make it at most {} bytes, or place it in a larger memory (faultline board show {})",
                                 room, board.name));
  }
  throw InputError(where, fmt::format("{}: no memory of board '{}' holds 0x{:08x}", range, board.name, address),
                   fmt::format("give an address inside one of its memories (faultline board show {})", board.name));
}

}  // namespace faultline
