// Test support (not part of the library): an in-memory Kubernetes API as a
// kube::HttpTransport with just the semantics the executor's parts rely on,
// a clock that advances when slept on, and a fixture wiring both to a
// StepJournal over the in-memory AuditStore, so every phase of the step
// state machine has unit tests without kube-sim (step_runner_test keeps the
// end-to-end runs against kube-sim).
//
// FakeCluster:
//  - Objects live at their API paths (Node, Pod, ConfigMap, Deployment,
//    StatefulSet).  GET of an object; GET of /api/v1/nodes, /api/v1/pods
//    (fieldSelector spec.nodeName=X) and /api/v1/namespaces/NS/pods
//    (labelSelector k=v,...) lists.
//  - PUT needs the stored metadata.resourceVersion (else 409 Conflict); POST
//    creates (409 AlreadyExists); every write bumps one resourceVersion
//    counter, and a PUT of an apps/v1 object whose spec changed bumps
//    metadata.generation.
//  - POST .../pods/NAME/eviction: 404 for a missing pod; 429 with a
//    DisruptionBudget cause while pdb_refusals[ns/name] > 0 (decremented);
//    429 with Retry-After: 2 and no cause while throttle_evictions > 0;
//    else the pod is deleted (201).
//  - fail[METHOD + " " + path] = N: the next N such requests answer 403.
//  - on_write(path, object) runs after every stored PUT or POST, so a test
//    plays mig-manager, the device plugin or a rollout controller.
//  - writes lists "METHOD path" of every write, in order.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "apply/clock.h"
#include "apply/memory_audit_store_test_util.h"
#include "apply/operator_config.h"
#include "apply/step_context.h"
#include "apply/step_journal.h"
#include "audit/test_fake_kube_api.h"
#include "kube/client.h"
#include "kube/http_transport.h"

namespace kubeon::apply::testing {

class FakeCluster : public kube::HttpTransport {
 public:
  using json = nlohmann::json;

  std::map<std::string, json> objects;
  std::map<std::string, int> pdb_refusals;  // "ns/name" -> 429s left
  int throttle_evictions = 0;
  std::map<std::string, int> fail;  // "PUT /api/v1/nodes/x" -> 403s left
  std::function<void(const std::string& path, json& object)> on_write;
  std::vector<std::string> writes;

  void Put(const std::string& path, json object) {
    object["metadata"]["resourceVersion"] = std::to_string(++rv_);
    objects[path] = std::move(object);
  }
  json& At(const std::string& path) { return objects.at(path); }

  kube::HttpResult Send(const kube::HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string path = request.path.substr(0, request.path.find('?'));
    const std::string query = request.path.find('?') == std::string::npos ? "" : request.path.substr(request.path.find('?') + 1);
    const std::string key = request.method + " " + path;
    if (auto f = fail.find(key); f != fail.end() && f->second > 0) {
      --f->second;
      return Error(403, "Forbidden", "injected failure of " + key);
    }
    if (request.method == "GET") return Get(path, query);
    json body = json::parse(request.body, nullptr, false);
    if (body.is_discarded()) return Error(400, "BadRequest", "body is not JSON");
    writes.push_back(key);
    if (request.method == "POST" && path.size() > 9 && path.substr(path.size() - 9) == "/eviction") {
      return Evict(path.substr(0, path.size() - 9));
    }
    if (request.method == "POST") {
      const std::string at = path + "/" + body["metadata"].value("name", "");
      if (objects.count(at)) return Error(409, "AlreadyExists", at + " already exists");
      body["metadata"]["resourceVersion"] = std::to_string(++rv_);
      body["metadata"]["generation"] = 1;
      objects[at] = body;
      if (on_write) on_write(at, objects[at]);
      return Answer(201, objects[at]);
    }
    if (request.method == "PUT") {
      auto it = objects.find(path);
      if (it == objects.end()) return Error(404, "NotFound", path + " not found");
      if (body["metadata"].value("resourceVersion", "") != it->second["metadata"].value("resourceVersion", "")) {
        return Error(409, "Conflict", "the object has been modified");
      }
      if (path.rfind("/apis/apps/v1/", 0) == 0 && body.value("spec", json()) != it->second.value("spec", json())) {
        body["metadata"]["generation"] = it->second["metadata"].value("generation", 1) + 1;
      }
      body["metadata"]["resourceVersion"] = std::to_string(++rv_);
      it->second = body;
      if (on_write) on_write(path, it->second);
      return Answer(200, it->second);
    }
    return Error(405, "MethodNotAllowed", request.method + " is not supported by the fake");
  }

