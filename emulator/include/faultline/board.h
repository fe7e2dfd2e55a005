// A board: the memory map a core sees after reset, read from boards/*.yaml.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace faultline {

// Cortex-M cores, and RV32 harts by their ISA string (the extensions a board's core has;
// Unicorn's RV32 model executes a superset, so a board names what the silicon has).
enum class Cpu { kCortexM0, kCortexM3, kCortexM4, kCortexM7, kCortexM33, kCortexM55, kRv32im, kRv32imc, kRv32imac, kRv32imf };

enum class Isa { kArm, kRiscv };
Isa IsaOf(Cpu cpu);
// RV32 boards: whether the core has the C (compressed) and F (single-precision) extensions.
bool HasRvc(Cpu cpu);
bool HasRvf(Cpu cpu);

enum class RegionKind { kFlash, kMram, kRom, kSram, kTcm, kDdr, kXspi, kPeripheral };

// Flash, MRAM, ROM and XSPI flash keep their contents without power: a flash
// programmer writes them, and they are what a board boots from.
bool IsNonVolatile(RegionKind kind);

// What RAM holds at power-on. Silicon SRAM powers up with unpredictable contents,
// which `kRandom` models deterministically from a seed.
struct ResetContents {
  enum class Kind { kZero, kFill, kRandom, kErased } kind = Kind::kZero;
  uint8_t fill = 0;    // kFill
  uint64_t seed = 0;   // kRandom
};

struct Access {
  bool read = false;
  bool write = false;
  bool execute = false;
};

struct Region {
  std::string name;
  uint64_t base = 0;
  uint64_t size = 0;  // bytes; base + size <= 4 GiB
  RegionKind kind = RegionKind::kSram;
  Access access;
  ResetContents reset;
  std::string description;
  int line = 0;       // line in the board file, for messages
  std::string where;  // "file:line" (a board may layer on a SoC file)

  uint64_t end() const { return base + size; }  // exclusive
  bool Contains(uint64_t addr) const { return addr >= base && addr < end(); }
};

// How an image reaches the board before reset.
enum class LoadMode {
  kFlash,     // only segments whose load address is in non-volatile memory (a flash programmer)
  kDebugger,  // every PT_LOAD segment (gdb `load`, qemu -kernel)
};

struct Boot {
  uint64_t vector_table = 0;  // Cortex-M: where reset reads the initial SP and reset vector
  LoadMode load_mode = LoadMode::kFlash;
  // RV32 harts have no vector table: they start at a reset address (Kelvin: ml_top
  // CTRL.pc_start, 0), or at the ELF's entry (QEMU virt's boot ROM jumps there).
  uint64_t reset_pc = 0;
  bool reset_at_entry = false;
};

// The same storage seen at another address: a secure/non-secure alias, or a TCM's
// global address next to its core-local one.
struct Alias {
  std::string name;
  std::string of;       // the region whose storage it shows
  uint64_t base = 0;    // where the alias appears
  uint64_t offset = 0;  // first byte of the region it shows
  uint64_t size = 0;    // bytes shown
  std::string where;
};

// A bit field of a peripheral register: bits [msb:lsb].
struct RegisterField {
  std::string name;
  uint32_t msb = 0, lsb = 0;
  uint32_t mask() const { return uint32_t(((uint64_t{1} << (msb - lsb + 1)) - 1) << lsb); }
};

// `PERIPH.REG[.FIELD] == value` terms, all of which must hold.
struct Comparison {
  size_t peripheral = 0, reg = 0;
  std::optional<size_t> field;  // whole register when absent
  bool equal = true;            // == or !=
  uint32_t value = 0;
};
struct Condition {
  std::vector<Comparison> all;
  std::string text;  // as written, for reports
};

// A field that reads as `value` while `when` holds, whatever was written: how a
// status flag such as a READY bit follows its enable bit.
struct RegisterRule {
  size_t field = 0;
  uint32_t value = 0;
  Condition when;
};

