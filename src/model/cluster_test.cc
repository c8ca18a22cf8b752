// Tests for cluster.h's small helpers: label selectors, tolerations and the
// scheduler filters of model::Placement (nodeSelector, required node
// affinity, taints, cordoned nodes), and PinnedNode.
#include "model/cluster.h"

#include <gtest/gtest.h>

namespace kubeon::model {
namespace {

Node MakeNode(const std::string& name) {
  Node n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}, {"zone", "a"}, {"gpus", "8"}};
  return n;
}

TEST(Toleration, MatchesTaints) {
  const Taint t{"gpu", "x", "NoSchedule"};
  EXPECT_TRUE((Toleration{"gpu", "Equal", "x", "NoSchedule"}.Tolerates(t)));
  EXPECT_TRUE((Toleration{"gpu", "Equal", "x", ""}.Tolerates(t)));
  EXPECT_FALSE((Toleration{"gpu", "Equal", "y", ""}.Tolerates(t)));
  EXPECT_FALSE((Toleration{"gpu", "Equal", "x", "NoExecute"}.Tolerates(t)));
  EXPECT_TRUE((Toleration{"gpu", "Exists", "", ""}.Tolerates(t)));
  EXPECT_TRUE((Toleration{"", "Exists", "", ""}.Tolerates(t)));
  EXPECT_FALSE((Toleration{"other", "Exists", "", ""}.Tolerates(t)));
}

TEST(Placement, NodeSelectorAffinityTaintsAndCordon) {
  Node n = MakeNode("n1");
  Placement any;
  EXPECT_TRUE(any.AllowsNode(n));
  Placement sel;
  sel.node_selector["zone"] = "b";
  EXPECT_FALSE(sel.AllowsNode(n));
  sel.node_selector["zone"] = "a";
  EXPECT_TRUE(sel.AllowsNode(n));
  Placement aff;
  NodeSelectorTerm t1, t2;
  t1.match_expressions.push_back({"zone", "In", {"b"}});
  t2.match_expressions.push_back({"gpus", "Gt", {"4"}});
  aff.required_node_terms = {t1};
  EXPECT_FALSE(aff.AllowsNode(n));
  aff.required_node_terms = {t1, t2};  // terms are ORed
  EXPECT_TRUE(aff.AllowsNode(n));
  NodeSelectorTerm t3;
  t3.match_expressions.push_back({"zone", "NotIn", {"a"}});
  aff.required_node_terms = {t3};
  EXPECT_FALSE(aff.AllowsNode(n));
  n.taints.push_back({"dedicated", "ml", "NoSchedule"});
  EXPECT_FALSE(any.AllowsNode(n));
  Placement tol;
  tol.tolerations.push_back({"dedicated", "Equal", "ml", "NoSchedule"});
  EXPECT_TRUE(tol.AllowsNode(n));
  n.taints.push_back({"soft", "", "PreferNoSchedule"});  // not a filter
  EXPECT_TRUE(tol.AllowsNode(n));
  n.unschedulable = true;
  EXPECT_FALSE(tol.AllowsNode(n));
}

TEST(Placement, PinnedNode) {
  Placement p;
  EXPECT_EQ(p.PinnedNode(), "");
  NodeSelectorTerm host, field, zone;
  host.match_expressions.push_back({"kubernetes.io/hostname", "In", {"n1"}});
  field.match_fields.push_back({"metadata.name", "In", {"n1"}});
  zone.match_expressions.push_back({"zone", "In", {"a"}});
  p.required_node_terms = {host};
  EXPECT_EQ(p.PinnedNode(), "n1");
  p.required_node_terms = {field, host};
  EXPECT_EQ(p.PinnedNode(), "n1");
  p.required_node_terms = {host, zone};  // another term allows other nodes
  EXPECT_EQ(p.PinnedNode(), "");
  NodeSelectorTerm two;
  two.match_expressions.push_back({"kubernetes.io/hostname", "In", {"n1", "n2"}});
  p.required_node_terms = {two};
  EXPECT_EQ(p.PinnedNode(), "");
  Node n1 = MakeNode("n1"), n2 = MakeNode("n2");
  p.required_node_terms = {field};
  EXPECT_TRUE(p.AllowsNode(n1));
  EXPECT_FALSE(p.AllowsNode(n2));
}

}  // namespace
}  // namespace kubeon::model
