// kubeon-gpu: the KubeOn GPU sharing optimizer's command line.
// Subcommands are registered by their own files (plan_command.h, ...); this
// file only wires them and maps errors to exit codes (0 ok, 1 failure, 2 usage).
//
// Two guards apply to every subcommand: stderr passes through
// TerminalStreamBuf (control characters escaped, URL passwords redacted), and
// stdout is flushed and checked at the end, so output truncated by a full
// disk or /dev/full exits 1 with "error: stdout: <reason>" instead of 0.
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

namespace {

// `snapshot`: kube::RunSnapshotCommand lists the cluster; its text is written
// here, to stdout or atomically to -o FILE created 0600 (pod specs may carry
// secrets in env), the write checked like every other output.
int RunSnapshot(const kubeon::kube::SnapshotOptions& options) {
  const bool to_stdout = options.output.empty() || options.output == "-";
  kubeon::kube::SnapshotOptions listing = options;
  listing.output = "-";
  if (to_stdout) {
    int code = 1;
    std::cout.flush();
    kubeon::Status s = kubeon::cli::WriteThroughFd(STDOUT_FILENO, "stdout", [&](std::ostream& out) {
      code = kubeon::kube::RunSnapshotCommand(listing, out, std::cerr);
    });
    if (code == 0 && !s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return 1;
    }
    return code;
  }
  auto file = kubeon::cli::AtomicOutputFile::Create(options.output);
  if (!file.ok()) {
    std::cerr << "error: " << file.status().message() << "\n";
    return 1;
  }
  const int code = kubeon::kube::RunSnapshotCommand(listing, (*file)->stream(), std::cerr);
  if (code != 0) return code;  // the temporary file is removed with `file`
  if (kubeon::Status s = (*file)->Commit(); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

int Run(int argc, char** argv) {
  CLI::App app{
      "kubeon-gpu frees GPUs in Kubernetes clusters: it reads each GPU workload's measured peak memory and compute "
      "from DCGM history and proposes moving the workloads that fit in part of a GPU onto MIG slices or "
      "time-sliced GPUs, stating what is and is not isolated and what the freed GPUs are worth.",
      "kubeon-gpu"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kubeon-gpu 0.1.0");
  kubeon::cli::PlanArgs plan_args;
  CLI::App* plan = kubeon::cli::AddPlanCommand(app, plan_args);
  kubeon::kube::SnapshotOptions snap;
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
      ->check(kubeon::cli::NamespaceName());
  snapshot->add_flag("-v,--verbose", snap.verbose, "Progress per resource on stderr");
  kubeon::cli::ChangesArgs changes_args;
  kubeon::cli::ApplyArgs apply_args;
  CLI::App* apply = kubeon::cli::AddApplyCommand(app, apply_args);
  kubeon::cli::RevertArgs revert_args;
  CLI::App* revert = kubeon::cli::AddRevertCommand(app, revert_args);
  CLI::App* changes = kubeon::cli::AddChangesCommand(app, changes_args);
  kubeon::cli::AuditArgs audit_args;
  CLI::App* audit = kubeon::cli::AddAuditCommand(app, audit_args);
  kubeon::cli::DecideArgs approve_args;
  CLI::App* approve = kubeon::cli::AddApproveCommand(app, approve_args);
  kubeon::cli::DecideArgs reject_args;
  CLI::App* reject = kubeon::cli::AddRejectCommand(app, reject_args);
  kubeon::cli::ControllerArgs controller_args;
  CLI::App* controller = kubeon::cli::AddControllerCommand(app, controller_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // One-shot commands keep freed memory (batch_allocator.h) and leave their
  // large models to the exit (exit_memory.h); the controller runs for weeks,
  // frees as it goes and uses no huge pages.
  if (!controller->parsed()) {
    kubeon::cli::TuneAllocatorForBatch();
    kubeon::cli::EnableLeaveForExit();
  } else {
    kubeon::cli::TuneAllocatorForService();
  }
  if (plan->parsed()) return kubeon::cli::RunPlan(plan_args, std::cout, std::cerr);
  if (snapshot->parsed()) return RunSnapshot(snap);
  if (apply->parsed()) return kubeon::cli::RunApply(apply_args, std::cout, std::cerr);
  if (revert->parsed()) return kubeon::cli::RunRevert(revert_args, std::cout, std::cerr);
  if (changes->parsed()) return kubeon::cli::RunChanges(changes_args, std::cout, std::cerr);
  if (audit->parsed()) return kubeon::cli::RunAudit(audit_args, std::cout, std::cerr);
  if (approve->parsed()) return kubeon::cli::RunApprove(approve_args, std::cout, std::cerr);
  if (reject->parsed()) return kubeon::cli::RunReject(reject_args, std::cout, std::cerr);
  if (controller->parsed()) return kubeon::cli::RunController(controller_args, std::cerr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  kubeon::cli::TerminalStreamBuf terminal(std::cerr.rdbuf());
  std::streambuf* const stderr_buf = std::cerr.rdbuf(&terminal);
  int code = Run(argc, argv);
  // A command that failed has printed its own error (a failed stdout write included).
  if (kubeon::Status s = kubeon::cli::FlushStdout(); !s.ok() && code == 0) {
    std::cerr << "error: " << s.message() << "\n";
    code = 1;
  }
  terminal.Finish();
  std::cerr.rdbuf(stderr_buf);
  return code;
}
