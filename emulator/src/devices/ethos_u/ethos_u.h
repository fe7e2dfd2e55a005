// An Arm Ethos-U55/U65 as its driver sees it (board/npu_models.cc has the register
// layout): the CPU writes the command stream's address and size and the region base
// pointers, starts the NPU through CMD, and waits for the interrupt; STATUS says how the
// job ended. The NPU fetches its command stream when it starts and runs the operations
// through its own bus port (a bus/bus_view.h of its `masters:` entry); the job ends a
// number of instruction times later derived from its work (Job::Cycles: one NPU cycle per
// CPU instruction), when its results reach memory and its interrupt rises.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../bus_port.h"
#include "../device.h"
#include "command_stream.h"
#include "faultline/board.h"
#include "faultline/guest.h"

namespace faultline::ethos_u {

class EthosU : public Device {
 public:
  EthosU(const Peripheral& peripheral, std::unique_ptr<BusPort> port);

  const std::string& name() const override { return name_; }
  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) override;
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  // Ends the job in flight once `now` reaches its end.
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  // "npu": STATUS.irq_raised or pmu_irq_raised.
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;
  bool TakeAttention() override { return std::exchange(attention_, false); }

  // The jobs started so far, the last one perhaps still running.
  const std::vector<NpuJob>& jobs() const { return jobs_; }

 private:
  size_t Index(const std::string& name) const;
  uint32_t Field(const std::vector<uint32_t>& values, size_t reg, const char* field) const;
  void SetField(std::vector<uint32_t>& values, size_t reg, const char* field, uint32_t v) const;
  void Start(std::vector<uint32_t>& values, uint64_t now);
  void End(std::vector<uint32_t>& values);
  void SoftReset(std::vector<uint32_t>& values, uint32_t reset);
  uint64_t Basep(const std::vector<uint32_t>& values, int n) const;
  void CountCycles(std::vector<uint32_t>& values, uint64_t cycles);

  std::string name_;
  Npu npu_;
  std::vector<Register> layout_;
  std::unique_ptr<BusPort> port_;
  size_t status_, cmd_, reset_, qbase_, qbase_hi_, qread_, qsize_, prot_;
  size_t pmcr_, pmcntenset_, pmcntenclr_, pmovsset_, pmovsclr_, pmintset_, pmintclr_, pmccntr_, pmccntr_hi_;
  std::array<size_t, 8> basep_{}, basep_hi_{};
  std::array<size_t, 4> pmevcntr_{}, pmevtyper_{};
  std::vector<uint8_t> shram_;
  std::vector<bool> read_only_;  // by register
  uint32_t irq_mask_ = 0;        // STATUS bits that raise the interrupt line

  struct Running {
    Stream stream;
    std::array<uint64_t, 8> basep{};
    uint64_t end = 0;  // instruction time at which it ends
    bool fetch_failed = false;  // the command stream's read was refused
  };
  std::optional<Running> running_;
  std::vector<NpuJob> jobs_;
  bool attention_ = false;
};

}  // namespace faultline::ethos_u
