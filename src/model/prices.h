// Node prices file: instance type -> USD per hour, YAML (or JSON, a subset):
//
//   # instance type: USD per hour
//   p4d.24xlarge: 32.77
//   g5.12xlarge: 5.672
//
// A node's price is its annotation kubeon.io/hourly-price-usd when present,
// else the entry for its node.kubernetes.io/instance-type.  Contract: every
// value must be a non-negative number; errors name the file, line and key.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "model/status.h"

namespace kubeon::model {

using PriceTable = std::map<std::string, double>;

Result<PriceTable> ParsePrices(std::string_view text, std::string_view source_name);
Result<PriceTable> LoadPricesFile(const std::string& path);

}  // namespace kubeon::model
