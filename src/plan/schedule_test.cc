// Tests for schedule.h: every schedule the planner emits is replayed by the
// independent checker (schedule_checker.h) on the demo cluster, handcrafted
// cases and random clusters; the handcrafted cases also check the answer
// (infeasible with the right spare count, flags, OnDelete, placement limits,
// maxNodesPerPool, stable ids).
#include "plan/schedule.h"

#include <random>

#include <gtest/gtest.h>

#include "metrics/history.h"
#include "model/snapshot_json.h"
#include "plan/planner.h"
#include "plan/schedule_checker.h"

namespace kubeon::plan {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;
constexpr const char* kA100 = "NVIDIA-A100-SXM4-80GB";

struct Fixture {
  model::Cluster cluster;
  metrics::History history;
  policy::GpuPolicy policy;

  Fixture() { policy.name = "test"; }

  model::Node& AddNode(const std::string& name, int gpus, const std::string& product = kA100) {
    model::Node n;
    n.name = name;
    n.gpu_product = product;
    n.gpu_count = gpus;
    n.gpu_memory_mib = 81920;
    n.mig_capable = true;
    n.mig_strategy = "mixed";
    n.hourly_price_usd = 40.0;
    n.capacity[model::kGpuResource] = gpus;
    n.allocatable[model::kGpuResource] = gpus;
    n.labels["kubernetes.io/hostname"] = name;
    n.labels["nvidia.com/gpu.product"] = product;
    cluster.nodes.push_back(n);
    return cluster.nodes.back();
  }

  // A controller with `replicas` one-GPU pods on `nodes` (round robin), and
  // history that sizes them to a small MIG slice (`peak_mib`).
  model::Controller& AddOwner(const std::string& ns, const std::string& name, const std::vector<std::string>& nodes,
                              int replicas, const std::string& kind = "Deployment", int64_t peak_mib = 6000) {
    for (int i = 0; i < replicas; ++i) {
      model::Pod p;
      p.namespace_ = ns;
      p.name = name + "-" + std::to_string(i);
      p.node_name = nodes[i % nodes.size()];
      p.phase = "Running";
      p.labels["app"] = name;
      p.workload = {ns, kind, name};
      p.controller = model::OwnerRef{"apps/v1", kind == "Deployment" ? "ReplicaSet" : kind, name + "-rs", "", true};
      model::ContainerResources c;
      c.name = "main";
      c.limits[model::kGpuResource] = 1;
      p.containers.push_back(c);
      p.gpus = 1;
      cluster.pods.push_back(p);
      metrics::PodUsage u;
      u.peak_memory_mib = peak_mib;
      for (int k = 0; k < 100; ++k) u.compute.Add(0.05);
      u.first_ts_ms = 0;
      u.last_ts_ms = 48 * kHourMs;
      u.gaps.AddSpan(u.last_ts_ms - u.first_ts_ms);  // history length is coverage
      u.samples = 100;
      history.pods[{ns, p.name}] = u;
    }
    model::Controller c;
    c.namespace_ = ns;
    c.kind = kind;
    c.name = name;
    c.replicas = replicas;
    c.strategy = "RollingUpdate";
    cluster.controllers.push_back(c);
    return cluster.controllers.back();
  }

  // A PodDisruptionBudget over app=<name> in `ns` allowing `allowed` disruptions.
  void AddPdb(const std::string& ns, const std::string& name, int allowed) {
    model::PodDisruptionBudget b;
    b.namespace_ = ns;
    b.name = name + "-pdb";
    b.selector.match_labels["app"] = name;
    b.selector.empty_selects_all = false;
    b.disruptions_allowed = allowed;
    cluster.pdbs.push_back(b);
  }

