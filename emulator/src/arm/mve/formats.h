// The MVE decoder's formats: each reads one encoding family's fields (DDI 0553's
// encoding diagrams) into an Insn and says whether they name an instruction (false for
// UNPREDICTABLE or another encoding's values). decode.cc's table pairs them with the
// encodings' bit patterns; nothing else includes this.
#pragma once

#include <cstdint>

#include "mve.h"
#include "softfloat.h"

namespace faultline::arm::mve::format {

inline uint32_t Bits(uint32_t x, int hi, int lo) { return (x >> lo) & ((1u << (hi - lo + 1)) - 1); }

// Register fields (DDI 0553 §C2.1): Qd = D:Qd, Qn = N:Qn, Qm = M:Qm. A 4-bit Q number
// with the top bit set names Q8-Q15, which do not exist: UNPREDICTABLE, left undecoded.
inline int Qd(uint32_t x) { return int(Bits(x, 22, 22) << 3 | Bits(x, 15, 13)); }
inline int Qn(uint32_t x) { return int(Bits(x, 7, 7) << 3 | Bits(x, 19, 17)); }
inline int Qm(uint32_t x) { return int(Bits(x, 5, 5) << 3 | Bits(x, 3, 1)); }

using Format = bool (*)(uint32_t x, Insn& i);

inline bool QRegsOk(const Insn& i) { return i.qd < 8 && i.qn < 8 && i.qm < 8; }
// A general-purpose register operand: SP and PC are UNPREDICTABLE (or another
// encoding), LR is an ordinary register.
inline bool General(uint8_t r) { return r != 13 && r != 15; }

// Qd, Qn, Qm, size (21:20), U (28). Size 0b11 is another encoding.
inline bool TwoOp(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qn = uint8_t(Qn(x)), i.qm = uint8_t(Qm(x));
  i.size = uint8_t(Bits(x, 21, 20));
  i.u = Bits(x, 28, 28);
  return i.size != 3 && QRegsOk(i);
}
inline bool TwoOpNoSize(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qn = uint8_t(Qn(x)), i.qm = uint8_t(Qm(x));
  return QRegsOk(i);
}
// Shifts by a vector: the shifted value is in the M field, the shift counts in N.
inline bool TwoOpShift(uint32_t x, Insn& i) { return TwoOp(x, i); }
// Qd, Qn, Rm (3:0), size. Rm = SP or PC is UNPREDICTABLE.
inline bool Scalar(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qn = uint8_t(Qn(x));
  i.rm = uint8_t(Bits(x, 3, 0));
  i.size = uint8_t(Bits(x, 21, 20));
  i.u = Bits(x, 28, 28);
  return i.size != 3 && i.qd < 8 && i.qn < 8 && General(i.rm);
}
// Qd, Qm, size (19:18).
inline bool OneOp(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  i.size = uint8_t(Bits(x, 19, 18));
  return i.size != 3 && i.qd < 8 && i.qm < 8;
}
inline bool OneOpNoSize(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  return i.qd < 8 && i.qm < 8;
}

// VLDR/VSTR (non-widening): P (24), A (23), W (21), L (20), Rn, Qd, size (8:7), imm7.
// P=0 W=0 is another encoding; Rn = PC is UNPREDICTABLE, and writeback to SP too.
inline bool Contiguous(uint32_t x, Insn& i) {
  i.pre = Bits(x, 24, 24), i.add = Bits(x, 23, 23), i.wback = Bits(x, 21, 21);
  i.rn = uint8_t(Bits(x, 19, 16));
  i.qd = uint8_t(Qd(x));
  i.size = i.msize = uint8_t(Bits(x, 8, 7));
  i.imm = int32_t(Bits(x, 6, 0) << i.msize);
  return (i.pre || i.wback) && i.size != 3 && i.rn != 15 && !(i.wback && i.rn == 13) && i.qd < 8;
}
// Widening loads / narrowing stores: U (28), Rn and Qd 3 bits, memory size from bit 19
// (0 byte, 1 halfword), element size from 8:7.
inline bool Widening(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.pre = Bits(x, 24, 24), i.add = Bits(x, 23, 23), i.wback = Bits(x, 21, 21);
  i.rn = uint8_t(Bits(x, 18, 16));
  i.qd = uint8_t(Bits(x, 15, 13));
  i.msize = uint8_t(Bits(x, 19, 19));
  i.size = uint8_t(Bits(x, 8, 7));
  i.imm = int32_t(Bits(x, 6, 0) << i.msize);
  const bool store = !Bits(x, 20, 20);
  return (i.pre || i.wback) && i.size > i.msize && i.size != 3 && !(store && i.u);
}
// Gather/scatter with a vector of offsets: U (28), L (20), Rn, Qd, Qm, element size
// (8:7), memory size (6, 4), os (0): offsets scaled by the memory size. A signed load
// widens (msize < size); bytes are never scaled; doublewords are 64-bit lanes only; a
// load into its own offset vector, and Rn = PC, are UNPREDICTABLE.
inline bool GatherOffsets(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.rn = uint8_t(Bits(x, 19, 16));
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  i.size = uint8_t(Bits(x, 8, 7));
  i.msize = uint8_t(Bits(x, 6, 6) << 1 | Bits(x, 4, 4));
  const bool scaled = Bits(x, 0, 0), load = Bits(x, 20, 20);
  i.imm = scaled ? i.msize : 0;
  if (i.rn == 15 || i.qd > 7 || i.qm > 7 || i.msize > i.size) return false;
  if ((i.size == 3) != (i.msize == 3) || (scaled && i.msize == 0)) return false;
  if (load && (i.qd == i.qm || (!i.u && i.msize == i.size))) return false;
  return load || !i.u;  // stores have U = 0
}
// Gather/scatter with a vector of addresses: A (23), W (21), L (20), Qm in the N field,
// Qd, imm7 scaled by the lane size (word, bit 8 clear; doubleword, set).
inline bool GatherAddresses(uint32_t x, Insn& i) {
  i.add = Bits(x, 23, 23), i.wback = Bits(x, 21, 21);
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qn(x));
  i.size = i.msize = uint8_t(Bits(x, 8, 8) ? 3 : 2);
  i.u = true;
  i.imm = int32_t(Bits(x, 6, 0) << i.size);
  const bool load = Bits(x, 20, 20);
  return i.qd < 8 && i.qm < 8 && !(load && i.qd == i.qm);
}
// VLD2x/VLD4x/VST2x/VST4x: W (21), Rn, Qd, size (8:7), pattern (6:5). The registers
// Qd..Qd+n-1 must exist; Rn = PC, and writeback to SP, are UNPREDICTABLE.
inline bool Interleaving(uint32_t x, Insn& i, int n) {
  i.wback = Bits(x, 21, 21);
  i.rn = uint8_t(Bits(x, 19, 16));
  i.qd = uint8_t(Qd(x));
  i.size = uint8_t(Bits(x, 8, 7));
  i.imm = int32_t(Bits(x, 6, 5));
  return i.size != 3 && i.imm < n && i.qd + n <= 8 && i.rn != 15 && !(i.wback && i.rn == 13);
}
inline bool Interleaving2(uint32_t x, Insn& i) { return Interleaving(x, i, 2); }
inline bool Interleaving4(uint32_t x, Insn& i) { return Interleaving(x, i, 4); }
// VDUP: Qd in the N field, Rt (15:12), size from B (22) and E (5).
inline bool Dup(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qn(x));
  i.rt = uint8_t(Bits(x, 15, 12));
  const uint32_t be = Bits(x, 22, 22) << 1 | Bits(x, 5, 5);
  i.size = be == 2 ? 0 : be == 1 ? 1 : be == 0 ? 2 : 3;
  return i.size != 3 && i.qd < 8 && General(i.rt);
}
// VCMP/VPT: Qn 3 bits, Qm, size, mask (22:15-13: 0 = VCMP, else VPT), condition from
// bits 12, 7 and 0 (fc).
inline bool Compare(uint32_t x, Insn& i) {
  i.qn = uint8_t(Bits(x, 19, 17)), i.qm = uint8_t(Qm(x));
  i.size = uint8_t(Bits(x, 21, 20));
  i.imm = int32_t(Bits(x, 22, 22) << 3 | Bits(x, 15, 13));
  i.rda = uint8_t(Bits(x, 12, 12) << 2 | Bits(x, 7, 7) << 1 | Bits(x, 0, 0));  // condition
  return i.size != 3 && i.qm < 8;
}
inline bool CompareScalar(uint32_t x, Insn& i) {
  i.qn = uint8_t(Bits(x, 19, 17));
  i.rm = uint8_t(Bits(x, 3, 0));
  i.size = uint8_t(Bits(x, 21, 20));
  i.imm = int32_t(Bits(x, 22, 22) << 3 | Bits(x, 15, 13));
  i.rda = uint8_t(Bits(x, 12, 12) << 2 | Bits(x, 7, 7) << 1 | Bits(x, 5, 5));
  return i.size != 3 && i.rm != 13;  // Rm = PC is the zero register (ZR) here
}
inline bool Vpst(uint32_t x, Insn& i) {
  i.imm = int32_t(Bits(x, 22, 22) << 3 | Bits(x, 15, 13));
  return i.imm != 0;
}
inline bool NoFields(uint32_t, Insn&) { return true; }
// Shifts of Qda by a scalar: size (19:18), Rm (3:0), U (28); Rm = SP/PC UNPREDICTABLE.
inline bool ShiftScalar(uint32_t x, Insn& i) {
  i.qd = i.qm = uint8_t(Qd(x));
  i.size = uint8_t(Bits(x, 19, 18));
  i.rm = uint8_t(Bits(x, 3, 0));
  i.u = Bits(x, 28, 28);
  return i.size != 3 && i.qd < 8 && General(i.rm);
}
// VMRS/VMSR of P0 or VPR: Rt (15:12); SP and PC are UNPREDICTABLE.
inline bool SpecialRegister(uint32_t x, Insn& i) {
  i.rt = uint8_t(Bits(x, 15, 12));
  i.imm = int32_t(Bits(x, 16, 16));  // 1: P0, 0: VPR
  return General(i.rt);
}
// VMRS/VMSR of FPSCR (reg 0001) or FPSCR_nzcvqc (0010): Rt (15:12). VMRS APSR_nzcv
// (Rt = PC) is left to the engine, which keeps the APSR flags.
inline bool FpscrRegister(uint32_t x, Insn& i) {
  i.rt = uint8_t(Bits(x, 15, 12));
  i.imm = int32_t(Bits(x, 19, 16));
  return General(i.rt) && (i.imm == 1 || i.imm == 2);
}
// VCTP: size (21:20), Rn; Rn = PC is another encoding, SP UNPREDICTABLE.
inline bool Ctp(uint32_t x, Insn& i) {
  i.size = uint8_t(Bits(x, 21, 20));
  i.rn = uint8_t(Bits(x, 19, 16));
  return General(i.rn);
}
// DLSTP: size (21:20), Rn; Rn = SP UNPREDICTABLE, Rn = PC is LCTP (size 0) or UNDEFINED
// (QEMU 7.2 trans_DLS).
inline bool LoopStart(uint32_t x, Insn& i) {
  i.size = uint8_t(Bits(x, 21, 20));
  i.rn = uint8_t(Bits(x, 19, 16));
  return General(i.rn);
}
// VADDV: U, size (19:18), A (5), Qm, Rda (15:13 << 1).
inline bool AddAcross(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.size = uint8_t(Bits(x, 19, 18));
  i.accumulate = Bits(x, 5, 5);
  i.qm = uint8_t(Bits(x, 3, 1));  // bit 5 is A here
  i.rda = uint8_t(Bits(x, 15, 13) << 1);
  return i.size != 3 && i.qm < 8;
}
// VADDLV: U, A, Qm, RdaLo (15:13 << 1), RdaHi (22:20 << 1 | 1). RdaHi = PC is VADDV's.
inline bool AddLongAcross(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.size = 2;
  i.accumulate = Bits(x, 5, 5);
  i.qm = uint8_t(Bits(x, 3, 1));  // bit 5 is A here
  i.rda = uint8_t(Bits(x, 15, 13) << 1);
  i.rdahi = uint8_t(Bits(x, 22, 20) << 1 | 1);
  return i.rdahi != 15 && i.rdahi != 13 && i.qm < 8;
}
// VMLADAV family (DDI 0553 §C2.4.x): U (28), X (12), A (5), Qn 3 bits, Qm, Rda
// (15:13 << 1). The 16/32-bit forms take the size from bit 16 and VMLSDAV from bit 0;
// the 8-bit forms are separate encodings (bits 11:8 = 1111, or VMLSDAV with U set).
inline bool MulAddAcrossFields(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.exchange = Bits(x, 12, 12);
  i.accumulate = Bits(x, 5, 5);
  i.qn = uint8_t(Qn(x));          // N (7) set names Q8-Q15: UNDEFINED
  i.qm = uint8_t(Bits(x, 3, 1));  // bit 5 is A here
  i.rda = uint8_t(Bits(x, 15, 13) << 1);
  return i.qn < 8 && i.qm < 8 && !(i.u && i.exchange);  // the unsigned forms have no X
}
inline bool MulAddAcross(uint32_t x, Insn& i) {
  i.size = uint8_t(Bits(x, 16, 16) + 1);
  i.subtract = Bits(x, 0, 0);
  return MulAddAcrossFields(x, i) && !(i.u && i.subtract);
}
inline bool MulAddAcross8(uint32_t x, Insn& i) {
  i.size = 0;
  return MulAddAcrossFields(x, i);
}
inline bool MulSubAcross8(uint32_t x, Insn& i) {
  i.size = 0;
  i.subtract = true;
  const bool ok = MulAddAcrossFields(x, i);
  i.u = false;  // bit 28 is the size here: VMLSDAV is signed
  return ok && !Bits(x, 16, 16);
}
// VMLALDAV family: RdaHi (22:20 << 1 | 1), RdaLo (15:13 << 1), size from bit 16.
inline bool MulAddLongAcross(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.size = uint8_t(Bits(x, 16, 16) + 1);
  i.exchange = Bits(x, 12, 12);
  i.accumulate = Bits(x, 5, 5);
  i.subtract = Bits(x, 0, 0);
  i.qn = uint8_t(Qn(x));
  i.qm = uint8_t(Bits(x, 3, 1));  // bit 5 is A here
  i.rda = uint8_t(Bits(x, 15, 13) << 1);
  i.rdahi = uint8_t(Bits(x, 22, 20) << 1 | 1);
  if (i.u && (i.exchange || i.subtract)) return false;
  return i.rdahi < 13 && i.qn < 8 && i.qm < 8;
}
// VMAXV and friends: size (19:18), Rda (15:12), Qm, U (28).
inline bool MaxAcross(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.size = uint8_t(Bits(x, 19, 18));
  i.rda = uint8_t(Bits(x, 15, 12));
  i.qm = uint8_t(Qm(x));
  return i.size != 3 && General(i.rda) && i.qm < 8;
}
// Shifts by immediate: size and shift from imm6 (21:16): 001xxx = 8-bit, 01xxxx = 16,
// 1xxxxx = 32. Left shifts are imm6 - esize, right shifts 2 * esize - imm6.
inline bool ShiftImmediate(uint32_t x, Insn& i, bool right) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  i.u = Bits(x, 28, 28);
  const uint32_t imm6 = Bits(x, 21, 16);
  const int esize = imm6 >= 32 ? 32 : imm6 >= 16 ? 16 : imm6 >= 8 ? 8 : 0;
  if (esize == 0) return false;
  i.size = uint8_t(esize == 8 ? 0 : esize == 16 ? 1 : 2);
  i.imm = right ? int32_t(2 * esize - imm6) : int32_t(imm6 - esize);
  return i.qd < 8 && i.qm < 8;
}
inline bool ShiftLeft(uint32_t x, Insn& i) { return ShiftImmediate(x, i, false); }
inline bool ShiftRight(uint32_t x, Insn& i) { return ShiftImmediate(x, i, true); }
// Narrowing right shifts: 8- and 16-bit results only (imm6 001xxx / 01xxxx), T (12).
inline bool ShiftRightNarrow(uint32_t x, Insn& i) {
  i.top = Bits(x, 12, 12);
  return ShiftImmediate(x, i, true) && i.size != 2;
}
// VSHLL T1 (and VMOVL, its zero-shift form): imm5 (20:16) 01xxx = 8-bit source,
// 1xxxx = 16-bit; T (12).
inline bool ShiftLeftLong(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  i.u = Bits(x, 28, 28);
  i.top = Bits(x, 12, 12);
  const uint32_t imm5 = Bits(x, 20, 16);
  if (imm5 >= 16) {
    i.size = 1, i.imm = int32_t(imm5 - 16);
  } else if (imm5 >= 8) {
    i.size = 0, i.imm = int32_t(imm5 - 8);
  } else {
    return false;
  }
  return i.qd < 8 && i.qm < 8;
}
// VSHLL T2: shift by the element size; size (19:18) 0 or 1, T (12).
inline bool ShiftLeftLongFull(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  i.u = Bits(x, 28, 28);
  i.top = Bits(x, 12, 12);
  i.size = uint8_t(Bits(x, 19, 18));
  i.imm = 8 << i.size;
  return i.size < 2 && i.qd < 8 && i.qm < 8;
}
// VMOVN/VQMOVN/VQMOVUN: size (19:18) of the result, T (12), U (28).
inline bool Narrow(uint32_t x, Insn& i) {
  i.top = Bits(x, 12, 12);
  i.u = Bits(x, 28, 28);
  return OneOp(x, i) && i.size < 2;
}
// One register and a modified immediate: cmode (11:8), op (5), imm8 = i:imm3:imm4.
inline bool ModifiedImmediate(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x));
  i.rda = uint8_t(Bits(x, 11, 8));                  // cmode
  i.subtract = Bits(x, 5, 5);                       // op
  i.imm = int32_t(Bits(x, 28, 28) << 7 | Bits(x, 18, 16) << 4 | Bits(x, 3, 0));
  return i.qd < 8 && !(i.rda == 15 && i.subtract);  // cmode 1111 with op 1 is UNDEFINED
}