  kube::HttpResult Stream(const kube::HttpRequest&, const kube::StreamHandler&) override {
    return kube::TransportError{kube::TransportErrorKind::kOther, "the fake does not stream"};
  }

 private:
  static std::string Param(const std::string& query, const std::string& name) {
    size_t at = 0;
    while (at < query.size()) {
      size_t end = query.find('&', at);
      if (end == std::string::npos) end = query.size();
      const std::string kv = query.substr(at, end - at);
      if (kv.rfind(name + "=", 0) == 0) return Unescape(kv.substr(name.size() + 1));
      at = end + 1;
    }
    return "";
  }
  static std::string Unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += s[i];
      }
    }
    return out;
  }
  static bool Selected(const json& pod, const std::string& selector) {
    size_t at = 0;
    while (at < selector.size()) {
      size_t end = selector.find(',', at);
      if (end == std::string::npos) end = selector.size();
      const std::string kv = selector.substr(at, end - at);
      const size_t eq = kv.find('=');
      const json labels = pod.value("/metadata/labels"_json_pointer, json::object());
      if (eq == std::string::npos || labels.value(kv.substr(0, eq), "") != kv.substr(eq + 1)) return false;
      at = end + 1;
    }
    return true;
  }

  kube::HttpResult Get(const std::string& path, const std::string& query) {
    auto it = objects.find(path);
    if (it != objects.end()) return Answer(200, it->second);
    json items = json::array();
    if (path == "/api/v1/nodes") {
      for (const auto& [p, o] : objects) {
        if (p.rfind("/api/v1/nodes/", 0) == 0) items.push_back(o);
      }
    } else if (path == "/api/v1/pods" || (path.rfind("/api/v1/namespaces/", 0) == 0 && path.size() > 5 &&
                                          path.substr(path.size() - 5) == "/pods")) {
      const std::string prefix = path == "/api/v1/pods" ? "/api/v1/namespaces/" : path + "/";
      const std::string node = Param(query, "fieldSelector");
      const std::string labels = Param(query, "labelSelector");
      for (const auto& [p, o] : objects) {
        if (p.rfind(prefix, 0) != 0 || p.find("/pods/") == std::string::npos) continue;
        if (!node.empty() && "spec.nodeName=" + o.value("/spec/nodeName"_json_pointer, std::string()) != node) continue;
        if (!labels.empty() && !Selected(o, labels)) continue;
        items.push_back(o);
      }
    } else {
      return Error(404, "NotFound", path + " not found");
    }
    return Answer(200, {{"kind", "List"}, {"items", items}, {"metadata", {{"resourceVersion", std::to_string(rv_)}}}});
  }

  kube::HttpResult Evict(const std::string& pod_path) {
    auto it = objects.find(pod_path);
    const std::string name = pod_path.substr(pod_path.rfind('/') + 1);
    if (it == objects.end()) return Error(404, "NotFound", "pods \"" + name + "\" not found");
    const std::string key = it->second["metadata"].value("namespace", "") + "/" + name;
    if (auto r = pdb_refusals.find(key); r != pdb_refusals.end() && r->second > 0) {
      --r->second;
      json s = StatusBody(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.");
      s["details"] = {{"causes", {{{"reason", "DisruptionBudget"}, {"message", "The disruption budget needs 1"}}}}};
      return Answer(429, s);
    }
    if (throttle_evictions > 0) {
      --throttle_evictions;
      kube::HttpResponse r;
      r.status = 429;
      r.headers = {{"Content-Type", "application/json"}, {"Retry-After", "2"}};
      r.body = StatusBody(429, "TooManyRequests", "Too many requests, please try again later.").dump();
      return r;
    }
    objects.erase(it);
    return Answer(201, {{"kind", "Status"}, {"status", "Success"}});
  }

  static json StatusBody(int code, const std::string& reason, const std::string& message) {
    return audit::testing::FakeKubeApi::StatusBody(code, reason, message);
  }
  static kube::HttpResult Answer(int code, const json& body) { return audit::testing::FakeKubeApi::Answer(code, body); }
  static kube::HttpResult Error(int code, const std::string& reason, const std::string& message) {
    return audit::testing::FakeKubeApi::Error(code, reason, message);
  }

  std::mutex mu_;
  int64_t rv_ = 100;
};

