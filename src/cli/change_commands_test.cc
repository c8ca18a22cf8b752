// Tests of `changes`, `audit`, `approve` and `reject` (change_commands.h)
// against a temporary SQLite audit log and, for approve/reject, an
// in-process HTTPS API server (kube/test_server.h) that answers
// SelfSubjectReview with the user of each bearer token and serves the
// kube-system namespace: what the commands print, what they record, and
// that every refusal is one line, exit 1, with the log unchanged.
#include "cli/change_commands.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "audit/sqlite_store.h"
#include "plan/plan.h"
#include "plan/schedule_json.h"
#include "kube/test_server.h"

#ifdef KUBE_SIM_BINARY
#include "audit/kube_approvals.h"
#include "audit/kube_sim_support.h"
#include "audit/kube_store.h"
#include "kube/sim_process.h"
#endif

namespace kubeon::cli {
namespace {

using json = nlohmann::json;
using kube::testing::TempDir;
using kube::testing::TestPki;
using kube::testing::TestServer;
using Clock = std::chrono::system_clock;

// 2026-12-03T10:00:00Z
const Clock::time_point kNow = Clock::from_time_t(1796292000);

// A step as the planner writes it (plan/schedule_json.h).
json StepJson(const std::string& id, int index) {
  plan::ScheduleStep st;
  st.index = index;
  st.id = id;
  st.content_hash = id + "00112233445566778899aabbccddeeff00112233445566778899aabb";  // 64 hex
  st.gpu_model = "NVIDIA-A100-SXM4-40GB";
  st.method = "mig";
  st.nodes = {"gpu-a"};
  st.labels_after = {{"gpu-a", {{"nvidia.com/mig.config", "kubeon-0123456789"}}}};
  st.layout_before = {{"gpu-a", "8 whole GPUs (MIG off)"}};
  st.layout_after = {{"gpu-a", "GPU0-3: 7x1g.5gb; GPU4-7: whole"}};
  plan::StepEviction e;
  e.pod = "ml/embed-1";
  e.owner = "Deployment/embed";
  e.resource = "nvidia.com/gpu";
  e.count = 1;
  e.runs_meanwhile = "gpu-b";
  st.evictions = {e};
  plan::StepOwnerMove o;
  o.owner = {"ml", "Deployment", "embed"};
  o.replicas = 3;
  o.from_resource = "nvidia.com/gpu";
  o.from_per_pod = 1;
  o.to_resource = "nvidia.com/mig-1g.5gb";
  o.to_per_pod = 1;
  o.strategy = "RollingUpdate";
  o.pdb = "ml/embed-pdb";
  st.owners = {o};
  st.disrupted = {{"ml/train-0", "StatefulSet/train", "GPU reset; comes back"}};
  st.nodes_freed = {"gpu-c"};
  st.gpus_freed = 2;
  st.monthly_savings_usd = 4380.5;
  st.isolation = "MIG: separate memory and compute per slice";
  st.estimated_seconds = 600;
  return plan::StepToJson(st);
}

audit::ChangeRecord Change(const std::string& id, int index, audit::ChangeState state) {
  audit::ChangeRecord r;
  r.id = id;
  r.policy = "gpu-sharing";
  const json step = StepJson(id, index);
  r.content_hash = step["content_hash"];
  r.step_json = step.dump();
  r.state = state;
  r.created_at = "2026-12-03T09:00:00Z";
  r.updated_at = r.created_at;
  return r;
}

// The store's whole content, for "nothing changed" checks.
std::string Dump(const std::string& path) {
  auto store = audit::SqliteAuditStore::Open(path);
  if (!store.ok()) return "error: " + store.status().message();
  std::ostringstream out;
  auto c = (*store)->Cluster();
  if (c.ok() && c->has_value()) out << (*c)->server << " " << (*c)->kube_system_uid << "\n";
  auto changes = (*store)->ListChanges();
  auto log = (*store)->Log("");
  if (!changes.ok() || !log.ok()) return "error reading";
  for (const auto& r : changes.value()) {
    out << r.id << " " << audit::ChangeStateName(r.state) << " " << r.revision << " " << r.approved_by << " "
        << r.approval_expires_at << " " << r.rejected_by << " " << r.reason << "\n";
  }
  for (const auto& e : log.value()) out << e.seq << " " << e.action << " " << e.detail << "\n";
  return out.str();
}

class ChangeCommandsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = kube::testing::SharedTestPki();
    ASSERT_TRUE(pki_) << "openssl: cannot create the test PKI";
  }

  void SetUp() override {
    db_ = dir_.File("state/audit.db");
    auto store = audit::SqliteAuditStore::Open(db_);
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
  }