// Floating point (MVE-F): the precision is a field; size 1 = half, 2 = single.
// Two vectors: sz (20), 1 = half.
inline bool FpTwoOp(uint32_t x, Insn& i) {
  i.size = Bits(x, 20, 20) ? 1 : 2;
  return TwoOpNoSize(x, i);
}
// VFMA/VFMS: bit 21 negates the product.
inline bool FpFma(uint32_t x, Insn& i) {
  i.subtract = Bits(x, 21, 21);
  return FpTwoOp(x, i);
}
// Vector and scalar: sz (28), 1 = half; Rm (3:0), SP and PC UNPREDICTABLE; bit 12 is
// VFMAS's.
inline bool FpScalar(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qn = uint8_t(Qn(x));
  i.rm = uint8_t(Bits(x, 3, 0));
  i.size = Bits(x, 28, 28) ? 1 : 2;
  i.accumulate = Bits(x, 12, 12);
  return i.qd < 8 && i.qn < 8 && General(i.rm);
}
// One vector: size (19:18) 01 = half, 10 = single.
inline bool FpOneOp(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  const uint32_t size = Bits(x, 19, 18);
  i.size = uint8_t(size);
  return (size == 1 || size == 2) && i.qd < 8 && i.qm < 8;
}
// VCVT between floating point and integer: op (8:7) in imm.
inline bool FpConvert(uint32_t x, Insn& i) {
  i.imm = int32_t(Bits(x, 8, 7));
  return FpOneOp(x, i);
}
// VMAXNMA/VMINNMA: Qda, Qm; sz (28); bit 12 = min.
inline bool FpMaxNmAbs(uint32_t x, Insn& i) {
  i.size = Bits(x, 28, 28) ? 1 : 2;
  i.subtract = Bits(x, 12, 12);
  return OneOpNoSize(x, i);
}
// VCMP/VPT floating point: sz (28); fc from bits 12, 7 and 0 (vector) or 5 (scalar):
// EQ, NE, GE, LT, GT, LE; the CS and HI codes are other encodings.
inline bool FpCompareFields(uint32_t x, Insn& i, int low) {
  i.qn = uint8_t(Bits(x, 19, 17));
  i.size = Bits(x, 28, 28) ? 1 : 2;
  i.imm = int32_t(Bits(x, 22, 22) << 3 | Bits(x, 15, 13));
  i.rda = uint8_t(Bits(x, 12, 12) << 2 | Bits(x, 7, 7) << 1 | Bits(x, low, low));
  return i.rda != 1 && i.rda != 3;
}
inline bool FpCompare(uint32_t x, Insn& i) {
  i.qm = uint8_t(Qm(x));
  return FpCompareFields(x, i, 0) && i.qm < 8;
}
inline bool FpCompareScalar(uint32_t x, Insn& i) {
  i.rm = uint8_t(Bits(x, 3, 0));
  return FpCompareFields(x, i, 5) && i.rm != 13;  // Rm = PC: zero
}
// VMAXNMV family: Rda (15:12), Qm, sz (28), bit 7 = min, bit 17 clear = absolute.
inline bool FpMaxAcross(uint32_t x, Insn& i) {
  i.rda = uint8_t(Bits(x, 15, 12));
  i.qm = uint8_t(Qm(x));
  i.size = Bits(x, 28, 28) ? 1 : 2;
  i.subtract = Bits(x, 7, 7);
  i.accumulate = !Bits(x, 17, 17);
  return General(i.rda) && i.qm < 8;
}

