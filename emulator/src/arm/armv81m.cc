#include "armv81m.h"

#include "arm/mve/mve.h"
#include "thumb.h"

#include <fmt/core.h>

#include <algorithm>

namespace faultline::arm::v81m {

namespace {


constexpr uint32_t kLr = 14, kZr = 15;  // in CSEL, register field 0b1111 reads as zero

// Armv8-M ARM §A7.3 ConditionPassed, over APSR.NZCV.
bool ConditionHolds(uint32_t cond, uint32_t apsr) {
  const bool n = apsr >> 31 & 1, z = apsr >> 30 & 1, c = apsr >> 29 & 1, v = apsr >> 28 & 1;
  bool r = false;
  switch (cond >> 1) {
    case 0: r = z; break;
    case 1: r = c; break;
    case 2: r = n; break;
    case 3: r = v; break;
    case 4: r = c && !z; break;
    case 5: r = n == v; break;
    case 6: r = n == v && !z; break;
    case 7: return true;
  }
  return (cond & 1) ? !r : r;
}

// The low-overhead-loop immediate: imm = (hw2[10:1] : hw2[11]) << 1 (DDI 0553B §C2.4.79,
// QEMU t32.decode %lob_imm).
uint32_t LobImm(uint16_t hw2) { return ((uint32_t(hw2 >> 1) & 0x3FF) << 1 | (hw2 >> 11 & 1)) << 1; }

// --- Armv8-M encoders (Armv8-M ARM §C2): only forms that leave the flags alone. ---
struct Asm {
  uint32_t address;
  std::vector<uint8_t> bytes;
  uint32_t pc() const { return address + uint32_t(bytes.size()); }
  void H(uint16_t h) {
    bytes.push_back(uint8_t(h));
    bytes.push_back(uint8_t(h >> 8));
  }
  void W(uint16_t h1, uint16_t h2) { H(h1), H(h2); }
  // B.W T4 to `to`.
  void B(uint32_t to) {
    int32_t off = int32_t(to - (pc() + 4));
    uint32_t s = off < 0, i1 = (off >> 23) & 1, i2 = (off >> 22) & 1;
    uint32_t j1 = (~i1 ^ s) & 1, j2 = (~i2 ^ s) & 1;
    W(uint16_t(0xF000 | s << 10 | ((off >> 12) & 0x3FF)),
      uint16_t(0x9000 | j1 << 13 | j2 << 11 | ((off >> 1) & 0x7FF)));
  }
  void Eor(uint32_t d, uint32_t n, uint32_t m) { W(uint16_t(0xEA80 | n), uint16_t(d << 8 | m)); }  // EOR.W
  // Exchanges two registers through three EORs: no scratch register, no flags.
  void Swap(uint32_t a, uint32_t b) { Eor(a, a, b), Eor(b, a, b), Eor(a, a, b); }
  void AddImm(uint32_t d, uint32_t n, uint32_t imm8) { W(uint16_t(0xF100 | n), uint16_t(d << 8 | imm8)); }
  void SubImm(uint32_t d, uint32_t n, uint32_t imm8) { W(uint16_t(0xF1A0 | n), uint16_t(d << 8 | imm8)); }
  void MovReg(uint32_t d, uint32_t m) { H(uint16_t(0x4600 | (d & 8) << 4 | m << 3 | (d & 7))); }  // MOV T1
  void MovImm(uint32_t d, uint32_t imm8) { W(0xF04F, uint16_t(d << 8 | imm8)); }   // MOV.W Rd, #imm8
  void MvnImm(uint32_t d, uint32_t imm8) { W(0xF06F, uint16_t(d << 8 | imm8)); }   // MVN.W Rd, #imm8
  void MvnReg(uint32_t d, uint32_t m) { W(0xEA6F, uint16_t(d << 8 | m)); }         // MVN.W Rd, Rm
  void RsbZero(uint32_t d, uint32_t n) { W(uint16_t(0xF1C0 | n), uint16_t(d << 8)); }  // RSB.W Rd, Rn, #0
  void MsrApsr(uint32_t n) { W(uint16_t(0xF380 | n), 0x8C00); }  // MSR APSR_nzcvqg, Rn
  // Shifted-register operand: type 0 LSL, 1 LSR, 2 ASR; imm5 1-31.
  static uint16_t Shifted(uint32_t d, uint32_t m, uint32_t type, uint32_t imm5) {
    return uint16_t((imm5 >> 2) << 12 | d << 8 | (imm5 & 3) << 6 | type << 4 | m);
  }
  void Shift(uint32_t d, uint32_t m, uint32_t type, uint32_t imm5) { W(0xEA4F, Shifted(d, m, type, imm5)); }  // LSL.W/LSR.W/ASR.W
  void OrrShifted(uint32_t d, uint32_t n, uint32_t m, uint32_t type, uint32_t imm5) {  // ORR.W Rd, Rn, Rm, <shift>
    W(uint16_t(0xEA40 | n), Shifted(d, m, type, imm5));
  }
  // CBZ Rn (r0-r7) forward to `to`; returns the offset of the halfword to fix up.
  size_t CbzPlaceholder(uint32_t n) {
    H(uint16_t(0xB100 | n));
    return bytes.size() - 2;
  }
  void FixCbz(size_t at, uint32_t to) {
    uint32_t off = to - (address + uint32_t(at) + 4);
    uint16_t h = uint16_t(bytes[at] | bytes[at + 1] << 8);
    h |= uint16_t((off >> 6 & 1) << 9 | (off >> 1 & 31) << 3);
    bytes[at] = uint8_t(h), bytes[at + 1] = uint8_t(h >> 8);
  }
  void Itt(uint32_t cond) { H(uint16_t(0xBF00 | cond << 4 | (cond & 1) << 3 | 0x4)); }
  void It(uint32_t cond, bool with_else) {
    uint32_t mask = with_else ? ((~cond & 1) << 3 | 0x4) : 0x8;
    H(uint16_t(0xBF00 | cond << 4 | mask));
  }
};

std::array<uint8_t, 4> Wide(uint16_t h1, uint16_t h2) {
  return {uint8_t(h1), uint8_t(h1 >> 8), uint8_t(h2), uint8_t(h2 >> 8)};
}

const char* kCond[] = {"eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le"};

std::string RegName(uint32_t r) {
  if (r == 13) return "sp";
  if (r == 14) return "lr";
  if (r == 15) return "zr";
  return fmt::format("r{}", r);
}

}  // namespace

bool BranchReaches(uint32_t from, uint32_t to) {
  int64_t off = int64_t(to) - int64_t(from + 4);
  return off >= -(int64_t(1) << 24) && off < (int64_t(1) << 24);
}

std::optional<Insn> Decode(std::span<const uint8_t> b, uint32_t pc) {
  if (b.size() < 4) return std::nullopt;
  const uint16_t hw1 = Half(b, 0), hw2 = Half(b, 2);
  const uint32_t rn = hw1 & 15;

  // Branch future and low-overhead loops: 11110 boff:4 ... | 11x0 ... ...1 (DDI 0553B
  // §C2.4, the BLX-immediate space that M-profile leaves UNDEFINED). boff == 0 is the
  // loop group.
  if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD001) == 0xC001) {
    if ((hw1 & 0x0780) != 0) return Insn{.op = Op::kBranchFuture};
    if ((hw1 & 0xFFC0) != 0xF000 && (hw1 & 0xFFF0) != 0xF040) return std::nullopt;
    const bool dls_form = hw2 == 0xE001;
    if (rn == 15 && !dls_form && (hw1 & 0x0040) == 0) {  // LE / LETP / LE (forever)
      const uint32_t f = hw1 >> 5 & 1, tp = hw1 >> 4 & 1;
      if ((hw2 & 0xF000) != 0xC000 || (f && tp)) return std::nullopt;
      Insn i{.op = f ? Op::kLeForever : tp ? Op::kLetp : Op::kLe};
      i.target = pc + 4 - LobImm(hw2);
      return i;
    }
    if (rn == 13 || rn == 15) return std::nullopt;  // CONSTRAINED UNPREDICTABLE: QEMU UNDEFs
    const uint32_t size = (hw1 & 0x0040) ? 4 : (hw1 >> 4 & 3);
    if (dls_form) return Insn{.op = size == 4 ? Op::kDls : Op::kDlstp, .rn = rn, .size = size};
    if ((hw2 & 0xF000) != 0xC000) return std::nullopt;
    Insn i{.op = size == 4 ? Op::kWls : Op::kWlstp, .rn = rn, .size = size};
    i.target = pc + 4 + LobImm(hw2);
    return i;
  }
  // MVE long shifts, plain forms (Armv8.1-M ARM DDI 0553 §C2.4.47 "MVE long shifts"):
  // 1110 1010 0101 RdaLo:3 0 | 0 imm3 RdaHi:3 1 imm2 op:2 1111 (LSLL/LSRL/ASRL #imm, imm3:imm2
  // == 0 meaning 32) and | Rm RdaHi:3 1 00 op:2 1101 (LSLL/ASRL by Rm). hw1 bit 0 set: the
  // saturating and rounding forms (UQSHLL, SQRSHR, ...), left to the MVE report.
  const bool shift_imm = (hw2 & 0x800F) == 0x000F, shift_reg = (hw2 & 0x000F) == 0x000D;
  if ((hw1 & 0xFFF1) == 0xEA50 && (hw2 & 0x0100) == 0x0100 && (shift_imm || shift_reg)) {
    Insn i{.op = Op::kLongShift, .rn = uint32_t(hw2 >> 8 & 0xE) | 1, .rd = uint32_t(hw1 & 0xE)};
    i.shift = hw2 >> 4 & 3;
    if (i.rn == 13 || i.rn == 15) return std::nullopt;  // RdaHi SP or PC: UNPREDICTABLE
    if (shift_imm && i.shift != 3) {
      i.imm = (hw2 >> 10 & 0x1C) | (hw2 >> 6 & 3);
      if (i.imm == 0) i.imm = 32;
      return i;
    }
    if (shift_reg && (hw2 & 0x00C0) == 0 && (i.shift == 0 || i.shift == 2)) {
      i.rm = hw2 >> 12;
      if (i.rm == 13 || i.rm == 15 || i.rm == i.rd || i.rm == i.rn) return std::nullopt;
      return i;
    }
    return std::nullopt;
  }
  // CSEL family: 1110 1010 0101 Rn | 10 op:2 Rd cond Rm (QEMU t32.decode CSEL). Rm == 13
  // is the MVE long-shift space; AL/NV conditions and SP/PC destinations UNDEF in QEMU.
  if ((hw1 & 0xFFF0) == 0xEA50 && (hw2 & 0xC000) == 0x8000) {
    Insn i{.op = Op::kCsel, .rn = rn, .rd = uint32_t(hw2 >> 8 & 15), .rm = uint32_t(hw2 & 15)};
    i.csel_op = hw2 >> 12 & 3;
    i.cond = hw2 >> 4 & 15;
    if (i.rm == 13 || i.rd == 13 || i.rd == 15 || i.rn == 13 || i.cond >= 14) return std::nullopt;
    return i;
  }
  // CLRM: E89F | P M 0 register_list (APSR = bit 15; SP may not be listed).
  if (hw1 == 0xE89F) {
    if (hw2 & (1u << 13) || hw2 == 0) return std::nullopt;
    return Insn{.op = Op::kClrm, .list = hw2};
  }
  // VSCCLRM: 1110 1100 1D01 1111 | Vd 101 sz imm8 (single: sz=0, double: sz=1).
  if ((hw1 & 0xFFBF) == 0xEC9F && (hw2 & 0x0E00) == 0x0A00) {
    const uint32_t d = hw1 >> 6 & 1, vd = hw2 >> 12, imm8 = hw2 & 0xFF;
    Insn i{.op = Op::kVscclrm};
    if (hw2 & 0x100) {  // D registers: first D = D:Vd, imm8 = 2 * count
      i.first = 2 * (d << 4 | vd);
      i.count = imm8 & ~1u;
    } else {
      i.first = vd << 1 | d;
      i.count = imm8;
    }
    if (i.first + i.count > 32) return std::nullopt;  // S16-S31 only with the D16+ banks absent
    return i;
  }
  return std::nullopt;
}

