// See deployment_rollout.h.
#include "deployment_rollout.h"

#include <algorithm>

#include "pdb.h"

namespace kubeon::kubesim {

namespace {

const json kDefaultQuarter = "25%";

const json& Field(const json& deploy, const char* name) {
  const json* v = Find(deploy, {"spec", "strategy", "rollingUpdate", name});
  return v != nullptr && !v->is_null() ? *v : kDefaultQuarter;
}

bool IsRecreate(const json& deploy) { return Str(deploy, {"spec", "strategy", "type"}) == "Recreate"; }

}  // namespace

Outcome<Fenceposts> ResolveFenceposts(const json& deploy) {
  const int64_t replicas = Int(deploy, {"spec", "replicas"}, 1);
  auto surge = ScaledValue(Field(deploy, "maxSurge"), replicas, /*round_up=*/true);
  if (!surge.ok()) return surge.error();
  auto unavailable = ScaledValue(Field(deploy, "maxUnavailable"), replicas, /*round_up=*/false);
  if (!unavailable.ok()) return unavailable.error();
  Fenceposts f{surge.value(), unavailable.value()};
  if (f.max_surge == 0 && f.max_unavailable == 0) f.max_unavailable = 1;
  return f;
}

int64_t MaxUnavailable(const json& deploy) {
  const int64_t replicas = Int(deploy, {"spec", "replicas"}, 1);
  if (IsRecreate(deploy) || replicas == 0) return 0;
  auto f = ResolveFenceposts(deploy);
  return f.ok() ? std::min(f.value().max_unavailable, replicas) : 0;
}

int64_t MaxSurge(const json& deploy) {
  if (IsRecreate(deploy)) return 0;
  auto f = ResolveFenceposts(deploy);
  return f.ok() ? f.value().max_surge : 0;
}

int64_t NewReplicaSetReplicas(const json& deploy, int64_t all_spec_replicas, int64_t new_spec_replicas) {
  const int64_t replicas = Int(deploy, {"spec", "replicas"}, 1);
  if (IsRecreate(deploy)) return replicas;
  const int64_t max_total = replicas + MaxSurge(deploy);
  if (all_spec_replicas >= max_total) return new_spec_replicas;
  const int64_t up = std::min(max_total - all_spec_replicas, replicas - new_spec_replicas);
  return new_spec_replicas + up;
}

std::vector<int64_t> ScaleDownOldReplicaSets(const json& deploy, const std::vector<ReplicaSetCounts>& old,
                                             const ReplicaSetCounts& new_rs) {
  std::vector<int64_t> out;
  int64_t old_pods = 0, all_pods = new_rs.spec_replicas;
  for (const auto& rs : old) {
    out.push_back(rs.spec_replicas);
    old_pods += rs.spec_replicas;
    all_pods += rs.spec_replicas;
  }
  if (old_pods == 0) return out;
  const int64_t min_available = Int(deploy, {"spec", "replicas"}, 1) - MaxUnavailable(deploy);
  const int64_t new_unavailable = new_rs.spec_replicas - new_rs.available;
  const int64_t max_scaled_down = all_pods - min_available - new_unavailable;
  if (max_scaled_down <= 0) return out;
  // cleanupUnhealthyReplicas: unavailable old pods go first.
  int64_t cleaned = 0;
  for (size_t i = 0; i < old.size() && cleaned < max_scaled_down; ++i) {
    const int64_t unhealthy = out[i] - old[i].available;
    if (out[i] == 0 || unhealthy <= 0) continue;
    const int64_t n = std::min(max_scaled_down - cleaned, unhealthy);
    out[i] -= n;
    cleaned += n;
  }
  // scaleDownOldReplicaSetsForRollingUpdate: keep minAvailable available.
  int64_t available = new_rs.available;
  for (const auto& rs : old) available += rs.available;
  if (available <= min_available) return out;
  const int64_t total = available - min_available;
  int64_t scaled = 0;
  for (size_t i = 0; i < old.size() && scaled < total; ++i) {
    if (out[i] == 0) continue;
    const int64_t n = std::min(out[i], total - scaled);
    out[i] -= n;
    scaled += n;
  }
  return out;
}

Outcome<bool> ValidateRollingUpdate(const json& deploy) {
  const std::string name = Name(deploy);
  auto invalid = [&](const std::string& field, const json& value, const std::string& why) -> Outcome<bool> {
    return ApiError::Invalid("apps", "Deployment", name,
                             "spec.strategy.rollingUpdate." + field + ": Invalid value: " + value.dump() + ": " + why);
  };
  const json* ru = Find(deploy, {"spec", "strategy", "rollingUpdate"});
  if (IsRecreate(deploy)) {
    if (ru != nullptr && !ru->is_null()) {
      return ApiError::Invalid("apps", "Deployment", name,
                               "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
    }
    return true;
  }
  int64_t values[2] = {0, 0};
  const char* fields[2] = {"maxUnavailable", "maxSurge"};
  for (int i = 0; i < 2; ++i) {
    const json& v = Field(deploy, fields[i]);
    auto pct = ScaledValue(v, 100, false);  // the percentage itself, or the int
    if (!pct.ok()) return invalid(fields[i], v, "must be an integer or percentage (e.g '5%')");
    if (pct.value() < 0) return invalid(fields[i], v, "must be greater than or equal to 0");
    if (i == 0 && v.is_string() && pct.value() > 100) return invalid(fields[i], v, "must not be greater than 100%");
    values[i] = pct.value();
  }
  if (values[0] == 0 && values[1] == 0) {
    return invalid("maxUnavailable", Field(deploy, "maxUnavailable"), "may not be 0 when `maxSurge` is 0");
  }
  return true;
}

}  // namespace kubeon::kubesim
