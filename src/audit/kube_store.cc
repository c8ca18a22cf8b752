// See kube_store.h.
#include "audit/kube_store.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>

namespace kubeon::audit {
namespace {

using nlohmann::json;

Status Failed(const std::string& what, const kube::ApiError& e) {
  return Status::Error(std::string(kKubeStoreName) + ": " + what + ": " + e.ToString());
}
Status Failed(const std::string& what) { return Status::Error(std::string(kKubeStoreName) + ": " + what); }
Status Conflict(const std::string& what) {
  return Status::Error(std::string("conflict: ") + kKubeStoreName + ": " + what, StatusCode::kConflict);
}

std::optional<int64_t> ParseInt(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string Str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t Int(const json& obj, const char* key, int64_t fallback = 0) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// `text` as a JSON object; null for "".
Result<json> ObjectOf(const std::string& text, const std::string& what) {
  if (text.empty()) return json();
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Failed(what + " is not a JSON object");
  return j;
}

std::string TextOf(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? "" : it->dump();
}

// The id is one path segment: escaped, so that no id can name another
// object, a subresource or a query (ids are checked where they are typed,
// change_id.h; this holds for any name a GpuChange was given).
std::string ChangePath(const std::string& id) { return std::string(kGpuChangesPath) + "/" + kube::QueryEscape(id); }

// --- the step logs -----------------------------------------------------------

json EntryJson(const LogEntry& e, const json& data, bool with_change) {
  json j = {{"seq", e.seq}, {"action", e.action}};
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"time", &e.time},
                                   {"outcome", &e.outcome},
                                   {"detail", &e.detail}}) {
    if (!value->empty()) j[key] = *value;  // "" is not a date-time
  }
  if (!data.is_null()) j["data"] = data;
  if (with_change) j["change"] = e.change_id;
  return j;
}

LogEntry EntryOf(const json& j, const std::string& change_id) {
  LogEntry e;
  e.seq = Int(j, "seq");
  e.time = Str(j, "time");
  e.change_id = j.contains("change") ? Str(j, "change") : change_id;
  e.action = Str(j, "action");
  e.outcome = Str(j, "outcome");
  e.detail = Str(j, "detail");
  e.data_json = TextOf(j, "data");
  return e;
}

// Inserts `entry` in sequence order, then moves the oldest entries into
// `summary` while the log is over either cap (the newest entry always stays).
void AddToLog(json& log, json& summary, json entry, size_t max_entries, size_t max_bytes) {
  if (!log.is_array()) log = json::array();
  const int64_t seq = Int(entry, "seq");
  auto at = std::find_if(log.begin(), log.end(), [&](const json& e) { return Int(e, "seq") > seq; });
  log.insert(at, std::move(entry));
  while (log.size() > 1 && (log.size() > max_entries || log.dump().size() > max_bytes)) {
    const json& old = log.front();
    if (!summary.is_object()) summary = {{"entries", 0}, {"byAction", json::object()}};
    const int64_t s = Int(old, "seq");
    summary["entries"] = Int(summary, "entries") + 1;
    if (!summary.contains("firstSeq") || Int(summary, "firstSeq") > s) summary["firstSeq"] = s;
    summary["lastSeq"] = std::max(Int(summary, "lastSeq"), s);
    json& by = summary["byAction"];
    const std::string action = Str(old, "action");
    by[action] = Int(by, action.c_str()) + 1;
    log.erase(log.begin());
  }
}

// The entry that stands for a log's dropped entries.
std::optional<LogEntry> SummaryEntry(const json& summary, const std::string& change_id) {
  if (!summary.is_object() || Int(summary, "entries") == 0) return std::nullopt;
  LogEntry e;
  e.seq = Int(summary, "lastSeq");
  e.change_id = change_id;
  e.action = kSummaryAction;
  e.outcome = "skipped";
  e.detail = std::to_string(Int(summary, "entries")) + " older entries (seq " +
             std::to_string(Int(summary, "firstSeq")) + ".." + std::to_string(Int(summary, "lastSeq")) +
             ") were summarised:";
  if (summary.contains("byAction") && summary["byAction"].is_object()) {
    for (const auto& [action, n] : summary["byAction"].items()) {
      e.detail += " " + action + " " + std::to_string(n.is_number_integer() ? n.get<int64_t>() : 0);
    }
  }
  e.data_json = summary.dump();
  return e;
}

// The entries (and summary entry) of one GpuChange object's status.
void CollectObjectLog(const json& object, std::vector<LogEntry>& out) {
  const std::string id = Str(object.value("metadata", json::object()), "name");
  const json status = object.value("status", json::object());
  if (status.contains("log") && status["log"].is_array()) {
    for (const json& j : status["log"]) out.push_back(EntryOf(j, id));
  }
  if (auto s = SummaryEntry(status.value("logSummary", json()), id)) out.push_back(*s);
}

