// reviewer-server: the reviewer page (controller/reviewer_api.h) served over
// a plan made from a live cluster, without the controller, for the browser
// end-to-end test (web/e2e/reviewer.e2e.mjs) and for trying the page locally:
//
//   reviewer-server --kubeconfig F --metrics H.om --policy P.yaml [--prices X.yaml]
//                   --audit-db DB [--listen 127.0.0.1:0] [--ttl-hours 24]
//
// Plans every policy of P.yaml from the cluster and the history files as
// `kubeon-gpu plan --from-cluster` does (cli::BuildPlans), mounts ReviewerApi
// with the SQLite audit log DB (the one `kubeon-gpu apply --audit-db DB`
// records proposals in and executes from), the history files as the chart's
// source, and a KubeAuthenticator using the kubeconfig's identity for the
// TokenReview / SubjectAccessReview calls.  Prints
// "reviewer listening on http://HOST:PORT" on stdout once it accepts
// connections; stops on SIGTERM / SIGINT.  The plan is made once at start.
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "apply/rfc3339.h"
#include "audit/sqlite_store.h"
#include "cli/plan_command.h"
#include "controller/authenticator.h"
#include "controller/history_sources.h"
#include "controller/policy_view.h"
#include "controller/reviewer_api.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"

namespace {

httplib::Server* g_server = nullptr;
void Stop(int) {
  if (g_server) g_server->stop();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kubeon;
  CLI::App app("reviewer-server: the reviewer page over a plan of a live cluster (tests, local use)");
  cli::PlanArgs plan_args;
  std::string audit_db, listen = "127.0.0.1:0";
  double ttl_hours = 24;
  app.add_option("--kubeconfig", plan_args.kubeconfig, "kubeconfig (the server's own identity)");
  app.add_option("--context", plan_args.context, "kubeconfig context");
  app.add_option("--metrics", plan_args.metrics_files, "history files the plan uses")->required();
  app.add_option("--policy", plan_args.policy_file, "GpuPolicy file")->required();
  app.add_option("--prices", plan_args.prices_file, "prices file");
  app.add_option("--audit-db", audit_db, "SQLite audit log")->required();
  app.add_option("--listen", listen, "HOST:PORT (port 0: any free port)");
  app.add_option("--ttl-hours", ttl_hours, "how long an approval holds")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  plan_args.from_cluster = true;
  plan_args.quiet = true;
  int exit_code = 1;
  auto planned = cli::BuildPlans(plan_args, [](const std::string& line) { std::cerr << line << "\n"; }, &exit_code);
  if (!planned.ok()) {
    std::cerr << "reviewer-server: " << planned.status().message() << "\n";
    return exit_code;
  }
  controller::PolicyViews views;
  const std::string now = apply::FormatTime(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  for (size_t i = 0; i < planned->plans.size(); ++i) {
    controller::PolicyView v;
    v.name = planned->policies[i].name;
    v.policy = planned->policies[i];
    v.plan = planned->plans[i];
    v.planned_at = now;
    views.Put(std::move(v));
  }
  views.set_planned_once(true);

  kube::LoadOptions lo = kube::LoadOptions::FromEnvironment();
  lo.kubeconfig_path = plan_args.kubeconfig;
  lo.context = plan_args.context;
  auto config = kube::LoadRestConfig(lo);
  if (!config.ok()) {
    std::cerr << "reviewer-server: " << config.status().message() << "\n";
    return 1;
  }
  auto client = kube::KubeClient::Connect(*config);
  if (!client.ok()) {
    std::cerr << "reviewer-server: " << client.status().message() << "\n";
    return 1;
  }
  controller::KubeAuthenticator auth(**client);
  controller::FileHistorySource history(views, plan_args.metrics_files);
  controller::ReviewerOptions options;
  options.approval_ttl = std::chrono::seconds(static_cast<int64_t>(ttl_hours * 3600));
  controller::ReviewerApi api(
      views, [audit_db] { return audit::SqliteAuditStore::Open(audit_db); }, history, auth, options);

  httplib::Server server;
  api.Register(server);
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "reviewer-server: --listen: \"" << listen << "\" is not HOST:PORT\n";
    return 2;
  }
  const std::string host = listen.substr(0, colon);
  int port = std::atoi(listen.substr(colon + 1).c_str());
  if (port == 0) {
    port = server.bind_to_any_port(host.c_str());
  } else if (!server.bind_to_port(host.c_str(), port)) {
    port = -1;
  }
  if (port <= 0) {
    std::cerr << "reviewer-server: cannot listen on " << listen << "\n";
    return 1;
  }
  g_server = &server;
  signal(SIGTERM, Stop);
  signal(SIGINT, Stop);
  std::cout << "reviewer listening on http://" << host << ":" << port << std::endl;
  server.listen_after_bind();
  return 0;
}
