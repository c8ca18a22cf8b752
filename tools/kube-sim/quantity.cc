// See quantity.h.  Suffixes follow k8s.io/apimachinery/pkg/api/resource.
#include "quantity.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kubeon::kubesim {

std::optional<double> ParseQuantity(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  if (text[i] == '+' || text[i] == '-') ++i;
  size_t digits_start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == digits_start) return std::nullopt;
  char* end = nullptr;
  std::string number = text.substr(0, i);
  double v = std::strtod(number.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  std::string suffix = text.substr(i);
  static const std::map<std::string, double> kSuffix = {
      {"", 1},           {"n", 1e-9},          {"u", 1e-6},          {"m", 1e-3},
      {"k", 1e3},        {"M", 1e6},           {"G", 1e9},           {"T", 1e12},
      {"P", 1e15},       {"E", 1e18},          {"Ki", 1024.0},       {"Mi", 1048576.0},
      {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0},
      {"Ei", 1152921504606846976.0}};
  if (auto it = kSuffix.find(suffix); it != kSuffix.end()) return v * it->second;
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    char* e_end = nullptr;
    long exp = std::strtol(suffix.c_str() + 1, &e_end, 10);
    if (e_end != nullptr && *e_end == '\0') return v * std::pow(10.0, static_cast<double>(exp));
  }
  return std::nullopt;
}

std::optional<double> QuantityOf(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return ParseQuantity(value.get<std::string>());
  return std::nullopt;
}

namespace {

ResourceList ContainerRequests(const nlohmann::json& c) {
  ResourceList out;
  const auto* res = c.contains("resources") && c["resources"].is_object() ? &c["resources"] : nullptr;
  if (res == nullptr) return out;
  for (const char* section : {"limits", "requests"}) {  // requests override limits
    if (!res->contains(section) || !(*res)[section].is_object()) continue;
    for (const auto& [name, q] : (*res)[section].items()) {
      if (auto v = QuantityOf(q)) out[name] = *v;
    }
  }
  return out;
}

}  // namespace

ResourceList PodRequests(const nlohmann::json& pod) {
  ResourceList sum;
  ResourceList init_max;
  const auto* spec = pod.contains("spec") && pod["spec"].is_object() ? &pod["spec"] : nullptr;
  if (spec == nullptr) return sum;
  if (spec->contains("containers") && (*spec)["containers"].is_array()) {
    for (const auto& c : (*spec)["containers"]) {
      for (const auto& [k, v] : ContainerRequests(c)) sum[k] += v;
    }
  }
  if (spec->contains("initContainers") && (*spec)["initContainers"].is_array()) {
    for (const auto& c : (*spec)["initContainers"]) {
      for (const auto& [k, v] : ContainerRequests(c)) init_max[k] = std::max(init_max[k], v);
    }
  }
  for (const auto& [k, v] : init_max) sum[k] = std::max(sum[k], v);
  return sum;
}

ResourceList NodeAllocatable(const nlohmann::json& node) {
  ResourceList out;
  const nlohmann::json* status = node.contains("status") ? &node["status"] : nullptr;
  if (status == nullptr || !status->is_object()) return out;
  const char* field = status->contains("allocatable") ? "allocatable" : "capacity";
  if (!status->contains(field) || !(*status)[field].is_object()) return out;
  for (const auto& [name, q] : (*status)[field].items()) {
    if (auto v = QuantityOf(q)) out[name] = *v;
  }
  return out;
}

}  // namespace kubeon::kubesim
