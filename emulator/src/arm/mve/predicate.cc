// Predication (DDI 0553 §B5.6, §B5.7): VPR.P0, VPT blocks, tail predication, and the
// instructions that write them.
#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

void AdvanceVptBlock(State& s) {
  const uint32_t mask01 = (s.vpr >> vpr::kMask01Shift) & 0xF, mask23 = (s.vpr >> vpr::kMask23Shift) & 0xF;
  // A mask whose top bit is set and is not 0b1000 says: the next instruction is in the
  // other condition (E): invert that half of P0 (§B5.6, VPTAdvance).
  if (mask01 > 8) s.vpr ^= 0x00FF;
  if (mask23 > 8) s.vpr ^= 0xFF00;
  s.vpr = (s.vpr & ~vpr::kMasks) | ((mask01 << 1) & 0xF) << vpr::kMask01Shift | ((mask23 << 1) & 0xF) << vpr::kMask23Shift;
}

namespace {

void SetMasks(State& s, uint32_t mask) {
  s.vpr = (s.vpr & ~vpr::kMasks) | mask << vpr::kMask01Shift | mask << vpr::kMask23Shift;
}

// The VCMP condition codes (fc): EQ, CS, NE, HI, GE, GT, LT, LE.
template <typename T>
bool Holds(unsigned fc, T n, T m) {
  using S = std::make_signed_t<T>;
  using U = std::make_unsigned_t<T>;
  switch (fc) {
    case 0: return n == m;
    case 2: return n != m;
    case 1: return U(n) >= U(m);
    case 3: return U(n) > U(m);
    case 4: return S(n) >= S(m);
    case 5: return S(n) > S(m);
    case 6: return S(n) < S(m);
    default: return S(n) <= S(m);
  }
}

template <typename T, typename M>
void CompareWith(const Insn& i, State& s, M m_of) {
  const uint16_t mask = ElementMask(s);
  const uint8_t* n = Q(s, i.qn);
  uint16_t p = 0;
  for (int e = 0; e < Lanes<T>(); ++e) {
    if (Holds<T>(i.rda, Lane<T>(n, e), m_of(e))) p |= uint16_t(((1u << sizeof(T)) - 1) << (e * sizeof(T)));
  }
  SetPredicate(s, i, p, mask);
}

}  // namespace

void SetPredicate(State& s, const Insn& i, uint16_t p, uint16_t mask) {
  s.vpr = (s.vpr & ~vpr::kP0) | (p & mask);
  AdvanceVpt(s);
  if (i.imm != 0) SetMasks(s, uint32_t(i.imm));  // VPT
}

// VMRS/VMSR (DDI 0553 §C2.4): P0 alone, or all of VPR (P0 and the masks).
void Handlers::ReadVpr(const Insn& i, State& s) { s.r[i.rt] = i.imm ? (s.vpr & vpr::kP0) : s.vpr; }
void Handlers::WriteVpr(const Insn& i, State& s) {
  const uint32_t v = s.r[i.rt];
  // All 32 bits are kept, the RES0 ones too, as QEMU 7.2 keeps them (VMRS reads them back).
  s.vpr = i.imm ? ((s.vpr & ~vpr::kP0) | (v & vpr::kP0)) : v;
}

void Handlers::Vpst(const Insn& i, State& s) { SetMasks(s, uint32_t(i.imm)); }

void Handlers::Vpnot(const Insn&, State& s) {
  const uint16_t mask = ElementMask(s);
  s.vpr = (s.vpr & ~vpr::kP0) | (~s.vpr & mask);
  AdvanceVpt(s);
}

// VPSEL selects by VPR.P0 itself, in or out of a VPT block; the predicate (block and
// tail) decides which bytes of Qd are written.
void Handlers::Vpsel(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint8_t r[16];
  for (int b = 0; b < 16; ++b) r[b] = (s.vpr >> b & 1) ? Q(s, i.qn)[b] : Q(s, i.qm)[b];
  for (int b = 0; b < 16; ++b) {
    if (mask >> b & 1) Q(s, i.qd)[b] = r[b];
  }
  AdvanceVpt(s);
}

void Handlers::Vctp(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  const uint32_t elements = 16u >> i.size;
  const uint32_t bytes = (s.r[i.rn] >= elements ? elements : s.r[i.rn]) << i.size;
  const uint16_t p = uint16_t(bytes >= 16 ? 0xFFFF : (1u << bytes) - 1);
  s.vpr = (s.vpr & ~vpr::kP0) | (p & mask);
  AdvanceVpt(s);
}

// DLSTP: the loop's element count in LR, and the element size that tail predication and
// LETP count in (LTPSIZE). Not a beat of a VPT block (QEMU 7.2 trans_DLS).
void Handlers::Dlstp(const Insn& i, State& s) {
  s.r[14] = s.r[i.rn];
  s.ltpsize = i.size;
}
void Handlers::Lctp(const Insn&, State& s) { s.ltpsize = 4; }

void Handlers::Compare(const Insn& i, State& s) {
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  switch (i.size) {
    case 0: CompareWith<uint8_t>(i, s, [&](int e) { return Lane<uint8_t>(m, e); }); break;
    case 1: CompareWith<uint16_t>(i, s, [&](int e) { return Lane<uint16_t>(m, e); }); break;
    default: CompareWith<uint32_t>(i, s, [&](int e) { return Lane<uint32_t>(m, e); }); break;
  }
}

void Handlers::CompareScalar(const Insn& i, State& s) {
  const uint32_t rm = i.rm == 15 ? 0 : s.r[i.rm];  // Rm = 0b1111: the zero register
  switch (i.size) {
    case 0: CompareWith<uint8_t>(i, s, [&](int) { return uint8_t(rm); }); break;
    case 1: CompareWith<uint16_t>(i, s, [&](int) { return uint16_t(rm); }); break;
    default: CompareWith<uint32_t>(i, s, [&](int) { return rm; }); break;
  }
}

// VMRS/VMSR of FPSCR and FPSCR_nzcvqc (DDI 0553 §C2.4.x): the engine's FPSCR with QC
// and LTPSIZE, which live here. imm 1 = FPSCR, 2 = FPSCR_nzcvqc (NZCV and QC only).
void Handlers::ReadFpscr(const Insn& i, State& s) {
  uint32_t v = (s.fpscr->Read() & ~(fpscr::kQc | fpscr::kLtpsize)) | (s.qc ? fpscr::kQc : 0) |
               s.ltpsize << fpscr::kLtpsizeShift;
  if (i.imm == 2) v &= fpscr::kNzcv | fpscr::kQc;
  s.r[i.rt] = v;
}

void Handlers::WriteFpscr(const Insn& i, State& s) {
  const uint32_t v = s.r[i.rt];
  if (i.imm == 2) {
    s.fpscr->Write((s.fpscr->Read() & ~fpscr::kNzcv) | (v & fpscr::kNzcv));
  } else {
    s.fpscr->Write(v & ~(fpscr::kQc | fpscr::kLtpsize));
    s.ltpsize = (v & fpscr::kLtpsize) >> fpscr::kLtpsizeShift;
  }
  s.qc = v & fpscr::kQc;
  s.fpscr_nzcv = v & fpscr::kNzcv;
}

}  // namespace faultline::arm::mve