  // Two full 8-GPU nodes, one owner each, whose PDBs allow no disruption:
  // none of their pods may wait Pending while its node is reconfigured.
  void AddFullPool(const std::string& n1, const std::string& n2, const std::string& product = kA100) {
    AddNode(n1, 8, product);
    AddNode(n2, 8, product);
    AddOwner("ml", "a", {n1}, 8);
    AddOwner("ml", "b", {n2}, 8);
    AddPdb("ml", "a", 0);
    AddPdb("ml", "b", 0);
  }

  Plan Run() {
    Plan p = MakePlan(cluster, history, policy, mig::MigCatalog::Builtin(), PlannerOptions{}).value();
    for (const auto& problem : CheckSchedule(cluster, p, policy)) ADD_FAILURE() << problem;
    return p;
  }
};

int CountTargets(const Plan& p) {
  int n = 0;
  for (const auto& np : p.nodes) n += np.method == "mig" || np.method == "time-slicing" ? 1 : 0;
  return n;
}

bool HasFlag(const ScheduleStep& s, const std::string& part) {
  for (const auto& f : s.flags) {
    if (f.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(Schedule, SimpleMoveUsesFreeGpusElsewhere) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddOwner("ml", "a", {"n1"}, 4);
  f.AddOwner("ml", "b", {"n2"}, 3);
  const Plan p = f.Run();
  ASSERT_EQ(CountTargets(p), 1);
  const Schedule& s = p.schedule;
  ASSERT_TRUE(s.feasible);
  ASSERT_EQ(s.steps.size(), 1u);
  const ScheduleStep& step = s.steps[0];
  EXPECT_EQ(step.index, 1);
  EXPECT_EQ(step.method, "mig");
  EXPECT_EQ(step.id, step.content_hash.substr(0, 8));
  EXPECT_EQ(step.owners.size(), 2u);
  EXPECT_TRUE(step.flags.empty());
  // The target's pods run meanwhile on the other node's free GPUs.
  const std::string target = step.nodes[0];
  const std::string other = target == "n1" ? "n2" : "n1";
  ASSERT_FALSE(step.evictions.empty());
  for (const auto& e : step.evictions) EXPECT_EQ(e.runs_meanwhile, other);
  ASSERT_EQ(step.needs.size(), 1u);
  EXPECT_EQ(step.needs[0].why, "free before the migration");
  EXPECT_EQ(step.nodes_freed, std::vector<std::string>{other});
  EXPECT_EQ(step.gpus_freed, 7 - 1);  // 7 whole GPUs held before, one MIG GPU after
  EXPECT_GT(step.monthly_savings_usd, 0);
  EXPECT_GE(step.estimated_seconds, kConfigMapSyncSeconds + kMigApplySecondsPerGpu);
  EXPECT_NE(step.layout_after.at(target).find("MIG"), std::string::npos);
  // Capacity is written as data.
  bool saw = false;
  for (const auto& c : s.capacity) {
    if (c.node == "n1" && c.resource == model::kGpuResource) {
      EXPECT_EQ(c.allocatable, 8);
      EXPECT_EQ(c.requested, 4);
      EXPECT_EQ(c.free, 4);
      saw = true;
    }
  }
  EXPECT_TRUE(saw);
}

TEST(Schedule, NoSpareGpuIsInfeasibleWithTheCount) {
  Fixture f;
  f.AddFullPool("n1", "n2");
  const Plan p = f.Run();
  ASSERT_EQ(CountTargets(p), 1);
  const Schedule& s = p.schedule;
  EXPECT_FALSE(s.feasible);
  EXPECT_TRUE(s.steps.empty());
  ASSERT_EQ(s.spare_gpus_needed.size(), 1u);
  EXPECT_EQ(s.spare_gpus_needed.begin()->first, "A100-80GB");
  EXPECT_EQ(s.spare_gpus_needed.begin()->second, 8);  // the target's 8 pods, nowhere else to go
  EXPECT_EQ(s.blocked_pools.size(), 1u);
  EXPECT_EQ(s.blocked_pools.count("A100-80GB"), 1u);
  bool warned = false;
  for (const auto& w : p.warnings) {
    warned = warned || w.find("pool A100-80GB: its evicted pods need 8 spare whole A100-80GB GPU(s)") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

// A pool whose order does not fit holds back no other pool: the H100 pool's
// step is scheduled, the A100 pool is blocked with what it needs, and its
// nodes stay as they are.
TEST(Schedule, ABlockedPoolHoldsBackNoOtherPool) {
  Fixture f;
  const std::string h100 = "NVIDIA-H100-80GB-HBM3";
  f.AddFullPool("a1", "a2");
  for (auto& pod : f.cluster.pods) pod.node_selector["nvidia.com/gpu.product"] = kA100;
  f.AddNode("h1", 8, h100);
  f.AddNode("h2", 8, h100);
  f.AddOwner("ml", "c", {"h1"}, 3);
  const Plan p = f.Run();
  const Schedule& s = p.schedule;
  EXPECT_FALSE(s.feasible);
  ASSERT_EQ(s.blocked_pools.size(), 1u);
  EXPECT_EQ(s.blocked_pools.begin()->first, "A100-80GB");
  EXPECT_EQ(s.spare_gpus_needed.at("A100-80GB"), 8);
  ASSERT_FALSE(s.steps.empty());
  for (const auto& st : s.steps) {
    EXPECT_EQ(st.gpu_model, "H100-80GB");
    for (const auto& n : st.nodes) EXPECT_TRUE(n == "h1" || n == "h2") << n;
  }
  bool warned = false;
  for (const auto& w : p.warnings) warned = warned || w.find("the other pools' ") != std::string::npos;
  EXPECT_TRUE(warned);
}

// Pods of an owner that moves onto the step's own node have nowhere to run
// meanwhile; they may wait Pending within their PodDisruptionBudget's
// allowance (the rollout at the end of the step replaces them), and without
// a PDB only in a flagged step.
TEST(Schedule, PodsOfOwnersMovingOntoTheStepWaitWithinTheirBudget) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddOwner("ml", "a", {"n1"}, 8);
  f.AddOwner("ml", "b", {"n2"}, 8);
  f.AddPdb("ml", "a", 8);
  f.AddPdb("ml", "b", 8);
  Plan p = f.Run();
  ASSERT_TRUE(p.schedule.feasible);
  ASSERT_FALSE(p.schedule.steps.empty());
  for (const auto& st : p.schedule.steps) {
    EXPECT_TRUE(st.flags.empty()) << st.flags.front();
    for (const auto& e : st.evictions) EXPECT_EQ(e.runs_meanwhile, "") << e.pod;
    EXPECT_EQ(st.disrupted.size(), st.evictions.size());
    for (const auto& d : st.disrupted) EXPECT_NE(d.why.find("PodDisruptionBudget ml/"), std::string::npos) << d.why;
  }
  // Without PDBs the same order is possible, but the step is flagged for a reviewer.
  Fixture g;
  g.AddNode("n1", 8);
  g.AddNode("n2", 8);
  g.AddOwner("ml", "a", {"n1"}, 8);
  g.AddOwner("ml", "b", {"n2"}, 8);
  Plan q = g.Run();
  ASSERT_TRUE(q.schedule.feasible);
  ASSERT_FALSE(q.schedule.steps.empty());
  ASSERT_FALSE(q.schedule.steps[0].flags.empty());
  EXPECT_NE(q.schedule.steps[0].flags[0].find("without a PodDisruptionBudget wait Pending"), std::string::npos);
  // A budget smaller than the pods that would wait: no order fits.
  Fixture h;
  h.AddNode("n1", 8);
  h.AddNode("n2", 8);
  h.AddOwner("ml", "a", {"n1"}, 8);
  h.AddOwner("ml", "b", {"n2"}, 8);
  h.AddPdb("ml", "a", 1);
  h.AddPdb("ml", "b", 1);
  EXPECT_FALSE(h.Run().schedule.feasible);
}

TEST(Schedule, OneSpareNodeMakesItFit) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddNode("spare", 8).labels["role"] = "spare";
  f.AddOwner("ml", "a", {"n1"}, 8);
  f.AddOwner("ml", "b", {"n2"}, 8);
  const Plan p = f.Run();
  ASSERT_TRUE(p.schedule.feasible);
  EXPECT_FALSE(p.schedule.steps.empty());
}

// The spare nodes are L4s (no MIG), so the planner does not make them targets.
TEST(Schedule, TaintsAndSelectorsLimitWhereEvictedPodsRun) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddNode("tainted", 8, "NVIDIA-L4").taints.push_back({"dedicated", "other", "NoSchedule"});
  f.AddNode("cordoned", 8, "NVIDIA-L4").unschedulable = true;
  f.AddOwner("ml", "a", {"n1"}, 8);
  f.AddOwner("ml", "b", {"n2"}, 8);
  f.AddPdb("ml", "a", 0);
  f.AddPdb("ml", "b", 0);
  const Plan p = f.Run();
  EXPECT_FALSE(p.schedule.feasible) << "evicted pods may use neither the tainted nor the cordoned node";
  // Tolerating the taint makes it fit.
  Fixture g;
  g.AddNode("n1", 8);
  g.AddNode("n2", 8);
  g.AddNode("tainted", 8, "NVIDIA-L4").taints.push_back({"dedicated", "other", "NoSchedule"});
  g.AddOwner("ml", "a", {"n1"}, 8);
  g.AddOwner("ml", "b", {"n2"}, 8);
  for (auto& pod : g.cluster.pods) pod.tolerations.push_back({"dedicated", "Equal", "other", "NoSchedule"});
  const Plan q = g.Run();
  ASSERT_TRUE(q.schedule.feasible);
  for (const auto& e : q.schedule.steps[0].evictions) EXPECT_EQ(e.runs_meanwhile, "tainted");
  // A nodeSelector that the free node does not match.
  Fixture h;
  h.AddNode("n1", 8);
  h.AddNode("n2", 8);
  h.AddNode("free", 8, "NVIDIA-L4");  // not a MIG target: only a place to run meanwhile
  h.AddOwner("ml", "a", {"n1"}, 8);
  h.AddOwner("ml", "b", {"n2"}, 8);
  for (auto& pod : h.cluster.pods) pod.node_selector["zone"] = "a";
  for (auto& n : h.cluster.nodes) n.labels["zone"] = n.name == "free" ? "b" : "a";
  h.AddPdb("ml", "a", 0);
  h.AddPdb("ml", "b", 0);
  EXPECT_FALSE(h.Run().schedule.feasible);
}

TEST(Schedule, RecreateAgainstPdbIsFlagged) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddOwner("ml", "a", {"n1"}, 4).strategy = "Recreate";
  f.AddOwner("ml", "b", {"n2"}, 3);
  model::PodDisruptionBudget pdb;
  pdb.namespace_ = "ml";
  pdb.name = "a-pdb";
  pdb.selector.match_labels["app"] = "a";
  pdb.max_unavailable = "0";
  pdb.disruptions_allowed = 0;
  f.cluster.pdbs.push_back(pdb);
  const Plan p = f.Run();
  ASSERT_TRUE(p.schedule.feasible);
  ASSERT_EQ(p.schedule.steps.size(), 1u);
  const ScheduleStep& step = p.schedule.steps[0];
  bool found = false;
  for (const auto& o : step.owners) {
    if (o.owner.name != "a") continue;
    found = true;
    EXPECT_EQ(o.strategy, "Recreate");
    EXPECT_EQ(o.max_unavailable, 4);
    EXPECT_EQ(o.pdb, "ml/a-pdb");
    EXPECT_EQ(o.pdb_disruptions_allowed, 0);
    EXPECT_FALSE(o.pdb_ok);
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(HasFlag(step, "ml/a-pdb allows 0"));
}

TEST(Schedule, RollingUpdateResolvesSurgeAndUnavailable) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  model::Controller& a = f.AddOwner("ml", "a", {"n1"}, 4);
  a.max_surge = "50%";
  a.max_unavailable = "0";
  f.AddOwner("ml", "b", {"n2"}, 3);
  model::PodDisruptionBudget pdb;
  pdb.namespace_ = "ml";
  pdb.name = "a-pdb";
  pdb.selector.match_labels["app"] = "a";
  pdb.disruptions_allowed = 0;
  f.cluster.pdbs.push_back(pdb);
  const Plan p = f.Run();
  ASSERT_EQ(p.schedule.steps.size(), 1u);
  for (const auto& o : p.schedule.steps[0].owners) {
    if (o.owner.name == "a") {
      EXPECT_EQ(o.max_surge, 2);
      EXPECT_EQ(o.max_unavailable, 0);
      EXPECT_TRUE(o.pdb_ok);
    } else {
      EXPECT_EQ(o.max_surge, 1);        // 25% of 3 rounded up
      EXPECT_EQ(o.max_unavailable, 0);  // 25% of 3 rounded down
    }
  }
  EXPECT_TRUE(p.schedule.steps[0].flags.empty());
}

// The largest values the snapshot reader lets through (2^31-1 and
// "2147483647%") neither overflow the batch sum nor the percent conversion (UBSan).
TEST(Schedule, HugeSurgeAndUnavailableDoNotOverflow) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  model::Controller& a = f.AddOwner("ml", "a", {"n1"}, 4);
  a.replicas = 2147483647;
  a.max_surge = "2147483647";
  a.max_unavailable = "2147483647";
  model::Controller& b = f.AddOwner("ml", "b", {"n2"}, 3);
  b.replicas = 2147483647;
  b.max_surge = "2147483647%";
  const Plan p = f.Run();
  ASSERT_FALSE(p.schedule.steps.empty());
  bool seen_a = false, seen_b = false;
  for (const auto& step : p.schedule.steps) {
    for (const auto& o : step.owners) {
      if (o.owner.name == "a") {
        seen_a = true;
        EXPECT_EQ(o.max_surge, 2147483647);
        EXPECT_EQ(o.max_unavailable, 2147483647);
      } else if (o.owner.name == "b") {
        seen_b = true;
        EXPECT_EQ(o.max_surge, 2147483647);  // clamped, not converted out of range
      }
    }
  }
  EXPECT_TRUE(seen_a);
  EXPECT_TRUE(seen_b);
}

