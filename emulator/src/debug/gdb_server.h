// A GDB remote-protocol stub for one machine, Cortex-M or RV32: what gdb-multiarch,
// arm-none-eabi-gdb and riscv gdbs use (registers, memory, breakpoints, watchpoints,
// step, continue, the target description and the board's memory map, monitor commands).
// It talks only to machine/'s interface, so it is written once for both cores.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>
#include <string>
#include <string_view>

#include "../machine/machine.h"

namespace faultline::debug {

class GdbStub {
 public:
  // `interrupted`: polled while the machine runs; true when the client sent Ctrl-C.
  GdbStub(machine::Machine& m, const Board& board, const Image& image, std::function<bool()> interrupted);

  // The reply to one packet's payload ("" = not supported, as the protocol says).
  std::string Handle(std::string_view packet);
  // The stop reply for where the machine is now (`?`).
  std::string StopReply() const;
  // The client asked to detach or kill: the connection ends after the reply.
  bool closing() const { return closing_; }

 private:
  std::string ReadRegisters() const;
  std::string RegisterHex(size_t n) const;  // target byte order
  bool WriteRegister(size_t n, std::span<const uint8_t> bytes);
  std::string ReadMemory(std::string_view args) const;
  std::string RawMemory(std::string_view args) const;
  std::string WriteMemory(std::string_view args, bool binary);
  std::string Breakpoint(std::string_view args, bool insert);
  std::string Query(std::string_view packet);
  std::string Monitor(std::string_view command);
  std::string Resume(bool step);
  std::string TargetXml() const;
  std::string MemoryMapXml() const;

  machine::Machine& m_;
  const Board& board_;
  const Image& image_;
  std::function<bool()> interrupted_;
  enum class Why { kReset, kTrap, kInterrupt, kFault, kWatch } why_ = Why::kReset;
  bool closing_ = false;
};

}  // namespace faultline::debug
