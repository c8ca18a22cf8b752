// Tests for selector.h: label selector syntax and semantics, metav1
// LabelSelector objects, field selectors and node affinity terms.
#include "selector.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

json L(std::initializer_list<std::pair<const std::string, std::string>> kv) {
  json j = json::object();
  for (const auto& [k, v] : kv) j[k] = v;
  return j;
}

bool Match(const std::string& sel, const json& labels) {
  auto s = LabelSelector::Parse(sel);
  EXPECT_TRUE(s.ok()) << sel << ": " << s.error().message;
  return s.ok() && s.value().Matches(labels);
}

TEST(LabelSelectorTest, EqualityOperators) {
  json labels = L({{"app", "web"}, {"tier", "fe"}});
  EXPECT_TRUE(Match("app=web", labels));
  EXPECT_TRUE(Match("app==web", labels));
  EXPECT_FALSE(Match("app=db", labels));
  EXPECT_TRUE(Match("app!=db", labels));
  EXPECT_FALSE(Match("app!=web", labels));
  EXPECT_TRUE(Match("missing!=x", labels));  // != matches absent keys
  EXPECT_TRUE(Match("app=web,tier=fe", labels));
  EXPECT_FALSE(Match("app=web,tier=be", labels));
  EXPECT_TRUE(Match("", labels));
}

TEST(LabelSelectorTest, SetOperatorsAndExistence) {
  json labels = L({{"env", "prod"}, {"gpu", "a100"}});
  EXPECT_TRUE(Match("env in (prod, staging)", labels));
  EXPECT_FALSE(Match("env in (dev)", labels));
  EXPECT_TRUE(Match("env notin (dev,test)", labels));
  EXPECT_FALSE(Match("env notin (prod)", labels));
  EXPECT_TRUE(Match("other notin (x)", labels));
  EXPECT_TRUE(Match("gpu", labels));
  EXPECT_FALSE(Match("!gpu", labels));
  EXPECT_TRUE(Match("!cpu", labels));
  EXPECT_TRUE(Match("env in (prod),gpu,!cpu,env!=dev", labels));
}

TEST(LabelSelectorTest, NumericComparisons) {
  json labels = L({{"replicas", "4"}});
  EXPECT_TRUE(Match("replicas>3", labels));
  EXPECT_FALSE(Match("replicas>4", labels));
  EXPECT_TRUE(Match("replicas<5", labels));
}

TEST(LabelSelectorTest, PrefixedKeysAndEmptyValues) {
  json labels = L({{"nvidia.com/mig.config", "all-1g.10gb"}, {"empty", ""}});
  EXPECT_TRUE(Match("nvidia.com/mig.config=all-1g.10gb", labels));
  EXPECT_TRUE(Match("empty=", labels));
  EXPECT_FALSE(Match("nvidia.com/mig.config=", labels));
}

TEST(LabelSelectorTest, SyntaxErrorsAreBadRequests) {
  for (const char* bad : {"=x", "app in prod", "app in (a", "app=web,", "a b", "app>x", "Bad_Prefix!/x=1"}) {
    auto s = LabelSelector::Parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_EQ(s.error().code, 400) << bad;
    }
  }
}

TEST(LabelSelectorTest, FromJsonMatchLabelsAndExpressions) {
  json sel = json::parse(R"({"matchLabels": {"app": "trainer"},
    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                         {"key": "legacy", "operator": "DoesNotExist"}]})");
  auto s = LabelSelector::FromJson(sel);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s.value().Matches(L({{"app", "trainer"}, {"tier", "b"}})));
  EXPECT_FALSE(s.value().Matches(L({{"app", "trainer"}, {"tier", "c"}})));
  EXPECT_FALSE(s.value().Matches(L({{"app", "trainer"}, {"tier", "a"}, {"legacy", "1"}})));
  EXPECT_TRUE(LabelSelector::FromJson(json::object()).value().Matches(L({{"x", "y"}})));
  EXPECT_FALSE(LabelSelector::FromJson(json::parse(R"({"matchExpressions":[{"key":"a","operator":"In"}]})")).ok());
  EXPECT_FALSE(LabelSelector::FromJson(json::parse(R"({"matchExpressions":[{"key":"a","operator":"Near"}]})")).ok());
}

