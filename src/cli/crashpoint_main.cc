// kubeon-gpu-crashpoint (built with the tests only, never installed): the
// kubeon-gpu command line with a crash point.  With
// KUBEON_CRASHPOINT_AFTER_WRITES=N (N > 0) the process SIGKILLs itself right
// after its N-th successful cluster write, counted over the whole process
// (every step, resume and revert it runs): before that write's "ok" log
// entry and anything after it.  The crash suites (apply_crash_test,
// controller_e2e_test) run it to leave exactly what a crash there leaves.
// kubeon-gpu itself has no such switch: the observer is injected here,
// through cli::MainHooks.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "cli/main_command.h"

int main(int argc, char** argv) {
  const char* v = std::getenv("KUBEON_CRASHPOINT_AFTER_WRITES");
  const int crash_at = v == nullptr ? 0 : std::atoi(v);
  kubeon::cli::MainHooks hooks;
  if (crash_at > 0) {
    hooks.write_observer = [crash_at](int) {
      static std::atomic<int> process_writes{0};
      if (++process_writes == crash_at) kill(getpid(), SIGKILL);
      return false;
    };
  }
  return kubeon::cli::Main(argc, argv, hooks);
}