// VMOV two lanes <-> two registers: Rt2 (19:16), Rt (3:0), idx (4), Qd. SP, PC and
// (to registers) Rt = Rt2 are UNPREDICTABLE.
inline bool MovLanes(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x));
  i.rt2 = uint8_t(Bits(x, 19, 16)), i.rt = uint8_t(Bits(x, 3, 0));
  i.imm = int32_t(Bits(x, 4, 4));
  const bool to_registers = !Bits(x, 20, 20);
  return i.qd < 8 && i.rt != 13 && i.rt != 15 && i.rt2 != 13 && i.rt2 != 15 && !(to_registers && i.rt == i.rt2);
}
// VIDUP family: size (21:20), Rn (19:17 << 1), imm 1 << (7:0 bits), bit 12 = decrement;
// the wrapping forms have Rm (3:1 << 1 | 1), and Rm = PC is the non-wrapping form.
inline bool IncrementDup(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x));
  i.size = uint8_t(Bits(x, 21, 20));
  i.rn = uint8_t(Bits(x, 19, 17) << 1);
  i.rm = uint8_t(Bits(x, 3, 1) << 1 | 1);
  i.imm = 1 << (Bits(x, 7, 7) << 1 | Bits(x, 0, 0));
  i.subtract = Bits(x, 12, 12);
  i.exchange = i.rm != 15;  // wraps
  return i.size != 3 && i.qd < 8 && i.rm != 13;
}
// VREV16/32/64: container in bytes.
inline bool Reverse(uint32_t x, Insn& i, int container) {
  i.imm = container;
  return OneOp(x, i) && (1 << i.size) < container;
}
inline bool Reverse16(uint32_t x, Insn& i) { return Reverse(x, i, 2); }
inline bool Reverse32(uint32_t x, Insn& i) { return Reverse(x, i, 4); }
inline bool Reverse64(uint32_t x, Insn& i) { return Reverse(x, i, 8); }
// VMAXA/VMINA: Qda, Qm, size (19:18), bit 12 = min.
inline bool MaxAbs(uint32_t x, Insn& i) {
  i.subtract = Bits(x, 12, 12);
  return OneOp(x, i);
}
// VMULL: TwoOp with T (12).
inline bool MulLong(uint32_t x, Insn& i) {
  i.top = Bits(x, 12, 12);
  return TwoOp(x, i);
}
// VABAV: size (21:20), Rda (15:12), Qn, Qm, U (28).
inline bool AbsDiffAcross(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.size = uint8_t(Bits(x, 21, 20));
  i.rda = uint8_t(Bits(x, 15, 12));
  i.qn = uint8_t(Qn(x)), i.qm = uint8_t(Qm(x));
  return i.size != 3 && i.rda != 13 && i.rda != 15 && i.qn < 8 && i.qm < 8;
}