struct Register {
  std::string name;
  uint32_t offset = 0;
  uint32_t reset = 0;
  // A write-1-to-set (or -clear) register: a write sets (clears) those bits of another
  // register of the same peripheral, e.g. STM32 RCC MEMENSR -> MEMENR. Reads give 0.
  std::optional<size_t> sets, clears;
  std::vector<RegisterField> fields;
  std::vector<RegisterRule> rules;
};

// A UART whose behaviour faultline implements (devices/uart.cc): transmitted bytes reach the
// run's console for that port, received bytes come from a scenario or stdin.
enum class UartModel {
  kCmsdkApb,    // Arm CMSDK APB UART (MPS2/MPS3), as QEMU's cmsdk-apb-uart
  kStm32Usart,  // STM32H7/N6 USART (RM0433/RM0399/RM0486)
  kStm32Lpuart, // STM32H7/N6 LPUART: the USART's registers without GTPR and RTOR
  kNxpLpuart,   // NXP LPUART (i.MX93, i.MX RT)
  kDw16550,     // Synopsys DesignWare APB UART, 16550-compatible (Alif Ensemble)
  kPl011,       // Arm PrimeCell UART PL011 (QEMU's virt and Stellaris boards, many SoCs)
  kNs16550,     // National Semiconductor 16550A, byte registers (QEMU's RISC-V virt UART0)
};
std::string ToString(UartModel model);
// The register layout of a model, as its reference manual gives it (board/uart_models.cc).
std::vector<Register> UartRegisters(UartModel model);
// The size of a model's register block, for a peripheral that does not state one.
uint64_t UartBlockSize(UartModel model);

// A timer whose behaviour faultline implements (devices/timer.cc). It counts one tick per
// instruction (the clock SysTick uses here: docs/fidelity.md) and raises its interrupt
// line at the block boundary where it comes due.
enum class TimerModel {
  kCmsdkApbTimer,  // Arm CMSDK APB timer (MPS2/MPS3 TIMER0/TIMER1), as QEMU's cmsdk-apb-timer
  kCmsdkApbDualTimer,  // Arm CMSDK APB dual timer (SP804-like), as QEMU's cmsdk-apb-dualtimer
  kRiscvClint,         // SiFive CLINT (RISC-V ACLINT MTIMER + MSWI), as QEMU's virt machine has it
};
std::string ToString(TimerModel model);
std::vector<Register> TimerRegisters(TimerModel model);  // board/timer_models.cc

// An interrupt controller between the peripherals and the hart (devices/plic.cc): the
// peripherals whose `interrupt_parent:` names it drive its sources, and its own `irq:`
// outputs drive the hart's mip bits.
enum class IntcModel {
  kRiscvPlic,  // RISC-V PLIC (SiFive), as QEMU 7.2's virt machine configures it
};
std::string ToString(IntcModel model);
std::vector<Register> IntcRegisters(IntcModel model);  // board/intc_models.cc
// The sources a controller has, 0 (reserved: "no interrupt") included.
uint32_t IntcSources(IntcModel model);

