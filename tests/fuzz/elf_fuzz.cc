// libFuzzer target: any bytes given as firmware are an Image or an InputError, never a
// crash, a hang or an out-of-bounds read (loader/elf.cc checks what LIEF trusts).
#include <cstddef>
#include <cstdint>

#include "faultline/error.h"
#include "faultline/image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    faultline::ParseElf(std::vector<uint8_t>(data, data + size), "fuzz.elf");
  } catch (const faultline::InputError&) {
  }
  return 0;
}