std::string OpName(Op op) {
  const std::string m = Mnemonic(Insn{.op = op, .size = 0});
  return m.substr(0, m.find_first_of(". "));
}

std::string Mnemonic(const Insn& i) {
  static const char* kSize[] = {"8", "16", "32", "64"};
  switch (i.op) {
    case Op::kDls: return fmt::format("dls lr, {}", RegName(i.rn));
    case Op::kDlstp: return fmt::format("dlstp.{} lr, {}", kSize[i.size], RegName(i.rn));
    case Op::kWls: return fmt::format("wls lr, {}, 0x{:08x}", RegName(i.rn), i.target);
    case Op::kWlstp: return fmt::format("wlstp.{} lr, {}, 0x{:08x}", kSize[i.size], RegName(i.rn), i.target);
    case Op::kLe: return fmt::format("le lr, 0x{:08x}", i.target);
    case Op::kLetp: return fmt::format("letp lr, 0x{:08x}", i.target);
    case Op::kLeForever: return fmt::format("le 0x{:08x}", i.target);
    case Op::kCsel: {
      static const char* kName[] = {"csel", "csinc", "csinv", "csneg"};
      return fmt::format("{} {}, {}, {}, {}", kName[i.csel_op], RegName(i.rd), RegName(i.rn), RegName(i.rm),
                         kCond[i.cond]);
    }
    case Op::kClrm: {
      std::string s = "clrm {";
      for (uint32_t r = 0; r < 16; ++r) {
        if (!(i.list >> r & 1)) continue;
        if (s.back() != '{') s += ", ";
        s += r == 15 ? "APSR" : RegName(r);
      }
      return s + "}";
    }
    case Op::kVscclrm:
      return i.count == 0 ? "vscclrm {VPR}" : fmt::format("vscclrm {{s{}-s{}, VPR}}", i.first, i.first + i.count - 1);
    case Op::kBranchFuture: return "bf (branch future hint)";
    case Op::kLongShift: {
      static const char* kName[] = {"lsll", "lsrl", "asrl"};
      return i.imm ? fmt::format("{} {}, {}, #{}", kName[i.shift], RegName(i.rd), RegName(i.rn), i.imm)
                   : fmt::format("{} {}, {}, {}", kName[i.shift], RegName(i.rd), RegName(i.rn), RegName(i.rm));
    }
  }
  return "?";
}

