// Tests for planner.h: decisions and their reasons, packing onto few GPUs,
// emptying whole nodes, time-slicing safety, scope, and the plan's invariants
// (every MIG layout valid for its model, totals consistent) on random clusters.
#include "plan/planner.h"

#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "mig/layout.h"
#include "plan/artifacts.h"
#include "plan/sha256.h"

namespace kubeon::plan {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;

struct Fixture {
  model::Cluster cluster;
  metrics::History history;
  policy::GpuPolicy policy;
  PlannerOptions options;

  Fixture() {
    policy.name = "test";
    policy.headroom = 0.2;
    policy.headroom_text = "20%";
    policy.time_slicing_namespaces = {"ml-dev"};
    policy.max_replicas = 4;
  }

  model::Node& AddNode(const std::string& name, const std::string& product, int gpus, int64_t mem,
                       double price = 10.0) {
    model::Node n;
    n.name = name;
    n.gpu_product = product;
    n.gpu_count = gpus;
    n.gpu_memory_mib = mem;
    n.mig_capable = product.find("A100") != std::string::npos || product.find("H100") != std::string::npos;
    n.mig_strategy = n.mig_capable ? "mixed" : "";
    n.hourly_price_usd = price;
    n.capacity[model::kGpuResource] = gpus;
    n.labels["pool"] = product;
    cluster.nodes.push_back(n);
    return cluster.nodes.back();
  }

  // A Deployment with `replicas` pods of `gpus` GPUs each on `nodes` (round robin).
  void AddDeployment(const std::string& ns, const std::string& name, const std::vector<std::string>& nodes,
                     int replicas, int gpus = 1, const std::string& kind = "Deployment") {
    for (int i = 0; i < replicas; ++i) {
      model::Pod p;
      p.namespace_ = ns;
      p.name = name + "-rs-" + std::to_string(i);
      p.node_name = nodes[i % nodes.size()];
      p.phase = "Running";
      p.workload = {ns, kind, name};
      if (kind != "Pod") p.controller = model::OwnerRef{"apps/v1", kind == "Deployment" ? "ReplicaSet" : kind, name + "-rs", "", true};
      model::ContainerResources c;
      c.name = "main";
      c.limits[model::kGpuResource] = gpus;
      p.containers.push_back(c);
      p.gpus = gpus;
      cluster.pods.push_back(p);
    }
  }

  // History for every pod of the workload: peak memory, a flat compute ratio, `hours` long.
  void AddUsage(const std::string& ns, const std::string& name, int replicas, int64_t peak_mib, double compute,
                double hours = 48, uint64_t bad = 0) {
    for (int i = 0; i < replicas; ++i) {
      metrics::PodUsage u;
      u.peak_memory_mib = peak_mib;
      for (int k = 0; k < 100; ++k) u.compute.Add(compute);
      u.first_ts_ms = 0;
      u.last_ts_ms = static_cast<int64_t>(hours * kHourMs);
      u.gaps.AddSpan(u.last_ts_ms - u.first_ts_ms);  // history length is coverage
      u.samples = 100;
      u.bad_samples = bad;
      history.pods[{ns, name + "-rs-" + std::to_string(i)}] = u;
    }
  }

