// The executor against kube-sim (a real process, src/kube/sim_process.h)
// with its simulated GPU Operator: small clusters written here (A100-40GB
// nodes for MIG, L4 nodes for time-slicing), ScheduleSteps built by hand,
// the in-memory AuditStore.  kube-sim runs 20x faster than real time with
// configMapSyncDelayMs 0 and pods that exit 0.5 s (simulated) after a
// delete; the executor polls every 50 ms.  Each test starts its own
// kube-sim and stays well under 30 s; CTest label "long".
#include "apply/step_runner.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <thread>

#include "apply/memory_audit_store_test_util.h"
#include "kube/sim_process.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using kube::testing::RunCommand;
using kube::testing::SimProcess;

const char* kMigConfigName = "kubeon-3f2a9c0d1e";
const char* kTsKey = "kubeon-ts-4";

// GPUs 0-1 cut into 7 x 1g.5gb each, GPUs 2-3 left whole.
std::string PlanMigConfig() {
  return std::string("version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n  ") +
         kMigConfigName +
         ":\n    - devices: [0, 1]\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n"
         "    - devices: [2, 3]\n      mig-enabled: false\n";
}

std::string TsConfig() {
  return "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    failRequestsGreaterThanOne: true\n"
         "    resources:\n      - name: nvidia.com/gpu\n        replicas: 4\n";
}

