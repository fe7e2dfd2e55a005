#include "faultline/memory_map.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <fmt/core.h>

#include <cassert>
#include <cstring>
#include <new>
#include <random>

#include "../devices/device.h"
#include "../devices/ethos_u/ethos_u.h"
#include "../devices/dma.h"
#include "bus_view.h"
#include "../devices/uart.h"

namespace faultline {

Storage::Storage(uint64_t size) : size_(size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
}

namespace {

// Regions larger than this with non-zero reset contents (a 512 MiB erased XIP window)
// are not filled byte by byte: one chunk of the pattern is mapped copy-on-write over
// the whole region, so untouched pages cost neither time nor memory. Random contents
// then repeat with this period.
constexpr uint64_t kPatternChunk = uint64_t{1} << 20;
constexpr uint64_t kFillDirectlyUpTo = uint64_t{16} << 20;

bool MapPattern(Storage& storage, const ResetContents& reset) {
  if (storage.size() <= kFillDirectlyUpTo || storage.size() % kPatternChunk != 0) return false;
  int fd = memfd_create("faultline-reset", MFD_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ftruncate(fd, off_t(kPatternChunk)) == 0;
  void* chunk = ok ? mmap(nullptr, kPatternChunk, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (chunk != MAP_FAILED) {
    Storage pattern(kPatternChunk);
    ApplyResetContents(reset, pattern);
    std::memcpy(chunk, pattern.data(), kPatternChunk);
    munmap(chunk, kPatternChunk);
    for (uint64_t off = 0; ok && off < storage.size(); off += kPatternChunk) {
      ok = mmap(storage.data() + off, kPatternChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) !=
           MAP_FAILED;
    }
  } else {
    ok = false;
  }
  close(fd);
  return ok;
}

}  // namespace

Storage::~Storage() { munmap(data_, size_); }

void ApplyResetContents(const ResetContents& reset, Storage& storage) {
  switch (reset.kind) {
    case ResetContents::Kind::kZero:
      std::memset(storage.data(), 0, storage.size());
      break;
    case ResetContents::Kind::kErased:
      std::memset(storage.data(), 0xFF, storage.size());  // erased NOR flash reads all ones
      break;
    case ResetContents::Kind::kFill:
      std::memset(storage.data(), reset.fill, storage.size());
      break;
    case ResetContents::Kind::kRandom: {
      // std::mt19937_64 is fully specified by the C++ standard: the same seed gives the
      // same bytes on every host, so runs are repeatable.
      std::mt19937_64 rng(reset.seed);
      uint64_t i = 0;
      for (; i + 8 <= storage.size(); i += 8) {
        uint64_t v = rng();
        std::memcpy(storage.data() + i, &v, 8);
      }
      for (uint64_t v = rng(); i < storage.size(); ++i, v >>= 8) storage.data()[i] = uint8_t(v);
      break;
    }
  }
}

MemoryMap::MemoryMap(const Board& board) : gates_(board.gates), peripherals_(board.peripherals) {
  // Board regions first, then aliases; sorted afterwards with their backing tracked.
  struct Entry {
    Region window;
    std::string backing;  // empty for a region
    uint64_t offset = 0;
  };
  std::vector<Entry> entries;
  for (const Region& r : board.regions) entries.push_back({r, {}, 0});
  for (const Alias& a : board.aliases) {
    auto it = std::find_if(board.regions.begin(), board.regions.end(),
                           [&](const Region& r) { return r.name == a.of; });
    assert(it != board.regions.end());  // the parser checked `of`
    Region w = *it;
    w.name = a.name;
    w.base = a.base;
    w.size = a.size;
    w.description = "alias of " + it->name;
    w.where = a.where;
    entries.push_back({w, it->name, a.offset});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& x, const Entry& y) { return x.window.base < y.window.base; });
  for (const Entry& e : entries) windows_.push_back(e.window);
  backing_.resize(windows_.size());
  backing_offset_.resize(windows_.size());
  storage_.resize(windows_.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].backing.empty()) continue;
    backing_[i] = i;
    storage_[i] = std::make_unique<Storage>(windows_[i].size);
    if (windows_[i].reset.kind == ResetContents::Kind::kZero) continue;  // fresh pages are zero
    if (!MapPattern(*storage_[i], windows_[i].reset)) ApplyResetContents(windows_[i].reset, *storage_[i]);
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].backing.empty()) continue;
    for (size_t j = 0; j < entries.size(); ++j) {
      if (entries[j].backing.empty() && windows_[j].name == entries[i].backing) backing_[i] = j;
    }
    backing_offset_[i] = entries[i].offset;
  }

  gate_of_.resize(windows_.size());
  for (size_t g = 0; g < gates_.size(); ++g) {
    for (size_t w = 0; w < windows_.size(); ++w) {
      if (windows_[backing_[w]].name == gates_[g].region) gate_of_[w] = g;  // aliases too
    }
  }
  for (const Peripheral& p : peripherals_) {
    std::vector<uint32_t> v;
    for (const Register& r : p.registers) v.push_back(r.reset);
    values_.push_back(std::move(v));
    std::vector<std::pair<uint32_t, uint32_t>> index;
    for (size_t r = 0; r < p.registers.size(); ++r) index.push_back({p.registers[r].offset, uint32_t(r)});
    std::sort(index.begin(), index.end());
    register_offsets_.push_back(std::move(index));
    std::unique_ptr<BusPort> port;
    if (p.npu || p.dma) {
      const std::string& name = p.npu ? p.npu->master : p.dma->master;
      auto master = std::find_if(board.masters.begin(), board.masters.end(),
                                 [&](const BusMaster& m) { return m.name == name; });
      assert(master != board.masters.end());  // the parser checked `master:`
      port = std::make_unique<BusView>(*this, *master);
    }
    std::unique_ptr<Device> device = MakeDevice(p, std::move(port));
    device_of_.push_back(device.get());
    if (p.npu) npus_.push_back(static_cast<ethos_u::EthosU*>(device.get()));
    if (p.dma) dmas_.push_back(static_cast<DmaController*>(device.get()));
    uart_of_.push_back(p.uart ? static_cast<UartPort*>(device.get()) : nullptr);
    if (p.uart) uarts_.push_back(uart_of_.back());
    if (device) devices_.push_back(std::move(device));
    for (const IrqLine& l : p.irqs) {
      if (!l.parent && std::find(irq_numbers_.begin(), irq_numbers_.end(), l.number) == irq_numbers_.end()) {
        irq_numbers_.push_back(l.number);
      }
    }
  }
  for (size_t p = 0; p < peripherals_.size(); ++p) {
    for (const IrqLine& l : peripherals_[p].irqs) {
      if (l.parent) routed_.push_back({p, &l, static_cast<InterruptController*>(device_of_[*l.parent])});
    }
  }
  gate_open_.assign(gates_.size(), false);
  for (size_t g = 0; g < gates_.size(); ++g) gate_open_[g] = GateHolds(g);
}

