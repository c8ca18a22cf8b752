// See controller_command.h.
#include "cli/controller_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include <CLI/CLI.hpp>

#include "apply/lease.h"
#include "cli/audit_db.h"
#include "cli/plan_command.h"
#include "controller/controller.h"
#include "controller/authenticator.h"
#include "controller/history_sources.h"
#include "controller/http_server.h"
#include "controller/reviewer_api.h"
#include "metrics/prometheus_history.h"
#include "metrics/prometheus_http.h"
#include "kube/snapshot.h"

namespace kubeon::cli {
namespace {

// The controller's parts this subcommand wires together.
using namespace kubeon::controller;

std::atomic<bool> g_stop{false};

extern "C" void OnSignal(int) { g_stop = true; }

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

}  // namespace

CLI::App* AddControllerCommand(CLI::App& app, ControllerArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "controller",
      "Run in the cluster: watch GpuPolicy objects (gpu.kubeon.io/v1), plan each on start, when it changes and "
      "every --resync, and carry the plans out as each policy's mode, approvals and window allow, exactly as "
      "`kubeon-gpu apply` does. One replica leads (Lease <namespace>/kubeon-gpu-controller) and acts; the others "
      "only plan and serve. Writes each policy's status and Events, logs JSON lines on stderr, and serves "
      "/healthz, /readyz and Prometheus /metrics on --listen.");
  cmd->footer(
      "Policies whose node selectors share a node are both reported (condition Degraded, reason "
      "OverlappingPolicies) and neither is planned; a workload whose pods run on the nodes of two policies is "
      "listed in both statuses (conflicts) and moved by neither.\n\n"
      "Exit codes: 0 stopped by SIGTERM or SIGINT (the leader Lease is released); 1 start-up failed; 2 usage.");
  AddLivePlanFlags(cmd, a.plan, "--history,--metrics");
  cmd->add_option("--listen", a.listen, "HTTP listener HOST:PORT for /healthz, /readyz, /metrics (default 0.0.0.0:8080)");
  cmd->add_option("--policy", a.plan.policy_file,
                  "Read the policies from this GpuPolicy YAML file instead of the API (clusters without the CRD; "
                  "no status is written)");
  cmd->add_option("--audit-db", a.audit_db,
                  "Where changes and the step log live: \"kubernetes\" (GpuChange objects, the default) or a SQLite "
                  "file path");
  cmd->add_option("--resync", a.resync, "Plan every policy again this often (e.g. 10m, 1h; default 10m)");
  cmd->add_option("--namespace", a.namespace_,
                  "Namespace of the leader Lease and of the GpuChange store's kubeon-gpu-audit ConfigMap (default: "
                  "$POD_NAMESPACE, else kubeon-system)")
      ->check(NamespaceName());
  cmd->add_option("--lease-namespace", a.lease_namespace,
                  "Namespace of the per-policy Leases every executor holds while it writes (default kube-system)")
      ->check(NamespaceName());
  cmd->add_option("--identity", a.identity, "This replica's name in Leases and Events (default: $POD_NAME, else "
                                            "hostname/pid)");
  cmd->add_option("--leader-lease-seconds", a.leader_lease_seconds,
                  "Leader Lease duration; the leader stops acting after 2/3 of it without a renewal (default 15)")
      ->check(CLI::Range(3, 600));
  cmd->add_option("--policy-lease-seconds", a.policy_lease_seconds,
                  "Duration of the per-policy Lease held while a policy's steps run (default 60, as apply)")
      ->check(CLI::Range(3, 3600));
  cmd->add_option("--configmap-sync-seconds", a.configmap_sync_seconds,
                  "How long the kubelet takes to show a changed ConfigMap to the GPU Operator's pods (default 90)")
      ->check(CLI::Range(0, 3600));
  return cmd;
}