// VQDMLADH family: TwoOp; X (12), subtract (28: VQDMLSDH), rounding (0: VQRDMLADH).
inline bool DualDoubling(uint32_t x, Insn& i) {
  i.exchange = Bits(x, 12, 12), i.subtract = Bits(x, 28, 28), i.rounding = Bits(x, 0, 0);
  return TwoOp(x, i);
}
// VQDMULLB/T, VMULLP: the source size from bit 28 (0: 16-bit, 1: 32-bit for VQDMULL;
// 0: 8-bit, 1: 16-bit for VMULLP), T (12).
inline bool LongBySize28(uint32_t x, Insn& i, uint8_t smaller) {
  i.size = uint8_t(smaller + Bits(x, 28, 28));
  i.top = Bits(x, 12, 12);
  return TwoOpNoSize(x, i);
}
// A 32-bit VQDMULL into one of its own operands is UNPREDICTABLE (QEMU: UNDEFINED).
inline bool DoublingLong(uint32_t x, Insn& i) {
  return LongBySize28(x, i, 1) && !(i.size == 2 && (i.qd == i.qn || i.qd == i.qm));
}
inline bool MulLongPolynomial(uint32_t x, Insn& i) { return LongBySize28(x, i, 0); }
inline bool DoublingLongScalar(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qn = uint8_t(Qn(x));
  i.rm = uint8_t(Bits(x, 3, 0));
  i.size = uint8_t(1 + Bits(x, 28, 28));
  i.top = Bits(x, 12, 12);
  return i.qd < 8 && i.qn < 8 && General(i.rm) && !(i.size == 2 && i.qd == i.qn);
}
// VQ{R}DMLA{S}H: Scalar; S (12) multiplies Qda by Qn and adds Rm; bit 5 clear rounds.
inline bool DoublingAccumulate(uint32_t x, Insn& i) {
  i.subtract = Bits(x, 12, 12), i.rounding = !Bits(x, 5, 5);
  return Scalar(x, i);
}
// VADC/VSBC{I}: 32-bit lanes; bit 28 subtracts, bit 12 is the I form.
inline bool AddWithCarry(uint32_t x, Insn& i) {
  i.subtract = Bits(x, 28, 28);
  i.size = 2;
  return TwoOpNoSize(x, i);
}
// VRMLALDAVH family: 32-bit lanes, RdaHi (22:20 << 1 | 1), RdaLo (15:13 << 1), X (12),
// A (5); `subtract` lines are VRMLSLDAVH, signed whatever bit 28 says.
inline bool RoundingMulAddLongAcross(uint32_t x, Insn& i, bool subtract) {
  i.u = !subtract && Bits(x, 28, 28);
  i.size = 2;
  i.subtract = subtract;
  i.exchange = Bits(x, 12, 12);
  i.accumulate = Bits(x, 5, 5);
  i.qn = uint8_t(Qn(x));
  i.qm = uint8_t(Bits(x, 3, 1));
  i.rda = uint8_t(Bits(x, 15, 13) << 1);
  i.rdahi = uint8_t(Bits(x, 22, 20) << 1 | 1);
  return i.rdahi < 13 && i.qn < 8 && i.qm < 8 && !(i.u && i.exchange);
}
inline bool RoundingMulAddLongAcrossAdd(uint32_t x, Insn& i) { return RoundingMulAddLongAcross(x, i, false); }
inline bool RoundingMulAddLongAcrossSub(uint32_t x, Insn& i) { return RoundingMulAddLongAcross(x, i, true); }
// VSHLC: Qda, Rdm (3:0; SP and PC UNPREDICTABLE), imm5 (20:16, 0 = 32).
inline bool ShiftLeftCarry(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x));
  i.rm = uint8_t(Bits(x, 3, 0));
  i.imm = int32_t(Bits(x, 20, 16));
  i.size = 2;
  return i.qd < 8 && General(i.rm);
}

