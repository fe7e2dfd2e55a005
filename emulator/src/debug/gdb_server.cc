#include "gdb_server.h"

#include <arpa/inet.h>
#include <fmt/core.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "faultline/check.h"
#include "faultline/debug.h"
#include "faultline/report.h"
#include "faultline/error.h"
#include "rsp.h"

namespace faultline::debug {

namespace {

// A continue runs the machine in slices of this many instructions and looks for the
// client's Ctrl-C between them: a pause costs about what an engine stop does.
constexpr uint64_t kSlice = 1 << 20;



// Signals in stop replies (GDB's own numbering, gdb/signals.def).
constexpr int kSigInt = 2, kSigTrap = 5, kSigSegv = 11;

std::string Split(std::string_view s, char at, std::string_view* rest) {
  const size_t i = s.find(at);
  *rest = i == std::string_view::npos ? std::string_view() : s.substr(i + 1);
  return std::string(s.substr(0, i));
}

// `addr,length` as m, M, X, Z and qXfer give them.
std::optional<std::pair<uint64_t, uint64_t>> AddressLength(std::string_view args) {
  std::string_view rest;
  auto address = ParseHexNumber(Split(args, ',', &rest));
  auto length = ParseHexNumber(rest);
  if (!address || !length) return std::nullopt;
  return std::pair{*address, *length};
}

uint32_t LittleEndian(const uint8_t* b) {
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

// qXfer's `offset,length` window of a document: `m` and a part, or `l` and the last.
std::string XferWindow(const std::string& doc, std::string_view args) {
  auto window = AddressLength(args);
  if (!window) return "E00";
  const auto [offset, length] = *window;
  if (offset >= doc.size()) return "l";
  const std::string part = doc.substr(size_t(offset), size_t(length));
  return (offset + part.size() >= doc.size() ? "l" : "m") + part;
}

}  // namespace

GdbStub::GdbStub(machine::Machine& m, const Board& board, const Image& image, std::function<bool()> interrupted)
    : m_(m), board_(board), image_(image), interrupted_(std::move(interrupted)) {}

std::string GdbStub::StopReply() const {
  if (m_.ended()) {
    const RunResult& r = m_.output().result;
    if (r.outcome == Outcome::kExit) return fmt::format("W{:02x}", uint8_t(r.exit_code));
    const bool fault = r.outcome == Outcome::kFault || r.outcome == Outcome::kLockup;
    return fmt::format("S{:02x}", fault ? kSigSegv : kSigTrap);
  }
  if (m_.stopped_fault() != nullptr) return fmt::format("S{:02x}", kSigSegv);
  if (why_ == Why::kWatch && m_.watch_hit()) {
    const machine::WatchHit hit = *m_.watch_hit();
    const char* name = hit.kind == machine::WatchKind::kWrite  ? "watch"
                       : hit.kind == machine::WatchKind::kRead ? "rwatch"
                                                               : "awatch";
    return fmt::format("T{:02x}{}:{:x};", kSigTrap, name, hit.address);
  }
  return fmt::format("S{:02x}", why_ == Why::kInterrupt ? kSigInt : kSigTrap);
}

std::string GdbStub::RegisterHex(size_t n) const {
  const uint64_t v = m_.ReadRegister(n);
  std::string out = Word(uint32_t(v));
  return m_.debug_registers()[n].bits == 64 ? out + Word(uint32_t(v >> 32)) : out;
}

std::string GdbStub::ReadRegisters() const {
  std::string out;
  for (size_t n = 0; n < m_.debug_registers().size(); ++n) out += RegisterHex(n);
  return out;
}

bool GdbStub::WriteRegister(size_t n, std::span<const uint8_t> bytes) {
  const auto& regs = m_.debug_registers();
  if (n >= regs.size() || bytes.size() * 8 != size_t(regs[n].bits)) return false;
  uint64_t value = LittleEndian(bytes.data());
  if (bytes.size() == 8) value |= uint64_t(LittleEndian(bytes.data() + 4)) << 32;
  return m_.WriteRegister(n, value);
}

std::string GdbStub::ReadMemory(std::string_view args) const {
  auto window = AddressLength(args);
  if (!window) return "E00";
  const auto [address, length] = *window;
  const MemoryMap& map = m_.map();
  const int r = map.Find(address);
  if (r < 0 || length == 0) return length == 0 ? "" : "E14";
  // What lies in the region at `address`, at most a packet's worth: the protocol allows a
  // shorter answer (gdb asks again for the rest), and `m0,ffffffff` on a DDR region must
  // not cost its size twice over in hex.
  const Region& region = map.regions()[size_t(r)];
  std::vector<uint8_t> bytes(size_t(std::min<uint64_t>({length, region.end() - address, PacketReader::kMaxPacket / 2})));
  // What the core would read there (issue 39 item 5): behind a closed gate, zeros or a bus
  // error, as the board says; `monitor raw` shows the bytes the window keeps.
  if (!map.Enabled(size_t(r))) {
    if (map.gates()[*map.GateOf(size_t(r))].when_disabled == WhenDisabled::kBusFault) return "E14";
    return ToHex(bytes);
  }
  map.Read(address, bytes);
  return ToHex(bytes);
}

// `monitor raw ADDR [LEN]`: the bytes a window holds, whatever its gate says, 16 a line.
std::string GdbStub::RawMemory(std::string_view args) const {
  std::string_view rest;
  const std::string first = Split(args, ' ', &rest);
  const auto parse = [](std::string_view t) -> std::optional<uint64_t> {
    if (t.starts_with("0x") || t.starts_with("0X")) t.remove_prefix(2);
    return ParseHexNumber(t);
  };
  const auto address = parse(first);
  const auto length = rest.empty() ? std::optional<uint64_t>(16) : parse(rest);
  if (!address || !length || *length == 0 || *length > 4096) {
    return "usage: monitor raw ADDRESS [LENGTH] (hex, at most 0x1000 bytes)\n";
  }
  const MemoryMap& map = m_.map();
  const int r = map.FindRange(*address, *length);
  if (r < 0) return fmt::format("0x{:08x}: no window holds 0x{:x} bytes there\n", *address, *length);
  std::vector<uint8_t> bytes(static_cast<size_t>(*length));
  map.Read(*address, bytes);
  std::string out = map.Enabled(size_t(r)) ? "" : fmt::format("{} is closed: {}\n", map.regions()[size_t(r)].name,
                                                               map.ExplainClosed(*map.GateOf(size_t(r))));
  for (size_t i = 0; i < bytes.size(); i += 16) {
    out += fmt::format("0x{:08x}:", *address + i);
    for (size_t j = i; j < std::min(bytes.size(), i + 16); ++j) out += fmt::format(" {:02x}", bytes[j]);
    out += "\n";
  }
  return out;
}

std::string GdbStub::WriteMemory(std::string_view args, bool binary) {
  std::string_view data;
  const std::string head = Split(args, ':', &data);
  auto window = AddressLength(head);
  if (!window) return "E00";
  const auto [address, length] = *window;
  std::vector<uint8_t> bytes;
  if (binary) {
    bytes = Unescape(data);
  } else if (auto hex = FromHex(data)) {
    bytes = std::move(*hex);
  } else {
    return "E00";
  }
  if (bytes.size() != length) return "E00";
  if (length == 0) return "OK";
  if (m_.ended() || m_.map().FindRange(address, length) < 0) return "E14";
  m_.map().Write(address, bytes);
  m_.InvalidateCode(address, address + length);
  return "OK";
}

// Z0/Z1 (software or hardware breakpoint: the same to the machine, which never writes
// the firmware's memory for one), Z2/Z3/Z4 (write, read, access watchpoint); z to remove.
std::string GdbStub::Breakpoint(std::string_view args, bool insert) {
  std::string_view rest;
  const std::string type = Split(args, ',', &rest);
  if (type.size() != 1 || type[0] < '0' || type[0] > '4') return "";
  auto at = AddressLength(rest);
  if (!at || at->first > UINT32_MAX || at->second > UINT32_MAX) return "E00";
  if (m_.ended()) return insert ? "E01" : "OK";  // nothing left to stop: removing is fine
  if (type[0] <= '1') {
    m_.SetBreakpoint(uint32_t(at->first), insert);
    return "OK";
  }
  return m_.SetWatchpoint(uint32_t(at->first), uint32_t(at->second), machine::WatchKind(type[0] - '0'), insert)
             ? "OK"
             : "E01";
}

std::string GdbStub::Resume(bool step) {
  if (m_.ended()) return StopReply();
  machine::Pause p;
  if (step) {
    p = m_.Step();
  } else {
    for (;;) {
      p = m_.Run({.instructions = m_.instructions() + kSlice});
      if (p != machine::Pause::kInstructions) break;
      if (interrupted_ && interrupted_()) {
        why_ = Why::kInterrupt;
        return StopReply();
      }
    }
  }
  why_ = p == machine::Pause::kFault ? Why::kFault : p == machine::Pause::kWatchpoint ? Why::kWatch : Why::kTrap;
  return StopReply();
}

std::string GdbStub::TargetXml() const {
  std::string xml =
      "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target version=\"1.0\">"
      "<architecture>" + std::string(m_.architecture()) + "</architecture>";
  std::string_view feature;
  for (size_t n = 0; n < m_.debug_registers().size(); ++n) {
    const machine::DebugRegister& d = m_.debug_registers()[n];
    if (d.feature != feature) {
      if (!feature.empty()) xml += "</feature>";
      feature = d.feature;
      xml += fmt::format("<feature name=\"{}\">", feature);
    }
    xml += fmt::format("<reg name=\"{}\" bitsize=\"{}\" regnum=\"{}\" type=\"{}\"/>", d.name, d.bits, n, d.type);
  }
  return xml + "</feature></target>";
}

// The board's regions as GDB's memory map (GDB manual, "Memory Map Format"): flash where
// the board has memory a programmer writes, so that `load` erases and writes it with
// vFlash packets, RAM elsewhere.
std::string GdbStub::MemoryMapXml() const {
  std::string xml =
      "<?xml version=\"1.0\"?><!DOCTYPE memory-map PUBLIC \"+//IDN gnu.org//DTD GDB Memory Map V1.0//EN\" "
      "\"http://sourceware.org/gdb/gdb-memory-map.dtd\"><memory-map>";
  for (const Region& r : m_.map().regions()) {
    if (IsNonVolatile(r.kind)) {
      xml += fmt::format(
          "<memory type=\"flash\" start=\"0x{:x}\" length=\"0x{:x}\"><property name=\"blocksize\">0x400</property>"
          "</memory>",
          r.base, r.size);
    } else {
      xml += fmt::format("<memory type=\"ram\" start=\"0x{:x}\" length=\"0x{:x}\"/>", r.base, r.size);
    }
  }
  return xml + "</memory-map>";
}

std::string GdbStub::Monitor(std::string_view command) {
  std::string out;
  if (command == "regions") {
    const MemoryMap& map = m_.map();
    for (size_t i = 0; i < map.regions().size(); ++i) {
      const Region& r = map.regions()[i];
      out += fmt::format("{:<16} 0x{:08x}-0x{:08x} {:<10} {}{}\n", r.name, r.base, r.end() - 1, ToString(r.kind),
                         AccessString(r.access), map.Enabled(i) ? "" : "  (disabled: its gate does not hold)");
    }
  } else if (command == "fault") {
    const Fault* f = m_.stopped_fault();
    if (f == nullptr && m_.ended() && m_.output().result.fault) f = &*m_.output().result.fault;
    out = f == nullptr ? "no fault\n" : FormatFaultRecord(*f, m_.registers(), board_);
  } else if (command == "events") {
    out = FormatEventsText(m_.ended() ? m_.output().result.events : m_.Events());
    if (out.empty()) out = "no events\n";
  } else if (command == "check") {
    CheckOptions options;
    options.map_file = MapFileBeside(image_.path);
    const CheckResult check = Check(board_, image_, options);
    out = FormatCheckText(check, board_, image_);
  } else if (command == "raw" || command.starts_with("raw ")) {
    out = RawMemory(command.size() > 4 ? std::string_view(command).substr(4) : std::string_view());
  } else if (command == "reset" || command == "reload") {
    if (command == "reset") {
      m_.WarmReset();
    } else {
      m_.Reset();
    }
    why_ = Why::kReset;
    out = fmt::format("{}: pc 0x{:08x}\n", command, m_.pc());
  } else {
    out = fmt::format("faultline monitor commands: regions, fault, events, check, reset, reload, raw (not '{}')\n",
                      command);
  }
  return ToHex(out);
}

std::string GdbStub::Query(std::string_view packet) {
  if (packet.starts_with("qSupported")) {
    return fmt::format("PacketSize={:x};qXfer:features:read+;qXfer:memory-map:read+", PacketReader::kMaxPacket);
  }
  if (packet.starts_with("qXfer:features:read:target.xml:")) {
    return XferWindow(TargetXml(), packet.substr(std::string_view("qXfer:features:read:target.xml:").size()));
  }
  if (packet.starts_with("qXfer:memory-map:read::")) {
    return XferWindow(MemoryMapXml(), packet.substr(std::string_view("qXfer:memory-map:read::").size()));
  }
  if (packet.starts_with("qRcmd,")) {
    auto command = FromHex(packet.substr(6));
    if (!command) return "E00";
    return Monitor(std::string(command->begin(), command->end()));
  }
  if (packet == "qAttached") return "1";
  if (packet == "qC") return "QC1";
  if (packet == "qfThreadInfo") return "m1";
  if (packet == "qsThreadInfo") return "l";
  if (packet.starts_with("qSymbol")) return "OK";
  return "";
}

std::string GdbStub::Handle(std::string_view packet) {
  if (packet.empty()) return "";
  const std::string_view args = packet.substr(1);
  switch (packet[0]) {
    case '?':
      return StopReply();
    case 'g':
      return ReadRegisters();
    case 'G': {
      auto bytes = FromHex(args);
      size_t size = 0;
      const auto& regs = m_.debug_registers();
      for (const machine::DebugRegister& d : regs) size += size_t(d.bits / 8);
      if (!bytes || bytes->size() != size) return "E00";
      size_t at = 0;
      for (size_t n = 0; n < regs.size(); at += size_t(regs[n++].bits / 8)) {
        if (!WriteRegister(n, std::span<const uint8_t>(bytes->data() + at, size_t(regs[n].bits / 8)))) return "E01";
      }
      return "OK";
    }
    case 'p': {
      auto n = ParseHexNumber(args);
      if (!n) return "E00";
      return *n < m_.debug_registers().size() ? RegisterHex(size_t(*n)) : "E00";
    }
    case 'P': {
      std::string_view value;
      auto n = ParseHexNumber(Split(args, '=', &value));
      auto bytes = FromHex(value);
      if (!n || !bytes) return "E00";
      return WriteRegister(size_t(*n), *bytes) ? "OK" : "E00";
    }
    case 'm':
      return ReadMemory(args);
    case 'M':
      return WriteMemory(args, false);
    case 'X':
      return WriteMemory(args, true);
    case 'c':
    case 's':
    case 'C':
    case 'S': {
      // C/S carry a signal first (`C0b;addr`), which a bare-metal target has nowhere to
      // deliver: the machine goes on as it would (a pending fault is taken).
      std::string_view at_text = args;
      if (packet[0] == 'C' || packet[0] == 'S') Split(args, ';', &at_text);
      if (!at_text.empty()) {  // resume at an address
        auto at = ParseHexNumber(at_text);
        if (!at) return "E00";
        if (!m_.ended()) m_.SetPc(uint32_t(*at));
      }
      return Resume(packet[0] == 's' || packet[0] == 'S');
    }
    case 'Z':
    case 'z':
      return Breakpoint(args, packet[0] == 'Z');
    case 'H':
    case 'T':
      return "OK";  // one thread
    case 'D':
      closing_ = true;
      return "OK";
    case 'k':  // kill: the run ends where it is, reported as stopped by gdb
      closing_ = true;
      m_.End("stopped by gdb (kill)");
      return "";
    case 'q':
      return Query(packet);
    case 'v':
      if (packet.starts_with("vKill")) {
        closing_ = true;
        m_.End("stopped by gdb (kill)");
        return "OK";
      }
      if (packet.starts_with("vFlashErase:")) {
        auto window = AddressLength(packet.substr(12));
        if (!window) return "E00";
        // A length of 0 erases nothing gdb could have asked for; one past the window is refused.
        if (window->second == 0 || m_.ended() || m_.map().FindRange(window->first, window->second) < 0) return "E14";
        // Erased flash reads 0xFF; an XSPI window is large, so a block at a time.
        const std::vector<uint8_t> erased(0x10000, 0xFF);
        for (uint64_t at = window->first, end = window->first + window->second; at < end; at += erased.size()) {
          m_.map().Write(at, std::span(erased).first(size_t(std::min<uint64_t>(erased.size(), end - at))));
        }
        m_.InvalidateCode(window->first, window->first + window->second);
        return "OK";
      }
      if (packet.starts_with("vFlashWrite:")) {
        std::string_view data;
        auto address = ParseHexNumber(Split(packet.substr(12), ':', &data));
        if (!address) return "E00";
        const std::vector<uint8_t> bytes = Unescape(data);
        if (bytes.empty() || m_.ended() || m_.map().FindRange(*address, bytes.size()) < 0) return "E14";
        m_.map().Write(*address, bytes);
        m_.InvalidateCode(*address, *address + bytes.size());
        return "OK";
      }
      if (packet == "vFlashDone") return "OK";
      return "";
    default:
      return "";
  }
}

namespace {

// Closes a socket when it goes out of scope.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

void SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away: the read loop sees it next
    bytes.remove_prefix(size_t(n));
  }
}

}  // namespace

}  // namespace faultline::debug

