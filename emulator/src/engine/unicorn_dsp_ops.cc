// DSP-extension instructions without a helper call each (docs/performance.md, "DSP-extension
// kernels").
//
// QEMU 5.0's Arm translator, as built into Unicorn 2.0.1, makes two of the operations
// CMSIS-NN-style kernels run most into helper calls:
//
//   helper_add_setq_arm   a 32-bit add that sets APSR.Q on signed overflow: SMLAD (twice),
//                         SMLADX, SMUAD, SMUADX, SMLSD, SMLABB..SMLATT, SMLAWB/SMLAWT.
//                         Declared without call flags (DEF_HELPER_3, target/arm/helper.h),
//                         so TCG writes back every guest register the block holds in a
//                         host register before the call and reloads them after.
//   helper_sxtb16_arm     SXTB16 and SXTAB16's sign extension of bytes 0 and 2.
//
// and the 36 parallel add/subtract instructions (SADD8...UHSAX: helper_sadd8_arm...
// helper_uhsubaddx_arm, op_addsub.h), which CMSIS-DSP's q15/q7 vector and FFT code and
// CMSIS-NN's ReLU and pooling use (__QADD16, __SHADD16, __QASX, __QSUB8...): calls
// without flags too, and the S and U forms write APSR.GE through a pointer; SEL
// (helper_sel_flags_arm), which picks bytes by GE after them.
//
// (QEMU 7.2 generates SMLAD without a call, which is most of its lead on the dsp rows.)
// The translator reaches tcg_gen_callN_arm through libunicorn's PLT (837 call sites in
// `objdump -d` of the Debian library, helper addresses loaded from its GOT), so the
// executable's definition interposes it, as core_block_count.cc does for
// uc_add_inline_hook_arm: when the callee is one of the helpers above it emits the same
// arithmetic as TCG ops where the call would have been, and passes every other call on.
// The ops compute what the helpers compute (qemu/target/arm/op_helper.c and helper.c):
// APSR.Q is env->QF, 0 or 1, and only ever set here, as the helper sets it. With one
// exception, where QEMU 5.0 is wrong: SMLAD and SMLADX add the two products, then Ra,
// with an add_setq each, so (-32768 * -32768) * 2 + Ra sets Q for any Ra although the
// sum only overflows for Ra >= 0 (Armv8-M ARM: Q is set when the whole sum does not fit;
// QEMU 7.2 computes it in 64 bits). Here the second add of such a pair (recognised
// below) sets Q for the whole sum and the first one's update of Q is removed.
//
// FAULTLINE_DSP_INLINE=stock in the environment leaves every call in place, for A/B
// measurement; on another libunicorn build (engine/unicorn_build.h) nothing is replaced.
//
// QEMU 5.0's opcode numbers (tcg-opc.h order), read off the Debian library's disassembly
// as core_block_count.cc reads its own: mov_i32 0x5 (tcg_gen_addi_i32_arm's zero case),
// ld_i32 0xd and st_i32 0x10 (load/store_cpu_offset in the translator), add_i32 0x11
// (tcg_gen_addi_i32_arm), sub_i32 0x12 (tcg_gen_subfi_i32_arm), or_i32 0x1b
// (tcg_gen_ori_i32_arm), xor_i32 0x1c (tcg_gen_xori_i32_arm). CPUARMState.QF is at 0x218 (helper_add_setq_arm's store).
// Operations the library exports (andc, shri, andi, muli, setcondi, extract, deposit,
// smin... tcg_op_remove) are called by name. TCGOp is laid out as in core_block_count.cc:
// the opcode in the low 8 bits of the first word, the list link's next at 0x8, args at
// 0x18.
#include "unicorn_dsp_ops.h"
#include "unicorn_interpose.h"
#include "unicorn_tcg.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>