TEST(FieldSelectorTest, PodFields) {
  json pod = json::parse(R"({"metadata": {"name": "p1", "namespace": "ml"},
                              "spec": {"nodeName": "gpu-a"}, "status": {"phase": "Running"}})");
  auto ok = [&](const std::string& s) {
    auto f = FieldSelector::Parse(s, "pods");
    EXPECT_TRUE(f.ok()) << s;
    return f.ok() && f.value().Matches(pod);
  };
  EXPECT_TRUE(ok("spec.nodeName=gpu-a"));
  EXPECT_FALSE(ok("spec.nodeName=gpu-b"));
  EXPECT_TRUE(ok("spec.nodeName!=gpu-b,status.phase=Running"));
  EXPECT_TRUE(ok("metadata.name==p1,metadata.namespace=ml"));
  EXPECT_FALSE(ok("status.phase!=Running"));
  EXPECT_EQ(FieldSelector::Parse("spec.nodeName=gpu-a", "pods").value().RequiredValue("spec.nodeName"), "gpu-a");
}

TEST(FieldSelectorTest, EmptyNodeNameMatchesUnscheduledPods) {
  json pod = json::parse(R"({"metadata": {"name": "p1", "namespace": "ml"}, "spec": {}})");
  EXPECT_TRUE(FieldSelector::Parse("spec.nodeName=", "pods").value().Matches(pod));
}

TEST(FieldSelectorTest, EscapedValues) {
  json obj = json::parse(R"({"metadata": {"name": "a,b=c"}})");
  auto f = FieldSelector::Parse("metadata.name=a\\,b\\=c", "configmaps");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f.value().Matches(obj));
}

TEST(FieldSelectorTest, UnknownFieldIsRejectedWithItsName) {
  auto f = FieldSelector::Parse("spec.nodeName=x", "nodes");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, 400);
  EXPECT_NE(f.error().message.find("spec.nodeName"), std::string::npos);
  EXPECT_FALSE(FieldSelector::Parse("nonsense", "pods").ok());
}

TEST(FieldSelectorTest, NodeUnschedulable) {
  json cordoned = json::parse(R"({"metadata": {"name": "n"}, "spec": {"unschedulable": true}})");
  json open = json::parse(R"({"metadata": {"name": "n"}, "spec": {}})");
  auto f = FieldSelector::Parse("spec.unschedulable=false", "nodes").value();
  EXPECT_FALSE(f.Matches(cordoned));
  EXPECT_TRUE(f.Matches(open));
}

TEST(NodeSelectorTermTest, ExpressionsAndFields) {
  json node = json::parse(R"({"metadata": {"name": "gpu-a", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "gpus": "8"}}})");
  EXPECT_TRUE(MatchesNodeSelectorTerm(json::parse(R"({"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-A100-SXM4-80GB"]}]})"), node));
  EXPECT_FALSE(MatchesNodeSelectorTerm(json::parse(R"({"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "NotIn", "values": ["NVIDIA-A100-SXM4-80GB"]}]})"), node));
  EXPECT_TRUE(MatchesNodeSelectorTerm(json::parse(R"({"matchExpressions": [{"key": "gpus", "operator": "Gt", "values": ["4"]}]})"), node));
  EXPECT_TRUE(MatchesNodeSelectorTerm(json::parse(R"({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-a"]}]})"), node));
  EXPECT_FALSE(MatchesNodeSelectorTerm(json::parse(R"({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-b"]}]})"), node));
  EXPECT_FALSE(MatchesNodeSelectorTerm(json::object(), node));
}

}  // namespace
}  // namespace kubeon::kubesim
