#include "apply/eviction.h"

#include <algorithm>

#include "apply/object_fields.h"
#include "apply/step_wait.h"

namespace kubeon::apply {

using json = nlohmann::json;
using std::chrono::milliseconds;

Result<std::vector<json>> GpuPods(StepJournal& j, const std::string& node, const char* only_resource) {
  kube::ListOptions o;
  o.field_selector = "spec.nodeName=" + node;
  auto pods = j.client().List("/api/v1/pods", o);
  if (!pods.ok()) return pods.status();
  std::vector<json> out;
  for (const auto& p : pods->items) {
    if (IsTerminal(p)) continue;
    auto req = PodGpuRequests(p);
    if (req.empty()) continue;
    if (only_resource != nullptr && !req.count(only_resource)) continue;
    out.push_back(p);
  }
  return out;
}

Status EvictAndWait(StepJournal& j, const json& pod, Clock::TimePoint until) {
  const json meta = pod.value("metadata", json::object());
  const std::string ns = OptStr(meta, "namespace").value_or("");
  const std::string name = OptStr(meta, "name").value_or("");
  const std::string uid = OptStr(meta, "uid").value_or("");
  const std::string display = ns + "/" + name;
  // Read before evicting: `pod` may refer to storage the eviction invalidates.
  const milliseconds gone_within = milliseconds(GracePeriodSeconds(pod) * 1000) + j.options().pod_gone_margin;
  Clock& clock = j.ctx().clock;
  if (!meta.contains("deletionTimestamp")) {
    Status s = j.Intent("evict", "evict pod " + display);
    if (!s.ok()) return s;
    bool told = false;
    while (true) {
      if (Status fenced = j.Fence(); !fenced.ok()) return fenced;
      auto r = j.client().Evict(ns, name);
      if (!r.ok()) return r.status();
      if (r->outcome == kube::EvictionOutcome::kEvicted) {
        s = j.Wrote("evict", "pod " + display + " evicted");
        if (!s.ok()) return s;
        break;
      }
      if (r->outcome == kube::EvictionOutcome::kPodNotFound) break;
      const bool throttled = r->outcome == kube::EvictionOutcome::kThrottled;
      const milliseconds wait = throttled ? r->retry_after : j.options().eviction_retry_interval;
      if (!told) {
        j.Progress("eviction of pod " + display + (throttled ? " throttled by the API server (" : " refused for now (") +
                   r->message + "); retrying " +
                   (throttled ? "after its Retry-After of " + std::to_string(wait.count()) + " ms"
                              : "every " + std::to_string(wait.count()) + " ms"));
        told = true;
      }
      if (clock.Now() > until) {
        return Status::Error("eviction of pod " + display + " still refused at the deadline: " + r->message,
                             throttled ? StatusCode::kThrottled : StatusCode::kDisruptionBudget);
      }
      s = CheckDeadline(j, "evicting " + display);
      if (!s.ok()) return s;
      clock.Sleep(wait);
    }
  }
  return Poll(j, "pod " + display + " to be gone", gone_within, [&]() -> Result<bool> {
    auto got = j.client().Get("/api/v1/namespaces/" + ns + "/pods/" + name);
    if (!got.ok()) {
      if (got.error().Code() == StatusCode::kNotFound) return true;
      return got.status();
    }
    return OptStr(got->value("metadata", json::object()), "uid").value_or("") != uid;
  });
}

Status EvictGpuPods(StepJournal& j, const std::string& node, const std::map<std::string, size_t>& rank) {
  const auto until = j.ctx().clock.Now() + j.options().eviction_deadline;
  auto pods = GpuPods(j, node);
  if (!pods.ok()) return pods.status();
  auto rank_of = [&](const json& p) {
    auto it = rank.find(PodName(p));
    return it == rank.end() ? rank.size() : it->second;
  };
  std::stable_sort(pods->begin(), pods->end(), [&](const json& a, const json& b) { return rank_of(a) < rank_of(b); });
  for (const auto& p : *pods) {
    if (Status s = EvictAndWait(j, p, until); !s.ok()) return s;
  }
  auto again = GpuPods(j, node);
  if (!again.ok()) return again.status();
  for (const auto& p : *again) {
    if (Status s = EvictAndWait(j, p, until); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace kubeon::apply