namespace faultline::engine {

namespace {

constexpr int kTypeI32 = 0;  // TCG_TYPE_I32
constexpr int kOpMovI32 = 0x5, kOpLdI32 = 0xd, kOpStI32 = 0x10, kOpAddI32 = 0x11, kOpSubI32 = 0x12,
              kOpAndI32 = 0x1a, kOpOrI32 = 0x1b, kOpXorI32 = 0x1c;
constexpr int kCondEq = 8, kCondGe = 3;  // TCG_COND_EQ, TCG_COND_GE (tcg-cond.h)
constexpr uintptr_t kQfOffset = 0x218;  // offsetof(CPUARMState, QF)
struct TcgOp {
  uint32_t opc_and_params, life;
  TcgOp* next;  // link.tqe_next: null at the end of the list
  TcgOp* prev;
  uint64_t args[10];
};
static_assert(offsetof(TcgOp, args) == 0x18);

using CallN = void (*)(TCGContext*, void*, TCGTemp*, int, TCGTemp**);

// The parallel add/subtract helpers (op_addsub.h, instantiated in helper.c once per
// prefix): S and U modulo arithmetic, which set APSR.GE through a pointer argument, Q and
// UQ saturating, SH and UH halving. Lanes of 16 or 8 bits; ASX (QEMU's addsubx) subtracts
// in the low halfword and adds in the high one, the crossed halfwords of Rm, SAX
// (subaddx) the other way round.
enum class Pas { kS, kU, kQ, kUq, kSh, kUh };
enum class PasOp { kAdd16, kAdd8, kSub16, kSub8, kAsx, kSax };
constexpr const char* kPasPrefix[] = {"s", "u", "q", "uq", "sh", "uh"};
constexpr const char* kPasOp[] = {"add16", "add8", "sub16", "sub8", "addsubx", "subaddx"};
struct PasHelper {
  void* func;
  Pas pas;
  PasOp op;
};

struct Unicorn {
  bool stock = false;
  CallN call_n = nullptr;
  void* add_setq = nullptr;
  void* sxtb16 = nullptr;
  void* sel = nullptr;
  std::array<PasHelper, 36> pas{};
  Unicorn()
      : stock(TurnedOff("FAULTLINE_DSP_INLINE", "stock")),
        call_n(Unicorns<CallN>("tcg_gen_callN_arm")),
        // The addresses the translator passes: what its GOT holds, the global definition.
        add_setq(dlsym(RTLD_DEFAULT, "helper_add_setq_arm")),
        sxtb16(dlsym(RTLD_DEFAULT, "helper_sxtb16_arm")),
        sel(dlsym(RTLD_DEFAULT, "helper_sel_flags_arm")) {
    for (size_t p = 0; p < 6; ++p) {
      for (size_t op = 0; op < 6; ++op) {
        const std::string name = std::string("helper_") + kPasPrefix[p] + kPasOp[op] + "_arm";
        pas[p * 6 + op] = {dlsym(RTLD_DEFAULT, name.c_str()), Pas(p), PasOp(op)};
      }
    }
  }
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

std::atomic<uint64_t> inlined_calls{0}, inlined_pas_calls{0};
TcgCallHooks call_hooks;

// Ops on i32 temps, in the TCGTemp* form the call's arguments come in.
struct Ops {
  TCGContext* s;
  uintptr_t New() const { return reinterpret_cast<uintptr_t>(tcg_temp_new_internal_arm(s, kTypeI32, false)); }
  void Free(uintptr_t t) const { tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(t)); }
  intptr_t V(uintptr_t t) const { return intptr_t(t - reinterpret_cast<uintptr_t>(s)); }
  uintptr_t Const(int32_t v) const { return reinterpret_cast<uintptr_t>(s) + uintptr_t(tcg_const_i32_arm(s, v)); }
  TcgOp* Op(int opc, uintptr_t a, uintptr_t b, uintptr_t c = 0) const {
    auto* op = static_cast<TcgOp*>(tcg_emit_op_arm(s, opc));
    op->args[0] = a;
    op->args[1] = b;
    op->args[2] = c;
    return op;
  }
};

// The last add_setq emitted on this thread: its result and the ops that update QF.
struct LastAddSetQ {
  TCGContext* s = nullptr;
  uintptr_t ret = 0;
  TcgOp* q_update[3] = {};  // ld, or, st of QF
  TcgOp* last = nullptr;    // the mov into ret, the last op emitted
};
thread_local LastAddSetQ last_add_setq;

// Whether an add_setq of `a` and `b` is the second of SMLAD's pair: the first one's
// result is `a`, and the only op since is the translator's load of Ra into `b`
// (load_reg: a mov_i32). Any other instruction in between would have emitted at least
// its insn_start op.
bool SecondOfPair(TCGContext* s, uintptr_t a, uintptr_t b) {
  const LastAddSetQ& p = last_add_setq;
  if (p.s != s || p.last == nullptr || p.ret != a) return false;
  const TcgOp* load = p.last->next;
  return load != nullptr && load->next == nullptr && (load->opc_and_params & 0xFF) == uint32_t(kOpMovI32) &&
         load->args[0] == b;
}

// helper_add_setq: ret = a + b; QF |= signed overflow, i.e. the sum's sign differs from
// a's while a and b have the same sign. The result goes to a new temp first: the
// translator passes ret == a.
//
// The second add of SMLAD's pair: `a` is the sum of two products, which lies in
// [-2^31 + 2^16, 2^31], so it wrapped (and the first add set Q) exactly when it reads
// INT32_MIN, meaning +2^31. The whole sum 2^31 + Ra then fits when Ra < 0, which is
// when a + b overflows: Q is that overflow inverted, and the first add's update of Q
// goes (its overflow ops are then dead, and TCG drops them).
void AddSetQ(const Ops& o, uintptr_t ret, uintptr_t env, uintptr_t a, uintptr_t b) {
  const bool second = SecondOfPair(o.s, a, b);
  if (second) {
    for (TcgOp* op : last_add_setq.q_update) tcg_op_remove_arm(o.s, op);
  }
  const uintptr_t sum = o.New(), overflow = o.New(), t = o.New();
  o.Op(kOpAddI32, sum, a, b);
  o.Op(kOpXorI32, overflow, sum, a);
  o.Op(kOpXorI32, t, a, b);
  tcg_gen_andc_i32_arm(o.s, o.V(overflow), o.V(overflow), o.V(t));
  tcg_gen_shri_i32_arm(o.s, o.V(overflow), o.V(overflow), 31);
  if (second) {
    tcg_gen_setcondi_i32_arm(o.s, kCondEq, o.V(t), o.V(a), INT32_MIN);
    o.Op(kOpXorI32, overflow, overflow, t);
  }
  LastAddSetQ& p = last_add_setq;
  p.q_update[0] = o.Op(kOpLdI32, t, env, kQfOffset);
  p.q_update[1] = o.Op(kOpOrI32, t, t, overflow);
  p.q_update[2] = o.Op(kOpStI32, t, env, kQfOffset);
  p.last = o.Op(kOpMovI32, ret, sum);
  p.s = o.s;
  p.ret = ret;
  if (second) p.last = nullptr;  // a pair is two adds, not three
  for (uintptr_t v : {sum, overflow, t}) o.Free(v);
}

// helper_sxtb16: bytes 0 and 2 sign-extended into the two halfwords. Each lane keeps its
// byte, and its sign bit times 0x1FE fills the lane's upper byte (0x80 * 0x1FE = 0xFF00):
// no carry crosses a lane.
void Sxtb16(const Ops& o, uintptr_t ret, uintptr_t x) {
  const uintptr_t bytes = o.New(), signs = o.New();
  tcg_gen_andi_i32_arm(o.s, o.V(bytes), o.V(x), 0x00FF00FF);
  tcg_gen_andi_i32_arm(o.s, o.V(signs), o.V(x), 0x00800080);
  tcg_gen_muli_i32_arm(o.s, o.V(signs), o.V(signs), 0x1FE);
  o.Op(kOpOrI32, ret, bytes, signs);
  for (uintptr_t v : {bytes, signs}) o.Free(v);
}

// A parallel add/subtract helper, lane by lane as op_addsub.h computes it: each lane's
// operands extended to 32 bits (signed for S, Q and SH, unsigned for U, UQ and UH), their
// sum or difference, then the lane's result: its low bits (S, U), clamped to the lane's
// range (Q, UQ), or halved (SH, UH: the arithmetic shift's low bits are the logical
// one's). GE, for S and U only: each lane's bits (two per halfword) set when the signed
// result is >= 0, the unsigned sum carries out (sum >= 2^w) or the unsigned difference
// does not borrow (difference >= 0). The helper writes GE through its pointer argument
// (env + offsetof(GE), the translator's), and so do the ops.
void ParallelAddSub(const Ops& o, const PasHelper& h, uintptr_t ret, uintptr_t a, uintptr_t b, uintptr_t ge_ptr) {
  const bool wide = h.op == PasOp::kAdd16 || h.op == PasOp::kSub16 || h.op == PasOp::kAsx || h.op == PasOp::kSax;
  const unsigned w = wide ? 16 : 8, lanes = 32 / w;
  const bool is_signed = h.pas == Pas::kS || h.pas == Pas::kQ || h.pas == Pas::kSh;
  const bool sets_ge = h.pas == Pas::kS || h.pas == Pas::kU;
  const uintptr_t res = o.New(), x = o.New(), y = o.New(), ge = sets_ge ? o.New() : 0, t = sets_ge ? o.New() : 0;
  uintptr_t lo = 0, hi = 0;  // the saturating clamp's bounds
  if (h.pas == Pas::kQ) {
    lo = o.Const(-(1 << (w - 1)));
    hi = o.Const((1 << (w - 1)) - 1);
  } else if (h.pas == Pas::kUq) {
    lo = o.Const(0);
    hi = o.Const((1 << w) - 1);
  }
  const auto lane_of = [&](uintptr_t to, uintptr_t from, unsigned at) {
    (is_signed ? tcg_gen_sextract_i32_arm : tcg_gen_extract_i32_arm)(o.s, o.V(to), o.V(from), at, w);
  };
  for (unsigned n = 0; n < lanes; ++n) {
    const bool crossed = h.op == PasOp::kAsx || h.op == PasOp::kSax;
    const bool add = h.op == PasOp::kAdd16 || h.op == PasOp::kAdd8 || (h.op == PasOp::kAsx && n == 1) ||
                     (h.op == PasOp::kSax && n == 0);
    lane_of(x, a, n * w);
    lane_of(y, b, (crossed ? 1 - n : n) * w);
    o.Op(add ? kOpAddI32 : kOpSubI32, x, x, y);
    if (sets_ge) {
      const int32_t at_least = h.pas == Pas::kU && add ? 1 << w : 0;
      tcg_gen_setcondi_i32_arm(o.s, kCondGe, o.V(t), o.V(x), at_least);
      if (wide) {
        tcg_gen_muli_i32_arm(o.s, o.V(t), o.V(t), 3 << (2 * n));
      } else if (n > 0) {
        tcg_gen_shli_i32_arm(o.s, o.V(t), o.V(t), n);
      }
      if (n == 0) {
        o.Op(kOpMovI32, ge, t);
      } else {
        o.Op(kOpOrI32, ge, ge, t);
      }
    }
    if (lo != 0) {
      tcg_gen_smax_i32_arm(o.s, o.V(x), o.V(x), o.V(lo));
      tcg_gen_smin_i32_arm(o.s, o.V(x), o.V(x), o.V(hi));
    } else if (h.pas == Pas::kSh || h.pas == Pas::kUh) {
      tcg_gen_sari_i32_arm(o.s, o.V(x), o.V(x), 1);
    }
    // Lane 0 whole: the higher lanes' deposits overwrite its upper bits.
    if (n == 0) {
      o.Op(kOpMovI32, res, x);
    } else {
      tcg_gen_deposit_i32_arm(o.s, o.V(res), o.V(res), o.V(x), n * w, w);
    }
  }
  if (sets_ge) o.Op(kOpStI32, ge, ge_ptr, 0);
  o.Op(kOpMovI32, ret, res);
  for (uintptr_t v : {res, x, y, ge, t, lo, hi}) {
    if (v != 0) o.Free(v);
  }
}

// helper_sel_flags (SEL): each byte from `a` where its GE bit is set, else from `b`.
// Multiplying GE by 0x00204081 moves bit n to bit 8n (the other products land on bits
// that are not multiples of 8, none on the same bit: no carries); masked to 0x01010101
// and multiplied by 0xFF, that is the byte mask.
void Sel(const Ops& o, uintptr_t ret, uintptr_t ge, uintptr_t a, uintptr_t b) {
  const uintptr_t mask = o.New(), t = o.New();
  tcg_gen_muli_i32_arm(o.s, o.V(mask), o.V(ge), 0x00204081);
  tcg_gen_andi_i32_arm(o.s, o.V(mask), o.V(mask), 0x01010101);
  tcg_gen_muli_i32_arm(o.s, o.V(mask), o.V(mask), 0xFF);
  o.Op(kOpAndI32, t, a, mask);
  tcg_gen_andc_i32_arm(o.s, o.V(mask), o.V(b), o.V(mask));
  o.Op(kOpOrI32, ret, t, mask);
  for (uintptr_t v : {mask, t}) o.Free(v);
}

const PasHelper* FindPas(const Unicorn& u, void* func) {
  for (const PasHelper& h : u.pas) {
    if (h.func == func && func != nullptr) return &h;
  }
  return nullptr;
}

// Emits the ops for a call to one of the helpers above; false for any other call.
bool EmitInline(TCGContext* s, void* func, TCGTemp* ret, int nargs, TCGTemp** args) {
  const Unicorn& u = Original();
  if (u.stock || ret == nullptr) return false;
  const Ops o{s};
  const auto arg = [&](int i) { return reinterpret_cast<uintptr_t>(args[i]); };
  if (func == u.add_setq && nargs == 3) {
    AddSetQ(o, reinterpret_cast<uintptr_t>(ret), arg(0), arg(1), arg(2));
  } else if (func == u.sxtb16 && nargs == 1) {
    Sxtb16(o, reinterpret_cast<uintptr_t>(ret), arg(0));
  } else if (func == u.sel && nargs == 3) {
    Sel(o, reinterpret_cast<uintptr_t>(ret), arg(0), arg(1), arg(2));
  } else if (const PasHelper* h = FindPas(u, func);
             h != nullptr && nargs == ((h->pas == Pas::kS || h->pas == Pas::kU) ? 3 : 2)) {
    ParallelAddSub(o, *h, reinterpret_cast<uintptr_t>(ret), arg(0), arg(1), nargs == 3 ? arg(2) : 0);
    inlined_pas_calls.fetch_add(1, std::memory_order_relaxed);
  } else {
    return false;
  }
  inlined_calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

uint64_t InlinedDspCalls() { return inlined_calls.load(std::memory_order_relaxed); }

uint64_t InlinedParallelAddSubCalls() { return inlined_pas_calls.load(std::memory_order_relaxed); }

void ForgetDspOps() { last_add_setq = {}; }

void SetTcgCallHooks(const TcgCallHooks& hooks) { call_hooks = hooks; }

}  // namespace faultline::engine

extern "C" __attribute__((visibility("default"))) void tcg_gen_callN_arm(TCGContext* s, void* func, TCGTemp* ret,
                                                                        int nargs, TCGTemp** args) {
  namespace fl = faultline::engine;
  if (fl::call_hooks.emit != nullptr && fl::call_hooks.emit(s, func, ret, nargs, args)) return;
  if (fl::call_hooks.before_call != nullptr) fl::call_hooks.before_call();
  if (!fl::EmitInline(s, func, ret, nargs, args)) fl::Original().call_n(s, func, ret, nargs, args);
}