TEST(Schedule, OnDeleteStatefulSetIsMovedPodByPod) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddOwner("ml", "db", {"n1"}, 4, "StatefulSet").strategy = "OnDelete";
  f.AddOwner("ml", "b", {"n2"}, 3);
  model::PodDisruptionBudget pdb;
  pdb.namespace_ = "ml";
  pdb.name = "db";
  pdb.selector.match_labels["app"] = "db";
  pdb.disruptions_allowed = 1;
  f.cluster.pdbs.push_back(pdb);
  const Plan p = f.Run();
  ASSERT_EQ(p.schedule.steps.size(), 1u);
  for (const auto& o : p.schedule.steps[0].owners) {
    if (o.owner.name != "db") continue;
    EXPECT_EQ(o.strategy, "OnDelete");
    EXPECT_EQ(o.max_unavailable, 1);
    EXPECT_TRUE(o.pdb_ok);
  }
  EXPECT_TRUE(p.schedule.steps[0].flags.empty());
}

TEST(Schedule, TooFewSlotsForTheReplicasIsFlagged) {
  // The Deployment wants 5 replicas but only 4 pods run: the plan has 4 slots.
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddOwner("ml", "a", {"n1"}, 4).replicas = 5;
  f.AddOwner("ml", "b", {"n2"}, 3);
  const Plan p = f.Run();
  ASSERT_EQ(p.schedule.steps.size(), 1u);
  EXPECT_TRUE(HasFlag(p.schedule.steps[0], "Deployment ml/a: 4 slots planned for 5 replicas"));
}

