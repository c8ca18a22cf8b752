#include "apply/step_runner.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "apply/object_fields.h"
#include "apply/operator_config.h"
#include "apply/rfc3339.h"
#include "model/cluster.h"
#include "plan/schedule_json.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

const char* kGpuDeployPrefix = "nvidia.com/gpu.deploy.";
const char* kPausedForMigChange = "paused-for-mig-change";

// RFC 3339 UTC (seconds) of the clock's now, for log entries and records.
std::string Stamp(Clock& clock) { return FormatTime(std::chrono::floor<std::chrono::seconds>(clock.Now())); }

// Successful cluster writes of this process (for KUBEON_APPLY_CRASH_AFTER_WRITES).
std::atomic<int> g_process_writes{0};

int CrashAfterWritesFromEnv() {
  const char* v = std::getenv(kCrashEnv);
  return v == nullptr ? 0 : std::atoi(v);
}

// ---------------------------------------------------------------------------
// JSON helpers over API objects.

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<std::string> OptStr(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

json Labels(const json& obj) { return obj.value("/metadata/labels"_json_pointer, json::object()); }
json Annotations(const json& obj) { return obj.value("/metadata/annotations"_json_pointer, json::object()); }

bool Terminal(const json& pod) {
  const std::string phase = pod.value("/status/phase"_json_pointer, std::string());
  return phase == "Succeeded" || phase == "Failed";
}

std::string PodName(const json& pod) {
  return pod.value("/metadata/namespace"_json_pointer, std::string()) + "/" +
         pod.value("/metadata/name"_json_pointer, std::string());
}

std::string NodePath(const std::string& node) { return "/api/v1/nodes/" + node; }

std::string OwnerPath(const std::string& kind, const std::string& ns, const std::string& name) {
  std::string plural = kind == "StatefulSet" ? "statefulsets" : kind == "ReplicaSet" ? "replicasets" : "deployments";
  return "/apis/apps/v1/namespaces/" + ns + "/" + plural + "/" + name;
}

json StepToleration() {
  return {{"key", kStepTaintKey}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
}

// ---------------------------------------------------------------------------
// What one run (a step, or a revert) changes.

struct NodeGoal {
  std::string name;
  std::map<std::string, std::optional<std::string>> labels;  // config labels to set (nullopt: remove)
};

struct OwnerGoal {
  std::string kind, namespace_, name;
  std::optional<json> patch;           // strategic merge patch of the object (forward)
  std::optional<json> template_;       // full spec.template (revert)
  std::optional<std::string> change;   // gpu.kubeon.io/change value (nullopt: remove)
  bool add_toleration = false;
  std::string gitops;
  std::string Display() const { return kind + " " + namespace_ + "/" + name; }
};

struct Goal {
  std::vector<NodeGoal> nodes;
  std::vector<OwnerGoal> owners;
  std::vector<plan::CapacityNeed> needs;
  // "ns/name" -> position in the step's evictions: pods that run elsewhere
  // meanwhile come first, so that the ones waiting Pending take their
  // PodDisruptionBudget's allowance last (schedule.h).  Unlisted pods go last.
  std::map<std::string, size_t> eviction_rank;
  // A revert moves the owners first (their rollouts, within maxUnavailable,
  // carry the pods back to whole GPUs elsewhere, so no PDB blocks the
  // evictions that follow) and reserves nothing.
  bool owners_first = false;
  bool reserve = true;  // taint the nodes for the owners when they are uncordoned
};

// ---------------------------------------------------------------------------

class Runner {
 public:
  Runner(const StepContext& ctx, std::string id, std::string run_key)
      : ctx_(ctx), c_(ctx.client), id_(std::move(id)), key_(std::move(run_key)) {
    outcome_.change_id = id_;
  }

  // Loads (or creates with `create`) the change record.
  Status Load(const audit::ChangeRecord* create) {
    auto got = ctx_.store.GetChange(id_);
    if (!got.ok()) return got.status();
    if (got->has_value()) {
      record_ = **got;
    } else if (create != nullptr) {
      record_ = *create;
      record_.revision = 0;
      Status s = ctx_.store.PutChange(record_, 0);
      if (!s.ok()) return s;
      record_.revision = 1;
    } else {
      return Status::Error("no change with id " + id_ + " in the audit log");
    }
    undo_ = json::parse(record_.undo_json.empty() ? "{}" : record_.undo_json, nullptr, false);
    if (!undo_.is_object()) undo_ = json::object();
    if (!undo_.contains(key_) || !undo_[key_].is_object()) undo_[key_] = json::object();
    Run().emplace("nodes", json::object());
    Run().emplace("owners", json::array());
    return Status::Ok();
  }

  json& Run() { return undo_[key_]; }
  json& Undo() { return undo_; }
  audit::ChangeRecord& record() { return record_; }
  StepOutcome& outcome() { return outcome_; }
  bool crashed() const { return crashed_; }

  Status Save(std::optional<audit::ChangeState> state = std::nullopt, const std::string& reason = "") {
    if (state) record_.state = *state;
    if (!reason.empty()) record_.reason = reason;
    record_.undo_json = undo_.dump();
    record_.updated_at = Stamp(ctx_.clock);
    Status s = ctx_.store.PutChange(record_, record_.revision);
    if (s.ok()) ++record_.revision;
    return s;
  }

  void Progress(const std::string& line) {
    if (ctx_.progress) ctx_.progress(id_ + ": " + line);
  }

  Status Log(const std::string& action, const std::string& outcome, const std::string& detail,
             const json& data = json::object()) {
    audit::LogEntry e;
    e.time = Stamp(ctx_.clock);
    e.change_id = id_;
    e.action = action;
    e.outcome = outcome;
    e.detail = detail;
    e.data_json = data.dump();
    auto r = ctx_.store.Append(e);
    return r.ok() ? Status::Ok() : r.status();
  }

  // Log first: the undo data, then the intent.
  Status Intent(const std::string& action, const std::string& detail) {
    Status s = Save();
    if (s.ok()) s = Log(action, "intent", detail);
    if (s.ok()) Progress(detail);
    return s;
  }

  // After a successful cluster write.
  Status Wrote(const std::string& action, const std::string& detail) {
    ++outcome_.writes;
    const int n = ++g_process_writes;
    const int crash_at = CrashAfterWritesFromEnv();
    if (crash_at > 0 && n == crash_at) kill(getpid(), SIGKILL);
    if (ctx_.options.crash_after_write && ctx_.options.crash_after_write(outcome_.writes)) {
      crashed_ = true;
      return Status::Error("crashed (test fault injection)");
    }
    return Log(action, "ok", detail);
  }

  // The hard deadline ends the forward sequence; a rollback is bound only by
  // its own waits (it must not stop half way).
  Status CheckDeadline(const std::string& what) {
    if (!rolling_back_ && ctx_.options.hard_deadline && ctx_.clock.Now() > *ctx_.options.hard_deadline) {
      return Status::Error("hard deadline passed while " + what);
    }
    return Status::Ok();
  }

  // Polls `check` (true = done, error = give up) every poll_interval until `timeout`.
  Status Poll(const std::string& what, milliseconds timeout, const std::function<Result<bool>()>& check) {
    const auto until = ctx_.clock.Now() + timeout;
    while (true) {
      auto r = check();
      if (!r.ok()) return r.status();
      if (*r) return Status::Ok();
      if (ctx_.clock.Now() > until) {
        return Status::Error("timed out after " + std::to_string(timeout.count() / 1000) + " s waiting for " + what);
      }
      Status d = CheckDeadline("waiting for " + what);
      if (!d.ok()) return d;
      ctx_.clock.Sleep(ctx_.options.poll_interval);
    }
  }

  // ---- the forward sequence -------------------------------------------------

  Status CheckCapacity(const std::vector<plan::CapacityNeed>& needs) {
    if (needs.empty()) return Status::Ok();
    auto nodes = c_.List("/api/v1/nodes");
    if (!nodes.ok()) return nodes.status();
    auto pods = c_.List("/api/v1/pods");
    if (!pods.ok()) return pods.status();
    std::map<std::string, std::map<std::string, int64_t>> free;
    for (const auto& n : nodes->items) {
      json alloc = n.value("/status/allocatable"_json_pointer, json::object());
      for (auto it = alloc.begin(); it != alloc.end(); ++it) {
        if (IsGpuResource(it.key())) free[Str(n["metadata"], "name")][it.key()] = Quantity(*it);
      }
    }
    for (const auto& p : pods->items) {
      const std::string node = p.value("/spec/nodeName"_json_pointer, std::string());
      if (node.empty() || Terminal(p)) continue;
      for (const auto& [r, v] : PodGpuRequests(p)) free[node][r] -= v;
    }
    for (const auto& need : needs) {
      int64_t have = 0;
      for (const auto& [node, res] : free) {
        if (!need.nodes.empty() && std::find(need.nodes.begin(), need.nodes.end(), node) == need.nodes.end()) continue;
        auto it = res.find(need.resource);
        if (it != res.end() && it->second > 0) have += it->second;
      }
      if (have < need.count) {
        return Status::Error("capacity changed since the plan: the step needs " + std::to_string(need.count) + " free " +
                             need.resource + " (" + need.why + "), the cluster has " + std::to_string(have));
      }
    }
    return Status::Ok();
  }

  // Refuses nodes cordoned by someone else; records each node's prior state.
  Status CheckNodes(const std::vector<NodeGoal>& goals) {
    for (const auto& g : goals) {
      auto node = c_.Get(NodePath(g.name));
      if (!node.ok()) return node.status();
      const bool cordoned = node->value("/spec/unschedulable"_json_pointer, false);
      const auto by = OptStr(Annotations(*node), kCordonedByAnnotation);
      if (cordoned && by != id_) {
        return Status::Error("node " + g.name + " is cordoned by someone else" +
                             (by ? " (change " + *by + ")" : "") + ": not touched");
      }
    }
    return Status::Ok();
  }

  Status PrepareNode(const NodeGoal& g) {
    json& entry = Run()["nodes"][g.name];
    if (!entry.contains("prior")) {
      auto node = c_.Get(NodePath(g.name));
      if (!node.ok()) return node.status();
      json prior;
      prior["unschedulable"] = node->value("/spec/unschedulable"_json_pointer, false);
      json labels = Labels(*node), annotations = Annotations(*node);
      prior["labels"] = json::object();
      for (const auto& [k, v] : g.labels) prior["labels"][k] = labels.contains(k) ? labels[k] : json(nullptr);
      prior["labels"][kMigConfigStateLabel] =
          labels.contains(kMigConfigStateLabel) ? labels[kMigConfigStateLabel] : json(nullptr);
      prior["annotations"] = json::object();
      for (const char* k : {kDoNotDisruptAnnotation, kScaleDownDisabledAnnotation, kCordonedByAnnotation}) {
        prior["annotations"][k] = annotations.contains(k) ? annotations[k] : json(nullptr);
      }
      entry["prior"] = prior;
      entry["cordoned"] = !prior["unschedulable"].get<bool>();
      int64_t gpus = Quantity(labels.value("nvidia.com/gpu.count", json("0")));
      if (gpus == 0) gpus = Quantity(node->value("/status/capacity/nvidia.com~1gpu"_json_pointer, json("0")));
      entry["gpu_count"] = gpus;
      json set = json::object();
      for (const auto& [k, v] : g.labels) set[k] = v ? json(*v) : json(nullptr);
      entry["labels_set"] = set;
    }
    Status s = Intent("prepare-node", "node " + g.name + ": annotate do-not-disrupt and scale-down-disabled, cordon");
    if (!s.ok()) return s;
    const bool cordon = entry["cordoned"].get<bool>();
    auto r = c_.UpdateWithRetry(NodePath(g.name), [&](json& node) -> Status {
      const bool unsched = node.value("/spec/unschedulable"_json_pointer, false);
      const auto by = OptStr(Annotations(node), kCordonedByAnnotation);
      if (unsched && by != id_ && cordon) return Status::Error("node " + g.name + " was cordoned by someone else meanwhile");
      json& ann = node["metadata"]["annotations"];
      if (!ann.is_object()) ann = json::object();
      ann[kDoNotDisruptAnnotation] = "true";
      ann[kScaleDownDisabledAnnotation] = "true";
      if (cordon) {
        ann[kCordonedByAnnotation] = id_;
        node["spec"]["unschedulable"] = true;
      }
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    return Wrote("prepare-node", "node " + g.name + " annotated and cordoned");
  }

  // Merges the configs the goal's labels name into the operator's ConfigMaps.
  // *changed says whether anything was written.
  Status WriteConfigMaps(const std::vector<NodeGoal>& goals, bool* changed) {
    *changed = false;
    std::vector<std::string> mig_names;
    std::set<std::string> dp_keys;
    for (const auto& g : goals) {
      for (const auto& [k, v] : g.labels) {
        if (!v) continue;
        if (k == kMigConfigLabel) mig_names.push_back(*v);
        if (k == kDevicePluginConfigLabel) dp_keys.insert(*v);
      }
    }
    const StepArtifacts& a = ctx_.artifacts;
    const std::string cm_base = "/api/v1/namespaces/" + a.operator_namespace + "/configmaps";
    auto skeleton = [&](const std::string& name) {
      return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                  {"metadata", {{"name", name}, {"namespace", a.operator_namespace},
                                {"labels", {{"app.kubernetes.io/managed-by", "kubeon-gpu"}}}}},
                  {"data", json::object()}};
    };
    if (!mig_names.empty()) {
      auto cm = c_.Get(cm_base + "/" + a.mig_configmap);
      if (!cm.ok() && cm.error().http_status != 404) return cm.status();
      std::string have = cm.ok() ? cm->value("/data/config.yaml"_json_pointer, std::string()) : "";
      std::vector<std::string> missing;
      for (const auto& n : mig_names) {
        if (have.empty() || !HasMigConfig(have, n)) missing.push_back(n);
      }
      if (!missing.empty()) {
        if (a.mig_parted_config.empty()) {
          return Status::Error("ConfigMap " + a.operator_namespace + "/" + a.mig_configmap + " lacks MIG config \"" +
                               missing[0] + "\" and the plan has no mig-parted config");
        }
        Status s = Intent("write-configmap", "ConfigMap " + a.operator_namespace + "/" + a.mig_configmap +
                                                 ": add MIG config " + missing[0] + (missing.size() > 1 ? " ..." : ""));
        if (!s.ok()) return s;
        auto r = c_.Upsert(cm_base, a.mig_configmap, skeleton(a.mig_configmap), [&](json& obj) -> Status {
          std::string cur = obj.value("/data/config.yaml"_json_pointer, std::string());
          auto merged = MergeMigConfig(cur, a.mig_parted_config, missing);
          if (!merged.ok()) return merged.status();
          if (!obj["data"].is_object()) obj["data"] = json::object();
          obj["data"]["config.yaml"] = *merged;
          return Status::Ok();
        });
        if (!r.ok()) return r.status();
        *changed = true;
        s = Wrote("write-configmap", "ConfigMap " + a.mig_configmap + " updated");
        if (!s.ok()) return s;
      }
    }
    if (!dp_keys.empty()) {
      auto cm = c_.Get(cm_base + "/" + a.device_plugin_configmap);
      if (!cm.ok() && cm.error().http_status != 404) return cm.status();
      json data = cm.ok() ? cm->value("data", json::object()) : json::object();
      std::map<std::string, std::string> add;
      for (const auto& k : dp_keys) {
        auto it = a.device_plugin_configs.find(k);
        if (data.contains(k)) {
          if (it != a.device_plugin_configs.end() && data[k] != it->second) {
            return Status::Error("device-plugin config key \"" + k + "\" in ConfigMap " + a.device_plugin_configmap +
                                 " differs from the plan's (edited by hand?)");
          }
          continue;
        }
        if (it == a.device_plugin_configs.end()) {
          return Status::Error("ConfigMap " + a.operator_namespace + "/" + a.device_plugin_configmap + " lacks key \"" +
                               k + "\" and the plan has no such device-plugin config");
        }
        add[k] = it->second;
      }
      if (!add.empty()) {
        Status s = Intent("write-configmap", "ConfigMap " + a.operator_namespace + "/" + a.device_plugin_configmap +
                                                 ": add key " + add.begin()->first);
        if (!s.ok()) return s;
        auto r = c_.Upsert(cm_base, a.device_plugin_configmap, skeleton(a.device_plugin_configmap),
                           [&](json& obj) -> Status {
                             if (!obj["data"].is_object()) obj["data"] = json::object();
                             for (const auto& [k, v] : add) {
                               if (!obj["data"].contains(k)) obj["data"][k] = v;
                             }
                             return Status::Ok();
                           });
        if (!r.ok()) return r.status();
        *changed = true;
        s = Wrote("write-configmap", "ConfigMap " + a.device_plugin_configmap + " updated");
        if (!s.ok()) return s;
      }
    }
    return Status::Ok();
  }

  Result<std::vector<json>> GpuPods(const std::string& node, const char* only_resource = nullptr) {
    kube::ListOptions o;
    o.field_selector = "spec.nodeName=" + node;
    auto pods = c_.List("/api/v1/pods", o);
    if (!pods.ok()) return pods.status();
    std::vector<json> out;
    for (const auto& p : pods->items) {
      if (Terminal(p)) continue;
      auto req = PodGpuRequests(p);
      if (req.empty()) continue;
      if (only_resource != nullptr && !req.count(only_resource)) continue;
      out.push_back(p);
    }
    return out;
  }

  // Evicts one pod (429: retried until `until`) and waits until it is gone.
  Status EvictAndWait(const json& pod, Clock::TimePoint until) {
    const std::string ns = pod["metadata"].value("namespace", "");
    const std::string name = pod["metadata"].value("name", "");
    const std::string uid = pod["metadata"].value("uid", "");
    const bool terminating = pod["metadata"].contains("deletionTimestamp");
    if (!terminating) {
      Status s = Intent("evict", "evict pod " + ns + "/" + name);
      if (!s.ok()) return s;
      bool told = false;
      while (true) {
        auto r = c_.Evict(ns, name);
        if (!r.ok()) return r.status();
        if (r->outcome == kube::EvictionOutcome::kEvicted) {
          s = Wrote("evict", "pod " + ns + "/" + name + " evicted");
          if (!s.ok()) return s;
          break;
        }
        if (r->outcome == kube::EvictionOutcome::kPodNotFound) break;
        if (!told) {
          Progress("eviction of pod " + ns + "/" + name + " refused for now (" + r->message + "); retrying every " +
                   std::to_string(ctx_.options.eviction_retry_interval.count()) + " ms");
          told = true;
        }
        if (ctx_.clock.Now() > until) {
          return Status::Error("eviction of pod " + ns + "/" + name + " still refused at the deadline: " + r->message);
        }
        s = CheckDeadline("evicting " + ns + "/" + name);
        if (!s.ok()) return s;
        ctx_.clock.Sleep(ctx_.options.eviction_retry_interval);
      }
    }
    const int64_t grace = pod.value("/spec/terminationGracePeriodSeconds"_json_pointer, int64_t{30});
    const auto wait = milliseconds(grace * 1000) + ctx_.options.pod_gone_margin;
    return Poll("pod " + ns + "/" + name + " to be gone", wait, [&]() -> Result<bool> {
      auto got = c_.Get("/api/v1/namespaces/" + ns + "/pods/" + name);
      if (!got.ok()) {
        if (got.error().http_status == 404) return true;
        return got.status();
      }
      return got->value("/metadata/uid"_json_pointer, std::string()) != uid;
    });
  }

  // Evicts the node's GPU pods, in `rank` order when given (see Goal).
  Status EvictGpuPods(const std::string& node, const std::map<std::string, size_t>& rank = {}) {
    const auto until = ctx_.clock.Now() + ctx_.options.eviction_deadline;
    auto pods = GpuPods(node);
    if (!pods.ok()) return pods.status();
    auto rank_of = [&](const json& p) {
      auto it = rank.find(p.value("/metadata/namespace"_json_pointer, std::string()) + "/" +
                          p.value("/metadata/name"_json_pointer, std::string()));
      return it == rank.end() ? rank.size() : it->second;
    };
    std::stable_sort(pods->begin(), pods->end(),
                     [&](const json& a, const json& b) { return rank_of(a) < rank_of(b); });
    for (const auto& p : *pods) {
      Status s = EvictAndWait(p, until);
      if (!s.ok()) return s;
    }
    // Pods bound meanwhile (a controller racing the cordon) are evicted too.
    auto again = GpuPods(node);
    if (!again.ok()) return again.status();
    for (const auto& p : *again) {
      Status s = EvictAndWait(p, until);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

  // Whether the node advertises `expected` (resource -> count) in allocatable.
  static bool AllocatableMatches(const json& node, const std::map<std::string, int64_t>& expected) {
    json alloc = node.value("/status/allocatable"_json_pointer, json::object());
    for (const auto& [r, n] : expected) {
      if (!alloc.contains(r) || Quantity(alloc[r]) != n) return false;
    }
    return true;
  }

  Result<std::map<std::string, int64_t>> ExpectedFor(const std::string& label, const std::optional<std::string>& value,
                                                     int gpus) {
    std::map<std::string, int64_t> out;
    if (label == kMigConfigLabel) {
      auto cm = c_.Get("/api/v1/namespaces/" + ctx_.artifacts.operator_namespace + "/configmaps/" +
                       ctx_.artifacts.mig_configmap);
      if (!cm.ok()) return cm.status();
      return ExpectedMigResources(cm->value("/data/config.yaml"_json_pointer, std::string()), *value, gpus);
    }
    if (!value) {
      out[model::kSharedGpuResource] = 0;
      return out;
    }
    auto cm = c_.Get("/api/v1/namespaces/" + ctx_.artifacts.operator_namespace + "/configmaps/" +
                     ctx_.artifacts.device_plugin_configmap);
    if (!cm.ok()) return cm.status();
    auto replicas = TimeSlicingReplicas(cm->value("data", json::object()).value(*value, std::string()));
    if (!replicas.ok()) return replicas.status();
    if (*replicas > 1) {
      out[model::kSharedGpuResource] = gpus * *replicas;
    } else {
      out[model::kSharedGpuResource] = 0;
    }
    return out;
  }

  // Sets one config label (MIG or device plugin) and waits for the node to act on it.
  // `expect_prior`: the values the label may hold before (else someone else changed it).
  Status SetConfigLabel(const std::string& node, const std::string& label, const std::optional<std::string>& value,
                        int gpus, const std::set<std::optional<std::string>>& expect_prior) {
    auto expected = ExpectedFor(label, value, gpus);
    if (!expected.ok()) return expected.status();
    auto cur = c_.Get(NodePath(node));
    if (!cur.ok()) return cur.status();
    const auto have = OptStr(Labels(*cur), label.c_str());
    const bool mig = label == kMigConfigLabel;
    const auto state = OptStr(Labels(*cur), kMigConfigStateLabel);
    if (have == value && (!mig || state == "success") && AllocatableMatches(*cur, *expected)) return Status::Ok();
    if (!expect_prior.count(have)) {
      return Status::Error("label " + label + " of node " + node + " was changed by someone else: found \"" +
                           have.value_or("") + "\"");
    }
    if (!mig) {
      auto holding = GpuPods(node, model::kGpuResource);
      if (!holding.ok()) return holding.status();
      if (!holding->empty()) {
        return Status::Error("pod " + PodName(holding->front()) + " still holds nvidia.com/gpu on node " + node +
                             ": not changing its device-plugin config");
      }
    }
    const std::string detail = "node " + node + ": " + (mig ? "clear " + std::string(kMigConfigStateLabel) + ", " : "") +
                               "set " + label + "=" + value.value_or("(removed)");
    Status s = Intent("label", detail);
    if (!s.ok()) return s;
    if (have == value && mig) {
      // mig-manager acts only on a change: remove the label first.
      auto r = c_.UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
        n["metadata"]["labels"].erase(label);
        n["metadata"]["labels"].erase(kMigConfigStateLabel);
        return Status::Ok();
      });
      if (!r.ok()) return r.status();
      s = Wrote("label", "node " + node + ": " + label + " removed to re-trigger mig-manager");
      if (!s.ok()) return s;
    }
    auto r = c_.UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
      json& labels = n["metadata"]["labels"];
      if (!labels.is_object()) labels = json::object();
      const auto now = OptStr(labels, label.c_str());
      if (now != value && now != have && !(have == value && !now)) {
        return Status::Error("label " + label + " of node " + node + " changed meanwhile to \"" + now.value_or("") + "\"");
      }
      if (mig) labels.erase(kMigConfigStateLabel);
      if (value) {
        labels[label] = *value;
      } else {
        labels.erase(label);
      }
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    s = Wrote("label", detail);
    if (!s.ok()) return s;
    if (mig) {
      s = Poll("mig-manager to report success on node " + node, ctx_.options.mig_deadline, [&]() -> Result<bool> {
        auto n = c_.Get(NodePath(node));
        if (!n.ok()) return n.status();
        const auto st = OptStr(Labels(*n), kMigConfigStateLabel);
        if (st == "failed") {
          return Status::Error("mig-manager reported failed for " + value.value_or("") + " on node " + node +
                               " (see its pod's log in " + ctx_.artifacts.operator_namespace + ")");
        }
        return st == "success";
      });
      if (!s.ok()) return s;
      // A success that skipped the run (config already applied) after a run
      // that died pending leaves the operands paused.
      s = RestorePausedLabels(node);
      if (!s.ok()) return s;
    }
    return Poll("node " + node + " to advertise its new devices", ctx_.options.allocatable_deadline,
                [&]() -> Result<bool> {
                  auto n = c_.Get(NodePath(node));
                  if (!n.ok()) return n.status();
                  return AllocatableMatches(*n, *expected);
                });
  }

  Status Configure(const NodeGoal& g) {
    json& entry = Run()["nodes"][g.name];
    entry["configured"] = true;
    const int gpus = entry.value("gpu_count", 0);
    for (const auto& [label, value] : g.labels) {
      std::set<std::optional<std::string>> prior = {value};
      const json& p = entry["prior"]["labels"][label];
      prior.insert(p.is_string() ? std::optional<std::string>(p.get<std::string>()) : std::nullopt);
      Status s = SetConfigLabel(g.name, label, value, gpus, prior);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

  // Taints the node for the step's owners and uncordons it if this change
  // cordoned it, in one write.  The taint comes only now: the GPU Operator's
  // operand pods that mig-manager deleted come back by their DaemonSets,
  // which do not tolerate it.
  Status ReserveAndUncordon(const std::string& node, bool reserve) {
    if (!reserve) {
      auto cur = c_.Get(NodePath(node));
      if (!cur.ok()) return cur.status();
      if (OptStr(Annotations(*cur), kCordonedByAnnotation) != id_) return Status::Ok();
    }
    Status s = Intent(reserve ? "reserve-node" : "uncordon",
                      "node " + node + ": " +
                          (reserve ? "taint " + std::string(kStepTaintKey) + "=" + id_ +
                                         ":NoSchedule (reserved for the step's owners), "
                                   : std::string()) +
                          "uncordon");
    if (!s.ok()) return s;
    auto r = c_.UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
      if (OptStr(Annotations(n), kCordonedByAnnotation) == id_) {
        n["spec"].erase("unschedulable");
        n["metadata"]["annotations"].erase(kCordonedByAnnotation);
      }
      if (!reserve) return Status::Ok();
      json& taints = n["spec"]["taints"];
      if (!taints.is_array()) taints = json::array();
      for (const auto& t : taints) {
        if (t.value("key", "") == kStepTaintKey) return Status::Ok();
      }
      taints.push_back({{"key", kStepTaintKey}, {"value", id_}, {"effect", "NoSchedule"}});
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    return Wrote(reserve ? "reserve-node" : "uncordon", "node " + node + (reserve ? " tainted and" : "") + " uncordoned");
  }

  // Rollback: cordons the node again (when this change had cordoned it) and
  // removes the step taint, so the operator's operands can come back while
  // its config is restored.
  Status Recordon(const std::string& node, const json& entry) {
    const bool ours = entry.value("cordoned", false);
    auto cur = c_.Get(NodePath(node));
    if (!cur.ok()) return cur.status();
    bool tainted = false;
    for (const auto& t : cur->value("/spec/taints"_json_pointer, json::array())) {
      tainted |= t.value("key", "") == kStepTaintKey && t.value("value", "") == id_;
    }
    const bool cordoned = cur->value("/spec/unschedulable"_json_pointer, false);
    if (!tainted && (cordoned || !ours)) return Status::Ok();
    Status s = Intent("recordon", "node " + node + ": cordon again, remove taint " + kStepTaintKey);
    if (!s.ok()) return s;
    auto r = c_.UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
      if (ours && !n.value("/spec/unschedulable"_json_pointer, false)) {
        n["spec"]["unschedulable"] = true;
        n["metadata"]["annotations"][kCordonedByAnnotation] = id_;
      }
      json& taints = n["spec"]["taints"];
      if (taints.is_array()) {
        json kept = json::array();
        for (const auto& t : taints) {
          if (!(t.value("key", "") == kStepTaintKey && t.value("value", "") == id_)) kept.push_back(t);
        }
        taints = kept;
        if (taints.empty()) n["spec"].erase("taints");
      } else {
        n["spec"].erase("taints");
      }
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    return Wrote("recordon", "node " + node + " cordoned, taint removed");
  }

  // Removes the step taint and the annotations, restoring their prior values;
  // uncordons the node when this change cordoned it.
  Status CleanupNode(const std::string& node, const json& entry) {
    Status s = Intent("cleanup-node", "node " + node + ": remove taint " + std::string(kStepTaintKey) +
                                          " and the do-not-disrupt annotations");
    if (!s.ok()) return s;
    bool changed = false;
    auto r = c_.UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
      changed = false;
      json& ann = n["metadata"]["annotations"];
      if (!ann.is_object()) ann = json::object();
      if (OptStr(ann, kCordonedByAnnotation) == id_) {
        n["spec"].erase("unschedulable");
        changed = true;
      }
      const json prior = entry.value("/prior/annotations"_json_pointer, json::object());
      for (const char* k : {kDoNotDisruptAnnotation, kScaleDownDisabledAnnotation, kCordonedByAnnotation}) {
        json want = prior.contains(k) ? prior[k] : json(nullptr);
        if (std::string(k) == kCordonedByAnnotation && want == json(id_)) want = nullptr;
        json have = ann.contains(k) ? ann[k] : json(nullptr);
        if (have == want) continue;
        changed = true;
        if (want.is_null()) {
          ann.erase(k);
        } else {
          ann[k] = want;
        }
      }
      json& taints = n["spec"]["taints"];
      if (taints.is_array()) {
        json kept = json::array();
        for (const auto& t : taints) {
          if (t.value("key", "") == kStepTaintKey && t.value("value", "") == id_) {
            changed = true;
          } else {
            kept.push_back(t);
          }
        }
        taints = kept;
        if (taints.empty()) n["spec"].erase("taints");
      } else {
        n["spec"].erase("taints");
      }
      if (!changed) return Status::Error("nothing to remove", StatusCode::kAborted);  // no write needed
      return Status::Ok();
    });
    if (!r.ok()) {
      if (!changed && r.status().code() == StatusCode::kAborted) return Status::Ok();
      return r.status();
    }
    return Wrote("cleanup-node", "node " + node + ": taint and annotations removed");
  }

  Status PatchOwner(const OwnerGoal& g) {
    const std::string path = OwnerPath(g.kind, g.namespace_, g.name);
    auto cur = c_.Get(path);
    if (!cur.ok()) return cur.status();
    if (!g.gitops.empty() && !ctx_.options.patch_gitops_owners) {
      const std::string line = g.Display() + " (managed by " + g.gitops + "): not patched; apply in its repository: " +
                               (g.patch ? g.patch->dump() : json{{"spec", {{"template", *g.template_}}}}.dump());
      outcome_.gitops_patches.push_back(line);
      Progress(line);
      return Log("patch-owner", "skipped", line);
    }
    json* entry = nullptr;
    for (auto& o : Run()["owners"]) {
      if (o.value("kind", "") == g.kind && o.value("namespace", "") == g.namespace_ && o.value("name", "") == g.name) {
        entry = &o;
      }
    }
    if (entry == nullptr) {
      json annotations = Annotations(*cur);
      Run()["owners"].push_back({{"kind", g.kind}, {"namespace", g.namespace_}, {"name", g.name},
                                 {"template_before", cur->value("/spec/template"_json_pointer, json::object())},
                                 {"annotation_before", annotations.contains(kChangeAnnotation)
                                                           ? annotations[kChangeAnnotation] : json(nullptr)}});
      entry = &Run()["owners"].back();
    }
    (*entry)["intent"] = true;
    Status s = Intent("patch-owner", "patch " + g.Display() + (g.patch ? ": " + g.patch->dump() : ": template restored"));
    if (!s.ok()) return s;
    const json before = (*entry)["template_before"];
    auto r = c_.UpdateWithRetry(path, [&](json& obj) -> Status {
      if (g.patch) {
        StrategicMerge(obj, *g.patch);
      } else {
        obj["spec"]["template"] = *g.template_;
      }
      if (g.add_toleration) {
        json& tol = obj["spec"]["template"]["spec"]["tolerations"];
        if (!tol.is_array()) tol = json::array();
        if (std::find(tol.begin(), tol.end(), StepToleration()) == tol.end()) tol.push_back(StepToleration());
      }
      json& ann = obj["metadata"]["annotations"];
      if (!ann.is_object()) ann = json::object();
      if (g.change) {
        ann[kChangeAnnotation] = *g.change;
      } else {
        ann.erase(kChangeAnnotation);
      }
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    (*entry)["template_after"] = r->value("/spec/template"_json_pointer, json::object());
    (*entry)["patched"] = true;
    s = Wrote("patch-owner", g.Display() + " patched");
    if (!s.ok()) return s;
    return Save();
  }

  // Waits until the owner's rollout is complete; a StatefulSet with OnDelete
  // is moved pod by pod through the Eviction API.
  Status WaitRollout(const std::string& kind, const std::string& ns, const std::string& name) {
    const std::string path = OwnerPath(kind, ns, name);
    const std::string what = "the rollout of " + kind + " " + ns + "/" + name;
    Progress("waiting for " + what);
    const auto until = ctx_.clock.Now() + ctx_.options.rollout_deadline;
    return Poll(what, ctx_.options.rollout_deadline, [&]() -> Result<bool> {
      auto obj = c_.Get(path);
      if (!obj.ok()) return obj.status();
      const json& o = *obj;
      const int64_t gen = o.value("/metadata/generation"_json_pointer, int64_t{0});
      const int64_t observed = o.value("/status/observedGeneration"_json_pointer, int64_t{0});
      const int64_t want = o.value("/spec/replicas"_json_pointer, int64_t{1});
      const json st = o.value("status", json::object());
      if (observed < gen) return false;
      if (kind == "StatefulSet") {
        const std::string update = st.value("updateRevision", "");
        if (o.value("/spec/updateStrategy/type"_json_pointer, std::string()) == "OnDelete" && !update.empty()) {
          kube::ListOptions lo;
          std::string sel;
          const json match = o.value("/spec/selector/matchLabels"_json_pointer, json::object());
          for (auto& [k, v] : match.items()) {
            sel += (sel.empty() ? "" : ",") + k + "=" + v.get<std::string>();
          }
          lo.label_selector = sel;
          auto pods = c_.List("/api/v1/namespaces/" + ns + "/pods", lo);
          if (!pods.ok()) return pods.status();
          for (const auto& p : pods->items) {
            if (p.value("/metadata/labels/controller-revision-hash"_json_pointer, std::string()) == update) continue;
            if (p["metadata"].contains("deletionTimestamp")) return false;
            Status s = EvictAndWait(p, until);
            if (!s.ok()) return s;
            return false;  // one pod at a time: wait for its replacement
          }
        }
        return st.value("updatedReplicas", int64_t{0}) == want && st.value("readyReplicas", int64_t{0}) == want &&
               st.value("replicas", int64_t{0}) == want;
      }
      return st.value("updatedReplicas", int64_t{0}) == want && st.value("replicas", int64_t{0}) == want &&
             st.value("availableReplicas", int64_t{0}) == want && st.value("readyReplicas", int64_t{0}) == want;
    });
  }

  // The whole forward sequence; on failure the caller rolls back.
  // Patches every owner, then waits for the rollouts.
  Status MoveOwners(const Goal& goal) {
    Run()["phase"] = "owners";
    for (const auto& o : goal.owners) {
      Status s = PatchOwner(o);
      if (!s.ok()) return s;
    }
    const json owners = Run()["owners"];
    for (const auto& o : owners) {
      if (!o.value("patched", false)) continue;
      Status s = WaitRollout(o["kind"], o["namespace"], o["name"]);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

  Status Forward(const Goal& goal) {
    if (goal.owners_first) {
      Status s = MoveOwners(goal);
      if (!s.ok()) return s;
    }
    Run()["phase"] = "prepare";
    for (const auto& g : goal.nodes) {
      Status s = PrepareNode(g);
      if (!s.ok()) return s;
    }
    Run()["phase"] = "configure";
    bool synced_needed = false;
    Status s = WriteConfigMaps(goal.nodes, &synced_needed);
    if (!s.ok()) return s;
    if (synced_needed && ctx_.options.configmap_sync.count() > 0) {
      Progress("waiting " + std::to_string(ctx_.options.configmap_sync.count() / 1000) +
               " s for the kubelet to sync the ConfigMaps to the nodes");
      ctx_.clock.Sleep(ctx_.options.configmap_sync);
    }
    for (const auto& g : goal.nodes) {
      Progress("evicting the GPU pods of node " + g.name);
      s = EvictGpuPods(g.name, goal.eviction_rank);
      if (!s.ok()) return s;
    }
    for (const auto& g : goal.nodes) {
      s = Configure(g);
      if (!s.ok()) return s;
    }
    Run()["phase"] = "uncordon";
    for (const auto& g : goal.nodes) {
      s = ReserveAndUncordon(g.name, goal.reserve);
      if (!s.ok()) return s;
    }
    if (!goal.owners_first) {
      s = MoveOwners(goal);
      if (!s.ok()) return s;
    }
    Run()["phase"] = "cleanup";
    s = Save();
    if (!s.ok()) return s;
    return Cleanup();
  }

  Status Cleanup() {
    for (auto& [node, entry] : Run()["nodes"].items()) {
      Status s = CleanupNode(node, entry);
      if (!s.ok()) return s;
    }
    Run()["phase"] = "done";
    return Status::Ok();
  }

  // ---- rollback ------------------------------------------------------------

  // Undoes what Run() records, in reverse order.  Returns an error naming
  // what could not be undone (those nodes stay cordoned and tainted).
  Status Rollback() {
    std::vector<std::string> problems;
    json owners = Run()["owners"];
    for (auto it = owners.rbegin(); it != owners.rend(); ++it) {
      const json& o = *it;
      if (!o.value("intent", false)) continue;
      OwnerGoal g{o["kind"], o["namespace"], o["name"]};
      g.template_ = o["template_before"];
      if (o["annotation_before"].is_string()) g.change = o["annotation_before"].get<std::string>();
      auto cur = c_.Get(OwnerPath(g.kind, g.namespace_, g.name));
      if (!cur.ok()) {
        problems.push_back(cur.status().message());
        continue;
      }
      if (cur->value("/spec/template"_json_pointer, json::object()) == *g.template_ &&
          OptStr(Annotations(*cur), kChangeAnnotation) == g.change) {
        continue;
      }
      Status s = PatchOwner(g);
      if (!s.ok()) problems.push_back("restoring " + g.Display() + ": " + s.message());
      if (crashed_) return s;
    }
    for (auto& [node, entry] : Run()["nodes"].items()) {
      Status s = RollbackNode(node, entry);
      if (crashed_) return s;
      if (!s.ok()) {
        problems.push_back("node " + node + " (left cordoned and tainted): " + s.message());
        continue;
      }
      s = CleanupNode(node, entry);
      if (crashed_) return s;
      if (!s.ok()) problems.push_back("node " + node + ": " + s.message());
    }
    for (const auto& o : owners) {
      if (!o.value("intent", false)) continue;
      Status s = WaitRollout(o["kind"], o["namespace"], o["name"]);
      if (crashed_) return s;
      if (!s.ok()) Progress("after the rollback: " + s.message());
    }
    if (!problems.empty()) {
      std::string msg = problems[0];
      for (size_t i = 1; i < problems.size(); ++i) msg += "; " + problems[i];
      return Status::Error(msg);
    }
    return Status::Ok();
  }

  Status RollbackNode(const std::string& node, json& entry) {
    if (!entry.value("configured", false)) return Status::Ok();
    const int gpus = entry.value("gpu_count", 0);
    Status rc = Recordon(node, entry);
    if (!rc.ok()) return rc;
    auto cur = c_.Get(NodePath(node));
    if (!cur.ok()) return cur.status();
    const json labels = Labels(*cur);
    bool evicted = false;
    for (auto& [label, set_value] : entry["labels_set"].items()) {
      const json prior = entry["prior"]["labels"].value(label, json(nullptr));
      std::optional<std::string> target = prior.is_string() ? std::optional<std::string>(prior.get<std::string>())
                                                            : std::nullopt;
      if (label == kMigConfigLabel && (!target || target->empty())) target = kAllDisabled;
      std::set<std::optional<std::string>> allowed = {target, OptStr(labels, label.c_str())};
      if (!evicted) {
        Progress("rollback: evicting the GPU pods of node " + node);
        Status s = EvictGpuPods(node);
        if (!s.ok()) return s;
        evicted = true;
      }
      Status s = SetConfigLabel(node, label, target, gpus, allowed);
      if (!s.ok()) return s;
    }
    return RestorePausedLabels(node);
  }

  // mig-manager leaves nvidia.com/gpu.deploy.* paused when a run dies pending.
  Status RestorePausedLabels(const std::string& node) {
    auto cur = c_.Get(NodePath(node));
    if (!cur.ok()) return cur.status();
    std::vector<std::string> paused;
    const json labels = Labels(*cur);
    for (auto& [k, v] : labels.items()) {
      if (k.rfind(kGpuDeployPrefix, 0) == 0 && v == kPausedForMigChange) paused.push_back(k);
    }
    if (paused.empty()) return Status::Ok();
    Status s = Intent("restore-operands", "node " + node + ": " + paused[0] + (paused.size() > 1 ? " ..." : "") +
                                              " back to true");
    if (!s.ok()) return s;
    auto r = c_.UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
      for (const auto& k : paused) {
        if (n["metadata"]["labels"].value(k, "") == kPausedForMigChange) n["metadata"]["labels"][k] = "true";
      }
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    return Wrote("restore-operands", "node " + node + ": operand labels restored");
  }

  // Runs `goal` and rolls back on failure; records the outcome.
  StepOutcome Execute(const Goal& goal, audit::ChangeState done_state) {
    Status s = CheckCapacity(goal.needs);
    if (s.ok()) s = CheckNodes(goal.nodes);
    if (!s.ok()) {
      // Nothing written to the cluster.
      Progress("refused: " + s.message());
      return Finish(OutcomeKind::kRolledBack, s.message(), key_ == "step" ? audit::ChangeState::kRolledBack
                                                                          : record_.state, "refused");
    }
    s = Forward(goal);
    if (crashed_) return Crashed();
    if (s.ok()) {
      return Finish(OutcomeKind::kDone, "", done_state, "done");
    }
    return RollbackAfter(s.message());
  }

  StepOutcome RollbackAfter(const std::string& cause) {
    Progress("failed: " + cause + "; rolling back");
    // The rollback goes on when the log cannot take these two writes: putting
    // the nodes back matters more; the outcome says the log missed them.
    NoteJournalError(Log("rollback", "intent", cause));
    Run()["phase"] = "rollback";
    Run()["cause"] = cause;
    NoteJournalError(Save());
    rolling_back_ = true;
    Status r = Rollback();
    if (crashed_) return Crashed();
    const bool step = key_ == "step";
    if (r.ok()) {
      return Finish(OutcomeKind::kRolledBack, cause, step ? audit::ChangeState::kRolledBack : record_.state,
                    "rolled-back");
    }
    return Finish(OutcomeKind::kRollbackFailed, cause + "; rollback failed: " + r.message(),
                  step ? audit::ChangeState::kFailed : record_.state, "rollback-failed");
  }

  StepOutcome Finish(OutcomeKind kind, const std::string& cause, audit::ChangeState state, const std::string& phase) {
    outcome_.kind = kind;
    outcome_.cause = cause;
    Run()["phase"] = phase;
    Status s = Save(state, cause);
    if (s.ok()) s = Log(phase == "done" ? "done" : "outcome", kind == OutcomeKind::kDone ? "ok" : "failed",
                        std::string(OutcomeName(kind)) + (cause.empty() ? "" : ": " + cause));
    if (!s.ok() && outcome_.cause.empty()) outcome_.cause = "audit log: " + s.message();
    if (!journal_error_.empty()) {
      outcome_.cause += (outcome_.cause.empty() ? "" : "; ") + std::string("audit log: ") + journal_error_;
    }
    Progress(std::string(OutcomeName(kind)) + (cause.empty() ? "" : ": " + cause));
    return outcome_;
  }

  // A log write whose failure must not stop the work in hand (a rollback, a
  // resume): said in progress at once and in the outcome's cause.
  void NoteJournalError(const Status& s) {
    if (s.ok()) return;
    Progress("warning: audit log: " + s.message());
    if (journal_error_.empty()) journal_error_ = s.message();
  }

  StepOutcome Crashed() {
    outcome_.kind = OutcomeKind::kCrashed;
    outcome_.cause = "crashed (test fault injection)";
    return outcome_;
  }

 private:
  const StepContext& ctx_;
  kube::KubeClient& c_;
  std::string id_;
  std::string key_;
  audit::ChangeRecord record_;
  json undo_ = json::object();
  StepOutcome outcome_;
  bool crashed_ = false;
  bool rolling_back_ = false;
  std::string journal_error_;  // the first log write a rollback or resume went on without
};

StepOutcome Failed(const std::string& id, const std::string& cause) {
  StepOutcome o;
  o.change_id = id;
  o.kind = OutcomeKind::kRolledBack;
  o.cause = cause;
  return o;
}

Goal StepGoal(const plan::ScheduleStep& step) {
  Goal g;
  g.needs = step.needs;
  for (size_t i = 0; i < step.evictions.size(); ++i) g.eviction_rank.emplace(step.evictions[i].pod, i);
  for (const auto& node : step.nodes) {
    NodeGoal ng{node, {}};
    auto it = step.labels_after.find(node);
    if (it != step.labels_after.end()) {
      for (const auto& [k, v] : it->second) {
        if (k == kMigConfigLabel || k == kDevicePluginConfigLabel) ng.labels[std::string(k)] = std::string(v);
      }
    }
    g.nodes.push_back(ng);
  }
  for (const auto& o : step.owners) {
    OwnerGoal og{o.owner.kind, o.owner.namespace_, o.owner.name};
    json patch = json::parse(o.patch_json.empty() ? "{}" : o.patch_json, nullptr, false);
    og.patch = patch.is_object() ? patch : json::object();
    og.change = step.id;
    og.add_toleration = true;
    og.gitops = o.gitops;
    g.owners.push_back(og);
  }
  return g;
}

}  // namespace

void ResetProcessWritesForTesting() { g_process_writes = 0; }

const char* OutcomeName(OutcomeKind k) {
  switch (k) {
    case OutcomeKind::kDone: return "done";
    case OutcomeKind::kRolledBack: return "rolled-back";
    case OutcomeKind::kRollbackFailed: return "rollback-failed";
    case OutcomeKind::kCrashed: return "crashed";
  }
  return "?";
}

// A ConfigMap or namespace name must be a DNS-1123 subdomain; a manifest
// passed by mistake would otherwise reach the API as a garbled URL.
Status CheckArtifactNames(const StepArtifacts& a) {
  for (const auto& [what, name] : {std::pair<const char*, const std::string*>{"operator namespace", &a.operator_namespace},
                                   {"MIG ConfigMap name", &a.mig_configmap},
                                   {"device-plugin ConfigMap name", &a.device_plugin_configmap}}) {
    const bool ok = !name->empty() && name->size() <= 253 &&
                    name->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
    if (!ok) {
      return Status::Error(std::string(what) + " \"" + name->substr(0, 40) + (name->size() > 40 ? "..." : "") +
                           "\" is not a Kubernetes object name");
    }
  }
  return Status::Ok();
}

StepOutcome RunStep(const StepContext& ctx, const plan::ScheduleStep& step) {
  Status names = CheckArtifactNames(ctx.artifacts);
  if (!names.ok()) return Failed(step.id, names.message());
  Runner r(ctx, step.id, "step");
  audit::ChangeRecord fresh;
  fresh.id = step.id;
  fresh.policy = ctx.policy;
  fresh.content_hash = step.content_hash;
  fresh.state = audit::ChangeState::kRunning;
  fresh.created_at = Stamp(ctx.clock);
  fresh.updated_at = fresh.created_at;
  Status s = r.Load(&fresh);
  if (!s.ok()) return Failed(step.id, "audit log: " + s.message());
  if (r.record().state == audit::ChangeState::kDone) {
    r.Progress("already done: nothing to change");
    return r.outcome();  // idempotent: a done step is not taken again
  }
  if (r.record().state == audit::ChangeState::kRunning && r.Run().contains("phase")) {
    return Failed(step.id, "change " + step.id + " was left running by an earlier run: resume or roll it back first");
  }
  // A fresh attempt (a step rolled back before, or reverted, may be taken again).
  r.Run() = {{"nodes", json::object()}, {"owners", json::array()}};
  s = r.Save(audit::ChangeState::kRunning);
  if (s.ok()) s = r.Log("start", "intent", "step " + step.id + " (" + step.method + ") on " +
                                               (step.nodes.empty() ? std::string("no node") : step.nodes[0]) +
                                               (step.nodes.size() > 1 ? " ..." : ""));
  if (!s.ok()) return Failed(step.id, "audit log: " + s.message());
  return r.Execute(StepGoal(step), audit::ChangeState::kDone);
}

std::vector<StepOutcome> ResumeOrRollback(const StepContext& ctx) {
  std::vector<StepOutcome> out;
  auto list = ctx.store.ListChanges();
  if (!list.ok()) {
    out.push_back(Failed("", "audit log: " + list.status().message()));
    return out;
  }
  for (const auto& rec : *list) {
    json undo = json::parse(rec.undo_json.empty() ? "{}" : rec.undo_json, nullptr, false);
    const bool step_running = rec.state == audit::ChangeState::kRunning;
    const std::string revert_phase =
        undo.is_object() ? undo.value("/revert/phase"_json_pointer, std::string()) : std::string();
    const bool revert_running = rec.state == audit::ChangeState::kDone && !revert_phase.empty() &&
                                revert_phase != "done" && revert_phase != "rolled-back" && revert_phase != "refused";
    if (!step_running && !revert_running) continue;
    Runner r(ctx, rec.id, step_running ? "step" : "revert");
    Status s = r.Load(nullptr);
    if (!s.ok()) {
      out.push_back(Failed(rec.id, "audit log: " + s.message()));
      continue;
    }
    // The resumed work ended: crashed (a crash point), or done; false when it
    // failed and the step must be rolled back.
    auto settled = [&](const Status& st) {
      if (r.crashed()) {
        out.push_back(r.Crashed());
        return true;
      }
      if (!st.ok()) return false;
      out.push_back(r.Finish(OutcomeKind::kDone, "", audit::ChangeState::kDone, "done"));
      return true;
    };
    r.NoteJournalError(r.Log("resume", "intent", std::string("found ") + (step_running ? "step" : "revert") +
                                                   " left at phase " + r.Run().value("phase", "start")));
    if (step_running && (r.Run().value("phase", "") == "cleanup" || r.Run().value("phase", "") == "done")) {
      r.Progress("resuming: only the final cleanup is missing");
      s = r.Cleanup();
      if (settled(s)) continue;
    }
    // Interrupted while its owners moved: the nodes are reconfigured and some
    // owners already roll onto the new slices, so going back would need whole
    // GPUs the step freed and may have given away.  Finish the move instead
    // (re-applying a patch is idempotent); roll back only if that fails.
    if (step_running && r.Run().value("phase", "") == "owners") {
      Result<plan::ScheduleStep> step = plan::StepFromJson(json::parse(rec.step_json, nullptr, false));
      if (step.ok()) {
        r.Progress("resuming: the nodes are reconfigured; finishing the owners' move");
        const Goal goal = StepGoal(*step);
        s = r.MoveOwners(goal);
        if (s.ok() && !r.crashed()) {
          r.Run()["phase"] = "cleanup";
          s = r.Save();
          if (s.ok()) s = r.Cleanup();
        }
        if (settled(s)) continue;
      }
    }
    r.Progress("rolling back what the log shows half done");
    out.push_back(r.RollbackAfter("interrupted at phase " + r.Run().value("phase", "start") + " (resumed from the log)"));
  }
  return out;
}

StepOutcome RevertChange(const StepContext& ctx, const std::string& id) {
  Status names = CheckArtifactNames(ctx.artifacts);
  if (!names.ok()) return Failed(id, names.message());
  Runner r(ctx, id, "revert");
  Status s = r.Load(nullptr);
  if (!s.ok()) return Failed(id, s.message());
  if (r.record().state != audit::ChangeState::kDone) {
    return Failed(id, "change " + id + " is not done (only a done change can be reverted)");
  }
  const json step = r.Undo().value("step", json::object());
  auto& c = ctx.client;
  // 1. Nothing else changed the fields the change set.
  Goal goal;
  int64_t whole_needed = 0, whole_coming = 0;
  std::set<std::string> nodes;
  const json step_nodes = step.value("nodes", json::object());
  for (auto& [node, entry] : step_nodes.items()) {
    nodes.insert(node);
    auto cur = c.Get(NodePath(node));
    if (!cur.ok()) return Failed(id, cur.status().message());
    NodeGoal ng{node, {}};
    const json labels = Labels(*cur);
    const json labels_set = entry.value("labels_set", json::object());
    for (auto& [label, set] : labels_set.items()) {
      const json have = labels.contains(label) ? labels[label] : json(nullptr);
      if (have != set) {
        return Failed(id, "field metadata.labels[\"" + label + "\"] of node " + node + " was changed since change " +
                              id + ": expected " + set.dump() + ", found " + have.dump() + "; nothing changed");
      }
      const json prior = entry["prior"]["labels"].value(label, json(nullptr));
      std::optional<std::string> target = prior.is_string() ? std::optional<std::string>(prior.get<std::string>())
                                                            : std::nullopt;
      if (label == kMigConfigLabel && (!target || target->empty())) target = kAllDisabled;
      ng.labels[label] = target;
    }
    // GPUs the node offers whole once back: its GPU count under the prior MIG config.
    int64_t gpus = entry.value("gpu_count", 0);
    if (ng.labels.count(kMigConfigLabel) && *ng.labels[kMigConfigLabel] != kAllDisabled) {
      auto cm = c.Get("/api/v1/namespaces/" + ctx.artifacts.operator_namespace + "/configmaps/" +
                      ctx.artifacts.mig_configmap);
      if (cm.ok()) {
        auto exp = ExpectedMigResources(cm->value("/data/config.yaml"_json_pointer, std::string()),
                                        *ng.labels[kMigConfigLabel], static_cast<int>(gpus));
        if (exp.ok()) gpus = (*exp)[model::kGpuResource];
      }
    }
    whole_coming += gpus;
    goal.nodes.push_back(ng);
  }
  for (const auto& o : step.value("owners", json::array())) {
    if (!o.value("patched", false)) continue;
    const std::string path = OwnerPath(o["kind"], o["namespace"], o["name"]);
    auto cur = c.Get(path);
    if (!cur.ok()) return Failed(id, cur.status().message());
    const std::string drift = FirstDrift(o["template_before"], o["template_after"],
                                         cur->value("/spec/template"_json_pointer, json::object()));
    const std::string display = o["kind"].get<std::string>() + " " + o["namespace"].get<std::string>() + "/" +
                                o["name"].get<std::string>();
    if (!drift.empty()) {
      return Failed(id, "field spec.template" + drift + " of " + display + " was changed since change " + id + " (" +
                            drift.substr(drift.find(':') + 2) + "); nothing changed");
    }
    OwnerGoal g{o["kind"], o["namespace"], o["name"]};
    g.template_ = o["template_before"];
    if (o["annotation_before"].is_string()) g.change = o["annotation_before"].get<std::string>();
    // Whole GPUs its pods need once back.
    json pod = json::object();
    pod["spec"] = o["template_before"].value("spec", json::object());
    auto req = PodGpuRequests(pod);
    const int64_t replicas = cur->value("/spec/replicas"_json_pointer, int64_t{1});
    whole_needed += replicas * (req.count(model::kGpuResource) ? req[model::kGpuResource] : 0);
    goal.owners.push_back(g);
  }
  // 2. The whole GPUs they need exist: free whole GPUs on other schedulable
  // nodes plus the whole GPUs the reverted nodes offer must cover the owners'
  // pods, the whole-GPU pods on those nodes (evicted, they come back) and
  // pods already Pending for whole GPUs.
  auto all_nodes = c.List("/api/v1/nodes");
  auto pods = c.List("/api/v1/pods");
  if (!all_nodes.ok()) return Failed(id, all_nodes.status().message());
  if (!pods.ok()) return Failed(id, pods.status().message());
  int64_t whole_free = 0;
  std::map<std::string, int64_t> used;
  for (const auto& p : pods->items) {
    if (Terminal(p)) continue;
    auto req = PodGpuRequests(p);
    const std::string node = p.value("/spec/nodeName"_json_pointer, std::string());
    if (!req.count(model::kGpuResource)) continue;
    if (node.empty()) {
      whole_needed += req[model::kGpuResource];  // Pending for whole GPUs: competes for them
    } else {
      used[node] += req[model::kGpuResource];
    }
  }
  for (const auto& n : all_nodes->items) {
    const std::string name = n["metadata"].value("name", "");
    if (nodes.count(name)) {
      whole_needed += used[name];
      continue;
    }
    if (n.value("/spec/unschedulable"_json_pointer, false)) continue;
    whole_free += std::max<int64_t>(
        0, Quantity(n.value("/status/allocatable/nvidia.com~1gpu"_json_pointer, json("0"))) - used[name]);
  }
  if (whole_free + whole_coming < whole_needed) {
    return Failed(id, "cannot revert change " + id + ": the workloads need " + std::to_string(whole_needed) +
                          " whole GPUs, the cluster would have " + std::to_string(whole_free + whole_coming) + " (" +
                          std::to_string(whole_needed - whole_free - whole_coming) + " missing); nothing changed");
  }
  goal.owners_first = true;
  goal.reserve = false;
  r.Run() = {{"phase", "start"}, {"nodes", json::object()}, {"owners", json::array()}};
  s = r.Save();
  if (s.ok()) s = r.Log("revert", "intent", "revert change " + id);
  if (!s.ok()) return Failed(id, "audit log: " + s.message());
  return r.Execute(goal, audit::ChangeState::kReverted);
}

}  // namespace kubeon::apply