// A JSON value kept as text in a ConfigMap's data; null when absent or unreadable.
json DataJson(const json& cm, const char* key) {
  const std::string text = Str(cm.value("data", json::object()), key);
  if (text.empty()) return json();
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json() : j;
}

json SpecOf(const ChangeRecord& r, const json& step) {
  json spec = {{"policy", r.policy}, {"contentHash", r.content_hash}};
  if (!r.created_at.empty()) spec["createdAt"] = r.created_at;
  if (!step.is_null()) spec["step"] = step;
  return spec;
}

}  // namespace

std::string DefaultControllerNamespace() {
  const char* ns = std::getenv("POD_NAMESPACE");
  return ns && *ns ? ns : "kubeon-system";
}

Result<std::optional<ChangeRecord>> RecordFromObject(const json& object) {
  const json status = object.value("status", json::object());
  if (!status.is_object() || !status.contains("revision") || !status["revision"].is_number_integer()) {
    return std::optional<ChangeRecord>();
  }
  const json spec = object.value("spec", json::object());
  ChangeRecord r;
  r.id = Str(object.value("metadata", json::object()), "name");
  r.policy = Str(spec, "policy");
  r.content_hash = Str(spec, "contentHash");
  r.created_at = Str(spec, "createdAt");
  r.step_json = TextOf(spec, "step");
  const std::string state = Str(status, "state");
  auto parsed = ParseChangeState(state);
  if (!parsed) return Failed("change " + r.id + " has an unknown state \"" + state + "\"");
  r.state = *parsed;
  r.undo_json = TextOf(status, "undo");
  r.updated_at = Str(status, "updatedAt");
  r.approved_by = Str(status, "approvedBy");
  r.approved_at = Str(status, "approvedAt");
  r.approval_expires_at = Str(status, "approvalExpiresAt");
  r.approved_hash = Str(status, "approvedHash");
  r.rejected_by = Str(status, "rejectedBy");
  r.reason = Str(status, "reason");
  r.revision = Int(status, "revision");
  return std::optional<ChangeRecord>(std::move(r));
}

std::string KubeAuditStore::ConfigMapPath() const {
  return "/api/v1/namespaces/" + options_.namespace_ + "/configmaps/" + kAuditConfigMap;
}

Result<std::optional<json>> KubeAuditStore::GetObject(const std::string& id) {
  auto got = client_.Get(ChangePath(id));
  if (got.ok()) return std::optional<json>(std::move(got).value());
  if (got.error().http_status == 404) return std::optional<json>();
  return Failed("cannot read change " + id, got.error());
}

kube::ApiResult<json> KubeAuditStore::UpsertConfigMap(const kube::Mutation& mutate) {
  const json skeleton = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"namespace", options_.namespace_}}}};
  return client_.Upsert("/api/v1/namespaces/" + options_.namespace_ + "/configmaps", kAuditConfigMap, skeleton, mutate,
                        options_.max_attempts);
}

Result<int64_t> KubeAuditStore::NextNumber(const char* key) {
  int64_t next = 0;
  auto written = UpsertConfigMap(
      [&](json& cm) {
        next = ParseInt(Str(cm.value("data", json::object()), key)).value_or(0) + 1;
        cm["data"][key] = std::to_string(next);
        return Status::Ok();
      });
  if (!written.ok()) return Failed(std::string("cannot take the next ") + key + " number", written.error());
  return next;
}

Result<std::optional<ClusterIdentity>> KubeAuditStore::Cluster() {
  auto cm = client_.Get(ConfigMapPath());
  if (!cm.ok() && cm.error().http_status == 404) return std::optional<ClusterIdentity>();
  if (!cm.ok()) return Failed("cannot read ConfigMap " + options_.namespace_ + "/" + kAuditConfigMap, cm.error());
  const json data = cm->value("data", json::object());
  if (Str(data, "clusterKubeSystemUid").empty()) return std::optional<ClusterIdentity>();
  return std::optional<ClusterIdentity>(ClusterIdentity{Str(data, "clusterServer"), Str(data, "clusterKubeSystemUid")});
}

