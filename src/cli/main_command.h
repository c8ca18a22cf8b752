// kubeon-gpu's command line, as a function (cli/main.cc is its main()).
// Subcommands are registered by their own files (plan_command.h, ...); this
// file only wires them and maps errors to exit codes (0 ok, 1 failure, 2 usage).
//
// Two guards apply to every subcommand: stderr passes through
// TerminalStreamBuf (control characters escaped, URL passwords redacted), and
// stdout is flushed and checked at the end, so output truncated by a full
// disk or /dev/full exits 1 with "error: stdout: <reason>" instead of 0.
//
// MainHooks carries what only tests inject: the executor's write observer
// (apply/step_context.h), which the test-only kubeon-gpu-crashpoint binary
// sets to SIGKILL itself at a crash point.  kubeon-gpu passes none.
#pragma once

#include "apply/step_context.h"

namespace kubeon::cli {

struct MainHooks {
  apply::WriteObserver write_observer;  // given to apply, revert and the controller
};

int Main(int argc, char** argv, const MainHooks& hooks);

}  // namespace kubeon::cli
