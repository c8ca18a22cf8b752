// See change_commands.h.
#include "cli/change_commands.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "apply/change_json.h"
#include "apply/rfc3339.h"
#include "audit/change_id.h"
#include "audit/audit_store.h"
#include "audit/decision.h"
#include "audit/kube_approvals.h"
#include "audit/kube_store.h"
#include "cli/audit_db.h"
#include "cli/plan_command.h"
#include "cli/report.h"
#include "cli/terminal_text.h"
#include "kube/identity.h"
#include "kube/snapshot.h"
#include "net/redact.h"
#include "plan/plan.h"
#include "plan/schedule_json.h"

namespace kubeon::cli {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

Result<plan::ScheduleStep> StepOf(const audit::ChangeRecord& r) { return apply::StepOfChange(r); }

// True when the RFC 3339 time `t` is not after `now`; false when it is unset
// or unreadable.
bool Passed(const std::string& t, Clock::time_point now) {
  const auto when = apply::ParseTimePoint(t);
  return when && *when <= now;
}

std::string FormatRfc3339(Clock::time_point t) { return apply::FormatTime(std::chrono::floor<std::chrono::seconds>(t)); }

std::string ClusterLine(const std::optional<audit::ClusterIdentity>& c) {
  if (!c) return "no cluster recorded yet";
  return "cluster " + net::RedactUrl(c->server) + " (kube-system uid " + c->kube_system_uid + ")";
}

json ClusterJson(const std::optional<audit::ClusterIdentity>& c) {
  if (!c) return nullptr;
  return {{"server", net::RedactUrl(c->server)}, {"kube_system_uid", c->kube_system_uid}};
}

json ChangeJson(const audit::ChangeRecord& r, Clock::time_point now) { return apply::ChangeToJson(r, now); }

std::string Decision(const audit::ChangeRecord& r, Clock::time_point now) {
  if (!r.rejected_by.empty()) return "rejected by " + r.rejected_by;
  if (r.approved_by.empty()) return "-";
  std::string s = "approved by " + r.approved_by;
  if (r.approved_hash != r.content_hash) return s + " (earlier version)";
  return s + (Passed(r.approval_expires_at, now) ? ", expired " : " until ") + r.approval_expires_at;
}

std::string OwnerLine(const plan::StepOwnerMove& o) {
  std::ostringstream s;
  s << o.owner.Display() << " (" << o.owner.kind << ", " << o.replicas << (o.replicas == 1 ? " replica" : " replicas")
    << "): " << o.from_resource << " x" << o.from_per_pod << " → " << o.to_resource << " x" << o.to_per_pod;
  if (!o.strategy.empty()) s << ", " << o.strategy;
  if (!o.pdb.empty()) s << ", PDB " << o.pdb << (o.pdb_ok ? "" : " (rollout exceeds its allowance)");
  if (!o.gitops.empty()) s << ", managed by " << o.gitops;
  return s.str();
}

void RenderChangeDetail(const audit::ChangeRecord& r, Clock::time_point now, std::ostringstream& out) {
  const Result<plan::ScheduleStep> step = StepOf(r);
  out << "Change " << r.id << ": " << audit::ChangeStateName(r.state) << " (policy " << r.policy;
  if (step.ok()) {
    if (step->index > 0) out << ", step " << step->index;
    if (!step->gpu_model.empty()) out << ", " << step->gpu_model;
    if (!step->method.empty()) out << ", " << step->method;
  }
  out << ")\n";
  auto line = [&](const std::string& label, const std::string& text) {
    out << "  " << label << ":" << std::string(label.size() < 10 ? 10 - label.size() : 1, ' ') << text << "\n";
  };
  if (!step.ok()) {
    line("step", "unreadable: " + step.status().message());
  } else {
    const plan::ScheduleStep& st = *step;
    line("nodes", st.nodes.empty() ? "-" : Join(st.nodes, ", "));
    auto at = [](const std::map<std::string, std::string>& m, const std::string& node) {
      auto it = m.find(node);
      return it == m.end() ? std::string("?") : it->second;
    };
    for (const auto& node : st.nodes) {
      line("layout", node + ": " + at(st.layout_before, node) + " → " + at(st.layout_after, node));
    }
    for (const auto& o : st.owners) line("moves", OwnerLine(o));
    for (const auto& e : st.evictions) {
      line("evicts", e.pod + " (" + e.owner + "), " +
                         (e.runs_meanwhile.empty() ? "waits Pending meanwhile" : "runs meanwhile on " + e.runs_meanwhile));
    }
    for (const auto& d : st.disrupted) line("disrupts", d.pod + " (" + d.owner + "): " + d.why);
    std::string frees = std::to_string(st.gpus_freed) + " GPUs, " + Money(st.monthly_savings_usd) + "/month";
    if (!st.nodes_freed.empty()) frees += " (nodes freed: " + Join(st.nodes_freed, ", ") + ")";
    line("frees", frees);
    if (!st.isolation.empty()) line("isolation", st.isolation);
    for (const auto& f : st.flags) line("flag", f);
  }
  if (!r.approved_by.empty()) {
    std::string a = "by " + r.approved_by + " at " + r.approved_at + ", " +
                    (Passed(r.approval_expires_at, now) ? "expired " : "expires ") + r.approval_expires_at;
    if (r.approved_hash != r.content_hash) a += "; for an earlier version of the step (hash " + r.approved_hash + ")";
    line("approved", a);
  }
  if (!r.rejected_by.empty()) line("rejected", "by " + r.rejected_by + (r.reason.empty() ? "" : ": " + r.reason));
  if (r.rejected_by.empty() && !r.reason.empty()) line("reason", r.reason);
  const std::vector<apply::Attempt> attempts = apply::EarlierAttempts(r);
  for (const auto& a : attempts) {
    line("attempt " + std::to_string(a.number), "rolled back at " + a.ended_at + ": " + a.cause);
  }
  if (!attempts.empty()) line("attempt", std::to_string(attempts.size() + 1) + " (this one)");
}

std::string RenderChangesTable(const std::string& path, const std::optional<audit::ClusterIdentity>& cluster,
                               const std::vector<audit::ChangeRecord>& changes, Clock::time_point now) {
  std::ostringstream out;
  out << "Audit log " << path << ", " << ClusterLine(cluster) << "\n\n";
  if (changes.empty()) {
    out << "No changes recorded.\n";
    return EscapeControl(out.str(), /*keep_newlines=*/true);
  }
  std::vector<std::vector<std::string>> rows = {
      {"ID", "POLICY", "STATE", "NODES", "GPUS FREED", "SAVED/MONTH", "DISRUPTS", "FLAGS", "DECISION"}};
  for (const auto& r : changes) {
    const Result<plan::ScheduleStep> step = StepOf(r);
    if (!step.ok()) {
      rows.push_back({r.id, r.policy, std::string(audit::ChangeStateName(r.state)), "?", "?", "?", "?", "?",
                      Decision(r, now)});
      continue;
    }
    rows.push_back({r.id, r.policy, std::string(audit::ChangeStateName(r.state)),
                    step->nodes.empty() ? "-" : Join(step->nodes, ","), std::to_string(step->gpus_freed),
                    Money(step->monthly_savings_usd), std::to_string(step->disrupted.size()),
                    std::to_string(step->flags.size()), Decision(r, now)});
  }
  out << Table(rows);
  for (const auto& r : changes) {
    out << "\n";
    RenderChangeDetail(r, now, out);
  }
  return EscapeControl(out.str(), /*keep_newlines=*/true);
}

bool ValidOutput(const std::string& o, std::ostream& err, const char* cmd) {
  if (o == "table" || o == "json") return true;
  err << "kubeon-gpu " << cmd << ": -o: \"" << o << "\" is not table or json\n";
  return false;
}

// --kubeconfig and --context, which every command of this file takes
// (changes and audit use them only with --audit-db kubernetes).
void AddClusterFlags(CLI::App* cmd, std::string& kubeconfig, std::string& context) {
  cmd->add_option("--kubeconfig", kubeconfig,
                  "kubeconfig file (default: KUBECONFIG, ~/.kube/config, or the in-cluster service account)");
  cmd->add_option("--context", context, "kubeconfig context (default: current-context)");
}

// The ID argument and the flags approve and reject share.
void AddDecideFlags(CLI::App* cmd, DecideArgs& a) {
  cmd->add_option("ID", a.id, "Change id (`kubeon-gpu changes` lists them)")->required();
  AddClusterFlags(cmd, a.kubeconfig, a.context);
  AddAuditDbOption(cmd, a.audit_db);
}

int Decide(const DecideArgs& a, bool approve, std::ostream& out, std::ostream& err) {
  const char* cmd = approve ? "approve" : "reject";
  auto fail = [&](const std::string& message) {
    err << "kubeon-gpu " << cmd << ": " << OneLine(message) << "\n";
    return 1;
  };
  if (Status bad = audit::CheckChangeId(a.id); !bad.ok()) {
    err << "kubeon-gpu " << cmd << ": " << bad.message() << "\n";
    return 2;
  }
  double ttl_hours = 0;
  Status ttl_ok = approve ? ParseDurationFlag("--ttl", a.ttl, "24h, 90m or 3d", true, &ttl_hours) : Status::Ok();
  if (!ttl_ok.ok()) {
    err << "kubeon-gpu approve: " << ttl_ok.message() << "\n";
    return 2;
  }
  const Clock::time_point now = a.now.value_or(Clock::now());
  kube::SnapshotOptions connect;
  connect.kubeconfig = a.kubeconfig;
  connect.context = a.context;
  const bool kubernetes = a.audit_db == kKubernetesAuditDb;
  std::unique_ptr<kube::KubeClient> client;
  if (kubernetes) {  // the store is the cluster: connect first
    auto c = kube::ConnectWithOptions(connect);
    if (!c.ok()) return fail(c.status().message());
    client = std::move(c).value();
  }
  AuditDbRequest req;
  req.flag = a.audit_db;
  req.client = client.get();
  auto db = OpenAuditDb(req);
  if (!db.ok()) return fail(db.status().message());
  audit::AuditStore& store = *db->store;
  auto found = store.GetChange(a.id);
  if (!found.ok()) return fail(found.status().message());
  if (!found->has_value()) {
    return fail("no change " + a.id + " in " + db->where + " (`kubeon-gpu changes` lists them)");
  }
  audit::ChangeRecord r = **found;
  const std::string state(audit::ChangeStateName(r.state));
  if (r.state == audit::ChangeState::kExpired) {
    return fail("change " + r.id + " has expired" + (r.reason.empty() ? "" : " (" + r.reason + ")") +
                ": run `kubeon-gpu apply` to propose it again, then decide on the new proposal");
  }
  if (r.state != audit::ChangeState::kProposed && r.state != audit::ChangeState::kApproved) {
    return fail("change " + r.id + " is " + state + "; only a proposed or approved change can be " +
                (approve ? "approved" : "rejected"));
  }

  std::optional<kube::ClusterId> cluster_id;
  if (!kubernetes) {  // a SQLite log must belong to the kubeconfig's cluster (the kubernetes store is it)
    auto c = kube::ConnectWithOptions(connect);
    if (!c.ok()) return fail(c.status().message());
    client = std::move(c).value();
    auto id = kube::ClusterIdOf(*client);
    if (!id.ok()) return fail(id.status().message());
    cluster_id = *id;
  }
  auto who = kube::WhoAmI(*client);
  if (!who.ok()) return fail(who.status().message());
  if (cluster_id) {
    Status bound = store.BindCluster({cluster_id->server, cluster_id->kube_system_uid});
    if (!bound.ok()) return fail(bound.message());
  }

  if (kubernetes) {
    // The reviewer writes the annotations; the controller imports them
    // (audit/kube_approvals.h), trusting the name because the API server's
    // admission policy checked it against who wrote it.
    Status wrote = audit::WriteDecisionAnnotations(*client, r, approve, who->username, a.reason);
    if (!wrote.ok()) return fail(wrote.message());
    out << "change " << r.id << " (policy " << r.policy << "): " << (approve ? "approval" : "rejection") << " by "
        << who->username << " written to GpuChange " << r.id << " (step hash " << r.content_hash.substr(0, 16)
        << "); the controller records it in the audit log on its next pass\n";
    return 0;
  }
  // The decision itself: the same rules as the reviewer page (audit/decision.h).
  const auto ttl = std::chrono::seconds(static_cast<int64_t>(ttl_hours * 3600.0 + 0.5));
  audit::DecisionRequest decision;
  decision.kind = approve ? audit::DecisionRequest::Kind::kApprove : audit::DecisionRequest::Kind::kReject;
  decision.username = who->username;
  decision.groups = who->groups;
  decision.at = FormatRfc3339(now);
  decision.expires_at = FormatRfc3339(now + ttl);
  decision.reason = a.reason;
  auto entry = audit::DecideChange(r, decision);
  if (!entry.ok()) return fail(entry.status().message());
  const std::string detail = entry->detail;
  Status put = store.PutChange(r, r.revision);
  if (!put.ok()) return fail(put.message());
  auto seq = store.Append(*entry);
  if (!seq.ok()) return fail(seq.status().message());
  out << "change " << r.id << " (policy " << r.policy << ") " << detail << "\n";
  if (approve) {
    const Result<plan::ScheduleStep> step = StepOf(r);
    if (step.ok()) {
      for (const auto& f : step->flags) err << "note: change " << r.id << " is flagged: " << f << "\n";
    }
  }
  return 0;
}

}  // namespace

