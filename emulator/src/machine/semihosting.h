// Arm semihosting (BKPT 0xAB; "Semihosting for AArch32 and AArch64", Arm IHI 0096):
// console output, exit status, clocks and heap information. Host files are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../devices/console_log.h"
#include "faultline/guest.h"

#include "faultline/memory_map.h"

namespace faultline {

struct SemihostingResult {
  enum class Kind { kReturn, kExit, kUnsupported } kind = Kind::kReturn;
  uint32_t r0 = 0;        // kReturn
  int exit_code = 0;      // kExit
  std::string detail;     // kExit: the reason; kUnsupported: the operation
  // kReturn: a call that did nothing the firmware can tell (SYS_WRITE0 returns no
  // status), said for the run's events; `problem_address` is where it went wrong.
  std::string problem;
  uint64_t problem_address = 0;
};

struct HeapInfo {
  uint32_t heap_base = 0, heap_limit = 0, stack_base = 0, stack_limit = 0;
};

class Semihosting {
 public:
  // `wall_clock` lists SYS_TIME answers to give again, in order, when a run is
  // replayed; afterwards the real time is used and appended.
  Semihosting(MemoryMap& map, HeapInfo heap, uint64_t clock_hz, std::vector<uint32_t> wall_clock);

  SemihostingResult Call(uint32_t op, uint32_t arg, uint64_t instructions);

  // What the firmware printed: streamed and watched as ConsoleLog says, each log keeping
  // its last `keep` bytes (kConsoleKeep unless set before the first call).
  void SetConsole(size_t keep, ConsoleLog::Stream stream, std::vector<std::string> watch);
  std::string console() const { return console_.Tail(); }
  std::string out() const { return out_.Tail(); }
  std::string err() const { return err_.Tail(); }
  const ConsoleLog& console_log() const { return console_; }
  const std::vector<uint32_t>& wall_clock() const { return wall_clock_; }

 private:
  std::optional<uint32_t> Word(uint32_t addr) const;
  std::optional<std::string> Bytes(uint32_t addr, uint32_t len) const;
  // The NUL-terminated string at `addr`, or nullopt: `*end` is then the first address
  // not read (unmapped, or kMaxString bytes on).
  std::optional<std::string> CString(uint32_t addr, uint64_t* end) const;
  bool Store(uint32_t addr, const void* data, uint32_t len);
  void Emit(int handle, const std::string& text);
  SemihostingResult Fail(int error);

  MemoryMap& map_;
  HeapInfo heap_;
  uint64_t clock_hz_;
  std::vector<uint32_t> wall_clock_;
  size_t wall_clock_next_ = 0;
  int errno_ = 0;
  uint32_t features_position_ = 0;  // read position in the :semihosting-features file
  ConsoleLog console_{kConsoleKeep}, out_{kConsoleKeep}, err_{kConsoleKeep};
};

}  // namespace faultline
