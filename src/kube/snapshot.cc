// See snapshot.h.
#include "kube/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "model/cluster.h"

namespace kubeon::kube {
namespace {

using json = nlohmann::json;

struct Collection {
  const char* resource;     // as kubectl names it
  const char* path;         // all namespaces
  const char* api_version;  // filled into each item
  const char* kind;
};

constexpr Collection kCollections[] = {
    {"nodes", "/api/v1/nodes", "v1", "Node"},
    {"pods", "/api/v1/pods", "v1", "Pod"},
    {"poddisruptionbudgets", "/apis/policy/v1/poddisruptionbudgets", "policy/v1", "PodDisruptionBudget"},
    {"deployments", "/apis/apps/v1/deployments", "apps/v1", "Deployment"},
    {"statefulsets", "/apis/apps/v1/statefulsets", "apps/v1", "StatefulSet"},
    {"replicasets", "/apis/apps/v1/replicasets", "apps/v1", "ReplicaSet"},
};

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

Result<json> FetchSnapshot(KubeClient& client, const SnapshotProgressCallback& progress, int64_t page_size,
                           const std::string& operator_namespace) {
  json items = json::array();
  // Lists `c` into items; with `optional`, a 404 (kind not installed) or 403
  // (not allowed) leaves it out instead of failing.  Returns the items added.
  auto fetch = [&](const Collection& c, bool optional) -> Result<size_t> {
    ListOptions options;
    options.limit = page_size;
    if (progress) {
      options.on_page = [&](size_t n) { progress(SnapshotProgress{c.resource, n, false}); };
    }
    auto list = client.List(c.path, options);
    if (!list.ok()) {
      if (optional && (list.error().http_status == 404 || list.error().http_status == 403)) {
        if (progress) progress(SnapshotProgress{c.resource, 0, true});
        return size_t{0};
      }
      return list.error().ToStatus();
    }
    for (auto& item : list->items) {
      if (!item.is_object()) {
        return Status::Error(std::string("list ") + c.resource + ": an item is not an object");
      }
      item["apiVersion"] = c.api_version;
      item["kind"] = c.kind;
      items.push_back(std::move(item));
    }
    if (progress) progress(SnapshotProgress{c.resource, list->items.size(), true});
    return list->items.size();
  };
  for (const Collection& c : kCollections) {
    Result<size_t> n = fetch(c, false);
    if (!n.ok()) return n.status();
  }
  Result<size_t> policies =
      fetch({"clusterpolicies", "/apis/nvidia.com/v1/clusterpolicies", "nvidia.com/v1", "ClusterPolicy"}, true);
  if (!policies.ok()) return policies.status();
  std::string ns = operator_namespace;
  for (size_t i = items.size() - *policies; i < items.size() && ns.empty(); ++i) {
    const json& status = items[i].contains("status") && items[i]["status"].is_object() ? items[i]["status"] : json::object();
    if (status.contains("namespace") && status["namespace"].is_string()) ns = status["namespace"].get<std::string>();
  }
  if (ns.empty()) ns = model::kDefaultOperatorNamespace;
  const std::string path = "/api/v1/namespaces/" + ns + "/configmaps";
  Result<size_t> config_maps = fetch({"configmaps", path.c_str(), "v1", "ConfigMap"}, true);
  if (!config_maps.ok()) return config_maps.status();
  return json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)},
              {"metadata", {{"resourceVersion", ""}}}};
}

std::string FormatSnapshot(const json& snapshot) {
  return snapshot.dump(4, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace) + "\n";
}

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return Status::Error(path + ": cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    std::string msg = path + ": " + what + ": " + std::strerror(errno);
    close(fd);
    unlink(tmpl.c_str());
    return Status::Error(msg);
  };
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write failed");
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (fchmod(fd, 0644) != 0) return fail("chmod failed");
  if (fsync(fd) != 0) return fail("fsync failed");
  if (close(fd) != 0) {
    std::string msg = path + ": close failed: " + std::strerror(errno);
    unlink(tmpl.c_str());
    return Status::Error(msg);
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    std::string msg = path + ": cannot rename the temporary file into place: " + std::strerror(errno);
    unlink(tmpl.c_str());
    return Status::Error(msg);
  }
  return Status::Ok();
}

Result<std::unique_ptr<KubeClient>> ConnectWithOptions(const SnapshotOptions& options) {
  LoadOptions load = options.environment ? *options.environment : LoadOptions::FromEnvironment();
  load.kubeconfig_path = options.kubeconfig;
  load.context = options.context;
  auto config = LoadRestConfig(load);
  if (!config.ok()) return config.status();
  return KubeClient::Connect(*config, options.client);
}

int RunSnapshotCommand(const SnapshotOptions& options, std::ostream& out, std::ostream& err) {
  auto fail = [&](const Status& s) {
    err << "kubeon-gpu snapshot: " << OneLine(s.message()) << "\n";
    return 1;
  };
  auto client = ConnectWithOptions(options);
  if (!client.ok()) return fail(client.status());
  SnapshotProgressCallback progress;
  if (options.verbose) {
    progress = [&](const SnapshotProgress& p) {
      if (p.done) err << "listed " << p.items << " " << p.resource << "\n";
    };
  }
  auto snapshot = FetchSnapshot(**client, progress, options.page_size, options.operator_namespace);
  if (!snapshot.ok()) return fail(snapshot.status());
  const std::string text = FormatSnapshot(*snapshot);
  if (options.output.empty() || options.output == "-") {
    out << text;
    out.flush();
    if (!out) return fail(Status::Error("cannot write the snapshot to standard output"));
    return 0;
  }
  Status s = WriteFileAtomically(options.output, text);
  if (!s.ok()) return fail(s);
  return 0;
}

}  // namespace kubeon::kube