Status KubeAuditStore::BindCluster(const ClusterIdentity& id) {
  std::optional<Status> refused;
  auto mismatch = [&](const json& data) -> std::optional<Status> {
    const std::string uid = Str(data, "clusterKubeSystemUid");
    if (uid.empty() || uid == id.kube_system_uid) return std::nullopt;
    return Status::Error(std::string(kKubeStoreName) + " belong to cluster " + Str(data, "clusterServer") +
                         " (kube-system uid " + uid + "), not " + id.server + " (kube-system uid " +
                         id.kube_system_uid + ")");
  };
  auto current = Cluster();
  if (!current.ok()) return current.status();
  if (current->has_value()) {
    if ((*current)->kube_system_uid == id.kube_system_uid) return Status::Ok();
    return *mismatch({{"clusterServer", (*current)->server}, {"clusterKubeSystemUid", (*current)->kube_system_uid}});
  }
  auto written = UpsertConfigMap(
      [&](json& cm) {
        json& data = cm["data"];
        refused = mismatch(data);
        if (refused) return *refused;  // another binder won the race
        data["clusterServer"] = id.server;
        data["clusterKubeSystemUid"] = id.kube_system_uid;
        return Status::Ok();
      });
  if (refused) return *refused;
  if (!written.ok()) return Failed("cannot record the cluster identity", written.error());
  return Status::Ok();
}

Status KubeAuditStore::PutChange(const ChangeRecord& record, int64_t expected_revision) {
  if (record.id.empty()) return Failed("cannot record a change without an id");
  auto step = ObjectOf(record.step_json, "step JSON of change " + record.id);
  if (!step.ok()) return step.status();
  auto undo = ObjectOf(record.undo_json, "undo JSON of change " + record.id);
  if (!undo.ok()) return undo.status();
  const json spec = SpecOf(record, *step);
  const std::string path = ChangePath(record.id);
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    auto found = GetObject(record.id);
    if (!found.ok()) return found.status();
    json object;
    if (!found->has_value()) {
      if (expected_revision != 0) {
        return Conflict("change " + record.id + " does not exist (expected revision " +
                        std::to_string(expected_revision) + ")");
      }
      auto order = NextNumber("changeSeq");
      if (!order.ok()) return order.status();
      json fresh = {{"apiVersion", "gpu.kubeon.io/v1"},
                    {"kind", "GpuChange"},
                    {"metadata",
                     {{"name", record.id},
                      {"labels", {{kPolicyLabel, record.policy}}},
                      {"annotations", {{kOrderAnnotation, std::to_string(*order)}}}}},
                    {"spec", spec}};
      auto created = client_.Create(kGpuChangesPath, fresh);
      if (!created.ok() && created.error().http_status == 409) continue;  // read what won
      if (!created.ok()) return Failed("cannot create change " + record.id, created.error());
      object = std::move(created).value();
    } else {
      object = std::move(**found);
      const int64_t revision = Int(object.value("status", json::object()), "revision");
      if (revision != expected_revision) {
        if (expected_revision == 0) {
          return Conflict("change " + record.id + " already exists (revision " + std::to_string(revision) + ")");
        }
        return Conflict("change " + record.id + " is at revision " + std::to_string(revision) + ", not " +
                        std::to_string(expected_revision) + " (another writer changed it)");
      }
      json& labels = object["metadata"]["labels"];
      if (object.value("spec", json()) != spec || Str(labels, kPolicyLabel) != record.policy) {
        object["spec"] = spec;
        labels[kPolicyLabel] = record.policy;
        auto updated = client_.Update(path, object);
        if (!updated.ok() && updated.error().http_status == 409) continue;
        if (!updated.ok()) return Failed("cannot write the spec of change " + record.id, updated.error());
        object = std::move(updated).value();
      }
    }
    const json old = object.value("status", json::object());
    json status = {{"state", std::string(ChangeStateName(record.state))},
                   {"revision", expected_revision + 1},
                   {"observedGeneration", Int(object["metadata"], "generation")}};
    // Empty fields are left out: the CRD gives times a date-time format and
    // approvedHash a pattern, which "" does not meet.
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"updatedAt", &record.updated_at},
                                     {"approvedBy", &record.approved_by},
                                     {"approvedAt", &record.approved_at},
                                     {"approvalExpiresAt", &record.approval_expires_at},
                                     {"approvedHash", &record.approved_hash},
                                     {"rejectedBy", &record.rejected_by},
                                     {"reason", &record.reason}}) {
      if (!value->empty()) status[key] = *value;
    }
    if (!undo->is_null()) status["undo"] = *undo;
    for (const char* keep : {"log", "logSummary", "revertRequested"}) {
      if (old.is_object() && old.contains(keep)) status[keep] = old[keep];
    }
    object["status"] = status;
    auto written = client_.Update(path + "/status", object);
    if (written.ok()) return Status::Ok();
    if (written.error().http_status != 409) {
      return Failed("cannot write the status of change " + record.id, written.error());
    }
  }
  return Conflict("change " + record.id + ": gave up after " + std::to_string(options_.max_attempts) +
                  " conflicting writes");
}

Result<std::optional<ChangeRecord>> KubeAuditStore::GetChange(const std::string& id) {
  auto found = GetObject(id);
  if (!found.ok()) return found.status();
  if (!found->has_value()) return std::optional<ChangeRecord>();
  return RecordFromObject(**found);
}

