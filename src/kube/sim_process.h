// Test and benchmark support (not part of the library): a generated cluster
// and a kube-sim process serving it.
//
// MakeSimCluster(shape) returns the kubectl List kube-sim loads with
// --snapshot: `nodes` GPU nodes (8 x A100-40GB each), `deployments`
// Deployments in namespace "ml" named svc-N, each with one ReplicaSet
// (svc-N-7d9f8c6b5, template equal to the Deployment's) and
// `pods_per_deployment` running pods (svc-N-7d9f8c6b5-pK) spread round-robin
// over the nodes; the first two Deployments' pods hold one nvidia.com/gpu.
// PodDisruptionBudgets: svc-0-pdb (minAvailable = all pods: no eviction
// allowed) and svc-1-pdb (maxUnavailable 1).  A StatefulSet data/db with pods
// db-0..2.  Everything is self-consistent so the simulator's controllers
// leave object counts unchanged.
//
// SimProcess::Start runs `kube-sim --listen 127.0.0.1:0 --snapshot F
// --kubeconfig-out DIR/token.kubeconfig --client-cert-kubeconfig-out
// DIR/cert.kubeconfig --user-kubeconfig-dir DIR/users [--settings S]` and
// waits for its "kube-sim listening on URL" line; the destructor sends
// SIGTERM to that process (only) and reaps it.  The token and cert
// kubeconfigs are user kube-sim-admin (group system:masters); settings
// `{"users": [{"name": "alice", "groups": ["reviewers"], "token": "t"},
// {"name": "bob"}]}` add users whose kubeconfigs user_kubeconfig("alice")
// (a token) and user_kubeconfig("bob") (a client certificate, CN bob, one O
// per group) name, so tests can act as different people.
//
// Identities and RBAC (tools/kube-sim/rbac.h): kube-sim enforces RBAC for
// every user but kube-sim-admin.  ServiceAccountKubeconfig(ns, name)
// creates that ServiceAccount (and its namespace) when missing, asks kube-sim
// for a token (TokenRequest, 24 h) and writes DIR/sa-<ns>-<name>.kubeconfig
// with it, so a test can run the real binaries as, e.g., the controller's
// ServiceAccount; WithClusterRoleBinding adds a ClusterRoleBinding to a
// cluster List before Start.  Start(..., {"--audit-log", sim.audit_log()})
// (or AuditLogArgs()) makes kube-sim record every request it answers
// (tools/kube-sim/audit_log.h), one JSON object per line.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/test_util.h"
#include "model/status.h"

extern char** environ;

namespace kubeon::kube::testing {

struct SimClusterShape {
  int nodes = 20;
  int deployments = 15;
  int pods_per_deployment = 40;
  int pods() const { return deployments * pods_per_deployment + 3; }  // + the StatefulSet's
};

namespace sim_internal {

inline std::string Uid(const std::string& kind, const std::string& name) { return "uid-" + kind + "-" + name; }

inline nlohmann::json Owner(const std::string& api_version, const std::string& kind, const std::string& name) {
  return nlohmann::json::array({{{"apiVersion", api_version}, {"kind", kind}, {"name", name},
                                 {"uid", Uid(kind, name)}, {"controller", true}, {"blockOwnerDeletion", true}}});
}

inline nlohmann::json RunningStatus() {
  return {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
}

inline nlohmann::json PodTemplate(const std::string& app, bool gpu) {
  nlohmann::json resources = {{"requests", {{"cpu", "10m"}}}};
  if (gpu) {
    resources = {{"requests", {{"cpu", "10m"}, {"nvidia.com/gpu", "1"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}};
  }
  return {{"metadata", {{"labels", {{"app", app}}}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "registry.example/" + app + ":1"},
                                     {"resources", resources}}}}}}};
}

inline nlohmann::json PodFrom(const nlohmann::json& tmpl, const std::string& ns, const std::string& name,
                              const std::string& owner_kind, const std::string& owner, const std::string& node) {
  nlohmann::json pod = tmpl;
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  pod["metadata"]["name"] = name;
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["uid"] = Uid("Pod", ns + "." + name);
  pod["metadata"]["ownerReferences"] = Owner("apps/v1", owner_kind, owner);
  pod["spec"]["nodeName"] = node;
  pod["status"] = RunningStatus();
  return pod;
}

}  // namespace sim_internal

