// Armv8.1-M scalar instructions on Unicorn's Armv8-M mainline model (issue 8).
//
// Unicorn 2.0.1 has no Cortex-M55: its newest M-profile model is the M33, which
// raises "invalid instruction" on DLS/WLS/LE, CSEL and friends, CLRM, VSCCLRM and the
// branch-future hints (unicorn.md §1). Taking that stop on every execution costs a
// return from uc_emu_start and a restart: a loop closed by LE pays it every iteration.
// So on first execution the site is rewritten into Armv8-M code that does the same
// (armv81m.cc) and the engine continues; later executions never leave the engine.
//
// Trampolines live on pages no board region, peripheral or system space uses, mapped
// execute-only, within a B.W's reach (+-16 MiB) of their sites. The block hook does
// not cover them: they add no instructions to the count (the site's branch counts as
// the instruction it replaced) and an exception is never taken inside one.
#include "armv81m.h"
#include "core.h"
#include "thumb.h"

#include <unicorn/unicorn.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace faultline::cpu {

namespace {

// The default memory map's execute-never space (Armv8-M ARM §B8.1): Peripheral
// 0x40000000-0x5FFFFFFF, Device and System from 0xA0000000.
bool ExecuteNever(uint64_t a) { return (a >= 0x40000000 && a < 0x60000000) || a >= 0xA0000000; }

bool Overlaps(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

}  // namespace

bool Core::PageIsFree(uint64_t page) const {
  if (ExecuteNever(page) || ExecuteNever(page + kTrampolineChunk - 1)) return false;
  for (const Region& r : map_.regions()) {
    if (Overlaps(page, kTrampolineChunk, r.base, r.size)) return false;
  }
  for (const Peripheral& p : map_.peripherals()) {
    if (Overlaps(page, kTrampolineChunk, p.base, p.size)) return false;
  }
  for (const TrampolinePage& t : trampolines_) {
    if (Overlaps(page, kTrampolineChunk, t.base, kTrampolineChunk)) return false;
  }
  uc_mem_region* regions = nullptr;
  uint32_t n = 0;
  Check(uc_mem_regions(uc_, &regions, &n), "uc_mem_regions");
  bool free = true;
  for (uint32_t i = 0; i < n && free; ++i) {
    free = !Overlaps(page, kTrampolineChunk, regions[i].begin, regions[i].end - regions[i].begin + 1);
  }
  uc_free(regions);
  return free;
}

uint32_t Core::AllocateTrampoline(uint32_t site, uint32_t size) {
  for (TrampolinePage& t : trampolines_) {
    if (t.used + size <= kTrampolineChunk && v81m::BranchReaches(site, t.base + t.used) &&
        v81m::BranchReaches(t.base + t.used + size, site)) {
      uint32_t at = t.base + t.used;
      t.used += (size + 3) & ~3u;
      return at;
    }
  }
  // A new chunk: the free one furthest from the site within reach, so that it sits away
  // from the regions the firmware uses (a stray access there should still fault).
  const int64_t reach = (int64_t(1) << 24) - 2 * kTrampolineChunk;
  const int64_t lo = std::max<int64_t>(0, (int64_t(site) - reach) & ~int64_t(kTrampolineChunk - 1));
  const int64_t hi = std::min<int64_t>(0xFFFFFFFFll - kTrampolineChunk, int64_t(site) + reach) &
                     ~int64_t(kTrampolineChunk - 1);
  for (int64_t d = std::max(hi - int64_t(site), int64_t(site) - lo); d >= 0; d -= kTrampolineChunk) {
    for (int64_t base : {int64_t(site) + d, int64_t(site) - d}) {
      base &= ~int64_t(kTrampolineChunk - 1);
      if (base < lo || base > hi || !PageIsFree(uint64_t(base))) continue;
      TrampolinePage t;
      t.base = uint32_t(base);
      t.host = std::make_unique<uint8_t[]>(kTrampolineChunk);
      std::memset(t.host.get(), 0, kTrampolineChunk);
      Check(uc_mem_map_ptr(uc_, t.base, kTrampolineChunk, UC_PROT_EXEC, t.host.get()), "uc_mem_map_ptr");
      t.used = (size + 3) & ~3u;
      trampolines_.push_back(std::move(t));
      InstallBlockHooks();
      return trampolines_.back().base;
    }
  }
  return 0;
}

bool Core::HandleArmv81(uint32_t pc) {
  if (cpu_ != Cpu::kCortexM55) return false;
  auto bytes = InstructionAt(pc);
  auto insn = v81m::Decode(bytes, pc);
  if (!insn) return false;
  // Inside an IT block these are UNPREDICTABLE and QEMU UNDEFs them: leave the stop.
  if (Read(Reg::kXpsr) & 0x0600FC00u) return false;

  if (armv81_mode_ == Armv81Mode::kTranslate) {
    // Translate once to learn the trampoline's size, then again for its address.
    auto t = v81m::Translate(*insn, pc, pc);
    uint32_t tramp = 0;
    if (t && !t->trampoline.empty()) {
      tramp = AllocateTrampoline(pc, uint32_t(t->trampoline.size()));
      t = tramp != 0 ? v81m::Translate(*insn, pc, tramp) : std::nullopt;
    }
    if (t) {
      for (TrampolinePage& page : trampolines_) {
        if (tramp >= page.base && tramp < page.base + kTrampolineChunk) {
          std::memcpy(page.host.get() + (tramp - page.base), t->trampoline.data(), t->trampoline.size());
          InvalidateCode(tramp, tramp + t->trampoline.size());
        }
      }
      Patch p;
      std::copy_n(bytes.begin(), 4, p.original.begin());
      p.patched = t->site;
      map_.Write(pc, t->site);
      patches_[pc] = p;
      InvalidateCode(pc, pc + 4);
      ++armv81_stats_.sites_translated;
      return true;  // the engine restarts at pc, on the translated code
    }
  }

  // The host executes it: read the state it uses, run it, write it back.
  v81m::State st;
  for (int i = 0; i < 13; ++i) uc_reg_read(uc_, UC_ARM_REG_R0 + i, &st.r[i]);
  uc_reg_read(uc_, UC_ARM_REG_SP, &st.r[13]);
  uc_reg_read(uc_, UC_ARM_REG_LR, &st.r[14]);
  st.r[15] = pc;
  st.apsr = Read(Reg::kApsr);
  st.ltpsize = ltpsize_;
  if (insn->op == v81m::Op::kVscclrm) {
    for (uint32_t s = insn->first; s < insn->first + insn->count; ++s) {
      uint64_t v = 0;
      uc_reg_read(uc_, UC_ARM_REG_S0 + int(s), &v);
      st.s[s] = uint32_t(v);
    }
  }
  const v81m::State before = st;
  uint32_t next = v81m::Execute(*insn, st);
  for (int i = 0; i < 15; ++i) {
    if (st.r[i] != before.r[i]) WriteGeneral(i, st.r[i]);
  }
  if (st.apsr != before.apsr) Write(Reg::kApsr, st.apsr);
  for (uint32_t s = 0; s < 32; ++s) {
    if (st.s[s] != before.s[s]) {
      uint64_t v = st.s[s];
      Check(uc_reg_write(uc_, UC_ARM_REG_S0 + int(s), &v), "uc_reg_write(S)");
    }
  }
  ltpsize_ = st.ltpsize;
  Write(Reg::kPc, next | 1u);
  ++retired_;
  ++armv81_stats_.executed_by_host;
  return true;
}

}  // namespace faultline::cpu
