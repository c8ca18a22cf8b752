// The --audit-db flag of every command that uses the audit log (apply,
// revert, changes, audit, approve, reject).  What it names and how it is
// opened is audit/open_store.h, shared with the controller.
#pragma once

#include <string>

#include "audit/open_store.h"
#include "cli/cli11_fwd.h"

namespace kubeon::cli {

using audit::AuditDb;
using audit::AuditDbRequest;
using audit::kKubernetesAuditDb;
using audit::OpenAuditDb;
using audit::OpenStoreFor;

// Registers --audit-db on `cmd`.
void AddAuditDbOption(CLI::App* cmd, std::string& flag);

}  // namespace kubeon::cli
