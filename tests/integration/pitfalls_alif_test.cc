// The tinynet fixtures and the Alif E8 HP pitfalls through build/faultline: the
// emulated firmware's scores against tinynet run natively on the same model.bin, and the
// build facts the pitfalls rest on (a PIC runtime whose vtables come through a GOT).
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <regex>
#include <vector>

#include "cli.h"
#include "tinynet.h"
#include "tinynet_reference.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

const std::filesystem::path kFixtures = FAULTLINE_FIXTURE_DIR;

struct Reference {
  std::string scores;  // "s0 s1 ... s9", as the firmware prints them
  uint32_t fnv = 0;
};

// tinynet_run on the host on the test image, with the blob the cross project embedded
// in the firmware.
Reference NativeReference(const std::filesystem::path& model) {
  const std::vector<int8_t> scores = NativeScores(model, TinynetInput(TINYNET_TEST_SEED));
  Reference r;
  for (size_t i = 0; i < scores.size(); i++) r.scores += (i ? " " : "") + std::to_string(scores[i]);
  r.fnv = tinynet_fnv1a(scores.data(), static_cast<uint32_t>(scores.size()));
  return r;
}

struct FixtureRun {
  Completed cli;
  json report;
};

FixtureRun RunFixture(const std::string& board, const std::string& name) {
  const TempDir dir;
  const auto path = dir / (name + ".json");
  FixtureRun r;
  r.cli = RunCli({"run", "--board", board, Fixture(board, name).string(), "--json", path.string()});
  if (std::filesystem::exists(path)) r.report = json::parse(Slurp(path));
  return r;
}

// The firmware's "tinynet: scores ..." and "tinynet: output fnv1a 0x..." lines.
Reference Printed(const std::string& console) {
  Reference r;
  std::smatch m;
  if (std::regex_search(console, m, std::regex("tinynet: scores ([-0-9 ]+)\n"))) r.scores = m[1];
  if (std::regex_search(console, m, std::regex("tinynet: output fnv1a 0x([0-9a-f]{8})")))
    r.fnv = static_cast<uint32_t>(std::stoul(m[1], nullptr, 16));
  return r;
}

// Runs fixture `name` on `board`: it exits 0 and prints the host reference's scores.
FixtureRun ExpectHostReference(const std::string& board, const std::string& name) {
  Reference ref = NativeReference(kFixtures / "ml" / "model.bin");
  FixtureRun r = RunFixture(board, name);
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  Reference got = Printed(r.report.value("console", ""));
  EXPECT_EQ(got.scores, ref.scores) << name;
  EXPECT_EQ(got.fnv, ref.fnv) << name;
  return r;
}

class AlifPitfalls : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_FIXTURES();
    if (!std::filesystem::exists(Fixture("alif-e8-hp", "alif_fixed")))
      GTEST_SKIP() << "the Alif pitfall fixtures were not built";
  }
};

TEST_F(AlifPitfalls, MlInferenceMatchesTheHostReferenceOnEveryBoardModel) {
  Reference ref = NativeReference(kFixtures / "ml" / "model.bin");
  ASSERT_FALSE(ref.scores.empty());
  for (const std::string board : {"alif-e8-hp", "mps2-an505"}) {
    FixtureRun r = RunFixture(board, "ml_inference");
    ASSERT_EQ(r.cli.status, 0) << board << "\n" << r.cli.out << r.cli.err;
    Reference got = Printed(r.report["console"].get<std::string>());
    EXPECT_EQ(got.scores, ref.scores) << board;
    EXPECT_EQ(got.fnv, ref.fnv) << board;
    EXPECT_LT(r.report["instructions"].get<uint64_t>(), 50'000'000u) << board;
  }
}

