// `faultline run --gdb`: gdb-multiarch drives a fixture through the remote protocol
// (breakpoints, step, registers, memory, a fault stopped before its handler, monitor
// commands), and a raw client checks what gdb never sends: Ctrl-C of a running
// firmware, malformed and truncated packets, a second client.
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <thread>

#include "cli.h"

extern char** environ;

namespace faultline {
namespace {

using testing::Fixture;
using testing::RunProgram;
using testing::Slurp;

bool HaveGdb() { return RunProgram({"sh", "-c", "command -v gdb-multiarch"}).status == 0; }

// `faultline run --gdb 0 ...` in the background: the port it chose, then its exit status
// and what it printed.
class Served {
 public:
  explicit Served(std::vector<std::string> args) {
    out_ = dir_ / "served.txt";
    int err[2];
    EXPECT_EQ(pipe(err), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawn_file_actions_addclose(&actions, err[0]);
    args.insert(args.begin(), FAULTLINE_CLI);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, FAULTLINE_CLI, &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(err[1]);
    err_ = fdopen(err[0], "r");
    char line[512];
    if (fgets(line, sizeof line, err_) != nullptr) {
      banner_ = line;
      std::smatch m;
      if (std::regex_search(banner_, m, std::regex(R"(127\.0\.0\.1:(\d+))"))) port_ = std::stoi(m[1]);
    }
  }
  ~Served() {
    if (pid_ > 0) Wait();
    if (err_ != nullptr) fclose(err_);
  }
  int port() const { return port_; }
  const std::string& banner() const { return banner_; }
  // Waits for faultline to end: its exit status (-1 if a signal ended it).
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, err_)) > 0) stderr_.append(buf, n);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string stdout_text() const { return Slurp(out_); }
  const std::string& stderr_text() const { return stderr_; }

 private:
  pid_t pid_ = -1;
  FILE* err_ = nullptr;
  testing::TempDir dir_;
  std::filesystem::path out_;
  std::string banner_, stderr_;
  int port_ = 0;
};

std::string Gdb(const std::filesystem::path& elf, int port, const std::vector<std::string>& commands) {
  std::vector<std::string> argv = {"timeout", "120", "gdb-multiarch", "-q", "-batch", "-nx", elf.string(),
                                   "-ex", "target remote 127.0.0.1:" + std::to_string(port)};
  for (const auto& c : commands) {
    argv.push_back("-ex");
    argv.push_back(c);
  }
  auto r = RunProgram(argv);
  return r.out + r.err;
}

// What a gdb test starts with: fixtures, gdb-multiarch, and faultline waiting for it.
#define SERVE_FOR_GDB(served, board, fixture)                                                   \
  REQUIRE_FIXTURES();                                                                           \
  if (!HaveGdb()) GTEST_SKIP() << "gdb-multiarch is not installed (scripts/setup installs it)"; \
  const auto elf = Fixture(board, fixture);                                                     \
  Served served({"run", "--board", board, elf.string(), "--gdb", "0"});                         \
  ASSERT_GT(served.port(), 0) << served.banner()