json Node(const std::string& name, const std::string& product, int gpus, bool mig_capable, bool unschedulable,
          json extra_labels = json::object()) {
  json labels = {{"kubernetes.io/hostname", name}, {"nvidia.com/gpu.product", product},
                 {"nvidia.com/gpu.count", std::to_string(gpus)}, {"nvidia.com/gpu.present", "true"}};
  if (mig_capable) labels["nvidia.com/mig.capable"] = "true";
  labels.update(extra_labels);
  json cap = {{"cpu", "32"}, {"memory", "256Gi"}, {"pods", "110"}, {"nvidia.com/gpu", std::to_string(gpus)}};
  json node = {{"apiVersion", "v1"}, {"kind", "Node"},
               {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"labels", labels}}},
               {"spec", json::object()},
               {"status", {{"capacity", cap}, {"allocatable", cap},
                           {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  if (unschedulable) node["spec"]["unschedulable"] = true;
  return node;
}

json Deployment(const std::string& name, int replicas, const std::string& product) {
  json res = {{"requests", {{"cpu", "10m"}, {"nvidia.com/gpu", "1"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}};
  json tmpl = {{"metadata", {{"labels", {{"app", name}}}}},
               {"spec", {{"terminationGracePeriodSeconds", 5},
                         {"nodeSelector", {{"nvidia.com/gpu.product", product}}},
                         {"containers", {{{"name", "main"}, {"image", "registry.example/" + name + ":1"},
                                          {"resources", res}}}}}}};
  return {{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", "ml"}, {"uid", "uid-dep-" + name}}},
          {"spec", {{"replicas", replicas}, {"selector", {{"matchLabels", {{"app", name}}}}}, {"template", tmpl}}}};
}

// A StatefulSet whose pods are replaced only when deleted (OnDelete).
json OnDeleteStatefulSet(const std::string& name, int replicas, const std::string& product) {
  json sts = Deployment(name, replicas, product);
  sts["kind"] = "StatefulSet";
  sts["metadata"]["uid"] = "uid-sts-" + name;
  sts["spec"]["serviceName"] = name;
  sts["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  return sts;
}

json Pdb(const std::string& app, int min_available) {
  return {{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", app + "-pdb"}, {"namespace", "ml"}, {"uid", "uid-pdb-" + app}}},
          {"spec", {{"minAvailable", min_available}, {"selector", {{"matchLabels", {{"app", app}}}}}}}};
}

json List(std::vector<json> items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}, {"metadata", {{"resourceVersion", ""}}}};
}

std::string MovePatch(const std::string& to) {
  json res = {{"requests", {{"nvidia.com/gpu", nullptr}, {to, "1"}}}, {"limits", {{"nvidia.com/gpu", nullptr}, {to, "1"}}}};
  json container = {{"name", "main"}, {"resources", res}};
  json patch;
  patch["spec"]["template"]["spec"]["containers"] = json::array({container});
  return patch.dump();
}

plan::StepOwnerMove Move(const std::string& name, int replicas, const std::string& to) {
  plan::StepOwnerMove m;
  m.owner = {"ml", "Deployment", name};
  m.replicas = replicas;
  m.from_resource = "nvidia.com/gpu";
  m.from_per_pod = 1;
  m.to_resource = to;
  m.to_per_pod = 1;
  m.strategy = "RollingUpdate";
  m.patch_json = MovePatch(to);
  return m;
}

// A one-node step: set `label`=`value` on `node`, move Deployment `owner`
// (2 replicas) to `to`; the evicted pods run on `spare` meanwhile.
plan::ScheduleStep OneNodeStep(const std::string& id, const std::string& model, const std::string& method,
                               const std::string& node, const std::string& label, const std::string& value,
                               const std::string& owner, const std::string& to, const std::string& spare,
                               int64_t spare_gpus) {
  plan::ScheduleStep s;
  s.index = 1;
  s.id = id;
  s.content_hash = id + std::string(56, '0');
  s.gpu_model = model;
  s.method = method;
  s.nodes = {node};
  s.labels_after[node][label] = value;
  s.owners.push_back(Move(owner, 2, to));
  s.needs.push_back({"nvidia.com/gpu", spare_gpus, {spare}, "the evicted pods run on " + spare + " meanwhile"});
  return s;
}

// A100 node a100-1 (4 GPUs) runs infer (2 pods, moved to 1g.5gb slices) and
// busy (1 whole-GPU pod that stays on whole GPUs); a100-2 (4 GPUs) is where
// the evicted pods run meanwhile.
plan::ScheduleStep MigStep() {
  return OneNodeStep("5e1c0a77", "A100-40GB", "mig", "a100-1", "nvidia.com/mig.config", kMigConfigName, "infer",
                     "nvidia.com/mig-1g.5gb", "a100-2", 3);
}

// L4 node l4-1 (2 GPUs) shared 4 ways; chat's 2 pods move onto it.
plan::ScheduleStep TsStep() {
  return OneNodeStep("7b3d9e10", "L4", "time-slicing", "l4-1", "nvidia.com/device-plugin.config", kTsKey, "chat",
                     "nvidia.com/gpu.shared", "l4-2", 2);
}

class StepRunnerTest : public ::testing::Test {
 protected:
  // Starts kube-sim on `items`; nodes named in `hold` are cordoned at start
  // (so the workloads land elsewhere) and uncordoned once they run.
  void Start(std::vector<json> items, const std::set<std::string>& hold = {}) {
    Status s = sim_.Start(KUBE_SIM_BINARY, List(items));
    ASSERT_TRUE(s.ok()) << s.message();
    kube::LoadOptions lo;
    lo.kubeconfig_path = sim_.token_kubeconfig();
    auto cfg = kube::LoadRestConfig(lo);
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    kube::ClientOptions co;
    co.retry_deadline = std::chrono::seconds(10);
    co.initial_backoff = std::chrono::milliseconds(20);
    auto c = kube::KubeClient::Connect(*cfg, co);
    ASSERT_TRUE(c.ok()) << c.status().message();
    client_ = std::move(*c);
    auto set = client_->Create("/sim/settings", {{"timeScale", 20}, {"configMapSyncDelayMs", 0},
                                                 {"podShutdownMs", 500}, {"migReconfigureDelayMs", 300}});
    ASSERT_TRUE(set.ok()) << set.error().ToString();
    for (const auto& item : items) {
      if (item["kind"] != "Deployment" && item["kind"] != "StatefulSet") continue;
      const std::string name = item["metadata"]["name"];
      const std::string kind = item["kind"];
      ASSERT_TRUE(WaitFor([&] { return Available(name, kind) == item["spec"]["replicas"].get<int>(); }))
          << kind << " " << name << " did not become available";
    }
    for (const auto& n : hold) ASSERT_TRUE(client_->Uncordon(n).ok());
  }

  StepContext Ctx() {
    StepContext ctx{*client_, store_, clock_};
    ctx.artifacts.mig_parted_config = PlanMigConfig();
    ctx.artifacts.device_plugin_configs[kTsKey] = TsConfig();
    ctx.policy = "gpu-sharing";
    ctx.options.poll_interval = std::chrono::milliseconds(50);
    ctx.options.eviction_retry_interval = std::chrono::milliseconds(200);
    ctx.options.eviction_deadline = std::chrono::seconds(20);
    ctx.options.pod_gone_margin = std::chrono::seconds(10);
    ctx.options.configmap_sync = std::chrono::milliseconds(0);
    ctx.options.mig_deadline = std::chrono::seconds(15);
    ctx.options.allocatable_deadline = std::chrono::seconds(15);
    ctx.options.rollout_deadline = std::chrono::seconds(20);
    ctx.progress = [this](const std::string& line) { progress_.push_back(line); };
    return ctx;
  }

  json Get(const std::string& path) {
    auto r = client_->Get(path);
    EXPECT_TRUE(r.ok()) << path << ": " << r.error().ToString();
    return r.ok() ? *r : json::object();
  }
  json NodeObj(const std::string& n) { return Get("/api/v1/nodes/" + n); }
  std::string Label(const std::string& n, const std::string& key) {
    return NodeObj(n)["metadata"]["labels"].value(key, "");
  }
  std::string Alloc(const std::string& n, const std::string& r) {
    return NodeObj(n)["status"]["allocatable"].value(r, "");
  }
  json Dep(const std::string& name) { return Get("/apis/apps/v1/namespaces/ml/deployments/" + name); }
  int Available(const std::string& name, const std::string& kind = "Deployment") {
    auto r = client_->Get(std::string("/apis/apps/v1/namespaces/ml/") +
                          (kind == "StatefulSet" ? "statefulsets/" : "deployments/") + name);
    if (!r.ok()) return -1;
    return r->value("/status/availableReplicas"_json_pointer, 0);
  }
  // Running, Ready pods of app `app`: node name per pod.
  std::vector<json> Pods(const std::string& app) {
    kube::ListOptions o;
    o.label_selector = "app=" + app;
    auto r = client_->List("/api/v1/namespaces/ml/pods", o);
    std::vector<json> out;
    if (r.ok()) {
      for (const auto& p : r->items) out.push_back(p);
    }
    return out;
  }
  bool WaitFor(const std::function<bool()>& cond, int seconds = 20) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (cond()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return cond();
  }
  void ExpectNodeClean(const std::string& n) {
    json node = NodeObj(n);
    EXPECT_FALSE(node["spec"].value("unschedulable", false)) << n;
    for (const auto& t : node["spec"].value("taints", json::array())) EXPECT_NE(t["key"], kStepTaintKey) << n;
    json ann = node["metadata"].value("annotations", json::object());
    EXPECT_FALSE(ann.contains(kDoNotDisruptAnnotation)) << n;
    EXPECT_FALSE(ann.contains(kScaleDownDisabledAnnotation)) << n;
    EXPECT_FALSE(ann.contains(kCordonedByAnnotation)) << n;
    for (auto& [k, v] : node["metadata"]["labels"].items()) EXPECT_NE(v, "paused-for-mig-change") << k;
  }
  std::string State(const std::string& id) {
    auto r = store_.GetChange(id);
    if (!r.ok() || !r->has_value()) return "(none)";
    switch ((*r)->state) {
      case audit::ChangeState::kDone: return "done";
      case audit::ChangeState::kRolledBack: return "rolled-back";
      case audit::ChangeState::kFailed: return "failed";
      case audit::ChangeState::kRunning: return "running";
      case audit::ChangeState::kReverted: return "reverted";
      default: return "other";
    }
  }
  // What a failing test needs to see: the nodes' labels and the operator's pods and logs.
  std::string Diag() {
    std::string out;
    auto nodes = client_->List("/api/v1/nodes");
    if (nodes.ok()) {
      for (const auto& n : nodes->items) out += n["metadata"]["name"].get<std::string>() + " " + n["metadata"]["labels"].dump() + " " + n["status"]["allocatable"].dump() + "\n";
    }
    auto pods = client_->List("/api/v1/namespaces/gpu-operator/pods");
    if (pods.ok()) {
      for (const auto& p : pods->items) {
        const std::string name = p["metadata"]["name"];
        out += name + " " + p["spec"].value("nodeName", "") + " " + p["status"].value("phase", "") + "\n";
        if (name.find("mig-manager") != std::string::npos) {
          auto log = client_->Get("/api/v1/namespaces/gpu-operator/pods/" + name + "/log");
          if (!log.ok()) out += "  log: " + log.error().ToString() + "\n";
        }
      }
    }
    return out;
  }
  std::string Progress() {
    std::string out = Diag();
    for (const auto& l : progress_) out += l + "\n";
    return out;
  }
  void Faults(const json& f) { ASSERT_TRUE(client_->Create("/sim/faults", f).ok()); }

  std::vector<json> MigCluster() {
    return {Node("a100-1", "NVIDIA-A100-SXM4-40GB", 4, true, false),
            Node("a100-2", "NVIDIA-A100-SXM4-40GB", 4, true, true),
            Deployment("infer", 2, "NVIDIA-A100-SXM4-40GB"), Deployment("busy", 1, "NVIDIA-A100-SXM4-40GB")};
  }

  SimProcess sim_;
  std::unique_ptr<kube::KubeClient> client_;
  testing::MemoryAuditStore store_;
  RealClock clock_;
  std::vector<std::string> progress_;
};

// The whole MIG sequence (under a PDB): pods move onto slices, the busy whole-GPU pod runs
// again next to the new MIG GPUs, the node ends uncordoned and untainted
// with a fresh `success`; real kubectl shows the state.  Then a revert
// restores the node's whole GPUs and the owner's template exactly.
TEST_F(StepRunnerTest, MigHappyPathThenRevert) {
  // minAvailable 1 of 2: the second eviction waits (429) for the first pod's
  // replacement to be Ready.
  auto items = MigCluster();
  items.push_back(Pdb("infer", 1));
  Start(items, {"a100-2"});
  // Replacements take 1 s (real) to become Ready.
  ASSERT_TRUE(client_->Create("/sim/settings", {{"podStartupDelayMs", 20000}}).ok());
  const json infer_before = Dep("infer")["spec"]["template"];
  StepContext ctx = Ctx();
  StepOutcome out = RunStep(ctx, MigStep());
  ASSERT_EQ(out.kind, OutcomeKind::kDone) << out.cause << "\n" << Progress();
  EXPECT_EQ(State("5e1c0a77"), "done");
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config"), kMigConfigName);
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(Alloc("a100-1", "nvidia.com/mig-1g.5gb"), "14");
  EXPECT_EQ(Alloc("a100-1", "nvidia.com/gpu"), "2");
  ExpectNodeClean("a100-1");
  ExpectNodeClean("a100-2");
  for (const auto& p : Pods("infer")) {
    EXPECT_EQ(p["spec"]["nodeName"], "a100-1") << p["metadata"]["name"];
    EXPECT_TRUE(p["spec"]["containers"][0]["resources"]["requests"].contains("nvidia.com/mig-1g.5gb"));
  }
  EXPECT_EQ(Dep("infer")["metadata"]["annotations"][kChangeAnnotation], "5e1c0a77");
  ASSERT_TRUE(WaitFor([&] { return Available("busy") == 1; }));
  EXPECT_NE(Progress().find("refused for now"), std::string::npos) << Progress();
  // The ConfigMap holds the plan's config next to all-disabled.
  json cm = Get("/api/v1/namespaces/gpu-operator/configmaps/kubeon-mig-parted-config");
  EXPECT_NE(cm["data"]["config.yaml"].get<std::string>().find(kMigConfigName), std::string::npos);
  // Log first: every ok entry follows an intent entry of the same action.
  auto log = store_.Log("5e1c0a77");
  ASSERT_TRUE(log.ok());
  std::string last_intent;
  for (const auto& e : *log) {
    if (e.outcome == "intent") last_intent = e.action;
    if (e.outcome == "ok" && e.action != "done") {
      EXPECT_EQ(e.action, last_intent) << e.detail;
    }
  }

  // Real kubectl cross-checks the node's MIG state.
  const char* kubectl = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33";
  if (access(kubectl, X_OK) != 0) {
    GTEST_LOG_(INFO) << kubectl << " is not installed: kubectl cross-check skipped";
  } else {
    auto [code, table] = RunCommand(std::string(kubectl) + " --kubeconfig " + sim_.token_kubeconfig() +
                                    " get nodes -L nvidia.com/mig.config.state 2>&1");
    EXPECT_EQ(code, 0) << table;
    bool found = false;
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
      found |= line.rfind("a100-1 ", 0) == 0 && line.find(" success") != std::string::npos;
    }
    EXPECT_TRUE(found) << table;
  }


  // Running it again changes nothing (idempotent).
  StepOutcome again = RunStep(ctx, MigStep());
  EXPECT_EQ(again.kind, OutcomeKind::kDone);
  EXPECT_EQ(again.writes, 0);

  StepOutcome rev = RevertChange(ctx, "5e1c0a77");
  ASSERT_EQ(rev.kind, OutcomeKind::kDone) << rev.cause << "\n" << Progress();
  EXPECT_EQ(State("5e1c0a77"), "reverted");
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config"), "all-disabled");
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(Alloc("a100-1", "nvidia.com/gpu"), "4");
  EXPECT_EQ(Dep("infer")["spec"]["template"], infer_before);
  EXPECT_FALSE(Dep("infer")["metadata"].value("annotations", json::object()).contains(kChangeAnnotation));
  ExpectNodeClean("a100-1");
  ASSERT_TRUE(WaitFor([&] { return Available("infer") == 2 && Available("busy") == 1; }));
}

TEST_F(StepRunnerTest, TimeSlicing) {
  Start({Node("l4-1", "NVIDIA-L4", 2, false, false), Node("l4-2", "NVIDIA-L4", 2, false, true),
         Deployment("chat", 2, "NVIDIA-L4")},
        {"l4-2"});
  StepOutcome out = RunStep(Ctx(), TsStep());
  ASSERT_EQ(out.kind, OutcomeKind::kDone) << out.cause << "\n" << Progress();
  EXPECT_EQ(Label("l4-1", "nvidia.com/device-plugin.config"), kTsKey);
  EXPECT_EQ(Alloc("l4-1", "nvidia.com/gpu.shared"), "8");
  ExpectNodeClean("l4-1");
  auto pods = Pods("chat");
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& p : pods) EXPECT_EQ(p["spec"]["nodeName"], "l4-1");
  json cm = Get("/api/v1/namespaces/gpu-operator/configmaps/kubeon-device-plugin-config");
  EXPECT_EQ(cm["data"][kTsKey], TsConfig());
}

// A StatefulSet with updateStrategy OnDelete is moved pod by pod through
// the Eviction API: both pods end on the shared GPUs with the new template.
TEST_F(StepRunnerTest, OnDeleteStatefulSetMovedPodByPod) {
  Start({Node("l4-1", "NVIDIA-L4", 2, false, false), Node("l4-2", "NVIDIA-L4", 2, false, true),
         OnDeleteStatefulSet("embed", 2, "NVIDIA-L4")},
        {"l4-2"});
  plan::ScheduleStep step = TsStep();
  step.owners[0] = Move("embed", 2, "nvidia.com/gpu.shared");
  step.owners[0].owner.kind = "StatefulSet";
  step.owners[0].strategy = "OnDelete";
  StepOutcome out = RunStep(Ctx(), step);
  ASSERT_EQ(out.kind, OutcomeKind::kDone) << out.cause << "\n" << Progress();
  auto pods = Pods("embed");
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& p : pods) {
    EXPECT_EQ(p["spec"]["nodeName"], "l4-1") << p["metadata"]["name"];
    EXPECT_TRUE(p["spec"]["containers"][0]["resources"]["requests"].contains("nvidia.com/gpu.shared"));
  }
  auto log = store_.Log(step.id);
  ASSERT_TRUE(log.ok());
  int evictions = 0;
  for (const auto& e : *log) evictions += e.action == "evict" && e.outcome == "ok";
  EXPECT_EQ(evictions, 4);  // 2 to empty l4-1, then 2 for the OnDelete rollout
  ExpectNodeClean("l4-1");
}

// An owner managed by Argo CD is not patched: its patch is printed for the
// repository; the node is still reconfigured and cleaned up.
TEST_F(StepRunnerTest, GitOpsOwnerIsPrintedNotPatched) {
  Start({Node("l4-1", "NVIDIA-L4", 2, false, false), Node("l4-2", "NVIDIA-L4", 2, false, true),
         Deployment("chat", 2, "NVIDIA-L4")},
        {"l4-2"});
  const json before = Dep("chat")["spec"]["template"];
  plan::ScheduleStep step = TsStep();
  step.owners[0].gitops = "Argo CD";
  StepOutcome out = RunStep(Ctx(), step);
  ASSERT_EQ(out.kind, OutcomeKind::kDone) << out.cause << "\n" << Progress();
  ASSERT_EQ(out.gitops_patches.size(), 1u);
  EXPECT_NE(out.gitops_patches[0].find("Deployment ml/chat (managed by Argo CD)"), std::string::npos);
  EXPECT_NE(out.gitops_patches[0].find("nvidia.com/gpu.shared"), std::string::npos);
  EXPECT_EQ(Dep("chat")["spec"]["template"], before);
  EXPECT_EQ(Alloc("l4-1", "nvidia.com/gpu.shared"), "8");
  ExpectNodeClean("l4-1");
}

// maxUnavailable 0 (minAvailable = replicas): every eviction is refused, the
// step times out and rolls back; no pod is lost.  Taken again (a rolled-back
// step may be), the hard deadline (window close) passes while the eviction
// waits: the step stops there and rolls back completely (the rollback is not
// cut short by the deadline).
TEST_F(StepRunnerTest, PdbBlocksEvictionRollsBack) {
  auto items = MigCluster();
  items.push_back(Pdb("infer", 2));
  Start(items, {"a100-2"});
  for (bool hard : {false, true}) {
    SCOPED_TRACE(hard ? "hard deadline" : "eviction deadline");
    StepContext ctx = Ctx();
    ctx.options.eviction_deadline = std::chrono::seconds(hard ? 60 : 2);
    if (hard) ctx.options.hard_deadline = clock_.Now() + std::chrono::seconds(2);
    StepOutcome out = RunStep(ctx, MigStep());
    ASSERT_EQ(out.kind, OutcomeKind::kRolledBack) << out.cause << "\n" << Progress();
    EXPECT_NE(out.cause.find(hard ? "hard deadline" : "refused"), std::string::npos) << out.cause;
    EXPECT_EQ(State("5e1c0a77"), "rolled-back");
    ExpectNodeClean("a100-1");
    EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config"), "");
    EXPECT_EQ(Available("infer"), 2);
    EXPECT_EQ(Pods("infer").size(), 2u);
    EXPECT_TRUE(Dep("infer")["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"].contains(
        "nvidia.com/gpu"));
  }
}

// mig-manager reports failed: the node goes back to an explicit all-disabled
// (its label was empty), ends uncordoned and untainted, owners untouched.
TEST_F(StepRunnerTest, FailedMigConfigRollsBackToExplicitConfig) {
  Start(MigCluster(), {"a100-2"});
  Faults({{"failMigConfig", {{{"node", "a100-1"}, {"config", kMigConfigName}, {"count", 1}}}}});
  StepOutcome out = RunStep(Ctx(), MigStep());
  ASSERT_EQ(out.kind, OutcomeKind::kRolledBack) << out.cause << "\n" << Progress();
  EXPECT_NE(out.cause.find("failed"), std::string::npos) << out.cause;
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config"), "all-disabled");
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(Alloc("a100-1", "nvidia.com/gpu"), "4");
  ExpectNodeClean("a100-1");
  EXPECT_FALSE(Dep("infer")["metadata"].value("annotations", json::object()).contains(kChangeAnnotation));
  ASSERT_TRUE(WaitFor([&] { return Available("infer") == 2 && Available("busy") == 1; }));
}

// mig-manager stays pending with the operands paused (GO #2833): past the
// deadline the step rolls back and the paused labels are restored.
TEST_F(StepRunnerTest, StuckPendingRollsBackAndRestoresOperands) {
  Start(MigCluster(), {"a100-2"});
  Faults({{"stuckMigPending", {{{"node", "a100-1"}, {"count", 1}}}}});
  // The stuck run gives up after 5 simulated minutes (1.5 s real at 200x);
  // the label set back meanwhile is taken up after it.
  ASSERT_TRUE(client_->Create("/sim/settings", {{"timeScale", 200}}).ok());
  StepContext ctx = Ctx();
  ctx.options.mig_deadline = std::chrono::seconds(4);
  StepOutcome out = RunStep(ctx, MigStep());
  ASSERT_EQ(out.kind, OutcomeKind::kRolledBack) << out.cause << "\n" << Progress();
  EXPECT_NE(out.cause.find("timed out"), std::string::npos) << out.cause;
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config"), "all-disabled");
  EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(Label("a100-1", "nvidia.com/gpu.deploy.device-plugin"), "true");
  ExpectNodeClean("a100-1");
  ASSERT_TRUE(WaitFor([&] { return Alloc("a100-1", "nvidia.com/gpu") == "4"; }));
}

// A `success` left on the node from an earlier run is not taken for this
// step's: the runner clears it, and only a fresh success with the new
// devices advertised lets the owners move (a slow apply makes the stale
// label visible for seconds).
TEST_F(StepRunnerTest, StaleSuccessIsNotTakenAsSuccess) {
  auto items = MigCluster();
  items[0] = Node("a100-1", "NVIDIA-A100-SXM4-40GB", 4, true, false,
                  {{"nvidia.com/mig.config.state", "success"}});
  Start(items, {"a100-2"});
  ASSERT_TRUE(client_->Create("/sim/settings", {{"migReconfigureDelayMs", 60000}}).ok());  // 3 s real
  StepOutcome out = RunStep(Ctx(), MigStep());
  ASSERT_EQ(out.kind, OutcomeKind::kDone) << out.cause << "\n" << Progress();
  EXPECT_EQ(Alloc("a100-1", "nvidia.com/mig-1g.5gb"), "14");
  for (const auto& p : Pods("infer")) {
    EXPECT_EQ(p["status"]["phase"], "Running");
    EXPECT_EQ(p["spec"]["nodeName"], "a100-1");
  }
}

// API faults on the way (500s on node writes, a refused eviction): the
// client's retries and the runner's eviction retries carry the step through.
TEST_F(StepRunnerTest, ApiFaultsOnTheWayFinish) {
  Start(MigCluster(), {"a100-2"});
  Faults({{"failRequests", {{{"path", "^/api/v1/nodes/a100-1$"}, {"method", "PUT"}, {"count", 3}, {"code", 500}},
                            {{"path", "configmaps"}, {"method", "POST"}, {"count", 1}, {"code", 503}}}}});
  StepOutcome out = RunStep(Ctx(), MigStep());
  ASSERT_TRUE(out.kind == OutcomeKind::kDone || out.kind == OutcomeKind::kRolledBack) << out.cause;
  ExpectNodeClean("a100-1");
  if (out.kind == OutcomeKind::kDone) {
    EXPECT_EQ(Alloc("a100-1", "nvidia.com/mig-1g.5gb"), "14");
  }
  ASSERT_TRUE(WaitFor([&] { return Available("infer") == 2 && Available("busy") == 1; }));
}

// A node the user cordoned is refused before any write; so are artifacts
// whose ConfigMap "name" is not a name.
TEST_F(StepRunnerTest, UserCordonedNodeUntouched) {
  Start(MigCluster(), {"a100-2"});
  ASSERT_TRUE(client_->Cordon("a100-1").ok());
  const json before = NodeObj("a100-1");
  StepOutcome out = RunStep(Ctx(), MigStep());
  ASSERT_EQ(out.kind, OutcomeKind::kRolledBack);
  EXPECT_EQ(out.writes, 0);
  EXPECT_NE(out.cause.find("cordoned by someone else"), std::string::npos) << out.cause;
  // Artifacts naming a manifest instead of a ConfigMap are refused too.
  StepContext bad = Ctx();
  bad.artifacts.mig_configmap = "apiVersion: v1\nkind: ConfigMap\n";
  StepOutcome refused = RunStep(bad, MigStep());
  EXPECT_EQ(refused.kind, OutcomeKind::kRolledBack);
  EXPECT_EQ(refused.writes, 0);
  EXPECT_NE(refused.cause.find("MIG ConfigMap name \"apiVersion: v1"), std::string::npos) << refused.cause;
  const json after = NodeObj("a100-1");
  EXPECT_EQ(after["spec"], before["spec"]);
  EXPECT_EQ(after["metadata"]["labels"], before["metadata"]["labels"]);
  EXPECT_EQ(after["metadata"].value("annotations", json::object()),
            before["metadata"].value("annotations", json::object()));
}

// After the change someone edits the owner's request by hand: the revert
// names the field, the object and both values, and changes nothing.
TEST_F(StepRunnerTest, RevertRefusedAfterManualEdit) {
  Start(MigCluster(), {"a100-2"});
  StepContext ctx = Ctx();
  ASSERT_EQ(RunStep(ctx, MigStep()).kind, OutcomeKind::kDone) << Progress();
  json edit = json::parse(MovePatch("nvidia.com/mig-2g.10gb"));
  edit["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/mig-1g.5gb"] = nullptr;
  edit["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/mig-1g.5gb"] = nullptr;
  auto edited = client_->Patch("/apis/apps/v1/namespaces/ml/deployments/infer", kube::PatchType::kStrategicMerge, edit);
  ASSERT_TRUE(edited.ok());
  const json node_before = NodeObj("a100-1");
  StepOutcome rev = RevertChange(ctx, "5e1c0a77");
  ASSERT_EQ(rev.kind, OutcomeKind::kRolledBack);
  EXPECT_EQ(rev.writes, 0);
  EXPECT_NE(rev.cause.find("Deployment ml/infer"), std::string::npos) << rev.cause;
  EXPECT_NE(rev.cause.find("field spec.template.spec.containers[0].resources"), std::string::npos) << rev.cause;
  EXPECT_NE(rev.cause.find("[\"nvidia.com/mig-1g.5gb\"] of Deployment ml/infer was changed since change 5e1c0a77 "
                           "(expected \"1\", found (absent))"),
            std::string::npos)
      << rev.cause;
  EXPECT_NE(rev.cause.find("nothing changed"), std::string::npos) << rev.cause;
  EXPECT_EQ(State("5e1c0a77"), "done");
  EXPECT_EQ(NodeObj("a100-1")["metadata"]["labels"], node_before["metadata"]["labels"]);
}

// A revert needs the whole GPUs its workloads go back to.
TEST_F(StepRunnerTest, RevertRefusedWithoutWholeGpus) {
  Start(MigCluster(), {"a100-2"});
  StepContext ctx = Ctx();
  ASSERT_EQ(RunStep(ctx, MigStep()).kind, OutcomeKind::kDone) << Progress();
  // Whole GPUs elsewhere are gone: a100-2 is cordoned by its user.
  ASSERT_TRUE(client_->Cordon("a100-2").ok());
  // hog takes a100-1's two whole GPUs and waits Pending for a third.
  ASSERT_TRUE(client_->Create("/apis/apps/v1/namespaces/ml/deployments", Deployment("hog", 3, "NVIDIA-A100-SXM4-40GB"))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return Available("hog") >= 1 && Pods("hog").size() == 3; }));
  StepOutcome rev = RevertChange(ctx, "5e1c0a77");
  ASSERT_EQ(rev.kind, OutcomeKind::kRolledBack) << Progress();
  EXPECT_EQ(rev.writes, 0);
  EXPECT_NE(rev.cause.find("missing"), std::string::npos) << rev.cause;
}

