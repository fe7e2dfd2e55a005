// faultline/text.h: bytes that are not UTF-8 become \xNN, UTF-8 stays as it is, and the
// streamed form agrees with the whole-text form however the text is cut.
#include "faultline/text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "faultline/error.h"

namespace faultline {
namespace {

bool Utf8ByNlohmann(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

TEST(Utf8, WellFormedSequencesPassAndOthersAreEscapedByteByByte) {
  EXPECT_EQ(EscapeNonUtf8("plain\n\t\x1b"), "plain\n\t\x1b");           // controls are UTF-8
  EXPECT_EQ(EscapeNonUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(EscapeNonUtf8("caf\xe9 \xff\xfe"), "caf\\xe9 \\xff\\xfe");
  EXPECT_EQ(EscapeNonUtf8("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(EscapeNonUtf8("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");  // overlong, three bytes
  EXPECT_EQ(EscapeNonUtf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate, U+D800
  EXPECT_EQ(EscapeNonUtf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(EscapeNonUtf8("\xe2\x82"), "\\xe2\\x82");          // cut short at the end
  EXPECT_EQ(EscapeNonUtf8("\xe2\x82x"), "\\xe2\\x82x");        // cut short by ASCII
  EXPECT_EQ(EscapeNonUtf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(Utf8, EscapeControlEscapesBytesThatAreNotUtf8Too) {
  EXPECT_EQ(EscapeControl("caf\xe9\n\xc3\xa9"), "caf\\xe9\\n\xc3\xa9");
}

// Over random byte strings, biased to the bytes that start and continue sequences: the
// result is UTF-8 by nlohmann's validator, UTF-8 input comes back unchanged, and feeding
// the text in random pieces gives exactly the whole-text result.
TEST(Utf8, RandomBytesAgreeWithNlohmannAndWithTheStreamedForm) {
  std::mt19937 rng(41);
  const unsigned char interesting[] = {'a', '\n', 0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1,
                                       0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff};
  size_t valid_inputs = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const size_t n = rng() % 12;
    for (size_t k = 0; k < n; ++k) text += char(interesting[rng() % sizeof interesting]);
    const std::string escaped = EscapeNonUtf8(text);
    ASSERT_TRUE(Utf8ByNlohmann(escaped)) << escaped;
    if (Utf8ByNlohmann(text)) {
      ++valid_inputs;
      ASSERT_EQ(escaped, text);
    } else {
      ASSERT_NE(escaped, text);
    }
    Utf8Escaper stream;
    std::string streamed;
    for (size_t at = 0; at < text.size();) {
      const size_t piece = 1 + rng() % 4;
      streamed += stream.Feed(std::string_view(text).substr(at, piece));
      at += piece;
    }
    streamed += stream.Finish();
    ASSERT_EQ(streamed, escaped) << "input of " << text.size() << " bytes";
  }
  EXPECT_GT(valid_inputs, 1000u);  // the generator reaches both kinds
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// A segment line of a big image names a few sections and how many more (issue 37 item 7).
TEST(FirstWords, ShortListsStayLongOnesSayHowManyMore) {
  EXPECT_EQ(FirstWords(".vectors .text .rodata .copy.table .zero.table", 6), ".vectors .text .rodata .copy.table .zero.table");
  EXPECT_EQ(FirstWords("a b c d e f g h", 6), "a b c d +4 more");
  EXPECT_EQ(FirstWords("", 6), "");
}

}  // namespace
}  // namespace faultline
