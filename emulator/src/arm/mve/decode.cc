// The MVE decoder: one line per encoding, in the bit order of DDI 0553's encoding
// diagrams (hw1 then hw2, bit 31 first; `.` is a field bit). The first line that
// matches and whose format accepts the fields wins, so a line that shares bits with a
// more specific one comes after it (as decodetree's overlap groups order them).
#include <array>
#include <string_view>

#include "formats.h"
#include "handlers.h"
#include "mve.h"
#include "softfloat.h"

namespace faultline::arm::mve {

namespace {

using namespace format;  // formats.h

struct Line {
  const char* name;
  const char* pattern;
  Format format;
  Handler handler;
  uint32_t mask = 0, value = 0;
};

#define L(name, pattern, format, handler) Line{name, pattern, format, handler}
// DDI 0553 chapter C2; the order follows its "MVE" decode tables.
std::array kLines = {
    // Loads and stores (§C2.4.x VLDR/VSTR).
    L("VLDRB/VSTRB (widening)", "111. 110. .0.. 0... ...0 1110 1... ....", Widening, Handlers::LoadStoreWidening),
    L("VLDRB/VSTRB (widening)", "111. 110. .0.. 0... ...0 1111 0... ....", Widening, Handlers::LoadStoreWidening),
    L("VLDRH/VSTRH (widening)", "111. 110. .0.. 1... ...0 1111 0... ....", Widening, Handlers::LoadStoreWidening),
    L("VLDR/VSTR", "1110 110. .... .... ...1 1110 0... ....", Contiguous, Handlers::LoadStore),
    L("VLDR/VSTR", "1110 110. .... .... ...1 1110 1... ....", Contiguous, Handlers::LoadStore),
    L("VLDR/VSTR", "1110 110. .... .... ...1 1111 0... ....", Contiguous, Handlers::LoadStore),
    L("VLDR/VSTR (gather, offsets)", "111. 1100 1.0. .... ...0 111. .... ....", GatherOffsets, Handlers::GatherOffsets),
    L("VLDR/VSTR (gather, addresses)", "1111 1101 .... ...0 ...1 111. .... ....", GatherAddresses,
      Handlers::GatherAddresses),
    L("VLD2/VST2", "1111 1100 1... .... ...1 111. ...0 0000", Interleaving2, Handlers::Interleave2),
    L("VLD4/VST4", "1111 1100 1... .... ...1 111. ...0 0001", Interleaving4, Handlers::Interleave4),
    // Predication.
    L("VMRS P0/VPR", "1110 1110 1111 110. .... 1010 0001 0000", SpecialRegister, Handlers::ReadVpr),
    L("VMSR P0/VPR", "1110 1110 1110 110. .... 1010 0001 0000", SpecialRegister, Handlers::WriteVpr),
    L("VMRS FPSCR", "1110 1110 1111 00.. .... 1010 0001 0000", FpscrRegister, Handlers::ReadFpscr),
    L("VMSR FPSCR", "1110 1110 1110 00.. .... 1010 0001 0000", FpscrRegister, Handlers::WriteFpscr),
    L("VPNOT", "1111 1110 0011 0001 0000 1111 0100 1101", NoFields, Handlers::Vpnot),
    L("VPST", "1111 1110 0.11 0001 ...0 1111 0100 1101", Vpst, Handlers::Vpst),
    L("VPSEL", "1111 1110 0.11 ...1 ...0 1111 .0.0 ...1", TwoOpNoSize, Handlers::Vpsel),
    L("VCTP", "1111 0000 00.. .... 1110 1000 0000 0001", Ctp, Handlers::Vctp),
    // Tail-predicated loop start and clear (DDI 0553 §C2.4 DLSTP, LCTP): LR and LTPSIZE
    // only, no branch; LETP and WLSTP, which branch, are cpu/armv81m's.
    L("DLSTP", "1111 0000 00.. .... 1110 0000 0000 0001", LoopStart, Handlers::Dlstp),
    L("LCTP", "1111 0000 0000 1111 1110 0000 0000 0001", NoFields, Handlers::Lctp),
    L("VCMP/VPT", "1111 1110 0... ...1 .... 1111 .0.0 ...0", Compare, Handlers::Compare),
    L("VCMP/VPT", "1111 1110 0... ...1 .... 1111 .0.0 ...1", Compare, Handlers::Compare),
    L("VCMP/VPT (scalar)", "1111 1110 0... ...1 .... 1111 .1.0 ....", CompareScalar, Handlers::CompareScalar),
    // Across-vector reductions.
    L("VADDLV", "111. 1110 1... 1001 ...0 1111 00.0 ...0", AddLongAcross, Handlers::AddLongAcross),
    L("VADDV", "111. 1110 1111 ..01 ...0 1111 00.0 ...0", AddAcross, Handlers::AddAcross),
    L("VMAXV/VMINV", "111. 1110 1110 ..10 .... 1111 .0.0 ...0", MaxAcross, Handlers::MaxAcross),
    L("VMAXAV/VMINAV", "1110 1110 1110 ..00 .... 1111 .0.0 ...0", MaxAcross, Handlers::MaxAbsAcross),
    L("VMLADAV (8-bit)", "111. 1110 1111 ...0 .... 1111 .0.0 ....", MulAddAcross8, Handlers::MulAddAcross),
    L("VMLSDAV (8-bit)", "1111 1110 1111 ...0 .... 1110 .0.0 ...1", MulSubAcross8, Handlers::MulAddAcross),
    L("VMLADAV/VMLSDAV", "111. 1110 1111 .... .... 1110 .0.0 ....", MulAddAcross, Handlers::MulAddAcross),
    L("VMLALDAV/VMLSLDAV", "111. 1110 1... .... .... 1110 .0.0 ....", MulAddLongAcross, Handlers::MulAddLongAcross),
    // Two vectors.
    L("VAND", "1110 1111 0.00 ...0 ...0 0001 .1.1 ...0", TwoOpNoSize, Handlers::And),
    L("VBIC", "1110 1111 0.01 ...0 ...0 0001 .1.1 ...0", TwoOpNoSize, Handlers::Bic),
    L("VORR", "1110 1111 0.10 ...0 ...0 0001 .1.1 ...0", TwoOpNoSize, Handlers::Orr),
    L("VORN", "1110 1111 0.11 ...0 ...0 0001 .1.1 ...0", TwoOpNoSize, Handlers::Orn),
    L("VEOR", "1111 1111 0.00 ...0 ...0 0001 .1.1 ...0", TwoOpNoSize, Handlers::Eor),
    L("VADD", "1110 1111 0... ...0 ...0 1000 .1.0 ...0", TwoOp, Handlers::Add),
    L("VSUB", "1111 1111 0... ...0 ...0 1000 .1.0 ...0", TwoOp, Handlers::Sub),
    L("VMUL", "1110 1111 0... ...0 ...0 1001 .1.1 ...0", TwoOp, Handlers::Mul),
    L("VMULH/VRMULH", "111. 1110 0... ...1 .... 1110 .0.0 ...1", TwoOp, Handlers::MulHigh),
    L("VMAX", "111. 1111 0... ...0 ...0 0110 .1.0 ...0", TwoOp, Handlers::Max),
    L("VMIN", "111. 1111 0... ...0 ...0 0110 .1.1 ...0", TwoOp, Handlers::Min),
    L("VABD", "111. 1111 0... ...0 ...0 0111 .1.0 ...0", TwoOp, Handlers::Abd),
    L("VHADD", "111. 1111 0... ...0 ...0 0000 .1.0 ...0", TwoOp, Handlers::Hadd),
    L("VRHADD", "111. 1111 0... ...0 ...0 0001 .1.0 ...0", TwoOp, Handlers::Rhadd),
    L("VHSUB", "111. 1111 0... ...0 ...0 0010 .1.0 ...0", TwoOp, Handlers::Hsub),
    L("VQADD", "111. 1111 0... ...0 ...0 0000 .1.1 ...0", TwoOp, Handlers::Qadd),
    L("VQSUB", "111. 1111 0... ...0 ...0 0010 .1.1 ...0", TwoOp, Handlers::Qsub),
    L("VQDMULH", "1110 1111 0... ...0 ...0 1011 .1.0 ...0", TwoOp, Handlers::Qdmulh),
    L("VQRDMULH", "1111 1111 0... ...0 ...0 1011 .1.0 ...0", TwoOp, Handlers::Qrdmulh),
    L("VSHL (vector)", "111. 1111 0... ...0 ...0 0100 .1.0 ...0", TwoOpShift, Handlers::Shl),
    L("VRSHL (vector)", "111. 1111 0... ...0 ...0 0101 .1.0 ...0", TwoOpShift, Handlers::Rshl),
    L("VQSHL (vector)", "111. 1111 0... ...0 ...0 0100 .1.1 ...0", TwoOpShift, Handlers::Qshl),
    L("VQRSHL (vector)", "111. 1111 0... ...0 ...0 0101 .1.1 ...0", TwoOpShift, Handlers::Qrshl),
    // Vector and scalar.
    L("VSHL (scalar)", "111. 1110 0.11 ..01 ...1 1110 0110 ....", ShiftScalar, Handlers::ShlScalar),
    L("VRSHL (scalar)", "111. 1110 0.11 ..11 ...1 1110 0110 ....", ShiftScalar, Handlers::RshlScalar),
    L("VQSHL (scalar)", "111. 1110 0.11 ..01 ...1 1110 1110 ....", ShiftScalar, Handlers::QshlScalar),
    L("VQRSHL (scalar)", "111. 1110 0.11 ..11 ...1 1110 1110 ....", ShiftScalar, Handlers::QrshlScalar),
    L("VADD (scalar)", "1110 1110 0... ...1 ...0 1111 .100 ....", Scalar, Handlers::AddScalar),
    L("VSUB (scalar)", "1110 1110 0... ...1 ...1 1111 .100 ....", Scalar, Handlers::SubScalar),
    L("VMUL (scalar)", "1110 1110 0... ...1 ...1 1110 .110 ....", Scalar, Handlers::MulScalar),
    L("VHADD (scalar)", "111. 1110 0... ...0 ...0 1111 .100 ....", Scalar, Handlers::HaddScalar),
    L("VHSUB (scalar)", "111. 1110 0... ...0 ...1 1111 .100 ....", Scalar, Handlers::HsubScalar),
    L("VQADD (scalar)", "111. 1110 0... ...0 ...0 1111 .110 ....", Scalar, Handlers::QaddScalar),
    L("VQSUB (scalar)", "111. 1110 0... ...0 ...1 1111 .110 ....", Scalar, Handlers::QsubScalar),
    L("VQDMULH (scalar)", "1110 1110 0... ...1 ...0 1110 .110 ....", Scalar, Handlers::QdmulhScalar),
    L("VQRDMULH (scalar)", "1111 1110 0... ...1 ...0 1110 .110 ....", Scalar, Handlers::QrdmulhScalar),
    L("VMLA (scalar)", "111. 1110 0... ...1 ...0 1110 .100 ....", Scalar, Handlers::MlaScalar),
    L("VMLAS (scalar)", "111. 1110 0... ...1 ...1 1110 .100 ....", Scalar, Handlers::MlasScalar),
    L("VDUP", "1110 1110 1.10 ...0 .... 1011 .0.1 0000", Dup, Handlers::Dup),
    // One vector.
    L("VMVN", "1111 1111 1.11 0000 ...0 0101 11.0 ...0", OneOpNoSize, Handlers::Mvn),
    L("VABS", "1111 1111 1.11 ..01 ...0 0011 01.0 ...0", OneOp, Handlers::Abs),
    L("VNEG", "1111 1111 1.11 ..01 ...0 0011 11.0 ...0", OneOp, Handlers::Neg),
    L("VCLZ", "1111 1111 1.11 ..00 ...0 0100 11.0 ...0", OneOp, Handlers::Clz),
    L("VMOVNB/T", "1111 1110 0.11 ..01 .... 1110 10.0 ...1", Narrow, Handlers::MovN),
    L("VQMOVNB/T", "111. 1110 0.11 ..11 .... 1110 00.0 ...1", Narrow, Handlers::QmovN),
    L("VQMOVUNB/T", "1110 1110 0.11 ..01 .... 1110 10.0 ...1", Narrow, Handlers::QmovUN),
    L("VSHLL (T2)", "111. 1110 0.11 ..01 .... 1110 00.0 ...1", ShiftLeftLongFull, Handlers::ShiftLeftLong),
    // Shifts by immediate.
    L("VSHLL/VMOVL", "111. 1110 1.1. .... .... 1111 01.0 ...0", ShiftLeftLong, Handlers::ShiftLeftLong),
    L("VSHL (immediate)", "1110 1111 1... .... ...0 0101 01.1 ...0", ShiftLeft, Handlers::ShlImmediate),
    L("VSHR", "111. 1111 1... .... ...0 0000 01.1 ...0", ShiftRight, Handlers::ShrImmediate),
    L("VRSHR", "111. 1111 1... .... ...0 0010 01.1 ...0", ShiftRight, Handlers::RshrImmediate),
    L("VSHRNB/T", "1110 1110 1... .... .... 1111 11.0 ...1", ShiftRightNarrow, Handlers::ShrN),
    L("VRSHRNB/T", "1111 1110 1... .... .... 1111 11.0 ...1", ShiftRightNarrow, Handlers::RshrN),
    L("VQSHRNB/T", "111. 1110 1... .... .... 1111 01.0 ...0", ShiftRightNarrow, Handlers::QshrN),
    L("VQRSHRNB/T", "111. 1110 1... .... .... 1111 01.0 ...1", ShiftRightNarrow, Handlers::QrshrN),
    L("VQSHRUNB/T", "1110 1110 1... .... .... 1111 11.0 ...0", ShiftRightNarrow, Handlers::QshrUN),
    L("VQRSHRUNB/T", "1111 1110 1... .... .... 1111 11.0 ...0", ShiftRightNarrow, Handlers::QrshrUN),
    // Lane moves and the remaining integer forms.
    L("VMOV (two lanes to registers)", "1110 1100 0.00 .... ...0 1111 000. ....", MovLanes, Handlers::MovToRegisters),
    L("VMOV (registers to two lanes)", "1110 1100 0.01 .... ...0 1111 000. ....", MovLanes, Handlers::MovFromRegisters),
    L("VMOV (register to 8/16-bit lane)", "1110 1110 0..0 .... .... 1011 ...1 0000", MovLane, Handlers::MovToLane),
    L("VMOV (8/16-bit lane to register)", "1110 1110 ...1 .... .... 1011 ...1 0000", MovLane, Handlers::MovFromLane),
    L("VIDUP/VDDUP/VIWDUP/VDWDUP", "1110 1110 0... ...1 .... 1111 .110 ....", IncrementDup, Handlers::IncrementDup),
    L("VREV16", "1111 1111 1.11 ..00 ...0 0001 01.0 ...0", Reverse16, Handlers::Reverse),
    L("VREV32", "1111 1111 1.11 ..00 ...0 0000 11.0 ...0", Reverse32, Handlers::Reverse),
    L("VREV64", "1111 1111 1.11 ..00 ...0 0000 01.0 ...0", Reverse64, Handlers::Reverse),
    L("VCLS", "1111 1111 1.11 ..00 ...0 0100 01.0 ...0", OneOp, Handlers::Cls),
    L("VQABS", "1111 1111 1.11 ..00 ...0 0111 01.0 ...0", OneOp, Handlers::Qabs),
    L("VQNEG", "1111 1111 1.11 ..00 ...0 0111 11.0 ...0", OneOp, Handlers::Qneg),
    L("VMAXA/VMINA", "1110 1110 0.11 ..11 .... 1110 10.0 ...1", MaxAbs, Handlers::MaxAbs),
    L("VMULL (integer)", "111. 1110 0... ...1 .... 1110 .0.0 ...0", MulLong, Handlers::MulLong),
    L("VMULLP", "111. 1110 0.11 ...1 .... 1110 .0.0 ...0", MulLongPolynomial, Handlers::MulLongPolynomial),
    L("VQDMLADH/VQDMLSDH", "111. 1110 0... ...0 .... 1110 .0.0 ....", DualDoubling, Handlers::DualDoublingHigh),
    L("VCMUL", "111. 1110 0.11 ...0 .... 1110 .0.0 ....", FpComplexMultiply, Handlers::FloatComplexMultiply),
    L("VQDMULLB/T", "111. 1110 0.11 ...0 .... 1111 .0.0 ...1", DoublingLong, Handlers::DoublingLong),
    L("VQDMULLB/T (scalar)", "111. 1110 0.11 ...0 .... 1111 .110 ....", DoublingLongScalar,
      Handlers::DoublingLongScalar),
    L("VQDMLAH/VQRDMLAH (scalar)", "1110 1110 0... ...0 .... 1110 .1.0 ....", DoublingAccumulate,
      Handlers::DoublingAccumulate),
    L("VBRSR", "1111 1110 0... ...1 ...1 1110 .110 ....", Scalar, Handlers::BitReverseShiftRight),
    L("VADC/VSBC", "111. 1110 0.11 ...0 .... 1111 .0.0 ...0", AddWithCarry, Handlers::AddWithCarry),
    L("VCADD", "1111 1110 0... ...0 .... 1111 .0.0 ...0", TwoOp, Handlers::ComplexAdd),
    L("VHCADD", "1110 1110 0... ...0 .... 1111 .0.0 ...0", TwoOp, Handlers::HalvingComplexAdd),
    L("VRMLALDAVH", "111. 1110 1... ...0 .... 1111 .0.0 ...0", RoundingMulAddLongAcrossAdd,
      Handlers::RoundingMulAddLongAcrossHigh),
    L("VRMLSLDAVH", "1111 1110 1... ...0 .... 1110 .0.0 ...1", RoundingMulAddLongAcrossSub,
      Handlers::RoundingMulAddLongAcrossHigh),
    L("VSHLC", "1110 1110 1.1. .... ...0 1111 1100 ....", ShiftLeftCarry, Handlers::ShiftLeftCarry),
    L("LSLL/ASRL (register)", "1110 1010 0101 ...0 .... ...1 00.. 1101", LongShiftRegister, Handlers::LongShift),
    L("VSLI", "1111 1111 1... .... ...0 0101 01.1 ...0", ShiftLeft, Handlers::Sli),
    L("VSRI", "1111 1111 1... .... ...0 0100 01.1 ...0", ShiftRight, Handlers::Sri),
    L("VQSHL (immediate)", "111. 1111 1... .... ...0 0111 01.1 ...0", ShiftLeft, Handlers::QshlImmediate),
    L("VQSHLU (immediate)", "1111 1111 1... .... ...0 0110 01.1 ...0", ShiftLeft, Handlers::QshluImmediate),
    L("VABAV", "111. 1110 10.. ...0 .... 1111 .0.0 ...1", AbsDiffAcross, Handlers::AbsDiffAcross),
    // Floating point (MVE-F).
    L("VADD (floating-point)", "1110 1111 0.0. ...0 ...0 1101 .1.0 ...0", FpTwoOp, Handlers::FloatAdd),
    L("VSUB (floating-point)", "1110 1111 0.1. ...0 ...0 1101 .1.0 ...0", FpTwoOp, Handlers::FloatSub),
    L("VMUL (floating-point)", "1111 1111 0.0. ...0 ...0 1101 .1.1 ...0", FpTwoOp, Handlers::FloatMul),
    L("VABD (floating-point)", "1111 1111 0.1. ...0 ...0 1101 .1.0 ...0", FpTwoOp, Handlers::FloatAbd),
    L("VMAXNM", "1111 1111 0.0. ...0 ...0 1111 .1.1 ...0", FpTwoOp, Handlers::FloatMaxNm),
    L("VMINNM", "1111 1111 0.1. ...0 ...0 1111 .1.1 ...0", FpTwoOp, Handlers::FloatMinNm),
    L("VCMLA", "1111 110. ..1. ...0 ...0 1000 .1.0 ...0", FpComplexMultiplyAdd, Handlers::FloatComplexMultiplyAdd),
    L("VCADD (floating-point)", "1111 110. 1.0. ...0 ...0 1000 .1.0 ...0", FpComplexAdd, Handlers::FloatComplexAdd),
    L("VFMA/VFMS", "1110 1111 0... ...0 ...0 1100 .1.1 ...0", FpFma, Handlers::FloatFma),
    L("VADD (floating-point scalar)", "111. 1110 0.11 ...0 ...0 1111 .100 ....", FpScalar, Handlers::FloatAddScalar),
    L("VSUB (floating-point scalar)", "111. 1110 0.11 ...0 ...1 1111 .100 ....", FpScalar, Handlers::FloatSubScalar),
    L("VMUL (floating-point scalar)", "111. 1110 0.11 ...1 ...0 1110 .110 ....", FpScalar, Handlers::FloatMulScalar),
    L("VFMA/VFMAS (scalar)", "111. 1110 0.11 ...1 .... 1110 .100 ....", FpScalar, Handlers::FloatFmaScalar),
    L("VABS (floating-point)", "1111 1111 1.11 ..01 ...0 0111 01.0 ...0", FpOneOp, Handlers::FloatAbs),
    L("VNEG (floating-point)", "1111 1111 1.11 ..01 ...0 0111 11.0 ...0", FpOneOp, Handlers::FloatNeg),
    L("VMAXNMA/VMINNMA", "111. 1110 0.11 1111 .... 1110 10.0 ...1", FpMaxNmAbs, Handlers::FloatMaxNmAbs),
    L("VCMP/VPT (floating-point)", "111. 1110 0.11 ...1 .... 1111 .0.0 ....", FpCompare, Handlers::FloatCompare),
    L("VCMP/VPT (floating-point scalar)", "111. 1110 0.11 ...1 .... 1111 .1.0 ....", FpCompareScalar,
      Handlers::FloatCompareScalar),
    L("VMAXNMV/VMINNMV", "111. 1110 1110 11.0 .... 1111 .0.0 ...0", FpMaxAcross, Handlers::FloatMaxAcross),
    L("VCVT (floating-point, integer)", "1111 1111 1.11 ..11 ...0 011. .1.0 ...0", FpConvert, Handlers::FloatConvert),
    L("VCVT (floating-point, fixed-point)", "111. 1111 1.1. .... ...0 11.. 01.1 ...0", FpConvertFixed,
      Handlers::FloatConvert),
    L("VCVTA/VCVTN/VCVTP/VCVTM", "1111 1111 1.11 ..11 ...0 00.. .1.0 ...0", FpConvertRounding,
      Handlers::FloatConvertRounding),
    L("VRINT", "1111 1111 1.11 ..10 ...0 01.. .1.0 ...0", FpRound, Handlers::FloatRound),
    L("VCVTB/VCVTT (half, single)", "111. 1110 0.11 1111 .... 1110 00.0 ...1", FpConvertHalf,
      Handlers::FloatConvertHalf),
    // Scalar half precision (FP16 extension of the M55's FPU).
    L("VMLA..VFMS (half, scalar)", "1110 1110 0... .... .... 1001 ...0 ....", HalfThree, Handlers::HalfArithmetic),
    L("VMLA..VFMS (half, scalar)", "1110 1110 1.0. .... .... 1001 ...0 ....", HalfThree, Handlers::HalfArithmetic),
    L("VMLA..VFMS (half, scalar)", "1110 1110 1.10 .... .... 1001 ...0 ....", HalfThree, Handlers::HalfArithmetic),
    L("VMOV (half, immediate)", "1110 1110 1.11 .... .... 1001 0000 ....", HalfMoveImmediate, Handlers::HalfMoveImmediate),
    L("VABS/VNEG/VSQRT (half)", "1110 1110 1.11 000. .... 1001 .1.0 ....", HalfUnary, Handlers::HalfUnary),
    L("VCMP/VCMPE (half)", "1110 1110 1.11 010. .... 1001 .1.0 ....", HalfCompare, Handlers::HalfCompare),
    L("VCVT (half, integer)", "1110 1110 1.11 1... .... 1001 .1.0 ....", HalfConvert, Handlers::HalfConvert),
    L("VCVT (half, fixed-point)", "1110 1110 1.11 1.1. .... 1001 .1.0 ....", HalfConvertFixed,
      Handlers::HalfConvertFixed),
    L("VSEL (half)", "1111 1110 0... .... .... 1001 .0.0 ....", HalfSelect, Handlers::HalfSelect),
    L("VRINTR/VRINTZ/VRINTX (half)", "1110 1110 1.11 011. .... 1001 .1.0 ....", HalfRoundFpscr, Handlers::HalfRound),
    L("VRINTA/N/P/M (half)", "1111 1110 1.11 10.. .... 1001 01.0 ....", HalfRoundDirected, Handlers::HalfRound),
    L("VMAXNM/VMINNM (half)", "1111 1110 1.00 .... .... 1001 ...0 ....", HalfMaxMin, Handlers::HalfMaxMin),
    L("VINS (half)", "1111 1110 1.11 0000 .... 1010 11.0 ....", HalfTwo, Handlers::HalfInsert),
    L("VMOVX (half)", "1111 1110 1.11 0000 .... 1010 01.0 ....", HalfTwo, Handlers::HalfExtract),
    L("VMOV (half to register)", "1110 1110 0001 .... .... 1001 .001 0000", HalfMove, Handlers::HalfToRegister),
    L("VMOV (register to half)", "1110 1110 0000 .... .... 1001 .001 0000", HalfMove, Handlers::HalfFromRegister),
    L("VLDR/VSTR (half)", "1110 1101 ..0. .... .... 1001 .... ....", HalfLoadStore, Handlers::HalfLoadStore),
    // Immediate.
    L("VMOV/VMVN/VORR/VBIC (immediate)", "111. 1111 1.00 0... ...0 .... 01.1 ....", ModifiedImmediate,
      Handlers::ModifiedImmediate),
};
#undef L

struct Table {
  Table() {
    for (Line& l : kLines) {
      int bit = 31;
      for (char c : std::string_view(l.pattern)) {
        if (c == ' ') continue;
        if (c != '.') {
          l.mask |= 1u << bit;
          l.value |= uint32_t(c == '1') << bit;
        }
        --bit;
      }
    }
  }
};

}  // namespace

static const Table& Lines() {
  static const Table table;
  return table;
}

std::optional<Insn> Decode(uint16_t hw1, uint16_t hw2) {
  Lines();
  const uint32_t x = uint32_t(hw1) << 16 | hw2;
  for (const Line& l : kLines) {
    if ((x & l.mask) != l.value) continue;
    Insn i;
    i.raw = x;
    i.name = l.name;
    i.execute = l.handler;
    if (l.format(x, i)) return i;
  }
  return std::nullopt;
}

std::vector<Encoding> Encodings() {
  Lines();
  std::vector<Encoding> out;
  for (const Line& l : kLines) out.push_back({l.name, l.mask, l.value});
  return out;
}

}  // namespace faultline::arm::mve
