// GDB remote-protocol framing (debug/rsp.h): what a client sends, split anywhere,
// corrupted or cut off, comes out as packets, refusals and interrupts, never a crash.
#include "debug/rsp.h"

#include <gtest/gtest.h>

namespace faultline::debug {
namespace {

std::vector<Received> FeedAll(PacketReader& r, std::string_view bytes) {
  r.Feed(bytes);
  std::vector<Received> out;
  while (auto item = r.Next()) out.push_back(*item);
  return out;
}

TEST(Rsp, PacketsAcksAndInterruptsInOneStream) {
  PacketReader r;
  auto items = FeedAll(r, "+$g#67-\x03$m0,4#fd");
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].kind, Received::Kind::kAck);
  EXPECT_EQ(items[1].kind, Received::Kind::kPacket);
  EXPECT_EQ(items[1].payload, "g");
  EXPECT_EQ(items[2].kind, Received::Kind::kNack);
  EXPECT_EQ(items[3].kind, Received::Kind::kInterrupt);
  EXPECT_EQ(items[4].payload, "m0,4");
}

// What waits to be taken is bounded (issue 41 item 3): a client streaming `+` or packets
// while the target runs grows nothing; an interrupt still gets through.
TEST(Rsp, TheBacklogIsBoundedAndAnInterruptStillGetsThrough) {
  PacketReader r;
  r.Feed(std::string(1 << 20, '+'));
  std::string packets;
  for (int i = 0; i < 1000; ++i) packets += "$g#67";
  r.Feed(packets);
  r.Feed("\x03");
  std::vector<Received> items;
  while (auto item = r.Next()) items.push_back(*item);
  EXPECT_LE(items.size(), PacketReader::kMaxPending + 1);
  EXPECT_EQ(items.front().kind, Received::Kind::kAck) << "a million acks are one";
  EXPECT_EQ(items[1].kind, Received::Kind::kPacket);
  EXPECT_EQ(items.back().kind, Received::Kind::kInterrupt);
}

TEST(Rsp, APacketSplitAcrossReadsIsWhole) {
  PacketReader r;
  EXPECT_TRUE(FeedAll(r, "$qSupp").empty());
  EXPECT_TRUE(r.InPacket());
  EXPECT_TRUE(FeedAll(r, "orted#3").empty());
  auto items = FeedAll(r, "7");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].payload, "qSupported");
  EXPECT_FALSE(r.InPacket());
}

TEST(Rsp, BadChecksumsAndOverlongPacketsAreRefused) {
  PacketReader r;
  auto items = FeedAll(r, "$g#00$g#zz");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, Received::Kind::kBadChecksum);
  EXPECT_EQ(items[1].kind, Received::Kind::kBadChecksum);
  std::string huge = "$" + std::string(PacketReader::kMaxPacket + 10, 'a') + "#00";
  items = FeedAll(r, huge);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, Received::Kind::kBadChecksum);
  // Noise between packets is dropped, and the next packet is read.
  items = FeedAll(r, "garbage$?#3f");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].payload, "?");
}

TEST(Rsp, FramingEscapesWhatMustBeAndUnescapesBinaryData) {
  EXPECT_EQ(Frame("OK"), "$OK#9a");
  const std::string framed = Frame("a#b$c}d*");
  PacketReader r;
  auto items = FeedAll(r, framed);
  ASSERT_EQ(items.size(), 1u);
  ASSERT_EQ(items[0].kind, Received::Kind::kPacket);
  std::vector<uint8_t> bytes = Unescape(items[0].payload);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "a#b$c}d*");
}

TEST(Rsp, HexNumbersAndBytes) {
  EXPECT_EQ(ParseHexNumber("10000084"), 0x10000084u);
  EXPECT_FALSE(ParseHexNumber(""));
  EXPECT_FALSE(ParseHexNumber("12g4"));
  EXPECT_FALSE(ParseHexNumber("11112222333344445"));  // past 64 bits
  EXPECT_FALSE(FromHex("abc"));
  EXPECT_FALSE(FromHex("zz"));
  EXPECT_EQ(*FromHex("00ff10"), (std::vector<uint8_t>{0x00, 0xff, 0x10}));
  EXPECT_EQ(Word(0x12345678), "78563412");
}

}  // namespace
}  // namespace faultline::debug