MemoryMap::~MemoryMap() = default;

UartPort* MemoryMap::FindUart(const std::string& name) {
  for (UartPort* u : uarts_) {
    if (u->name() == name) return u;
  }
  return nullptr;
}

uint8_t* MemoryMap::Host(size_t w) { return storage_[backing_[w]]->data() + backing_offset_[w]; }
const uint8_t* MemoryMap::Host(size_t w) const {
  return storage_[backing_[w]]->data() + backing_offset_[w];
}

int MemoryMap::Find(uint64_t addr) const {
  // Windows are sorted and disjoint.
  auto it = std::upper_bound(windows_.begin(), windows_.end(), addr,
                             [](uint64_t a, const Region& r) { return a < r.base; });
  if (it == windows_.begin()) return -1;
  --it;
  return it->Contains(addr) ? int(it - windows_.begin()) : -1;
}

std::optional<uint64_t> MemoryMap::SameByteIn(size_t window, uint64_t addr, size_t other) const {
  if (backing_[window] != backing_[other]) return std::nullopt;
  const uint64_t offset = backing_offset_[window] + (addr - windows_[window].base);
  if (offset < backing_offset_[other] || offset - backing_offset_[other] >= windows_[other].size) return std::nullopt;
  return windows_[other].base + (offset - backing_offset_[other]);
}

int MemoryMap::FindRange(uint64_t addr, uint64_t size) const {
  int i = Find(addr);
  if (i < 0 || size == 0) return i;
  return size <= windows_[i].end() - addr ? i : -1;  // not addr + size: a length near 2^64 wraps
}

std::pair<int, int> MemoryMap::Neighbours(uint64_t addr) const {
  int below = -1, above = -1;
  for (size_t i = 0; i < windows_.size(); ++i) {
    if (windows_[i].end() <= addr) below = int(i);
    if (windows_[i].base > addr && above < 0) above = int(i);
  }
  return {below, above};
}

