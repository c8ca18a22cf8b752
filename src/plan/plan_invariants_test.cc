// Tests for plan_invariants.h: a valid plan has no violation, and each
// promise, broken by hand in a copy of that plan, is reported under its id
// with the node, workload or step it concerns.
#include "plan/plan_invariants.h"

#include <gtest/gtest.h>

#include "plan/planner.h"

namespace kubeon::plan {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;

struct World {
  model::Cluster cluster;
  metrics::History history;
  policy::GpuPolicy policy;
  Plan plan;

  World() {
    policy.name = "p";
    policy.time_slicing_namespaces = {"dev"};
    for (int i = 0; i < 3; ++i) {
      model::Node n;
      n.name = "n" + std::to_string(i);
      n.gpu_product = "NVIDIA-A100-SXM4-80GB";
      n.gpu_count = 8;
      n.gpu_memory_mib = 81920;
      n.mig_capable = true;
      n.mig_strategy = "mixed";
      n.hourly_price_usd = 40;
      n.capacity[model::kGpuResource] = 8;
      n.allocatable[model::kGpuResource] = 8;
      n.labels["kubernetes.io/hostname"] = n.name;
      cluster.nodes.push_back(n);
    }
    // Six small services, two per node: they fit one node's MIG GPUs.
    for (int i = 0; i < 6; ++i) {
      model::Pod p;
      p.namespace_ = "prod";
      p.name = "svc" + std::to_string(i) + "-abc";
      p.node_name = "n" + std::to_string(i % 3);
      p.phase = "Running";
      p.workload = {"prod", "Deployment", "svc" + std::to_string(i)};
      p.controller = model::OwnerRef{"apps/v1", "ReplicaSet", "svc" + std::to_string(i) + "-rs", "", true};
      p.gpus = 1;
      model::ContainerResources c;
      c.name = "main";
      c.limits[model::kGpuResource] = 1;
      p.containers.push_back(c);
      cluster.pods.push_back(p);
      metrics::PodUsage u;
      u.peak_memory_mib = 6000;
      for (int k = 0; k < 10; ++k) u.compute.Add(0.05);
      u.last_ts_ms = 48 * kHourMs;
      u.gaps.AddSpan(u.last_ts_ms);
      u.samples = 10;
      history.pods[{"prod", p.name}] = u;
      model::Controller d;
      d.namespace_ = "prod";
      d.kind = "Deployment";
      d.name = p.workload.name;
      d.replicas = 1;
      d.strategy = "RollingUpdate";
      cluster.controllers.push_back(d);
    }
    cluster.nodes.push_back(cluster.nodes[0]);
    cluster.nodes.back().name = "spare";
    cluster.nodes.back().labels["kubernetes.io/hostname"] = "spare";
    Result<Plan> p = MakePlan(cluster, history, policy, mig::MigCatalog::Builtin(), PlannerOptions{});
    EXPECT_TRUE(p.ok()) << p.status().message();
    if (p.ok()) plan = std::move(p.value());
  }

