// libFuzzer target: any bytes a GDB client sends are split by PacketReader and each packet
// answered by GdbStub::Handle on a loaded machine, never a crash, a hang or an allocation
// beyond what a packet can ask for. The first byte picks the machine ('0' + n): a fixture
// on a Cortex-M33 (FPU), a Cortex-M55 (FPU and MVE, so VPR) or a Cortex-M3 (neither);
// the rest is the stream, as `faultline run --gdb` reads it from its socket.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "debug/gdb_server.h"
#include "debug/rsp.h"
#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace {

using faultline::debug::GdbStub, faultline::debug::PacketReader, faultline::debug::Received;

struct Target {
  faultline::Board board;
  faultline::Image image;
  faultline::RunOptions options;
};

// Each continue ends at the machine's instruction budget, and a run that has ended
// answers at once: an input costs at most kResumes budgets (a `monitor reset` starts a
// new run). The stub's own Ctrl-C poll stops a continue after one slice. Small, because
// firmware the fuzzer wrote may reprogram the MPU in a loop, each write a walk over
// every page of the board (tens of ms under ASan).
constexpr uint64_t kBudget = 20'000;
constexpr int kResumes = 16;

const Target& Pick(uint8_t selector) {
  static const char* const kFixtures[][2] = {
      {"mps2-an505", "exc_busfault"}, {"mps3-an547", "mve"}, {"mps2-an385", "hello"}, {"riscv32-virt", "traps"}};
  constexpr size_t n = sizeof kFixtures / sizeof kFixtures[0];
  static std::unique_ptr<Target> targets[n];
  const size_t i = uint8_t(selector - '0') % n;
  if (!targets[i]) {
    const auto elf = std::filesystem::path(FAULTLINE_FIXTURE_DIR) / kFixtures[i][0] / (std::string(kFixtures[i][1]) + ".elf");
    // The RV32 fixtures need their own toolchain: without them, their inputs drive the first.
    if (i > 0 && !std::filesystem::exists(elf)) return Pick('0');
    if (!std::filesystem::exists(elf)) {  // ctest counts 77 as skipped, as REQUIRE_FIXTURES does
      std::fprintf(stderr, "fuzz_gdb: %s is not built (the fixtures target; ./scripts/setup)\n", elf.c_str());
      std::exit(77);
    }
    targets[i] = std::make_unique<Target>(Target{
        faultline::LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / (std::string(kFixtures[i][0]) + ".yaml")),
        faultline::LoadElf(elf), faultline::RunOptions{}});
    targets[i]->options.max_instructions = kBudget;
  }
  return *targets[i];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Target& t = Pick(data[0]);
  faultline::machine::MachineInput in = faultline::machine::InputFor(t.board, t.image, t.options);
  in.max_instructions = kBudget;
  in.debugger = true;
  const std::unique_ptr<faultline::machine::Machine> m = faultline::machine::MakeMachine(in);
  GdbStub stub(*m, t.board, t.image, [] { return true; });
  PacketReader reader;
  reader.Feed(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  int resumes = 0;
  while (auto item = reader.Next()) {
    if (item->kind != Received::Kind::kPacket) continue;
    const std::string& p = item->payload;
    const bool resume = !p.empty() && (p[0] == 'c' || p[0] == 'C' || p[0] == 's' || p[0] == 'S' || p.starts_with("qRcmd"));
    if (resume && ++resumes > kResumes) continue;
    try {
      const std::string reply = stub.Handle(p);
      // A reply goes back in one packet of at most the PacketSize qSupported announced,
      // as hex at most twice the bytes it holds.
      if (reply.size() > 2 * PacketReader::kMaxPacket) {
        std::fprintf(stderr, "fuzz_gdb: a %zu-byte reply to '%.40s'\n", reply.size(), p.c_str());
        std::abort();
      }
      faultline::debug::Frame(reply);
    } catch (const faultline::InputError&) {
      // What the firmware does can be bad input (a host file it names); not the stub's.
    }
    if (stub.closing()) break;
  }
  return 0;
}
