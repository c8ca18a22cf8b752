#include "apply/terminations.h"

#include <algorithm>

#include "apply/object_fields.h"
#include "apply/step_wait.h"

namespace kubeon::apply {

using json = nlohmann::json;

Status CheckCapacityAwaitingTerminations(StepJournal& j, const std::function<Status(const GpuLedger&)>& fits) {
  auto ledger = ReadGpuLedger(j.client());
  if (!ledger.ok()) return ledger.status();
  Status now = fits(*ledger);
  if (now.ok() || ledger->terminating.empty()) return now;
  if (!fits(ledger->AfterTerminations()).ok()) return now;
  int64_t grace = 0;
  std::string names;
  for (const auto& p : ledger->terminating) {
    grace = std::max(grace, p.grace_seconds);
    if (names.size() < 200) names += (names.empty() ? "" : ", ") + p.name;
  }
  const auto bound = std::chrono::milliseconds(grace * 1000) + j.options().pod_gone_margin;
  const std::string detail = "waiting up to " + std::to_string(bound.count() / 1000) + " s for " +
                             std::to_string(ledger->terminating.size()) + " terminating pod(s) to free their GPUs: " +
                             names;
  j.NoteJournalError(j.Log("await-terminations", "intent", detail));
  j.Progress(detail);
  std::string left;
  Status waited = Poll(j, "terminating pods to free their GPUs", bound, [&]() -> Result<bool> {
    for (const auto& p : ledger->terminating) {
      const size_t slash = p.name.find('/');
      auto got = j.client().Get("/api/v1/namespaces/" + p.name.substr(0, slash) + "/pods/" + p.name.substr(slash + 1));
      if (!got.ok()) {
        if (got.error().Code() == StatusCode::kNotFound) continue;
        return got.status();
      }
      if (OptStr(got->value("metadata", json::object()), "uid").value_or("") != p.uid) continue;
      left = p.name;
      return false;
    }
    return true;
  });
  if (!waited.ok()) {
    if (waited.code() != StatusCode::kUnavailable || left.empty()) return waited;
    return Status::Error("pod " + left + " is still terminating after " + std::to_string(bound.count() / 1000) +
                             " s (its node NotReady, or a finalizer holding it?): the GPUs it holds are not free; " +
                             now.message(),
                         StatusCode::kUnavailable);
  }
  j.NoteJournalError(j.Log("await-terminations", "ok", "terminating pods gone"));
  auto fresh = ReadGpuLedger(j.client());
  if (!fresh.ok()) return fresh.status();
  return fits(*fresh);
}

}  // namespace kubeon::apply
