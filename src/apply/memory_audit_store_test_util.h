// Test support (not part of the library): an AuditStore held in memory, with
// the interface's contract (cluster binding, compare-and-set revisions,
// sequence numbers), so executor unit tests need no database.  Given a file
// path it is also written through to that file (JSON, replaced atomically
// after every call that changes it) and loaded from it, so a test can
// SIGKILL a child process mid-step and resume from the log it left.
#pragma once

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit_store.h"

namespace kubeon::apply::testing {

class MemoryAuditStore : public audit::AuditStore {
 public:
  MemoryAuditStore() = default;
  // Write-through to `path`, starting from its content when it exists.
  explicit MemoryAuditStore(std::string path) : path_(std::move(path)) { Load(); }

  Status BindCluster(const audit::ClusterIdentity& id) override {
    if (!cluster_) {
      cluster_ = id;
      return Save();
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
                               std::to_string(expected_revision),
                           StatusCode::kConflict);
    }
    if (it == changes_.end()) order_.push_back(record.id);
    audit::ChangeRecord r = record;
    r.revision = have + 1;
    changes_[record.id] = r;
    return Save();
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
    Status s = Save();
    if (!s.ok()) return s;
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
  static nlohmann::json ToJson(const audit::ChangeRecord& r) {
    return {{"id", r.id}, {"policy", r.policy}, {"content_hash", r.content_hash}, {"state", static_cast<int>(r.state)},
            {"step_json", r.step_json}, {"undo_json", r.undo_json}, {"created_at", r.created_at},
            {"updated_at", r.updated_at}, {"approved_by", r.approved_by}, {"approved_at", r.approved_at},
            {"approval_expires_at", r.approval_expires_at}, {"approved_hash", r.approved_hash},
            {"rejected_by", r.rejected_by}, {"reason", r.reason}, {"revision", r.revision}};
  }
  static audit::ChangeRecord FromJson(const nlohmann::json& j) {
    audit::ChangeRecord r;
    r.id = j["id"];
    r.policy = j["policy"];
    r.content_hash = j["content_hash"];
    r.state = static_cast<audit::ChangeState>(j["state"].get<int>());
    r.step_json = j["step_json"];
    r.undo_json = j["undo_json"];
    r.created_at = j["created_at"];
    r.updated_at = j["updated_at"];
    r.approved_by = j["approved_by"];
    r.approved_at = j["approved_at"];
    r.approval_expires_at = j["approval_expires_at"];
    r.approved_hash = j["approved_hash"];
    r.rejected_by = j["rejected_by"];
    r.reason = j["reason"];
    r.revision = j["revision"];
    return r;
  }

  Status Save() {
    if (path_.empty()) return Status::Ok();
    nlohmann::json j = {{"changes", nlohmann::json::array()}, {"log", nlohmann::json::array()}};
    if (cluster_) j["cluster"] = {cluster_->server, cluster_->kube_system_uid};
    for (const auto& id : order_) j["changes"].push_back(ToJson(changes_.at(id)));
    for (const auto& e : log_) {
      j["log"].push_back({e.seq, e.time, e.change_id, e.action, e.outcome, e.detail, e.data_json});
    }
    const std::string tmp = path_ + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << j.dump();
      if (!out.flush()) return Status::Error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path_.c_str()) != 0) return Status::Error("cannot rename " + tmp);
    return Status::Ok();
  }

  void Load() {
    std::ifstream in(path_);
    if (!in) return;
    std::stringstream buf;
    buf << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(buf.str(), nullptr, false);
    if (!j.is_object()) return;
    if (j.contains("cluster")) cluster_ = audit::ClusterIdentity{j["cluster"][0], j["cluster"][1]};
    for (const auto& c : j["changes"]) {
      audit::ChangeRecord r = FromJson(c);
      order_.push_back(r.id);
      changes_[r.id] = r;
    }
    for (const auto& e : j["log"]) {
      log_.push_back({e[0].get<int64_t>(), e[1], e[2], e[3], e[4], e[5], e[6]});
    }
  }

  std::string path_;
  std::optional<audit::ClusterIdentity> cluster_;
  std::map<std::string, audit::ChangeRecord> changes_;
  std::vector<std::string> order_;
  std::vector<audit::LogEntry> log_;
};

}  // namespace kubeon::apply::testing
