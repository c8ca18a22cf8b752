// See open_store.h.
#include "audit/open_store.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "audit/kube_store.h"
#include "audit/sqlite_store.h"
#include "kube/identity.h"
#include "net/printable.h"

namespace kubeon::audit {

Status CheckAuditDbFlag(const std::string& flag) {
  if (flag.empty() || flag == kKubernetesAuditDb) return Status::Ok();
  const std::string shown = "--audit-db \"" + net::EscapeControl(flag.substr(0, 80)) + "\"";
  if (flag == "-") {
    return Status::Error(shown + ": the audit log is a file, not standard input; give a path", StatusCode::kInvalid);
  }
  if (flag.find('/') != std::string::npos) return Status::Ok();  // a path, said as one
  // A near miss of "kubernetes" (case, blanks, a letter or two) would
  // silently become a SQLite file of that name.
  std::string folded;
  for (char c : flag) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const std::string want = kKubernetesAuditDb;
  // Edit distance (insertions, deletions, substitutions) to "kubernetes".
  std::vector<size_t> row(want.size() + 1);
  for (size_t j = 0; j <= want.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= folded.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= want.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (folded[i - 1] == want[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  if (row[want.size()] <= 2 && folded.size() <= want.size() + 2) {
    return Status::Error(shown + ": did you mean kubernetes (the cluster's GpuChange objects)? A SQLite file of that "
                                 "name is given as a path: ./" + net::EscapeControl(flag.substr(0, 80)),
                         StatusCode::kInvalid);
  }
  return Status::Ok();
}

Result<AuditDb> OpenAuditDb(const AuditDbRequest& r) {
  if (Status s = CheckAuditDbFlag(r.flag); !s.ok()) return s;
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
