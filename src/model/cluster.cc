// See cluster.h.
#include "model/cluster.h"

#include <algorithm>
#include <exception>
#include <string>

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

bool Toleration::Tolerates(const Taint& t) const {
  if (!effect.empty() && effect != t.effect) return false;
  if (op == "Exists") return key.empty() || key == t.key;
  return key == t.key && value == t.value;  // Equal (the default)
}

namespace {

// One requirement of a node selector term against a value ("" and !has when absent).
bool RequirementHolds(const NodeSelectorRequirement& r, bool has, std::string_view value) {
  const bool in = has && std::find(r.values.begin(), r.values.end(), value) != r.values.end();
  if (r.op == "In") return in;
  if (r.op == "NotIn") return !in;
  if (r.op == "Exists") return has;
  if (r.op == "DoesNotExist") return !has;
  if ((r.op == "Gt" || r.op == "Lt") && has && r.values.size() == 1) {
    try {
      const long long v = std::stoll(std::string(value));
      const long long bound = std::stoll(r.values.front());
      return r.op == "Gt" ? v > bound : v < bound;
    } catch (const std::exception&) {
      return false;
    }
  }
  return false;
}

bool TermHolds(const NodeSelectorTerm& t, const Node& node) {
  if (t.match_expressions.empty() && t.match_fields.empty()) return false;  // an empty term matches nothing
  for (const auto& r : t.match_expressions) {
    auto it = node.labels.find(r.key);
    if (!RequirementHolds(r, it != node.labels.end(), it == node.labels.end() ? std::string_view() : it->second)) return false;
  }
  for (const auto& r : t.match_fields) {
    if (!RequirementHolds(r, r.key == "metadata.name", r.key == "metadata.name" ? std::string_view(node.name) : std::string_view())) return false;
  }
  return true;
}

// The single node a term names ("" when it names none or several).
std::string TermNode(const NodeSelectorTerm& t) {
  auto single = [](const std::vector<NodeSelectorRequirement>& reqs, const char* key) -> std::string {
    for (const auto& r : reqs) {
      if (r.key == key && r.op == "In" && r.values.size() == 1) return r.values.front();
    }
    return "";
  };
  std::string n = single(t.match_fields, "metadata.name");
  return n.empty() ? single(t.match_expressions, "kubernetes.io/hostname") : n;
}

}  // namespace

bool Placement::AllowsNode(const Node& node) const {
  if (node.unschedulable) return false;
  for (const auto& [k, v] : node_selector) {
    auto it = node.labels.find(k);
    if (it == node.labels.end() || it->second != v) return false;
  }
  if (!required_node_terms.empty() &&
      std::none_of(required_node_terms.begin(), required_node_terms.end(),
                   [&](const NodeSelectorTerm& t) { return TermHolds(t, node); })) {
    return false;
  }
  for (const auto& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (std::none_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& tol) { return tol.Tolerates(taint); })) {
      return false;
    }
  }
  return true;
}

std::string Placement::PinnedNode() const {
  if (required_node_terms.empty()) return "";
  const std::string first = TermNode(required_node_terms.front());
  for (const auto& t : required_node_terms) {
    if (first.empty() || TermNode(t) != first) return "";
  }
  return first;
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