uint32_t Execute(const Insn& i, State& st) {
  const uint32_t pc = st.r[15], next = pc + 4;
  uint32_t& lr = st.r[kLr];
  switch (i.op) {
    case Op::kDls:
    case Op::kDlstp:
      lr = st.r[i.rn];
      if (i.op == Op::kDlstp) st.ltpsize = i.size;
      return next;
    case Op::kWls:
    case Op::kWlstp:
      if (st.r[i.rn] == 0) return i.target;
      lr = st.r[i.rn];
      if (i.op == Op::kWlstp) st.ltpsize = i.size;
      return next;
    case Op::kLeForever: return i.target;
    case Op::kLe:
      if (lr <= 1) return next;  // the last iteration: LR is left as it is (QEMU trans_LE)
      lr -= 1;
      return i.target;
    case Op::kLetp: {
      // Decrement by the number of elements a vector holds: 16 >> LTPSIZE bytes... i.e.
      // 1 << (4 - LTPSIZE) (QEMU trans_LE); leaving the loop resets LTPSIZE to 4.
      const uint32_t decrement = 1u << (4 - (st.ltpsize > 4 ? 4 : st.ltpsize));
      if (lr <= decrement) {
        st.ltpsize = 4;
        return next;
      }
      lr -= decrement;
      return i.target;
    }
    case Op::kCsel: {
      const uint32_t n = i.rn == kZr ? 0 : st.r[i.rn], m = i.rm == kZr ? 0 : st.r[i.rm];
      uint32_t other = m;
      if (i.csel_op == 1) other = m + 1;
      if (i.csel_op == 2) other = ~m;
      if (i.csel_op == 3) other = 0 - m;
      st.r[i.rd] = ConditionHolds(i.cond, st.apsr) ? n : other;
      return next;
    }
    case Op::kClrm:
      for (uint32_t r = 0; r < 15; ++r) {
        if (i.list >> r & 1) st.r[r] = 0;
      }
      if (i.list >> 15 & 1) st.apsr = 0;
      return next;
    case Op::kVscclrm:
      for (uint32_t s = i.first; s < i.first + i.count; ++s) st.s[s] = 0;
      return next;  // VPR: faultline's core has no MVE predicate register to clear
    case Op::kBranchFuture: return next;
    case Op::kLongShift: {
      // LSL/LSR/ASR of RdaHi:RdaLo; by register, the shift is SInt(Rm<7:0>) (arm/mve).
      const uint64_t value = uint64_t(st.r[i.rn]) << 32 | st.r[i.rd];
      const int32_t n = i.imm ? int32_t(i.imm) : int32_t(int8_t(st.r[i.rm] & 0xFF));
      const uint64_t result = arm::mve::LongShift(value, n, i.shift);
      st.r[i.rd] = uint32_t(result);
      st.r[i.rn] = uint32_t(result >> 32);
      return next;
    }
  }
  return next;
}

