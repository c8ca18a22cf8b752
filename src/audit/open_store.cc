// See open_store.h.
#include "audit/open_store.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "audit/kube_store.h"
#include "audit/sqlite_store.h"
#include "kube/identity.h"

namespace kubeon::audit {

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
    db.where = kKubeStoreName;
    db.display = std::string(kKubernetesAuditDb) + " (" + kKubeStoreName + ")";
    db.client = r.client;
    if (db.client == nullptr) {
      auto c = kube::ConnectWithOptions(r.connect);
      if (!c.ok()) return c.status();
      db.own_client = std::move(c).value();
      db.client = db.own_client.get();
    }
    if (Status s = ask_cluster(db.client); !s.ok()) return s;
    KubeAuditStore::Options o;
    o.namespace_ = r.kube_namespace.empty() ? DefaultControllerNamespace() : r.kube_namespace;
    db.store = std::make_unique<KubeAuditStore>(*db.client, o);
  } else {
    db.flag_value = r.flag;
    if (db.flag_value.empty()) {
      Result<std::string> def = DefaultAuditDbPath();
      if (!def.ok()) return def.status();
      db.flag_value = *def;
    }
    db.where = "audit db " + db.flag_value;
    db.display = db.flag_value;
    if (Status s = ask_cluster(r.client); !s.ok()) return s;
    std::error_code ec;
    if (r.missing_ok && !std::filesystem::exists(db.flag_value, ec) && !ec) return db;
    SqliteAuditStore::Options o;
    o.create_if_missing = r.create_if_missing;
    Result<std::unique_ptr<AuditStore>> store = SqliteAuditStore::Open(db.flag_value, o);
    if (!store.ok()) return store.status();
    db.store = std::move(store).value();
  }
  if (cluster) {
    Status bound = db.store->BindCluster(ClusterIdentity{cluster->server, cluster->kube_system_uid});
    if (!bound.ok()) return bound;
  }
  return db;
}

Result<std::unique_ptr<AuditStore>> OpenStoreFor(const std::string& flag, kube::KubeClient& client,
                                                 bool create_if_missing, const std::string& kube_namespace) {
  AuditDbRequest r;
  r.flag = flag;
  r.client = &client;
  r.create_if_missing = create_if_missing;
  r.bind_cluster = true;
  r.kube_namespace = kube_namespace;
  Result<AuditDb> db = OpenAuditDb(r);
  if (!db.ok()) return db.status();
  return std::move(db->store);
}

}  // namespace kubeon::audit
