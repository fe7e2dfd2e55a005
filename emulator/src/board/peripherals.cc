// `peripherals:` in a board file: register blocks with their fields and rules, the
// models faultline implements (`model:`), and the interrupt lines they drive.
#include <fmt/core.h>

#include <algorithm>

#include "layer.h"

namespace faultline {

namespace {

RegisterField ParseRegisterField(const Field& f, const std::string& name) {
  RegisterField rf;
  rf.name = name;
  const char* fix = "give a bit number (e.g. ENABLE: 0) or [msb, lsb] (e.g. MODE: [29, 28])";
  if (f.node.IsScalar()) {
    rf.msb = rf.lsb = uint32_t(f.Number());
  } else if (f.node.IsSequence() && f.node.size() == 2) {
    rf.msb = uint32_t(Field{f.node[0], f.origin, f.path}.Number());
    rf.lsb = uint32_t(Field{f.node[1], f.origin, f.path}.Number());
  } else {
    f.Fail(fmt::format("field '{}' is not a bit or a [msb, lsb] pair", name), fix);
  }
  if (rf.msb > 31 || rf.lsb > rf.msb) {
    f.Fail(fmt::format("field '{}' bits [{}:{}] are not within a 32-bit register", name, rf.msb, rf.lsb), fix);
  }
  return rf;
}

constexpr const char* kUnimplemented = "unimplemented";

// `model:` names a UART, a timer or an NPU whose behaviour faultline implements, or
// `unimplemented`: a bus window nobody modelled.
void ParseModel(const Field& f, Peripheral& p) {
  struct Model {
    std::optional<UartModel> uart;
    std::optional<TimerModel> timer;
    bool unimplemented = false;
    std::optional<NpuModel> npu;
    std::optional<DmaModel> dma;
    std::optional<IntcModel> intc;
  };
  static const std::vector<std::pair<std::string, Model>> kModels = {
      {ToString(UartModel::kCmsdkApb), {UartModel::kCmsdkApb, {}}},
      {ToString(UartModel::kStm32Usart), {UartModel::kStm32Usart, {}}},
      {ToString(UartModel::kStm32Lpuart), {UartModel::kStm32Lpuart, {}}},
      {ToString(UartModel::kNxpLpuart), {UartModel::kNxpLpuart, {}}},
      {ToString(UartModel::kDw16550), {UartModel::kDw16550, {}}},
      {ToString(UartModel::kPl011), {UartModel::kPl011, {}}},
      {ToString(UartModel::kNs16550), {UartModel::kNs16550, {}}},
      {ToString(TimerModel::kCmsdkApbTimer), {{}, TimerModel::kCmsdkApbTimer}},
      {ToString(TimerModel::kCmsdkApbDualTimer), {{}, TimerModel::kCmsdkApbDualTimer}},
      {ToString(TimerModel::kRiscvClint), {{}, TimerModel::kRiscvClint}},
      {ToString(NpuModel::kEthosU55), {{}, {}, false, NpuModel::kEthosU55}},
      {ToString(NpuModel::kEthosU65), {{}, {}, false, NpuModel::kEthosU65}},
      {ToString(DmaModel::kStm32Gpdma), {{}, {}, false, {}, DmaModel::kStm32Gpdma}},
      {ToString(DmaModel::kStm32Dma), {{}, {}, false, {}, DmaModel::kStm32Dma}},
      {ToString(DmaModel::kPl330), {{}, {}, false, {}, DmaModel::kPl330}},
      {ToString(DmaModel::kNxpEdma4), {{}, {}, false, {}, DmaModel::kNxpEdma4}},
      {ToString(IntcModel::kRiscvPlic), {{}, {}, false, {}, {}, IntcModel::kRiscvPlic}},
      {kUnimplemented, {{}, {}, true}}};
  Model m = f.Choice("peripheral model", kModels);
  p.uart = m.uart;
  p.timer = m.timer;
  p.unimplemented = m.unimplemented;
  if (m.npu) p.npu = Npu{*m.npu};
  if (m.dma) p.dma = Dma{*m.dma, DmaMostChannels(*m.dma)};
  p.intc = m.intc;
  if (p.intc) p.registers = IntcRegisters(*p.intc);
  if (p.uart) p.registers = UartRegisters(*p.uart);
  if (p.timer) p.registers = TimerRegisters(*p.timer);
}

std::string ModelName(const Peripheral& p) {
  return p.uart    ? ToString(*p.uart)
         : p.timer ? ToString(*p.timer)
         : p.npu   ? ToString(p.npu->model)
         : p.dma   ? ToString(p.dma->model)
         : p.intc  ? ToString(*p.intc)
                   : kUnimplemented;
}

// An NPU's `macs:` (one of the configurations Arm builds: Vela's ethos-u55-32 ... ethos-u65-512)
// and `master:` (the `masters:` entry its AXI ports are; board.cc checks that it is one).
void ParseNpu(const Mapping& m, const Field& f, Peripheral& p) {
  for (const char* key : {"macs", "master"}) {
    if (m.Has(key) && !p.npu && !(p.dma && std::string(key) == "master")) {
      m.Get(key).Fail(fmt::format("{}: is an NPU's key, and {} is {}", key, p.name,
                                  p.uart || p.timer || p.unimplemented ? "a " + ModelName(p) : "no model"),
                      "remove it, or give model: ethos-u55 or ethos-u65");
    }
  }
  if (!p.npu) return;
  const bool u65 = p.npu->model == NpuModel::kEthosU65;
  const std::vector<uint32_t> configs = u65 ? std::vector<uint32_t>{256, 512} : std::vector<uint32_t>{32, 64, 128, 256};
  const std::string allowed = u65 ? "256 or 512" : "32, 64, 128 or 256";
  if (!m.Has("macs")) {
    f.Fail(fmt::format("{} ({}) does not say its MAC configuration", p.name, ModelName(p)),
           fmt::format("add macs: {} (the configuration the SoC has, the one Vela compiles for)", allowed));
  }
  const uint64_t macs = m.Get("macs").Number();
  if (std::find(configs.begin(), configs.end(), macs) == configs.end()) {
    m.Get("macs").Fail(fmt::format("an {} has no {}-MAC configuration", ModelName(p), macs),
                       fmt::format("write macs: {}", allowed));
  }
  p.npu->macs = uint32_t(macs);
  if (!m.Has("master")) {
    f.Fail(fmt::format("{} ({}) does not say what its AXI ports reach", p.name, ModelName(p)),
           "add master: NAME and a masters: entry {name: NAME, kind: npu, reaches: [...]} listing the "
           "regions and aliases the NPU's bus reaches (docs/boards.md, \"Bus masters\")");
  }
  p.npu->master = m.Get("master").Scalar();
  p.registers = NpuRegisters(*p.npu);
}

// A DMA controller's `channels:` (how many the instance has: RM0486 gives HPDMA1 and
// GPDMA1 16 channels each, RM0399 the H7's DMA1 and DMA2 8 streams each) and `master:` (the `masters:` entry of kind dma its ports are).
void ParseDma(const Mapping& m, const Field& f, Peripheral& p) {
  if (m.Has("channels") && !p.dma) {
    m.Get("channels").Fail(fmt::format("channels: is a DMA controller's key, and {} is {}", p.name,
                                       p.uart || p.timer || p.npu || p.unimplemented ? "a " + ModelName(p) : "no model"),
                           "remove it, or give model: stm32-gpdma, stm32-dma, pl330 or nxp-edma4");
  }
  if (!p.dma) return;
  if (m.Has("channels")) {
    const uint64_t n = m.Get("channels").Number();
    const uint32_t most = DmaMostChannels(p.dma->model);
    if (n == 0 || n > most) {
      m.Get("channels").Fail(fmt::format("a {} has 1 to {} {}, not {}", ModelName(p), most,
                                         p.dma->model == DmaModel::kStm32Dma ? "streams" : "channels", n),
                             fmt::format("write channels: {}", most));
    }
    p.dma->channels = uint32_t(n);
  }
  if (!m.Has("master")) {
    f.Fail(fmt::format("{} ({}) does not say what its bus ports reach", p.name, ModelName(p)),
           "add master: NAME and a masters: entry {name: NAME, kind: dma, reaches: [...]} listing the "
           "regions and aliases the DMA's ports reach (docs/boards.md, \"Bus masters\")");
  }
  p.dma->master = m.Get("master").Scalar();
  p.registers = DmaRegisters(*p.dma);
}

// One `irq:` line number; ParseBoard checks it against the NVIC's size once every layer
// is in (a SoC file's peripherals, a board file's cpu_options).
IrqLine ParseIrqNumber(const Field& f, const std::string& output) {
  IrqLine line;
  line.output = output;
  line.where = f.Where();
  const uint64_t n = f.Number();
  if (n >= kNvicMaxIrqLines) {
    f.Fail(fmt::format("IRQ {} is past the {} interrupt lines an NVIC can have", n, kNvicMaxIrqLines),
           "use the interrupt number the reference manual gives (exception number minus 16)");
  }
  line.number = uint32_t(n);
  return line;
}

// `irq:` — a timer model, or a UART model with one interrupt line: the number of the
// line it drives; the CMSDK UART (an output each for RX, TX and overflow): a mapping of
// those outputs to lines; a peripheral with declared registers: the number, and
// `irq_when:` the condition that holds while it is pending.
void ParseIrqs(const Mapping& m, const Field& f, Peripheral& p, size_t index, Layer& layer) {
  if (m.Has("irq_when") && (p.uart || p.timer || p.npu || p.dma || p.intc)) {
    m.Get("irq_when").Fail(fmt::format("{} is a {}, whose interrupt the model raises", p.name, ModelName(p)),
                           "remove irq_when: (docs/boards.md lists each model's interrupt outputs)");
  }
  if (!m.Has("irq")) {
    if (m.Has("irq_when")) m.Get("irq_when").Fail("irq_when: without irq:", "add irq: N, the NVIC line it drives");
    return;
  }
  Field irq = m.Get("irq");
  // Models with several outputs name them: the CMSDK UART's, the CLINT's and the PLIC's (on
  // an RV32 hart the number is the mip bit each sets: MTIP 7, MSIP 3; MEIP 11, SEIP 9).
  const bool clint = p.timer == TimerModel::kRiscvClint;
  if (p.uart == UartModel::kCmsdkApb || clint || p.intc) {
    const std::vector<std::string> outputs = clint    ? std::vector<std::string>{"mtip", "msip"}
                                             : p.intc ? std::vector<std::string>{"meip", "seip"}
                                                      : std::vector<std::string>{"rx", "tx", "overflow"};
    if (!irq.node.IsMap()) {
      irq.Fail(fmt::format("{} ({}) has several interrupt outputs; irq: must name them", p.name, ModelName(p)),
               clint    ? "write irq: {mtip: 7, msip: 3}, the mip bits the hart's timer and software interrupts set"
               : p.intc ? "write irq: {meip: 11, seip: 9}, the mip bits its machine and supervisor contexts set"
                        : "write irq: {rx: N, tx: N, overflow: N} (any of them), the lines the board wires each to");
    }
    Mapping im(irq, outputs);
    for (const std::string& output : outputs) {
      if (im.Has(output)) p.irqs.push_back(ParseIrqNumber(im.Get(output), output));
    }
    return;
  }
  if (p.dma) {  // one line per channel (a DMA-330: per event, and abort): irq: {channel0: N, ...}
    const std::vector<std::string> outputs = DmaIrqOutputs(*p.dma);
    if (!irq.node.IsMap()) {
      irq.Fail(fmt::format("{} ({}) has several interrupt outputs; irq: must name them", p.name, ModelName(p)),
               fmt::format("write irq: {{{}: N, {}: N, ...}} (any of them), the lines the SoC wires each to",
                           outputs[0], outputs[1]));
    }
    Mapping im(irq, outputs);
    for (const std::string& output : outputs) {
      if (im.Has(output)) p.irqs.push_back(ParseIrqNumber(im.Get(output), output));
    }
    return;
  }
  if (!irq.node.IsScalar()) {
    irq.Fail(p.uart ? fmt::format("{} ({}) has one interrupt line; irq: must be its number", p.name, ModelName(p))
                    : fmt::format("irq: of {} must be one interrupt number", p.name),
             p.uart || p.timer || p.npu ? "write irq: N, the NVIC line its interrupt drives (the SoC's interrupt table)"
                               : "write irq: N and irq_when: \"COND\"");
  }
  p.irqs.push_back(ParseIrqNumber(irq, p.timer ? "timer" : p.npu ? "npu" : ""));
  if (p.timer || p.uart || p.npu) return;
  if (!m.Has("irq_when")) {
    f.Fail(fmt::format("{} declares irq: {} but not when it is pending", p.name, p.irqs.back().number),
           "add irq_when: \"PERIPH.REG.FIELD == 1\", the condition over its registers that raises the line");
  }
  layer.irq_conditions.push_back({index, {m.Get("irq_when").Scalar(), m.Get("irq_when").Where()}});
}

}  // namespace

void ParsePeripheral(const Field& f, Layer& layer) {
  Mapping m(f, {"name", "base", "size", "description", "registers", "model", "source", "irq", "irq_when", "macs",
                "master", "channels", "interrupt_parent"});
  Peripheral p;
  p.where = f.Where();
  p.name = m.Require("name").Scalar();
  p.base = m.Require("base").Address();
  if (m.Has("model")) {
    ParseModel(m.Get("model"), p);
    ParseNpu(m, f, p);
    ParseDma(m, f, p);
    if (p.unimplemented && (m.Has("registers") || !m.Has("size"))) {
      f.Fail(fmt::format("unimplemented window {} {}", p.name,
                         m.Has("registers") ? "declares registers" : "does not give its size"),
             "give base: and size: of the whole bus window and no registers: (declare a peripheral "
             "with registers inside the window as an entry of its own; it takes precedence)");
    }
    if (m.Has("registers")) {
      m.Get("registers").Fail(fmt::format("{} is a {}, whose registers come from its model", p.name,
                                          ModelName(p)),
                              "remove registers: (docs/boards.md lists each model's registers)");
    }
    if (!m.Has("source")) {
      f.Fail(fmt::format("{} {} does not say where its address comes from",
                         p.uart    ? "UART"
                         : p.timer ? "timer"
                         : p.npu   ? "NPU"
                         : p.dma   ? "DMA controller"
                         : p.intc  ? "interrupt controller"
                                   : "unimplemented window",
                         p.name),
             "add source: citing the reference manual section or vendor file that places it at this "
             "address, e.g. source: \"QEMU 7.2 hw/arm/mps2.c: UART0 at 0x40004000\"");
    }
  }
  if (!m.Has("model")) {  // macs:, master: or channels: without a model
    ParseNpu(m, f, p);
    ParseDma(m, f, p);
  }
  if (m.Has("source")) p.source = m.Get("source").Scalar();
  const bool modelled = p.uart || p.timer || p.npu || p.dma || p.intc;
  // The CMSDK timers, an Ethos-U: 4 KiB; the CLINT: 64 KiB (QEMU virt_memmap VIRT_CLINT);
  // the PLIC: 6 MiB (VIRT_PLIC_SIZE(VIRT_CPUS_MAX * 2), `info mtree`: 0xc000000-0xc5fffff).
  const uint64_t model_size = p.uart                                        ? UartBlockSize(*p.uart)
                              : p.timer && *p.timer == TimerModel::kRiscvClint ? 0x10000
                              : p.intc                                        ? 0x600000
                                                                              : 0x1000;
  p.size = m.Has("size") ? m.Get("size").Size() : modelled ? model_size : 1024;
  if (m.Has("description")) p.description = m.Get("description").Scalar();
  if (p.size == 0 || p.size > (uint64_t{1} << 32) - p.base) {
    if (!m.Has("size")) {  // the default size runs past 4 GiB: the base is what to look at
      m.Get("base").Fail(fmt::format("peripheral '{}' at 0x{:x} with its default size 0x{:x} runs past 4 GiB", p.name,
                                     p.base, p.size),
                         "check base:, or give size: for a register block that ends at 4 GiB");
    }
    m.Get("size").Fail(fmt::format("peripheral '{}' size 0x{:x} is empty or runs past 4 GiB", p.name, p.size),
                       "give the register block's size, e.g. size: 1K");
  }
  if (modelled && p.registers.back().offset + 4 > p.size) {
    m.Get("size").Fail(fmt::format("{} ({}) needs 0x{:x} bytes for its registers, more than size 0x{:x}",
                                   p.name, ModelName(p), p.registers.back().offset + 4, p.size),
                       fmt::format("omit size (0x{:x} for this model) or give at least 0x{:x}", model_size,
                                   p.registers.back().offset + 4));
  }
  size_t index = layer.peripherals.size();
  ParseIrqs(m, f, p, index, layer);
  if (m.Has("interrupt_parent")) {  // ParseBoard finds it once every layer is in
    const Field parent = m.Get("interrupt_parent");
    if (p.irqs.empty()) {
      parent.Fail(fmt::format("{} names an interrupt_parent but has no irq:", p.name),
                  "add irq: N, the parent's source number its interrupt drives, or remove interrupt_parent:");
    }
    for (IrqLine& l : p.irqs) {
      l.parent_name = parent.Scalar();
      l.parent_where = parent.Where();
    }
  }
  struct Target {
    size_t reg;
    std::string key;
    Field field;
  };
  std::vector<Target> pending_targets;
  for (const Field& rf : Items<Register>(m, "registers", f.origin)) {
    Mapping rm(rf, {"name", "offset", "reset", "fields", "rules", "sets", "clears", "description"});
    Register r;
    r.name = rm.Require("name").Scalar();
    r.offset = uint32_t(rm.Require("offset").Number());
    r.reset = rm.Has("reset") ? uint32_t(rm.Get("reset").Number()) : 0;
    if (r.offset % 4 != 0 || r.offset + 4 > p.size) {
      rm.Get("offset").Fail(fmt::format("register {}.{} at offset 0x{:x} is not a word inside the "
                                        "0x{:x}-byte block", p.name, r.name, r.offset, p.size),
                            "use a 4-byte-aligned offset inside the peripheral's size");
    }
    for (const Register& other : p.registers) {
      if (other.name == r.name || other.offset == r.offset) {
        rf.Fail(fmt::format("register {}.{} repeats the name or offset of {}.{}", p.name, r.name,
                            p.name, other.name),
                "give each register its own name and offset");
      }
    }
    if (rm.Has("fields")) {
      Field ff = rm.Get("fields");
      if (!ff.node.IsMap()) ff.Fail("fields must be a mapping NAME: bit", "e.g. fields: {ENABLE: 0, MODE: [29, 28]}");
      for (const auto& kv : ff.node) {
        r.fields.push_back(ParseRegisterField(Field{kv.second, f.origin, ff.path}, kv.first.Scalar()));
      }
    }
    for (const char* key : {"sets", "clears"}) {
      if (rm.Has(key)) pending_targets.push_back({p.registers.size(), key, rm.Get(key)});
    }
    for (const Field& rule : Items<RegisterRule>(rm, "rules", f.origin)) {
      Mapping ru(rule, {"field", "reads", "when"});
      PendingRule pr;
      pr.peripheral = index;
      pr.reg = p.registers.size();
      pr.field = ru.Require("field").Scalar();
      pr.value = uint32_t(ru.Require("reads").Number());
      pr.when = {ru.Require("when").Scalar(), ru.Get("when").Where()};
      layer.rules.push_back(pr);
    }
    p.registers.push_back(std::move(r));
  }
  for (const Target& t : pending_targets) {
    std::string name = t.field.Scalar();
    auto it = std::find_if(p.registers.begin(), p.registers.end(), [&](const Register& r) { return r.name == name; });
    if (it == p.registers.end() || size_t(it - p.registers.begin()) == t.reg) {
      t.field.Fail(fmt::format("{} names '{}', not another register of {}", t.key, name, p.name),
                   "name the register whose bits this one sets or clears, e.g. sets: MEMENR");
    }
    (t.key == "sets" ? p.registers[t.reg].sets : p.registers[t.reg].clears) = size_t(it - p.registers.begin());
  }
  layer.peripherals.push_back(std::move(p));
}

}  // namespace faultline