// A crash after each of several writes (test hook in process: the runner
// stops as the process would die, leaving the log `running`), then
// ResumeOrRollback: early crashes roll back, a crash during the final
// cleanup is finished; the node ends clean either way and a second resume
// finds nothing to do.
TEST_F(StepRunnerTest, ResumeAfterCrash) {
  Start(MigCluster(), {"a100-2"});
  StepContext ctx = Ctx();
  // Crash after the second write (the ConfigMap): rolled back on resume.
  ctx.options.write_observer = [](int writes) { return writes == 2; };
  StepOutcome crashed = RunStep(ctx, MigStep());
  ASSERT_EQ(crashed.kind, OutcomeKind::kCrashed) << Progress();
  EXPECT_EQ(State("5e1c0a77"), "running");
  ctx.options.write_observer = nullptr;
  auto resumed = ResumeOrRollback(ctx);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].kind, OutcomeKind::kRolledBack) << resumed[0].cause << "\n" << Progress();
  EXPECT_EQ(State("5e1c0a77"), "rolled-back");
  ExpectNodeClean("a100-1");
  EXPECT_TRUE(ResumeOrRollback(ctx).empty());

  // Another change: crash on the first write of the final cleanup; resume finishes it.
  plan::ScheduleStep step = MigStep();
  step.id = "9a8b7c6d";
  StepContext c2 = Ctx();
  bool in_cleanup = false;
  c2.progress = [&](const std::string& line) {
    progress_.push_back(line);
    if (line.find("remove taint") != std::string::npos) in_cleanup = true;
  };
  c2.options.write_observer = [&](int) { return in_cleanup; };
  StepOutcome crashed2 = RunStep(c2, step);
  ASSERT_EQ(crashed2.kind, OutcomeKind::kCrashed) << Progress();
  EXPECT_EQ(State("9a8b7c6d"), "running");
  auto resumed2 = ResumeOrRollback(Ctx());
  ASSERT_EQ(resumed2.size(), 1u);
  EXPECT_EQ(resumed2[0].kind, OutcomeKind::kDone) << resumed2[0].cause << "\n" << Progress();
  EXPECT_EQ(State("9a8b7c6d"), "done");
  ExpectNodeClean("a100-1");
  EXPECT_EQ(Alloc("a100-1", "nvidia.com/mig-1g.5gb"), "14");
}