  // Starts the API server; users maps bearer token -> username.
  void StartServer(std::map<std::string, std::string> users) {
    server_ = std::make_unique<TestServer>(*pki_);
    server_->http().Post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                         [this, users](const httplib::Request& req, httplib::Response& res) {
                           const std::string auth = req.get_header_value("Authorization");
                           std::lock_guard<std::mutex> lock(mu_);
                           if (forbid_review_) {
                             res.status = 403;
                             res.set_content(json{{"kind", "Status"}, {"code", 403}, {"reason", "Forbidden"},
                                                  {"message", "denied by policy"}}
                                                 .dump(),
                                             "application/json");
                             return;
                           }
                           auto it = users.find(auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : "");
                           if (it == users.end()) {
                             res.status = 401;
                             res.set_content(R"({"kind":"Status","code":401,"reason":"Unauthorized"})",
                                             "application/json");
                             return;
                           }
                           res.status = 201;
                           res.set_content(json{{"kind", "SelfSubjectReview"},
                                                {"apiVersion", "authentication.k8s.io/v1"},
                                                {"status",
                                                 {{"userInfo",
                                                   {{"username", it->second},
                                                    {"groups", {"reviewers", "system:authenticated"}}}}}}}
                                               .dump(),
                                           "application/json");
                         });
    server_->http().Get("/api/v1/namespaces/kube-system", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      res.set_content(json{{"kind", "Namespace"}, {"metadata", {{"name", "kube-system"}, {"uid", kube_system_uid_}}}}
                          .dump(),
                      "application/json");
    });
    ASSERT_TRUE(server_->Start());
  }

  std::string Kubeconfig(const std::string& token) {
    const std::string path = dir_.File(token + ".kubeconfig");
    kube::testing::WriteText(path, "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                                   "clusters:\n- name: k\n  cluster:\n    server: " +
                                       server_->url() + "\n    certificate-authority-data: " +
                                       kube::testing::Base64(pki_->ca_pem) +
                                       "\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
                                       "users:\n- name: u\n  user:\n    token: " +
                                       token + "\n");
    return path;
  }

  DecideArgs Decide(const std::string& id, const std::string& token) {
    DecideArgs a;
    a.id = id;
    a.kubeconfig = Kubeconfig(token);
    a.audit_db = db_;
    a.now = kNow;
    return a;
  }

  static const TestPki* pki_;
  TempDir dir_;
  std::string db_;
  std::unique_ptr<audit::AuditStore> store_;
  std::unique_ptr<TestServer> server_;
  std::mutex mu_;
  std::string kube_system_uid_ = "ks-uid-1";
  bool forbid_review_ = false;
};

const TestPki* ChangeCommandsTest::pki_ = nullptr;