  Plan Run() { return MakePlan(cluster, history, policy, mig::MigCatalog::Builtin(), options).value(); }
};

const WorkloadDecision& Find(const Plan& p, const std::string& display) {
  for (const auto& w : p.workloads) {
    if (w.ref.Display() == display) return w;
  }
  ADD_FAILURE() << "no workload " << display;
  static WorkloadDecision none;
  return none;
}

const NodePlan& FindNode(const Plan& p, const std::string& name) {
  for (const auto& n : p.nodes) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  static NodePlan none;
  return none;
}

// The invariants stated in plan.h.
void CheckInvariants(const Plan& p) {
  const auto& catalog = mig::MigCatalog::Builtin();
  int before = 0, after = 0, freed_nodes = 0;
  double savings = 0;
  for (const auto& n : p.nodes) {
    before += n.gpus_before;
    after += n.gpus_after;
    freed_nodes += n.freed ? 1 : 0;
    savings += n.monthly_savings_usd;
    EXPECT_LE(static_cast<int>(n.gpus.size()), std::max(n.gpu_count, n.gpus_before)) << n.name;
    const mig::GpuModel* model = catalog.FindModel(n.gpu_model);
    for (const auto& g : n.gpus) {
      if (!g.mig_enabled) continue;
      ASSERT_NE(model, nullptr);
      EXPECT_TRUE(mig::LayoutFits(*model, g.mig_devices)) << n.name << " GPU " << g.index;
      EXPECT_EQ(g.mig_devices.size(), g.workloads.size());
    }
  }
  EXPECT_EQ(before, p.summary.gpus_before);
  EXPECT_EQ(after, p.summary.gpus_after);
  EXPECT_EQ(p.summary.gpus_freed, before - after);
  EXPECT_EQ(freed_nodes, p.summary.nodes_freed);
  EXPECT_NEAR(savings, p.summary.monthly_savings_usd, 1e-6);
  for (const auto& w : p.workloads) {
    bool patched = false;
    for (const auto& patch : p.artifacts.workload_patches) {
      patched = patched || (patch.namespace_ == w.ref.namespace_ && patch.name == w.ref.name && patch.kind == w.ref.kind);
    }
    EXPECT_EQ(patched, w.decision != Decision::kUnchanged) << w.ref.Display();
    EXPECT_FALSE(w.reason.empty()) << w.ref.Display();
    if (w.decision == Decision::kMig) {
      EXPECT_FALSE(w.slice.empty());
    }
  }
}

TEST(Planner, SmallInferenceMovesOntoMigAndFreesANode) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960, 32.77);
  f.AddNode("a100-2", "NVIDIA-A100-SXM4-40GB", 8, 40960, 32.77);
  // 8 pods at 3 GiB / 10% -> 1g.5gb each; 4 pods at 8 GiB / 20% -> 2g.10gb.
  f.AddDeployment("prod", "small", {"a100-1", "a100-2"}, 8);
  f.AddUsage("prod", "small", 8, 3000, 0.10);
  f.AddDeployment("prod", "medium", {"a100-2", "a100-1"}, 4);
  f.AddUsage("prod", "medium", 4, 8000, 0.20);
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_EQ(Find(p, "prod/small").decision, Decision::kMig);
  EXPECT_EQ(Find(p, "prod/small").slice, "1g.5gb");
  EXPECT_EQ(Find(p, "prod/medium").slice, "2g.10gb");
  // 8 x 1g (8 compute) + 4 x 2g (8 compute) = 16 slices: at least 3 GPUs; 1g.5gb max 7/GPU.
  EXPECT_EQ(p.summary.gpus_before, 12);
  EXPECT_EQ(p.summary.gpus_after, 3);
  EXPECT_EQ(p.summary.nodes_freed, 1);
  EXPECT_EQ(p.summary.gpus_lower_bound, 3);
  const NodePlan& n1 = FindNode(p, "a100-1");
  const NodePlan& n2 = FindNode(p, "a100-2");
  EXPECT_NE(n1.freed, n2.freed);  // one node holds everything, the other is empty
  const NodePlan& kept = n1.freed ? n2 : n1;
  EXPECT_EQ(kept.method, "mig");
  EXPECT_EQ(kept.labels.count("nvidia.com/mig.config"), 1u);
  // Savings: the freed node's whole price (its 8 GPUs, 2 of them idle before),
  // plus the 3 GPUs the kept node gives up, at 32.77/8 per GPU-hour.
  EXPECT_NEAR(p.summary.monthly_savings_usd, (8 + 3) * 32.77 / 8 * 730, 0.01);
  // Apart: the freed node's price leaves the bill once it is removed; the 3
  // GPUs on the node that stays are capacity, not money off the bill.
  EXPECT_NEAR(p.summary.savings_realizable_usd, 8 * 32.77 / 8 * 730, 0.01);
  EXPECT_NEAR(p.summary.capacity_freed_usd, 3 * 32.77 / 8 * 730, 0.01);
  EXPECT_EQ(p.summary.pods_disrupted, 0);
  EXPECT_NE(kept.isolation.find("MIG"), std::string::npos);
  EXPECT_NE(Find(p, "prod/small").reason.find("1g.5gb"), std::string::npos);
}