// A CSEL-family instruction whose Rd already holds one of its two outcomes, as the
// CINC/CINV/CNEG aliases with Rd == Rn and CSEL onto one of its own operands do: an IT
// and one 16-bit instruction that writes the other outcome, in the site's four bytes
// (inside an IT block the 16-bit ADDS/MOVS/MVNS/RSBS leave the flags alone). The pair
// retires as the one instruction it replaces (Core::CountInstructions). None when the
// operation needs a wide encoding, or the site straddles a 1 KiB translation page (a
// block would end between the two).
namespace {
std::optional<std::array<uint8_t, 4>> CselInPlace(const Insn& i, uint32_t site) {
  constexpr uint32_t kPage = 1024;  // Unicorn's M-profile target page (unicorn.md §3)
  if (site % kPage == kPage - 2 || i.cond >= 14) return std::nullopt;
  using Op16 = std::optional<uint16_t>;
  auto low = [](uint32_t r) { return r < 8; };
  // The 16-bit encodings (T1; inside an IT block the flag-setting ones set none).
  auto mov = [](uint32_t d, uint32_t m) -> Op16 { return uint16_t(0x4600 | (d & 8) << 4 | m << 3 | (d & 7)); };
  auto movs = [&](uint32_t d, uint32_t imm) -> Op16 { return low(d) ? Op16(uint16_t(0x2000 | d << 8 | imm)) : Op16(); };
  auto low_pair = [&](uint16_t base, uint32_t d, uint32_t m) -> Op16 {
    return low(d) && low(m) ? Op16(uint16_t(base | m << 3 | d)) : Op16();
  };
  uint32_t cond = 0;  // when the IT's instruction runs
  Op16 op;
  if (i.rd == i.rn && i.rn != kZr) {  // cond holds: Rd stays; else Rd = op(Rm)
    cond = i.cond ^ 1;
    const bool zr = i.rm == kZr;
    switch (i.csel_op) {
      case 0: op = zr ? movs(i.rd, 0) : mov(i.rd, i.rm); break;                   // MOVS #0 / MOV
      case 1: op = zr ? movs(i.rd, 1) : low_pair(0x1C40, i.rd, i.rm); break;      // MOVS #1 / ADDS Rd, Rm, #1
      case 2: op = zr ? Op16() : low_pair(0x43C0, i.rd, i.rm); break;             // MVNS
      case 3: op = zr ? movs(i.rd, 0) : low_pair(0x4240, i.rd, i.rm); break;      // MOVS #0 / RSBS Rd, Rm, #0
    }
  } else if (i.rd == i.rm && i.csel_op == 0 && i.rm != kZr) {  // cond fails: Rd stays; else Rd = Rn
    cond = i.cond;
    op = i.rn == kZr ? movs(i.rd, 0) : mov(i.rd, i.rn);
  }
  if (!op) return std::nullopt;
  Asm a{.address = site, .bytes = {}};
  a.It(cond, /*with_else=*/false);
  a.H(*op);
  return std::array<uint8_t, 4>{a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]};
}
}  // namespace

