// See snapshot.h.
#include "snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "resources.h"

namespace kubeon::kubesim {

Outcome<size_t> LoadList(Store& store, const json& list, const std::string& source, bool keep_versions,
                         CustomTypes* custom) {
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    return ApiError::BadRequest(source + ": not a Kubernetes List (no \"items\" array)");
  }
  size_t n = 0;
  const json& items = list["items"];
  // CustomResourceDefinitions first, so the objects of their types load.
  std::vector<size_t> order;
  for (int crds = 1; crds >= 0; --crds) {
    for (size_t i = 0; i < items.size(); ++i) {
      bool is_crd = items[i].is_object() && items[i].value("kind", "") == "CustomResourceDefinition";
      if (is_crd == (crds == 1)) order.push_back(i);
    }
  }
  bool synced = false;
  for (size_t i : order) {
    const json& item = items[i];
    if (!synced && custom != nullptr && item.is_object() && item.value("kind", "") != "CustomResourceDefinition") {
      custom->Sync(store);
      synced = true;
    }
    std::string where = source + ": items[" + std::to_string(i) + "]";
    if (!item.is_object()) return ApiError::BadRequest(where + ": not an object");
    std::string api_version = item.value("apiVersion", "");
    std::string kind = item.value("kind", "");
    size_t slash = api_version.find('/');
    std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    const ResourceType* rt = FindServedByKind(custom, group, kind);
    if (rt == nullptr || !rt->Serves(version)) {
      return ApiError::BadRequest(where + ": kind \"" + kind + "\" apiVersion \"" + api_version +
                                  "\" is not served by kube-sim");
    }
    std::string name = Name(item);
    if (name.empty()) return ApiError::BadRequest(where + ": metadata.name is missing");
    if (rt->namespaced != !Namespace(item).empty()) {
      return ApiError::BadRequest(where + " (" + kind + " " + name + "): metadata.namespace " +
                                  (rt->namespaced ? "is missing" : "must be absent"));
    }
    json obj = item;
    obj["apiVersion"] = rt->ApiVersion(rt->versions[0]);
    store.Restore(rt->StoreId(), std::move(obj), keep_versions);
    ++n;
  }
  return n;
}

void EnsureNamespaces(Store& store, const std::vector<std::string>& always, const CustomTypes* custom) {
  std::set<std::string> names(always.begin(), always.end());
  for (const auto& id : store.StoreIds()) {
    const ResourceType* rt = FindServedByStoreId(custom, id);
    if (rt == nullptr || !rt->namespaced) continue;
    store.ForEach(id, "", "", [&](const std::string&, const json& o) {
      names.insert(Namespace(o));
      return true;
    });
  }
  for (const auto& ns : names) {
    if (ns.empty() || store.Get(kNamespaces, "", ns) != nullptr) continue;
    store.Restore(kNamespaces, {{"apiVersion", "v1"},
                                {"kind", "Namespace"},
                                {"metadata", {{"name", ns}, {"labels", {{"kubernetes.io/metadata.name", ns}}}}},
                                {"spec", {{"finalizers", json::array({"kubernetes"})}}},
                                {"status", {{"phase", "Active"}}}});
  }
}

void SynthesizeDaemonSets(Store& store) {
  std::vector<json> created;
  std::set<std::string> done;
  std::map<std::string, std::pair<int64_t, int64_t>> counts;  // ns/name -> pods, ready
  store.ForEach(kPods, "", "", [&](const std::string&, const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref == nullptr || ref->value("kind", "") != "DaemonSet" || !IsPodActive(pod)) return true;
    auto& c = counts[Namespace(pod) + "/" + ref->value("name", "")];
    ++c.first;
    if (IsPodReady(pod)) ++c.second;
    return true;
  });
  store.ForEach(kPods, "", "", [&](const std::string&, const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref == nullptr || ref->value("kind", "") != "DaemonSet") return true;
    std::string ns = Namespace(pod), name = ref->value("name", "");
    if (store.Get(kDaemonSets, ns, name) != nullptr || !done.insert(ns + "/" + name).second) return true;
    auto [scheduled, ready] = counts[ns + "/" + name];
    json labels = Labels(pod);
    labels.erase("controller-revision-hash");
    labels.erase("pod-template-generation");
    json tmpl = {{"metadata", {{"labels", labels}}}, {"spec", pod.value("spec", json::object())}};
    tmpl["spec"].erase("nodeName");
    json ds = {{"apiVersion", "apps/v1"},
               {"kind", "DaemonSet"},
               {"metadata", {{"name", name}, {"namespace", ns}, {"uid", ref->value("uid", "")}, {"labels", labels},
                             {"annotations", {{"kube-sim.kubeon.io/synthesized", "true"}}}}},
               {"spec", {{"selector", {{"matchLabels", labels}}}, {"template", tmpl}}},
               {"status", {{"currentNumberScheduled", scheduled}, {"desiredNumberScheduled", scheduled},
                           {"updatedNumberScheduled", scheduled}, {"numberReady", ready},
                           {"numberAvailable", ready}, {"numberMisscheduled", 0}}}};
    created.push_back(std::move(ds));
    return true;
  });
  for (auto& ds : created) store.Restore(kDaemonSets, std::move(ds));
}

json DumpState(const Store& store) {
  json items = json::array();
  for (const auto& id : store.StoreIds()) {
    store.ForEach(id, "", "", [&](const std::string&, const json& o) {
      items.push_back(o);
      return true;
    });
  }
  return {{"apiVersion", "v1"},
          {"kind", "List"},
          {"metadata", {{"resourceVersion", std::to_string(store.ResourceVersion())}}},
          {"items", std::move(items)}};
}

Outcome<bool> LoadState(Store& store, const json& state, const std::string& source, CustomTypes* custom) {
  auto n = LoadList(store, state, source, /*keep_versions=*/true, custom);
  if (!n.ok()) return n.error();
  std::string rv = Str(state, {"metadata", "resourceVersion"});
  if (!rv.empty()) store.SetResourceVersion(std::strtoull(rv.c_str(), nullptr, 10));
  return true;
}

Outcome<bool> WriteFileAtomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ApiError::Internal(tmp + ": " + std::strerror(errno));
  size_t off = 0;
  while (off < content.size()) {
    ssize_t w = ::write(fd, content.data() + off, content.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return ApiError::Internal(tmp + ": " + err);
    }
    off += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return ApiError::Internal(tmp + ": " + std::strerror(errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return ApiError::Internal(path + ": " + err);
  }
  return true;
}

}  // namespace kubeon::kubesim