int RunController(const ControllerArgs& a, std::ostream& err) {
  JsonLog log(err);
  double resync_hours = 0;
  if (!ParseDurationHours(a.resync, &resync_hours) || resync_hours <= 0) {
    log.Error("--resync: \"" + a.resync + "\" is not a duration like 10m or 1h");
    return 2;
  }
  if (a.plan.metrics_files.empty() == a.plan.prometheus_url.empty()) {
    log.Error("give DCGM history as --history FILE... or --prometheus URL (exactly one)");
    return 2;
  }
  kube::SnapshotOptions so;
  so.kubeconfig = a.plan.kubeconfig;
  so.context = a.plan.context;
  Result<std::unique_ptr<kube::KubeClient>> client = kube::ConnectWithOptions(so);
  if (!client.ok()) {
    log.Error(client.status().message());
    return 1;
  }
  log.AddSecret((*client)->config().token);
  const std::string controller_namespace =
      !a.namespace_.empty() ? a.namespace_ : EnvOr("POD_NAMESPACE", "kubeon-system");
  std::unique_ptr<audit::AuditStore> store;
  Result<std::unique_ptr<audit::AuditStore>> opened =
      OpenStoreFor(a.audit_db, **client, true, controller_namespace);
  if (!opened.ok()) {
    log.Error(opened.status().message());
    return 1;
  }
  store = std::move(opened.value());

  const std::string identity =
      !a.identity.empty() ? a.identity : EnvOr("POD_NAME", apply::MakeHolderIdentity("kubeon-gpu-controller"));
  Metrics metrics;
  DeclareControllerMetrics(metrics);
  metrics.Set("kubeon_gpu_leader", {}, 0);
  PolicyViews views;
  LeaderOptions lo;
  lo.namespace_ = controller_namespace;
  lo.identity = identity;
  lo.lease_duration = std::chrono::seconds(a.leader_lease_seconds);
  lo.renew_deadline = lo.lease_duration * 2 / 3;
  lo.retry_period = std::max(std::chrono::milliseconds(500), lo.lease_duration / 6);
  lo.on_change = [&](bool leader, const std::string& why) {
    metrics.Set("kubeon_gpu_leader", {}, leader ? 1 : 0);
    leader ? log.Info("leading: " + why, {{"identity", identity}})
           : log.Warn("not leading: " + why, {{"identity", identity}});
  };
  LeaderElector elector(**client, lo);

  ControllerOptions co;
  co.plan = a.plan;
  co.policy_file = a.plan.policy_file;
  co.lease_namespace = a.lease_namespace;
  co.policy_lease = std::chrono::seconds(a.policy_lease_seconds);
  co.identity = identity;
  co.configmap_sync = std::chrono::seconds(a.configmap_sync_seconds);
  co.write_observer = a.write_observer;
  co.resync = std::chrono::seconds(static_cast<int64_t>(resync_hours * 3600));
  Controller controller(**client, store.get(), &elector, log, metrics, views, co);

  HttpHandlers h;
  h.health = [&] { return controller.Health(); };
  h.ready = [&] { return controller.Ready(); };
  h.metrics = &metrics;
  HttpServer http(h);

  // The reviewer page on the same listener: reads from the views this
  // replica plans, writes (approve, reject, revert requests) checked with a
  // TokenReview and a SubjectAccessReview, into the same audit log.
  std::unique_ptr<HistorySource> history;
  if (!a.plan.prometheus_url.empty()) {
    double lookback_hours = 0;
    if (!ParseDurationHours(a.plan.lookback, &lookback_hours) || lookback_hours <= 0) {
      log.Error("--lookback: \"" + a.plan.lookback + "\" is not a duration like 14d, 36h or 2w");
      return 2;
    }
    if (lookback_hours > static_cast<double>(metrics::kMaxLookback.count())) {
      log.Error("--lookback: \"" + a.plan.lookback + "\" is too large (max " + metrics::kMaxLookbackText + ")");
      return 2;
    }
    metrics::PrometheusHttpOptions po;
    po.url = a.plan.prometheus_url;
    po.bearer_token_file = a.plan.prometheus_token_file;
    po.ca_file = a.plan.prometheus_ca_file;
    po.headers = a.plan.prometheus_headers;
    Result<std::unique_ptr<metrics::PrometheusHttp>> prom = metrics::PrometheusHttp::Create(po);
    if (!prom.ok()) {
      log.Error(prom.status().message());
      return 1;
    }
    history = std::make_unique<PrometheusHistorySource>(
        views, std::move(prom.value()), a.plan.prometheus_selector,
        std::chrono::milliseconds(static_cast<int64_t>(lookback_hours * 3.6e6)));
  } else {
    history = std::make_unique<FileHistorySource>(views, a.plan.metrics_files);
  }
  KubeAuthenticator auth(**client);
  ReviewerOptions ro;
  ro.approval_ttl = co.approval_ttl;
  ReviewerApi reviewer(
      views, [&] { return OpenStoreFor(a.audit_db, **client, false, controller_namespace); }, *history, auth, ro);
  reviewer.Register(http.server());

  if (Status s = http.Start(a.listen); !s.ok()) {
    log.Error(s.message());
    return 1;
  }
  log.Info("listening", {{"listen", a.listen}, {"port", std::to_string(http.port())}, {"identity", identity}});

  g_stop = false;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  elector.Start();
  std::thread watcher([&] { controller.WatchPolicies(g_stop); });
  controller.Run(g_stop);
  watcher.join();
  elector.Stop();
  http.Stop();
  log.Info("stopped");
  return 0;
}

}  // namespace kubeon::cli