// An Arm Ethos-U NPU whose behaviour faultline implements (devices/ethos_u/): it runs the
// command streams Vela writes, and reads and writes memory as a bus master of its own
// (`master:`, a `masters:` entry of kind npu, says what its AXI ports reach).
enum class NpuModel {
  kEthosU55,  // Arm Ethos-U55: 32, 64, 128 or 256 MACs per cycle
  kEthosU65,  // Arm Ethos-U65: 256 or 512 MACs per cycle
};
struct Npu {
  NpuModel model = NpuModel::kEthosU55;
  uint32_t macs = 256;  // MACs per cycle: the configuration Vela compiles for (ethos-u55-256)
  std::string master;   // the `masters:` entry its AXI ports are
};
std::string ToString(NpuModel model);
// A DMA controller whose behaviour faultline implements (devices/stm32_gpdma.h,
// devices/stm32_dma.h): its channels move memory as a bus master of its own (`master:`, a
// `masters:` entry of kind dma, says what its ports reach).
enum class DmaModel {
  kStm32Gpdma,  // ST's GPDMA/HPDMA (STM32N6 GPDMA1 and HPDMA1, as RM0486 describes them)
  kStm32Dma,    // ST's stream DMA (STM32H7 DMA1 and DMA2, as RM0399 describes them)
  kPl330,       // Arm's CoreLink DMA-330 (the Alif Ensemble's DMA0 and local DMAs)
  kNxpEdma4,    // NXP's eDMA4 (the i.MX93's DMA4)
};
// A DMA-330's events, each an interrupt output when INTEN enables it (the most Arm's
// configurations have: CR0.num_events, TRM DDI 0424).
constexpr uint32_t kPl330Events = 32;
struct Dma {
  DmaModel model = DmaModel::kStm32Gpdma;
  uint32_t channels = 16;  // channels (GPDMA, DMA-330 threads) or streams (DMA); the model's count unless stated
  std::string master;  // the `masters:` entry its ports are
};
std::string ToString(DmaModel model);
// The most channels (streams) a model has, and what it calls them.
uint32_t DmaMostChannels(DmaModel model);
// The interrupt outputs a controller's `irq:` names: one per channel (stream), or a
// DMA-330's event lines event0..event31 and abort.
std::vector<std::string> DmaIrqOutputs(const Dma& dma);
// The register block of a DMA controller (board/dma_models.cc).
std::vector<Register> DmaRegisters(const Dma& dma);
// The register block of an Ethos-U (board/npu_models.cc): the driver's interface, with
// ID and CONFIG as this configuration reads them.
std::vector<Register> NpuRegisters(const Npu& npu);
// The SHRAM of a configuration in KiB (Vela's accelerator configurations).
uint32_t NpuShramKiB(const Npu& npu);

// Interrupt lines into the NVIC: external interrupts 0..N-1 (exception 16 + n), N the
// board's cpu_options.nvic_irqs (default 32; Armv7-M and Armv8-M allow up to 496 and 480:
// ICTR.INTLINESNUM counts them in 32s, NVIC_ISER0..15).
constexpr uint32_t kNvicMaxIrqLines = 496;

// A peripheral's interrupt output wired to an NVIC line. Level-sensitive, as QEMU's
// qemu_irq: the line is high while the model's output (or `when`) holds; a rising level
// pends the interrupt, and it pends again on exception return while the level stays high
// (Armv7-M ARM §B3.4.1, QEMU hw/intc/armv7m_nvic.c nvic_complete_irq). Several outputs
// may share a line: it is then their OR (QEMU's or-irq, e.g. the MPS2 UART overflows).
struct IrqLine {
  std::string output;   // the model's output: "timer" / "tx", "rx", "overflow"; "" for `when`
  uint32_t number = 0;  // NVIC external interrupt number (RV32: mip bit), or the parent's source
  // `interrupt_parent:` (device tree's interrupt-parent): the interrupt controller among the
  // peripherals the line goes to, `number` being its source; none: the CPU's own line.
  std::optional<size_t> parent;
  std::string parent_name, parent_where;
  Condition when;       // a register-declared peripheral: the line is high while this holds
  std::string where;
};

// A block of memory-mapped registers. Writes are stored; reads return what was
// written, except where a rule says otherwise, or where the block is a UART or timer model.
struct Peripheral {
  std::string name;
  std::string description;
  uint64_t base = 0;
  uint64_t size = 0;
  std::vector<Register> registers;
  std::optional<UartModel> uart;  // `model:` a UART; its registers come from the model
  std::optional<TimerModel> timer;  // `model:` a timer
  std::optional<Npu> npu;           // `model:` an NPU, with `macs:` and `master:`
  std::optional<Dma> dma;           // `model:` a DMA controller, with `master:`
  std::optional<IntcModel> intc;    // `model:` an interrupt controller
  std::vector<IrqLine> irqs;        // `irq:`
  // `model: unimplemented`: a whole bus window nobody modelled, as QEMU's
  // unimplemented-device (hw/misc/unimp.c): reads 0, writes are dropped, and each register
  // touched is reported once (an `unmodelled-register` event with its first PC). Modelled
  // peripherals inside it take precedence.
  bool unimplemented = false;
  std::string source;             // where its address comes from (required with `model:`)
  std::string where;
};

