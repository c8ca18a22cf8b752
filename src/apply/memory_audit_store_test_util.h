// Test support (not part of the library): an AuditStore held in memory, with
// the interface's contract (cluster binding, compare-and-set revisions,
// sequence numbers), so executor unit tests need no database.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "audit/audit_store.h"

namespace kubeon::apply::testing {

class MemoryAuditStore : public audit::AuditStore {
 public:
  Status BindCluster(const audit::ClusterIdentity& id) override {
    if (!cluster_) {
      cluster_ = id;
      return Status::Ok();
    }
    if (*cluster_ == id) return Status::Ok();
    return Status::Error("audit log (memory) belongs to cluster " + cluster_->server + " (kube-system uid " +
                         cluster_->kube_system_uid + "), not " + id.server + " (uid " + id.kube_system_uid + ")");
  }
  Result<std::optional<audit::ClusterIdentity>> Cluster() override { return cluster_; }

  Status PutChange(const audit::ChangeRecord& record, int64_t expected_revision) override {
    auto it = changes_.find(record.id);
    const int64_t have = it == changes_.end() ? 0 : it->second.revision;
    if (have != expected_revision) {
      return Status::Error("conflict: change " + record.id + " is at revision " + std::to_string(have) + ", not " +
                           std::to_string(expected_revision));
    }
    if (it == changes_.end()) order_.push_back(record.id);
    audit::ChangeRecord r = record;
    r.revision = have + 1;
    changes_[record.id] = r;
    return Status::Ok();
  }
  Result<std::optional<audit::ChangeRecord>> GetChange(const std::string& id) override {
    auto it = changes_.find(id);
    if (it == changes_.end()) return std::optional<audit::ChangeRecord>();
    return std::optional<audit::ChangeRecord>(it->second);
  }
  Result<std::vector<audit::ChangeRecord>> ListChanges() override {
    std::vector<audit::ChangeRecord> out;
    for (const auto& id : order_) out.push_back(changes_.at(id));
    return out;
  }
  Result<int64_t> Append(const audit::LogEntry& entry) override {
    audit::LogEntry e = entry;
    e.seq = static_cast<int64_t>(log_.size()) + 1;
    log_.push_back(e);
    return e.seq;
  }
  Result<std::vector<audit::LogEntry>> Log(const std::string& change_id) override {
    std::vector<audit::LogEntry> out;
    for (const auto& e : log_) {
      if (change_id.empty() || e.change_id == change_id) out.push_back(e);
    }
    return out;
  }

 private:
  std::optional<audit::ClusterIdentity> cluster_;
  std::map<std::string, audit::ChangeRecord> changes_;
  std::vector<std::string> order_;
  std::vector<audit::LogEntry> log_;
};

}  // namespace kubeon::apply::testing
