// MVE contiguous loads and stores emitted as TCG ops instead of the MVE unit's call
// (core_mve_ops.cc decides which; docs/performance.md has what they bought): the page
// the span lies in found in the MVE unit's direct-mapped tables, then the bytes moved
// under the predicate, or the call where the page is not known.
#include <cstddef>

#include "../engine/unicorn_interpose.h"
#include "mve_ops_tcg.h"

namespace faultline::arm::mve_ops {

namespace {

// The lanes of a widening load (VLDRB.S16/U16/S32/U32, VLDRH.S32/U32: Transfer with
// msize below size) from host pointer `at` as two 64-bit halves, each memory element
// sign- or zero-extended into its lane; the inactive lanes' bytes read 0, as Halves.
void WideningHalves(const Ops& o, const arm::mve::Insn& insn, uintptr_t at, uintptr_t mask, uintptr_t half[2]) {
  // ld8u_i32 ... ld16s_i32 (QEMU 5.0 tcg-opc.h): unsigned then signed, by memory size.
  constexpr int kOpLd8uI32 = 0x9;
  const int load = kOpLd8uI32 + 2 * int(insn.msize) + (insn.u ? 0 : 1);
  const unsigned esize = 1u << insn.msize;
  const uintptr_t word[2] = {o.New(kTypeI32), o.New(kTypeI32)}, e = o.New(kTypeI32);
  for (unsigned h = 0; h < 2; ++h) {
    half[h] = o.New(kTypeI64);
    for (unsigned w = 0; w < 2; ++w) {  // the half's two 32-bit words, low first
      if (insn.size == 2) {  // one 32-bit lane a word
        o.Op(load, word[w], at, int32_t(esize * (2 * h + w)));
      } else {  // two 16-bit lanes a word (bytes: VLDRB.S16/U16)
        o.Op(load, word[w], at, int32_t(4 * h + 2 * w));
        o.Op(load, e, at, int32_t(4 * h + 2 * w + 1));
        tcg_gen_deposit_i32_arm(o.s, o.V(word[w]), o.V(word[w]), o.V(e), 16, 16);
      }
    }
    tcg_gen_concat_i32_i64_arm(o.s, o.V(half[h]), o.V(word[0]), o.V(word[1]));
  }
  for (uintptr_t temp : {word[0], word[1], e}) o.Free(temp);
  MaskHalves(o, mask, insn.size, half);
}



// QEMU 5.0 TCGLabel: `present` is bit 0 of its first word, `refs` its upper half (what
// gen_set_label and tcg_gen_br set; a label nothing refers to is removed).
void Branch(const Ops& o, TCGLabel* l) {
  ++*reinterpret_cast<uint16_t*>(reinterpret_cast<uint8_t*>(l) + 2);
  tcg_gen_op1_arm(o.s, kOpBr, reinterpret_cast<uintptr_t>(l));
}
void SetLabel(const Ops& o, TCGLabel* l) {
  *reinterpret_cast<uint8_t*>(l) |= 1;
  tcg_gen_op1_arm(o.s, kOpSetLabel, reinterpret_cast<uintptr_t>(l));
}

// `to` = Rn plus or minus the offset (the offset address), or Rn (post-indexed).
void TransferAddress(const Ops& o, const arm::mve::Insn& insn, uintptr_t to, uintptr_t rn, bool offset) {
  tcg_gen_addi_i32_arm(o.s, o.V(to), o.V(rn), offset || insn.pre ? (insn.add ? insn.imm : -insn.imm) : 0);
}

using CallN = void (*)(TCGContext*, void*, TCGTemp*, int, TCGTemp**);
using ConstI32 = intptr_t (*)(TCGContext*, int32_t);

// A store's active elements of Qd written to host pointer `host` (HostTransfer): the
// memory bytes merged with Qd's under the lanes' byte masks (`mask` widened to elements
// by MaskHalves). A narrowing store (VSTRB.16/32, VSTRH.32) first gathers each lane's low
// bytes, and its masks' likewise, through the MVE unit's scratch vector: 4 or 8 bytes.
void StoreActive(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t host, uintptr_t q,
                 uintptr_t mask) {
  uintptr_t bytes[2] = {o.Const64(-1), o.Const64(-1)};
  MaskHalves(o, mask, insn.size, bytes);
  const uintptr_t data = o.New(kTypeI64), old = o.New(kTypeI64);
  // Memory's bytes where the mask is clear, Qd's where it is set: old ^ ((data ^ old) & m).
  const auto merge = [&](uintptr_t m) {
    o.Op(kOpXorI64, data, data, old);
    o.Op(kOpAndI64, data, data, m);
    o.Op(kOpXorI64, data, data, old);
  };
  if (insn.msize == insn.size) {
    for (unsigned h = 0; h < 2; ++h) {
      o.Op(kOpLdI64, data, q, int32_t(16 * insn.qd + 8 * h));
      o.Op(kOpLdI64, old, host, int32_t(8 * h));
      merge(bytes[h]);
      o.Op(kOpStI64, data, host, int32_t(8 * h));
    }
  } else {
    // ld8u_i64, ld16u_i64 (by memory size), ld32u_i64 and st32_i64 (QEMU 5.0 tcg-opc.h).
    constexpr int kOpLd8uI64 = 0x43, kOpLd32uI64 = 0x47, kOpSt32I64 = 0x4c;
    const int load = kOpLd8uI64 + 2 * int(insn.msize);
    const uintptr_t scratch = o.Pointer(t.scratch), m = o.New(kTypeI64), x = o.New(kTypeI64);
    o.Op(kOpStI64, bytes[0], scratch, 0);
    o.Op(kOpStI64, bytes[1], scratch, 8);
    const unsigned n = 16u >> insn.size, width = 8u << insn.msize;
    struct Gather {
      uintptr_t to, from;
      uint32_t at;
    };
    for (const Gather& g : {Gather{data, q, 16u * insn.qd}, Gather{m, scratch, 0}}) {
      const auto& [to, from, at] = g;
      for (unsigned e = 0; e < n; ++e) {  // lane e's low bytes at memory element e
        o.Op(load, e == 0 ? to : x, from, int32_t(at + (e << insn.size)));
        if (e == 0) continue;
        tcg_gen_shli_i64_arm(o.s, o.V(x), o.V(x), e * width);
        o.Op(kOpOrI64, to, to, x);
      }
    }
    const bool word = n << insn.msize == 4;  // VSTRB.32: 4 bytes; VSTRB.16, VSTRH.32: 8
    o.Op(word ? kOpLd32uI64 : kOpLdI64, old, host, 0);
    merge(m);
    o.Op(word ? kOpSt32I64 : kOpStI64, data, host, 0);
    for (uintptr_t temp : {scratch, m, x}) o.Free(temp);
  }
  for (uintptr_t temp : {bytes[0], bytes[1], data, old}) o.Free(temp);
}

}  // namespace

// VLDRB/VLDRH/VLDRW and VSTRB/VSTRH/VSTRW Qd, [Rn, #imm]{!} (Transfer's contiguous
// transfer, HostTransfer): where the span lies in one of the pages the MVE unit's loads
// (or stores) were last answered for (EngineMemory::Host: plain memory, under the MMU
// index and protections it was found with; for a store, on a page no code came from
// while no cache model watches stores), the ops move the bytes there: a load zeroes the
// inactive elements and writes Qd, a store writes the active elements' bytes only.
// Anywhere else (another page, a span across two, MMIO, a page the MPU refuses) the
// translator's call runs the instruction as before, with its faults where QEMU takes
// them. The pages are those EngineMemory::Host would answer from, so the ops reach the
// bytes it would.
void Transfer(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t rn, uintptr_t lr,
              uintptr_t r0, TCGTemp* ret) {
  static const CallN call_n = engine::Unicorns<CallN>("tcg_gen_callN_arm");
  static const ConstI32 const_i32 = engine::Unicorns<ConstI32>("tcg_const_i32_arm");
  const bool store = !(insn.raw >> 20 & 1);
  // The bytes the span covers in memory (Contiguous's): a widening load's and a narrowing
  // store's elements are narrower than their lanes.
  const uint32_t span = (16u >> insn.size) << insn.msize;
  // The page's entry (the page number modulo the entries) gives the host bytes if it
  // holds the address's page and MMU index, its protections stand and the span ends in
  // the page; all three tested at once, one branch to the call. `host` is a local temp:
  // unlike the others it keeps its value past the branch.
  static_assert(sizeof(MveLoadPage) == 24 && offsetof(MveLoadPage, protections) == 8 &&
                offsetof(MveLoadPage, host) == 16);
  const uintptr_t host = reinterpret_cast<uintptr_t>(tcg_temp_new_internal_arm(o.s, kTypeI64, true));
  TCGLabel* slow = gen_new_label_arm(o.s);
  TCGLabel* done = gen_new_label_arm(o.s);
  {
    const uintptr_t address = o.New(kTypeI32), at = o.New(kTypeI64), key = o.New(kTypeI64),
                    entry = o.New(kTypeI64), x = o.New(kTypeI64), miss = o.New(kTypeI64),
                    changes_at = o.Pointer(t.loads.protections),
                    pages = o.Pointer(store ? t.loads.store_pages : t.loads.pages);
    TransferAddress(o, insn, address, rn, false);
    tcg_gen_extu_i32_i64_arm(o.s, o.V(at), o.V(address));
    // The key as MveLoadPage's first eight bytes hold it: page, then the MMU index.
    tcg_gen_shri_i64_arm(o.s, o.V(key), o.V(at), 10);
    tcg_gen_andi_i64_arm(o.s, o.V(entry), o.V(key), kMveLoadPages - 1);
    tcg_gen_ori_i64_arm(o.s, o.V(key), o.V(key), int64_t(uint64_t(uint32_t(t.loads.mmu_idx)) << 32));
    tcg_gen_shli_i64_arm(o.s, o.V(x), o.V(entry), 4);  // 24 bytes an entry: 16 + 8
    tcg_gen_shli_i64_arm(o.s, o.V(entry), o.V(entry), 3);
    o.Op(kOpAddI64, entry, entry, x);
    o.Op(kOpAddI64, entry, entry, pages);
    o.Op(kOpLdI64, miss, entry, 0);
    o.Op(kOpXorI64, miss, miss, key);
    o.Op(kOpLdI64, key, changes_at, 0);  // the protections the entry must have been made under
    if (store) {  // EngineMemory::StoreKey
      const uintptr_t marked_at = o.Pointer(t.loads.code_pages_marked);
      o.Op(kOpLdI64, x, marked_at, 0);
      o.Op(kOpAddI64, key, key, x);
      o.Free(marked_at);
    }
    o.Op(kOpLdI64, x, entry, 8);
    o.Op(kOpXorI64, x, x, key);
    o.Op(kOpOrI64, miss, miss, x);
    // A span past the page's end reaches two: the call.
    tcg_gen_andi_i64_arm(o.s, o.V(at), o.V(at), 0x3FF);
    tcg_gen_addi_i64_arm(o.s, o.V(x), o.V(at), span - 1);
    tcg_gen_shri_i64_arm(o.s, o.V(x), o.V(x), 10);
    o.Op(kOpOrI64, miss, miss, x);
    o.Op(kOpLdI64, host, entry, 16);
    o.Op(kOpAddI64, host, host, at);
    tcg_gen_brcondi_i64_arm(o.s, kCondNe, o.V(miss), 0, slow);
    for (uintptr_t temp : {address, at, key, entry, x, miss, changes_at, pages}) o.Free(temp);
  }
  {
    // The fast path: every temp is new after the branch.
    const uintptr_t vpr_at = o.Pointer(t.vpr), v = o.New(kTypeI32), mask = o.New(kTypeI32), q = o.Pointer(t.q);
    o.Op(kOpLdI32, v, vpr_at, 0);
    const uintptr_t step = ElementMask(o, t, mask, v, lr);
    if (store) {
      StoreActive(o, insn, t, host, q, mask);
    } else {
      uintptr_t half[2];
      if (insn.msize < insn.size) {
        WideningHalves(o, insn, host, mask, half);
      } else {
        Halves(o, host, mask, insn.size, half);  // a load writes every lane, zero where inactive
      }
      o.Op(kOpStI64, half[0], q, 16 * insn.qd);
      o.Op(kOpStI64, half[1], q, 16 * insn.qd + 8);
      o.Free(half[0]);
      o.Free(half[1]);
    }
    if (insn.wback) TransferAddress(o, insn, rn, rn, true);
    AdvanceVpt(o, v, step);
    o.Op(kOpStI32, v, vpr_at, 0);
    Count(o, t);
    for (uintptr_t temp : {vpr_at, v, mask, q}) o.Free(temp);
  }
  Branch(o, done);
  SetLabel(o, slow);
  {
    const uintptr_t result = o.New(kTypeI32), tag = o.Arg(const_i32(o.s, int32_t(t.call.tag)));
    TCGTemp* args[2] = {t.call.env, reinterpret_cast<TCGTemp*>(tag)};
    call_n(o.s, t.call.helper, reinterpret_cast<TCGTemp*>(result), 2, args);
    o.Free(result);
    o.Free(tag);
  }
  SetLabel(o, done);
  // Either way R0 is what the instruction left: the MRS writes it back.
  o.Op(kOpMovI32, reinterpret_cast<uintptr_t>(ret), r0);
  o.Free(host);
}

}  // namespace faultline::arm::mve_ops