TEST(Planner, ExcludedWorkloadsStayWithTheirReason) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960, 32.77);
  f.AddNode("a100-2", "NVIDIA-A100-SXM4-40GB", 8, 40960, 32.77);
  f.AddDeployment("prod", "small", {"a100-1", "a100-2"}, 8);
  f.AddUsage("prod", "small", 8, 3000, 0.10);
  f.AddDeployment("prod", "medium", {"a100-2", "a100-1"}, 4);
  f.AddUsage("prod", "medium", 4, 8000, 0.20);
  f.options.excluded_workloads[{"prod", "Deployment", "small"}] = "its pods span the nodes of policies a and b";
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_EQ(Find(p, "prod/small").decision, Decision::kUnchanged);
  EXPECT_EQ(Find(p, "prod/small").reason, "its pods span the nodes of policies a and b");
  EXPECT_EQ(Find(p, "prod/medium").decision, Decision::kMig);  // the others are still planned
  for (const auto& patch : p.artifacts.workload_patches) EXPECT_NE(patch.name, "small");
}

TEST(Planner, ReasonsForWorkloadsThatStay) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddNode("l4-1", "NVIDIA-L4", 4, 23034, 3.0);
  f.AddDeployment("prod", "nohist", {"a100-1"}, 1);
  f.AddDeployment("prod", "young", {"a100-1"}, 1);
  f.AddUsage("prod", "young", 1, 2000, 0.1, /*hours=*/10);
  f.AddDeployment("prod", "garbled", {"a100-1"}, 1);
  f.AddUsage("prod", "garbled", 1, 2000, 0.1, 48, /*bad=*/3);
  f.AddDeployment("prod", "busy", {"a100-1"}, 1);
  f.AddUsage("prod", "busy", 1, 38000, 0.95);
  f.AddDeployment("prod", "train", {"a100-1"}, 1, /*gpus=*/2);
  f.AddUsage("prod", "train", 1, 2000, 0.1);
  f.AddDeployment("prod", "bare", {"a100-1"}, 1, 1, "Pod");
  f.AddDeployment("prod", "l4svc", {"l4-1"}, 1);
  f.AddUsage("prod", "l4svc", 1, 2000, 0.1);
  f.AddDeployment("prod", "computey", {"a100-1"}, 1);
  f.AddUsage("prod", "computey", 1, 1000, 0.5);  // 50% x 1.2 = 60% -> needs 5/7 compute: 7g only among the defaults? no: 4g is 4/7=57% < 60%
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_NE(Find(p, "prod/nohist").reason.find("no DCGM history"), std::string::npos);
  EXPECT_NE(Find(p, "prod/young").reason.find("too little history: 10.0h < 24.0h"), std::string::npos);
  EXPECT_NE(Find(p, "prod/garbled").reason.find("3 unparseable samples"), std::string::npos);
  EXPECT_NE(Find(p, "prod/busy").reason.find("busy"), std::string::npos);
  EXPECT_NE(Find(p, "prod/train").reason.find("multi-GPU: 2 GPUs per pod"), std::string::npos);
  EXPECT_NE(Find(p, "prod/bare").reason.find("bare pod"), std::string::npos);
  EXPECT_NE(Find(p, "prod/l4svc").reason.find("no MIG on L4"), std::string::npos);
  EXPECT_NE(Find(p, "prod/computey").reason.find("busy"), std::string::npos);
  for (const auto& w : p.workloads) EXPECT_EQ(w.decision, Decision::kUnchanged) << w.ref.Display();
  EXPECT_TRUE(p.artifacts.workload_patches.empty());
  EXPECT_TRUE(p.artifacts.mig_parted_config.empty());
}

TEST(Planner, ComputeDecidesTheSliceWhenMemoryIsSmall) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddDeployment("prod", "svc", {"a100-1"}, 1);
  f.AddUsage("prod", "svc", 1, 1000, 0.30);  // 36% compute with headroom: 3g (3/7 = 43%)
  Plan p = f.Run();
  EXPECT_EQ(Find(p, "prod/svc").slice, "3g.20gb");
}