TEST_F(ChangeCommandsTest, ChangesTableShowsEachStepAndItsDecision) {
  ASSERT_TRUE(store_->BindCluster({"https://k.example", "ks-uid-1"}).ok());
  audit::ChangeRecord proposed = Change("aa11bb22", 1, audit::ChangeState::kProposed);
  audit::ChangeRecord approved = Change("cc33dd44", 2, audit::ChangeState::kApproved);
  approved.approved_by = "alice";
  approved.approved_at = "2026-12-03T08:00:00Z";
  approved.approval_expires_at = "2026-12-04T08:00:00Z";
  approved.approved_hash = approved.content_hash;
  audit::ChangeRecord lapsed = Change("ee55ff66", 3, audit::ChangeState::kApproved);
  lapsed.approved_by = "alice";
  lapsed.approved_at = "2026-12-02T08:00:00Z";
  lapsed.approval_expires_at = "2026-12-03T08:00:00Z";
  lapsed.approved_hash = lapsed.content_hash;
  audit::ChangeRecord rejected = Change("0a0b0c0d", 4, audit::ChangeState::kRejected);
  rejected.rejected_by = "bob";
  rejected.reason = "not during the release";
  for (const auto& r : {proposed, approved, lapsed, rejected}) ASSERT_TRUE(store_->PutChange(r, 0).ok());

  ChangesArgs a;
  a.audit_db = db_;
  a.now = kNow;
  std::ostringstream out, err;
  ASSERT_EQ(RunChanges(a, out, err), 0) << err.str();
  EXPECT_EQ(err.str(), "");
  const std::string t = out.str();
  EXPECT_NE(t.find("Audit log " + db_ + ", cluster https://k.example (kube-system uid ks-uid-1)"), std::string::npos)
      << t;
  EXPECT_NE(t.find("ID        POLICY       STATE     NODES  GPUS FREED  SAVED/MONTH  DISRUPTS  FLAGS  DECISION"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("aa11bb22  gpu-sharing  proposed  gpu-a  2           $4,380.50    1         0      -\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("approved by alice until 2026-12-04T08:00:00Z"), std::string::npos) << t;
  EXPECT_NE(t.find("approved by alice, expired 2026-12-03T08:00:00Z"), std::string::npos) << t;
  EXPECT_NE(t.find("rejected by bob"), std::string::npos) << t;
  EXPECT_NE(t.find("Change aa11bb22: proposed (policy gpu-sharing, step 1, NVIDIA-A100-SXM4-40GB, mig)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  layout:    gpu-a: 8 whole GPUs (MIG off) → GPU0-3: 7x1g.5gb; GPU4-7: whole\n"), std::string::npos)
      << t;
  EXPECT_NE(t.find("  moves:     ml/embed (Deployment, 3 replicas): nvidia.com/gpu x1 → nvidia.com/mig-1g.5gb x1, "
                   "RollingUpdate, PDB ml/embed-pdb\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  evicts:    ml/embed-1 (Deployment/embed), runs meanwhile on gpu-b\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  disrupts:  ml/train-0 (StatefulSet/train): GPU reset; comes back\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  frees:     2 GPUs, $4,380.50/month (nodes freed: gpu-c)\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  isolation: MIG: separate memory and compute per slice\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  rejected:  by bob: not during the release\n"), std::string::npos) << t;
  // Oldest first.
  EXPECT_LT(t.find("Change aa11bb22"), t.find("Change cc33dd44"));
  EXPECT_LT(t.find("Change ee55ff66"), t.find("Change 0a0b0c0d"));
}

TEST_F(ChangeCommandsTest, ChangesJsonCarriesTheStepAndTheApproval) {
  audit::ChangeRecord r = Change("cc33dd44", 1, audit::ChangeState::kApproved);
  r.approved_by = "alice";
  r.approved_at = "2026-12-03T08:00:00Z";
  r.approval_expires_at = "2026-12-03T09:59:59Z";
  r.approved_hash = "an-earlier-hash";
  ASSERT_TRUE(store_->PutChange(r, 0).ok());
  ChangesArgs a;
  a.audit_db = db_;
  a.output = "json";
  a.now = kNow;
  std::ostringstream out, err;
  ASSERT_EQ(RunChanges(a, out, err), 0) << err.str();
  const json j = json::parse(out.str());
  EXPECT_EQ(j["audit_db"], db_);
  EXPECT_TRUE(j["cluster"].is_null());
  ASSERT_EQ(j["changes"].size(), 1u);
  const json& c = j["changes"][0];
  EXPECT_EQ(c["id"], "cc33dd44");
  EXPECT_EQ(c["state"], "approved");
  EXPECT_EQ(c["revision"], 1);
  EXPECT_EQ(c["approval"]["by"], "alice");
  EXPECT_EQ(c["approval"]["expired"], true);
  EXPECT_EQ(c["approval"]["matches_step"], false);
  EXPECT_TRUE(c["rejected_by"].is_null());
  EXPECT_EQ(c["step"], StepJson("cc33dd44", 1));
  EXPECT_EQ(c["attempt"], 1);
  EXPECT_EQ(c["attempts"], json::array());
}

// A step tried again after a rollback lists its earlier attempts.
TEST_F(ChangeCommandsTest, ChangesShowTheEarlierAttemptsOfARetriedStep) {
  audit::ChangeRecord r = Change("cc33dd44", 1, audit::ChangeState::kProposed);
  r.undo_json = R"({"version":2,"attempts":[{"number":1,"ended_at":"2026-12-03T08:00:00Z",)"
                R"("cause":"mig-manager reported failed on node n1"}]})";
  ASSERT_TRUE(store_->PutChange(r, 0).ok());
  ChangesArgs a;
  a.audit_db = db_;
  a.now = kNow;
  std::ostringstream out, err;
  ASSERT_EQ(RunChanges(a, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("  attempt 1: rolled back at 2026-12-03T08:00:00Z: mig-manager reported failed on node n1\n"
                           "  attempt:   2 (this one)\n"),
            std::string::npos)
      << out.str();
  a.output = "json";
  std::ostringstream js;
  ASSERT_EQ(RunChanges(a, js, err), 0) << err.str();
  const json c = json::parse(js.str())["changes"][0];
  EXPECT_EQ(c["attempt"], 2);
  EXPECT_EQ(c["attempts"][0]["cause"], "mig-manager reported failed on node n1");
}

TEST_F(ChangeCommandsTest, AStepThatDoesNotReadIsShownAsSuch) {
  audit::ChangeRecord r = Change("aa11bb22", 1, audit::ChangeState::kProposed);
  r.step_json = R"({"id": "aa11bb22", "gpus_freed": "two"})";
  ASSERT_TRUE(store_->PutChange(r, 0).ok());
  ChangesArgs a;
  a.audit_db = db_;
  std::ostringstream out, err;
  ASSERT_EQ(RunChanges(a, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("aa11bb22  gpu-sharing  proposed  ?"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  step:      unreadable: step JSON of change aa11bb22: gpus_freed"), std::string::npos)
      << out.str();
  a.output = "json";
  std::ostringstream jout;
  ASSERT_EQ(RunChanges(a, jout, err), 0) << err.str();
  const json c = json::parse(jout.str())["changes"][0];
  EXPECT_TRUE(c["step"].is_null());
  EXPECT_NE(c["step_error"].get<std::string>().find("gpus_freed"), std::string::npos);
}

TEST_F(ChangeCommandsTest, ChangesOfALogNotYetWrittenListNothing) {
  ChangesArgs a;
  a.audit_db = dir_.File("never/audit.db");
  std::ostringstream out, err;
  ASSERT_EQ(RunChanges(a, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("No changes recorded."), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.File("never")));  // reading creates nothing
}

TEST_F(ChangeCommandsTest, UnreadableLogIsOneLineAndExit1) {
  const std::string bad = dir_.File("bad.db");
  kube::testing::WriteText(bad, "garbage, not SQLite");
  for (const std::string output : {"table", "json"}) {
    ChangesArgs a;
    a.audit_db = bad;
    a.output = output;
    std::ostringstream out, err;
    EXPECT_EQ(RunChanges(a, out, err), 1);
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str(), "kubeon-gpu changes: audit db " + bad + ": cannot read: file is not a database\n");
  }
  AuditArgs l;
  l.audit_db = bad;
  std::ostringstream out, err;
  EXPECT_EQ(RunAudit(l, out, err), 1);
  EXPECT_EQ(err.str(), "kubeon-gpu audit: audit db " + bad + ": cannot read: file is not a database\n");
  EXPECT_EQ(kube::testing::ReadText(bad), "garbage, not SQLite");
}

TEST_F(ChangeCommandsTest, AuditPrintsTheLogAndFiltersByChange) {
  ASSERT_TRUE(store_->PutChange(Change("aa11bb22", 1, audit::ChangeState::kRunning), 0).ok());
  auto entry = [&](const std::string& change, const std::string& action, const std::string& outcome,
                   const std::string& detail) {
    audit::LogEntry e;
    e.time = "2026-12-03T10:00:0" + std::to_string(store_->Log("")->size()) + "Z";
    e.change_id = change;
    e.action = action;
    e.outcome = outcome;
    e.detail = detail;
    e.data_json = R"({"node":"gpu-a"})";
    ASSERT_TRUE(store_->Append(e).ok());
  };
  entry("", "run", "ok", "apply started");
  entry("aa11bb22", "cordon", "intent", "node gpu-a");
  entry("aa11bb22", "cordon", "ok", "node gpu-a");
  entry("ffff0000", "cordon", "ok", "node gpu-z");

  AuditArgs a;
  a.audit_db = db_;
  std::ostringstream out, err;
  ASSERT_EQ(RunAudit(a, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("SEQ  TIME                  CHANGE    ACTION  OUTCOME  DETAIL\n"
                           "1    2026-12-03T10:00:00Z  -         run     ok       apply started\n"
                           "2    2026-12-03T10:00:01Z  aa11bb22  cordon  intent   node gpu-a\n"),
            std::string::npos)
      << out.str();

  a.change_id = "aa11bb22";
  a.output = "json";
  std::ostringstream jout;
  ASSERT_EQ(RunAudit(a, jout, err), 0) << err.str();
  const json j = json::parse(jout.str());
  ASSERT_EQ(j["entries"].size(), 2u);
  EXPECT_EQ(j["entries"][1]["seq"], 3);
  EXPECT_EQ(j["entries"][1]["outcome"], "ok");
  EXPECT_EQ(j["entries"][1]["data"]["node"], "gpu-a");

  a.change_id = "12345678";
  std::ostringstream none_out, none_err;
  EXPECT_EQ(RunAudit(a, none_out, none_err), 1);
  EXPECT_EQ(none_err.str(),
            "kubeon-gpu audit: no change 12345678 in audit db " + db_ + " (`kubeon-gpu changes` lists them)\n");
}

TEST_F(ChangeCommandsTest, ApproveRecordsTheServersIdentityAndTheStepHash) {
  ASSERT_TRUE(store_->PutChange(Change("aa11bb22", 1, audit::ChangeState::kProposed), 0).ok());
  StartServer({{"alice-token", "alice"}});
  std::ostringstream out, err;
  ASSERT_EQ(RunApprove(Decide("aa11bb22", "alice-token"), out, err), 0) << err.str();
  EXPECT_EQ(out.str(),
            "change aa11bb22 (policy gpu-sharing) approved by alice until 2026-12-04T10:00:00Z (step hash "
            "aa11bb2200112233)\n");
  auto r = store_->GetChange("aa11bb22");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->state, audit::ChangeState::kApproved);
  EXPECT_EQ((*r)->approved_by, "alice");
  EXPECT_EQ((*r)->approved_at, "2026-12-03T10:00:00Z");
  EXPECT_EQ((*r)->approval_expires_at, "2026-12-04T10:00:00Z");
  EXPECT_EQ((*r)->approved_hash, (*r)->content_hash);
  EXPECT_EQ((*r)->revision, 2);
  // The log is bound to the server's cluster and records the decision.
  auto cluster = store_->Cluster();
  ASSERT_TRUE(cluster.ok() && cluster->has_value());
  EXPECT_EQ((*cluster)->server, server_->url());
  EXPECT_EQ((*cluster)->kube_system_uid, "ks-uid-1");
  auto log = store_->Log("aa11bb22");
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].action, "approve");
  EXPECT_EQ((*log)[0].outcome, "ok");
  EXPECT_EQ((*log)[0].time, "2026-12-03T10:00:00Z");
  const json data = json::parse((*log)[0].data_json);
  EXPECT_EQ(data["user"], "alice");
  EXPECT_EQ(data["groups"], json({"reviewers", "system:authenticated"}));
  EXPECT_EQ(data["approved_hash"], (*r)->content_hash);
}

TEST_F(ChangeCommandsTest, ApprovingAFlaggedStepNamesTheFlags) {
  audit::ChangeRecord r = Change("aa11bb22", 1, audit::ChangeState::kProposed);
  json step = json::parse(r.step_json);
  step["flags"] = {"ml/embed: Recreate rollout exceeds PDB ml/embed-pdb (0 disruptions allowed)"};
  r.step_json = step.dump();
  ASSERT_TRUE(store_->PutChange(r, 0).ok());
  StartServer({{"alice-token", "alice"}});
  std::ostringstream out, err;
  ASSERT_EQ(RunApprove(Decide("aa11bb22", "alice-token"), out, err), 0) << err.str();
  EXPECT_EQ(err.str(),
            "note: change aa11bb22 is flagged: ml/embed: Recreate rollout exceeds PDB ml/embed-pdb (0 disruptions "
            "allowed)\n");
  EXPECT_EQ((*store_->GetChange("aa11bb22"))->state, audit::ChangeState::kApproved);
}

TEST_F(ChangeCommandsTest, ReapprovalRefreshesAndRejectionWithdrawsIt) {
  ASSERT_TRUE(store_->PutChange(Change("aa11bb22", 1, audit::ChangeState::kProposed), 0).ok());
  StartServer({{"alice-token", "alice"}, {"bob-token", "bob"}});
  std::ostringstream out, err;
  ASSERT_EQ(RunApprove(Decide("aa11bb22", "alice-token"), out, err), 0) << err.str();
  DecideArgs again = Decide("aa11bb22", "bob-token");
  again.ttl = "90m";
  again.now = kNow + std::chrono::hours(1);
  ASSERT_EQ(RunApprove(again, out, err), 0) << err.str();
  auto r = store_->GetChange("aa11bb22");
  EXPECT_EQ((*r)->approved_by, "bob");
  EXPECT_EQ((*r)->approved_at, "2026-12-03T11:00:00Z");
  EXPECT_EQ((*r)->approval_expires_at, "2026-12-03T12:30:00Z");

  DecideArgs no = Decide("aa11bb22", "alice-token");
  no.reason = "freeze week";
  std::ostringstream rout;
  ASSERT_EQ(RunReject(no, rout, err), 0) << err.str();
  EXPECT_EQ(rout.str(), "change aa11bb22 (policy gpu-sharing) rejected by alice: freeze week\n");
  r = store_->GetChange("aa11bb22");
  EXPECT_EQ((*r)->state, audit::ChangeState::kRejected);
  EXPECT_EQ((*r)->rejected_by, "alice");
  EXPECT_EQ((*r)->reason, "freeze week");
  EXPECT_EQ((*r)->approved_by, "");
  EXPECT_EQ((*r)->approved_hash, "");
  auto log = store_->Log("aa11bb22");
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ((*log)[0].action, "approve");
  EXPECT_EQ((*log)[1].detail, "approved by bob until 2026-12-03T12:30:00Z (step hash aa11bb2200112233)");
  EXPECT_EQ((*log)[2].action, "reject");
  EXPECT_EQ((*log)[2].detail, "rejected by alice: freeze week");

  // Rejected is final for approve.
  std::ostringstream fout, ferr;
  EXPECT_EQ(RunApprove(Decide("aa11bb22", "bob-token"), fout, ferr), 1);
  EXPECT_EQ(ferr.str(), "kubeon-gpu approve: change aa11bb22 is rejected; only a proposed or approved change can be "
                        "approved\n");
}

// An id that is not a change id (8 hex digits) never reaches the store or
// an API path: "af1c4ed0?dryRun=All" once annotated change af1c4ed0.
TEST_F(ChangeCommandsTest, IdsThatAreNotChangeIdsAreUsageErrors) {
  ASSERT_TRUE(store_->PutChange(Change("af1c4ed0", 1, audit::ChangeState::kProposed), 0).ok());
  StartServer({{"alice-token", "alice"}});
  const std::string before = Dump(db_);
  for (const std::string id : {"af1c4ed0?dryRun=All", "af1c4ed0#x", "af1c4ed0/status", "AF1C4ED0", "af1c4ed", ""}) {
    for (bool approve : {true, false}) {
      std::ostringstream out, err;
      const DecideArgs a = Decide(id, "alice-token");
      EXPECT_EQ(approve ? RunApprove(a, out, err) : RunReject(a, out, err), 2) << id;
      EXPECT_EQ(out.str(), "");
      EXPECT_EQ(err.str(), std::string("kubeon-gpu ") + (approve ? "approve" : "reject") + ": change id \"" + id +
                               "\" is not 8 hexadecimal digits (kubeon-gpu changes lists them)\n");
    }
  }
  EXPECT_EQ(Dump(db_), before);
}

TEST_F(ChangeCommandsTest, RefusalsAreOneLineAndWriteNothing) {
  audit::ChangeRecord done = Change("d0d0d0d0", 1, audit::ChangeState::kDone);
  audit::ChangeRecord expired = Change("e0e0e0e0", 2, audit::ChangeState::kExpired);
  expired.reason = "the next plan's step differs";
  audit::ChangeRecord proposed = Change("aa11bb22", 3, audit::ChangeState::kProposed);
  for (const auto& r : {done, expired, proposed}) ASSERT_TRUE(store_->PutChange(r, 0).ok());
  StartServer({{"alice-token", "alice"}});
  ASSERT_TRUE(store_->BindCluster({server_->url(), "ks-uid-1"}).ok());
  const std::string before = Dump(db_);

  struct Case {
    std::string id;
    bool approve;
    std::string expect;
  };
  const Case cases[] = {
      {"99999999", true, "kubeon-gpu approve: no change 99999999 in audit db " + db_ + " (`kubeon-gpu changes` lists them)\n"},
      {"99999999", false, "kubeon-gpu reject: no change 99999999 in audit db " + db_ + " (`kubeon-gpu changes` lists them)\n"},
      {"d0d0d0d0", true, "kubeon-gpu approve: change d0d0d0d0 is done; only a proposed or approved change can be approved\n"},
      {"d0d0d0d0", false, "kubeon-gpu reject: change d0d0d0d0 is done; only a proposed or approved change can be rejected\n"},
      {"e0e0e0e0", true, "kubeon-gpu approve: change e0e0e0e0 has expired (the next plan's step differs): run "
                         "`kubeon-gpu apply` to propose it again, then decide on the new proposal\n"},
  };
  for (const Case& c : cases) {
    std::ostringstream out, err;
    const DecideArgs a = Decide(c.id, "alice-token");
    EXPECT_EQ(c.approve ? RunApprove(a, out, err) : RunReject(a, out, err), 1) << c.id;
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str(), c.expect);
  }
  // Unknown credentials: the API server's 401 is the error.
  {
    std::ostringstream out, err;
    EXPECT_EQ(RunApprove(Decide("aa11bb22", "mallory-token"), out, err), 1);
    EXPECT_EQ(err.str().rfind("kubeon-gpu approve: who am I: unauthorized", 0), 0u) << err.str();
    EXPECT_EQ(err.str().find("mallory-token"), std::string::npos);
  }
  // SelfSubjectReview forbidden.
  {
    {
      std::lock_guard<std::mutex> lock(mu_);
      forbid_review_ = true;
    }
    std::ostringstream out, err;
    EXPECT_EQ(RunReject(Decide("aa11bb22", "alice-token"), out, err), 1);
    EXPECT_EQ(err.str().rfind("kubeon-gpu reject: who am I: forbidden", 0), 0u) << err.str();
    std::lock_guard<std::mutex> lock(mu_);
    forbid_review_ = false;
  }
  // A log of another cluster: same URL, another kube-system namespace.
  {
    {
      std::lock_guard<std::mutex> lock(mu_);
      kube_system_uid_ = "ks-uid-rebuilt";
    }
    std::ostringstream out, err;
    EXPECT_EQ(RunApprove(Decide("aa11bb22", "alice-token"), out, err), 1);
    EXPECT_EQ(err.str(), "kubeon-gpu approve: audit log " + db_ + " belongs to cluster " + server_->url() +
                             " (kube-system uid ks-uid-1), not " + server_->url() +
                             " (kube-system uid ks-uid-rebuilt)\n");
  }
  // Bad TTL is a usage error.
  {
    DecideArgs a = Decide("aa11bb22", "alice-token");
    a.ttl = "soon";
    std::ostringstream out, err;
    EXPECT_EQ(RunApprove(a, out, err), 2);
  }
  // A log that does not exist is not created.
  {
    DecideArgs a = Decide("aa11bb22", "alice-token");
    a.audit_db = dir_.File("nowhere/audit.db");
    std::ostringstream out, err;
    EXPECT_EQ(RunApprove(a, out, err), 1);
    EXPECT_EQ(err.str().rfind("kubeon-gpu approve: audit db " + a.audit_db + ": does not exist", 0), 0u) << err.str();
    EXPECT_FALSE(std::filesystem::exists(dir_.File("nowhere")));
  }
  EXPECT_EQ(Dump(db_), before);
}

#ifdef KUBE_SIM_BINARY
// Two reviewers on kube-sim: alice (a token) approves one change, bob (a
// client certificate) rejects the other; each is recorded as the simulated
// API server names them, and the log is bound to that cluster.
TEST_F(ChangeCommandsTest, TwoReviewersOnKubeSim) {
  kube::testing::SimProcess sim;
  kube::testing::SimClusterShape shape;
  shape.nodes = 2;
  shape.deployments = 2;
  shape.pods_per_deployment = 1;
  // kube-sim enforces RBAC: the reviewers may read (the cluster identity is namespace kube-system's uid).
  Status started = sim.Start(KUBE_SIM_BINARY,
                             kube::testing::WithClusterRoleBinding(kube::testing::MakeSimCluster(shape),
                                                                   "reviewers-view", "view", "Group", "reviewers"),
                             120000,
                             {{"users", {{{"name", "alice"}, {"groups", {"reviewers"}}, {"token", "alice-token"}},
                                         {{"name", "bob"}, {"groups", {"reviewers"}}}}}});
  ASSERT_TRUE(started.ok()) << started.message();
  ASSERT_TRUE(store_->PutChange(Change("aa11bb22", 1, audit::ChangeState::kProposed), 0).ok());
  ASSERT_TRUE(store_->PutChange(Change("cc33dd44", 2, audit::ChangeState::kProposed), 0).ok());
  auto decide = [&](const std::string& id, const std::string& user) {
    DecideArgs a;
    a.id = id;
    a.kubeconfig = sim.user_kubeconfig(user);
    a.audit_db = db_;
    a.now = kNow;
    a.reason = "not this week";
    return a;
  };
  std::ostringstream out, err;
  ASSERT_EQ(RunApprove(decide("aa11bb22", "alice"), out, err), 0) << err.str();
  ASSERT_EQ(RunReject(decide("cc33dd44", "bob"), out, err), 0) << err.str();
  EXPECT_EQ(out.str(),
            "change aa11bb22 (policy gpu-sharing) approved by alice until 2026-12-04T10:00:00Z (step hash "
            "aa11bb2200112233)\n"
            "change cc33dd44 (policy gpu-sharing) rejected by bob: not this week\n");
  EXPECT_EQ((*store_->GetChange("aa11bb22"))->approved_by, "alice");
  EXPECT_EQ((*store_->GetChange("cc33dd44"))->rejected_by, "bob");
  auto cluster = store_->Cluster();
  ASSERT_TRUE(cluster.ok() && cluster->has_value());
  EXPECT_EQ((*cluster)->server, sim.url());
  EXPECT_FALSE((*cluster)->kube_system_uid.empty());
  const json bob_said = json::parse((*store_->Log("cc33dd44"))[0].data_json);
  EXPECT_EQ(bob_said["groups"], json({"reviewers", "system:authenticated"}));

  // A log of another cluster: the same log against a second simulator.
  kube::testing::SimProcess other;
  ASSERT_TRUE(other.Start(KUBE_SIM_BINARY, kube::testing::MakeSimCluster(shape)).ok());
  const std::string before = Dump(db_);
  DecideArgs a = decide("aa11bb22", "alice");
  a.kubeconfig = other.token_kubeconfig();
  std::ostringstream oout, oerr;
  EXPECT_EQ(RunApprove(a, oout, oerr), 1);
  EXPECT_EQ(oerr.str().rfind("kubeon-gpu approve: audit log " + db_ + " belongs to cluster " + sim.url(), 0), 0u)
      << oerr.str();
  EXPECT_EQ(Dump(db_), before);
}
#endif

#ifdef KUBE_SIM_BINARY
// --audit-db kubernetes: the same commands on the cluster's GpuChange objects
// in kube-sim; alice (a token, group reviewers) approves by annotation.
TEST(ChangeCommandsKubernetesTest, ChangesAuditAndApproveOnTheClustersStore) {
  auto sim = audit::testing::KubeSimAudit::Start(
      KUBE_SIM_BINARY, {{"users", {{{"name", "alice"}, {"groups", {"reviewers"}}, {"token", "alice-token"}}}}});
  if (!sim) GTEST_SKIP() << "kube-sim audit store not available (deploy/crd-gpuchange.yaml or kubectl missing)";
  auto admin = sim->Connect();
  ASSERT_TRUE(admin);
  // What a reviewer may do (where kube-sim enforces RBAC): read and patch
  // gpuchanges, read the store's ConfigMap and the kube-system namespace.
  const json rules = {
      {{"apiGroups", {"gpu.kubeon.io"}}, {"resources", {"gpuchanges"}}, {"verbs", {"get", "list", "watch", "patch"}}},
      {{"apiGroups", {""}}, {"resources", {"configmaps", "namespaces"}}, {"verbs", {"get"}}}};
  auto role = admin->Create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
                             {"metadata", {{"name", "test-reviewer"}}}, {"rules", rules}});
  if (role.ok()) {
    auto bound = admin->Create(
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
         {"metadata", {{"name", "test-reviewer"}}},
         {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "test-reviewer"}}},
         {"subjects", {{{"kind", "Group"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", "reviewers"}}}}});
    ASSERT_TRUE(bound.ok()) << bound.error().ToString();
  } else {
    ASSERT_EQ(role.error().http_status, 404) << role.error().ToString();  // this kube-sim has no RBAC
  }
  audit::KubeAuditStore store(*admin, audit::KubeAuditStore::Options());
  Status put = store.PutChange(Change("aa11bb22", 1, audit::ChangeState::kProposed), 0);
  ASSERT_TRUE(put.ok()) << put.message();
  ASSERT_TRUE(store.PutChange(Change("cc33dd44", 2, audit::ChangeState::kDone), 0).ok());
  audit::LogEntry e;
  e.time = "2026-12-03T09:30:00Z";
  e.change_id = "cc33dd44";
  e.action = "cordon";
  e.outcome = "ok";
  e.detail = "node gpu-a";
  e.data_json = R"({"node":"gpu-a"})";
  ASSERT_TRUE(store.Append(e).ok());

  ChangesArgs c;
  c.audit_db = "kubernetes";
  c.kubeconfig = sim->Kubeconfig("alice");
  c.now = kNow;
  c.output = "json";
  std::ostringstream cout_, cerr_;
  ASSERT_EQ(RunChanges(c, cout_, cerr_), 0) << cerr_.str();
  const json listed = json::parse(cout_.str());
  EXPECT_EQ(listed["audit_db"], "kubernetes");
  ASSERT_EQ(listed["changes"].size(), 2u);
  EXPECT_EQ(listed["changes"][0]["id"], "aa11bb22");
  EXPECT_EQ(listed["changes"][0]["state"], "proposed");
  EXPECT_EQ(listed["changes"][1]["state"], "done");
  EXPECT_EQ(listed["changes"][1]["step"]["nodes"], json({"gpu-a"}));
  c.output = "table";
  std::ostringstream table, terr;
  ASSERT_EQ(RunChanges(c, table, terr), 0) << terr.str();
  EXPECT_EQ(table.str().rfind("Audit log kubernetes (the cluster's GpuChange objects), no cluster recorded yet\n", 0),
            0u)
      << table.str();

  AuditArgs a;
  a.audit_db = "kubernetes";
  a.kubeconfig = sim->Kubeconfig("alice");
  a.change_id = "cc33dd44";
  std::ostringstream aout, aerr;
  ASSERT_EQ(RunAudit(a, aout, aerr), 0) << aerr.str();
  EXPECT_NE(aout.str().find("cordon"), std::string::npos) << aout.str();
  a.change_id = "ffffffff";
  std::ostringstream nout, nerr;
  EXPECT_EQ(RunAudit(a, nout, nerr), 1);
  EXPECT_EQ(nerr.str(),
            "kubeon-gpu audit: no change ffffffff in the cluster's GpuChange objects (`kubeon-gpu changes` lists "
            "them)\n");

  DecideArgs d;
  d.id = "aa11bb22";
  d.kubeconfig = sim->Kubeconfig("alice");
  d.audit_db = "kubernetes";
  d.now = kNow;
  std::ostringstream dout, derr;
  ASSERT_EQ(RunApprove(d, dout, derr), 0) << derr.str();
  EXPECT_EQ(dout.str(),
            "change aa11bb22 (policy gpu-sharing): approval by alice written to GpuChange aa11bb22 (step hash "
            "aa11bb2200112233); the controller records it in the audit log on its next pass\n");
  auto object = store.GetObject("aa11bb22");
  ASSERT_TRUE(object.ok() && object->has_value());
  const json annotations = (**object)["metadata"]["annotations"];
  EXPECT_EQ(annotations[audit::kApproveAnnotation], Change("aa11bb22", 1, audit::ChangeState::kProposed).content_hash);
  EXPECT_EQ(annotations[audit::kApprovedByAnnotation], "alice");
  EXPECT_EQ((*store.GetChange("aa11bb22"))->state, audit::ChangeState::kProposed);  // the controller imports it
  d.id = "cc33dd44";
  std::ostringstream xout, xerr;
  EXPECT_EQ(RunApprove(d, xout, xerr), 1);
  EXPECT_EQ(xerr.str(), "kubeon-gpu approve: change cc33dd44 is done; only a proposed or approved change can be "
                        "approved\n");

  auto [rc, out] = sim->Kubectl("get gpuchanges");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("aa11bb22"), std::string::npos) << out;
  EXPECT_NE(out.find("cc33dd44"), std::string::npos) << out;
  EXPECT_NE(out.find("proposed"), std::string::npos) << out;
}
#endif

}  // namespace
}  // namespace kubeon::cli