void MemoryMap::Write(uint64_t addr, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;  // memcpy's pointers may not be null, an empty span's may
  int i = FindRange(addr, bytes.size());
  assert(i >= 0);
  std::memcpy(Host(i) + (addr - windows_[i].base), bytes.data(), bytes.size());
}

void MemoryMap::Read(uint64_t addr, std::span<uint8_t> bytes) const {
  if (bytes.empty()) return;
  int i = FindRange(addr, bytes.size());
  assert(i >= 0);
  std::memcpy(bytes.data(), Host(i) + (addr - windows_[i].base), bytes.size());
}

uint32_t MemoryMap::Read32(uint64_t addr) const {
  uint8_t b[4];
  Read(addr, b);
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

bool MemoryMap::HoldsResetContents(uint64_t addr, uint64_t size) const {
  const int i = FindRange(addr, size);
  if (i < 0 || size == 0) return false;
  return HoldsResetContents(addr, std::span<const uint8_t>(Host(size_t(i)) + (addr - windows_[size_t(i)].base), size));
}

bool MemoryMap::HoldsResetContents(uint64_t addr, std::span<const uint8_t> bytes) const {
  const uint64_t size = bytes.size();
  int i = FindRange(addr, size);
  if (i < 0 || size == 0) return false;
  const size_t b = backing_[size_t(i)];
  const ResetContents& reset = windows_[b].reset;
  uint64_t offset = backing_offset_[size_t(i)] + (addr - windows_[size_t(i)].base);
  const uint8_t* now = bytes.data();
  if (reset.kind != ResetContents::Kind::kRandom) {
    const uint8_t byte = reset.kind == ResetContents::Kind::kZero     ? 0
                         : reset.kind == ResetContents::Kind::kErased ? 0xFF
                                                                      : reset.fill;
    return std::all_of(now, now + size, [byte](uint8_t c) { return c == byte; });
  }
  // ApplyResetContents' stream: one std::mt19937_64 draw per 8 bytes, repeating every
  // kPatternChunk in a region MapPattern filled.
  if (windows_[b].size > kFillDirectlyUpTo && windows_[b].size % kPatternChunk == 0) offset %= kPatternChunk;
  std::mt19937_64 rng(reset.seed);
  rng.discard(offset / 8);
  uint64_t draw = rng();
  for (uint64_t k = 0, at = offset; k < size; ++k, ++at) {
    if (at % 8 == 0 && k > 0) draw = rng();
    if (now[k] != uint8_t(draw >> (8 * (at % 8)))) return false;
  }
  return true;
}

int MemoryMap::FindPeripheral(uint64_t addr) const {
  int window = -1;  // an unimplemented window holding addr: used only if no peripheral in it does
  for (size_t i = 0; i < peripherals_.size(); ++i) {
    if (addr < peripherals_[i].base || addr >= peripherals_[i].base + peripherals_[i].size) continue;
    if (!peripherals_[i].unimplemented) return int(i);
    window = int(i);
  }
  return window;
}

int MemoryMap::FindRegister(size_t p, uint64_t offset) const {
  // The register at `offset` itself (a 16550's byte registers sit one per byte), else the
  // first declared one whose word holds it: those at offset - 3 .. offset.
  const auto& index = register_offsets_[p];
  auto it = std::lower_bound(index.begin(), index.end(), std::pair<uint32_t, uint32_t>{
                                 uint32_t(offset < 3 ? 0 : offset - 3), 0});
  int found = -1;
  for (; it != index.end() && it->first <= offset; ++it) {
    if (it->first == offset) return int(it->second);  // the lowest index at that offset: sorted by (offset, index)
    if (offset < uint64_t(it->first) + 4 && (found < 0 || it->second < uint32_t(found))) found = int(it->second);
  }
  return found;
}

uint32_t MemoryMap::AccessRegister(size_t p, size_t r, uint64_t offset, unsigned size, bool write, uint64_t value,
                                   RegisterWriteEffect* effect) {
  const unsigned shift = unsigned(offset - peripherals_[p].registers[r].offset) * 8;
  const uint32_t lane = size >= 4 ? 0xFFFFFFFFu : ((1u << (8 * size)) - 1) << shift;
  if (!write) return (LoadRegister(p, r) & lane) >> shift;
  *effect = WriteRegister(p, r, (StoredValue(p, r) & ~lane) | ((uint32_t(value) << shift) & lane));
  return 0;
}

uint32_t MemoryMap::ReadRegister(size_t p, size_t r) const {
  const Register& reg = peripherals_[p].registers[r];
  uint32_t v = values_[p][r];
  for (const RegisterRule& rule : reg.rules) {
    if (!Holds(rule.when)) continue;
    const RegisterField& f = reg.fields[rule.field];
    v = (v & ~f.mask()) | ((rule.value << f.lsb) & f.mask());
  }
  return v;
}

uint32_t MemoryMap::LoadRegister(size_t p, size_t r) {
  Device* device = device_of_[p];
  if (device == nullptr) return ReadRegister(p, r);
  // A read that changes the device's state (a UART's byte received or taken, a DesignWare
  // IIR read clearing THR empty) may move its lines, or an `irq_when:` over its registers:
  // the runner looks at the next block boundary. A status read in a polling loop changes
  // nothing and costs no more than a compare.
  (void)device->TakeAttention();  // what AdvanceTo changed is the event's, not this read's
  const uint32_t v = device->Read(r, values_[p], now_);
  if (device->TakeAttention() && !irq_numbers_.empty()) {
    irq_attention_ = true;
    RouteInterrupts();
  }
  return v;
}

void MemoryMap::AdvanceTo(uint64_t now) {
  if (now < now_) return;
  now_ = now;
  for (size_t p = 0; p < peripherals_.size(); ++p) {
    if (device_of_[p] != nullptr) device_of_[p]->AdvanceTo(now, values_[p]);
  }
  RouteInterrupts();
}

void MemoryMap::RouteInterrupts() {
  bool moved = false;
  for (const RoutedLine& r : routed_) moved |= r.controller->SetSourceLevel(r.line->number, LineOutput(r.peripheral, *r.line));
  if (moved) irq_attention_ = true;
}

uint64_t MemoryMap::NextEventAt() const {
  uint64_t next = UINT64_MAX;
  for (size_t p = 0; p < peripherals_.size(); ++p) {
    if (device_of_[p] != nullptr) next = std::min(next, device_of_[p]->NextEventAt(values_[p], now_));
  }
  return next;
}

bool MemoryMap::LineOutput(size_t p, const IrqLine& line) const {
  if (device_of_[p] != nullptr) return device_of_[p]->Output(line.output, values_[p]);
  return Holds(line.when);
}

bool MemoryMap::IrqLevel(uint32_t number) const {
  for (size_t p = 0; p < peripherals_.size(); ++p) {
    for (const IrqLine& l : peripherals_[p].irqs) {
      if (l.number == number && !l.parent && LineOutput(p, l)) return true;
    }
  }
  return false;
}

MemoryMap::IrqLevels MemoryMap::IrqSignature() const {
  IrqLevels s;
  for (uint32_t n : irq_numbers_) s.set(n, IrqLevel(n));
  return s;
}

RegisterWriteEffect MemoryMap::WriteRegister(size_t p, size_t r, uint32_t value) {
  const Register& reg = peripherals_[p].registers[r];
  RegisterWriteEffect effect;
  // A device's write may move its schedule (a timer's); any write may move a line (a
  // UART's INTSTATUS, a condition over registers, of this peripheral or another).
  const IrqLevels lines_before = irq_numbers_.empty() ? IrqLevels() : IrqSignature();
  if (Device* device = device_of_[p]) {
    const uint64_t dropped = uart_of_[p] != nullptr ? uart_of_[p]->dropped() : 0;
    (void)device->TakeAttention();
    device->Write(r, value, values_[p], now_);
    if (device->TakeAttention()) irq_attention_ = true;
    if (uart_of_[p] != nullptr && uart_of_[p]->dropped() != dropped) effect.uart_not_sent = uart_of_[p]->TransmitterEnable();
  } else if (reg.sets) {
    values_[p][*reg.sets] |= value;
  } else if (reg.clears) {
    values_[p][*reg.clears] &= ~value;
  } else {
    values_[p][r] = value;
  }
  UpdateGates(&effect);
  RouteInterrupts();
  if (!irq_numbers_.empty() && IrqSignature() != lines_before) irq_attention_ = true;
  return effect;
}

std::string MemoryMap::DescribeFields(size_t p, size_t r, uint32_t value) const {
  std::string s;
  for (const RegisterField& f : peripherals_[p].registers[r].fields) {
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", f.name, (value & f.mask()) >> f.lsb);
  }
  return s;
}

bool MemoryMap::GateHolds(size_t g) const {
  return gates_[g].forced ? *gates_[g].forced : Holds(gates_[g].when);
}

bool MemoryMap::Holds(const Condition& c) const {
  for (const Comparison& cmp : c.all) {
    uint32_t v = ReadRegisterForCondition(cmp);
    if ((v == cmp.value) != cmp.equal) return false;
  }
  return true;
}

uint32_t MemoryMap::ReadRegisterForCondition(const Comparison& cmp) const {
  // Conditions see stored values: a rule's reading never feeds back into a gate.
  uint32_t v = values_[cmp.peripheral][cmp.reg];
  if (!cmp.field) return v;
  const RegisterField& f = peripherals_[cmp.peripheral].registers[cmp.reg].fields[*cmp.field];
  return (v & f.mask()) >> f.lsb;
}

void MemoryMap::UpdateGates(RegisterWriteEffect* effect) {
  for (size_t g = 0; g < gates_.size(); ++g) {
    bool open = GateHolds(g);
    if (open != gate_open_[g]) {
      gate_open_[g] = open;
      effect->gates_changed.push_back(g);
    }
  }
}

std::string MemoryMap::ExplainClosed(size_t g) const {
  if (gates_[g].forced) return "forced closed by the scenario";
  std::string s;
  for (const Comparison& cmp : gates_[g].when.all) {
    uint32_t v = ReadRegisterForCondition(cmp);
    if ((v == cmp.value) == cmp.equal) continue;
    std::string path = cmp.field ? fmt::format("{}.{}.{}", peripherals_[cmp.peripheral].name,
                                               peripherals_[cmp.peripheral].registers[cmp.reg].name,
                                               peripherals_[cmp.peripheral].registers[cmp.reg].fields[*cmp.field].name)
                                 : fmt::format("{}.{}", peripherals_[cmp.peripheral].name,
                                               peripherals_[cmp.peripheral].registers[cmp.reg].name);
    s += fmt::format("{}{} = {}, needs {} {}", s.empty() ? "" : "; ", path,
                     v > 9 ? fmt::format("0x{:x}", v) : std::to_string(v), cmp.equal ? "==" : "!=",
                     cmp.value > 9 ? fmt::format("0x{:x}", cmp.value) : std::to_string(cmp.value));
  }
  return s;
}

PagePlan MemoryMap::PlanPages(uint64_t page) const {
  PagePlan plan;
  std::vector<ServedSpan> served;
  for (size_t i = 0; i < windows_.size(); ++i) {
    const Region& r = windows_[i];
    const uint64_t first_full = (r.base + page - 1) / page * page;
    const uint64_t end_full = r.end() / page * page;
    if (first_full < end_full) {
      plan.direct.push_back({first_full, end_full - first_full, i});
      // Pages the region only partly covers: at most one at each end.
      if (r.base < first_full) served.push_back({first_full - page, page});
      if (end_full < r.end()) served.push_back({end_full, page});
    } else {  // within one page, or across one page boundary
      const uint64_t first = r.base / page * page;
      served.push_back({first, (r.end() + page - 1) / page * page - first});
    }
  }
  for (const Peripheral& p : peripherals_) {
    const uint64_t first = p.base / page * page;
    served.push_back({first, (p.base + p.size + page - 1) / page * page - first});
  }
  // A page both served and direct (a peripheral inside a window's page) is served; a
  // peripheral inside an unimplemented window is part of the window's run.
  std::sort(served.begin(), served.end(), [](const ServedSpan& a, const ServedSpan& b) { return a.base < b.base; });
  for (const ServedSpan& s : served) {
    if (!plan.served.empty() && s.base <= plan.served.back().base + plan.served.back().size) {
      ServedSpan& last = plan.served.back();
      last.size = std::max(last.base + last.size, s.base + s.size) - last.base;
    } else {
      plan.served.push_back(s);
    }
  }
  // Cut served runs out of direct spans.
  std::vector<DirectSpan> direct;
  for (const DirectSpan& d : plan.direct) {
    uint64_t start = d.base;
    const uint64_t end = d.base + d.size;
    for (const ServedSpan& s : plan.served) {
      if (s.base + s.size <= start || s.base >= end) continue;
      if (s.base > start) direct.push_back({start, s.base - start, d.region});
      start = std::max(start, s.base + s.size);
    }
    if (start < end) direct.push_back({start, end - start, d.region});
  }
  plan.direct = std::move(direct);
  return plan;
}

}  // namespace faultline