TEST(Schedule, GitOpsOwnersAreFlaggedUnlessThePolicyAllows) {
  for (const bool allow : {false, true}) {
    Fixture f;
    f.policy.patch_gitops_owners = allow;
    f.AddNode("n1", 8);
    f.AddNode("n2", 8);
    model::Controller& a = f.AddOwner("ml", "a", {"n1"}, 4);
    a.labels["app.kubernetes.io/instance"] = "a";
    a.annotations["argocd.argoproj.io/tracking-id"] = "a:apps/Deployment:ml/a";
    f.AddOwner("ml", "b", {"n2"}, 3).managers = {"kubectl-client-side-apply", "helm"};
    const Plan p = f.Run();
    ASSERT_EQ(p.schedule.steps.size(), 1u);
    const ScheduleStep& step = p.schedule.steps[0];
    for (const auto& o : step.owners) EXPECT_EQ(o.gitops, o.owner.name == "a" ? "Argo CD" : "Helm");
    EXPECT_EQ(HasFlag(step, "managed by Argo CD"), !allow);
    EXPECT_EQ(HasFlag(step, "managed by Helm"), !allow);
    for (const auto& o : step.owners) EXPECT_FALSE(o.patch_json.empty());
  }
}

TEST(Schedule, GitOpsDetection) {
  model::Controller c;
  EXPECT_EQ(GitOpsManager(c), "");
  c.labels["argocd.argoproj.io/instance"] = "x";
  EXPECT_EQ(GitOpsManager(c), "Argo CD");
  c = {};
  c.managers = {"argocd-controller"};
  EXPECT_EQ(GitOpsManager(c), "Argo CD");
  c = {};
  c.labels["kustomize.toolkit.fluxcd.io/name"] = "apps";
  EXPECT_EQ(GitOpsManager(c), "Flux");
  c = {};
  c.managers = {"helm-controller"};
  EXPECT_EQ(GitOpsManager(c), "Flux");
  c = {};
  c.labels["app.kubernetes.io/managed-by"] = "Helm";
  EXPECT_EQ(GitOpsManager(c), "Helm");
  c = {};
  c.annotations["meta.helm.sh/release-name"] = "r";
  EXPECT_EQ(GitOpsManager(c), "Helm");
  c = {};
  c.labels["app.kubernetes.io/instance"] = "only-instance";  // Helm and others set it too: not Argo alone
  EXPECT_EQ(GitOpsManager(c), "");
}