namespace faultline {

RunResult RunUnderGdb(const Board& board, const Image& image, const RunOptions& options, const GdbListen& listen_at) {
  machine::MachineInput in = machine::InputFor(board, image, options);
  in.debugger = true;
  if (options.console_stream) {
    in.console_stream = [&options](uint64_t, std::string_view text) { options.console_stream(text); };
  }
  std::unique_ptr<machine::Machine> machine = machine::MakeMachine(in);
  machine::Machine& m = *machine;

  using debug::Frame, debug::GdbStub, debug::PacketReader, debug::Received, debug::Socket, debug::SendAll;
  Socket listener{socket(AF_INET, SOCK_STREAM, 0)};
  if (listener.fd < 0) throw std::runtime_error(fmt::format("socket: {}", std::strerror(errno)));
  const int yes = 1;
  setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(listen_at.port);
  if (inet_pton(AF_INET, listen_at.host.c_str(), &addr.sin_addr) != 1) {
    throw InputError(listen_at.origin, fmt::format("'{}' is not an IPv4 address", listen_at.host),
                     "give ADDR:PORT with a numeric address, e.g. 127.0.0.1:3333");
  }
  if (bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener.fd, 1) != 0) {
    throw InputError(listen_at.origin,
                     fmt::format("cannot listen on {}:{}: {}", listen_at.host, listen_at.port, std::strerror(errno)),
                     "choose a free port (--gdb PORT), or stop what listens there");
  }
  sockaddr_in bound{};
  socklen_t bound_size = sizeof bound;
  getsockname(listener.fd, reinterpret_cast<sockaddr*>(&bound), &bound_size);
  if (listen_at.say) listen_at.say(fmt::format("faultline: waiting for gdb on {}:{} (in gdb: target remote {}:{})\n", listen_at.host,
                  ntohs(bound.sin_port), listen_at.host, ntohs(bound.sin_port)));
  Socket client{accept(listener.fd, nullptr, nullptr)};
  close(listener.fd);  // one client: a second one is refused, and the port is free again
  listener.fd = -1;
  if (client.fd < 0) throw std::runtime_error(fmt::format("accept: {}", std::strerror(errno)));
  // Each reply is one small write the client waits for: Nagle's algorithm would hold it
  // until the client's delayed ACK (tens of ms per packet, seconds per gdb command).
  setsockopt(client.fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);