  std::vector<InvariantViolation> Check(const Plan& p) const {
    return CheckPlanInvariants(cluster, p, policy, mig::MigCatalog::Builtin());
  }
  NodePlan* MigNode(Plan& p) const {
    for (auto& n : p.nodes) {
      if (n.method == "mig") return &n;
    }
    return nullptr;
  }
};

// The ids found, and whether one of the messages contains `part`.
bool Reports(const std::vector<InvariantViolation>& v, const std::string& id, const std::string& part) {
  for (const auto& x : v) {
    if (x.id == id && x.message.find(part) != std::string::npos) return true;
  }
  std::string all;
  for (const auto& x : v) all += x.id + ": " + x.message + "\n";
  ADD_FAILURE() << "no " << id << " naming \"" << part << "\" in:\n" << all;
  return false;
}

TEST(PlanInvariants, ThePlannersPlanKeepsEveryPromise) {
  World w;
  ASSERT_NE(w.MigNode(w.plan), nullptr);
  ASSERT_TRUE(w.plan.schedule.feasible);
  EXPECT_TRUE(w.Check(w.plan).empty());
}

TEST(PlanInvariants, EachBrokenPromiseIsReportedByItsId) {
  World w;
  const NodePlan* mig = w.MigNode(w.plan);
  ASSERT_NE(mig, nullptr);
  const std::string node = mig->name;
  {
    Plan p = w.plan;
    w.MigNode(p)->gpus[0].mig_devices = {"7g.80gb", "1g.10gb"};
    w.MigNode(p)->gpus[0].workloads = {"prod/svc0", "prod/svc1"};
    Reports(w.Check(p), "PLAN-LAYOUT", "node " + node + " GPU 0");
  }
  {
    Plan p = w.plan;
    for (auto& d : p.workloads) {
      if (d.decision == Decision::kMig) d.peak_memory_mib = 70000;
    }
    Reports(w.Check(p), "PLAN-SLICE-FITS", "prod/svc");
  }
  {
    Plan p = w.plan;
    w.MigNode(p)->gpus[0].workloads.push_back("prod/svc0");
    w.MigNode(p)->gpus[0].mig_devices.push_back("1g.10gb");
    Reports(w.Check(p), "PLAN-PLACED", "prod/svc0");
  }
  {
    Plan p = w.plan;
    w.MigNode(p)->gpus_after = 9;
    Reports(w.Check(p), "PLAN-GPUS", "node " + node);
    Reports(w.Check(p), "PLAN-TOTALS", "summary");
  }
  {
    Plan p = w.plan;
    p.artifacts.workload_patches.clear();
    Reports(w.Check(p), "PLAN-DECISIONS", "without a patch");
  }
  {
    Plan p = w.plan;
    for (auto& n : p.nodes) {
      if (n.method != "mig") n.disrupted_pods.push_back({"prod/svc0-abc", "Deployment/svc0", "x"});
    }
    Reports(w.Check(p), "PLAN-DISRUPTED", "does not change");
  }
  {
    Plan p = w.plan;
    policy::GpuPolicy none = w.policy;
    none.staying_pods = policy::StayingPods::kNone;
    w.MigNode(p)->disrupted_pods.push_back({"prod/svc0-abc", "Deployment/svc0", "x"});
    Reports(CheckPlanInvariants(w.cluster, p, none, mig::MigCatalog::Builtin()), "PLAN-DISRUPTED", "None");
  }
  {
    model::Cluster cordoned = w.cluster;
    for (auto& n : cordoned.nodes) n.unschedulable = n.name == node;
    Reports(CheckPlanInvariants(cordoned, w.plan, w.policy, mig::MigCatalog::Builtin()), "PLAN-TARGETS",
            "node " + node + " gets a new layout but is cordoned");
  }
  {
    Plan p = w.plan;
    ASSERT_FALSE(p.schedule.steps.empty());
    p.schedule.steps.push_back(p.schedule.steps.front());
    Reports(w.Check(p), "SCHED-ONCE", "node " + node + " is in 2 steps");
    Reports(w.Check(p), "SCHED-IDS", "repeats");
  }
  {
    Plan p = w.plan;
    p.schedule.steps.front().id = "00000000";
    Reports(w.Check(p), "SCHED-IDS", "first 8 hex digits");
  }
  {
    Plan p = w.plan;
    p.schedule.feasible = false;
    Reports(w.Check(p), "SCHED-FEASIBLE", "blocks no pool");
  }
  {
    Plan p = w.plan;
    p.schedule.feasible = false;
    p.schedule.blocked_pools[p.schedule.steps.front().gpu_model] = "no spare GPUs";
    Reports(w.Check(p), "SCHED-FEASIBLE", "is of blocked pool");
  }
  {
    Plan p = w.plan;
    p.schedule.steps.clear();
    Reports(w.Check(p), "SCHED-ONCE", "is in 0 steps");
  }
}

TEST(PlanInvariants, TimeSlicingPromises) {
  World w;
  Plan p = w.plan;
  NodePlan* n = w.MigNode(p);
  ASSERT_NE(n, nullptr);
  n->method = "time-slicing";
  n->time_slicing_replicas = w.policy.max_replicas + 1;
  for (auto& g : n->gpus) g.mig_enabled = false;
  const auto v = w.Check(p);
  Reports(v, "PLAN-TIME-SLICING", "time-slicing replicas");
  Reports(v, "PLAN-PLACED", "MIG slices");  // the MIG workloads lost their slices
}

TEST(PlanInvariants, ManyBreaksOfOnePromiseAreCappedPerId) {
  World w;
  Plan p = w.plan;
  for (auto& n : p.nodes) n.gpus_after = 100;
  int gpus = 0;
  for (const auto& v : w.Check(p)) gpus += v.id == "PLAN-GPUS" ? 1 : 0;
  EXPECT_EQ(gpus, 5);
}

}  // namespace
}  // namespace kubeon::plan
