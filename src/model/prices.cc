// See prices.h.
#include "model/prices.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace kubeon::model {

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
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), price);
    if (ec != std::errc() || ptr != v.data() + v.size() || price < 0) {
      return Status::Error(line + ": \"" + key + "\": \"" + v + "\" is not a non-negative number of USD per hour");
    }
    if (!out.emplace(key, price).second) return Status::Error(line + ": \"" + key + "\" appears twice");
  }
  return out;
}

Result<PriceTable> LoadPricesFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open prices file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return ParsePrices(buf.str(), path);
}

}  // namespace kubeon::model
