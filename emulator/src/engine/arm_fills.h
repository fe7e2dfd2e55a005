// What the engine asks the running Arm core when a TLB fill needs the core's MPU model
// (engine/unicorn_xip.cc): an instruction fetch the default memory map made execute-never,
// and the unprivileged loads and stores (LDRT/STRT) a privileged core makes. arm::Core
// implements it and names itself the running one while it runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace faultline::engine {

class ArmFills {
 public:
  virtual ~ArmFills() = default;
  // The board marks `addr`'s region executable and the firmware's MPU lets code run there.
  virtual bool ExecutesInPlace(uint64_t addr) const = 0;
  // The page protections are the privileged view of the MPU (the core runs privileged).
  virtual bool PrivilegedView() const = 0;
  // The MPU's unprivileged view refuses this access; the core keeps the MemManage stop.
  virtual bool RefusesUnprivileged(uint64_t addr, bool write) = 0;
  // A cache is enabled (arm/dcache.h, arm/icache.h): every data fill is told to DataFill,
  // which says whether the page is to be filled without write permission (its first
  // store is still to be seen) or for one access only (a line there is stale).
  struct DataFillAnswer {
    bool read_only = false;
    bool per_access = false;
  };
  virtual bool AsksDataFills() const = 0;
  virtual DataFillAnswer DataFill(uint64_t addr, bool store) = 0;
  // The engine translated the code at [pc, pc + size) (store_path.cc, tb_gen_code). Returns
  // in `aliases` the other addresses the same bytes show at (a region's aliases), whose
  // stores must invalidate the code too; the count.
  static constexpr size_t kMaxAliases = 4;
  virtual size_t CodeTranslated(uint64_t pc, uint64_t size, std::array<uint32_t, kMaxAliases>& aliases) = 0;
};

// The Arm core running on this thread, or null; returns the previous one.
ArmFills* SetRunningArmFills(ArmFills* fills);
ArmFills* RunningArmFills();

}  // namespace faultline::engine