// LSLL/ASRL by register (the MVE long shifts, DDI 0553 §C2.4): RdaLo (19:17 << 1),
// RdaHi (11:9 << 1 | 1; SP and PC UNPREDICTABLE), Rm (15:12, not SP, PC, RdaLo or
// RdaHi), op (5:4: 00 LSLL, 10 ASRL).
inline bool LongShiftRegister(uint32_t x, Insn& i) {
  i.rda = uint8_t(Bits(x, 19, 17) << 1);
  i.rdahi = uint8_t(Bits(x, 11, 9) << 1 | 1);
  i.rm = uint8_t(Bits(x, 15, 12));
  i.imm = int32_t(Bits(x, 5, 4));
  i.scalar = true;
  return (i.imm == 0 || i.imm == 2) && General(i.rdahi) && General(i.rm) && i.rm != i.rda && i.rm != i.rdahi;
}

// VCMUL: size from bit 28 (0 half, 1 single), rotation from bits 12 and 0.
inline bool FpComplexMultiply(uint32_t x, Insn& i) {
  i.size = Bits(x, 28, 28) ? 2 : 1;
  i.imm = int32_t(Bits(x, 12, 12) << 1 | Bits(x, 0, 0));
  return TwoOpNoSize(x, i) && !(i.size == 2 && (i.qd == i.qn || i.qd == i.qm));
}
// VCMLA: rotation (24:23); VCADD (floating point): bit 24 = #270. Size from bit 20
// (0 half, 1 single: the reverse of the other two-vector forms).
inline bool FpComplexMultiplyAdd(uint32_t x, Insn& i) {
  i.size = Bits(x, 20, 20) ? 2 : 1;
  i.imm = int32_t(Bits(x, 24, 23));
  return TwoOpNoSize(x, i) && !(i.size == 2 && (i.qd == i.qn || i.qd == i.qm));
}
inline bool FpComplexAdd(uint32_t x, Insn& i) {
  i.size = Bits(x, 20, 20) ? 2 : 1;
  return TwoOpNoSize(x, i) && !(i.size == 2 && i.qd == i.qm);
}

