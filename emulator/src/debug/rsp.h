// GDB Remote Serial Protocol framing (GDB manual, appendix E "GDB Remote Serial
// Protocol", Overview): packets `$payload#cc` with a two-hex-digit modulo-256 checksum,
// `+`/`-` acknowledgements, 0x03 as an interrupt, `}` escaping (byte ^ 0x20) of `#$}*`
// in binary data.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::debug {

// What the client sent, item by item.
struct Received {
  enum class Kind {
    kPacket,       // a packet with a good checksum: `payload`
    kBadChecksum,  // a packet whose checksum does not match: answer `-`, it is resent
    kInterrupt,    // 0x03 (Ctrl-C)
    kAck,          // `+`
    kNack,         // `-`: resend the last reply
  } kind;
  std::string payload;
};

// Splits a byte stream into Received items; bytes outside a packet that mean nothing are
// dropped, and a packet too long to be one is dropped whole (kMaxPacket).
class PacketReader {
 public:
  static constexpr size_t kMaxPacket = 0x4000;  // qSupported's PacketSize, with room
  void Feed(std::string_view bytes);
  std::optional<Received> Next();
  // A packet has begun and not ended (a client that disconnects here lost it).
  bool InPacket() const { return in_packet_; }
  static constexpr size_t kMaxPending = 64;  // items kept before Next takes them

 private:
  void Queue(Received item);
  std::string buffer_;
  std::vector<Received> ready_;
  size_t ready_at_ = 0;
  bool in_packet_ = false;
  bool overflow_ = false;
  std::string payload_;
  int checksum_digits_ = -1;  // -1: in the payload; 0-2: checksum digits read
  std::string checksum_;
};

// `$payload#cc`, payload escaped where it must be.
std::string Frame(std::string_view payload);
// The binary data of an X or vFlashWrite packet, unescaped.
std::vector<uint8_t> Unescape(std::string_view data);
std::string ToHex(std::span<const uint8_t> bytes);
std::string ToHex(std::string_view text);
// Hex digits to bytes; nullopt for an odd length or a non-hex digit.
std::optional<std::vector<uint8_t>> FromHex(std::string_view hex);
// A hex number of at most 16 digits; nullopt if empty or not hex.
std::optional<uint64_t> ParseHexNumber(std::string_view hex);
// A 32-bit value as GDB's `g` packet has it: target byte order (little-endian).
std::string Word(uint32_t value);

}  // namespace faultline::debug
