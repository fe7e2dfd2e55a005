// debug/gdb_server.h against a machine, packet by packet (issue 39 item 5): memory behind a
// closed gate reads as the core would read it (a bus error, or zeros), and `monitor raw`
// shows the bytes the window keeps.
#include "debug/gdb_server.h"

#include <gtest/gtest.h>

#include <array>

#include "cli.h"
#include "debug/rsp.h"
#include "faultline/board.h"
#include "faultline/image.h"

namespace faultline::debug {
namespace {

std::string Monitor(GdbStub& stub, const std::string& command) {
  const std::string reply = stub.Handle("qRcmd," + ToHex(std::vector<uint8_t>(command.begin(), command.end())));
  const auto text = FromHex(reply);
  return text ? std::string(text->begin(), text->end()) : reply;
}

TEST(GdbStubMemory, AClosedGateReadsAsTheCoreWouldReadIt) {
  REQUIRE_FIXTURES();
  const Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "stm32n657.yaml");
  const Image image = LoadElf(testing::Fixture("stm32n657", "n6_npu_app"));
  RunOptions options;
  machine::MachineInput in = machine::InputFor(board, image, options);
  in.debugger = true;
  auto m = machine::MakeMachine(in);
  GdbStub stub(*m, board, image, [] { return false; });
  // XSPI2 before the firmware puts it in memory-mapped mode: the core's read is a bus error.
  EXPECT_EQ(stub.Handle("m71000000,4"), "E14");
  // AXISRAM5 shut down at reset reads as zero to the core, whatever its storage holds.
  const std::array<uint8_t, 4> marker = {0xDE, 0xAD, 0xBE, 0xEF};
  m->map().Write(0x342E0000, marker);
  EXPECT_EQ(stub.Handle("m342e0000,4"), "00000000");
  const std::string raw = Monitor(stub, "raw 0x342e0000 4");
  EXPECT_NE(raw.find("axisram5 is closed: "), std::string::npos) << raw;
  EXPECT_NE(raw.find("0x342e0000: de ad be ef\n"), std::string::npos) << raw;
  EXPECT_NE(Monitor(stub, "raw 0x71000000 2").find("0x71000000: ff ff"), std::string::npos);  // erased NOR
  EXPECT_NE(Monitor(stub, "raw zz").find("usage: monitor raw"), std::string::npos);
  // An open window reads its bytes: AXISRAM2, where the image is.
  EXPECT_NE(stub.Handle("m34180400,4"), "00000000");
}

}  // namespace
}  // namespace faultline::debug
