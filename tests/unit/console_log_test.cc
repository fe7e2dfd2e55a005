// ConsoleLog (issue 20 item 2): the console streams whole, is kept bounded, and watched
// strings are found anywhere in it, across appends.
#include "devices/console_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace faultline {
namespace {

TEST(ConsoleLog, KeepsTheLastBytesAndCountsThemAll) {
  ConsoleLog log(8);
  log.Append("0123456789");
  log.Append("abc");
  EXPECT_EQ(log.Tail(), "56789abc");
  EXPECT_EQ(log.bytes(), 13u);
  for (int i = 0; i < 1000; ++i) log.Append("xy");
  EXPECT_EQ(log.Tail(), "xyxyxyxy");
  EXPECT_EQ(log.bytes(), 2013u);
}

TEST(ConsoleLog, StreamsEveryPieceWithItsOffset) {
  std::string streamed;
  std::vector<uint64_t> offsets;
  ConsoleLog log(4, [&](uint64_t offset, std::string_view text) {
    offsets.push_back(offset);
    streamed.append(text);
  });
  log.Append("hello ");
  log.Append("");
  log.Append("world\n");
  EXPECT_EQ(streamed, "hello world\n");
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 6}));
  EXPECT_EQ(log.Tail(), "rld\n");
}

TEST(ConsoleLog, FindsWatchedStringsAnywhereEvenAcrossAppends) {
  ConsoleLog log(4, {}, {"first line", "needle", "never"});
  log.Append("first ");
  log.Append("li");
  log.Append("ne\n");
  for (char c : std::string("...nee")) log.Append(std::string(1, c));
  log.Append("dle...");
  for (int i = 0; i < 100; ++i) log.Append("filler\n");
  EXPECT_EQ(log.seen(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(log.Tail(), "ler\n");
}

}  // namespace
}  // namespace faultline
