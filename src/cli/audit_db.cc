// See audit_db.h.
#include "cli/audit_db.h"

#include <CLI/CLI.hpp>

namespace kubeon::cli {

void AddAuditDbOption(CLI::App* cmd, std::string& flag) {
  cmd->add_option("--audit-db", flag,
                  "The audit log: `kubernetes` for the cluster's GpuChange objects (what the controller uses), "
                  "else the path of a SQLite file (default: $XDG_STATE_HOME/kubeon/audit.db, else "
                  "$HOME/.local/state/kubeon/audit.db)");
}

}  // namespace kubeon::cli
