// Board schema beyond regions: uses:, aliases, peripherals, gates. Each bad input names
// its file and line and says what to write instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "board_yaml.h"
#include "temp_dir.h"

namespace faultline {
namespace {

// A board with one RAM region at 0x20000000 and the peripherals/gates the tests add.
std::string Base(const std::string& extra) {
  return BoardWith("  - name: PWR\n"          // 9
                   "    base: 0x40000000\n"   // 10
                   "    registers:\n"         // 11
                   "      - {name: CR, offset: 0, fields: {EN: 0, MODE: [5, 4]}}\n"  // 12
                   + extra,                    // 13...
                   "  - {name: bank, base: 0x30000000, size: 64K, kind: sram, access: rw, reset: zero}\n");  // 7
}

void ExpectError(const std::string& yaml, int line, std::initializer_list<const char*> words,
                 const std::string& fix_words) {
  try {
    ParseBoard(yaml, "t.yaml");
    FAIL() << "expected InputError for:\n" << yaml;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "t.yaml:" + std::to_string(line)) << e.what();
    for (const char* w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << w << " in " << e.what();
    EXPECT_NE(e.fix().find(fix_words), std::string::npos) << e.fix();
  }
}

TEST(BoardGates, ParsesConditionsIntoRegisterFields) {
  Board b = ParseBoard(Base("gates:\n  - {region: bank, when: \"PWR.CR.EN == 1 && PWR.CR.MODE != 2\", "
                            "when_disabled: bus-fault}\n"),
                       "t.yaml");
  ASSERT_EQ(b.gates.size(), 1u);
  const Gate& g = b.gates[0];
  EXPECT_EQ(g.region, "bank");
  EXPECT_EQ(g.when_disabled, WhenDisabled::kBusFault);
  ASSERT_EQ(g.when.all.size(), 2u);
  EXPECT_EQ(RegisterPath(b, g.when.all[0]), "PWR.CR.EN");
  EXPECT_TRUE(g.when.all[0].equal);
  EXPECT_EQ(g.when.all[0].value, 1u);
  EXPECT_EQ(RegisterPath(b, g.when.all[1]), "PWR.CR.MODE");
  EXPECT_FALSE(g.when.all[1].equal);
}

TEST(BoardGates, UnknownPeripheralInAConditionListsTheKnownOnes) {
  ExpectError(Base("gates:\n  - region: bank\n    when: \"RCC.CR.EN == 1\"\n    when_disabled: bus-fault\n"),
              15, {"unknown peripheral 'RCC'"}, "PWR");
}

TEST(BoardGates, UnknownRegisterAndFieldAreNamed) {
  ExpectError(Base("gates:\n  - region: bank\n    when: \"PWR.SR.EN == 1\"\n    when_disabled: bus-fault\n"),
              15, {"unknown register 'PWR.SR'"}, "CR");
  ExpectError(Base("gates:\n  - region: bank\n    when: \"PWR.CR.ON == 1\"\n    when_disabled: bus-fault\n"),
              15, {"unknown field 'PWR.CR.ON'"}, "EN, MODE");
}

TEST(BoardGates, ValueTooWideForTheField) {
  ExpectError(Base("gates:\n  - region: bank\n    when: \"PWR.CR.MODE == 4\"\n    when_disabled: bus-fault\n"),
              15, {"'4' is not a value PWR.CR.MODE can hold"}, "PERIPHERAL.REGISTER");
}

TEST(BoardGates, TermWithoutComparison) {
  ExpectError(Base("gates:\n  - region: bank\n    when: \"PWR.CR.EN\"\n    when_disabled: bus-fault\n"),
              15, {"has no == or !="}, "joined by &&");
}

TEST(BoardGates, GateForUnknownRegionAndTwoGatesForOne) {
  ExpectError(Base("gates:\n  - {region: nope, when: \"PWR.CR.EN == 1\", when_disabled: bus-fault}\n"), 14,
              {"gate for unknown region 'nope'"}, "region:");
  ExpectError(Base("gates:\n  - {region: bank, when: \"PWR.CR.EN == 1\", when_disabled: bus-fault}\n"
                   "  - {region: bank, when: \"PWR.CR.MODE == 1\", when_disabled: bus-fault}\n"),
              15, {"region 'bank' has two gates"}, "&&");
}

TEST(BoardGates, UnknownWhenDisabled) {
  ExpectError(Base("gates:\n  - region: bank\n    when: \"PWR.CR.EN == 1\"\n    when_disabled: explode\n"),
              16, {"unknown when_disabled 'explode'"}, "bus-fault, read-zero-write-ignore");
}

TEST(BoardCpuOptions, WriteBufferIsOffUnlessTheBoardSaysSo) {
  EXPECT_FALSE(ParseBoard(Base(""), "t.yaml").cpu_options.write_buffer);
  EXPECT_TRUE(ParseBoard(Base("cpu_options: {write_buffer: true}\n"), "t.yaml").cpu_options.write_buffer);
  ExpectError(Base("cpu_options: {write_buffer: yes}\n"), 13, {"unknown value 'yes'"}, "true, false");
  ExpectError(Base("cpu_options: {writebuffer: true}\n"), 13, {"unknown key 'writebuffer'"}, "write_buffer");
}

TEST(BoardCpuOptions, H747SaysItsCortexM7HasAWriteBuffer) {
  EXPECT_TRUE(LoadBoardFile(std::string(FAULTLINE_BOARDS_DIR) + "/stm32h747-cm7.yaml").cpu_options.write_buffer);
}

TEST(BoardAliases, UnknownRegionAndOutOfRange) {
  ExpectError(Base("aliases:\n  - {name: a, of: nope, base: 0x50000000}\n"), 14,
              {"alias 'a' is of unknown region 'nope'"}, "of:");
  ExpectError(Base("aliases:\n  - {name: a, of: ram, base: 0x50000000, offset: 60K, size: 8K}\n"), 14,
              {"beyond region 'ram'"}, "reduce offset or size");
}

TEST(BoardAliases, AliasOverlappingARegionIsAnError) {
  ExpectError(Base("aliases:\n  - {name: a, of: ram, base: 0x30008000}\n"), 14,
              {"alias 'a'", "overlaps region 'bank'"}, "must not overlap");
}

TEST(BoardPeripherals, RegisterOffsetMustBeAWordInsideTheBlock) {
  ExpectError(Base("      - {name: SR, offset: 0x402}\n"), 13, {"PWR.SR at offset 0x402"}, "4-byte-aligned");
}

TEST(BoardPeripherals, FieldBitsMustFitARegister) {
  ExpectError(Base("      - {name: SR, offset: 4, fields: {X: [40, 2]}}\n"), 13, {"field 'X' bits [40:2]"},
              "[msb, lsb]");
}

TEST(BoardPeripherals, RuleNamesUnknownField) {
  ExpectError(Base("      - name: SR\n        offset: 4\n        fields: {RDY: 0}\n        rules:\n"
                   "          - {field: READY, reads: 1, when: \"PWR.CR.EN == 1\"}\n"),
              17, {"rule names unknown field 'READY' of PWR.SR"}, "fields:");
}

TEST(BoardPeripherals, PeripheralOverlappingARegion) {
  ExpectError(Base("  - {name: DMA, base: 0x2000F000, size: 8K}\n"), 13,
              {"peripheral 'DMA'", "overlaps region 'ram'"}, "must not overlap");
}

TEST(BoardUses, LayersOnAnotherFileAndReplacesARegionByName) {
  const testing::TempDir dir;
  std::filesystem::create_directories(dir / "soc");
  std::ofstream(dir / "soc" / "chip.yaml") << Base("");
  std::ofstream(dir / "board.yaml")
      << "uses: soc/chip.yaml\nname: myboard\n"
         "regions:\n  - {name: bank, base: 0x30000000, size: 32K, kind: sram, access: rw, reset: {fill: 0x11}}\n";
  Board b = LoadBoardFile(dir / "board.yaml");
  EXPECT_EQ(b.name, "myboard");
  EXPECT_EQ(b.description, "test");  // inherited
  ASSERT_EQ(b.regions.size(), 2u);
  EXPECT_EQ(b.regions[1].name, "bank");
  EXPECT_EQ(b.regions[1].size, 32u * 1024);  // replaced by the board
  EXPECT_EQ(b.regions[1].where, (dir / "board.yaml").string() + ":4");
  EXPECT_EQ(b.peripherals.size(), 1u);

  std::ofstream(dir / "missing.yaml") << "uses: soc/none.yaml\nname: x\n";
  try {
    LoadBoardFile(dir / "missing.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), (dir / "missing.yaml").string() + ":1");
    EXPECT_NE(std::string(e.what()).find("none.yaml"), std::string::npos);
  }
  std::ofstream(dir / "loop.yaml") << "uses: loop.yaml\nname: x\n";
  EXPECT_THROW(LoadBoardFile(dir / "loop.yaml"), InputError);
}

TEST(MemoryMapGates, RuleMakesAStatusFieldFollowItsEnableBit) {
  Board b = ParseBoard(Base("      - name: SR\n        offset: 4\n        fields: {RDY: 0}\n        rules:\n"
                            "          - {field: RDY, reads: 1, when: \"PWR.CR.EN == 1\"}\n"
                            "gates:\n  - {region: bank, when: \"PWR.CR.EN == 1\", when_disabled: bus-fault}\n"),
                       "t.yaml");
  MemoryMap map(b);
  int bank = map.Find(0x30000000);
  ASSERT_GE(bank, 0);
  EXPECT_FALSE(map.Enabled(bank));
  EXPECT_EQ(map.ExplainClosed(0), "PWR.CR.EN = 0, needs == 1");
  EXPECT_EQ(map.ReadRegister(0, 1), 0u);
  RegisterWriteEffect effect = map.WriteRegister(0, 0, 0x1);
  ASSERT_EQ(effect.gates_changed.size(), 1u);
  EXPECT_TRUE(map.Enabled(bank));
  EXPECT_EQ(map.ReadRegister(0, 1), 1u);           // RDY reads 1 now
  EXPECT_EQ(map.StoredValue(0, 1), 0u);            // though nothing wrote it
  EXPECT_EQ(map.DescribeFields(0, 0, 0x21), "EN=1 MODE=2");
  EXPECT_TRUE(map.WriteRegister(0, 0, 0x21).gates_changed.empty());  // still open
  EXPECT_EQ(map.WriteRegister(0, 0, 0).gates_changed.size(), 1u);
  EXPECT_FALSE(map.Enabled(bank));
}

TEST(MemoryMapGates, SetAndClearRegistersChangeTheirTargetAndOpenTheGate) {
  // STM32 style: RCC MEMENSR (write 1 to set) and MEMENCR (write 1 to clear) act on MEMENR.
  Board b = ParseBoard(Base("  - name: RCC\n    base: 0x40001000\n    registers:\n"
                            "      - {name: MEMENR, offset: 0x0, fields: {BANKEN: 2}}\n"
                            "      - {name: MEMENSR, offset: 0x4, sets: MEMENR}\n"
                            "      - {name: MEMENCR, offset: 0x8, clears: MEMENR}\n"
                            "gates:\n  - {region: bank, when: \"RCC.MEMENR.BANKEN == 1\", "
                            "when_disabled: read-zero-write-ignore, source: \"RM0486 §9\"}\n"),
                       "t.yaml");
  EXPECT_EQ(b.gates[0].source, "RM0486 §9");
  MemoryMap map(b);
  EXPECT_FALSE(map.Enabled(map.Find(0x30000000)));
  EXPECT_EQ(map.WriteRegister(1, 1, 0x5).gates_changed.size(), 1u);  // sets bits 0 and 2
  EXPECT_EQ(map.StoredValue(1, 0), 0x5u);
  EXPECT_EQ(map.ReadRegister(1, 1), 0u) << "a set register reads as zero";
  EXPECT_TRUE(map.Enabled(map.Find(0x30000000)));
  map.WriteRegister(1, 1, 0x2);  // another set keeps the earlier bits
  EXPECT_EQ(map.StoredValue(1, 0), 0x7u);
  EXPECT_EQ(map.WriteRegister(1, 2, 0x4).gates_changed.size(), 1u);  // clears bit 2
  EXPECT_EQ(map.StoredValue(1, 0), 0x3u);
  EXPECT_FALSE(map.Enabled(map.Find(0x30000000)));
}

TEST(BoardPeripherals, SetsMustNameAnotherRegister) {
  ExpectError(Base("      - {name: SR, offset: 4, sets: NOPE}\n"), 13, {"sets names 'NOPE'"}, "sets: MEMENR");
}

TEST(MemoryMapAliases, AWriteThroughOneViewReadsBackThroughTheOther) {
  Board b = ParseBoard(Base("aliases:\n  - {name: ram_ns, of: ram, base: 0x10000000, offset: 0x100, size: 0x1000}\n"),
                       "t.yaml");
  MemoryMap map(b);
  const uint8_t bytes[4] = {1, 2, 3, 4};
  map.Write(0x10000000, bytes);
  EXPECT_EQ(map.Read32(0x20000100), 0x04030201u);
  EXPECT_TRUE(map.IsAlias(map.Find(0x10000000)));
  EXPECT_EQ(map.BackingName(map.Find(0x10000000)), "ram");
  EXPECT_EQ(map.FindRange(0x10000FFC, 8), -1);  // the alias shows only 0x1000 bytes
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// An RV32 board: the hart starts at an address or the ELF's entry; traps and halts as said.
std::string Rv32Board(const std::string& boot, const std::string& options = "") {
  return "name: rv\ndescription: d\ncpu: rv32im\nboot:\n  " + boot + "\n  load_mode: debugger\n" + options +
         "regions:\n  - {name: tcm, base: 0, size: 64K, kind: tcm, access: rwx, reset: zero}\n";
}

TEST(BoardRv32, ResetAddressOrEntryAndTheOptions) {
  Board at = ParseBoard(Rv32Board("reset: 0x100"), "t.yaml");
  EXPECT_EQ(IsaOf(at.cpu), Isa::kRiscv);
  EXPECT_EQ(at.boot.reset_pc, 0x100u);
  EXPECT_FALSE(at.boot.reset_at_entry);
  EXPECT_FALSE(at.cpu_options.traps_to_host);
  Board entry = ParseBoard(Rv32Board("reset: elf-entry", "cpu_options: {traps: host, halt: [mpause]}\n"), "t.yaml");
  EXPECT_TRUE(entry.boot.reset_at_entry);
  EXPECT_TRUE(entry.cpu_options.traps_to_host);
  EXPECT_TRUE(entry.cpu_options.halt_on_mpause);
  EXPECT_FALSE(entry.cpu_options.halt_on_ebreak);
}

TEST(BoardRv32, EachIsaGetsItsOwnBootKey) {
  ExpectError(Rv32Board("vector_table: 0x0"), 5, {"a rv32im hart has no vector table"}, "boot.reset");
  ExpectError("name: m\ndescription: d\ncpu: cortex-m33\nboot:\n  reset: 0x0\n  load_mode: flash\n"
              "regions:\n  - {name: f, base: 0, size: 64K, kind: flash, access: rx, reset: erased}\n",
              5, {"a cortex-m33 starts from its vector table"}, "boot.vector_table");
  ExpectError(Rv32Board("reset: 0x0", "cpu_options: {traps: hots}\n"), 7, {"unknown trap delivery 'hots'"},
              "mtvec, host");
  ExpectError(Rv32Board("reset: 0x0", "cpu_options: {halt: [wfi]}\n"), 7, {"unknown halting instruction 'wfi'"},
              "mpause, ebreak");
}

}  // namespace
}  // namespace faultline