TEST(Planner, AllowedProfilesAndHeadroomAreHonoured) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddDeployment("prod", "svc", {"a100-1"}, 1);
  f.AddUsage("prod", "svc", 1, 4500, 0.05);  // 4500 x 1.2 = 5400 > 4864: not 1g.5gb
  f.policy.allowed_profiles = {"1g.5gb", "3g.20gb"};
  f.policy.allowed_profiles_set = true;
  Plan p = f.Run();
  EXPECT_EQ(Find(p, "prod/svc").slice, "3g.20gb");
  f.policy.headroom = 0.0;
  f.policy.headroom_text = "0%";
  p = f.Run();
  EXPECT_EQ(Find(p, "prod/svc").slice, "1g.5gb");
}

TEST(Planner, TimeSlicingOnlyInListedNamespacesAndSafeReplicas) {
  Fixture f;
  f.AddNode("l4-1", "NVIDIA-L4", 4, 23034, 3.0);
  f.AddNode("l4-2", "NVIDIA-L4", 4, 23034, 3.0);
  f.AddDeployment("ml-dev", "nb", {"l4-1", "l4-2"}, 6);
  f.AddUsage("ml-dev", "nb", 6, 5000, 0.10);  // 6000 MiB, 12% with headroom: 3 fit in 23034
  Plan p = f.Run();
  CheckInvariants(p);
  const WorkloadDecision& nb = Find(p, "ml-dev/nb");
  ASSERT_EQ(nb.decision, Decision::kTimeSlicing);
  EXPECT_EQ(p.summary.nodes_freed, 1);
  int ts_nodes = 0;
  for (const auto& n : p.nodes) {
    if (n.method != "time-slicing") continue;
    ++ts_nodes;
    ASSERT_TRUE(n.time_slicing_replicas.has_value());
    const int r = *n.time_slicing_replicas;
    EXPECT_GE(r, 2);
    EXPECT_LE(r, f.policy.max_replicas);
    EXPECT_LE(r * 6000, 23034);  // any r pods fit one GPU
    EXPECT_EQ(n.labels.at("nvidia.com/device-plugin.config"), ContentName(DevicePluginConfig(r)));
    EXPECT_NE(n.isolation.find("NO memory or fault isolation"), std::string::npos);
  }
  EXPECT_EQ(ts_nodes, 1);
  ASSERT_EQ(p.artifacts.workload_patches.size(), 1u);
  EXPECT_NE(p.artifacts.workload_patches[0].patch_json.find("nvidia.com/gpu.shared"), std::string::npos);
}

TEST(Planner, MaxReplicasBoundsSharing) {
  Fixture f;
  f.policy.max_replicas = 2;
  f.AddNode("l4-1", "NVIDIA-L4", 1, 23034);
  f.AddNode("l4-2", "NVIDIA-L4", 1, 23034);
  f.AddNode("l4-3", "NVIDIA-L4", 1, 23034);
  f.AddDeployment("ml-dev", "tiny", {"l4-1", "l4-2", "l4-3"}, 3);
  f.AddUsage("ml-dev", "tiny", 3, 500, 0.01);
  Plan p = f.Run();
  CheckInvariants(p);
  for (const auto& n : p.nodes) {
    if (n.time_slicing_replicas) {
      EXPECT_LE(*n.time_slicing_replicas, 2);
    }
  }
  EXPECT_EQ(p.summary.gpus_after, 2);
  const WorkloadDecision& tiny = Find(p, "ml-dev/tiny");
  ASSERT_EQ(tiny.decision, Decision::kTimeSlicing);
  EXPECT_EQ(tiny.slice, "1/2");
  const std::string tail = "shares a GPU with up to 1 other pod";
  ASSERT_GE(tiny.reason.size(), tail.size());
  EXPECT_EQ(tiny.reason.substr(tiny.reason.size() - tail.size()), tail) << tiny.reason;
}

TEST(Planner, LoneTimeSlicedPodStays) {
  Fixture f;
  f.AddNode("l4-1", "NVIDIA-L4", 4, 23034);
  f.AddDeployment("ml-dev", "big", {"l4-1"}, 1);
  f.AddUsage("ml-dev", "big", 1, 15000, 0.3);
  Plan p = f.Run();
  EXPECT_EQ(Find(p, "ml-dev/big").decision, Decision::kUnchanged);
  EXPECT_NE(Find(p, "ml-dev/big").reason.find("no other time-sliced pod fits beside it"), std::string::npos);
}