CLI::App* AddChangesCommand(CLI::App& app, ChangesArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "changes",
      "List every change (one step of a plan) recorded in the audit log: its state (proposed, approved, rejected, "
      "expired, running, done, failed, rolled-back, reverted), nodes, layout before → after, owners moved, pods "
      "evicted and disrupted, GPUs and $/month freed, isolation, flags that keep Auto from taking it, who approved it "
      "and until when, or who rejected it and why. Reads only the log; contacts the cluster only for --audit-db "
      "kubernetes.");
  AddAuditDbOption(cmd, a.audit_db);
  AddClusterFlags(cmd, a.kubeconfig, a.context);
  cmd->add_option("-o,--output", a.output, "table (default) or json");
  return cmd;
}

CLI::App* AddAuditCommand(CLI::App& app, AuditArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "audit",
      "Print the step log: every action the executor and the reviewers took (cordon, evict, label, patch-owner, "
      "rollback, approve, reject, ...) with its time, change, outcome and detail, oldest first. Reads only the log.");
  AddAuditDbOption(cmd, a.audit_db);
  AddClusterFlags(cmd, a.kubeconfig, a.context);
  cmd->add_option("-o,--output", a.output, "table (default) or json");
  cmd->add_option("--change", a.change_id, "Only the entries of this change id");
  return cmd;
}