// VCVT between floating point and fixed point: U (28), size (9: 1 single, 0 half), op (8:
// 1 to fixed), fraction bits 64 - imm6 (21:16): 1-32 for single, 1-16 for half.
inline bool FpConvertFixed(uint32_t x, Insn& i) {
  i.qd = uint8_t(Qd(x)), i.qm = uint8_t(Qm(x));
  i.size = Bits(x, 9, 9) ? 2 : 1;
  const uint32_t imm6 = Bits(x, 21, 16);
  i.fbits = uint8_t(64 - imm6);
  i.imm = int32_t(Bits(x, 8, 8) << 1 | Bits(x, 28, 28));
  return imm6 >= (i.size == 2 ? 32u : 48u) && i.qd < 8 && i.qm < 8;
}
// VCVTA/N/P/M: size (19:18), RM (9:8: away, nearest, plus, minus), op (7) unsigned.
inline bool FpConvertRounding(uint32_t x, Insn& i) {
  static constexpr int kModes[4] = {kRoundTiesAway, kRoundNearestEven, kRoundUp, kRoundDown};
  i.imm = kModes[Bits(x, 9, 8)];
  i.u = Bits(x, 7, 7);
  return FpOneOp(x, i);
}
// VRINT: size (19:18), op (9:7): N 000, X 001, A 010, Z 011, M 101, P 111.
inline bool FpRound(uint32_t x, Insn& i) {
  static constexpr int kModes[8] = {kRoundNearestEven, kRoundNearestEven, kRoundTiesAway, kRoundToZero,
                                    -1,                kRoundDown,        -1,             kRoundUp};
  const uint32_t op = Bits(x, 9, 7);
  i.imm = kModes[op];
  i.exchange = op == 1;  // VRINTX: Inexact raised
  return i.imm >= 0 && FpOneOp(x, i);
}
// VCVTB/VCVTT between half and single: bit 28 widens (F32.F16), T (12).
inline bool FpConvertHalf(uint32_t x, Insn& i) {
  i.u = Bits(x, 28, 28);
  i.top = Bits(x, 12, 12);
  return OneOpNoSize(x, i);
}

