#include "cli/main_command.h"

#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/batch_allocator.h"
#include "cli/change_commands.h"
#include "cli/exit_memory.h"
#include "cli/apply_command.h"
#include "cli/output_file.h"
#include "cli/plan_command.h"
#include "cli/terminal_text.h"
#include "cli/controller_command.h"
#include "kube/snapshot.h"

namespace kubeon::cli {
namespace {

// `snapshot`: kube::RunSnapshotCommand lists the cluster; its text is written
// here, to stdout or atomically to -o FILE created 0600 (pod specs may carry
// secrets in env), the write checked like every other output.
int RunSnapshot(const kube::SnapshotOptions& options) {
  const bool to_stdout = options.output.empty() || options.output == "-";
  kube::SnapshotOptions listing = options;
  listing.output = "-";
  if (to_stdout) {
    int code = 1;
    std::cout.flush();
    Status s = WriteThroughFd(STDOUT_FILENO, "stdout", [&](std::ostream& out) {
      code = kube::RunSnapshotCommand(listing, out, std::cerr);
    });
    if (code == 0 && !s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return 1;
    }
    return code;
  }
  auto file = AtomicOutputFile::Create(options.output);
  if (!file.ok()) {
    std::cerr << "error: " << file.status().message() << "\n";
    return 1;
  }
  const int code = kube::RunSnapshotCommand(listing, (*file)->stream(), std::cerr);
  if (code != 0) return code;  // the temporary file is removed with `file`
  if (Status s = (*file)->Commit(); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

int Run(int argc, char** argv, const MainHooks& hooks) {
  CLI::App app{
      "kubeon-gpu frees GPUs in Kubernetes clusters: it reads each GPU workload's measured peak memory and compute "
      "from DCGM history and proposes moving the workloads that fit in part of a GPU onto MIG slices or "
      "time-sliced GPUs, stating what is and is not isolated and what the freed GPUs are worth.",
      "kubeon-gpu"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kubeon-gpu 0.1.0");
  PlanArgs plan_args;
  CLI::App* plan = AddPlanCommand(app, plan_args);
  kube::SnapshotOptions snap;
  CLI::App* snapshot = app.add_subcommand(
      "snapshot",
      "Write the cluster snapshot the planner reads: the same JSON List as `kubectl get nodes,pods,"
      "poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json`, plus the GPU Operator's ClusterPolicy "
      "and the ConfigMaps of its namespace when the cluster has them. Reads only.");
  snapshot->add_option("--kubeconfig", snap.kubeconfig,
                       "kubeconfig file (default: KUBECONFIG, ~/.kube/config, or the in-cluster service account)");
  snapshot->add_option("--context", snap.context, "kubeconfig context (default: current-context)");
  snapshot->add_option("-o,--output", snap.output, "Write to FILE atomically (default: stdout)");
  snapshot->add_option("--operator-namespace", snap.operator_namespace,
                       "Namespace of the GPU Operator whose ConfigMaps are included (default: the ClusterPolicy's "
                       "status.namespace, else gpu-operator)")
      ->check(NamespaceName());
  snapshot->add_flag("-v,--verbose", snap.verbose, "Progress per resource on stderr");
  ChangesArgs changes_args;
  ApplyArgs apply_args;
  CLI::App* apply = AddApplyCommand(app, apply_args);
  RevertArgs revert_args;
  CLI::App* revert = AddRevertCommand(app, revert_args);
  CLI::App* changes = AddChangesCommand(app, changes_args);
  AuditArgs audit_args;
  CLI::App* audit = AddAuditCommand(app, audit_args);
  DecideArgs approve_args;
  CLI::App* approve = AddApproveCommand(app, approve_args);
  DecideArgs reject_args;
  CLI::App* reject = AddRejectCommand(app, reject_args);
  ControllerArgs controller_args;
  CLI::App* controller = AddControllerCommand(app, controller_args);
  apply_args.write_observer = hooks.write_observer;
  revert_args.write_observer = hooks.write_observer;
  controller_args.write_observer = hooks.write_observer;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // One-shot commands keep freed memory (batch_allocator.h) and leave their
  // large models to the exit (exit_memory.h); the controller runs for weeks,
  // frees as it goes and uses no huge pages.
  if (!controller->parsed()) {
    TuneAllocatorForBatch();
    EnableLeaveForExit();
  } else {
    TuneAllocatorForService();
  }
  if (plan->parsed()) return RunPlan(plan_args, std::cout, std::cerr);
  if (snapshot->parsed()) return RunSnapshot(snap);
  if (apply->parsed()) return RunApply(apply_args, std::cout, std::cerr);
  if (revert->parsed()) return RunRevert(revert_args, std::cout, std::cerr);
  if (changes->parsed()) return RunChanges(changes_args, std::cout, std::cerr);
  if (audit->parsed()) return RunAudit(audit_args, std::cout, std::cerr);
  if (approve->parsed()) return RunApprove(approve_args, std::cout, std::cerr);
  if (reject->parsed()) return RunReject(reject_args, std::cout, std::cerr);
  if (controller->parsed()) return RunController(controller_args, std::cerr);
  return 2;
}

}  // namespace

int Main(int argc, char** argv, const MainHooks& hooks) {
  TerminalStreamBuf terminal(std::cerr.rdbuf());
  std::streambuf* const stderr_buf = std::cerr.rdbuf(&terminal);
  int code = Run(argc, argv, hooks);
  // A command that failed has printed its own error (a failed stdout write included).
  if (Status s = FlushStdout(); !s.ok() && code == 0) {
    std::cerr << "error: " << s.message() << "\n";
    code = 1;
  }
  terminal.Finish();
  std::cerr.rdbuf(stderr_buf);
  return code;
}

}  // namespace kubeon::cli