TEST(Planner, CordonedAndAlreadySharedNodesAreLeftAlone) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960).unschedulable = true;
  model::Node& shared = f.AddNode("a100-2", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  shared.labels["nvidia.com/mig.config"] = "kubeon-a100-40gb-1234";
  f.AddNode("a100-3", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddDeployment("prod", "on-cordoned", {"a100-1"}, 1);
  f.AddUsage("prod", "on-cordoned", 1, 1000, 0.05);
  f.AddDeployment("prod", "on-shared", {"a100-2"}, 1);
  f.AddUsage("prod", "on-shared", 1, 1000, 0.05);
  f.AddDeployment("prod", "ok", {"a100-3"}, 1);
  f.AddUsage("prod", "ok", 1, 1000, 0.05);
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_NE(Find(p, "prod/on-cordoned").reason.find("cordoned"), std::string::npos);
  EXPECT_NE(Find(p, "prod/on-shared").reason.find("already shared"), std::string::npos);
  EXPECT_EQ(Find(p, "prod/ok").decision, Decision::kMig);
  EXPECT_EQ(FindNode(p, "a100-1").method, "none");
  EXPECT_EQ(FindNode(p, "a100-2").method, "none");
  EXPECT_EQ(FindNode(p, "a100-3").method, "mig");
}

TEST(Planner, NodeSelectorLimitsScope) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddNode("h100-1", "NVIDIA-H100-80GB-HBM3", 8, 81559);
  f.AddDeployment("prod", "a", {"a100-1"}, 1);
  f.AddUsage("prod", "a", 1, 1000, 0.05);
  f.AddDeployment("prod", "h", {"h100-1"}, 1);
  f.AddUsage("prod", "h", 1, 1000, 0.05);
  f.policy.node_selector = {{"pool", "NVIDIA-H100-80GB-HBM3"}};
  Plan p = f.Run();
  ASSERT_EQ(p.nodes.size(), 1u);
  EXPECT_EQ(p.nodes[0].name, "h100-1");
  ASSERT_EQ(p.workloads.size(), 1u);
  EXPECT_EQ(p.workloads[0].slice, "1g.10gb");
}

// A node keeping a whole-GPU pod next to new MIG GPUs changes its MIG mode,
// which resets every GPU of it: the staying pod is disrupted.
struct StayingFixture : Fixture {
  StayingFixture(double big_compute, const std::string& big_kind = "Deployment") {
    AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 4, 40960);
    AddNode("a100-2", "NVIDIA-A100-SXM4-40GB", 4, 40960);
    AddDeployment("prod", "big", {"a100-1"}, 1, 1, big_kind);
    AddUsage("prod", "big", 1, 39000, big_compute);
    AddDeployment("prod", "small", {"a100-2"}, 2);
    AddUsage("prod", "small", 2, 1000, 0.05);
  }
};

TEST(Planner, RestartableIdleStayingPodIsDisruptedAndListed) {
  StayingFixture f(0.3);
  Plan p = f.Run();
  CheckInvariants(p);
  // The small pods move beside the staying one; a100-2 is freed.
  EXPECT_TRUE(FindNode(p, "a100-2").freed);
  const NodePlan& n1 = FindNode(p, "a100-1");
  EXPECT_EQ(n1.method, "mig");
  EXPECT_EQ(n1.gpus_after, 2);
  EXPECT_NE(p.artifacts.mig_parted_config.find("- devices: [1, 2, 3]\n      mig-enabled: false"), std::string::npos);
  ASSERT_EQ(n1.disrupted_pods.size(), 1u);
  EXPECT_EQ(n1.disrupted_pods[0].pod, "prod/big-rs-0");
  EXPECT_EQ(n1.disrupted_pods[0].owner, "Deployment/big");
  EXPECT_NE(n1.disrupted_pods[0].why.find("resets every GPU of the node"), std::string::npos);
  EXPECT_NE(n1.disrupted_pods[0].why.find("Deployment recreates it"), std::string::npos);
  EXPECT_EQ(p.summary.pods_disrupted, 1);
  EXPECT_EQ(p.summary.safety_cost_gpus, 0);
  EXPECT_EQ(p.summary.safety_cost_monthly_usd, 0);
}

