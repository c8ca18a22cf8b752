// Tests for prices.h.
#include "model/prices.h"

#include <gtest/gtest.h>

namespace kubeon::model {
namespace {

TEST(Prices, ParsesMap) {
  Result<PriceTable> r = ParsePrices("# comment\np4d.24xlarge: 32.77\ng5.12xlarge: 5.672\n", "prices.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->at("p4d.24xlarge"), 32.77);
  EXPECT_DOUBLE_EQ(r->at("g5.12xlarge"), 5.672);
  EXPECT_TRUE(ParsePrices("", "p.yaml").ok());
}

TEST(Prices, ErrorsNameLineAndKey) {
  Result<PriceTable> r = ParsePrices("a: 1\nb: lots\n", "prices.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "prices.yaml:2: \"b\": \"lots\" is not a non-negative number of USD per hour, at most 10000");
  EXPECT_FALSE(ParsePrices("a: -3\n", "p.yaml").ok());
  EXPECT_FALSE(ParsePrices("- a\n- b\n", "p.yaml").ok());
  EXPECT_FALSE(ParsePrices("a: [1]\n", "p.yaml").ok());
  Result<PriceTable> syntax = ParsePrices("a: 1\n  b: : 2\n", "p.yaml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("p.yaml:"), std::string::npos);
  EXPECT_FALSE(LoadPricesFile("/nonexistent/prices.yaml").ok());
}

// nan, inf, 1e308 and negative prices would reach the report's money
// formatting (an abort, or null in JSON): each is an error naming file,
// line and key; the cap itself is accepted.
TEST(Prices, NonFiniteNegativeAndHugePricesAreErrors) {
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "infinity", "1e308", "-0.5", "10000.01", ".nan", ".inf", "1e", "0x10"}) {
    Result<PriceTable> r = ParsePrices(std::string("ok: 1\ng5.xlarge: ") + bad + "\n", "prices.yaml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), std::string("prices.yaml:2: \"g5.xlarge\": \"") + bad +
                                        "\" is not a non-negative number of USD per hour, at most 10000")
        << bad;
  }
  Result<PriceTable> cap = ParsePrices("big: 10000\nfree: 0\n", "prices.yaml");
  ASSERT_TRUE(cap.ok()) << cap.status().message();
  EXPECT_EQ(cap->at("big"), kMaxHourlyPriceUsd);
  double v = -1;
  EXPECT_FALSE(ParseHourlyPriceUsd("", &v));
  EXPECT_FALSE(ParseHourlyPriceUsd("1.5 ", &v));
  EXPECT_EQ(v, -1);  // untouched on failure
  EXPECT_TRUE(ParseHourlyPriceUsd("32.77", &v));
  EXPECT_DOUBLE_EQ(v, 32.77);
}

}  // namespace
}  // namespace kubeon::model