bool IsInPlacePair(const std::array<uint8_t, 4>& site) {
  return site[1] == 0xBF && (site[0] & 0x0F) != 0;  // an IT: only CselInPlace writes one at a site
}

std::optional<Translation> Translate(const Insn& i, uint32_t site, uint32_t tramp) {
  Asm a{.address = tramp, .bytes = {}};
  Translation t;
  const uint32_t next = site + 4;
  auto via_trampoline = [&] {
    Asm b{.address = site, .bytes = {}};
    b.B(tramp);
    std::copy(b.bytes.begin(), b.bytes.end(), t.site.begin());
    t.trampoline = std::move(a.bytes);
    return t;
  };
  switch (i.op) {
    case Op::kDls:
      t.site = Wide(0xEA4F, uint16_t(kLr << 8 | i.rn));  // MOV.W LR, Rn
      return t;
    case Op::kBranchFuture:
      t.site = Wide(0xF3AF, 0x8000);  // NOP.W
      return t;
    case Op::kLeForever: {
      Asm b{.address = site, .bytes = {}};
      b.B(i.target);
      std::copy(b.bytes.begin(), b.bytes.end(), t.site.begin());
      return t;
    }
    case Op::kLe: {
      // r0 <-> LR, test the count in r0 with CBZ (no flags), and swap back on every path.
      a.Swap(0, kLr);
      size_t zero = a.CbzPlaceholder(0);  // LR == 0: fall through, LR unchanged
      a.SubImm(0, 0, 1);
      size_t one = a.CbzPlaceholder(0);   // LR == 1: fall through, LR unchanged
      a.Swap(0, kLr);                     // LR = count - 1
      a.B(i.target);
      a.FixCbz(one, a.pc());
      a.AddImm(0, 0, 1);
      a.FixCbz(zero, a.pc());
      a.Swap(0, kLr);
      a.B(next);
      return via_trampoline();
    }
    case Op::kWls: {
      const uint32_t n = i.rn;
      if (n < 8) {
        size_t zero = a.CbzPlaceholder(n);
        a.MovReg(kLr, n);
        a.B(next);
        a.FixCbz(zero, a.pc());
        a.B(i.target);
        return via_trampoline();
      }
      // A high register (or LR itself): test it in r0.
      a.Swap(0, n);
      size_t zero = a.CbzPlaceholder(0);
      if (n != kLr) a.MovReg(kLr, 0);
      a.Swap(0, n);
      a.B(next);
      a.FixCbz(zero, a.pc());
      a.Swap(0, n);
      a.B(i.target);
      return via_trampoline();
    }
    case Op::kCsel: {
      if (auto pair = CselInPlace(i, site)) {
        t.site = *pair;
        return t;
      }
      a.It(i.cond, /*with_else=*/true);
      if (i.rn == kZr) a.MovImm(i.rd, 0);
      else a.MovReg(i.rd, i.rn);
      switch (i.csel_op) {
        case 0: i.rm == kZr ? a.MovImm(i.rd, 0) : a.MovReg(i.rd, i.rm); break;
        case 1: i.rm == kZr ? a.MovImm(i.rd, 1) : a.AddImm(i.rd, i.rm, 1); break;
        case 2: i.rm == kZr ? a.MvnImm(i.rd, 0) : a.MvnReg(i.rd, i.rm); break;
        case 3: i.rm == kZr ? a.MovImm(i.rd, 0) : a.RsbZero(i.rd, i.rm); break;
      }
      a.B(next);
      return via_trampoline();
    }
    case Op::kClrm: {
      int zeroed = -1;
      for (uint32_t r = 0; r < 15; ++r) {
        if (!(i.list >> r & 1)) continue;
        a.MovImm(r, 0);
        zeroed = int(r);
      }
      if (i.list >> 15 & 1) {
        if (zeroed < 0) return std::nullopt;  // CLRM {APSR} alone: no zero register to MSR from
        a.MsrApsr(uint32_t(zeroed));
      }
      a.B(next);
      return via_trampoline();
    }
    case Op::kLongShift: {
      // By immediate: three flag-free shifts of the pair (the bits crossing the halves
      // move with ORR.W's shifted operand). By register: executed by the host (a
      // variable count, possibly negative or >= 32, needs compares).
      if (i.imm == 0) return std::nullopt;
      const uint32_t lo = i.rd, hi = i.rn, n = i.imm;
      constexpr uint32_t kLsl = 0, kLsr = 1, kAsr = 2;
      if (i.shift == 0) {  // LSLL
        if (n == 32) {
          a.MovReg(hi, lo);
          a.MovImm(lo, 0);
        } else {
          a.Shift(hi, hi, kLsl, n);
          a.OrrShifted(hi, hi, lo, kLsr, 32 - n);
          a.Shift(lo, lo, kLsl, n);
        }
      } else {  // LSRL, ASRL
        const uint32_t type = i.shift == 2 ? kAsr : kLsr;
        if (n == 32) {
          a.MovReg(lo, hi);
          if (type == kAsr) a.Shift(hi, hi, kAsr, 31);
          else a.MovImm(hi, 0);
        } else {
          a.Shift(lo, lo, kLsr, n);
          a.OrrShifted(lo, lo, hi, kLsl, 32 - n);
          a.Shift(hi, hi, type, n);
        }
      }
      a.B(next);
      return via_trampoline();
    }
    case Op::kWlstp: {
      // A count: the loop starts as a DLSTP of the same size, which the MVE unit runs in
      // the engine (CP10's check, the FP context, LTPSIZE), GCC's and CMSIS's short copy
      // and fill loops entering through a WLSTP every time (issue 38). No count: a WLSTP
      // again (offset 0), which the host runs as the site's (CP10's check before the
      // count, no FP context). A high register is tested in r0, as WLS does.
      const uint32_t n = i.rn;
      const bool high = n >= 8;
      if (high) a.Swap(0, n);
      size_t zero = a.CbzPlaceholder(high ? 0 : n);
      if (high) a.Swap(0, n);
      t.stands_for_site.push_back(uint32_t(a.bytes.size()));
      a.W(uint16_t(0xF000 | i.size << 4 | n), 0xE001);  // DLSTP.<size> LR, Rn
      a.B(next);
      a.FixCbz(zero, a.pc());
      if (high) a.Swap(0, n);
      t.stands_for_site.push_back(uint32_t(a.bytes.size()));
      a.W(uint16_t(0xF000 | i.size << 4 | n), 0xC001);  // WLSTP.<size> LR, Rn, (next)
      return via_trampoline();
    }
    case Op::kDlstp:
    case Op::kLetp:
    case Op::kVscclrm:
      return std::nullopt;
  }
  return std::nullopt;
}