TEST(Planner, BusyStayingPodKeepsMigOffItsNodeAndTheCostIsStated) {
  StayingFixture f(0.9);
  Plan p = f.Run();
  CheckInvariants(p);
  const NodePlan& n1 = FindNode(p, "a100-1");
  const NodePlan& n2 = FindNode(p, "a100-2");
  EXPECT_EQ(n1.method, "none");
  EXPECT_TRUE(n1.disrupted_pods.empty());
  bool noted = false;
  for (const auto& note : n1.notes) noted = noted || (note.find("takes no MIG GPUs") != std::string::npos &&
                                                      note.find("busy") != std::string::npos);
  EXPECT_TRUE(noted);
  // The small pods share one MIG GPU on their own node, which stays.
  EXPECT_EQ(n2.method, "mig");
  EXPECT_EQ(n2.gpus_after, 1);
  EXPECT_FALSE(n2.freed);
  EXPECT_EQ(p.summary.pods_disrupted, 0);
  // Disrupting the busy pod would have freed a100-2 whole ($10/h) instead of 1 of its GPUs ($2.50/h).
  EXPECT_EQ(p.summary.safety_cost_gpus, 0);
  EXPECT_NEAR(p.summary.safety_cost_monthly_usd, (10.0 - 2.5) * 730, 0.01);
}

TEST(Planner, NoSafeRoomKeepsWorkloadsWholeAndCountsTheGpusNotFreed) {
  // The only MIG-capable node keeps a busy pod: the small pods cannot move
  // safely, and the plan says so and what it costs.
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 4, 40960);
  f.AddDeployment("prod", "big", {"a100-1"}, 1);
  f.AddUsage("prod", "big", 1, 39000, 0.9);
  f.AddDeployment("prod", "small", {"a100-1"}, 3);
  f.AddUsage("prod", "small", 3, 1000, 0.05);
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_EQ(Find(p, "prod/small").decision, Decision::kUnchanged);
  EXPECT_NE(Find(p, "prod/small").reason.find("stayingPods: Restartable"), std::string::npos)
      << Find(p, "prod/small").reason;
  EXPECT_EQ(p.summary.gpus_after, 4);
  // Disrupting the busy pod would leave 2 GPUs held (it, and one MIG GPU for the three).
  EXPECT_EQ(p.summary.safety_cost_gpus, 2);
  EXPECT_NEAR(p.summary.safety_cost_monthly_usd, 2 * 10.0 / 4 * 730, 0.01);
}

TEST(Planner, StayingPodsAnyAllowsDisruptingBusyPods) {
  StayingFixture f(0.9);
  f.policy.staying_pods = policy::StayingPods::kAny;
  Plan p = f.Run();
  CheckInvariants(p);
  const NodePlan& n1 = FindNode(p, "a100-1");
  EXPECT_EQ(n1.method, "mig");
  ASSERT_EQ(n1.disrupted_pods.size(), 1u);
  EXPECT_NE(n1.disrupted_pods[0].why.find("busy"), std::string::npos);
  EXPECT_NE(n1.disrupted_pods[0].why.find("stayingPods: Any"), std::string::npos);
  EXPECT_TRUE(FindNode(p, "a100-2").freed);
  EXPECT_EQ(p.summary.safety_cost_monthly_usd, 0);
}

TEST(Planner, StayingPodsNoneNeverDisrupts) {
  StayingFixture f(0.1);
  f.policy.staying_pods = policy::StayingPods::kNone;
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_EQ(FindNode(p, "a100-1").method, "none");
  EXPECT_EQ(FindNode(p, "a100-2").method, "mig");
  EXPECT_EQ(p.summary.pods_disrupted, 0);
  EXPECT_GT(p.summary.safety_cost_monthly_usd, 0);
}

TEST(Planner, StayingPodsThatCannotComeBackVetoTheirNode) {
  struct Case {
    const char* name;
    std::function<void(StayingFixture&)> setup;
    const char* why;
  };
  const Case cases[] = {
      {"job", [](StayingFixture&) {}, "Job pod"},
      {"bare", [](StayingFixture&) {}, "bare pod"},
      {"safe-to-evict", [](StayingFixture& f) { f.cluster.pods[0].safe_to_evict = false; }, "safe-to-evict"},
      {"local storage", [](StayingFixture& f) { f.cluster.pods[0].local_volumes = {"scratch"}; }, "volume scratch"},
      {"no history", [](StayingFixture& f) { f.history.pods.erase({"prod", "big-rs-0"}); }, "no compute history"},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    StayingFixture f(0.1, name == "job" ? "Job" : name == "bare" ? "Pod" : "Deployment");
    c.setup(f);
    Plan p = f.Run();
    CheckInvariants(p);
    const NodePlan& n1 = FindNode(p, "a100-1");
    EXPECT_EQ(n1.method, "none") << c.name;
    bool noted = false;
    for (const auto& note : n1.notes) noted = noted || note.find(c.why) != std::string::npos;
    EXPECT_TRUE(noted) << c.name;
    EXPECT_EQ(p.summary.pods_disrupted, 0) << c.name;
  }
}

