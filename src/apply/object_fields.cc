#include "apply/object_fields.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include "model/cluster.h"

namespace kubeon::apply {

using json = nlohmann::json;

int64_t Quantity(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return 0;
  const std::string s = v.get<std::string>();
  char* end = nullptr;
  long long n = std::strtoll(s.c_str(), &end, 10);
  return end != s.c_str() && *end == '\0' ? n : 0;
}

bool IsGpuResource(const std::string& name) {
  return name == model::kGpuResource || name == model::kSharedGpuResource ||
         name.rfind(model::kMigResourcePrefix, 0) == 0;
}

std::map<std::string, int64_t> PodGpuRequests(const json& pod) {
  std::map<std::string, int64_t> out;
  const json spec = pod.value("spec", json::object());
  for (const char* list : {"containers", "initContainers"}) {
    for (const auto& c : spec.value(list, json::array())) {
      const json req = c.value("/resources/requests"_json_pointer, json::object());
      const json lim = c.value("/resources/limits"_json_pointer, json::object());
      std::set<std::string> names;
      for (auto it = req.begin(); it != req.end(); ++it) names.insert(it.key());
      for (auto it = lim.begin(); it != lim.end(); ++it) names.insert(it.key());
      for (const auto& n : names) {
        if (!IsGpuResource(n)) continue;
        const int64_t v = req.contains(n) ? Quantity(req[n]) : Quantity(lim[n]);
        if (v > 0) out[n] += v;
      }
    }
  }
  return out;
}

namespace {

// The patch without its nulls (what a merge into nothing stores).
json WithoutNulls(const json& patch) {
  if (!patch.is_object()) return patch;
  json out = json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (!it->is_null()) out[it.key()] = WithoutNulls(*it);
  }
  return out;
}

bool MergesByName(const json& list) {
  return list.is_array() && !list.empty() && list[0].is_object() && list[0].contains("name");
}

}  // namespace

void StrategicMerge(json& target, const json& patch) {
  if (!patch.is_object() || !target.is_object()) {
    target = WithoutNulls(patch);
    return;
  }
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& key = it.key();
    if (it->is_null()) {
      target.erase(key);
    } else if (it->is_object() && target.contains(key) && target[key].is_object()) {
      StrategicMerge(target[key], *it);
    } else if (MergesByName(*it) && target.contains(key) && target[key].is_array()) {
      json& have = target[key];
      for (const auto& item : *it) {
        bool merged = false;
        for (auto& h : have) {
          if (h.is_object() && h.value("name", "") == item.value("name", "")) {
            StrategicMerge(h, item);
            merged = true;
            break;
          }
        }
        if (!merged) have.push_back(WithoutNulls(item));
      }
    } else {
      target[key] = WithoutNulls(*it);
    }
  }
}

std::string FieldPath(const std::string& pointer) {
  std::string out;
  size_t i = 0;
  while (i < pointer.size()) {
    const size_t j = pointer.find('/', i + 1);
    std::string seg = pointer.substr(i + 1, j == std::string::npos ? std::string::npos : j - i - 1);
    for (size_t k; (k = seg.find("~1")) != std::string::npos;) seg.replace(k, 2, "/");
    for (size_t k; (k = seg.find("~0")) != std::string::npos;) seg.replace(k, 2, "~");
    if (!seg.empty() && seg.find_first_not_of("0123456789") == std::string::npos) {
      out += "[" + seg + "]";
    } else if (seg.find_first_of("./") != std::string::npos) {
      out += "[\"" + seg + "\"]";
    } else {
      out += "." + seg;
    }
    if (j == std::string::npos) break;
    i = j;
  }
  return out;
}

namespace {
// The pointers of the fields where `from` and `to` differ (json::diff), an
// element appended to an array ("/-" in the diff) named by its index in `to`.
std::vector<std::string> ChangedFields(const json& from, const json& to) {
  std::vector<std::string> out;
  std::map<std::string, size_t> next_index;  // array pointer -> index of its next appended element
  for (const auto& op : json::diff(from, to)) {
    std::string path = op["path"].get<std::string>();
    if (path.size() >= 2 && path.compare(path.size() - 2, 2, "/-") == 0) {
      const std::string array = path.substr(0, path.size() - 2);
      auto [it, fresh] = next_index.emplace(array, 0);
      if (fresh) {
        const json::json_pointer p(array);
        it->second = from.contains(p) && from.at(p).is_array() ? from.at(p).size() : 0;
      }
      path = array + "/" + std::to_string(it->second++);
    }
    out.push_back(std::move(path));
  }
  return out;
}

json At(const json& obj, const std::string& pointer) {
  const json::json_pointer p(pointer);
  return obj.contains(p) ? obj.at(p) : json(nullptr);
}
}  // namespace

std::string FirstDrift(const json& before, const json& after, const json& current) {
  for (const std::string& path : ChangedFields(before, after)) {
    const json want = At(after, path);
    const json have = At(current, path);
    if (want != have) {
      return FieldPath(path) + ": expected " + (want.is_null() ? "(absent)" : want.dump()) + ", found " +
             (have.is_null() ? "(absent)" : have.dump());
    }
  }
  return "";
}

std::optional<json> RestoreFields(const json& before, const json& after, const json& current) {
  if (!FirstDrift(before, after, current).empty()) return std::nullopt;
  try {
    // The diff's paths hold what the change set (FirstDrift above), so the
    // patch undoes exactly that; anything else `current` holds stays.
    return current.patch(json::diff(after, before));
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> OptStr(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

namespace {
json MetadataObject(const json& obj, const char* key) {
  if (!obj.is_object()) return json::object();
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return json::object();
  auto it = m->find(key);
  return it != m->end() && it->is_object() ? *it : json::object();
}

std::string MetadataString(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  return OptStr(*m, key).value_or("");
}
}  // namespace

json Labels(const json& obj) { return MetadataObject(obj, "labels"); }
json Annotations(const json& obj) { return MetadataObject(obj, "annotations"); }

bool IsTerminal(const json& pod) {
  if (!pod.is_object() || !pod.contains("status")) return false;
  const auto phase = OptStr(pod["status"], "phase");
  return phase == "Succeeded" || phase == "Failed";
}

std::string PodName(const json& pod) { return MetadataString(pod, "namespace") + "/" + MetadataString(pod, "name"); }

bool IsUnschedulable(const json& node) {
  const json v = node.value("/spec/unschedulable"_json_pointer, json(false));
  return v.is_boolean() && v.get<bool>();
}

int64_t GracePeriodSeconds(const json& pod) {
  const json v = pod.value("/spec/terminationGracePeriodSeconds"_json_pointer, json(30));
  return v.is_number_integer() ? std::max<int64_t>(0, v.get<int64_t>()) : 30;
}

std::string NodePath(const std::string& node) { return "/api/v1/nodes/" + node; }

std::string OwnerPath(const std::string& kind, const std::string& ns, const std::string& name) {
  const std::string plural = kind == "StatefulSet" ? "statefulsets" : kind == "ReplicaSet" ? "replicasets" : "deployments";
  return "/apis/apps/v1/namespaces/" + ns + "/" + plural + "/" + name;
}

}  // namespace kubeon::apply