TEST(Schedule, MaxNodesPerPoolBoundsEachStep) {
  for (const int max_nodes : {1, 2}) {
    Fixture f;
    f.policy.max_nodes_per_pool = max_nodes;
    for (int i = 0; i < 6; ++i) f.AddNode("n" + std::to_string(i), 8);
    for (int i = 0; i < 4; ++i) f.AddOwner("ml", "w" + std::to_string(i), {"n" + std::to_string(i)}, 7, "Deployment", 30000);
    const Plan p = f.Run();
    ASSERT_TRUE(p.schedule.feasible);
    EXPECT_EQ(p.schedule.max_nodes_per_pool, max_nodes);
    size_t max_seen = 0;
    for (const auto& s : p.schedule.steps) max_seen = std::max(max_seen, s.nodes.size());
    EXPECT_LE(static_cast<int>(max_seen), max_nodes);
    if (max_nodes == 2 && CountTargets(p) >= 2) {
      EXPECT_EQ(max_seen, 2u);
    }
  }
}

TEST(Schedule, IdsAreStableAndIgnorePodNames) {
  auto build = [](const std::string& suffix) {
    Fixture f;
    f.AddNode("n1", 8);
    f.AddNode("n2", 8);
    f.AddOwner("ml", "a", {"n1"}, 4);
    f.AddOwner("ml", "b", {"n2"}, 3);
    for (auto& pod : f.cluster.pods) {
      const std::string old = pod.name;
      pod.name += suffix;
      auto u = f.history.pods.extract({pod.namespace_, old});
      u.key() = {pod.namespace_, pod.name};
      f.history.pods.insert(std::move(u));
    }
    return f.Run().schedule;
  };
  const Schedule a = build("");
  const Schedule b = build("-x9z");
  ASSERT_EQ(a.steps.size(), 1u);
  ASSERT_EQ(b.steps.size(), 1u);
  EXPECT_EQ(a.steps[0].id, b.steps[0].id);
  EXPECT_EQ(a.steps[0].content_hash, b.steps[0].content_hash);
}

