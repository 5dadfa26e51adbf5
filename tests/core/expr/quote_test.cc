// expr::Quote and expr::Printable: the one way user text appears in messages.
#include <gtest/gtest.h>

#include <string>

#include "tether/expr/quote.h"

namespace tether::expr {
namespace {

TEST(QuoteTest, ShortPrintableTextIsQuotedAsIs) {
  EXPECT_EQ(Quote("length"), "'length'");
  EXPECT_EQ(Quote(""), "''");
  EXPECT_EQ(Quote("λ_1 → x"), "'λ_1 → x'");  // valid UTF-8 stays readable
}

TEST(QuoteTest, ControlBytesAndBrokenUtf8AreEscaped) {
  EXPECT_EQ(Quote(std::string("a\nb\0c", 5)), "'a\\x0ab\\x00c'");
  EXPECT_EQ(Quote("\x7f"), "'\\x7f'");
  // A lone continuation byte, a truncated sequence, an overlong '/' and a surrogate.
  EXPECT_EQ(Printable("\x80"), "\\x80");
  EXPECT_EQ(Printable("\xe2\x86"), "\\xe2\\x86");
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
}

TEST(QuoteTest, LongTextKeepsItsFirstBytesAndSaysHowLongItWas) {
  const std::string name(10240, 'm');
  EXPECT_EQ(Quote(name), "'" + std::string(kMaxQuotedBytes, 'm') + "…(10240 bytes)'");
  // Exactly the limit is not cut.
  EXPECT_EQ(Printable(std::string(kMaxQuotedBytes, 'x')), std::string(kMaxQuotedBytes, 'x'));
}

TEST(QuoteTest, CutNeverSplitsAUtf8Sequence) {
  // 63 ASCII bytes then "→" (3 bytes): the arrow would end at byte 66 > 64, so it is left out.
  const std::string text = std::string(63, 'a') + "→";
  EXPECT_EQ(Printable(text), std::string(63, 'a') + "…(66 bytes)");
}

}  // namespace
}  // namespace tether::expr
