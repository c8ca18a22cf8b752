// Node prices file: instance type -> USD per hour, YAML (or JSON, a subset):
//
//   # instance type: USD per hour
//   p4d.24xlarge: 32.77
//   g5.12xlarge: 5.672
//
// A node's price is its annotation kubeon.io/hourly-price-usd when present
// and valid, else the entry for its node.kubernetes.io/instance-type.
// Contract: every value must be a finite number from 0 to kMaxHourlyPriceUsd
// (no nan, inf, 1e308 or negative); errors name the file, line and key.
// ParseHourlyPriceUsd is the one rule for both the file and the annotation
// (snapshot_json.cc), so a price that reaches the planner is always finite
// and bounded, and the money the report prints cannot overflow.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "model/status.h"

namespace kubeon::model {

// The largest hourly price a node may have, in USD.  The dearest cloud GPU
// nodes cost about $100 an hour; the cap leaves two orders of magnitude and
// keeps every sum the report makes (price x 730 h x nodes) far from overflow.
inline constexpr double kMaxHourlyPriceUsd = 10000;

using PriceTable = std::map<std::string, double>;

// Parses an hourly price: a decimal number (as std::from_chars reads it) that
// is finite and from 0 to kMaxHourlyPriceUsd.  Returns false for anything
// else; *out is set only on success.
bool ParseHourlyPriceUsd(std::string_view text, double* out);
// What ParseHourlyPriceUsd accepts, for messages: "a non-negative number of USD per hour, at most 10000".
std::string HourlyPriceRule();

Result<PriceTable> ParsePrices(std::string_view text, std::string_view source_name);
// REQUIRES: path names a regular file or a pipe (see input_file.h).
Result<PriceTable> LoadPricesFile(const std::string& path);

}  // namespace kubeon::model