CLI::App* AddApproveCommand(CLI::App& app, DecideArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "approve",
      "Approve a proposed change (or refresh an approval). The approver recorded is the identity the API server "
      "reports for the kubeconfig's credentials (SelfSubjectReview), not a name you type. The approval is for the "
      "step's content hash (nodes, layouts, owners, replica counts): it lapses when the next plan's step differs or "
      "after --ttl. Refuses a log that belongs to another cluster (API server URL and kube-system namespace uid), an "
      "unknown id, and a change that is not proposed or approved; then nothing is written. With --audit-db "
      "kubernetes it annotates the GpuChange (gpu.kubeon.io/approve, approved-by) for the controller to import; "
      "--ttl is then the controller's. Exit 0 approved, 1 refused or failed, 2 usage.");
  AddDecideFlags(cmd, a);
  cmd->add_option("--ttl", a.ttl, "How long the approval holds, e.g. 24h, 90m, 3d (default 24h)");
  return cmd;
}

CLI::App* AddRejectCommand(CLI::App& app, DecideArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "reject",
      "Reject a proposed change, or withdraw an approval: the executor will not take it. The reviewer recorded is "
      "the identity the API server reports for the kubeconfig's credentials (SelfSubjectReview). Refuses a log that "
      "belongs to another cluster, an unknown id, and a change that is not proposed or approved; then nothing is "
      "written. With --audit-db kubernetes it annotates the GpuChange (gpu.kubeon.io/reject, rejected-by) for the "
      "controller to import. Exit 0 rejected, 1 refused or failed, 2 usage.");
  AddDecideFlags(cmd, a);
  cmd->add_option("--reason", a.reason, "Why, recorded with the rejection");
  return cmd;
}

