// See prices.h.
#include "model/prices.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include <yaml-cpp/yaml.h>

#include "model/input_file.h"

namespace kubeon::model {

bool ParseHourlyPriceUsd(std::string_view text, double* out) {
  double price = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), price);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return false;
  if (!std::isfinite(price) || price < 0 || price > kMaxHourlyPriceUsd) return false;  // nan, inf, 1e308, -1
  *out = price;
  return true;
}

std::string HourlyPriceRule() {
  char cap[32];
  std::snprintf(cap, sizeof(cap), "%g", kMaxHourlyPriceUsd);
  return std::string("a non-negative number of USD per hour, at most ") + cap;
}

Result<PriceTable> ParsePrices(std::string_view text, std::string_view source_name) {
  const std::string src(source_name);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Status::Error(src + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return PriceTable{};
  if (!root.IsMap()) {
    return Status::Error(src + ":" + std::to_string(root.Mark().line + 1) +
                         ": expected a map of instance type to USD per hour");
  }
  PriceTable out;
  for (const auto& kv : root) {
    const std::string line = src + ":" + std::to_string(kv.first.Mark().line + 1);
    if (!kv.first.IsScalar()) return Status::Error(line + ": keys must be instance type names");
    const std::string key = kv.first.Scalar();
    if (!kv.second.IsScalar()) return Status::Error(line + ": \"" + key + "\": expected a number of USD per hour");
    const std::string& v = kv.second.Scalar();
    double price = 0;
    if (!ParseHourlyPriceUsd(v, &price)) {
      return Status::Error(line + ": \"" + key + "\": \"" + v + "\" is not " + HourlyPriceRule());
    }
    if (!out.emplace(key, price).second) return Status::Error(line + ": \"" + key + "\" appears twice");
  }
  return out;
}

Result<PriceTable> LoadPricesFile(const std::string& path) {
  Result<std::string> text = ReadInputFile(path, "prices file");
  if (!text.ok()) return text.status();
  return ParsePrices(*text, path);
}

}  // namespace kubeon::model
