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
// measurement; on another libunicorn build (cpu/unicorn_build.h) nothing is replaced.
//
// QEMU 5.0's opcode numbers (tcg-opc.h order), read off the Debian library's disassembly
// as core_block_count.cc reads its own: mov_i32 0x5 (tcg_gen_addi_i32_arm's zero case),
// ld_i32 0xd and st_i32 0x10 (load/store_cpu_offset in the translator), add_i32 0x11
// (tcg_gen_addi_i32_arm), or_i32 0x1b (tcg_gen_ori_i32_arm), xor_i32 0x1c
// (tcg_gen_xori_i32_arm). CPUARMState.QF is at 0x218 (helper_add_setq_arm's store).
// Operations the library exports (andc, shri, andi, muli, setcondi, tcg_op_remove) are
// called by name. TCGOp is laid out as in core_block_count.cc: the opcode in the low 8
// bits of the first word, the list link's next at 0x8, args at 0x18.
#include "unicorn_dsp_ops.h"
#include "unicorn_interpose.h"
#include "unicorn_tcg.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

extern "C" {

// Besides unicorn_tcg.h's, the i32 emitters the DSP ops use.
void tcg_op_remove_arm(TCGContext* s, void* op);
void tcg_gen_setcondi_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_andc_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_shri_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_andi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_muli_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);

}  // extern "C"

namespace faultline::cpu {

namespace {

constexpr int kTypeI32 = 0;  // TCG_TYPE_I32
constexpr int kOpMovI32 = 0x5, kOpLdI32 = 0xd, kOpStI32 = 0x10, kOpAddI32 = 0x11, kOpOrI32 = 0x1b,
              kOpXorI32 = 0x1c;
constexpr int kCondEq = 8;              // TCG_COND_EQ (tcg-cond.h)
constexpr uintptr_t kQfOffset = 0x218;  // offsetof(CPUARMState, QF)
struct TcgOp {
  uint32_t opc_and_params, life;
  TcgOp* next;  // link.tqe_next: null at the end of the list
  TcgOp* prev;
  uint64_t args[10];
};
static_assert(offsetof(TcgOp, args) == 0x18);

using CallN = void (*)(TCGContext*, void*, TCGTemp*, int, TCGTemp**);

struct Unicorn {
  bool stock = false;
  CallN call_n = nullptr;
  void* add_setq = nullptr;
  void* sxtb16 = nullptr;
  Unicorn()
      : stock(TurnedOff("FAULTLINE_DSP_INLINE", "stock")),
        call_n(Unicorns<CallN>("tcg_gen_callN_arm")),
        // The addresses the translator passes: what its GOT holds, the global definition.
        add_setq(dlsym(RTLD_DEFAULT, "helper_add_setq_arm")),
        sxtb16(dlsym(RTLD_DEFAULT, "helper_sxtb16_arm")) {}
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

std::atomic<uint64_t> inlined_calls{0};

// Ops on i32 temps, in the TCGTemp* form the call's arguments come in.
struct Ops {
  TCGContext* s;
  uintptr_t New() const { return reinterpret_cast<uintptr_t>(tcg_temp_new_internal_arm(s, kTypeI32, false)); }
  void Free(uintptr_t t) const { tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(t)); }
  intptr_t V(uintptr_t t) const { return intptr_t(t - reinterpret_cast<uintptr_t>(s)); }
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
  } else {
    return false;
  }
  inlined_calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

uint64_t InlinedDspCalls() { return inlined_calls.load(std::memory_order_relaxed); }

void ForgetDspOps() { last_add_setq = {}; }

}  // namespace faultline::cpu

extern "C" __attribute__((visibility("default"))) void tcg_gen_callN_arm(TCGContext* s, void* func, TCGTemp* ret,
                                                                        int nargs, TCGTemp** args) {
  if (!faultline::cpu::EmitInline(s, func, ret, nargs, args)) faultline::cpu::Original().call_n(s, func, ret, nargs, args);
}