// VMOV between a general-purpose register and an 8- or 16-bit lane (the 32-bit forms are
// VFP's, left to the engine): D:Vd (7, 19:16), Rt (15:12), opc1 (22:21), opc2 (6:5), U
// (23) for the lane-to-register forms; imm is the lane's byte offset in Q0-Q7.
inline bool MovLane(uint32_t x, Insn& i) {
  const uint32_t d = Bits(x, 7, 7) << 4 | Bits(x, 19, 16), opc1 = Bits(x, 22, 21), opc2 = Bits(x, 6, 5);
  i.rt = uint8_t(Bits(x, 15, 12));
  i.u = Bits(x, 23, 23);
  if (opc1 & 2) {
    i.size = 0, i.imm = int32_t(8 * d + ((opc1 & 1) << 2 | opc2));
  } else if (opc2 & 1) {
    i.size = 1, i.imm = int32_t(8 * d + 2 * ((opc1 & 1) << 1 | opc2 >> 1));
  } else {
    return false;
  }
  const bool to_lane = !Bits(x, 20, 20);
  return d < 16 && General(i.rt) && !(to_lane && i.u);
}

// Scalar half precision (the FP16 extension): S registers Sd = Vd:D, Sn = Vn:N, Sm =
// Vm:M, kept in qd/qn/qm.
inline int Sd(uint32_t x) { return int(Bits(x, 15, 12) << 1 | Bits(x, 22, 22)); }
inline int Sn(uint32_t x) { return int(Bits(x, 19, 16) << 1 | Bits(x, 7, 7)); }
inline int Sm(uint32_t x) { return int(Bits(x, 3, 0) << 1 | Bits(x, 5, 5)); }
inline bool HalfThree(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qn = uint8_t(Sn(x)), i.qm = uint8_t(Sm(x));
  i.imm = int32_t((Bits(x, 23, 23) << 2 | Bits(x, 21, 20)) << 1 | Bits(x, 6, 6));
  return i.imm != 9 && i.imm < 14;
}
// VABS (opc2 0000, bit 7 set), VNEG (0001, clear), VSQRT (0001, set).
inline bool HalfUnary(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qm = uint8_t(Sm(x));
  const uint32_t opc2 = Bits(x, 19, 16), op = Bits(x, 7, 7);
  i.imm = opc2 == 0 ? 0 : op ? 2 : 1;
  return !(opc2 == 0 && !op);  // VMOV (register) has no .F16 form
}
inline bool HalfMoveImmediate(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x));
  i.imm = int32_t(Bits(x, 19, 16) << 4 | Bits(x, 3, 0));
  return Bits(x, 7, 4) == 0;
}
// VCMP (bit 7 clear) or VCMPE, with Sm or #0 (opc2 0101: Sm must be 0).
inline bool HalfCompare(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qm = uint8_t(Sm(x));
  i.exchange = Bits(x, 7, 7);
  i.accumulate = Bits(x, 16, 16);
  return !i.accumulate || (Bits(x, 5, 5) == 0 && Bits(x, 3, 0) == 0);
}
// VCVT{R}: opc2 1000 from integer (bit 7 signed), 1100/1101 to U32/S32 (bit 7 toward zero).
inline bool HalfConvert(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qm = uint8_t(Sm(x));
  const uint32_t opc2 = Bits(x, 19, 16), op = Bits(x, 7, 7);
  if (opc2 == 8) {
    i.imm = 1, i.u = !op;
  } else if (opc2 == 12 || opc2 == 13) {
    i.imm = 0, i.u = opc2 == 12, i.rounding = op;
  } else {
    return false;
  }
  return true;
}
inline bool HalfMaxMin(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qn = uint8_t(Sn(x)), i.qm = uint8_t(Sm(x));
  i.subtract = Bits(x, 6, 6);
  return true;
}
// VRINTR/VRINTZ (opc2 0110, bit 7 = Z), VRINTX (0111, bit 7 clear); VRINTA/N/P/M
// (bits 17:16 RM, in the unconditional space).
inline bool HalfRoundFpscr(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qm = uint8_t(Sm(x));
  const bool z = Bits(x, 7, 7), x_form = Bits(x, 16, 16);
  if (x_form && z) return false;
  i.imm = z ? kRoundToZero : -1;
  i.exchange = x_form;
  return true;
}
inline bool HalfRoundDirected(uint32_t x, Insn& i) {
  static constexpr int kModes[4] = {kRoundTiesAway, kRoundNearestEven, kRoundUp, kRoundDown};
  i.qd = uint8_t(Sd(x)), i.qm = uint8_t(Sm(x));
  i.imm = kModes[Bits(x, 17, 16)];
  return true;
}
inline bool HalfTwo(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qm = uint8_t(Sm(x));
  return true;
}
// VMOV.F16 between Sn and Rt (15:12); SP and PC UNPREDICTABLE.
inline bool HalfMove(uint32_t x, Insn& i) {
  i.qn = uint8_t(Sn(x));
  i.rt = uint8_t(Bits(x, 15, 12));
  return General(i.rt);
}
// VLDR.16/VSTR.16: U (23), Rn, imm8 << 1; Rn = PC is the literal form, loads only (VSTR
// from the PC is UNPREDICTABLE).
inline bool HalfLoadStore(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x));
  i.add = Bits(x, 23, 23);
  i.rn = uint8_t(Bits(x, 19, 16));
  i.imm = int32_t(Bits(x, 7, 0) << 1);
  return i.rn != 15 || Bits(x, 20, 20);
}
// VCVT between .F16 and fixed point (sf 01): op (18) to fixed, U (16), sx (7) a 32-bit
// fixed-point value (else 16), imm4:i (3:0, 5); fraction bits (sx ? 32 : 16) - imm, a
// negative count UNPREDICTABLE.
inline bool HalfConvertFixed(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x));
  i.imm = int32_t(Bits(x, 18, 18));
  i.u = Bits(x, 16, 16);
  i.size = Bits(x, 7, 7) ? 2 : 1;
  const uint32_t imm = Bits(x, 3, 0) << 1 | Bits(x, 5, 5), bits = i.size == 2 ? 32u : 16u;
  i.fbits = uint8_t(bits - imm);
  return imm <= bits;
}
// VSEL .F16: cc (21:20) EQ, VS, GE, GT.
inline bool HalfSelect(uint32_t x, Insn& i) {
  i.qd = uint8_t(Sd(x)), i.qn = uint8_t(Sn(x)), i.qm = uint8_t(Sm(x));
  i.imm = int32_t(Bits(x, 21, 20));
  return true;
}

}  // namespace faultline::arm::mve::format
