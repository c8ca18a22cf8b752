// See audit_db.h.
#include "cli/audit_db.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include <CLI/CLI.hpp>

#include "audit/kube_store.h"
#include "audit/sqlite_store.h"
#include "kube/identity.h"

namespace kubeon::cli {

Result<AuditDb> OpenAuditDb(const AuditDbRequest& r) {
  AuditDb db;
  std::optional<kube::ClusterId> cluster;  // asked before a SQLite file is created
  auto ask_cluster = [&](kube::KubeClient* client) -> Status {
    if (!r.bind_cluster) return Status::Ok();
    if (client == nullptr) return Status::Error("internal: binding the audit log needs a cluster client");
    Result<kube::ClusterId> id = kube::ClusterIdOf(*client);
    if (!id.ok()) return id.status();
    cluster = *id;
    return Status::Ok();
  };
  if (r.flag == kKubernetesAuditDb) {
    db.kubernetes = true;
    db.flag_value = kKubernetesAuditDb;
    db.where = audit::kKubeStoreName;
    db.display = std::string(kKubernetesAuditDb) + " (" + audit::kKubeStoreName + ")";
    db.client = r.client;
    if (db.client == nullptr) {
      auto c = kube::ConnectWithOptions(r.connect);
      if (!c.ok()) return c.status();
      db.own_client = std::move(c).value();
      db.client = db.own_client.get();
    }
    if (Status s = ask_cluster(db.client); !s.ok()) return s;
    audit::KubeAuditStore::Options o;
    o.namespace_ = r.kube_namespace.empty() ? audit::DefaultControllerNamespace() : r.kube_namespace;
    db.store = std::make_unique<audit::KubeAuditStore>(*db.client, o);
  } else {
    db.flag_value = r.flag;
    if (db.flag_value.empty()) {
      Result<std::string> def = audit::DefaultAuditDbPath();
      if (!def.ok()) return def.status();
      db.flag_value = *def;
    }
    db.where = "audit db " + db.flag_value;
    db.display = db.flag_value;
    if (Status s = ask_cluster(r.client); !s.ok()) return s;
    std::error_code ec;
    if (r.missing_ok && !std::filesystem::exists(db.flag_value, ec) && !ec) return db;
    audit::SqliteAuditStore::Options o;
    o.create_if_missing = r.create_if_missing;
    Result<std::unique_ptr<audit::AuditStore>> store = audit::SqliteAuditStore::Open(db.flag_value, o);
    if (!store.ok()) return store.status();
    db.store = std::move(store).value();
  }
  if (cluster) {
    Status bound = db.store->BindCluster(audit::ClusterIdentity{cluster->server, cluster->kube_system_uid});
    if (!bound.ok()) return bound;
  }
  return db;
}

void AddAuditDbOption(CLI::App* cmd, std::string& flag) {
  cmd->add_option("--audit-db", flag,
                  "The audit log: `kubernetes` for the cluster's GpuChange objects (what the controller uses), "
                  "else the path of a SQLite file (default: $XDG_STATE_HOME/kubeon/audit.db, else "
                  "$HOME/.local/state/kubeon/audit.db)");
}

}  // namespace kubeon::cli