TEST(Planner, FewerDisruptionsBreakEqualDollars) {
  // One MIG GPU holds both small pods.  On a100-3 (beside a staying pod) it
  // frees a100-1 ($5/h); on a100-1 it frees one GPU of a100-3 ($20/h / 4).
  // Equal dollars: the node whose GPU pods all move takes it.
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 2, 40960, 5.0);
  f.AddNode("a100-3", "NVIDIA-A100-SXM4-40GB", 4, 40960, 20.0);
  f.AddDeployment("prod", "keep", {"a100-3"}, 1);
  f.AddUsage("prod", "keep", 1, 39000, 0.2);
  f.AddDeployment("prod", "small", {"a100-1", "a100-3"}, 2);
  f.AddUsage("prod", "small", 2, 1000, 0.05);
  Plan p = f.Run();
  CheckInvariants(p);
  EXPECT_EQ(FindNode(p, "a100-1").method, "mig");
  EXPECT_EQ(FindNode(p, "a100-3").method, "none");
  EXPECT_EQ(p.summary.pods_disrupted, 0);
  EXPECT_NEAR(p.summary.monthly_savings_usd, 5.0 * 730, 0.01);
  // At $6/h for a100-1, freeing it is worth more: the MIG GPU goes beside the staying pod.
  f.cluster.nodes[0].hourly_price_usd = 6.0;
  p = f.Run();
  CheckInvariants(p);
  EXPECT_TRUE(FindNode(p, "a100-1").freed);
  EXPECT_EQ(FindNode(p, "a100-3").method, "mig");
  EXPECT_EQ(p.summary.pods_disrupted, 1);
}

TEST(Planner, HistoryOfReplacedPodsCountsTowardsTheWorkload) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddDeployment("prod", "svc", {"a100-1"}, 1);
  f.AddUsage("prod", "svc", 1, 1000, 0.05);
  // An earlier pod of the same ReplicaSet peaked higher.
  metrics::PodUsage old;
  old.peak_memory_mib = 8000;
  old.compute.Add(0.05);
  old.samples = 1;
  old.first_ts_ms = 0;
  old.last_ts_ms = kHourMs;
  old.gaps.AddSpan(old.last_ts_ms - old.first_ts_ms);
  f.history.pods[{"prod", "svc-rs-zzzzz"}] = old;
  Plan p = f.Run();
  EXPECT_EQ(*Find(p, "prod/svc").peak_memory_mib, 8000);
  EXPECT_EQ(Find(p, "prod/svc").slice, "1g.10gb");  // 8000 x 1.2 = 9600 <= 9856
}

TEST(Planner, UnknownGpuProductIsReported) {
  Fixture f;
  f.AddNode("x-1", "NVIDIA-Mystery-9000", 8, 40960);
  f.AddDeployment("prod", "svc", {"x-1"}, 1);
  f.AddUsage("prod", "svc", 1, 1000, 0.05);
  Plan p = f.Run();
  EXPECT_NE(Find(p, "prod/svc").reason.find("not in the MIG catalog"), std::string::npos);
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings[0].find("NVIDIA-Mystery-9000"), std::string::npos);
}

// What the snapshot reader warned about (an invalid price annotation, GPU
// pods on missing nodes) is in the plan's warnings, first.
TEST(Planner, SnapshotWarningsReachThePlan) {
  Fixture f;
  f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  f.AddDeployment("prod", "svc", {"a100-1"}, 1);
  f.AddUsage("prod", "svc", 1, 1000, 0.05);
  f.cluster.warnings = {"c.json: items[0] (Node a100-1): annotation kubeon.io/hourly-price-usd: \"nan\" ...",
                        "c.json: 1 GPU pod is bound to nodes missing from the snapshot ..."};
  Plan p = f.Run();
  ASSERT_GE(p.warnings.size(), 2u);
  EXPECT_EQ(p.warnings[0], f.cluster.warnings[0]);
  EXPECT_EQ(p.warnings[1], f.cluster.warnings[1]);
}