// --- Loop relocation (the flow analysis it relies on: armv81m_flow.cc) ------------------

LoopCopy RelocateLoop(std::span<const uint8_t> code, uint32_t lead, uint32_t site, uint32_t entry_address,
                      uint32_t loop_address, uint32_t step) {
  // The LE test where NZCV are free: CMP.W LR, #1; ITT HI; SUBHI.W LR, LR, #1; B.W(HI).
  // LETP counts `step` elements a vector, and leaving its loop sets LTPSIZE to 4: an LCTP
  // (run by the MVE unit, arm/core_mve.cc) in the same block as the test, so that no
  // exception can come between the loop's end and the reset.
  auto le_test = [step](Asm& a, uint32_t back) {
    a.W(0xF1BE, uint16_t(0x0F00 | step));  // cmp.w lr, #step
    if (step != 1) {
      a.It(9, false);      // it ls
      a.W(0xF00F, 0xE001);  // lctp
    }
    a.Itt(8);  // itt hi
    a.SubImm(kLr, kLr, step);
    a.B(back);
  };
  LoopCopy c;
  Asm e{.address = entry_address, .bytes = {}};
  le_test(e, loop_address);
  e.B(site + 4);
  c.entry = std::move(e.bytes);

  Asm l{.address = loop_address - lead, .bytes = {}};
  l.bytes.assign(code.begin(), code.end());
  c.lead = lead;
  c.body_size = uint32_t(code.size()) - lead;
  le_test(l, loop_address);
  c.exit_offset = uint32_t(l.bytes.size());
  l.B(site + 4);
  c.loop = std::move(l.bytes);

  c.weights.assign(c.loop.size() / 2, 0);
  for (uint32_t at = 0; at < code.size();) {
    c.weights[at / 2] = 1;
    at += Wide32(uint16_t(code[at] | code[at + 1] << 8)) ? 4 : 2;
  }
  c.weights[code.size() / 2] = 1;  // the CMP stands for the LE
  return c;
}

}  // namespace faultline::arm::v81m
