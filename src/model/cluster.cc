// See cluster.h.
#include "model/cluster.h"

#include <algorithm>

namespace kubeon::model {

bool LabelSelector::Matches(const Labels& labels) const {
  if (match_labels.empty() && match_expressions.empty()) return empty_selects_all;
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& req : match_expressions) {
    auto it = labels.find(req.key);
    const bool has = it != labels.end();
    const bool in = has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
    if (req.op == "In" && !in) return false;
    if (req.op == "NotIn" && in) return false;
    if (req.op == "Exists" && !has) return false;
    if (req.op == "DoesNotExist" && has) return false;
  }
  return true;
}

const Node* Cluster::FindNode(const std::string& name) const {
  for (const auto& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

const ConfigMap* Cluster::FindConfigMap(const std::string& namespace_, const std::string& name) const {
  for (const auto& c : config_maps) {
    if (c.namespace_ == namespace_ && c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace kubeon::model
