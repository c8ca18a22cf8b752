// Tests for pdb.h: IntOrString scaling and the disruption controller's
// status arithmetic.
#include "pdb.h"

#include <gtest/gtest.h>

#include <map>

namespace kubeon::kubesim {
namespace {

json Pod(const std::string& name, bool ready, const std::string& owner_uid = "rs-1") {
  json p = {{"metadata", {{"name", name}, {"namespace", "ns"}, {"labels", {{"app", "x"}}}}},
            {"status", {{"phase", "Running"},
                        {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}};
  if (!owner_uid.empty()) {
    p["metadata"]["ownerReferences"] = json::array({{{"kind", "ReplicaSet"}, {"name", "rs"}, {"uid", owner_uid}, {"controller", true}}});
  }
  return p;
}

json Pdb(const std::string& field, const json& value) {
  return {{"metadata", {{"name", "budget"}, {"namespace", "ns"}, {"generation", 3}}},
          {"spec", {{field, value}, {"selector", {{"matchLabels", {{"app", "x"}}}}}}}};
}

ScaleFinder Scales(std::map<std::string, int64_t> replicas) {
  return [replicas](const json& pod) -> Outcome<ControllerScale> {
    std::string uid = pod["metadata"]["ownerReferences"][0]["uid"];
    auto it = replicas.find(uid);
    if (it == replicas.end()) return ApiError::Internal("found no controllers for pod");
    return ControllerScale{uid, it->second};
  };
}

PdbStatus Compute(const json& pdb, const std::vector<json>& pods, ScaleFinder f) {
  std::vector<const json*> ptrs;
  for (const auto& p : pods) ptrs.push_back(&p);
  return ComputePdbStatus(pdb, ptrs, f);
}

TEST(ScaledValueTest, IntegersAndPercentRounding) {
  EXPECT_EQ(ScaledValue(json(3), 10, true).value(), 3);
  EXPECT_EQ(ScaledValue(json("50%"), 3, true).value(), 2);   // 1.5 up
  EXPECT_EQ(ScaledValue(json("50%"), 3, false).value(), 1);  // 1.5 down
  EXPECT_EQ(ScaledValue(json("34%"), 3, true).value(), 2);   // 1.02 up
  EXPECT_EQ(ScaledValue(json("100%"), 7, true).value(), 7);
  EXPECT_EQ(ScaledValue(json("0%"), 7, true).value(), 0);
  EXPECT_FALSE(ScaledValue(json("half"), 3, true).ok());
  EXPECT_FALSE(ScaledValue(json("5"), 3, true).ok());
  EXPECT_FALSE(ScaledValue(json(1.5), 3, true).ok());
}

TEST(PdbStatusTest, MinAvailableIntegerCountsSelectedPods) {
  std::vector<json> pods = {Pod("a", true), Pod("b", true), Pod("c", false)};
  PdbStatus st = Compute(Pdb("minAvailable", 2), pods, Scales({}));
  EXPECT_EQ(st.expected_pods, 3);
  EXPECT_EQ(st.desired_healthy, 2);
  EXPECT_EQ(st.current_healthy, 2);
  EXPECT_EQ(st.disruptions_allowed, 0);
  st = Compute(Pdb("minAvailable", 1), pods, Scales({}));
  EXPECT_EQ(st.disruptions_allowed, 1);
}

TEST(PdbStatusTest, MinAvailablePercentUsesControllerScaleRoundedUp) {
  std::vector<json> pods = {Pod("a", true), Pod("b", true), Pod("c", true)};
  PdbStatus st = Compute(Pdb("minAvailable", "50%"), pods, Scales({{"rs-1", 3}}));
  EXPECT_EQ(st.expected_pods, 3);
  EXPECT_EQ(st.desired_healthy, 2);
  EXPECT_EQ(st.disruptions_allowed, 1);
  // The controller wants 5 although 3 pods exist: 50% of 5 rounds up to 3.
  st = Compute(Pdb("minAvailable", "50%"), pods, Scales({{"rs-1", 5}}));
  EXPECT_EQ(st.expected_pods, 5);
  EXPECT_EQ(st.desired_healthy, 3);
  EXPECT_EQ(st.disruptions_allowed, 0);
}

TEST(PdbStatusTest, MaxUnavailable) {
  std::vector<json> pods = {Pod("a", true), Pod("b", true), Pod("c", true), Pod("d", false)};
  PdbStatus st = Compute(Pdb("maxUnavailable", 1), pods, Scales({{"rs-1", 4}}));
  EXPECT_EQ(st.expected_pods, 4);
  EXPECT_EQ(st.desired_healthy, 3);
  EXPECT_EQ(st.current_healthy, 3);
  EXPECT_EQ(st.disruptions_allowed, 0);
  st = Compute(Pdb("maxUnavailable", "30%"), pods, Scales({{"rs-1", 4}}));  // 1.2 rounds up to 2
  EXPECT_EQ(st.desired_healthy, 2);
  EXPECT_EQ(st.disruptions_allowed, 1);
  st = Compute(Pdb("maxUnavailable", 10), pods, Scales({{"rs-1", 4}}));
  EXPECT_EQ(st.desired_healthy, 0);
  EXPECT_EQ(st.disruptions_allowed, 3);
}

TEST(PdbStatusTest, ScalesOfDistinctControllersAdd) {
  std::vector<json> pods = {Pod("a", true, "rs-1"), Pod("b", true, "rs-1"), Pod("c", true, "rs-2")};
  PdbStatus st = Compute(Pdb("maxUnavailable", 1), pods, Scales({{"rs-1", 2}, {"rs-2", 1}}));
  EXPECT_EQ(st.expected_pods, 3);
  EXPECT_EQ(st.disruptions_allowed, 1);
}

TEST(PdbStatusTest, MissingControllerFailsSafe) {
  std::vector<json> pods = {Pod("a", true, ""), Pod("b", true)};
  PdbStatus st = Compute(Pdb("maxUnavailable", 1), pods, Scales({{"rs-1", 2}}));
  EXPECT_FALSE(st.sync_error.empty());
  EXPECT_EQ(st.disruptions_allowed, 0);
  st = Compute(Pdb("minAvailable", "10%"), {Pod("b", true, "gone")}, Scales({}));
  EXPECT_FALSE(st.sync_error.empty());
  EXPECT_EQ(st.disruptions_allowed, 0);
}

TEST(PdbStatusTest, NoPodsMeansNoDisruptions) {
  PdbStatus st = Compute(Pdb("maxUnavailable", 1), {}, Scales({}));
  EXPECT_EQ(st.expected_pods, 0);
  EXPECT_EQ(st.disruptions_allowed, 0);
}

TEST(PdbStatusTest, DeletingPodsAreNotHealthy) {
  json deleting = Pod("a", true);
  deleting["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  PdbStatus st = Compute(Pdb("minAvailable", 1), {deleting, Pod("b", true)}, Scales({}));
  EXPECT_EQ(st.current_healthy, 1);
  EXPECT_EQ(st.disruptions_allowed, 0);
}

TEST(PdbStatusTest, WriteToSetsFieldsAndCondition) {
  json pdb = Pdb("minAvailable", 1);
  PdbStatus st{2, 1, 2, 1, ""};
  st.WriteTo(&pdb, "2024-01-01T00:00:00Z");
  EXPECT_EQ(pdb["status"]["disruptionsAllowed"], 1);
  EXPECT_EQ(pdb["status"]["observedGeneration"], 3);
  EXPECT_EQ(pdb["status"]["conditions"][0]["reason"], "SufficientPods");
  PdbStatus blocked{2, 2, 2, 0, ""};
  blocked.WriteTo(&pdb, "2024-01-02T00:00:00Z");
  EXPECT_EQ(pdb["status"]["conditions"].size(), 1u);
  EXPECT_EQ(pdb["status"]["conditions"][0]["status"], "False");
  EXPECT_EQ(pdb["status"]["conditions"][0]["lastTransitionTime"], "2024-01-02T00:00:00Z");
}

TEST(PdbSelectsPodTest, NamespaceAndSelector) {
  json pdb = Pdb("minAvailable", 1);
  EXPECT_TRUE(PdbSelectsPod(pdb, Pod("a", true)));
  json other = Pod("a", true);
  other["metadata"]["namespace"] = "elsewhere";
  EXPECT_FALSE(PdbSelectsPod(pdb, other));
  pdb["spec"].erase("selector");
  EXPECT_FALSE(PdbSelectsPod(pdb, Pod("a", true)));  // no selector: nothing
  pdb["spec"]["selector"] = json::object();
  EXPECT_TRUE(PdbSelectsPod(pdb, Pod("a", true)));  // empty selector: everything
}

}  // namespace
}  // namespace kubeon::kubesim
