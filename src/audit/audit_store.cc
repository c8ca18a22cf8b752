// See audit_store.h.
#include "audit/audit_store.h"

#include <array>
#include <utility>

namespace kubeon::audit {
namespace {

constexpr std::array<std::pair<ChangeState, std::string_view>, 9> kStateNames = {{
    {ChangeState::kProposed, "proposed"},
    {ChangeState::kApproved, "approved"},
    {ChangeState::kRejected, "rejected"},
    {ChangeState::kExpired, "expired"},
    {ChangeState::kRunning, "running"},
    {ChangeState::kDone, "done"},
    {ChangeState::kFailed, "failed"},
    {ChangeState::kRolledBack, "rolled-back"},
    {ChangeState::kReverted, "reverted"},
}};

}  // namespace

std::string_view ChangeStateName(ChangeState s) {
  for (const auto& [state, name] : kStateNames) {
    if (state == s) return name;
  }
  return "unknown";
}

std::optional<ChangeState> ParseChangeState(std::string_view name) {
  for (const auto& [state, n] : kStateNames) {
    if (n == name) return state;
  }
  return std::nullopt;
}

}  // namespace kubeon::audit
