// libFuzzer target: any text given to --boot-config (an Alif SE-tools JSON) is a
// BootConfig or an InputError, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "faultline/board.h"
#include "faultline/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    faultline::ParseBootConfig(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const faultline::InputError&) {
  }
  return 0;
}
