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
  EXPECT_EQ(r.status().message(), "prices.yaml:2: \"b\": \"lots\" is not a non-negative number of USD per hour");
  EXPECT_FALSE(ParsePrices("a: -3\n", "p.yaml").ok());
  EXPECT_FALSE(ParsePrices("- a\n- b\n", "p.yaml").ok());
  EXPECT_FALSE(ParsePrices("a: [1]\n", "p.yaml").ok());
  Result<PriceTable> syntax = ParsePrices("a: 1\n  b: : 2\n", "p.yaml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("p.yaml:"), std::string::npos);
  EXPECT_FALSE(LoadPricesFile("/nonexistent/prices.yaml").ok());
}

}  // namespace
}  // namespace kubeon::model