Result<std::vector<ChangeRecord>> KubeAuditStore::ListChanges() {
  auto list = client_.List(kGpuChangesPath);
  if (!list.ok()) return Failed("cannot list changes", list.error());
  std::vector<std::tuple<int64_t, std::string, ChangeRecord>> keyed;
  for (const json& item : list->items) {
    auto r = RecordFromObject(item);
    if (!r.ok()) return r.status();
    if (!r->has_value()) continue;  // created, status not written yet
    const json meta = item.value("metadata", json::object());
    const int64_t order = ParseInt(Str(meta.value("annotations", json::object()), kOrderAnnotation))
                              .value_or(INT64_MAX);
    keyed.emplace_back(order, Str(meta, "creationTimestamp"), std::move(**r));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a).id) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b).id);
  });
  std::vector<ChangeRecord> out;
  for (auto& k : keyed) out.push_back(std::move(std::get<2>(k)));
  return out;
}

Result<int64_t> KubeAuditStore::Append(const LogEntry& entry) {
  auto data = ObjectOf(entry.data_json, "data JSON of a log entry");
  if (!data.ok()) return data.status();
  if (!entry.change_id.empty()) {
    auto found = GetObject(entry.change_id);
    if (!found.ok()) return found.status();
    if (found->has_value()) {
      auto seq = NextNumber("logSeq");
      if (!seq.ok()) return seq.status();
      LogEntry e = entry;
      e.seq = *seq;
      const std::string path = ChangePath(entry.change_id);
      json object = std::move(**found);
      for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
        if (attempt > 1) {
          auto again = client_.Get(path);
          if (!again.ok()) return Failed("cannot read change " + entry.change_id, again.error());
          object = std::move(again).value();
        }
        json& status = object["status"];
        if (!status.is_object()) status = json::object();
        AddToLog(status["log"], status["logSummary"], EntryJson(e, *data, false), options_.max_log_entries,
                 options_.max_log_bytes);
        if (status["logSummary"].is_null()) status.erase("logSummary");
        auto written = client_.Update(path + "/status", object);
        if (written.ok()) return *seq;
        if (written.error().http_status != 409) {
          return Failed("cannot append log entry " + std::to_string(*seq) + " to change " + entry.change_id,
                        written.error());
        }
      }
      return Failed("cannot append log entry " + std::to_string(*seq) + " to change " + entry.change_id +
                    ": gave up after " + std::to_string(options_.max_attempts) + " conflicting writes");
    }
  }
  // Run-level entries, and entries of changes without an object: numbered and
  // stored by one write of the ConfigMap.
  int64_t seq = 0;
  auto written = UpsertConfigMap(
      [&](json& cm) {
        json& d = cm["data"];
        seq = ParseInt(Str(d, "logSeq")).value_or(0) + 1;
        LogEntry e = entry;
        e.seq = seq;
        json log = DataJson(cm, "log"), summary = DataJson(cm, "logSummary");
        AddToLog(log, summary, EntryJson(e, *data, true), options_.max_log_entries, options_.max_log_bytes);
        d["logSeq"] = std::to_string(seq);
        d["log"] = log.dump();
        if (summary.is_object()) d["logSummary"] = summary.dump();
        return Status::Ok();
      });
  if (!written.ok()) return Failed("cannot append a log entry", written.error());
  return seq;
}

Result<std::vector<LogEntry>> KubeAuditStore::Log(const std::string& change_id) {
  std::vector<LogEntry> out;
  auto cm = client_.Get(ConfigMapPath());
  if (!cm.ok() && cm.error().http_status != 404) {
    return Failed("cannot read ConfigMap " + options_.namespace_ + "/" + kAuditConfigMap, cm.error());
  }
  if (cm.ok()) {
    const json log = DataJson(*cm, "log");
    if (log.is_array()) {
      for (const json& j : log) {
        LogEntry e = EntryOf(j, "");
        if (change_id.empty() || e.change_id == change_id) out.push_back(std::move(e));
      }
    }
    if (change_id.empty()) {
      if (auto s = SummaryEntry(DataJson(*cm, "logSummary"), "")) out.push_back(*s);
    }
  }
  if (change_id.empty()) {
    auto list = client_.List(kGpuChangesPath);
    if (!list.ok()) return Failed("cannot list changes", list.error());
    for (const json& item : list->items) CollectObjectLog(item, out);
  } else {
    auto found = GetObject(change_id);
    if (!found.ok()) return found.status();
    if (found->has_value()) CollectObjectLog(**found, out);
  }
  std::stable_sort(out.begin(), out.end(), [](const LogEntry& a, const LogEntry& b) { return a.seq < b.seq; });
  return out;
}

}  // namespace kubeon::audit
