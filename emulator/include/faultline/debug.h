// `faultline run --gdb`: the run driven by a GDB remote-protocol client.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline {

// Loads and resets the machine, then waits for one gdb client at `listen` before the
// first instruction (`listen.say` tells the user where). Run() calls it when
// RunOptions::gdb is set. The client drives it; a fault stops
// it with SIGSEGV before the firmware's handler is entered. When the client detaches or
// goes away, the run goes on to its end (with RunOptions::timeout_seconds from there),
// and its result is returned as Run's is. No wall-clock budget holds while a client is
// attached.
RunResult RunUnderGdb(const Board& board, const Image& image, const RunOptions& options, const GdbListen& listen);

}  // namespace faultline