// Starts at 2026-12-07T10:00:00Z; Sleep advances it (and is counted), then
// calls on_sleep (a test's "meanwhile": a controller, a kubelet).
class FakeClock : public Clock {
 public:
  TimePoint Now() override { return now; }
  void Sleep(std::chrono::milliseconds d) override {
    now += d;
    slept += d;
    if (on_sleep) on_sleep();
  }
  TimePoint now = std::chrono::sys_days(std::chrono::year(2026) / 12 / 7) + std::chrono::hours(10);
  std::chrono::milliseconds slept{0};
  std::function<void()> on_sleep;
};

// Objects as the API serves them.
inline nlohmann::json FakeNode(const std::string& name, int gpus, nlohmann::json labels = nlohmann::json::object()) {
  labels["nvidia.com/gpu.count"] = std::to_string(gpus);
  return {{"apiVersion", "v1"}, {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", nlohmann::json::object()},
          {"status", {{"capacity", {{"nvidia.com/gpu", std::to_string(gpus)}}},
                      {"allocatable", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}};
}

inline nlohmann::json FakePod(const std::string& ns, const std::string& name, const std::string& node,
                              const std::string& resource = "nvidia.com/gpu", int count = 1) {
  nlohmann::json res = nlohmann::json::object();
  if (!resource.empty()) res = {{"limits", {{resource, std::to_string(count)}}}};
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}, {"labels", {{"app", name}}}}},
          {"spec", {{"nodeName", node}, {"terminationGracePeriodSeconds", 5},
                    {"containers", {{{"name", "main"}, {"resources", res}}}}}},
          {"status", {{"phase", "Running"}}}};
}

inline nlohmann::json FakeDeployment(const std::string& ns, const std::string& name, int replicas,
                                     const std::string& resource = "nvidia.com/gpu") {
  return {{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"generation", 1}}},
          {"spec", {{"replicas", replicas},
                    {"selector", {{"matchLabels", {{"app", name}}}}},
                    {"template", {{"metadata", {{"labels", {{"app", name}}}}},
                                  {"spec", {{"containers", {{{"name", "main"},
                                                             {"resources", {{"limits", {{resource, "1"}}}}}}}}}}}}}},
          {"status", {{"observedGeneration", 1}, {"replicas", replicas}, {"updatedReplicas", replicas},
                      {"readyReplicas", replicas}, {"availableReplicas", replicas}}}};
}

// Marks an apps/v1 object's rollout complete at its generation.
inline void CompleteRollout(nlohmann::json& obj) {
  const int64_t replicas = obj.value("/spec/replicas"_json_pointer, int64_t{1});
  obj["status"] = {{"observedGeneration", obj["metadata"].value("generation", int64_t{1})},
                   {"replicas", replicas}, {"updatedReplicas", replicas},
                   {"readyReplicas", replicas}, {"availableReplicas", replicas}};
}

