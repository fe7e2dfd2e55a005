// libFuzzer target: any text given as a board file (regions, aliases, gates, peripherals,
// UART and timer keys) is a Board or an InputError with file:line, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "faultline/board.h"
#include "faultline/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    // `uses:` is relative to the origin's directory: the shipped boards resolve.
    faultline::ParseBoard(std::string(reinterpret_cast<const char*>(data), size),
                          FAULTLINE_BOARDS_DIR "/fuzz.yaml");
  } catch (const faultline::InputError&) {
  }
  return 0;
}