int RunChanges(const ChangesArgs& a, std::ostream& out, std::ostream& err) {
  if (!ValidOutput(a.output, err, "changes")) return 2;
  auto fail = [&](const Status& s) {
    err << "kubeon-gpu changes: " << OneLine(s.message()) << "\n";
    return 1;
  };
  AuditDbRequest req;
  req.flag = a.audit_db;
  req.connect.kubeconfig = a.kubeconfig;
  req.connect.context = a.context;
  req.missing_ok = true;
  auto db = OpenAuditDb(req);
  if (!db.ok()) return fail(db.status());
  std::optional<audit::ClusterIdentity> cluster;
  std::vector<audit::ChangeRecord> changes;
  if (db->store) {
    auto c = db->store->Cluster();
    if (!c.ok()) return fail(c.status());
    cluster = *c;
    auto list = db->store->ListChanges();
    if (!list.ok()) return fail(list.status());
    changes = std::move(*list);
  }
  const Clock::time_point now = a.now.value_or(Clock::now());
  if (a.output == "json") {
    json all = json::array();
    for (const auto& r : changes) all.push_back(ChangeJson(r, now));
    out << json{{"audit_db", db->flag_value}, {"cluster", ClusterJson(cluster)}, {"changes", all}}.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    out << RenderChangesTable(db->display, cluster, changes, now);
  }
  return 0;
}

