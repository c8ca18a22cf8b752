// Label and field selectors with Kubernetes semantics.
//
// LabelSelector::Parse accepts the query-string syntax of
// k8s.io/apimachinery/pkg/labels: comma-separated requirements
//   key=v  key==v  key!=v  key in (a,b)  key notin (a,b)  key  !key  key>1  key<1
// FromJson accepts a metav1.LabelSelector object (matchLabels +
// matchExpressions).  "!=" and "notin" also match objects without the key,
// as in Kubernetes.  An empty selector matches everything.
//
// FieldSelector::Parse accepts "f=v", "f==v", "f!=v" joined by commas (with
// "\," "\=" "\\" escapes); only the fields FieldValue() knows for the
// resource are allowed, anything else is a 400 error naming the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

enum class SelectorOp { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::kEquals;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  LabelSelector() = default;
  static Outcome<LabelSelector> Parse(const std::string& text);
  // REQUIRES: `selector` is a metav1.LabelSelector object (not null).
  static Outcome<LabelSelector> FromJson(const json& selector);

  // `labels` is a JSON object of string values (missing = no labels).
  bool Matches(const json& labels) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<Requirement>& requirements() const { return reqs_; }

 private:
  std::vector<Requirement> reqs_;
};

class FieldSelector {
 public:
  FieldSelector() = default;
  // `store_id` picks the supported fields ("pods", "nodes", ...).
  static Outcome<FieldSelector> Parse(const std::string& text, const std::string& store_id);
  bool Matches(const json& obj) const;
  bool empty() const { return reqs_.empty(); }
  // The value required by an "=" term on `field`, if any (used to narrow
  // lists, e.g. metadata.name on a watch).
  std::optional<std::string> RequiredValue(const std::string& field) const;

 private:
  std::string store_id_;
  std::vector<Requirement> reqs_;  // op is kEquals or kNotEquals
};

// The value of a selectable field of an object of type `store_id`, or
// nullopt if the field is not selectable for that type.
std::optional<std::string> FieldValue(const std::string& store_id, const json& obj,
                                      const std::string& field);

// Node affinity: a v1.NodeSelectorTerm (matchExpressions over labels,
// matchFields over metadata.name) against a node object.  An empty term
// matches nothing, as in the scheduler.
bool MatchesNodeSelectorTerm(const json& term, const json& node);

}  // namespace kubeon::kubesim