// What the bus does with an access to a region whose gate is closed.
enum class WhenDisabled {
  kBusFault,             // the access errors (BusFault)
  kReadZeroWriteIgnore,  // reads return 0, writes are dropped (and reported as events)
};

// A region usable only while a condition over peripheral registers holds: powered,
// clocked, or a controller in memory-mapped mode.
struct Gate {
  std::string region;
  Condition when;
  WhenDisabled when_disabled = WhenDisabled::kBusFault;
  std::string source;  // where the rule comes from (datasheet section), for reports
  std::string where;
  std::optional<bool> forced;  // a scenario's override: open or closed whatever `when` says
};

// A symbol the host side expects at a fixed address (a shared-memory header, a mailbox):
// `faultline check` verifies that the image puts it there.
struct HostContract {
  std::string symbol;
  uint64_t address = 0;
  std::string description;
  std::string where;
};

// Memory the host owns at fixed addresses, which it does not look up in the ELF: Kelvin's
// model header page, the last 4 KiB of the TCM (crt/kelvin.ld, CantripOS MlCoordinator).
// The host writes the model's input into the page before it starts the core and reads the
// output header at its end once the core halts; the firmware's own data must stay out.
// `faultline check` verifies an image against it (`host_page:`, docs/boards.md).
struct HostPage {
  uint64_t base = 0, size = 0;
  std::string input_section;    // the output section the input is written into: .model_input
  std::string header_section;   // the output header's output section: .output_header
  std::string header_symbol;    // where the start code stores main's return value (_ret), or ""
  uint64_t header_base = 0, header_size = 0;  // inside the page, at its end on Kelvin
  std::string where;
};

// Core implementation options a board states (`cpu_options:`).
struct CpuOptions {
  // Stores retire into a write buffer before the bus answers (Cortex-M7: Armv7-M ARM
  // §B3.2.15, Cortex-M7 TRM §3.3.6): a bus error on a store is reported to the firmware
  // as an imprecise BusFault (IMPRECISERR, BFAR not valid, stacked PC after the store).
  bool write_buffer = false;
  // External interrupt lines the SoC's NVIC has: IRQ numbers 0..nvic_irqs-1.
  uint32_t nvic_irqs = 32;
  // MPU regions (MPU_TYPE.DREGION): a configuration choice of the SoC, 8 or 16 on the
  // Cortex-M7 (Cortex-M7 TRM §2.1.2), 0/4/8/12/16 per security state on the Cortex-M33 and
  // M55 (their TRMs' configuration options). Regions past it read as zero.
  uint32_t mpu_regions = 8;
  // SAU regions (SAU_TYPE.SREGION) of the Armv8-M cores: 0, 4 or 8 (Cortex-M33 TRM
  // §2.1.1, Cortex-M55 TRM configuration options); QEMU 7.2's cortex-m33 and cortex-m55
  // have 8 (the sau_regs fixture reads SAU_TYPE there).
  uint32_t sau_regions = 8;
  // L1 cache sizes in bytes of a Cortex-M7 or M55 (`icache:`, `dcache:`), a configuration
  // choice of the SoC: 0, 4, 8, 16, 32 or 64 KiB (Cortex-M7 TRM §1.2, Cortex-M55 TRM
  // configuration options; CMSIS's cache functions document the same set). Unset: the
  // core's default (16 KiB each on the M7, 32 KiB each on the M55, arm/scs.cc).
  std::optional<uint32_t> icache_bytes, dcache_bytes;
  std::string caches_where;  // file:line of the first of them, for errors
  // RV32 harts. A trap enters the firmware's handler at mtvec (the privileged spec), or,
  // with traps_to_host, halts the core and is reported to the host (Kelvin's ml_top raises
  // INTR_STATE.instruction_fault/data_fault to the host instead).
  bool traps_to_host = false;
  // Instructions that halt the core for the host to read its results: Kelvin's `mpause`
  // (0x08000073, "end of program") and `ebreak` outside a semihosting call.
  bool halt_on_mpause = false;
  bool halt_on_ebreak = false;
};

