// How a fault, an exception entry and the code around them are described in the report:
// the region and symbol an address falls in, why code is missing where the core runs,
// the road with the image's names.
#include "describe.h"

#include <fmt/core.h>

#include <algorithm>

#include "../arm/thumb.h"

namespace faultline::machine {

// The core's road with the image's names.
std::vector<RoadBlock> Named(const std::vector<arm::Core::RoadBlock>& blocks, const Image& image) {
  std::vector<RoadBlock> road;
  for (const arm::Core::RoadBlock& b : blocks) {
    road.push_back({b.address, b.instructions, image.symbols.Lookup(b.address),
                    b.entered != 0 ? arm::ExceptionName(b.entered) : "", b.returned});
  }
  return road;
}

Fault::StackedFrame ToReport(const arm::StackFrame& f) {
  return {f.r0, f.r1, f.r2, f.r3, f.r12, f.lr, f.pc, f.xpsr};
}

// Entering exception `n` (its vector at `vector_at`) faulted: which step, from the bits
// the entry set. The vector read first, since it is what a bad VTOR or a short table
// breaks, and it is the vector, not a priority, that the report must name.
Fault EntryFault(uint32_t n, uint32_t vector_at, const arm::Core::Taken& t) {
  Fault f;
  const std::string name = arm::ExceptionName(n);
  if (t.hfsr & arm::hfsr::kVecttbl) {
    f.kind = "HardFault";
    f.detail = fmt::format("the vector of {} (exception {}) could not be read at 0x{:08x} "
                           "(VTOR + 4 x {}): HFSR.VECTTBL",
                           name, n, vector_at, n);
    f.address = vector_at;
    f.access = AccessType::kRead;
    f.size = 4;
  } else if (t.cfsr & arm::cfsr::kMstkerr) {
    f.kind = "MemManage";
    f.detail = fmt::format("stacking the frame to enter {} failed (MSTKERR): the MPU does not let the "
                           "interrupted code write its stack there",
                           name);
  } else if (t.cfsr & arm::cfsr::kStkerr) {
    f.kind = "BusFault";
    f.detail = fmt::format("stacking the frame to enter {} failed (STKERR): the stack pointer is outside "
                           "writable memory",
                           name);
  } else {
    f.kind = "UsageFault";
    f.detail = fmt::format("the vector of {} at 0x{:08x} has no Thumb bit: INVSTATE at its handler's first "
                           "instruction",
                           name, vector_at);
  }
  return f;
}

// An MVE instruction on a Cortex-M55 board that faultline does not execute yet
// (arm/mve/decode.cc lists those it does). The fix is a scalar build of the object.
std::string MveUnsupported(std::span<const uint8_t> insn, const std::optional<SymbolRef>& sym) {
  std::optional<std::string> mnemonic = arm::MveMnemonic(insn);
  return fmt::format("MVE (Helium) instruction {}[{}]: faultline does not execute this MVE instruction yet; "
                     "build the object that contains {} with -mcpu=cortex-m55+nomve (or add +nomve to "
                     "-march) so GCC emits scalar code",
                     mnemonic ? *mnemonic + " " : "", arm::EncodingHex(insn),
                     sym ? sym->name : "this code");
}

// Why code at `at` (in memory holding its reset contents) was expected there: the image
// section that runs there from a load image elsewhere, which only a copy at startup puts
// in place; "" when no section covers it.
std::string CopiedThereOnly(const MemoryMap& map, const Image& image, uint64_t at) {
  for (const Segment& seg : image.segments) {
    if (seg.load_address == seg.run_address) continue;
    for (const Section& sec : image.sections) {
      if (at < sec.address || at >= sec.address + sec.size || sec.nobits) continue;
      if (std::find(seg.sections.begin(), seg.sections.end(), sec.name) == seg.sections.end()) continue;
      const uint64_t load = seg.load_address + (sec.address - seg.run_address);
      const int r = map.Find(load);
      auto sym = image.symbols.Lookup(at);
      return fmt::format("{}'s code is only placed there by the copy table ({} runs at 0x{:08x}, its load "
                         "image is at 0x{:08x}{}), and no copy has put it there",
                         sym ? sym->name : sec.name, sec.name, sec.address, load,
                         r >= 0 ? " in " + map.regions()[size_t(r)].name : "");
    }
  }
  return "";
}

void FillLocation(const MemoryMap& map, const Image& image, uint64_t address, Fault& f) {
  int r = map.Find(address);
  if (r >= 0) {
    f.region = map.regions()[r].name;
  } else {
    auto [below, above] = map.Neighbours(address);
    if (below >= 0) f.region_below = map.regions()[below].name;
    if (above >= 0) f.region_above = map.regions()[above].name;
  }
  f.address_symbol = image.symbols.Lookup(address);
}

// A run that ends on its budget while the firmware keeps reading one register nobody
// declared (it reads 0 here) is, as a rule, a loop waiting for a ready bit. It counts as
// polling when that register was read at least kPollMinReads times and its latest read
// came within a few of its own read intervals of the stop: a bounded timeout loop that
// gave up earlier, or one that exits, does not qualify.
namespace {
constexpr uint64_t kPollMinReads = 16;
constexpr uint64_t kPollSlack = 64;  // instructions, for a loop whose reads come close together
}  // namespace

std::optional<Event> PollingEvent(const arm::Core& core, const MemoryMap& map, const Image& image) {
  const arm::Core::UnmodelledRead* latest = nullptr;
  uint64_t word = 0;
  for (const auto& [w, u] : core.unmodelled_reads()) {
    if (latest == nullptr || u.last_time > latest->last_time) {
      latest = &u;
      word = w;
    }
  }
  if (latest == nullptr || latest->count < kPollMinReads) return std::nullopt;
  const uint64_t since = core.time() - latest->last_time;
  if (since > std::max(4 * latest->gap, kPollSlack)) return std::nullopt;
  const Peripheral& per = map.peripherals()[latest->peripheral];
  const uint64_t offset = word - per.base;
  const std::string what =
      per.unimplemented
          ? fmt::format("0x{:08x} in {} (offset 0x{:x}), an unimplemented window", word, per.name, offset)
          : fmt::format("0x{:08x}, {} offset 0x{:x}, a register {} does not declare", word, per.name, offset,
                        per.name);
  Event e;
  e.kind = "unmodelled-register-poll";
  e.where = fmt::format("{}@0x{:08x}", per.name, word);
  e.first_address = word;
  e.first_pc = latest->pc;
  e.first_pc_symbol = image.symbols.Lookup(latest->pc);
  e.pc_precise = latest->pc_precise;
  e.count = latest->count;
  e.message = fmt::format(
      "the run ended while the firmware was polling {}: it reads 0 here, so a loop waiting for a bit "
      "there never ends (read {} times, the last {} instructions before the stop). Fix: declare the "
      "register in the board file with its fields and a ready rule, `rules: [{{field: RDY, reads: 1, "
      "when: \"...\"}}]` (docs/boards.md, \"A loop polling a register nobody declared\"); or correct "
      "the address the firmware polls",
      what, latest->count, since);
  return e;
}

}  // namespace faultline::machine
