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

namespace {

// Appends `item` to `out` with apiVersion and kind first when the server left
// them out (typed lists do; custom resource lists keep them).
Status AppendItem(const ListPageItem& item, const Collection& c, std::string* out) {
  if (item.has_kind && item.has_api_version) {
    out->append(item.json);
    return Status::Ok();
  }
  if (item.has_kind || item.has_api_version) {
    // Only one of the two: rare enough to go through a tree (depth-checked).
    json object = json::parse(item.json, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) return Status::Error("items[" + std::to_string(item.index) + "]: not a JSON object");
    object["apiVersion"] = c.api_version;
    object["kind"] = c.kind;
    out->append(object.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace));
    return Status::Ok();
  }
  // item.json is "{...}": splice the two fields in after the brace.
  out->append("{\"apiVersion\":\"").append(c.api_version).append("\",\"kind\":\"").append(c.kind).append("\"");
  std::string_view rest = item.json.substr(1);
  const size_t first = rest.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && rest[first] != '}') out->push_back(',');
  out->append(rest);
  return Status::Ok();
}

void NewLine(size_t depth, std::string* out) {
  out->push_back('\n');
  out->append(depth * 4, ' ');
}

}  // namespace

Result<std::string> FetchSnapshotText(KubeClient& client, const SnapshotProgressCallback& progress,
                                      int64_t page_size, const std::string& operator_namespace) {
  std::string text = "{\"apiVersion\":\"v1\",\"items\":[";
  size_t total = 0;
  std::string policy_namespace;  // status.namespace of the first ClusterPolicy that has one
  // Lists `c` into text; with `optional`, a 404 (kind not installed) or 403
  // (not allowed) leaves it out instead of failing.
  auto fetch = [&](const Collection& c, bool optional) -> Status {
    ListOptions options;
    options.limit = page_size;
    if (progress) {
      options.on_page = [&](size_t n) { progress(SnapshotProgress{c.resource, n, false}); };
    }
    const size_t mark = text.size();
    const size_t total_before = total;
    ListSink sink;
    sink.on_item = [&](const ListPageItem& item) {
      if (total > 0) text.push_back(',');
      ++total;
      if (std::string_view(c.kind) == "ClusterPolicy" && policy_namespace.empty()) {
        json policy = json::parse(item.json, nullptr, /*allow_exceptions=*/false);
        if (policy.is_object() && policy.contains("status") && policy["status"].is_object() &&
            policy["status"].contains("namespace") && policy["status"]["namespace"].is_string()) {
          policy_namespace = policy["status"]["namespace"].get<std::string>();
        }
      }
      return AppendItem(item, c, &text);
    };
    sink.on_restart = [&] {
      text.resize(mark);
      total = total_before;
    };
    auto list = client.ListRaw(c.path, options, sink);
    if (!list.ok()) {
      if (optional && (list.error().http_status == 404 || list.error().http_status == 403)) {
        if (progress) progress(SnapshotProgress{c.resource, 0, true});
        return Status::Ok();
      }
      return list.error().ToStatus();
    }
    if (progress) progress(SnapshotProgress{c.resource, list->items, true});
    return Status::Ok();
  };
  for (const Collection& c : kCollections) {
    Status s = fetch(c, false);
    if (!s.ok()) return s;
  }
  Status policies =
      fetch({"clusterpolicies", "/apis/nvidia.com/v1/clusterpolicies", "nvidia.com/v1", "ClusterPolicy"}, true);
  if (!policies.ok()) return policies;
  std::string ns = operator_namespace.empty() ? policy_namespace : operator_namespace;
  if (ns.empty()) ns = model::kDefaultOperatorNamespace;
  const std::string path = "/api/v1/namespaces/" + ns + "/configmaps";
  Status config_maps = fetch({"configmaps", path.c_str(), "v1", "ConfigMap"}, true);
  if (!config_maps.ok()) return config_maps;
  text.append("],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}");
  return text;
}

Result<json> FetchSnapshot(KubeClient& client, const SnapshotProgressCallback& progress, int64_t page_size,
                           const std::string& operator_namespace) {
  Result<std::string> text = FetchSnapshotText(client, progress, page_size, operator_namespace);
  if (!text.ok()) return text.status();
  json snapshot = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (snapshot.is_discarded()) return Status::Error("the snapshot is not valid JSON");  // items are validated
  return snapshot;
}

std::string FormatSnapshot(const json& snapshot) {
  return snapshot.dump(4, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace) + "\n";
}

std::string FormatSnapshotText(std::string_view compact) {
  std::string out;
  out.reserve(compact.size() + compact.size() / 2);
  size_t depth = 0;
  const size_t n = compact.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = compact[i];
    switch (c) {
      case '"': {
        size_t j = i + 1;
        while (j < n && compact[j] != '"') j += compact[j] == '\\' ? 2 : 1;
        out.append(compact.substr(i, j + 1 - i));
        i = j;
        break;
      }
      case '{':
      case '[': {
        const size_t next = compact.find_first_not_of(" \t\r\n", i + 1);
        if (next != std::string_view::npos && compact[next] == (c == '{' ? '}' : ']')) {
          out.push_back(c);  // empty: "{}" and "[]" on one line, as kubectl prints them
          out.push_back(compact[next]);
          i = next;
          break;
        }
        out.push_back(c);
        NewLine(++depth, &out);
        break;
      }
      case '}':
      case ']':
        if (depth > 0) --depth;
        NewLine(depth, &out);
        out.push_back(c);
        break;
      case ',':
        out.push_back(',');
        NewLine(depth, &out);
        break;
      case ':':
        out.append(": ");
        break;
      case ' ':
      case '\t':
      case '\r':
      case '\n':
        break;
      default:
        out.push_back(c);
        break;
    }
  }
  out.push_back('\n');
  return out;
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
  auto snapshot = FetchSnapshotText(**client, progress, options.page_size, options.operator_namespace);
  if (!snapshot.ok()) return fail(snapshot.status());
  const std::string text = FormatSnapshotText(*snapshot);
  std::string().swap(*snapshot);
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