// A bus master other than the CPU and the host: an NPU or a DMA controller, with the
// memories and peripherals its interconnect routes it to. It addresses them at their
// global addresses: a TCM the CPU sees at 0x20000000 is reached by the NPU only through
// a global alias of it, if the SoC has one (Alif: dtcm_global at 0x50800000).
enum class MasterKind { kNpu, kDma };
struct BusMaster {
  std::string name;                  // "NPU_HP"
  MasterKind kind = MasterKind::kNpu;
  std::vector<std::string> reaches;  // regions, aliases and peripherals, by name
  std::string description;
  std::string source;                // the datasheet or vendor file the routing comes from
  std::string where;
};

struct Board {
  std::string name;
  std::string description;
  Cpu cpu = Cpu::kCortexM33;
  CpuOptions cpu_options;
  Boot boot;
  std::vector<Region> regions;  // sorted by base, non-overlapping
  std::vector<Alias> aliases;
  std::vector<Peripheral> peripherals;
  std::vector<Gate> gates;
  std::vector<HostContract> contracts;
  std::optional<HostPage> host_page;
  std::vector<BusMaster> masters;  // besides the CPU and the host
  std::filesystem::path source;  // the YAML file it came from
};

// "RCC.MEMENR.AXISRAM5EN" for a comparison's left-hand side.
std::string RegisterPath(const Board& board, const Comparison& c);

// Parses and validates a board file. Throws InputError with file:line.
Board LoadBoardFile(const std::filesystem::path& path);
// Parses board YAML held in memory; `origin` names it in messages.
Board ParseBoard(const std::string& yaml, const std::string& origin);

// `name_or_path` is a board name (looked up as <boards_dir>/<name>.yaml) or a path to a
// YAML file. Throws InputError listing the known boards when neither exists.
Board ResolveBoard(const std::string& name_or_path, const std::filesystem::path& boards_dir);

// The memory of `board` (a region, or an alias of one) that holds all of [address,
// address + size), or null: where a host write may go, asked before any byte of it exists.
struct Memory {
  std::string name;
  uint64_t base = 0, size = 0;
};
std::optional<Memory> MemoryHolding(const Board& board, uint64_t address, uint64_t size);
// The largest memory of `board`, in bytes.
uint64_t LargestMemory(const Board& board);

struct BoardSummary {
  std::string name;
  std::string description;
};
std::vector<BoardSummary> ListBoards(const std::filesystem::path& boards_dir);

// The directory holding the built-in boards: $FAULTLINE_BOARDS, else the source tree's
// boards/ (compiled in), else <exe>/../share/faultline/boards.
std::filesystem::path DefaultBoardsDir();

// A boot configuration: where the boot ROM or secure enclave writes the image and starts
// the core. Read from Alif SE-tools JSON (the first entry with an `mramAddress`).
struct BootConfig {
  std::string path;
  std::string entry;           // the JSON entry it came from, e.g. USER_APP
  uint64_t image_address = 0;  // mramAddress: the image's vector table
  std::string cpu_id;          // M55_HP, M55_HE, or empty
};
BootConfig ReadBootConfig(const std::string& path);
// The same for the JSON text; `path` names it in messages.
BootConfig ParseBootConfig(const std::string& json, const std::string& path);

std::string ToString(Cpu cpu);
std::string ToString(RegionKind kind);
std::string ToString(LoadMode mode);
std::string ToString(WhenDisabled mode);
std::string ToString(MasterKind kind);
std::optional<LoadMode> ParseLoadMode(const std::string& text);
std::string AccessString(const Access& access);  // "rwx", "r-x", ...

}  // namespace faultline