int RunAudit(const AuditArgs& a, std::ostream& out, std::ostream& err) {
  if (!ValidOutput(a.output, err, "audit")) return 2;
  auto fail = [&](const std::string& message) {
    err << "kubeon-gpu audit: " << OneLine(message) << "\n";
    return 1;
  };
  AuditDbRequest req;
  req.flag = a.audit_db;
  req.connect.kubeconfig = a.kubeconfig;
  req.connect.context = a.context;
  req.missing_ok = a.change_id.empty();
  auto db = OpenAuditDb(req);
  if (!db.ok()) return fail(db.status().message());
  audit::AuditStore* store = db->store.get();
  std::optional<audit::ClusterIdentity> cluster;
  std::vector<audit::LogEntry> entries;
  if (store) {
    auto c = store->Cluster();
    if (!c.ok()) return fail(c.status().message());
    cluster = *c;
    auto log = store->Log(a.change_id);
    if (!log.ok()) return fail(log.status().message());
    entries = std::move(*log);
    if (!a.change_id.empty() && entries.empty()) {
      auto found = store->GetChange(a.change_id);
      if (!found.ok()) return fail(found.status().message());
      if (!found->has_value()) {
        return fail("no change " + a.change_id + " in " + db->where + " (`kubeon-gpu changes` lists them)");
      }
    }
  }
  if (a.output == "json") {
    json all = json::array();
    for (const auto& e : entries) {
      json data = json::parse(e.data_json, nullptr, /*allow_exceptions=*/false);
      if (data.is_discarded()) data = e.data_json;
      all.push_back({{"seq", e.seq},
                     {"time", e.time},
                     {"change", e.change_id},
                     {"action", e.action},
                     {"outcome", e.outcome},
                     {"detail", e.detail},
                     {"data", data}});
    }
    out << json{{"audit_db", db->flag_value}, {"cluster", ClusterJson(cluster)}, {"entries", all}}.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return 0;
  }
  out << "Audit log " << db->display << ", " << ClusterLine(cluster) << "\n\n";
  if (entries.empty()) {
    out << "No entries.\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{"SEQ", "TIME", "CHANGE", "ACTION", "OUTCOME", "DETAIL"}};
  for (const auto& e : entries) {
    rows.push_back({std::to_string(e.seq), e.time, e.change_id.empty() ? "-" : e.change_id, e.action, e.outcome,
                    OneLine(e.detail)});
  }
  out << Table(rows);
  return 0;
}

int RunApprove(const DecideArgs& a, std::ostream& out, std::ostream& err) { return Decide(a, true, out, err); }
int RunReject(const DecideArgs& a, std::ostream& out, std::ostream& err) { return Decide(a, false, out, err); }

}  // namespace kubeon::cli
