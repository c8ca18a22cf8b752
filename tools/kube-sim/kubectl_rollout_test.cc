// kubectl-driven end-to-end tests of pod termination and rollouts, with the
// oldest and newest kubectl this project supports (kubectl.1.27 and
// kubectl.1.33; skipped when not installed): `kubectl delete pod` shows
// Terminating and waits out the grace period; `kubectl set image` and
// `kubectl rollout restart` and `kubectl rollout undo` of a Deployment and `kubectl patch` of a
// StatefulSet roll out, and `kubectl rollout status` waits and finishes (or
// fails once the Deployment's progress deadline has passed).  `kubectl
// drain` against terminating pods and a PDB is in kubectl_compat_test.
// kube-sim runs with podStartupDelayMs 300 and the pods' grace periods are
// 1-2 s, so each rollout is observable but short.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::RunResult;

class KubectlRolloutTest : public testing::KubectlSimTest<std::string> {
 protected:
  void SetUp() override { StartSim(GetParam(), {"--settings", R"({"podStartupDelayMs": 300})"}); }
  json Get(std::vector<std::string> args) {
    args.insert(args.end(), {"-o", "json"});
    RunResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  // Creates the object from a manifest file (kubectl validates it against
  // kube-sim's OpenAPI schema).
  void Create(const json& obj) {
    const std::string path = dir_ + "/" + obj["metadata"]["name"].get<std::string>() + ".json";
    std::ofstream(path) << obj.dump();
    RunResult r = Kubectl({"create", "-f", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // `kubectl rollout status`, which must succeed; returns its output.
  std::string RolloutStatus(const std::string& what, const std::string& ns) {
    RunResult r = Kubectl({"rollout", "status", what, "-n", ns, "--timeout=25s"}, 40);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return r.out;
  }
  std::vector<std::string> Images(const std::string& ns, const std::string& selector) {
    std::vector<std::string> out;
    const json pods = Get({"get", "pods", "-n", ns, "-l", selector});
    for (const auto& p : pods["items"]) {
      out.push_back(p["spec"]["containers"][0]["image"].get<std::string>() + (p["metadata"].contains("deletionTimestamp") ? "-terminating" : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static json Template(const std::string& app, int grace) {
    return {{"metadata", {{"labels", {{"app", app}}}}},
            {"spec", {{"terminationGracePeriodSeconds", grace},
                      {"containers", json::array({{{"name", "c"}, {"image", "v1"}}})}}}};
  }

};

TEST_P(KubectlRolloutTest, DeletePodShowsTerminatingAndWaitsTheGrace) {
  for (const char* name : {"slow", "slower"}) {
    Create({{"apiVersion", "v1"}, {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "ml"}}},
            {"spec", {{"terminationGracePeriodSeconds", 2}, {"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}});
  }
  RunResult waited = Kubectl({"wait", "--for=condition=Ready", "pod/slow", "pod/slower", "-n", "ml", "--timeout=20s"});
  ASSERT_EQ(waited.exit_code, 0) << waited.err;
  // Without waiting: the pod is listed as Terminating.
  RunResult del = Kubectl({"delete", "pod", "slow", "-n", "ml", "--wait=false"});
  ASSERT_EQ(del.exit_code, 0) << del.err;
  RunResult table = Kubectl({"get", "pod", "slow", "-n", "ml"});
  EXPECT_NE(table.out.find("Terminating"), std::string::npos) << table.out << table.err;
  json pod = Get({"get", "pod", "slow", "-n", "ml"});
  EXPECT_EQ(pod["metadata"]["deletionGracePeriodSeconds"], 2);
  // Waiting: kubectl returns once the pod is gone, after its grace period.
  const auto start = std::chrono::steady_clock::now();
  RunResult blocking = Kubectl({"delete", "pod", "slower", "-n", "ml"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(blocking.exit_code, 0) << blocking.err;
  EXPECT_GE(took, 1.5);
  EXPECT_NE(Kubectl({"get", "pod", "slower", "-n", "ml"}).exit_code, 0);
  EXPECT_NE(Kubectl({"get", "pod", "slow", "-n", "ml"}).exit_code, 0);
}

TEST_P(KubectlRolloutTest, DeploymentSetImageAndRestart) {
  Create({{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "ml"}}},
          {"spec", {{"replicas", 3}, {"selector", {{"matchLabels", {{"app", "web"}}}}}, {"template", Template("web", 1)}}}});
  EXPECT_NE(RolloutStatus("deployment/web", "ml").find("successfully rolled out"), std::string::npos);
  json d = Get({"get", "deployment", "web", "-n", "ml"});
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");  // defaulted by the API server
  EXPECT_EQ(d["spec"]["progressDeadlineSeconds"], 600);

  RunResult set = Kubectl({"set", "image", "deployment/web", "c=v2", "-n", "ml"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  std::string out = RolloutStatus("deployment/web", "ml");
  EXPECT_NE(out.find("Waiting for deployment \"web\" rollout to finish"), std::string::npos) << out;
  EXPECT_NE(out.find("deployment \"web\" successfully rolled out"), std::string::npos) << out;
  d = Get({"get", "deployment", "web", "-n", "ml"});
  EXPECT_EQ(d["status"]["updatedReplicas"], 3);
  EXPECT_EQ(d["status"]["availableReplicas"], 3);
  EXPECT_EQ(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
  std::vector<std::string> images = Images("ml", "app=web");
  images.erase(std::remove(images.begin(), images.end(), "v1-terminating"), images.end());
  EXPECT_EQ(images, (std::vector<std::string>{"v2", "v2", "v2"}));

  RunResult restart = Kubectl({"rollout", "restart", "deployment/web", "-n", "ml"});
  ASSERT_EQ(restart.exit_code, 0) << restart.err;
  EXPECT_NE(RolloutStatus("deployment/web", "ml").find("successfully rolled out"), std::string::npos);
  d = Get({"get", "deployment", "web", "-n", "ml"});
  EXPECT_EQ(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3");
  EXPECT_EQ(Get({"get", "replicasets", "-n", "ml", "-l", "app=web"})["items"].size(), 3u);

  // undo goes back to revision 2's template: its ReplicaSet is reused as revision 4.
  RunResult undo = Kubectl({"rollout", "undo", "deployment/web", "-n", "ml"});
  ASSERT_EQ(undo.exit_code, 0) << undo.err;
  EXPECT_NE(RolloutStatus("deployment/web", "ml").find("successfully rolled out"), std::string::npos);
  d = Get({"get", "deployment", "web", "-n", "ml"});
  EXPECT_EQ(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "4");
  EXPECT_FALSE(d["spec"]["template"]["metadata"].contains("annotations")) << d["spec"]["template"];
  EXPECT_EQ(Get({"get", "replicasets", "-n", "ml", "-l", "app=web"})["items"].size(), 3u);

  // New pods that can never be scheduled: rollout status fails once the
  // progress deadline has passed.
  RunResult stuck = Kubectl({"patch", "deployment", "web", "-n", "ml", "--type=merge", "-p",
                             R"({"spec":{"progressDeadlineSeconds":2,"template":{"spec":{"nodeSelector":{"pool":"none"}}}}})"});
  ASSERT_EQ(stuck.exit_code, 0) << stuck.err;
  RunResult failed = Kubectl({"rollout", "status", "deployment/web", "-n", "ml", "--timeout=25s"}, 40);
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_NE(failed.err.find("deployment \"web\" exceeded its progress deadline"), std::string::npos) << failed.out << failed.err;
}

TEST_P(KubectlRolloutTest, StatefulSetPatchRollsFromTheHighestOrdinal) {
  Create({{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"},
          {"metadata", {{"name", "db"}, {"namespace", "serving"}}},
          {"spec", {{"replicas", 3}, {"serviceName", "db"}, {"selector", {{"matchLabels", {{"app", "db"}}}}},
                    {"template", Template("db", 1)}}}});
  RolloutStatus("statefulset/db", "serving");
  json sts = Get({"get", "statefulset", "db", "-n", "serving"});
  EXPECT_EQ(sts["status"]["readyReplicas"], 3);
  RunResult patched = Kubectl({"patch", "statefulset", "db", "-n", "serving", "--type=strategic", "-p",
                               R"({"spec":{"template":{"spec":{"containers":[{"name":"c","image":"v2"}]}}}})"});
  ASSERT_EQ(patched.exit_code, 0) << patched.err;
  // The highest ordinal goes first.
  RunResult early = Kubectl({"get", "pod", "db-0", "-n", "serving", "-o", "jsonpath={.spec.containers[0].image}"});
  EXPECT_EQ(early.out, "v1");
  std::string out = RolloutStatus("statefulset/db", "serving");
  EXPECT_NE(out.find("roll out complete"), std::string::npos) << out;
  sts = Get({"get", "statefulset", "db", "-n", "serving"});
  EXPECT_EQ(sts["status"]["updatedReplicas"], 3);
  EXPECT_EQ(sts["status"]["currentRevision"], sts["status"]["updateRevision"]);
  EXPECT_EQ(Images("serving", "app=db"), (std::vector<std::string>{"v2", "v2", "v2"}));
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlRolloutTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