TEST(Gdb, BreakStepMemoryRegistersAndAFaultStoppedBeforeItsHandler) {
  SERVE_FOR_GDB(served, "mps2-an505", "exc_busfault");
  const std::string out = Gdb(elf, served.port(),
                              {"break main", "continue", "next", "print handled", "set var handled = 5",
                               "print handled", "print $r3 = 0x1234", "p/x $r3", "stepi", "p/x $pc",
                               "p/x (unsigned)&Reset_Handler", "x/xw 0x10000004", "continue", "bt",
                               "monitor fault", "monitor regions", "continue", "continue"});
  // The breakpoint, then `next` to the following line.
  EXPECT_NE(out.find("Breakpoint 1, main () at"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(\n55\s+uint32_t v = load_unmapped)"))) << out;
  // Memory read and written through the protocol, and a register.
  EXPECT_NE(out.find("$1 = 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("$2 = 5\n"), std::string::npos) << out;
  EXPECT_NE(out.find("$4 = 0x1234\n"), std::string::npos) << out;
  // The vector table gdb reads is the image's: its reset vector is Reset_Handler | 1.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(\$6 = 0x([0-9a-f]+)\n)"))) << out;
  const unsigned reset = std::stoul(m[1], nullptr, 16);
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(0x10000004[^:]*:\s+0x([0-9a-f]+))"))) << out;
  EXPECT_EQ(std::stoul(m[1], nullptr, 16), reset | 1u);
  // The BusFault stops gdb at the faulting load, before BusFault_Handler runs, with the
  // caller on the stack.
  EXPECT_NE(out.find("Program received signal SIGSEGV"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(#0 .*load_unmapped .*\n#1 .* main \(\))"))) << out;
  // monitor fault: the report's record of it, with its place in the map and the road.
  EXPECT_NE(out.find("BusFault: precise data bus error"), std::string::npos) << out;
  EXPECT_NE(out.find("read of 4 bytes at 0x60000000"), std::string::npos) << out;
  EXPECT_NE(out.find("address is   in no region"), std::string::npos) << out;
  EXPECT_NE(out.find("road:        Reset_Handler -> main -> load_unmapped -> (BusFault)"), std::string::npos) << out;
  EXPECT_NE(out.find("ssram1"), std::string::npos) << out;
  EXPECT_NE(out.find("exited normally"), std::string::npos) << out;
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();
  // The firmware's handlers ran after the stops, and saw the value gdb wrote (5, plus
  // the BusFault handler's increment).
  const std::string console = served.stdout_text();
  EXPECT_NE(console.find("BusFault_Handler"), std::string::npos) << console;
  EXPECT_NE(console.find("handled 0x00000006"), std::string::npos) << console;
}

// A write watchpoint on a global fires at the line that writes it, a read watchpoint at
// the one that reads it, and the run then ends as it would without gdb.
TEST(Gdb, WatchpointsFireAtTheLinesThatAccessTheGlobal) {
  SERVE_FOR_GDB(served, "mps2-an505", "exc_busfault");
  const std::string out = Gdb(elf, served.port(),
                              {"break main", "continue", "watch handled", "continue", "continue", "delete 2",
                               "rwatch handled", "continue", "continue", "detach"});
  EXPECT_TRUE(std::regex_search(
      out, std::regex(R"(Hardware watchpoint 2: handled\s+Old value = 0\s+New value = 1\s+\S+ in busfault_c .*exc_busfault\.c:41)")))
      << out;
  EXPECT_TRUE(std::regex_search(
      out, std::regex(R"(Hardware read watchpoint 3: handled\s+Value = 1\s+\S+ in hardfault_c .*exc_busfault\.c:47)")))
      << out;
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();
  EXPECT_NE(served.stdout_text().find("handled 0x00000001"), std::string::npos) << served.stdout_text();
}

// The same server on an RV32 hart (issue 40: one machine interface, one GDB stub): a
// breakpoint, `next` over an ecall the firmware's handler takes, a fault stopped at its
// instruction before mtvec's handler, a write watchpoint that fires in that handler, the
// backtrace through it, registers and CSRs, a global written, and the run ending after
// the detach with the firmware having seen what gdb wrote.
TEST(Gdb, AnRv32HartIsServedTheSameWay) {
  REQUIRE_RISCV_FIXTURES();
  if (!HaveGdb()) GTEST_SKIP() << "gdb-multiarch is not installed (scripts/setup installs it)";
  const auto elf = Fixture("riscv32-virt", "traps");
  Served served({"run", "--board", "riscv32-virt", elf.string(), "--gdb", "0"});
  ASSERT_GT(served.port(), 0) << served.banner();
  const std::string out =
      Gdb(elf, served.port(),
          {"break run_all", "continue", "next", "next", "print traps", "watch traps", "continue", "bt", "delete",
           "set var traps = 100", "print $a0 = 0x1234", "p/x $a0", "continue", "continue", "p/x $mcause", "p/x $pc",
           "monitor fault", "detach"});
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(Breakpoint 1, run_all \(\) at .*traps\.c:43)"))) << out;
  // `next` over the ecall (taken by the firmware's handler, no stop), then the custom-0
  // word: an illegal instruction, stopped before the handler.
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(\n44\s+show\("ecall"\);)"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(Program received signal SIGSEGV[^\n]*\n0x800004a8 in run_all)"))) << out;
  EXPECT_NE(out.find("$1 = 1\n"), std::string::npos) << out;
  // The handler's increment, seen by the watchpoint, with the faulting function below it.
  EXPECT_TRUE(std::regex_search(
      out, std::regex(R"(Hardware watchpoint 2: traps\s+Old value = 1\s+New value = 2\s+trap_handler \(\) at .*traps\.c:26)")))
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(#1 .* in run_all \(\)[^\n]*\n#2 .* in main \(\))"))) << out;
  EXPECT_NE(out.find("$3 = 0x1234\n"), std::string::npos) << out;
  // The load fault stopped before its handler: mcause still the previous trap's (2, the
  // illegal CSR), the pc at the load, and `monitor fault` the report's record of it.
  EXPECT_NE(out.find("$4 = 0x2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("$5 = 0x800004d0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("load access fault: mcause 5"), std::string::npos) << out;
  EXPECT_NE(out.find("read of 4 bytes at 0x00020000"), std::string::npos) << out;
  // After the detach the run goes on: the handler saw the traps gdb wrote, and mepc and
  // mtval as without gdb.
  served.Wait();
  const std::string console = served.stdout_text();
  EXPECT_NE(console.find("load fault       traps=102 mcause=5 mepc=0x800004d0 mtval=0x00020000"), std::string::npos)
      << console;
  EXPECT_NE(console.find("outcome: exit"), std::string::npos) << console;
}

// A watchpoint on a peripheral register (the CMSDK UART's DATA, a page served access by
// access): it stops at the store that transmits, before the UART sees it; gdb steps that
// store with the watchpoint removed, so each byte still leaves the UART exactly once.
TEST(Gdb, AWatchpointOnAUartRegisterStopsAtTheTransmittingStore) {
  SERVE_FOR_GDB(served, "mps2-an385", "uart_hello");
  const std::string out = Gdb(elf, served.port(),
                              {"awatch *(volatile unsigned *)0x40004000", "continue", "bt 1", "continue",
                               "delete 1", "continue"});
  EXPECT_NE(out.find("Hardware access (read/write) watchpoint 1: *(volatile unsigned *)0x40004000"),
            std::string::npos)
      << out;
  // Stopped twice, each time in uart_puts (uart_putc is inlined) just past a byte's store.
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(#0  uart_puts \(s=0x[0-9a-f]+ "ello from the UART)"))) << out;
  EXPECT_NE(out.find("uart_puts (s=0x1aa \"llo from the UART"), std::string::npos) << out;
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();
  const std::string console = served.stdout_text();
  EXPECT_NE(console.find("hello from the UART"), std::string::npos) << console;
  EXPECT_NE(console.find("6 * 7 = 42"), std::string::npos) << console;
  // As many stores to DATA as without gdb (31 characters, a CR before each of 2 LFs).
  EXPECT_NE(console.find("UART0.DATA               = 0x0000000a    (33 writes)"), std::string::npos) << console;
}

// gdb's `load` programs the board's flash through the memory map (vFlash packets) and
// `monitor reset` boots what it loaded; `monitor check` and `monitor events` answer.
TEST(Gdb, LoadProgramsFlashAndAWarmResetBootsIt) {
  SERVE_FOR_GDB(served, "mps2-an505", "exit_error");
  const auto hello = Fixture("mps2-an505", "hello");
  const std::string out = Gdb(hello, served.port(),
                              {"set debug remote 1", "load", "set debug remote 0", "monitor check", "monitor events",
                               "monitor reset", "continue"});
  EXPECT_NE(out.find("$vFlashErase:10000000"), std::string::npos) << out;
  EXPECT_NE(out.find("$vFlashDone"), std::string::npos) << out;
  EXPECT_NE(out.find("region"), std::string::npos) << out;     // the check's table of regions
  EXPECT_NE(out.find("no events"), std::string::npos) << out;
  EXPECT_NE(out.find("exited normally"), std::string::npos) << out;
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();  // exit_error alone exits 1
  EXPECT_NE(served.stdout_text().find("hello from faultline"), std::string::npos) << served.stdout_text();
}

// On the Cortex-M55 board gdb sees the FP registers, the MVE Q registers it makes of
// them, and VPR.
TEST(Gdb, TheM55sQRegistersAndVprAreVisible) {
  SERVE_FOR_GDB(served, "mps3-an547", "mve");
  const std::string out = Gdb(elf, served.port(),
                              {"rwatch mve_b[4]", "continue", "delete 1", "break mve_fp", "continue", "finish",
                               "set var $q1.u32[2] = 0x11223344", "p/x $s6",
                               "set var $d1 = 2.5", "p/x $s3",
                               "p/x $fpscr", "info registers vpr", "detach"});
  // A read watchpoint sees the vector load (VLDRB) that reads the watched byte.
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(Hardware read watchpoint 1: mve_b\[4\]\s+Value = 2 [^\n]*\s+mve_dot \()")))
      << out;
  // mve_fp's VCMUL result, returned (soft-float ABI) in r0-r3.
  EXPECT_NE(out.find("Value returned is $1 = {-3, 3, -3, 3}"), std::string::npos) << out;
  EXPECT_NE(out.find("$2 = 0x11223344"), std::string::npos) << out;  // q1 is s4-s7
  EXPECT_NE(out.find("$3 = 0x40040000"), std::string::npos) << out;  // d1's high word is s3
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(\$4 = 0x[0-9a-f]+)"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(vpr\s+0x0)"))) << out;
  served.Wait();
  EXPECT_NE(served.stdout_text().find("complex ok"), std::string::npos) << served.stdout_text();
}

// Single steps through VMSR P0, VPSTT and the two VADDTs of its VPT block, which run as
// ops in one translated block (arm/core_mve_ops.cc): after each step gdb reads the VPR
// that instruction left, P0 and the masks moving on, as QEMU 7.2's gdbstub shows them.
TEST(Gdb, StepsThroughAVptBlockSeeingVprAfterEachInstruction) {
  SERVE_FOR_GDB(served, "mps3-an547", "mve_vpr");
  const std::string out =
      Gdb(elf, served.port(),
          {"break vpr_steps", "continue", "stepi", "stepi", "p/x $vpr", "stepi", "p/x $vpr", "stepi", "p/x $vpr",
           "stepi", "p/x $vpr", "stepi", "p/x $r0", "detach"});
  EXPECT_NE(out.find("$1 = 0xff\n"), std::string::npos) << out;      // VMSR P0
  EXPECT_NE(out.find("$2 = 0x4400ff\n"), std::string::npos) << out;  // VPSTT: both masks 0b0100
  EXPECT_NE(out.find("$3 = 0x8800ff\n"), std::string::npos) << out;  // the first VADDT
  EXPECT_NE(out.find("$4 = 0xff\n"), std::string::npos) << out;      // the second ends the block
  EXPECT_NE(out.find("$5 = 0xff\n"), std::string::npos) << out;      // VMRS r0, P0
  served.Wait();
  EXPECT_NE(served.stdout_text().find("vpr_steps 0x000000ff"), std::string::npos) << served.stdout_text();
}

// A raw client: what gdb's user does with Ctrl-C, and bytes gdb would never send.
class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{30, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Client() { Close(); }
  bool connected() const { return connected_; }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  void Send(std::string_view bytes) { ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL), ssize_t(bytes.size())); }
  void SendPacket(std::string_view payload) {
    unsigned sum = 0;
    for (char c : payload) sum = (sum + uint8_t(c)) & 0xff;
    char cs[3];
    snprintf(cs, sizeof cs, "%02x", sum);
    Send("$" + std::string(payload) + "#" + cs);
  }
  // The next acknowledgement byte ('+' or '-').
  std::string ReceiveAck() {
    while (got_.empty()) {
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return "<closed>";
      got_.append(buf, size_t(n));
    }
    std::string ack = got_.substr(0, 1);
    got_.erase(0, 1);
    return ack;
  }
  // Everything up to and including the next complete packet (acks before it included).
  std::string Receive() {
    for (;;) {
      const size_t hash = got_.find('#', got_.find('$') == std::string::npos ? got_.size() : got_.find('$'));
      if (hash != std::string::npos && got_.size() >= hash + 3) {
        std::string reply = got_.substr(0, hash + 3);
        got_.erase(0, hash + 3);
        return reply;
      }
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return got_.empty() ? "<closed>" : std::exchange(got_, "");
      got_.append(buf, size_t(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string got_;
};

TEST(Gdb, CtrlCStopsARunningFirmwareAndBadPacketsAreAnsweredNotFatal) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "console_forever");
  Served served({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0", "--timeout", "1"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  ASSERT_TRUE(c.connected());
  c.SendPacket("?");
  EXPECT_NE(c.Receive().find("$S05#"), std::string::npos);
  {
    Client second(served.port());  // one client at a time: the port is closed to others
    EXPECT_FALSE(second.connected());
  }
  // A bad checksum is refused with '-', and the packet is not acted on.
  c.Send("$g#00");
  EXPECT_EQ(c.ReceiveAck(), "-");
  // Malformed arguments get an error reply, unknown packets the empty one.
  c.SendPacket("mzz,4");
  EXPECT_NE(c.Receive().find("$E00#"), std::string::npos);
  c.SendPacket("M0,4:zz");
  EXPECT_NE(c.Receive().find("$E00#"), std::string::npos);
  c.SendPacket("Pffff=00000000");
  EXPECT_NE(c.Receive().find("$E00#"), std::string::npos);
  c.SendPacket("qNoSuchThing");
  EXPECT_NE(c.Receive().find("$#00"), std::string::npos);
  // A read of 4 GiB gets what fits in a packet (gdb asks again for the rest), never an
  // allocation of the whole.
  c.SendPacket("m80000000,ffffffff");
  const std::string big = c.Receive();
  EXPECT_GT(big.size(), 1000u) << big.substr(0, 80);
  EXPECT_LE(big.size(), 0x4000u + 8) << big.substr(0, 80);
  c.SendPacket("qXfer:features:read:target.xml:0,ffffffffffffffff");
  EXPECT_NE(c.Receive().find("org.gnu.gdb.arm.m-profile"), std::string::npos);
  // Flash packets at the edges (issue 41 item 2): an empty erase, a length that wraps 64
  // bits, a write with no data. Each gets an error reply; the connection goes on.
  c.SendPacket("vFlashErase:38000000,0");
  EXPECT_NE(c.Receive().find("$E14#"), std::string::npos);
  c.SendPacket("vFlashErase:10000000,ffffffffffffffff");
  EXPECT_NE(c.Receive().find("$E14#"), std::string::npos);
  c.SendPacket("vFlashWrite:38000000:");
  EXPECT_NE(c.Receive().find("$E14#"), std::string::npos);
  c.SendPacket("X38000000,0:");  // gdb's probe for binary writes: a write of nothing is fine
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.SendPacket("vFlashWrite:38000000:\x01\x02");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.SendPacket("m38000000,2");
  EXPECT_NE(c.Receive().find("$0102#"), std::string::npos);
  // Continue, then Ctrl-C: the firmware prints forever, so only the interrupt stops it.
  c.SendPacket("c");
  EXPECT_EQ(c.ReceiveAck(), "+");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  c.Send("\x03");
  EXPECT_NE(c.Receive().find("$S02#"), std::string::npos);
  c.SendPacket("p f");  // pc: somewhere in the firmware, which is still there
  EXPECT_NE(c.Receive().find("$"), std::string::npos);
  // A packet cut off by the client going away: the run goes on to its end (the timeout
  // here), reported as any run is.
  c.Send("$m100000");
  c.Close();
  EXPECT_EQ(served.Wait(), 4) << served.stderr_text();  // a limit, as --timeout ends any run
  EXPECT_EQ(served.stderr_text().find("internal error"), std::string::npos) << served.stderr_text();
  EXPECT_NE(served.stdout_text().find("wall-clock timeout of 1 s reached"), std::string::npos) << served.stdout_text();
}

// Issue 41 item 3: bytes a client sends during a continue, then a disconnect. The server
// read 256 bytes per slice, so 64 KiB queued held the drop (and the run's timeout after
// it) for minutes; it now reads all that is there at each poll, and keeps a bounded
// backlog. The run ends on its timeout from the drop, not the backlog's length.
TEST(Gdb, ADisconnectBehindBytesQueuedDuringAContinueIsSeenAtOnce) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "console_forever");
  Served served({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0", "--timeout", "1"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  ASSERT_TRUE(c.connected());
  c.SendPacket("c");
  EXPECT_EQ(c.ReceiveAck(), "+");
  c.Send(std::string(64 * 1024, '+'));
  c.Close();
  const auto dropped = std::chrono::steady_clock::now();
  EXPECT_EQ(served.Wait(), 4) << served.stderr_text();  // the timeout ends the run, a limit
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - dropped).count();
  EXPECT_LT(seconds, 10.0) << "the 1 s timeout from the drop, not minutes of backlog";
  EXPECT_NE(served.stdout_text().find("wall-clock timeout of 1 s reached"), std::string::npos) << served.stdout_text();
}

TEST(Gdb, AClientThatGoesAwayAtAFaultWithABreakpointSetLeavesTheRunToEndAsWithoutIt) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "exc_busfault");
  Served served({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  c.SendPacket("c");
  EXPECT_NE(c.Receive().find("$S0b#"), std::string::npos);  // the first BusFault, not taken yet
  c.SendPacket("pf");
  const std::string pc = c.Receive();
  const size_t at = pc.find('$');
  ASSERT_NE(at, std::string::npos) << pc;
  // The faulting load's address (little-endian in the reply) gets a breakpoint: the
  // firmware executes it again, for its second fault.
  const std::string le = pc.substr(at + 1, 8);
  std::string address;
  for (int i = 3; i >= 0; --i) address += le.substr(size_t(2 * i), 2);
  c.SendPacket("Z0," + address + ",2");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.Close();  // no D: the connection just drops
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();
  const std::string out = served.stdout_text();
  EXPECT_NE(out.find("handled 0x00000001"), std::string::npos) << out;
  EXPECT_NE(out.find("outcome: exit, status 0"), std::string::npos) << out;
}

// `scenario FILE --gdb`: the scenario's run is gdb's, and its expectations are checked
// on the run gdb let go; more than one scenario selected is bad input.
TEST(Gdb, AScenarioRunsUnderGdbAndIsCheckedAfterTheDetach) {
  REQUIRE_FIXTURES();
  const std::string scenario = std::string(FAULTLINE_TEST_DATA_DIR) + "/../../scenarios/alif-e8-hp/got_broken.yaml";
  Served served({"scenario", scenario, "--gdb", "0"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  c.SendPacket("c");
  EXPECT_NE(c.Receive().find("$S0b#"), std::string::npos);  // the pitfall's BusFault, before its handler
  c.SendPacket("qRcmd," + std::string("6661756c74"));          // monitor fault
  const std::string fault = c.Receive();
  const size_t at = fault.find('$');
  ASSERT_NE(at, std::string::npos);
  std::string text;
  for (size_t i = at + 1; i + 1 < fault.size() && fault[i] != '#'; i += 2) {
    text += char(std::stoi(fault.substr(i, 2), nullptr, 16));
  }
  EXPECT_NE(text.find("BusFault: precise data bus error"), std::string::npos) << text;
  EXPECT_NE(text.find("rt_execute"), std::string::npos) << text;
  c.SendPacket("D");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();
  EXPECT_NE(served.stdout_text().find("PASS   alif-e8-hp/got_broken"), std::string::npos) << served.stdout_text();

  auto many = RunProgram({FAULTLINE_CLI, "scenario", std::string(FAULTLINE_TEST_DATA_DIR) + "/../../scenarios/alif-e8-hp",
                          "--gdb", "0"});
  EXPECT_EQ(many.status, 2);
  EXPECT_NE(many.err.find("gdb drives one scenario"), std::string::npos) << many.err;
}

// `kill` ends the run where it is: a firmware that would print forever is reported
// stopped by gdb, at once, not after its timeout.
TEST(Gdb, KillEndsTheRunWhereItIs) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "console_forever");
  Served served({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0", "--timeout", "60"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  c.SendPacket("vKill;1");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(served.Wait(), 4) << served.stderr_text();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_NE(served.stdout_text().find("stopped by gdb (kill)"), std::string::npos) << served.stdout_text();
}

// What fuzz_gdb found (docs/fuzzing.md): `m` of a whole region answered with all of it
// (8 MB of hex for a 4 MiB SSRAM, twice a DDR's size for a DDR), and every watchpoint
// made each later one walk all their pages (300 took a minute, thousands hours). A read
// is now at most half a packet of bytes, and a sixteenth watchpoint is refused.
TEST(Gdb, AReadIsAtMostAPacketAndWatchpointsAreAsManyAsADwtHas) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "hello");
  Served served({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  c.SendPacket("m10000000,ffffffff");
  const std::string read = c.Receive();
  const size_t dollar = read.find('$'), hash = read.find('#');
  ASSERT_NE(hash, std::string::npos) << read.substr(0, 100);
  EXPECT_EQ(hash - dollar - 1, 0x4000u) << "0x2000 bytes as hex: half of PacketSize 0x4000";
  for (int i = 0; i < 15; ++i) {
    c.SendPacket(fmt::format("Z2,{:x},4", 0x20000000 + 4 * i));
    EXPECT_NE(c.Receive().find("$OK#"), std::string::npos) << i;
  }
  c.SendPacket("Z3,20001000,4");
  EXPECT_NE(c.Receive().find("$E01#"), std::string::npos);
  c.SendPacket("Z2,20000000,4");  // one it has: no new one
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.SendPacket("z2,20000000,4");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.SendPacket("Z3,20001000,4");  // a free comparator again
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.SendPacket("D");
  EXPECT_NE(c.Receive().find("OK"), std::string::npos);
  EXPECT_EQ(served.Wait(), 0) << served.stderr_text();
}

// fuzz_gdb's hang: the vector table erased under a fault about to be taken. Every
// handler is then an EXC_RETURN value, and the run, once gdb has gone, would take and
// leave exceptions forever without an instruction: it ends as a hang that says so.
TEST(Gdb, AnErasedVectorTableEndsAsAHang) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "exc_busfault");
  Served served({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0", "--timeout", "60"});
  ASSERT_GT(served.port(), 0) << served.banner();
  Client c(served.port());
  c.SendPacket("c");
  EXPECT_NE(c.Receive().find("$S0b#"), std::string::npos);
  c.SendPacket("vFlashErase:0,400");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  c.SendPacket("c");  // the BusFault's vector is 0xFFFFFFFF now: stops at that "handler"
  EXPECT_NE(c.Receive().find("$S0b#"), std::string::npos);
  c.SendPacket("D");
  EXPECT_NE(c.Receive().find("$OK#"), std::string::npos);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(served.Wait(), 4) << served.stderr_text();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_NE(served.stdout_text().find("without running an instruction"), std::string::npos) << served.stdout_text();
}

TEST(Gdb, ABusyPortIsAnInputError) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "hello");
  Served first({"run", "--board", "mps2-an505", elf.string(), "--gdb", "0"});
  ASSERT_GT(first.port(), 0);
  auto r = testing::RunCli({"run", "--board", "mps2-an505", elf.string(), "--gdb", std::to_string(first.port())});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--gdb"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot listen"), std::string::npos) << r.err;
  Client c(first.port());
  c.SendPacket("D");
  EXPECT_NE(c.Receive().find("OK"), std::string::npos);
  EXPECT_EQ(first.Wait(), 0);
  EXPECT_NE(first.stdout_text().find("outcome: exit"), std::string::npos);
}

}  // namespace
}  // namespace faultline