TEST(Schedule, PinnedWorkloadsAreLeftOut) {
  Fixture f;
  f.AddNode("n1", 8);
  f.AddNode("n2", 8);
  f.AddOwner("ml", "a", {"n1"}, 4);
  f.AddOwner("ml", "b", {"n2"}, 3);
  f.AddOwner("ml", "local", {"n2"}, 1);
  for (auto& pod : f.cluster.pods) {
    if (pod.workload.name == "b") {
      model::NodeSelectorTerm t;
      t.match_expressions.push_back({"kubernetes.io/hostname", "In", {"n2"}});
      pod.required_node_terms.push_back(t);
    }
    if (pod.workload.name == "local") pod.local_volumes = {"scratch"};
  }
  const Plan p = f.Run();
  for (const auto& w : p.workloads) {
    if (w.ref.name == "b") {
      EXPECT_EQ(w.decision, Decision::kUnchanged);
      EXPECT_NE(w.reason.find("pinned to node n2"), std::string::npos) << w.reason;
    }
    if (w.ref.name == "local") {
      EXPECT_EQ(w.decision, Decision::kUnchanged);
    }
  }
  ASSERT_EQ(p.schedule.left_out.size(), 2u);
  EXPECT_EQ(p.schedule.left_out[0].rfind("Deployment ml/b: pod b-0 is pinned to node n2", 0), 0u) << p.schedule.left_out[0];
  EXPECT_NE(p.schedule.left_out[1].find("local storage (volume scratch)"), std::string::npos);
  for (const auto& s : p.schedule.steps) {
    for (const auto& o : s.owners) EXPECT_NE(o.owner.name, "b");
  }
}