TEST(Planner, MissingPriceIsSaidNotGuessed) {
  Fixture f;
  model::Node& n = f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  n.hourly_price_usd.reset();
  n.instance_type = "mystery.large";
  f.AddDeployment("prod", "svc", {"a100-1"}, 2);
  f.AddUsage("prod", "svc", 2, 1000, 0.05);
  Plan p = f.Run();
  EXPECT_EQ(p.summary.monthly_savings_usd, 0);
  EXPECT_EQ(p.summary.gpus_freed, 1);
  bool noted = false;
  for (const auto& note : FindNode(p, "a100-1").notes) noted = noted || note.find("no price") != std::string::npos;
  EXPECT_TRUE(noted);
  f.options.instance_prices_usd["mystery.large"] = 16.0;
  p = f.Run();
  EXPECT_NEAR(p.summary.monthly_savings_usd, 1 * 16.0 / 8 * 730, 1e-6);
  EXPECT_EQ(FindNode(p, "a100-1").price_source, "prices file");
}

TEST(Planner, SecondRunDoesNotUndoTheFirst) {
  Fixture f;
  model::Node& n = f.AddNode("a100-1", "NVIDIA-A100-SXM4-40GB", 8, 40960);
  n.capacity["nvidia.com/mig-1g.5gb"] = 7;
  f.AddDeployment("prod", "svc", {"a100-1"}, 1);
  f.cluster.pods.back().gpus = 0;
  f.cluster.pods.back().gpu_slices["nvidia.com/mig-1g.5gb"] = 1;
  f.AddUsage("prod", "svc", 1, 1000, 0.05);
  Plan p = f.Run();
  EXPECT_EQ(Find(p, "prod/svc").decision, Decision::kUnchanged);
  EXPECT_EQ(FindNode(p, "a100-1").method, "none");
  EXPECT_TRUE(p.artifacts.workload_patches.empty());
}

// Random clusters: the invariants hold and the plan never uses more GPUs than before.
TEST(Planner, PropertyRandomClusters) {
  std::mt19937_64 rng(7);
  const std::vector<std::pair<std::string, int64_t>> models = {{"NVIDIA-A100-SXM4-40GB", 40960},
                                                               {"NVIDIA-A100-SXM4-80GB", 81920},
                                                               {"NVIDIA-H100-80GB-HBM3", 81559},
                                                               {"NVIDIA-A30", 24576},
                                                               {"NVIDIA-L4", 23034}};
  for (int round = 0; round < 60; ++round) {
    Fixture f;
    const int nodes = 1 + static_cast<int>(rng() % 6);
    std::vector<std::string> names;
    for (int i = 0; i < nodes; ++i) {
      const auto& m = models[rng() % models.size()];
      const int gpus = 1 + static_cast<int>(rng() % 8);
      names.push_back("n" + std::to_string(i));
      f.AddNode(names.back(), m.first, gpus, m.second, 1.0 + static_cast<double>(rng() % 40));
    }
    std::vector<int> free_gpus;
    for (const auto& n : f.cluster.nodes) free_gpus.push_back(n.gpu_count);
    for (int w = 0; w < 12; ++w) {
      const int ni = static_cast<int>(rng() % nodes);
      if (free_gpus[ni] == 0) continue;
      --free_gpus[ni];
      const std::string ns = (rng() % 3 == 0) ? "ml-dev" : "prod";
      const std::string name = "w" + std::to_string(w);
      f.AddDeployment(ns, name, {names[ni]}, 1);
      const int64_t mem = static_cast<int64_t>(rng() % 30000);
      f.AddUsage(ns, name, 1, mem, static_cast<double>(rng() % 100) / 100.0);
    }
    Plan p = f.Run();
    CheckInvariants(p);
    EXPECT_LE(p.summary.gpus_after, p.summary.gpus_before);
    EXPECT_GE(p.summary.moved_gpus_after, p.summary.gpus_lower_bound);
  }
}

}  // namespace
}  // namespace kubeon::plan
