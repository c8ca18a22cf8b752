// The config-label handshake with the GPU Operator, as mig-parted's
// reconfigure and the device plugin expect it:
//
//  MIG (nvidia.com/mig.config): clears nvidia.com/mig.config.state and sets
//  the label in one write.  mig-manager acts only on a change, so a label
//  already at the target is removed first.  Then waits for a fresh
//  `success` (`failed`, or none within mig_deadline, is an error), restores
//  operand labels a dead run left paused, and waits for the node's
//  allocatable to show the config's devices (ExpectedFor) within
//  allocatable_deadline.
//
//  Time-slicing (nvidia.com/device-plugin.config): refused while a pod on
//  the node holds nvidia.com/gpu; sets (or removes) the label and waits for
//  nvidia.com/gpu.shared = GPUs x replicas.
//
// SetConfigLabel does nothing when the node already holds `value` and shows
// its devices (and, for MIG, state success).  `expect_prior` is the set of
// values the label may hold before; any other means someone else changed it
// (kConflict, nothing written).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "apply/step_journal.h"

namespace kubeon::apply {

Status SetConfigLabel(StepJournal& j, const std::string& node, const std::string& label,
                      const std::optional<std::string>& value, int gpus,
                      const std::set<std::optional<std::string>>& expect_prior);

}  // namespace kubeon::apply
