// Contiguous vector loads and stores (DDI 0553 §C2.4: VLDRB/VLDRH/VLDRW, VSTRB/VSTRH/
// VSTRW, and the widening/narrowing forms). Predicated-off lanes are not accessed; a
// load writes zero to them (QEMU 7.2 mve_helper.c does the same).
#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

namespace {

template <typename T>
void Access(const Insn& i, State& s, bool load, uint32_t address) {
  const uint16_t mask = ElementMask(s);
  const unsigned msize = 1u << i.msize;
  uint8_t* d = Q(s, i.qd);
  for (int e = 0; e < Lanes<T>(); ++e, address += msize) {
    const bool active = Active<T>(mask, e);
    if (load) {
      T v = 0;
      if (active) {
        const uint32_t raw = s.memory->Load(address, msize);
        const int bits = int(8 * msize);
        v = i.u || bits == 32 ? T(raw) : T(int32_t(raw << (32 - bits)) >> (32 - bits));
      }
      Merge<T>(d, e, v, 0xFFFF);
    } else if (active) {
      s.memory->Store(address, msize, uint32_t(Lane<T>(d, e)));
    }
  }
}

void Transfer(const Insn& i, State& s) {
  const bool load = (i.raw >> 20) & 1;
  const uint32_t base = s.r[i.rn];
  const uint32_t offset_address = i.add ? base + uint32_t(i.imm) : base - uint32_t(i.imm);
  const uint32_t address = i.pre ? offset_address : base;
  switch (i.size) {
    case 0: Access<uint8_t>(i, s, load, address); break;
    case 1: Access<uint16_t>(i, s, load, address); break;
    default: Access<uint32_t>(i, s, load, address); break;
  }
  if (i.wback) s.r[i.rn] = offset_address;
  AdvanceVpt(s);
}

}  // namespace

void Handlers::LoadStore(const Insn& i, State& s) { Transfer(i, s); }
void Handlers::LoadStoreWidening(const Insn& i, State& s) { Transfer(i, s); }

}  // namespace faultline::arm::mve
