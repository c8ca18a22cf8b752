// See pdb.h.
#include "pdb.h"

#include <cstdlib>
#include <set>

#include "meta.h"
#include "selector.h"

namespace kubeon::kubesim {

Outcome<int64_t> ScaledValue(const json& v, int64_t total, bool round_up) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return ApiError::BadRequest("invalid value for IntOrString: " + v.dump());
  std::string s = v.get<std::string>();
  if (s.size() < 2 || s.back() != '%') {
    return ApiError::BadRequest("invalid value for IntOrString: invalid type: string is not a percentage: \"" + s + "\"");
  }
  char* end = nullptr;
  long pct = std::strtol(s.c_str(), &end, 10);
  if (end == nullptr || *end != '%') {
    return ApiError::BadRequest("invalid value for IntOrString: \"" + s + "\"");
  }
  int64_t num = static_cast<int64_t>(pct) * total;
  return round_up ? (num + 99) / 100 : num / 100;
}

bool PdbSelectsPod(const json& pdb, const json& pod) {
  if (Namespace(pdb) != Namespace(pod)) return false;
  const json* sel = Find(pdb, {"spec", "selector"});
  if (sel == nullptr || sel->is_null()) return false;
  auto s = LabelSelector::FromJson(*sel);
  return s.ok() && s.value().Matches(Labels(pod));
}

namespace {

Outcome<int64_t> ExpectedScale(const std::vector<const json*>& pods, const ScaleFinder& scale_of) {
  std::set<std::string> seen;
  int64_t total = 0;
  for (const json* pod : pods) {
    if (ControllerRef(*pod) == nullptr) {
      return ApiError::Internal("found no controller ref for pod \"" + Name(*pod) + "\"");
    }
    auto scale = scale_of(*pod);
    if (!scale.ok()) return scale.error();
    if (seen.insert(scale.value().uid).second) total += scale.value().replicas;
  }
  return total;
}

}  // namespace

PdbStatus ComputePdbStatus(const json& pdb, const std::vector<const json*>& pods,
                           const ScaleFinder& scale_of) {
  PdbStatus st;
  for (const json* pod : pods) {
    if (!IsPodDeleting(*pod) && IsPodReady(*pod)) ++st.current_healthy;
  }
  const json* max_unavailable = Find(pdb, {"spec", "maxUnavailable"});
  const json* min_available = Find(pdb, {"spec", "minAvailable"});
  auto fail = [&](const ApiError& e) {
    st.sync_error = e.message;
    st.disruptions_allowed = 0;
    return st;
  };
  if (max_unavailable != nullptr && !max_unavailable->is_null()) {
    auto expected = ExpectedScale(pods, scale_of);
    if (!expected.ok()) return fail(expected.error());
    st.expected_pods = expected.value();
    auto mu = ScaledValue(*max_unavailable, st.expected_pods, true);
    if (!mu.ok()) return fail(mu.error());
    st.desired_healthy = std::max<int64_t>(0, st.expected_pods - mu.value());
  } else if (min_available != nullptr && !min_available->is_null()) {
    if (min_available->is_number_integer()) {
      st.desired_healthy = min_available->get<int64_t>();
      st.expected_pods = static_cast<int64_t>(pods.size());
    } else {
      auto expected = ExpectedScale(pods, scale_of);
      if (!expected.ok()) return fail(expected.error());
      st.expected_pods = expected.value();
      auto ma = ScaledValue(*min_available, st.expected_pods, true);
      if (!ma.ok()) return fail(ma.error());
      st.desired_healthy = ma.value();
    }
  } else {
    st.expected_pods = static_cast<int64_t>(pods.size());
  }
  int64_t allowed = st.current_healthy - st.desired_healthy;
  st.disruptions_allowed = (st.expected_pods <= 0 || allowed <= 0) ? 0 : allowed;
  return st;
}

void PdbStatus::WriteTo(json* pdb, const std::string& now) const {
  json& status = (*pdb)["status"];
  if (!status.is_object()) status = json::object();
  status["observedGeneration"] = Int(*pdb, {"metadata", "generation"}, 1);
  status["expectedPods"] = expected_pods;
  status["desiredHealthy"] = desired_healthy;
  status["currentHealthy"] = current_healthy;
  status["disruptionsAllowed"] = disruptions_allowed;
  std::string cstatus = disruptions_allowed > 0 ? "True" : "False";
  std::string reason = !sync_error.empty() ? "SyncFailed"
                       : disruptions_allowed > 0 ? "SufficientPods"
                                                 : "InsufficientPods";
  json cond = {{"type", "DisruptionAllowed"}, {"status", cstatus}, {"reason", reason},
               {"message", sync_error}, {"observedGeneration", status["observedGeneration"]},
               {"lastTransitionTime", now}};
  json conds = json::array();
  if (status.contains("conditions") && status["conditions"].is_array()) {
    for (const auto& c : status["conditions"]) {
      if (c.value("type", "") != "DisruptionAllowed") {
        conds.push_back(c);
      } else if (c.value("status", "") == cstatus && c.value("reason", "") == reason &&
                 c.value("message", "") == sync_error) {
        cond["lastTransitionTime"] = c.value("lastTransitionTime", now);
      }
    }
  }
  conds.push_back(cond);
  status["conditions"] = conds;
}

}  // namespace kubeon::kubesim
