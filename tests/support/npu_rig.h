// The Ethos-U55 of mps3-an547 behind its memory map, driven through its registers as the
// driver drives it, for the Ethos-U model's tests: the host's view writes the inputs and
// reads the results, the clock is advanced to each job's end.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "bus/bus_view.h"
#include "devices/ethos_u/ethos_u.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "npu_stream.h"

namespace faultline::npu_test {

class NpuRig {
 public:
  static constexpr uint64_t kArena = 0x21000000;   // isram: BASEP1
  static constexpr uint64_t kWeights = 0x21200000; // BASEP0
  static constexpr uint64_t kStream = 0x21300000;

  NpuRig() : board_(LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml")), map_(board_) {
    for (size_t p = 0; p < map_.peripherals().size(); ++p) {
      if (map_.peripherals()[p].name == "ETHOS_U55") npu_ = p;
    }
  }

  MemoryMap& map() { return map_; }
  size_t Reg(const std::string& name) const {
    const auto& regs = map_.peripherals()[npu_].registers;
    for (size_t r = 0; r < regs.size(); ++r) {
      if (regs[r].name == name) return r;
    }
    throw std::runtime_error("no register " + name);
  }
  uint32_t Get(const std::string& name) { return map_.LoadRegister(npu_, Reg(name)); }
  void Set(const std::string& name, uint32_t v) { map_.WriteRegister(npu_, Reg(name), v); }
  void Put(uint64_t address, const std::vector<uint8_t>& bytes) { ASSERT_TRUE(host_.Write(address, bytes).ok()); }
  std::vector<uint8_t> Take(uint64_t address, size_t n) {
    std::vector<uint8_t> b(n);
    EXPECT_TRUE(host_.Read(address, b).ok());
    return b;
  }
  // The driver's invoke: the stream, QBASE and QSIZE, the base pointers, CMD = 1.
  void Invoke(const StreamWriter& s, uint64_t at = kStream, uint32_t basep1 = kArena, uint32_t basep0 = kWeights) {
    Put(at, s.bytes());
    Set("QBASE", uint32_t(at));
    Set("QSIZE", uint32_t(s.words().size() * 4));
    Set("BASEP0", basep0);
    Set("BASEP1", basep1);
    Set("CMD", 1);
  }
  // Runs the clock to the job's end; false if none was running.
  bool Finish() {
    const uint64_t at = map_.NextEventAt();
    if (at == UINT64_MAX) return false;
    map_.AdvanceTo(at);
    Set("CMD", 0x2);  // the driver's interrupt handler
    return true;
  }
  // Invoke and Finish, and the job's record.
  const NpuJob& Run(const StreamWriter& s) {
    Invoke(s);
    EXPECT_TRUE(Finish());
    return map_.npus().at(0)->jobs().back();
  }
  const NpuJob& Job() { return map_.npus().at(0)->jobs().back(); }

 private:
  Board board_;
  MemoryMap map_;
  BusView host_ = BusView::Host(map_);
  size_t npu_ = 0;
};

}  // namespace faultline::npu_test