inline nlohmann::json MakeSimCluster(const SimClusterShape& shape) {
  using nlohmann::json;
  using namespace sim_internal;
  json items = json::array();
  for (int n = 0; n < shape.nodes; ++n) {
    std::string name = "gpu-node-" + std::to_string(n);
    json labels = {{"kubernetes.io/hostname", name},
                   {"node.kubernetes.io/instance-type", "p4d.24xlarge"},
                   {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"},
                   {"nvidia.com/gpu.count", "8"},
                   {"nvidia.com/gpu.memory", "40960"},
                   {"nvidia.com/mig.capable", "true"}};
    json capacity = {{"cpu", "96"}, {"memory", "1152Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}};
    items.push_back({{"apiVersion", "v1"}, {"kind", "Node"},
                     {"metadata", {{"name", name}, {"uid", Uid("Node", name)}, {"labels", labels}}},
                     {"status", {{"capacity", capacity}, {"allocatable", capacity},
                                 {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  }
  int node = 0;
  for (int d = 0; d < shape.deployments; ++d) {
    const std::string app = "svc-" + std::to_string(d);
    const std::string rs = app + "-7d9f8c6b5";
    json tmpl = PodTemplate(app, d < 2);
    items.push_back({{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                     {"metadata", {{"name", app}, {"namespace", "ml"}, {"uid", Uid("Deployment", app)},
                                   {"generation", 1}}},
                     {"spec", {{"replicas", shape.pods_per_deployment},
                               {"selector", {{"matchLabels", {{"app", app}}}}},
                               {"template", tmpl}}},
                     {"status", {{"observedGeneration", 1}, {"replicas", shape.pods_per_deployment}}}});
    json rs_tmpl = tmpl;
    rs_tmpl["metadata"]["labels"]["pod-template-hash"] = "7d9f8c6b5";
    items.push_back({{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"},
                     {"metadata", {{"name", rs}, {"namespace", "ml"}, {"uid", Uid("ReplicaSet", rs)},
                                   {"labels", rs_tmpl["metadata"]["labels"]},
                                   {"ownerReferences", Owner("apps/v1", "Deployment", app)}}},
                     {"spec", {{"replicas", shape.pods_per_deployment},
                               {"selector", {{"matchLabels", rs_tmpl["metadata"]["labels"]}}},
                               {"template", rs_tmpl}}},
                     {"status", {{"replicas", shape.pods_per_deployment}}}});
    for (int p = 0; p < shape.pods_per_deployment; ++p) {
      items.push_back(PodFrom(rs_tmpl, "ml", rs + "-p" + std::to_string(p), "ReplicaSet", rs,
                              "gpu-node-" + std::to_string(node++ % shape.nodes)));
    }
  }
  items.push_back({{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"},
                   {"metadata", {{"name", "svc-0-pdb"}, {"namespace", "ml"}, {"uid", Uid("PDB", "svc-0")}}},
                   {"spec", {{"minAvailable", shape.pods_per_deployment},
                             {"selector", {{"matchLabels", {{"app", "svc-0"}}}}}}}});
  items.push_back({{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"},
                   {"metadata", {{"name", "svc-1-pdb"}, {"namespace", "ml"}, {"uid", Uid("PDB", "svc-1")}}},
                   {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "svc-1"}}}}}}}});
  json db_tmpl = PodTemplate("db", false);
  items.push_back({{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"},
                   {"metadata", {{"name", "db"}, {"namespace", "data"}, {"uid", Uid("StatefulSet", "db")},
                                 {"generation", 1}}},
                   {"spec", {{"replicas", 3}, {"serviceName", "db"},
                             {"selector", {{"matchLabels", {{"app", "db"}}}}}, {"template", db_tmpl}}},
                   {"status", {{"observedGeneration", 1}, {"replicas", 3}, {"currentRevision", "db-5f7c9"},
                               {"updateRevision", "db-5f7c9"}}}});
  for (int i = 0; i < 3; ++i) {
    json tmpl = db_tmpl;
    std::string name = "db-" + std::to_string(i);
    tmpl["metadata"]["labels"]["controller-revision-hash"] = "db-5f7c9";
    tmpl["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = name;
    items.push_back(PodFrom(tmpl, "data", name, "StatefulSet", "db", "gpu-node-" + std::to_string(i % shape.nodes)));
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}, {"metadata", {{"resourceVersion", ""}}}};
}

// `cluster` (a kubectl List) with a ClusterRoleBinding `name` of ClusterRole
// `role` to one subject: kind "User", "Group" or "ServiceAccount" (then
// `subject` is "<namespace>:<name>").
inline nlohmann::json WithClusterRoleBinding(nlohmann::json cluster, const std::string& name, const std::string& role,
                                             const std::string& kind, const std::string& subject) {
  nlohmann::json s = {{"kind", kind}, {"name", subject}};
  if (kind == "ServiceAccount") {
    s["namespace"] = subject.substr(0, subject.find(':'));
    s["name"] = subject.substr(subject.find(':') + 1);
  } else {
    s["apiGroup"] = "rbac.authorization.k8s.io";
  }
  cluster["items"].push_back({{"apiVersion", "rbac.authorization.k8s.io/v1"},
                              {"kind", "ClusterRoleBinding"},
                              {"metadata", {{"name", name}}},
                              {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"},
                                           {"name", role}}},
                              {"subjects", nlohmann::json::array({s})}});
  return cluster;
}

// Runs a shell command; returns its exit status and standard output.
inline std::pair<int, std::string> RunCommand(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class SimProcess {
 public:
  SimProcess() = default;
  ~SimProcess() { Stop(); }
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  // REQUIRES: not started.  `timeout_ms` bounds the wait for the listening line.
  // `settings` (null = none) is kube-sim's --settings (tools/kube-sim/settings.h);
  // `extra_args` are appended to its command line (e.g. --log-requests, whose
  // lines go to stderr_path()).
  Status Start(const std::string& binary, const nlohmann::json& cluster, int timeout_ms = 120000,
               const nlohmann::json& settings = nullptr, const std::vector<std::string>& extra_args = {}) {
    if (dir_.path().empty()) return Status::Error("mkdtemp failed");
    WriteText(dir_.File("cluster.json"), cluster.dump());
    if (mkdir(dir_.File("users").c_str(), 0700) != 0) return Status::Error("mkdir users failed");
    int out[2];
    if (pipe(out) != 0) return Status::Error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, dir_.File("kube-sim.stderr").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {binary, "--listen", "127.0.0.1:0", "--snapshot", dir_.File("cluster.json"),
                                     "--kubeconfig-out", token_kubeconfig(),
                                     "--client-cert-kubeconfig-out", cert_kubeconfig(),
                                     "--user-kubeconfig-dir", dir_.File("users")};
    if (!settings.is_null()) {
      WriteText(dir_.File("settings.json"), settings.dump());
      args.insert(args.end(), {"--settings", dir_.File("settings.json")});
    }
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (rc != 0) {
      close(out[0]);
      pid_ = 0;
      return Status::Error("cannot start " + binary);
    }
    std::string line;
    pollfd pfd{out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && poll(&pfd, 1, timeout_ms) > 0) {
      char c[256];
      ssize_t n = read(out[0], c, sizeof(c));
      if (n <= 0) break;
      line.append(c, static_cast<size_t>(n));
    }
    close(out[0]);
    const std::string prefix = "kube-sim listening on ";
    if (line.rfind(prefix, 0) != 0) {
      return Status::Error("kube-sim did not start: " + line + ReadText(dir_.File("kube-sim.stderr")));
    }
    url_ = line.substr(prefix.size(), line.find('\n') - prefix.size());
    return Status::Ok();
  }

  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
  }

  const std::string& url() const { return url_; }
  // Where kube-sim writes its audit log when started with AuditLogArgs().
  std::string audit_log() const { return dir_.File("audit.jsonl"); }
  std::vector<std::string> AuditLogArgs() const { return {"--audit-log", audit_log()}; }

  // The path of a kubeconfig that authenticates as ServiceAccount ns/name
  // (created, with its namespace, when missing).  REQUIRES: started.
  Result<std::string> ServiceAccountKubeconfig(const std::string& ns, const std::string& name) const {
    LoadOptions o;
    o.kubeconfig_path = token_kubeconfig();
    auto cfg = LoadRestConfig(o);
    if (!cfg.ok()) return cfg.status();
    auto client = KubeClient::Connect(*cfg);
    if (!client.ok()) return client.status();
    KubeClient& c = **client;
    auto created = c.Create("/api/v1/namespaces",
                            {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    if (!created.ok() && created.error().http_status != 409) return created.status();
    const std::string sa_path = "/api/v1/namespaces/" + ns + "/serviceaccounts";
    created = c.Create(sa_path, {{"apiVersion", "v1"}, {"kind", "ServiceAccount"},
                                 {"metadata", {{"name", name}, {"namespace", ns}}}});
    if (!created.ok() && created.error().http_status != 409) return created.status();
    auto token = c.Create(sa_path + "/" + name + "/token",
                          {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"},
                           {"spec", {{"expirationSeconds", 86400}}}});
    if (!token.ok()) return token.status();
    const std::string value = (*token)["status"].value("token", "");
    std::string text = ReadText(token_kubeconfig());
    const std::string admin = "    token: \"" + cfg->token + "\"";
    size_t at = text.find(admin);
    if (value.empty() || cfg->token.empty() || at == std::string::npos) {
      return Status::Error("cannot write a ServiceAccount kubeconfig from " + token_kubeconfig());
    }
    text.replace(at, admin.size(), "    token: \"" + value + "\"");
    for (size_t p = text.find("kube-sim-admin"); p != std::string::npos; p = text.find("kube-sim-admin", p)) {
      text.replace(p, std::strlen("kube-sim-admin"), "system:serviceaccount:" + ns + ":" + name);
    }
    const std::string path = dir_.File("sa-" + ns + "-" + name + ".kubeconfig");
    WriteText(path, text);
    return path;
  }
  std::string token_kubeconfig() const { return dir_.File("token.kubeconfig"); }
  // A client acting as kube-sim-admin (the token kubeconfig).
  Result<std::unique_ptr<KubeClient>> AdminClient() const {
    LoadOptions o;
    o.kubeconfig_path = token_kubeconfig();
    Result<RestConfig> cfg = LoadRestConfig(o);
    if (!cfg.ok()) return cfg.status();
    return KubeClient::Connect(*cfg);
  }
  std::string cert_kubeconfig() const { return dir_.File("cert.kubeconfig"); }
  // The kubeconfig of a user of the `users` setting passed to Start.
  std::string user_kubeconfig(const std::string& name) const { return dir_.File("users/" + name + ".kubeconfig"); }
  const TempDir& dir() const { return dir_; }
  // kube-sim's standard error.
  std::string stderr_path() const { return dir_.File("kube-sim.stderr"); }

 private:
  TempDir dir_;
  pid_t pid_ = 0;
  std::string url_;
};

}  // namespace kubeon::kube::testing
