// Data faults stop the engine at the faulting instruction, and guest loads and stores
// carry no exit test (docs/performance.md, section 3).
//
// Unicorn 2.0.1 ends every guest load and store it translates with a test of the exit
// request (tcg_gen_qemu_ld/st_i32/i64 call check_exit_request, qemu/tcg/tcg-op.c): a
// store that faults returns from its memory helper with an exit requested, and the test
// leaves the block before the next instruction runs (a read that faults leaves at once:
// load_helper calls cpu_loop_exit). Either way the PC is the block's start (unicorn.md
// §3). The test costs three host instructions on every access the firmware makes.
//
// Here a fault leaves the block the way QEMU's own MMU faults do. The memory helpers the
// generated code calls (helper_*_ld*_mmu / helper_*_st*_mmu, through a table that
// libunicorn fills from its dynamic relocations) are wrapped and remember the generated
// code's return address; when the access records a data-fault stop (Core::StopWith ->
// NoteDataFaultStop), the block is left through cpu_loop_exit (Unicorn's own call for a
// read, the wrapper's for a write), which first does what cpu_loop_exit_restore() does:
// cpu_restore_state() sets the PC to the faulting instruction from the block's own PC
// table. TCG writes the guest registers back before every access that can fault
// (qemu_ld/st are TCG_OPF_SIDE_EFFECTS), so they are those before the faulting
// instruction, as they were with the test. So the per-access test can go:
// check_exit_request emits nothing while a guest load or store is being generated. It
// stays after code hooks (host breakpoints, --strict, traces), which stop before the
// next instruction through it, and at the end of IT blocks.
//
// FAULTLINE_EXIT_CHECK=stock in the environment keeps Unicorn's test and its block-start
// PC, for A/B measurement.
#include "core.h"
#include "engine/unicorn_tlb.h"
#include "unicorn_interpose.h"

#include <cstdint>

extern "C" {
struct CPUState;
bool cpu_restore_state_arm(CPUState* cpu, uintptr_t host_pc, bool will_exit);
uint32_t cpu_ldub_data_ra_arm(void* env, uint32_t addr, uintptr_t ra);
uint32_t cpu_lduw_data_ra_arm(void* env, uint32_t addr, uintptr_t ra);
uint32_t cpu_ldl_data_ra_arm(void* env, uint32_t addr, uintptr_t ra);
void cpu_stb_data_ra_arm(void* env, uint32_t addr, uint32_t val, uintptr_t ra);
void cpu_stw_data_ra_arm(void* env, uint32_t addr, uint32_t val, uintptr_t ra);
void cpu_stl_data_ra_arm(void* env, uint32_t addr, uint32_t val, uintptr_t ra);
void arm_cpu_do_unaligned_access_arm(CPUState* cpu, uint64_t addr, int access_type, int mmu_idx, uintptr_t ra);
}