TEST(Schedule, PinnedStayingPodWaitsForItsNode) {
  // A pod tied to the target by affinity cannot run elsewhere meanwhile: it
  // waits Pending and comes back; the step lists it as disrupted.
  Fixture f;
  f.policy.staying_pods = policy::StayingPods::kAny;
  f.AddNode("n1", 8);
  f.AddOwner("ml", "a", {"n1"}, 4);
  f.AddOwner("ml", "pinned", {"n1"}, 1);
  for (auto& pod : f.cluster.pods) {
    if (pod.workload.name != "pinned") continue;
    model::NodeSelectorTerm t;
    t.match_fields.push_back({"metadata.name", "In", {"n1"}});
    pod.required_node_terms.push_back(t);
  }
  f.AddNode("l4", 4, "NVIDIA-L4");
  const Plan p = f.Run();
  ASSERT_TRUE(p.schedule.feasible);
  ASSERT_EQ(p.schedule.steps.size(), 1u);
  const ScheduleStep& step = p.schedule.steps[0];
  bool waited = false;
  for (const auto& e : step.evictions) {
    if (e.owner == "Deployment/pinned") {
      EXPECT_EQ(e.runs_meanwhile, "");
      EXPECT_TRUE(e.comes_back);
      waited = true;
    } else {
      EXPECT_EQ(e.runs_meanwhile, "l4");
    }
  }
  EXPECT_TRUE(waited);
  bool listed = false;
  for (const auto& d : step.disrupted) listed = listed || d.pod == "ml/pinned-0";
  EXPECT_TRUE(listed);
}

