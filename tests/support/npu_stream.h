// A command-stream writer for the Ethos-U model's tests, written here from the encoding
// Arm's driver header and Vela use (docs/reference/ethos-u.md §3): opcode w[9:0], control
// w[15:14] (1: a 32-bit payload word follows), param w[31:16]. Test code: the model's
// decoder is checked against streams this writes.
#pragma once

#include <cstdint>
#include <vector>

namespace faultline::npu_test {

class StreamWriter {
 public:
  // A one-word command: an NPU_SET_* of a 16-bit parameter, or an NPU_OP_*.
  StreamWriter& Cmd0(uint16_t opcode, uint16_t param = 0) {
    words_.push_back(uint32_t(opcode & 0x3FF) | uint32_t(param) << 16);
    return *this;
  }
  // A two-word command: an NPU_SET_* of a 32-bit payload (an address, a length, a scale).
  StreamWriter& Cmd1(uint16_t opcode, uint32_t payload, uint16_t param = 0) {
    words_.push_back(uint32_t(opcode & 0x3FF) | 0x4000u | uint32_t(param) << 16);
    words_.push_back(payload);
    return *this;
  }
  // NPU_OP_STOP with the mask Vela writes.
  StreamWriter& Stop(uint16_t mask = 0xFFFF) { return Cmd0(0x000, mask); }
  // A DMA of `length` bytes from region `src_region` + `src` to `dst_region` + `dst`
  // (region | 0x100: SHRAM), then waiting for it, as Vela emits its weight and LUT copies.
  StreamWriter& Dma(uint16_t src_region, uint32_t src, uint16_t dst_region, uint32_t dst, uint32_t length) {
    Cmd0(0x130, src_region).Cmd0(0x131, dst_region);
    Cmd1(0x030, src).Cmd1(0x031, dst).Cmd1(0x032, length);
    return Cmd0(0x010).Cmd0(0x011, 0);
  }

  const std::vector<uint32_t>& words() const { return words_; }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b;
    for (uint32_t w : words_) {
      for (int i = 0; i < 4; ++i) b.push_back(uint8_t(w >> (8 * i)));
    }
    return b;
  }

 private:
  std::vector<uint32_t> words_;
};

}  // namespace faultline::npu_test