  PacketReader reader;
  // While the machine runs, gdb sends only Ctrl-C; anything else waits in the reader.
  bool interrupt = false;
  // Everything the client has sent so far is read at each poll (up to 1 MiB): a Ctrl-C or
  // a disconnect is seen at once however much it queued before it (issue 41 item 3).
  auto poll_client = [&] {
    for (int reads = 0; reads < 64; ++reads) {
      char buf[16384];
      const ssize_t n = recv(client.fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0) return true;  // gone: stop running for it, the read loop ends the session
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        return true;
      }
      for (ssize_t i = 0; i < n; ++i) interrupt = interrupt || buf[i] == 0x03;
      reader.Feed(std::string_view(buf, size_t(n)));
    }
    return interrupt;
  };
  GdbStub stub(m, board, image, [&] { return std::exchange(interrupt, false) || poll_client(); });
  std::string last_reply;
  for (bool open = true; open && !stub.closing();) {
    while (auto item = reader.Next()) {
      if (item->kind == Received::Kind::kPacket) {
        SendAll(client.fd, "+");  // before a continue that may run for long
        last_reply = Frame(stub.Handle(item->payload));
        SendAll(client.fd, last_reply);
        if (stub.closing()) break;
      } else if (item->kind == Received::Kind::kBadChecksum) {
        SendAll(client.fd, "-");
      } else if (item->kind == Received::Kind::kNack && !last_reply.empty()) {
        SendAll(client.fd, last_reply);
      }
    }
    if (stub.closing()) break;
    char buf[4096];
    const ssize_t n = recv(client.fd, buf, sizeof buf, 0);
    if (n <= 0) {
      open = false;
    } else {
      reader.Feed(std::string_view(buf, size_t(n)));
    }
  }
  // The client detached, was killed or went away: the run goes on to its end, reported
  // as any run is, with the run's timeout from here.
  if (!m.ended()) {
    if (options.timeout_seconds > 0) {
      m.SetDeadline(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                           std::chrono::duration<double>(options.timeout_seconds)));
    }
    m.Detach();
    m.Run();
  }
  return m.TakeOutput().result;
}

}  // namespace faultline