// The M55 boards' inference is built as vendor M55 firmware is (MVE on, hard float):
// tinynet's int8 dot products run as Helium (vctp8q, vldrbq_z, vmladavaq_p), and the
// scores are the host reference's, on faultline and on QEMU.
TEST_F(AlifPitfalls, MlInferenceWithHeliumKernelsMatchesTheHostReference) {
  for (const std::string board : {"mps3-an547", "alif-e8-hp", "stm32n657"}) {
    FixtureRun r = ExpectHostReference(board, "ml_inference");
    ASSERT_EQ(r.cli.status, 0) << board;
    const uint64_t mve = r.report["mve"]["instructions"].get<uint64_t>();
    EXPECT_GT(mve, 100'000u) << board << ": the kernels ran as Helium";
    // The text report counts them as the JSON does.
    EXPECT_NE(r.cli.out.find("after " + std::to_string(r.report["instructions"].get<uint64_t>()) + " instructions (" +
                             std::to_string(mve) + " MVE)\n"),
              std::string::npos)
        << r.cli.out;
  }
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(QemuSemihostingConsole("mps3-an547", "cortex-m55", Fixture("mps3-an547", "ml_inference")),
            RunFixture("mps3-an547", "ml_inference").report["console"].get<std::string>());
}

TEST_F(AlifPitfalls, FixedRunnerThroughThePicRuntimeMatchesTheHostReference) {
  ExpectHostReference("alif-e8-hp", "alif_fixed");
}

// Issue 16 item 7: `run` takes the boot address from the boot configuration as `check`
// does. The image linked for the template's HP slot (0x80200000) locks up from the
// board's 0x80000000, and runs the network when the boot config (or --boot-address)
// starts the core at its slot.
TEST_F(AlifPitfalls, ImageBootsFromTheSlotItsBootConfigNames) {
  Reference ref = NativeReference(kFixtures / "ml" / "model.bin");
  const std::string elf = Fixture("alif-e8-hp", "alif_mram_base_broken").string();
  const std::string slot_cfg = (std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / ".." / ".." / "scenarios" / "alif-e8-hp" /
                                "M55_HP_cfg_hp_slot.json").string();
  for (const std::vector<std::string>& boot :
       {std::vector<std::string>{"--boot-config", slot_cfg}, std::vector<std::string>{"--boot-address", "0x80200000"}}) {
    std::vector<std::string> args = {"run", "--board", "alif-e8-hp", elf};
    args.insert(args.end(), boot.begin(), boot.end());
    JsonCompleted r = RunCliJson(args);
    ASSERT_EQ(r.cli.status, 0) << boot[0] << "\n" << r.cli.out << r.cli.err;
    EXPECT_EQ(r.report["outcome"], "exit");
    EXPECT_EQ(r.report["vector_table"].get<uint64_t>(), 0x80200000u);
    EXPECT_NE(r.report["boot_source"].get<std::string>().find(boot[0]), std::string::npos);
    EXPECT_EQ(Printed(r.report["console"].get<std::string>()).fnv, ref.fnv) << boot[0];
  }
  Completed text = RunCli({"run", "--board", "alif-e8-hp", elf, "--boot-config", slot_cfg});
  EXPECT_NE(text.out.find("boot: vector table at 0x80200000 (--boot-config"), std::string::npos) << text.out;
  // The board's own boot address: the blank vector table, as before.
  JsonCompleted board_boot = RunCliJson({"run", "--board", "alif-e8-hp", elf});
  EXPECT_EQ(board_boot.report["outcome"], "lockup");
  EXPECT_EQ(board_boot.report["vector_table"].get<uint64_t>(), 0x80000000u);
  // Bad boot addresses and both flags at once: exit 2, saying why.
  Completed nowhere = RunCli({"run", "--board", "alif-e8-hp", elf, "--boot-address", "0x70000000"});
  EXPECT_EQ(nowhere.status, 2);
  EXPECT_NE(nowhere.err.find("not in any memory of board 'alif-e8-hp'"), std::string::npos) << nowhere.err;
  Completed junk = RunCli({"run", "--board", "alif-e8-hp", elf, "--boot-address", "slot2"});
  EXPECT_EQ(junk.status, 2);
  EXPECT_NE(junk.err.find("'slot2' is not a 32-bit address"), std::string::npos) << junk.err;
  Completed both = RunCli({"run", "--board", "alif-e8-hp", elf, "--boot-address", "0x80200000", "--boot-config", slot_cfg});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE((both.out + both.err).find("excludes"), std::string::npos) << both.out << both.err;
}

// Issue 37 item 6: `check` agrees with `run` on that image. Its vector table is
// __VECTOR_TABLE in .startup.at_mram (no section named for vectors): with the slot's boot
// config or --boot-address nothing is wrong; from the board's address, or with a config
// naming another address, the errors name where the table really is.
TEST_F(AlifPitfalls, CheckAgreesWithRunOnTheSlotItsBootConfigNames) {
  const std::string elf = Fixture("alif-e8-hp", "alif_mram_base_broken").string();
  const std::string slot_cfg = (std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / ".." / ".." / "scenarios" / "alif-e8-hp" /
                                "M55_HP_cfg_hp_slot.json").string();
  for (const std::vector<std::string>& boot :
       {std::vector<std::string>{"--boot-config", slot_cfg}, std::vector<std::string>{"--boot-address", "0x80200000"}}) {
    std::vector<std::string> args = {"check", "--board", "alif-e8-hp", elf};
    args.insert(args.end(), boot.begin(), boot.end());
    Completed c = RunCli(args);
    EXPECT_EQ(c.status, 0) << boot[0] << "\n" << c.out << c.err;
    EXPECT_NE(c.out.find("0 errors"), std::string::npos) << c.out;
  }
  Completed board = RunCli({"check", "--board", "alif-e8-hp", elf});
  EXPECT_NE(board.status, 0);
  EXPECT_NE(board.out.find("nothing in the image is loaded at the board's boot address 0x80000000 (the image's "
                           "__VECTOR_TABLE (.startup.at_mram) is at 0x80200000)"),
            std::string::npos)
      << board.out;
  Completed other = RunCli({"check", "--board", "alif-e8-hp", elf, "--boot-config",
                            (std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / "check" / "M55_HP_cfg.json").string()});
  EXPECT_NE(other.out.find("writes the image at 0x80000000 (USER_APP.mramAddress), but it is linked to start at "
                           "0x80200000"),
            std::string::npos)
      << other.out;
  Completed junk = RunCli({"check", "--board", "alif-e8-hp", elf, "--boot-address", "slot2"});
  EXPECT_EQ(junk.status, 2);
  EXPECT_NE(junk.err.find("fix: write the address in hex"), std::string::npos) << junk.err;
}

TEST_F(AlifPitfalls, LargeModelRunsTheSameNetwork) {
  Reference small = NativeReference(kFixtures / "ml" / "model.bin");
  Reference large = NativeReference(kFixtures / "ml" / "model_2560k.bin");
  EXPECT_EQ(large.fnv, small.fnv);
  EXPECT_EQ(std::filesystem::file_size(kFixtures / "ml" / "model_2560k.bin"), 0x280000u);
  FixtureRun r = RunFixture("alif-e8-hp", "alif_large_model");
  ASSERT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(Printed(r.report["console"].get<std::string>()).fnv, large.fnv);
}

TEST_F(AlifPitfalls, UnzeroedSram1GivesADifferentAnswerThanTheReference) {
  Reference ref = NativeReference(kFixtures / "ml" / "model.bin");
  FixtureRun r = RunFixture("alif-e8-hp", "alif_sram1_zero_broken");
  ASSERT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  Reference got = Printed(r.report["console"].get<std::string>());
  ASSERT_NE(got.fnv, 0u);
  EXPECT_NE(got.fnv, ref.fnv);
}

// The runtime is position-independent: its constructors take the vtable addresses from
// the GOT (R_ARM_GOT_PREL/GOT32 relocations), which is what pitfall 1 breaks.
TEST_F(AlifPitfalls, RuntimeReachesItsVtablesThroughTheGot) {
  Completed relocs = RunProgram({"arm-none-eabi-objdump", "-r", (kFixtures / "libalif_runtime.a").string()});
  ASSERT_EQ(relocs.status, 0) << relocs.err;
  EXPECT_TRUE(std::regex_search(relocs.out, std::regex(R"(R_ARM_GOT\w*\s+_ZTVN2rt4ConvE)")))
      << relocs.out.substr(0, 2000);
}

TEST_F(AlifPitfalls, BrokenScriptLeavesTheGotInDtcmOutsideTheCopy) {
  Completed broken = RunProgram(
      {"arm-none-eabi-objdump", "-h", Fixture("alif-e8-hp", "alif_got_broken").string()});
  // ".got  size  VMA(dtcm)  LMA(mram)": an orphan output section, not in .data.at_dtcm.
  EXPECT_TRUE(std::regex_search(broken.out, std::regex(R"(\.got\s+[0-9a-f]+\s+200[0-9a-f]{5}\s+800[0-9a-f]{5})")))
      << broken.out;
  Completed fixed = RunProgram(
      {"arm-none-eabi-objdump", "-h", Fixture("alif-e8-hp", "alif_fixed").string()});
  EXPECT_EQ(fixed.out.find(".got"), std::string::npos) << "the GOT is merged into .data.at_dtcm";
}

TEST_F(AlifPitfalls, GotNotCopiedFaultsAtTheVirtualCall) {
  FixtureRun r = RunFixture("alif-e8-hp", "alif_got_broken");
  EXPECT_EQ(r.cli.status, 3) << r.cli.out;
  const json& f = r.report["fault"];
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["access"], "read");
  EXPECT_TRUE(f["region"].is_null());
  EXPECT_EQ(f["symbol"].get<std::string>().rfind("rt_execute+", 0), 0u) << f["symbol"];
  EXPECT_EQ(f["cfsr_bits"], json::array({"PRECISERR", "BFARVALID"}));
}

}  // namespace
}  // namespace faultline::testing