TEST(Schedule, DemoClusterReplays) {
  const std::string dir = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";
  Result<model::Cluster> cluster = model::LoadClusterFile(dir + "cluster.json");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Result<metrics::History> history = metrics::ReadHistoryFile(dir + "history.om", metrics::IngestOptions{});
  ASSERT_TRUE(history.ok()) << history.status().message();
  Result<std::vector<policy::GpuPolicy>> policies = policy::LoadPolicyFile(
      dir + "policy.yaml", [](std::string_view p) { return mig::MigCatalog::Builtin().ProfileExists(p); });
  ASSERT_TRUE(policies.ok()) << policies.status().message();
  for (const auto& pol : *policies) {
    const Plan p = MakePlan(*cluster, *history, pol, mig::MigCatalog::Builtin(), PlannerOptions{}).value();
    for (const auto& problem : CheckSchedule(*cluster, p, pol)) ADD_FAILURE() << problem;
    if (p.schedule.feasible) {
      EXPECT_EQ(static_cast<int>(p.schedule.steps.size()) > 0, CountTargets(p) > 0);
    }
  }
}

TEST(Schedule, RandomClustersReplay) {
  std::mt19937 rng(20261203);
  int feasible = 0, infeasible = 0;
  for (int round = 0; round < 150; ++round) {
    Fixture f;
    f.policy.max_nodes_per_pool = 1 + static_cast<int>(rng() % 3);
    const int nodes = 2 + static_cast<int>(rng() % 6);
    std::vector<std::string> names;
    for (int i = 0; i < nodes; ++i) {
      names.push_back("n" + std::to_string(i));
      model::Node& n = f.AddNode(names.back(), 8);
      if (rng() % 6 == 0) n.taints.push_back({"dedicated", "x", "NoSchedule"});
      if (rng() % 8 == 0) n.unschedulable = true;
    }
    std::vector<int> used(nodes, 0);
    const int owners = 1 + static_cast<int>(rng() % 6);
    for (int o = 0; o < owners; ++o) {
      std::vector<std::string> on;
      const int replicas = 1 + static_cast<int>(rng() % 6);
      for (int r = 0; r < replicas; ++r) {
        const int n = static_cast<int>(rng() % nodes);
        if (used[n] < 8) {
          ++used[n];
          on.push_back(names[n]);
        }
      }
      if (on.empty()) continue;
      const std::string kind = rng() % 4 == 0 ? "StatefulSet" : "Deployment";
      model::Controller& c = f.AddOwner("ns" + std::to_string(o % 2), "w" + std::to_string(o), on,
                                        static_cast<int>(on.size()), kind, rng() % 3 == 0 ? 30000 : 6000);
      if (rng() % 3 == 0) c.strategy = kind == "StatefulSet" ? "OnDelete" : "Recreate";
      if (rng() % 4 == 0) {
        model::PodDisruptionBudget pdb;
        pdb.namespace_ = c.namespace_;
        pdb.name = c.name;
        pdb.selector.match_labels["app"] = c.name;
        pdb.disruptions_allowed = static_cast<int>(rng() % 2);
        f.cluster.pdbs.push_back(pdb);
      }
      if (rng() % 5 == 0) {
        const std::string w = c.name;
        for (auto& pod : f.cluster.pods) {
          if (pod.workload.name == w) pod.tolerations.push_back({"dedicated", "Exists", "", ""});
        }
      }
    }
    const Plan p = f.Run();  // replays the steps, those of blocked pools' left out (CheckSchedule)
    (p.schedule.feasible ? feasible : infeasible)++;
    EXPECT_EQ(p.schedule.feasible, p.schedule.blocked_pools.empty());
    for (const auto& st : p.schedule.steps) EXPECT_EQ(p.schedule.blocked_pools.count(st.gpu_model), 0u);
  }
  EXPECT_GT(feasible, 10);
  EXPECT_GT(infeasible, 0);
}

}  // namespace
}  // namespace kubeon::plan
