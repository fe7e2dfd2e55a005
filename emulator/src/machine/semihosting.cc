#include "semihosting.h"

#include <fmt/core.h>

#include <algorithm>
#include <ctime>

namespace faultline {

namespace {

// Operation numbers and exit reasons: Arm IHI 0096 (semihosting v2), §6 and §6.5.
enum Op : uint32_t {
  kSysOpen = 0x01, kSysClose = 0x02, kSysWriteC = 0x03, kSysWrite0 = 0x04, kSysWrite = 0x05,
  kSysRead = 0x06, kSysReadC = 0x07, kSysIsError = 0x08, kSysIsTty = 0x09, kSysSeek = 0x0A,
  kSysFlen = 0x0C, kSysRemove = 0x0E, kSysRename = 0x0F, kSysClock = 0x10, kSysTime = 0x11,
  kSysSystem = 0x12, kSysErrno = 0x13, kSysGetCmdline = 0x15, kSysHeapInfo = 0x16,
  kSysExit = 0x18, kSysExitExtended = 0x20, kSysElapsed = 0x30, kSysTickFreq = 0x31,
};
constexpr uint32_t kAdpStoppedApplicationExit = 0x20026;

// Handles this host hands out for the special ":tt" and ":semihosting-features" files.
enum Handle : uint32_t { kStdin = 1, kStdout = 2, kStderr = 3, kFeatures = 4 };
// "SHFB" magic and feature byte 0: EXIT_EXTENDED | STDOUT_STDERR (IHI 0096 §5.3).
const std::string kFeatureBytes = std::string("SHFB") + char(0x03);

constexpr int kEBADF = 9, kEFAULT = 14, kEACCES = 13;
constexpr uint32_t kMaxString = 1 << 20;
constexpr uint32_t kWritePiece = 64 << 10;  // SYS_WRITE reads the guest's buffer this much at a time

}  // namespace

Semihosting::Semihosting(MemoryMap& map, HeapInfo heap, uint64_t clock_hz,
                         std::vector<uint32_t> wall_clock)
    : map_(map), heap_(heap), clock_hz_(clock_hz), wall_clock_(std::move(wall_clock)) {}

std::optional<uint32_t> Semihosting::Word(uint32_t addr) const {
  if (map_.FindRange(addr, 4) < 0) return std::nullopt;
  return map_.Read32(addr);
}

std::optional<std::string> Semihosting::Bytes(uint32_t addr, uint32_t len) const {
  if (len == 0) return std::string();
  if (map_.FindRange(addr, len) < 0) return std::nullopt;
  std::string s(len, '\0');
  map_.Read(addr, std::span(reinterpret_cast<uint8_t*>(s.data()), len));
  return s;
}

std::optional<std::string> Semihosting::CString(uint32_t addr, uint64_t* end) const {
  std::string s;
  for (uint32_t i = 0; i < kMaxString; ++i) {
    *end = uint64_t(addr) + i;
    if (map_.Find(*end) < 0) return std::nullopt;
    uint8_t c;
    map_.Read(*end, std::span(&c, 1));
    if (c == 0) return s;
    s.push_back(char(c));
  }
  *end = uint64_t(addr) + kMaxString;
  return std::nullopt;
}

bool Semihosting::Store(uint32_t addr, const void* data, uint32_t len) {
  if (map_.FindRange(addr, len) < 0) return false;
  map_.Write(addr, std::span(static_cast<const uint8_t*>(data), len));
  return true;
}

void Semihosting::SetConsole(size_t keep, ConsoleLog::Stream stream, std::vector<std::string> watch) {
  console_ = ConsoleLog(keep, std::move(stream), std::move(watch));
  out_ = ConsoleLog(keep);
  err_ = ConsoleLog(keep);
}

void Semihosting::Emit(int handle, const std::string& text) {
  console_.Append(text);
  (handle == kStderr ? err_ : out_).Append(text);
}

SemihostingResult Semihosting::Fail(int error) {
  errno_ = error;
  return {.r0 = 0xFFFFFFFFu};
}

SemihostingResult Semihosting::Call(uint32_t op, uint32_t arg, uint64_t instructions) {
  switch (op) {
    case kSysWriteC: {
      auto c = Bytes(arg, 1);
      if (!c) return Fail(kEFAULT);
      Emit(kStdout, *c);
      return {};
    }
    case kSysWrite0: {
      uint64_t end = 0;
      auto s = CString(arg, &end);
      if (!s) {
        SemihostingResult r = Fail(kEFAULT);
        r.problem = end - arg >= kMaxString
                        ? fmt::format("SYS_WRITE0: the string at 0x{:08x} has no NUL in its first {} bytes; "
                                      "nothing was printed",
                                      arg, kMaxString)
                        : fmt::format("SYS_WRITE0: the string at 0x{:08x} has no NUL before unmapped memory at "
                                      "0x{:08x} ({} bytes on); nothing was printed",
                                      arg, end, end - arg);
        r.problem_address = end;
        return r;
      }
      Emit(kStdout, *s);
      return {};
    }
    case kSysOpen: {
      auto name_ptr = Word(arg), mode = Word(arg + 4), len = Word(arg + 8);
      if (!name_ptr || !mode || !len) return Fail(kEFAULT);
      auto name = Bytes(*name_ptr, *len);
      if (!name) return Fail(kEFAULT);
      // fopen modes 0-3 read, 4-7 write, 8-11 append (IHI 0096 §6.1).
      if (*name == ":tt") return {.r0 = *mode < 4 ? kStdin : *mode < 8 ? kStdout : kStderr};
      if (*name == ":semihosting-features") {
        features_position_ = 0;
        return {.r0 = kFeatures};
      }
      return Fail(kEACCES);  // host files are not exposed to the firmware
    }
    case kSysClose:
      return {};
    case kSysWrite: {
      auto handle = Word(arg), buf = Word(arg + 4), len = Word(arg + 8);
      if (!handle || !buf || !len) return Fail(kEFAULT);
      if (*handle != kStdout && *handle != kStderr) {
        errno_ = kEBADF;
        return {.r0 = *len};  // nothing written
      }
      if (map_.FindRange(*buf, *len) < 0) return Fail(kEFAULT);
      // In pieces: a 1 GiB write from DDR costs the host a piece, not copies of the whole
      // (the console keeps its last bytes only; issue 41 item 4).
      for (uint32_t done = 0; done < *len; done += kWritePiece) {
        Emit(int(*handle), *Bytes(*buf + done, std::min(kWritePiece, *len - done)));
      }
      return {.r0 = 0};  // bytes not written
    }
    case kSysRead: {
      auto handle = Word(arg), buf = Word(arg + 4), len = Word(arg + 8);
      if (!handle || !buf || !len) return Fail(kEFAULT);
      if (*handle == kFeatures) {
        uint32_t left = uint32_t(kFeatureBytes.size()) - std::min<uint32_t>(features_position_, uint32_t(kFeatureBytes.size()));
        uint32_t n = std::min<uint32_t>(*len, left);
        if (!Store(*buf, kFeatureBytes.data() + (kFeatureBytes.size() - left), n)) return Fail(kEFAULT);
        features_position_ += n;
        return {.r0 = *len - n};
      }
      if (*handle == kStdin) return {.r0 = *len};  // end of file: no input is attached
      errno_ = kEBADF;
      return {.r0 = 0xFFFFFFFFu};
    }
    case kSysReadC:
      return {.r0 = 0xFFFFFFFFu};  // end of file: no input is attached
    case kSysIsError:
      return {.r0 = int32_t(Word(arg).value_or(0)) < 0 ? 1u : 0u};
    case kSysIsTty: {
      auto handle = Word(arg);
      return {.r0 = handle && *handle >= kStdin && *handle <= kStderr ? 1u : 0u};
    }
    case kSysSeek: {
      auto handle = Word(arg), position = Word(arg + 4);
      if (!handle || !position) return Fail(kEFAULT);
      if (*handle == kFeatures) features_position_ = *position;
      return {.r0 = 0};
    }
    case kSysFlen: {
      auto handle = Word(arg);
      if (handle && *handle == kFeatures) return {.r0 = uint32_t(kFeatureBytes.size())};
      return {.r0 = 0};
    }
    case kSysRemove:
    case kSysRename:
    case kSysSystem:
      return Fail(kEACCES);
    case kSysClock:
      // Centiseconds from the instruction count at the nominal clock: deterministic.
      return {.r0 = uint32_t(instructions * 100 / clock_hz_)};
    case kSysTime: {
      uint32_t t;
      if (wall_clock_next_ < wall_clock_.size()) {
        t = wall_clock_[wall_clock_next_];
      } else {
        t = uint32_t(std::time(nullptr));
        wall_clock_.push_back(t);
      }
      ++wall_clock_next_;
      return {.r0 = t};
    }
    case kSysErrno:
      return {.r0 = uint32_t(errno_)};
    case kSysGetCmdline: {
      auto buf = Word(arg), len = Word(arg + 4);
      if (!buf || !len || *len < 1) return Fail(kEFAULT);
      uint8_t nul = 0;
      uint32_t zero = 0;
      if (!Store(*buf, &nul, 1) || !Store(arg + 4, &zero, 4)) return Fail(kEFAULT);
      return {.r0 = 0};
    }
    case kSysHeapInfo: {
      auto block = Word(arg);
      uint32_t words[4] = {heap_.heap_base, heap_.heap_limit, heap_.stack_base, heap_.stack_limit};
      if (!block || !Store(*block, words, sizeof words)) return Fail(kEFAULT);
      return {};
    }
    case kSysElapsed: {
      uint64_t ticks = instructions;
      if (!Store(arg, &ticks, 8)) return Fail(kEFAULT);
      return {.r0 = 0};
    }
    case kSysTickFreq:
      return {.r0 = uint32_t(clock_hz_)};
    case kSysExit:
      // AArch32: r1 is the reason itself; only ApplicationExit is a normal exit (status 0).
      if (arg == kAdpStoppedApplicationExit) {
        return {.kind = SemihostingResult::Kind::kExit, .exit_code = 0,
                .detail = "SYS_EXIT ADP_Stopped_ApplicationExit"};
      }
      return {.kind = SemihostingResult::Kind::kExit, .exit_code = 1,
              .detail = fmt::format("SYS_EXIT reason 0x{:x} (not ADP_Stopped_ApplicationExit)", arg)};
    case kSysExitExtended: {
      auto reason = Word(arg), subcode = Word(arg + 4);
      if (!reason || !subcode) return Fail(kEFAULT);
      if (*reason == kAdpStoppedApplicationExit) {
        return {.kind = SemihostingResult::Kind::kExit, .exit_code = int(int32_t(*subcode)),
                .detail = "SYS_EXIT_EXTENDED ADP_Stopped_ApplicationExit"};
      }
      return {.kind = SemihostingResult::Kind::kExit, .exit_code = 1, .detail = fmt::format("SYS_EXIT_EXTENDED reason 0x{:x} (not ADP_Stopped_ApplicationExit)", *reason)};
    }
    default:
      return {.kind = SemihostingResult::Kind::kUnsupported,
              .detail = fmt::format("semihosting operation 0x{:02x} is not implemented", op)};
  }
}

}  // namespace faultline