// A write observer that SIGKILLs the process (as kubeon-gpu-crashpoint
// injects one): a forked child running the step dies right after its N-th
// cluster write; the cluster shows exactly those writes, and
// ResumeOrRollback from the log the child left (a write-through store file)
// restores the node.  N = 2: after the ConfigMap; N = 5: after the MIG label
// (see below).
TEST_F(StepRunnerTest, CrashObserverKillsAfterNthWrite) {
  Start(MigCluster(), {"a100-2"});
  for (const char* n : {"2", "5"}) {
    SCOPED_TRACE(std::string("crash after write ") + n);
    const std::string log_file = sim_.dir().File(std::string("audit-") + n + ".json");
    const std::string kubeconfig = sim_.token_kubeconfig();
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int crash_at = std::atoi(n);
      kube::LoadOptions lo;
      lo.kubeconfig_path = kubeconfig;
      auto cfg = kube::LoadRestConfig(lo);
      if (!cfg.ok()) _exit(10);
      auto c = kube::KubeClient::Connect(*cfg);
      if (!c.ok()) _exit(11);
      testing::MemoryAuditStore store(log_file);
      RealClock clock;
      StepContext ctx{**c, store, clock};
      ctx.artifacts.mig_parted_config = PlanMigConfig();
      ctx.options.configmap_sync = std::chrono::milliseconds(0);
      ctx.options.poll_interval = std::chrono::milliseconds(50);
      ctx.options.write_observer = [crash_at](int writes) {
        if (writes == crash_at) kill(getpid(), SIGKILL);
        return false;
      };
      (void)RunStep(ctx, MigStep());
      _exit(12);  // not reached: killed after the N-th write
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    json node = NodeObj("a100-1");
    EXPECT_TRUE(node["spec"].value("unschedulable", false));
    EXPECT_EQ(node["metadata"]["annotations"][kCordonedByAnnotation], "5e1c0a77");
    // Write 2 is the ConfigMap; in the second round the ConfigMap already
    // holds the config, so writes 2-4 are the evictions and 5 the label.
    EXPECT_EQ(Label("a100-1", "nvidia.com/mig.config"), std::string(n) == "2" ? "" : kMigConfigName);

    testing::MemoryAuditStore store(log_file);
    auto rec = store.GetChange("5e1c0a77");
    ASSERT_TRUE(rec.ok() && rec->has_value());
    EXPECT_EQ((*rec)->state, audit::ChangeState::kRunning);
    StepContext ctx = Ctx();
    StepContext resume{*client_, store, clock_, ctx.artifacts, ctx.options, "gpu-sharing", ctx.progress};
    auto resumed = ResumeOrRollback(resume);
    ASSERT_EQ(resumed.size(), 1u);
    EXPECT_EQ(resumed[0].kind, OutcomeKind::kRolledBack) << resumed[0].cause << "\n" << Progress();
    ExpectNodeClean("a100-1");
    EXPECT_TRUE(ResumeOrRollback(resume).empty());
    ASSERT_TRUE(WaitFor([&] { return Available("infer") == 2 && Available("busy") == 1; }));
  }
}

}  // namespace
}  // namespace kubeon::apply
