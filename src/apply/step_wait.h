// Waiting, for every part of the step state machine: Poll checks a
// condition every StepOptions::poll_interval until it holds or a timeout
// passes, and CheckDeadline ends the forward sequence once
// StepOptions::hard_deadline has passed.  A rollback is bound only by its own
// waits (it must not stop half way), so CheckDeadline lets it through.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "apply/step_journal.h"

namespace kubeon::apply {

// kAborted once the hard deadline passed, unless the run is rolling back.
Status CheckDeadline(StepJournal& j, const std::string& what);

// Calls `check` (true: done; an error: give up with it) until it returns
// true, then OK.  kUnavailable "timed out after N s waiting for <what>" once
// `timeout` passed; CheckDeadline's error between two checks.
Status Poll(StepJournal& j, const std::string& what, std::chrono::milliseconds timeout,
            const std::function<Result<bool>()>& check);

}  // namespace kubeon::apply
