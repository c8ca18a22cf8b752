// `kubeon-gpu controller`: the in-cluster controller (controller.h) with its
// leader election, JSON logs on stderr and HTTP listener.
//
// Start-up: connect (kubeconfig or in-cluster service account), open the
// audit store (--audit-db: a SQLite path; "kubernetes" selects the GpuChange
// store when this build has it), start the HTTP server, the leader elector
// (Lease <namespace>/kubeon-gpu-controller) and the GpuPolicy watch, then run
// passes until SIGTERM or SIGINT; on either it releases the leader Lease and
// exits 0.  Exit codes: 0 stopped by a signal; 1 start-up failed; 2 usage.
#pragma once

#include <ostream>
#include <string>

#include "apply/step_context.h"
#include "cli/cli11_fwd.h"
#include "cli/plan_command.h"

namespace kubeon::cli {

struct ControllerArgs {
  PlanArgs plan;  // kubeconfig, context, history, prices, catalog, operator namespace
  std::string listen = "0.0.0.0:8080";
  std::string audit_db = "kubernetes";
  std::string resync = "10m";
  std::string namespace_;  // "" = $POD_NAMESPACE, else kubeon-system
  std::string lease_namespace = "kube-system";
  std::string identity;  // "" = $POD_NAME, else hostname/pid
  int leader_lease_seconds = 15;
  int policy_lease_seconds = 60;
  int configmap_sync_seconds = 90;
  apply::WriteObserver write_observer;  // crash points (apply/step_context.h); never set by kubeon-gpu
};

CLI::App* AddControllerCommand(CLI::App& app, ControllerArgs& args);
// Runs until SIGTERM/SIGINT.  Returns the exit code.
int RunController(const ControllerArgs& args, std::ostream& err);

}  // namespace kubeon::cli
