// Controller passes in-process against kube-sim serving the bundled demo,
// plan-only (no audit store), policies from a file: a workload whose pods
// run on the nodes of two policies is reported by both and moved by
// neither; policies whose selectors share a node are both errors and
// neither is planned; /readyz follows the first pass.
#include "controller/controller.h"

#include <gtest/gtest.h>

#ifdef KUBE_SIM_BINARY

#include <fstream>
#include <sstream>

#include "kube/kubeconfig.h"
#include "kube/sim_process.h"

namespace kubeon::controller {
namespace {

const std::string kDemo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";

std::string Policy(const std::string& name, const std::string& selector) {
  return "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata:\n  name: " + name +
         "\nspec:\n  kind: Sharing\n  mode: Proposal\n" + (selector.empty() ? "" : "  nodeSelector: {" + selector + "}\n") +
         "---\n";
}

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kDemo + "cluster.json");
    Status s = sim_.Start(KUBE_SIM_BINARY, nlohmann::json::parse(in), 120000);
    ASSERT_TRUE(s.ok()) << s.message();
    auto c = sim_.AdminClient();
    ASSERT_TRUE(c.ok()) << c.status().message();
    client_ = std::move(c).value();
    policy_file_ = ::testing::TempDir() + "controller_test_policy_" + std::to_string(getpid()) + ".yaml";
  }
  void TearDown() override { std::remove(policy_file_.c_str()); }

  // One pass over `policies`; returns the views.
  std::vector<PolicyView> Pass(const std::string& policies, std::string* ready_before = nullptr,
                               std::string* ready_after = nullptr) {
    std::ofstream(policy_file_) << policies;
    ControllerOptions co;
    co.plan.kubeconfig = sim_.token_kubeconfig();
    co.plan.metrics_files = {kDemo + "history.om"};
    co.plan.prices_file = kDemo + "prices.yaml";
    co.policy_file = policy_file_;
    co.identity = "test";
    Controller c(*client_, nullptr, nullptr, log_, metrics_, views_, co);
    if (ready_before) *ready_before = c.Ready();
    c.Reconcile();
    if (ready_after) *ready_after = c.Ready();
    return views_.All();
  }

  kube::testing::SimProcess sim_;
  std::unique_ptr<kube::KubeClient> client_;
  std::string policy_file_;
  std::ostringstream log_text_;
  JsonLog log_{log_text_};
  Metrics metrics_;
  PolicyViews views_;

 public:
  ControllerTest() { DeclareControllerMetrics(metrics_); }
};

TEST_F(ControllerTest, AWorkloadSpanningTwoPoliciesIsReportedByBothAndMovedByNeither) {
  std::string before, after;
  const auto views = Pass(Policy("h100-a", "kubernetes.io/hostname: ip-10-2-1-53.ec2.internal") +
                              Policy("h100-b", "kubernetes.io/hostname: ip-10-5-42-245.ec2.internal"),
                          &before, &after);
  EXPECT_EQ(before, "not planned yet");
  EXPECT_EQ(after, "") << log_text_.str();
  ASSERT_EQ(views.size(), 2u);
  for (const PolicyView& v : views) {
    ASSERT_TRUE(v.plan) << v.name << ": " << v.error;
    bool listed = false;
    for (const auto& c : v.conflicts) listed = listed || c.find("inference/llm-8b") != std::string::npos;
    EXPECT_TRUE(listed) << v.name;
    for (const auto& w : v.plan->workloads) {
      if (w.ref.Display() != "inference/llm-8b") continue;
      EXPECT_EQ(w.decision, plan::Decision::kUnchanged) << v.name;
      EXPECT_NE(w.reason.find("policies h100-a and h100-b"), std::string::npos) << w.reason;
    }
    for (const auto& step : v.plan->schedule.steps) {
      for (const auto& o : step.owners) EXPECT_EQ(o.owner.name.find("llm-8b"), std::string::npos) << v.name;
    }
    EXPECT_EQ(metrics_.Value("kubeon_gpu_plans_total", {v.name}), 1);
  }
}

TEST_F(ControllerTest, OverlappingSelectorsAreAnErrorOnBothAndNeitherIsPlanned) {
  const auto views = Pass(Policy("everything", "") + Policy("one-node", "kubernetes.io/hostname: ip-10-2-1-53.ec2.internal"));
  ASSERT_EQ(views.size(), 2u);
  for (const PolicyView& v : views) {
    EXPECT_FALSE(v.plan) << v.name;
    EXPECT_EQ(v.error_reason, "OverlappingPolicies") << v.name << ": " << v.error;
    EXPECT_NE(v.error.find("ip-10-2-1-53.ec2.internal"), std::string::npos) << v.error;
    EXPECT_EQ(metrics_.Value("kubeon_gpu_plans_total", {v.name}), 0);
  }
}

}  // namespace
}  // namespace kubeon::controller

#else
TEST(ControllerTest, RequiresTheSimulator) { GTEST_SKIP() << "kube-sim is not part of this build"; }
#endif
