// The MVE instruction handlers the decoder table names (internal to arm/mve/).
#pragma once

#include "mve.h"

namespace faultline::arm::mve {

// VCMP's result: P0 = p in the active bytes; VPT (mask field imm != 0) opens a block.
void SetPredicate(State& s, const Insn& i, uint16_t p, uint16_t mask);

struct Handlers {
  // memory.cc
  static void LoadStore(const Insn&, State&);
  static void LoadStoreWidening(const Insn&, State&);
  static void GatherOffsets(const Insn&, State&);
  static void GatherAddresses(const Insn&, State&);
  static void Interleave2(const Insn&, State&);
  static void Interleave4(const Insn&, State&);
  // predicate.cc
  static void ReadVpr(const Insn&, State&);
  static void WriteVpr(const Insn&, State&);
  static void ReadFpscr(const Insn&, State&);
  static void WriteFpscr(const Insn&, State&);
  static void Vpst(const Insn&, State&);
  static void Vpnot(const Insn&, State&);
  static void Vpsel(const Insn&, State&);
  static void Vctp(const Insn&, State&);
  static void Dlstp(const Insn&, State&);
  static void Lctp(const Insn&, State&);
  static void Compare(const Insn&, State&);
  static void CompareScalar(const Insn&, State&);
  // reduce.cc
  static void AddAcross(const Insn&, State&);
  static void AddLongAcross(const Insn&, State&);
  static void MaxAcross(const Insn&, State&);
  static void MaxAbsAcross(const Insn&, State&);
  static void MulAddAcross(const Insn&, State&);
  static void MulAddLongAcross(const Insn&, State&);
  static void RoundingMulAddLongAcrossHigh(const Insn&, State&);
  // integer.cc
  static void And(const Insn&, State&);
  static void Bic(const Insn&, State&);
  static void Orr(const Insn&, State&);
  static void Orn(const Insn&, State&);
  static void Eor(const Insn&, State&);
  static void Add(const Insn&, State&);
  static void Sub(const Insn&, State&);
  static void Mul(const Insn&, State&);
  static void MulHigh(const Insn&, State&);
  static void Max(const Insn&, State&);
  static void Min(const Insn&, State&);
  static void Abd(const Insn&, State&);
  static void Hadd(const Insn&, State&);
  static void Rhadd(const Insn&, State&);
  static void Hsub(const Insn&, State&);
  static void Qadd(const Insn&, State&);
  static void Qsub(const Insn&, State&);
  static void Qdmulh(const Insn&, State&);
  static void Qrdmulh(const Insn&, State&);
  static void Shl(const Insn&, State&);
  static void Rshl(const Insn&, State&);
  static void Qshl(const Insn&, State&);
  static void Qrshl(const Insn&, State&);
  static void ShlScalar(const Insn&, State&);
  static void RshlScalar(const Insn&, State&);
  static void QshlScalar(const Insn&, State&);
  static void QrshlScalar(const Insn&, State&);
  static void AddScalar(const Insn&, State&);
  static void SubScalar(const Insn&, State&);
  static void MulScalar(const Insn&, State&);
  static void HaddScalar(const Insn&, State&);
  static void HsubScalar(const Insn&, State&);
  static void QaddScalar(const Insn&, State&);
  static void QsubScalar(const Insn&, State&);
  static void QdmulhScalar(const Insn&, State&);
  static void QrdmulhScalar(const Insn&, State&);
  static void MlaScalar(const Insn&, State&);
  static void MlasScalar(const Insn&, State&);
  static void Dup(const Insn&, State&);
  static void Mvn(const Insn&, State&);
  static void Abs(const Insn&, State&);
  static void Neg(const Insn&, State&);
  static void Clz(const Insn&, State&);
  static void ModifiedImmediate(const Insn&, State&);
  // misc.cc
  static void MovToRegisters(const Insn&, State&);
  static void MovFromRegisters(const Insn&, State&);
  static void MovToLane(const Insn&, State&);
  static void MovFromLane(const Insn&, State&);
  static void IncrementDup(const Insn&, State&);
  static void Reverse(const Insn&, State&);
  static void Cls(const Insn&, State&);
  static void Qabs(const Insn&, State&);
  static void Qneg(const Insn&, State&);
  static void MaxAbs(const Insn&, State&);
  static void MulLong(const Insn&, State&);
  static void AbsDiffAcross(const Insn&, State&);
  static void MulLongPolynomial(const Insn&, State&);
  static void AddWithCarry(const Insn&, State&);
  static void BitReverseShiftRight(const Insn&, State&);
  // complex.cc
  static void ComplexAdd(const Insn&, State&);
  static void HalvingComplexAdd(const Insn&, State&);
  static void FloatComplexAdd(const Insn&, State&);
  static void FloatComplexMultiply(const Insn&, State&);
  static void FloatComplexMultiplyAdd(const Insn&, State&);
  // doubling.cc
  static void DualDoublingHigh(const Insn&, State&);
  static void DoublingLong(const Insn&, State&);
  static void DoublingLongScalar(const Insn&, State&);
  static void DoublingAccumulate(const Insn&, State&);
  // float.cc
  static void FloatAdd(const Insn&, State&);
  static void FloatSub(const Insn&, State&);
  static void FloatMul(const Insn&, State&);
  static void FloatAbd(const Insn&, State&);
  static void FloatMaxNm(const Insn&, State&);
  static void FloatMinNm(const Insn&, State&);
  static void FloatFma(const Insn&, State&);
  static void FloatAddScalar(const Insn&, State&);
  static void FloatSubScalar(const Insn&, State&);
  static void FloatMulScalar(const Insn&, State&);
  static void FloatFmaScalar(const Insn&, State&);
  static void FloatAbs(const Insn&, State&);
  static void FloatNeg(const Insn&, State&);
  static void FloatMaxNmAbs(const Insn&, State&);
  static void FloatCompare(const Insn&, State&);
  static void FloatCompareScalar(const Insn&, State&);
  static void FloatMaxAcross(const Insn&, State&);
  static void FloatConvert(const Insn&, State&);
  static void FloatConvertRounding(const Insn&, State&);
  static void FloatRound(const Insn&, State&);
  static void FloatConvertHalf(const Insn&, State&);
  // fp16.cc (scalar half precision; S register numbers in qd/qn/qm)
  static void HalfArithmetic(const Insn&, State&);
  static void HalfUnary(const Insn&, State&);
  static void HalfMoveImmediate(const Insn&, State&);
  static void HalfCompare(const Insn&, State&);
  static void HalfConvert(const Insn&, State&);
  static void HalfConvertFixed(const Insn&, State&);
  static void HalfSelect(const Insn&, State&);
  static void HalfInsert(const Insn&, State&);
  static void HalfExtract(const Insn&, State&);
  static void HalfToRegister(const Insn&, State&);
  static void HalfFromRegister(const Insn&, State&);
  static void HalfLoadStore(const Insn&, State&);
  static void HalfMaxMin(const Insn&, State&);
  static void HalfRound(const Insn&, State&);
  // shift.cc
  static void ShlImmediate(const Insn&, State&);
  static void ShrImmediate(const Insn&, State&);
  static void RshrImmediate(const Insn&, State&);
  static void ShiftLeftLong(const Insn&, State&);
  static void MovN(const Insn&, State&);
  static void QmovN(const Insn&, State&);
  static void QmovUN(const Insn&, State&);
  static void ShrN(const Insn&, State&);
  static void RshrN(const Insn&, State&);
  static void QshrN(const Insn&, State&);
  static void QrshrN(const Insn&, State&);
  static void QshrUN(const Insn&, State&);
  static void QrshrUN(const Insn&, State&);
  static void QshlImmediate(const Insn&, State&);
  static void QshluImmediate(const Insn&, State&);
  static void Sli(const Insn&, State&);
  static void Sri(const Insn&, State&);
  static void ShiftLeftCarry(const Insn&, State&);
  static void LongShift(const Insn&, State&);
};

}  // namespace faultline::arm::mve
