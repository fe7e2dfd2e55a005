#include "rsp.h"

#include <fmt/core.h>

namespace faultline::debug {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

uint8_t Checksum(std::string_view payload) {
  uint8_t sum = 0;
  for (char c : payload) sum = uint8_t(sum + uint8_t(c));
  return sum;
}

}  // namespace

void PacketReader::Feed(std::string_view bytes) {
  for (char c : bytes) {
    if (!in_packet_) {
      if (c == '$') {
        in_packet_ = true;
        overflow_ = false;
        payload_.clear();
        checksum_.clear();
        checksum_digits_ = -1;
      } else if (c == 0x03) {
        Queue({Received::Kind::kInterrupt, ""});
      } else if (c == '+') {
        Queue({Received::Kind::kAck, ""});
      } else if (c == '-') {
        Queue({Received::Kind::kNack, ""});
      }
      continue;
    }
    if (checksum_digits_ < 0) {
      if (c == '#') {
        checksum_digits_ = 0;
      } else if (payload_.size() < kMaxPacket) {
        payload_ += c;
      } else {
        overflow_ = true;
      }
      continue;
    }
    checksum_ += c;
    if (++checksum_digits_ < 2) continue;
    in_packet_ = false;
    const int hi = HexDigit(checksum_[0]), lo = HexDigit(checksum_[1]);
    const bool good = !overflow_ && hi >= 0 && lo >= 0 && uint8_t(hi * 16 + lo) == Checksum(payload_);
    Queue({good ? Received::Kind::kPacket : Received::Kind::kBadChecksum, good ? payload_ : ""});
  }
}

void PacketReader::Queue(Received item) {
  // A client waits for each reply before its next packet, so a handful is ever pending;
  // past kMaxPending (a client streaming `+` while the target runs) items are dropped, and
  // an ack that follows another says nothing new. Memory stays bounded whatever comes.
  const size_t pending = ready_.size() - ready_at_;
  if (item.kind == Received::Kind::kAck && pending > 0 && ready_.back().kind == Received::Kind::kAck) return;
  if (pending >= kMaxPending && item.kind != Received::Kind::kInterrupt) return;
  if (pending >= 2 * kMaxPending) return;
  ready_.push_back(std::move(item));
}

std::optional<Received> PacketReader::Next() {
  if (ready_at_ == ready_.size()) {
    ready_.clear();
    ready_at_ = 0;
    return std::nullopt;
  }
  return std::move(ready_[ready_at_++]);
}

std::string Frame(std::string_view payload) {
  std::string escaped;
  for (char c : payload) {
    if (c == '#' || c == '$' || c == '}' || c == '*') {
      escaped += '}';
      escaped += char(c ^ 0x20);
    } else {
      escaped += c;
    }
  }
  return fmt::format("${}#{:02x}", escaped, Checksum(escaped));
}

std::vector<uint8_t> Unescape(std::string_view data) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '}' && i + 1 < data.size()) {
      out.push_back(uint8_t(data[++i] ^ 0x20));
    } else {
      out.push_back(uint8_t(data[i]));
    }
  }
  return out;
}

std::string ToHex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::string ToHex(std::string_view text) {
  return ToHex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::optional<std::vector<uint8_t>> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(uint8_t(hi * 16 + lo));
  }
  return out;
}

std::optional<uint64_t> ParseHexNumber(std::string_view hex) {
  if (hex.empty() || hex.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : hex) {
    const int d = HexDigit(c);
    if (d < 0) return std::nullopt;
    v = v * 16 + uint64_t(d);
  }
  return v;
}

std::string Word(uint32_t value) {
  const uint8_t bytes[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
  return ToHex(bytes);
}

}  // namespace faultline::debug