// The GPU Operator's side of the handshakes, played on the fake: a node
// whose nvidia.com/mig.config changed with no mig.config.state gets state
// `mig_state` ("success" by default) and, on success, the allocatable the
// config names (ExpectedMigResources of the ConfigMap's config.yaml); a node
// whose nvidia.com/device-plugin.config changed advertises
// nvidia.com/gpu.shared = GPUs x replicas.
inline void PlayGpuOperator(FakeCluster& cluster, const std::string& operator_namespace = "gpu-operator",
                            std::string mig_state = "success") {
  cluster.on_write = [&cluster, operator_namespace, mig_state](const std::string& path, nlohmann::json& obj) {
    if (path.rfind("/api/v1/nodes/", 0) != 0) return;
    nlohmann::json& labels = obj["metadata"]["labels"];
    const int gpus = std::stoi(labels.value("nvidia.com/gpu.count", "0"));
    const std::string cms = "/api/v1/namespaces/" + operator_namespace + "/configmaps/";
    if (labels.contains(kMigConfigLabel) && !labels.contains(kMigConfigStateLabel)) {
      labels[kMigConfigStateLabel] = mig_state;
      if (mig_state != "success") return;
      auto cm = cluster.objects.find(cms + "kubeon-mig-parted-config");
      const std::string yaml = cm == cluster.objects.end() ? "" : cm->second.value("/data/config.yaml"_json_pointer, std::string());
      auto expected = ExpectedMigResources(yaml, labels[kMigConfigLabel].get<std::string>(), gpus);
      nlohmann::json alloc = {{"nvidia.com/gpu", std::to_string(gpus)}};
      if (expected.ok()) {
        alloc = nlohmann::json::object();
        for (const auto& [r, n] : *expected) alloc[r] = std::to_string(n);
      }
      obj["status"]["allocatable"] = alloc;
    }
    const std::string dp = labels.value(kDevicePluginConfigLabel, "");
    auto cm = cluster.objects.find(cms + "kubeon-device-plugin-config");
    int64_t replicas = 0;
    if (!dp.empty() && cm != cluster.objects.end()) {
      auto r = TimeSlicingReplicas(cm->second.value("/data"_json_pointer, nlohmann::json::object()).value(dp, ""));
      if (r.ok() && *r > 1) replicas = *r;
    }
    obj["status"]["allocatable"]["nvidia.com/gpu.shared"] = std::to_string(gpus * replicas);
  };
}

// GPUs 0-1 cut into 7 x 1g.5gb each, GPUs 2-3 left whole (A100-40GB).
inline std::string TestMigConfig(const std::string& name = "kubeon-3f2a9c0d1e") {
  return "version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n  " + name +
         ":\n    - devices: [0, 1]\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n"
         "    - devices: [2, 3]\n      mig-enabled: false\n";
}

inline std::string TestTimeSlicingConfig(int replicas = 4) {
  return "version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - name: nvidia.com/gpu\n        replicas: " +
         std::to_string(replicas) + "\n";
}

// A journal over the fake cluster, the in-memory audit store and the fake clock.
class StepFixture : public ::testing::Test {
 protected:
  StepFixture() {
    auto transport = std::make_unique<FakeCluster>();
    cluster_ = transport.get();
    kube::RestConfig config;
    config.server = "https://fake.invalid";
    kube::ClientOptions o;
    o.retry_deadline = std::chrono::milliseconds(0);
    client_ = std::make_unique<kube::KubeClient>(std::move(transport), config, o);
    options_.poll_interval = std::chrono::milliseconds(1000);
    options_.configmap_sync = std::chrono::milliseconds(0);
  }

  StepContext Ctx() {
    return StepContext{*client_, store_, clock_, artifacts_, options_, "gpu-sharing",
                       [this](const std::string& line) { progress_.push_back(line); }};
  }
  // A journal for a step change `id`, created (state running) when absent.
  StepJournal& Journal(const std::string& id = "5e1c0a77", RunKind kind = RunKind::kStep) {
    ctx_ = std::make_unique<StepContext>(Ctx());
    journal_ = std::make_unique<StepJournal>(*ctx_, id, kind);
    audit::ChangeRecord fresh;
    fresh.id = id;
    fresh.policy = "gpu-sharing";
    fresh.state = audit::ChangeState::kRunning;
    EXPECT_TRUE(journal_->Load(&fresh).ok());
    return *journal_;
  }
  // The store's log of change `id` as "action/outcome" lines.
  std::vector<std::string> LogLines(const std::string& id = "5e1c0a77") {
    std::vector<std::string> out;
    auto entries = store_.Log(id);
    if (entries.ok()) {
      for (const auto& e : *entries) out.push_back(e.action + "/" + e.outcome);
    }
    return out;
  }

  FakeCluster& cluster() { return *cluster_; }

  FakeCluster* cluster_ = nullptr;
  std::unique_ptr<kube::KubeClient> client_;
  MemoryAuditStore store_;
  FakeClock clock_;
  StepArtifacts artifacts_;
  StepOptions options_;
  std::vector<std::string> progress_;
  std::unique_ptr<StepContext> ctx_;
  std::unique_ptr<StepJournal> journal_;
};

}  // namespace kubeon::apply::testing