namespace faultline::arm {
namespace {

using QemuLdSt = void (*)(void* s, intptr_t val, intptr_t addr, uintptr_t idx, int memop);
using CheckExit = void (*)(void* s);
using LoopExit = void (*)(CPUState* cpu);
using CpuExec = int (*)(void* uc, CPUState* cpu);
using Load = uint64_t (*)(void* env, uint32_t addr, uint32_t oi, uintptr_t ra);
template <typename T>
using Store = void (*)(void* env, uint32_t addr, T val, uint32_t oi, uintptr_t ra);

struct Unicorn {
  bool stock = false;
  QemuLdSt ld_i32 = Unicorns<QemuLdSt>("tcg_gen_qemu_ld_i32_arm"), ld_i64 = Unicorns<QemuLdSt>("tcg_gen_qemu_ld_i64_arm"),
           st_i32 = Unicorns<QemuLdSt>("tcg_gen_qemu_st_i32_arm"), st_i64 = Unicorns<QemuLdSt>("tcg_gen_qemu_st_i64_arm");
  CheckExit check_exit = Unicorns<CheckExit>("check_exit_request_arm");
  LoopExit loop_exit = Unicorns<LoopExit>("cpu_loop_exit_arm");
  CpuExec cpu_exec = Unicorns<CpuExec>("cpu_exec_arm");
  Load ldub = Unicorns<Load>("helper_ret_ldub_mmu_arm"), le_lduw = Unicorns<Load>("helper_le_lduw_mmu_arm"),
       le_ldul = Unicorns<Load>("helper_le_ldul_mmu_arm"), le_ldq = Unicorns<Load>("helper_le_ldq_mmu_arm"),
       be_lduw = Unicorns<Load>("helper_be_lduw_mmu_arm"), be_ldul = Unicorns<Load>("helper_be_ldul_mmu_arm"),
       be_ldq = Unicorns<Load>("helper_be_ldq_mmu_arm");
  Store<uint8_t> stb = Unicorns<Store<uint8_t>>("helper_ret_stb_mmu_arm");
  Store<uint16_t> le_stw = Unicorns<Store<uint16_t>>("helper_le_stw_mmu_arm"),
                  be_stw = Unicorns<Store<uint16_t>>("helper_be_stw_mmu_arm");
  Store<uint32_t> le_stl = Unicorns<Store<uint32_t>>("helper_le_stl_mmu_arm"),
                  be_stl = Unicorns<Store<uint32_t>>("helper_be_stl_mmu_arm");
  Store<uint64_t> le_stq = Unicorns<Store<uint64_t>>("helper_le_stq_mmu_arm"),
                  be_stq = Unicorns<Store<uint64_t>>("helper_be_stq_mmu_arm");
  Unicorn() : stock(TurnedOff("FAULTLINE_EXIT_CHECK", "stock")) {}
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

// Per thread: each engine runs, and raises its stops, on the thread that started it.
thread_local int generating_access = 0;      // inside tcg_gen_qemu_ld/st
thread_local uint64_t data_fault_stops = 0;  // NoteDataFaultStop calls
thread_local bool restored = false;          // the PC was moved to the faulting instruction
// The memory helper call in progress: the generated code's return address (0 when a
// helper calls the helper: no instruction to restore) and the stops before it.
struct Access {
  uintptr_t ra = 0;
  uint64_t stops_before = 0;
};
thread_local Access access;
thread_local CPUState* running = nullptr;  // the CPU in cpu_exec on this thread

// Whether the access in progress recorded a data-fault stop that can be pinned to its
// instruction.
bool FaultedHere() {
  return access.ra != 0 && data_fault_stops != access.stops_before && running != nullptr && !Original().stock;
}

// Leaves the block (cpu_loop_exit: unwinds to the engine's loop). If the memory access in
// progress recorded a data-fault stop, the PC is first set to its instruction.
[[noreturn]] void LeaveBlock(CPUState* cpu) {
  if (FaultedHere()) restored = cpu_restore_state_arm(cpu, access.ra, true);
  access = {};
  Original().loop_exit(cpu);
  __builtin_unreachable();
}

// An access whose MemOp asks for alignment (core_traps.cc) at an address without it:
// the alignment fault, before anything else. Unicorn's load_helper/store_helper look for
// unmapped memory first, so an unaligned LDRD at an unmapped address would be a BusFault
// where silicon and QEMU raise UNALIGNED. QEMU 5.0 TCGMemOpIdx: MemOp << 4 | mmu_idx;
// get_alignment_bits: MO_AMASK (0x70) 0 none, 0x70 the access size, else a >> 4.
void AlignmentFirst(uint32_t addr, uint32_t oi, int access_type, uintptr_t ra) {
  const uint32_t memop = oi >> 4, a = memop & 0x70;
  const uint32_t bits = a == 0 ? 0 : a == 0x70 ? (memop & 3) : a >> 4;
  if (bits == 0 || (addr & ((1u << bits) - 1)) == 0 || running == nullptr || Original().stock) return;
  access = {};
  arm_cpu_do_unaligned_access_arm(running, addr, access_type, int(oi & 15), ra);  // does not return
}

// Unicorn leaves the block itself for a read that faults (load_helper calls
// cpu_loop_exit, which comes to LeaveBlock) but returns from a write that faults: then
// the wrapper leaves it.
uint64_t Loaded(Load load, void* env, uint32_t addr, uint32_t oi, uintptr_t ra) {
  AlignmentFirst(addr, oi, 0, ra);  // MMU_DATA_LOAD
  const Access outer = access;
  access = {ra, data_fault_stops};
  const uint64_t value = load(env, addr, oi, ra);
  if (FaultedHere()) LeaveBlock(running);
  access = outer;
  return value;
}

template <typename T>
void Stored(Store<T> store, void* env, uint32_t addr, T value, uint32_t oi, uintptr_t ra) {
  AlignmentFirst(addr, oi, 1, ra);  // MMU_DATA_STORE
  const Access outer = access;
  access = {ra, data_fault_stops};
  store(env, addr, value, oi, ra);
  if (FaultedHere()) LeaveBlock(running);
  access = outer;
}

void Generating(QemuLdSt gen, void* s, intptr_t val, intptr_t addr, uintptr_t idx, int memop) {
  ++generating_access;
  gen(s, val, addr, idx, TranslatorMemop(memop));  // alignment traps (core_traps.cc)
  --generating_access;
}

}  // namespace

const void* RunningCpu() { return running; }

uint32_t HelperLoad(void* env, uint32_t address, unsigned size, uintptr_t ra) {
  const Access outer = access;
  access = {ra, data_fault_stops};
  const uint32_t v = size == 1   ? cpu_ldub_data_ra_arm(env, address, ra)
                     : size == 2 ? cpu_lduw_data_ra_arm(env, address, ra)
                                 : cpu_ldl_data_ra_arm(env, address, ra);
  if (FaultedHere()) LeaveBlock(running);
  access = outer;
  return v;
}

void HelperStore(void* env, uint32_t address, unsigned size, uint32_t value, uintptr_t ra) {
  const Access outer = access;
  access = {ra, data_fault_stops};
  if (size == 1) {
    cpu_stb_data_ra_arm(env, address, value, ra);
  } else if (size == 2) {
    cpu_stw_data_ra_arm(env, address, value, ra);
  } else {
    cpu_stl_data_ra_arm(env, address, value, ra);
  }
  if (FaultedHere()) LeaveBlock(running);
  access = outer;
}

void RestoreInstruction(uintptr_t ra) {
  cpu_restore_state_arm(running, ra, true);
  access = {};
}

void LeaveRestored() {
  Original().loop_exit(running);
  __builtin_unreachable();
}

void LeaveAtInstruction(uintptr_t ra) {
  RestoreInstruction(ra);
  LeaveRestored();
}

void NoteDataFaultStop() { ++data_fault_stops; }

bool TakeRestoredFaultPc() {
  const bool r = restored;
  restored = false;
  return r;
}

}  // namespace faultline::arm

namespace fl = faultline::arm;

#define FAULTLINE_EXPORT extern "C" __attribute__((visibility("default")))

FAULTLINE_EXPORT void check_exit_request_arm(void* s) {
  if (fl::generating_access > 0 && !fl::Original().stock) return;
  fl::Original().check_exit(s);
}

FAULTLINE_EXPORT __attribute__((noreturn)) void cpu_loop_exit_arm(CPUState* cpu) { fl::LeaveBlock(cpu); }

FAULTLINE_EXPORT int cpu_exec_arm(void* uc, CPUState* cpu) {
  CPUState* outer = fl::running;
  fl::running = cpu;
  const int r = fl::Original().cpu_exec(uc, cpu);
  fl::running = outer;
  return r;
}

FAULTLINE_EXPORT void tcg_gen_qemu_ld_i32_arm(void* s, intptr_t val, intptr_t addr, uintptr_t idx, int memop) {
  fl::Generating(fl::Original().ld_i32, s, val, addr, idx, memop);
}
FAULTLINE_EXPORT void tcg_gen_qemu_ld_i64_arm(void* s, intptr_t val, intptr_t addr, uintptr_t idx, int memop) {
  fl::Generating(fl::Original().ld_i64, s, val, addr, idx, memop);
}
FAULTLINE_EXPORT void tcg_gen_qemu_st_i32_arm(void* s, intptr_t val, intptr_t addr, uintptr_t idx, int memop) {
  fl::Generating(fl::Original().st_i32, s, val, addr, idx, memop);
}
FAULTLINE_EXPORT void tcg_gen_qemu_st_i64_arm(void* s, intptr_t val, intptr_t addr, uintptr_t idx, int memop) {
  fl::Generating(fl::Original().st_i64, s, val, addr, idx, memop);
}

// The memory helpers of qemu/accel/tcg/cputlb.c, one per size and byte order. A page
// in the victim TLB is accessed at once (engine/unicorn_tlb.h): it cannot fault.
#define FAULTLINE_LOAD(name, field)                                                   \
  FAULTLINE_EXPORT uint64_t name(void* env, uint32_t addr, uint32_t oi, uintptr_t ra) { \
    if (uint64_t v; faultline::engine::VictimLoad(env, addr, oi, &v)) return v;       \
    return fl::Loaded(fl::Original().field, env, addr, oi, ra);                       \
  }
#define FAULTLINE_STORE(name, field, T)                                                    \
  FAULTLINE_EXPORT void name(void* env, uint32_t addr, T value, uint32_t oi, uintptr_t ra) { \
    if (faultline::engine::VictimStore(env, addr, oi, value)) return;                      \
    fl::Stored<T>(fl::Original().field, env, addr, value, oi, ra);                         \
  }
FAULTLINE_LOAD(helper_ret_ldub_mmu_arm, ldub)
FAULTLINE_LOAD(helper_le_lduw_mmu_arm, le_lduw)
FAULTLINE_LOAD(helper_le_ldul_mmu_arm, le_ldul)
FAULTLINE_LOAD(helper_le_ldq_mmu_arm, le_ldq)
FAULTLINE_LOAD(helper_be_lduw_mmu_arm, be_lduw)
FAULTLINE_LOAD(helper_be_ldul_mmu_arm, be_ldul)
FAULTLINE_LOAD(helper_be_ldq_mmu_arm, be_ldq)
FAULTLINE_STORE(helper_ret_stb_mmu_arm, stb, uint8_t)
FAULTLINE_STORE(helper_le_stw_mmu_arm, le_stw, uint16_t)
FAULTLINE_STORE(helper_le_stl_mmu_arm, le_stl, uint32_t)
FAULTLINE_STORE(helper_le_stq_mmu_arm, le_stq, uint64_t)
FAULTLINE_STORE(helper_be_stw_mmu_arm, be_stw, uint16_t)
FAULTLINE_STORE(helper_be_stl_mmu_arm, be_stl, uint32_t)
FAULTLINE_STORE(helper_be_stq_mmu_arm, be_stq, uint64_t)
