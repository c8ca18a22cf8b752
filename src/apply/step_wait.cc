#include "apply/step_wait.h"

namespace kubeon::apply {

Status CheckDeadline(StepJournal& j, const std::string& what) {
  const auto& deadline = j.options().hard_deadline;
  if (!j.rolling_back() && deadline && j.ctx().clock.Now() > *deadline) {
    return Status::Error("hard deadline passed while " + what, StatusCode::kAborted);
  }
  return Status::Ok();
}

Status Poll(StepJournal& j, const std::string& what, std::chrono::milliseconds timeout,
            const std::function<Result<bool>()>& check) {
  Clock& clock = j.ctx().clock;
  const auto until = clock.Now() + timeout;
  while (true) {
    auto r = check();
    if (!r.ok()) return r.status();
    if (*r) return Status::Ok();
    if (clock.Now() > until) {
      return Status::Error("timed out after " + std::to_string(timeout.count() / 1000) + " s waiting for " + what,
                           StatusCode::kUnavailable);
    }
    if (Status d = CheckDeadline(j, "waiting for " + what); !d.ok()) return d;
    clock.Sleep(j.options().poll_interval);
  }
}

}  // namespace kubeon::apply
