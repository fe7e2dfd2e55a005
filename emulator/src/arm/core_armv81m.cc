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
// execute-only, within a B.W's reach (+-16 MiB) of their sites. The block hook skips
// them: they add no instructions to the count (the site's branch counts as the
// instruction it replaced) and an exception is never taken inside one. Loop copies
// (RelocateLoop) are the exception: they are counted by weights, and a stop inside one
// is moved to the same instruction in the firmware's code (OriginalPc). A loop's DLS
// branches into its copy too (counted there, as the copy's first instruction), so a
// loop costs two jumps between pages, not one per iteration.
#include "armv81m.h"
#include "core.h"
#include "thumb.h"

#include <unicorn/unicorn.h>

#include <algorithm>
#include <memory>
#include <cstring>
#include <stdexcept>

namespace faultline::arm {

namespace {

constexpr uint32_t kPage = 1024;  // Unicorn's M-profile target page (unicorn.md §3)

bool Overlaps(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

}  // namespace

bool Core::PageIsFree(uint64_t page) const {
  if (DefaultMapExecuteNever(page, kTrampolineChunk)) return false;
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

uint32_t Core::AllocateTrampoline(uint32_t site, uint32_t size, bool counted, uint32_t partner) {
  size = (size + 3) & ~3u;
  // B.W reaches both ways between the code at [at, at + size) and `site` (and `partner`,
  // the other half of a relocated loop).
  auto reaches = [&](uint64_t at) {
    for (uint32_t other : {site, partner != 0 ? partner : site}) {
      if (!v81m::BranchReaches(other, uint32_t(at)) || !v81m::BranchReaches(uint32_t(at + size), other)) return false;
    }
    return true;
  };
  // A loop copy stays inside one 1 KiB Unicorn page: its branch back must not cross one.
  auto place = [&](const TrampolinePage& t) {
    uint32_t at = t.used;
    if (counted && at / kPage != (at + size - 1) / kPage) at = (at / kPage + 1) * kPage;
    return at;
  };
  for (TrampolinePage& t : trampolines_) {
    const uint32_t at = place(t);
    if (t.counted == counted && at + size <= kTrampolineChunk && reaches(t.base + at)) {
      t.used = at + size;
      return t.base + at;
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
      if (base < lo || base > hi || !reaches(uint64_t(base)) || !PageIsFree(uint64_t(base))) continue;
      TrampolinePage t;
      t.base = uint32_t(base);
      t.host = std::make_unique<uint8_t[]>(kTrampolineChunk);
      std::memset(t.host.get(), 0, kTrampolineChunk);
      t.counted = counted;
      if (counted) t.weights.assign(kTrampolineChunk / 2, 0);
      Check(uc_mem_map_ptr(uc_, t.base, kTrampolineChunk, UC_PROT_EXEC, t.host.get()), "uc_mem_map_ptr");
      t.used = size;
      trampolines_.push_back(std::move(t));
      return trampolines_.back().base;
    }
  }
  return 0;
}

Core::TrampolinePage* Core::PageOf(uint64_t address) {
  for (TrampolinePage& t : trampolines_) {
    if (address >= t.base && address < t.base + kTrampolineChunk) return &t;
  }
  return nullptr;
}

const Core::TrampolinePage* Core::PageOf(uint64_t address) const {
  return const_cast<Core*>(this)->PageOf(address);
}

// QEMU chains a block to the next only within a page (use_goto_tb); a direct branch to
// another page calls helper_lookup_tb_ptr and cpu_get_tb_cpu_state each time it runs
// (about 110 host instructions), so that the new page is found, and its permission
// checked, through the TLB. A relocated loop pays two per run, the DLS site's jump into
// the copy and the copy's jump back, and a select trampoline two per execution: 1.15M on
// the M55 build of tinynet x12 (docs/performance.md). Those branches are faultline's
// own, between a trampoline and the code it stands in for, so they are chained (the
// replacement of tcg_gen_lookup_and_goto_ptr_arm in core_block_count.cc): the page a
// loop's copy jumps back to is the page its DLS ran from. A rewrite of either end
// invalidates its blocks, which unlinks the jump (tb_jmp_unlink); the permission to
// execute is checked when the jump is linked, not each time it runs, as for the chains
// QEMU makes within a page. FAULTLINE_TRAMPOLINE_CHAIN=off leaves them to the lookup.
bool Core::ChainsDirectly(uint32_t from, uint32_t to) const {
  return PageOf(from) != nullptr || PageOf(to) != nullptr;
}

uint32_t Core::OriginalPc(uint32_t pc) const {
  if (const auto w = wlstp_sites_.find(pc); w != wlstp_sites_.end()) return w->second;
  for (const RelocatedLoop& l : loops_) {
    if (pc >= l.copy && pc < l.copy + l.size) return l.first + (pc - l.copy);  // same code, same offsets
    if (pc >= l.copy + l.size && pc < l.exit) return l.site;  // the LE test: the LE itself
    if (pc == l.exit) return l.site + 4;  // the LE has completed: on to the next instruction
  }
  return pc;
}

// A WLSTP with no count skips its loop, as an FP instruction would that does nothing: it
// takes NOCP if CP10 denies the privilege it runs at, and (QEMU 7.2 trans_WLS checks
// fp_excp_el by hand) neither preserves a lazy FP context nor makes a new one. The
// translator decides CP10 per block, as for every FP instruction (core_traps.cc), so
// where the block's privilege has CP10 the zero path of a translated WLSTP is shown as
// the branch to the loop's end; elsewhere it stays a WLSTP, which the host runs and
// faults. Loops entered thousands of times with nothing to copy (CMSIS-NN's padding
// fills) then never leave the engine.
std::optional<std::array<uint8_t, 4>> Core::WlstpSkip(uint32_t addr, uint16_t hw1) const {
  const TrampolinePage* page = (hw1 & 0xFFC0) == 0xF000 ? PageOf(addr) : nullptr;
  const auto w = page != nullptr ? wlstp_sites_.find(addr) : wlstp_sites_.end();
  if (w == wlstp_sites_.end() || addr + 4 > page->base + kTrampolineChunk) return std::nullopt;
  const uint8_t* bytes = page->host.get() + (addr - page->base);
  const std::optional<v81m::Insn> here = v81m::Decode(std::vector<uint8_t>(bytes, bytes + 4), addr);
  const std::optional<v81m::Insn> site = v81m::Decode(InstructionAt(w->second), w->second);
  if (!here || here->op != v81m::Op::kWlstp || !site || !TranslatedWithCp10()) return std::nullopt;
  return v81m::Translate(v81m::Insn{.op = v81m::Op::kLeForever, .target = site->target}, addr, 0)->site;
}

// An LE loop whose flags are free around it runs from a copy of its body, followed by a
// flag-setting LE test (armv81m.h, RelocateLoop). Not while a host breakpoint, a trace
// or strict mode watches addresses in the firmware's own code.
bool Core::RelocateLoop(uint32_t site, uint32_t start, uint32_t step) {
  if (tracing_ || start >= site) return false;
  // Made before, and stopped by LoopEndsStop: the copy runs its own test again.
  for (RelocatedLoop& l : loops_) {
    if (l.site != site || !l.stops) continue;
    SetLoopTest(l, false);
    v81m::Insn b{.op = v81m::Op::kLeForever, .target = l.entry};  // B.W to the entry
    PatchSite(site, v81m::Translate(b, site, 0)->site);
    ++armv81_stats_.sites_translated;
    return true;
  }
  v81m::Fetch fetch = [this](uint32_t a) { return InstructionAt(a); };
  if (!v81m::RelocatableBody(start, site, fetch) || !v81m::FlagsDeadAt(site + 4, fetch)) return false;
  // The loop's DLS, already rewritten in place (it ran before this first LE), if
  // straight-line code that can move leads from it to the loop: the copy takes it too.
  uint32_t dls = 0;
  for (auto p = patches_.lower_bound(start - v81m::kMaxLoopLead); p != patches_.end() && p->first < start; ++p) {
    auto insn = v81m::Decode(p->second.original, p->first);
    if (!insn || insn->op != v81m::Op::kDls) continue;
    if (p->first + 4 == start || v81m::RelocatableBody(p->first + 4, start, fetch)) dls = p->first;
  }
  const uint32_t first = dls != 0 ? dls : start;
  for (const auto& b : host_breaks_) {
    if (b->address >= first && b->address <= site) return false;
  }
  std::vector<uint8_t> code(site - first);
  map_.Read(first, code);  // as it is in memory (in-place translations included)

  const uint32_t block = AllocateTrampoline(site, uint32_t(code.size()) + v81m::kLoopTail, /*counted=*/true);
  const uint32_t entry = block ? AllocateTrampoline(site, v81m::kLoopEntry, false, block) : 0;
  if (entry == 0 || (dls != 0 && !v81m::BranchReaches(dls, block))) return false;
  const uint32_t lead = start - first;
  const uint32_t copy = block + lead;
  v81m::LoopCopy c = v81m::RelocateLoop(code, lead, site, entry, copy, step);
  TrampolinePage& ep = *PageOf(entry);
  std::memcpy(ep.host.get() + (entry - ep.base), c.entry.data(), c.entry.size());
  TrampolinePage& cp = *PageOf(block);
  std::memcpy(cp.host.get() + (block - cp.base), c.loop.data(), c.loop.size());
  std::copy(c.weights.begin(), c.weights.end(), cp.weights.begin() + (block - cp.base) / 2);
  InvalidateCode(entry, entry + c.entry.size());
  InvalidateCode(block, block + c.loop.size());
  RelocatedLoop made{.copy = block, .size = uint32_t(code.size()), .exit = block + c.exit_offset,
                     .first = first, .site = site, .dls = dls, .entry = entry};
  std::copy_n(c.loop.begin() + code.size(), 4, made.test.begin());
  loops_.push_back(made);

  // The LE site branches to the entry (its first iteration ran in place); the DLS site
  // straight to the copy's lead.
  auto branch = [&](uint32_t from, uint32_t to) {
    v81m::Insn b{.op = v81m::Op::kLeForever, .target = to};  // B.W to
    PatchSite(from, v81m::Translate(b, from, 0)->site);
  };
  branch(site, entry);
  if (dls != 0) branch(dls, block);
  ++armv81_stats_.sites_translated;
  ++armv81_stats_.loops_relocated;
  return true;
}

// Sites in [address, address + size) that memory holds rewritten in place into two
// instructions that retire as one (v81m::IsInPlacePair); not one that code loaded since
// has replaced.
uint32_t Core::InPlacePairsIn(uint64_t address, uint32_t size) const {
  uint32_t n = 0;
  for (auto p = patches_.lower_bound(uint32_t(address)); p != patches_.end() && p->first + 4 <= address + size; ++p) {
    if (!v81m::IsInPlacePair(p->second.patched)) continue;
    std::array<uint8_t, 4> now;
    map_.Read(p->first, now);
    n += now == p->second.patched;
  }
  return n;
}

// What a tail-predicated loop's LETP subtracts from LR each iteration, when it can be
// fixed in a relocated copy: the loop is the MVE unit's (it runs DLSTP and the exit's
// LCTP) and was started by a DLSTP or WLSTP whose element size LTPSIZE still holds: the
// one right before the loop, as CMSIS writes them, or the last one run when setup code
// stands between it and the loop (GCC's software-pipelined loops: WLSTP, the first
// loads, then the loop; the WLSTP's branch goes past the LETP). 0: leave the LETP to the
// host.
uint32_t Core::LetpStep(uint32_t site, uint32_t start) const {
  if (mve_ == nullptr || ltpsize_ >= 4 || start < 4) return 0;
  const auto starts_loop = [&](uint32_t at) {
    const std::optional<v81m::Insn> begin = v81m::Decode(InstructionAt(at), at);
    if (!begin || begin->size != ltpsize_) return false;
    if (begin->op == v81m::Op::kDlstp) return at + 4 == start;
    return begin->op == v81m::Op::kWlstp && (at + 4 == start || begin->target == site + 4);
  };
  const uint32_t last = loop_started_at_;
  const bool started = starts_loop(start - 4) ||
                       (ltpsize_ == loop_ltpsize_ && last < start && start - last <= v81m::kMaxLoopLead && starts_loop(last));
  return started ? 1u << (4 - ltpsize_) : 0;
}

// Rewrites the 4 bytes at `at`, keeping the firmware's own for reports (InstructionAt)
// however often the site is rewritten; a site trapped by a code hook stops no more.
void Core::PatchSite(uint32_t at, const std::array<uint8_t, 4>& bytes) {
  std::array<uint8_t, 4> original;
  map_.Read(at, original);
  armv81_stats_.sites_rewritten += patches_.count(at) == 0;
  Patch& p = patches_[at];
  // Still our earlier rewrite: the firmware's bytes are the recorded ones. Otherwise
  // (a first rewrite, or code loaded over an old one) they are what memory holds.
  if (original != p.patched) p.original = original;
  p.patched = bytes;
  WriteCode(at, bytes);
  if (auto h = host_sites_.find(at); h != host_sites_.end()) {
    Check(uc_hook_del(uc_, h->second), "uc_hook_del");
    host_sites_.erase(h);
  }
  InvalidateCode(at, at + 4);
}

bool Core::HandleArmv81(uint32_t pc) {
  if (cpu_ != Cpu::kCortexM55) return false;
  // A translated WLSTP with no count: its trampoline's zero path runs the site's WLSTP
  // here, the instruction already counted at the site.
  bool counted = false;
  if (const auto w = wlstp_sites_.find(pc); w != wlstp_sites_.end()) {
    pc = w->second;
    Write(Reg::kPc, pc | 1u);
    counted = true;
  }
  auto bytes = InstructionAt(pc);
  auto insn = v81m::Decode(bytes, pc);
  if (!insn) return false;
  // Inside an IT block these are UNPREDICTABLE and QEMU UNDEFs them: leave the stop.
  if (Read(Reg::kXpsr) & 0x0600FC00u) return false;
  const bool le = insn->op == v81m::Op::kLe || insn->op == v81m::Op::kLeForever;
  if (le && LtpsizeFaultsLe()) {
    stop_ = Stop{.kind = Stop::Kind::kTrap, .pc = pc, .imm = cfsr::kInvstate};
    return false;
  }

  // An LE is translated only while LTPSIZE is 4: its translation does not check it.
  if (armv81_mode_ == Armv81Mode::kTranslate && !(le && ltpsize_ != 4) && !counted) {
    if (insn->op == v81m::Op::kLe && RelocateLoop(pc, insn->target, 1)) return true;
    // An LE that LoopEndsStop gave back: its trampoline is still there.
    if (auto p = patches_.find(pc); le && p != patches_.end() && std::equal(bytes.begin(), bytes.end(), p->second.original.begin())) {
      PatchSite(pc, p->second.patched);
      ++armv81_stats_.sites_translated;
      return true;
    }
    if (insn->op == v81m::Op::kLetp) {
      if (const uint32_t step = LetpStep(pc, insn->target); step != 0 && RelocateLoop(pc, insn->target, step)) return true;
    }
    // Translate once to learn the trampoline's size, then again for its address.
    auto t = v81m::Translate(*insn, pc, pc);
    uint32_t tramp = 0;
    if (t && !t->trampoline.empty()) {
      tramp = AllocateTrampoline(pc, uint32_t(t->trampoline.size()));
      t = tramp != 0 ? v81m::Translate(*insn, pc, tramp) : std::nullopt;
    }
    if (t) {
      if (TrampolinePage* page = tramp != 0 ? PageOf(tramp) : nullptr) {
        std::memcpy(page->host.get() + (tramp - page->base), t->trampoline.data(), t->trampoline.size());
        InvalidateCode(tramp, tramp + t->trampoline.size());
        for (uint32_t offset : t->stands_for_site) wlstp_sites_[tramp + offset] = pc;
      }
      PatchSite(pc, t->site);
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
  // A WLSTP that starts its loop writes FPSCR.LTPSIZE: an FP instruction, which takes
  // NOCP with CP10 off whatever the count (QEMU 7.2 trans_WLS checks before the count),
  // and otherwise does the lazy preservation and makes a new context first, as a vector
  // instruction would (else the loop's first vector instruction would make it, and
  // reset the LTPSIZE the WLSTP set).
  if (insn->op == v81m::Op::kWlstp && mve_ != nullptr) {
    if (!Cp10Grants(Unprivileged())) {
      stop_ = Stop{.kind = Stop::Kind::kCoprocessor, .pc = pc};
      return false;
    }
    if (st.r[insn->rn] != 0) {
      if (!MveFpInstruction()) return true;  // its fault is taken first
      st.ltpsize = ltpsize_;
    }
  }
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
  if (insn->op == v81m::Op::kDlstp || insn->op == v81m::Op::kWlstp) {
    loop_ltpsize_ = ltpsize_;
    loop_started_at_ = OriginalPc(pc);
    if (next == pc + 4) TailPredicationStarts(pc, /*in_engine=*/false);
  }
  Write(Reg::kPc, next | 1u);
  if (!counted) SetThrough(Through() + 1);  // no block is current here (Run settled it)
  ++armv81_stats_.executed_by_host;
  ++armv81_stats_.host_by_op[int(insn->op)];
  return true;
}

// DDI 0553B LE: with MVE, an LE (not LETP) while LTPSIZE() is not 4 is an INVSTATE
// UsageFault at the LE. LTPSIZE() reads 4 while no FP context is active: CP10 denied to
// the current privilege, lazy preservation pending (FPCCR.LSPACT), or a new context due
// (FPCCR.ASPEN with CONTROL.FPCA clear). QEMU 7.2 trans_LE checks the same (fp_excp_el,
// v7m_lspact, v7m_new_fp_ctxt_needed).
bool Core::LtpsizeFaultsLe() const {
  if (mve_ == nullptr || ltpsize_ == 4) return false;
  if (!Cp10Grants(Unprivileged())) return false;
  const uint32_t f = scs_.fpccr();
  if (f & fpccr::kLspact) return false;
  return !(f & fpccr::kAspen) || (Read(Reg::kControl) & 4u) || MveFpContext();
}

// LTPSIZE was written other than by a loop start: by VMSR FPSCR (`in_engine`, from the
// MVE unit) or by an exception return. If it is not 4 and not the LTPSIZE of the
// tail-predicated loop that last started (an interrupted loop's own), every translated
// LE is made to stop again so that the host checks it (LtpsizeFaultsLe) until LTPSIZE is
// 4 again: at once after a return, at the next block boundary from inside the engine.
void Core::LtpsizeWritten(bool in_engine) {
  if (ltpsize_ == 4 || ltpsize_ == loop_ltpsize_) return;
  if (!in_engine) return LoopEndsStop();
  loop_ends_to_stop_ = true;
  next_event_ = 0;
  SetCheckAt(0);
}

// An LE in code a tail-predicated loop calls (which no compiler emits: silicon faults)
// runs while the DLSTP/WLSTP's LTPSIZE holds, and is INVSTATE as on QEMU only if its
// site stops: translated before, while LTPSIZE was 4, it would not. So a loop whose body
// calls out makes every LE site stop again (from inside the engine, at the next block
// boundary: before the code it calls runs); they are translated again once LTPSIZE is 4.
// A loop that calls nothing, as compilers and CMSIS write them, costs nothing here.
void Core::TailPredicationStarts(uint32_t at, bool in_engine) {
  if (ltpsize_ == 4 || !TpLoopCalls(at)) return;
  if (!in_engine) return LoopEndsStop();
  loop_ends_to_stop_ = true;
  next_event_ = 0;
  SetCheckAt(0);
}

// Whether the code after the DLSTP/WLSTP at `at` has a BL or BLX (register) before the
// LETP that closes it (found within 4 KiB; if not, assumed to call).
bool Core::TpLoopCalls(uint32_t at) {
  if (auto known = tp_loop_calls_.find(at); known != tp_loop_calls_.end()) return known->second;
  constexpr uint32_t kScan = 4096;
  const uint32_t start = OriginalPc(at) + 4;  // a relocated loop's copy reads as the firmware's code
  bool calls = true;
  for (uint32_t pc = start; pc < start + kScan;) {
    const std::vector<uint8_t> bytes = InstructionAt(pc);
    if (bytes.size() < 2) break;
    const uint16_t hw1 = uint16_t(bytes[0] | bytes[1] << 8);
    if (bytes.size() == 2) {
      if ((hw1 & 0xFF87) == 0x4780) break;  // BLX Rm
      pc += 2;
      continue;
    }
    const std::optional<v81m::Insn> insn = v81m::Decode(bytes, pc);
    // The LETP that closes it: its loop starts after the DLSTP/WLSTP (right after it, or
    // after setup code, as GCC's pipelined loops do).
    if (insn && insn->op == v81m::Op::kLetp && insn->target >= start && insn->target <= pc) {
      calls = false;
      break;
    }
    // BL (LE and LETP share BLX's encoding space, which M-profile leaves to them).
    const uint16_t hw2 = uint16_t(bytes[2] | bytes[3] << 8);
    if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0xD000) break;
    pc += 4;
  }
  tp_loop_calls_[at] = calls;
  return calls;
}

// The LE sites rewritten in place or to a trampoline get the firmware's LE back; a
// relocated loop's copy branches from its test to the LE site, which then stops (the
// copy's first test instruction stands for the LE in the count: it counts nothing now).
// Each is translated again when it next stops with LTPSIZE 4 (the copy reused).
void Core::LoopEndsStop() {
  loop_ends_to_stop_ = false;
  ++armv81_stats_.loop_end_stops;
  for (auto& [at, p] : patches_) {
    const std::optional<v81m::Insn> insn = v81m::Decode(p.original, at);
    if (!insn || (insn->op != v81m::Op::kLe && insn->op != v81m::Op::kLeForever)) continue;
    std::array<uint8_t, 4> now;
    map_.Read(at, now);
    if (now != p.patched) continue;  // not ours any more (code loaded over it)
    WriteCode(at, p.original);
    InvalidateCode(at, at + 4);
  }
  for (RelocatedLoop& l : loops_) {
    const std::optional<v81m::Insn> insn = v81m::Decode(InstructionAt(l.site), l.site);
    if (!l.stops && insn && insn->op == v81m::Op::kLe) SetLoopTest(l, true);
  }
}

// The copy's LE test: its own (CMP.W ...), or a B.W to the LE site.
void Core::SetLoopTest(RelocatedLoop& l, bool stops) {
  const uint32_t test = l.copy + l.size;
  TrampolinePage& page = *PageOf(test);
  std::array<uint8_t, 4> bytes = l.test;
  if (stops) bytes = v81m::Translate(v81m::Insn{.op = v81m::Op::kLeForever, .target = l.site}, test, 0)->site;
  std::memcpy(page.host.get() + (test - page.base), bytes.data(), 4);
  page.weights[(test - page.base) / 2] = stops ? 0 : 1;
  l.stops = stops;
  InvalidateCode(test, test + 4);
}

}  // namespace faultline::arm
