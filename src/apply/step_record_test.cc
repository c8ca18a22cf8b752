// The typed step record against the records earlier versions wrote.
//
// testdata/step-records/*.json are records the executor before the typed
// record (commit 246ea9f, its step_runner_test against kube-sim) saved as
// ChangeRecord::undo_json, one a file, byte for byte: every phase of a step
// and of a revert, rollbacks, a refusal and a resumed crash.  (All 201
// records that run saved were the same bytes with the typed record.)  Each must read,
// write back to the same bytes, and survive the SQLite store and a
// GpuChange's status unchanged.
#include "apply/step_record.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "audit/kube_store.h"
#include "audit/sqlite_store.h"
#include "audit/test_fake_kube_api.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

struct Golden {
  std::string name;
  std::string text;
};

std::vector<Golden> Goldens() {
  std::vector<Golden> out;
  const std::filesystem::path dir = std::filesystem::path(KUBEON_SOURCE_DIR) / "testdata" / "step-records";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    std::string text = buf.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    out.push_back({e.path().filename().string(), text});
  }
  std::sort(out.begin(), out.end(), [](const Golden& a, const Golden& b) { return a.name < b.name; });
  return out;
}

TEST(StepRecordGolden, EveryRecordAnEarlierVersionWroteReadsAndWritesBackByteForByte) {
  const auto goldens = Goldens();
  ASSERT_GE(goldens.size(), 10u);
  std::set<std::string> step_phases, revert_phases;
  for (const auto& g : goldens) {
    SCOPED_TRACE(g.name);
    Result<StepRecord> r = ReadStepRecord(g.text, "change golden");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(WriteStepRecord(*r), g.text);
    if (r->step) step_phases.insert(PhaseName(r->step->phase));
    if (r->revert) revert_phases.insert(PhaseName(r->revert->phase));
  }
  // Every phase a step passes through, and a revert's, is among them.
  for (const char* p : {"", "prepare", "configure", "uncordon", "owners", "cleanup", "done", "rollback", "rolled-back",
                        "refused"}) {
    EXPECT_TRUE(step_phases.count(p)) << "no golden record of a step at phase \"" << p << "\"";
  }
  for (const char* p : {"start", "owners", "prepare", "configure", "uncordon", "cleanup", "done"}) {
    EXPECT_TRUE(revert_phases.count(p)) << "no golden record of a revert at phase \"" << p << "\"";
  }
}

audit::ChangeRecord RecordWith(const std::string& id, const std::string& undo) {
  audit::ChangeRecord r;
  r.id = id;
  r.policy = "gpu-sharing";
  r.content_hash = "sha256:0123";
  r.state = audit::ChangeState::kRunning;
  r.step_json = R"({"id":")" + id + R"("})";
  r.undo_json = undo;
  r.created_at = "2026-12-07T10:00:00Z";
  r.updated_at = r.created_at;
  return r;
}

std::string IdOf(size_t i) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08zx", i + 0xa0000000u);
  return buf;
}

TEST(StepRecordGolden, SqliteStoreKeepsEveryRecordByteForByte) {
  const std::string path = ::testing::TempDir() + "/step-records.db";
  std::filesystem::remove(path);
  auto store = audit::SqliteAuditStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  const auto goldens = Goldens();
  for (size_t i = 0; i < goldens.size(); ++i) {
    ASSERT_TRUE((*store)->PutChange(RecordWith(IdOf(i), goldens[i].text), 0).ok());
  }
  for (size_t i = 0; i < goldens.size(); ++i) {
    SCOPED_TRACE(goldens[i].name);
    auto got = (*store)->GetChange(IdOf(i));
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*got)->undo_json, goldens[i].text);
    Result<StepRecord> r = ReadStepRecord((*got)->undo_json, "change " + IdOf(i));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(WriteStepRecord(*r), goldens[i].text);
  }
}

TEST(StepRecordGolden, GpuChangeStatusKeepsEveryRecordByteForByte) {
  audit::testing::FakeKubeApi::State state;
  kube::RestConfig config;
  config.server = "https://fake.invalid";
  kube::KubeClient client(std::make_unique<audit::testing::FakeKubeApi>(state), config);
  audit::KubeAuditStore store(client, audit::KubeAuditStore::Options());
  const auto goldens = Goldens();
  for (size_t i = 0; i < goldens.size(); ++i) {
    Status s = store.PutChange(RecordWith(IdOf(i), goldens[i].text), 0);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  for (size_t i = 0; i < goldens.size(); ++i) {
    SCOPED_TRACE(goldens[i].name);
    auto got = store.GetChange(IdOf(i));
    ASSERT_TRUE(got.ok() && got->has_value()) << (got.ok() ? "absent" : got.status().message());
    // status.undo holds the record as a JSON object, not a string.
    const json& object = state.objects.at(std::string(audit::kGpuChangesPath) + "/" + IdOf(i));
    EXPECT_TRUE(object["status"]["undo"].is_object());
    EXPECT_EQ((*got)->undo_json, goldens[i].text);
    Result<StepRecord> r = ReadStepRecord((*got)->undo_json, "change " + IdOf(i));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
}

TEST(StepRecord, EmptyRecordsAreEmpty) {
  for (const char* text : {"", "{}"}) {
    Result<StepRecord> r = ReadStepRecord(text, "change x");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->step);
    EXPECT_FALSE(r->revert);
    EXPECT_EQ(WriteStepRecord(*r), "{}");
  }
}

TEST(StepRecord, WriterOmitsWhatIsNotSet) {
  StepRecord r;
  r.step.emplace();
  EXPECT_EQ(WriteStepRecord(r), R"({"step":{"nodes":{},"owners":[]}})");
  r.step->phase = Phase::kRollback;
  r.step->cause = "boom";
  NodeUndo n;
  n.prior.labels["nvidia.com/mig.config"] = std::nullopt;
  n.prior.annotations["karpenter.sh/do-not-disrupt"] = "true";
  n.cordoned = true;
  n.gpu_count = 4;
  n.labels_set["nvidia.com/mig.config"] = "kubeon-1";
  r.step->nodes["a"] = n;
  OwnerUndo o;
  o.kind = "Deployment";
  o.namespace_ = "ml";
  o.name = "infer";
  r.step->owners.push_back(o);
  EXPECT_EQ(WriteStepRecord(r),
            R"({"step":{"cause":"boom","nodes":{"a":{"cordoned":true,"gpu_count":4,)"
            R"("labels_set":{"nvidia.com/mig.config":"kubeon-1"},"prior":{"annotations":)"
            R"({"karpenter.sh/do-not-disrupt":"true"},"labels":{"nvidia.com/mig.config":null},"unschedulable":false}}},)"
            R"("owners":[{"annotation_before":null,"kind":"Deployment","name":"infer","namespace":"ml",)"
            R"("template_before":{}}],"phase":"rollback"}})");
}

TEST(StepRecord, EveryPhaseNameRoundTrips) {
  for (Phase p : {Phase::kStart, Phase::kPrepare, Phase::kConfigure, Phase::kUncordon, Phase::kOwners, Phase::kCleanup,
                  Phase::kDone, Phase::kRollback, Phase::kRefused, Phase::kRolledBack, Phase::kRollbackFailed}) {
    Result<Phase> back = ParsePhase(PhaseName(p));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, p);
  }
}

// An older replica must never resume what a newer one wrote.
TEST(StepRecord, NewerVersionIsRefusedWithItsOwnCode) {
  Result<StepRecord> r = ReadStepRecord(R"({"version":3,"step":{"nodes":{},"owners":[],"phase":"drain"}})", "change 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("version 3"), std::string::npos) << r.status().message();
  Result<StepRecord> one = ReadStepRecord(R"({"version":1,"step":{"nodes":{},"owners":[]}})", "change 1");
  ASSERT_TRUE(one.ok()) << one.status().message();
}

// Attempts need version 2; a record without them stays version 1, which an
// older replica still reads.
TEST(StepRecord, AttemptsRaiseTheVersionOnlyWhenPresent) {
  StepRecord r;
  r.step = RunRecord{};
  EXPECT_EQ(WriteStepRecord(r), R"({"step":{"nodes":{},"owners":[]}})");
  r.attempts.push_back({1, "2026-12-01T00:00:00Z", "mig-manager failed"});
  r.attempts.push_back({2, "2026-12-01T00:15:00Z", "eviction refused"});
  const std::string text = WriteStepRecord(r);
  EXPECT_EQ(text, R"({"attempts":[{"cause":"mig-manager failed","ended_at":"2026-12-01T00:00:00Z","number":1},)"
                  R"({"cause":"eviction refused","ended_at":"2026-12-01T00:15:00Z","number":2}],)"
                  R"("step":{"nodes":{},"owners":[]},"version":2})");
  Result<StepRecord> back = ReadStepRecord(text, "change 1");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->version, 2);
  ASSERT_EQ(back->attempts.size(), 2u);
  EXPECT_EQ(back->attempts[1].cause, "eviction refused");
  EXPECT_EQ(WriteStepRecord(*back), text);
}

TEST(StepRecord, RefusesWhatItDoesNotKnowNamingTheField) {
  struct Case {
    const char* text;
    const char* names;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"step":{"nodes":{},"owners":[],"phase":"drain"}})", "undo.step.phase"},
           {R"({"step":{"nodes":{},"owners":[],"phase":""}})", "undo.step.phase"},
           {R"({"step":{"nodes":{},"owners":[],"phse":"done"}})", "undo.step.phse"},
           {R"({"stepp":{}})", "undo.stepp"},
           {R"({"step":{"owners":[]}})", "undo.step.nodes"},
           {R"({"step":{"nodes":{"a":{"cordoned":true}},"owners":[]}})", "undo.step.nodes[\"a\"].prior"},
           {R"({"step":{"nodes":{},"owners":[{"kind":"Deployment"}]}})", "undo.step.owners[0].namespace"},
           {R"({"step":{"nodes":{},"owners":[],"phase":7}})", "undo.step.phase"},
           {R"({"version":"1"})", "undo.version"},
           {R"({"version":0})", "undo.version"},
           {R"({"attempts":[{"number":1,"ended_at":"2026-12-01T00:00:00Z","cause":"x"}]})", "undo.attempts"},
           {R"({"version":2,"attempts":[{"number":2,"ended_at":"2026-12-01T00:00:00Z","cause":"x"}]})",
            "undo.attempts[0].number"},
           {R"({"version":2,"attempts":[{"number":1,"cause":"x"}]})", "undo.attempts[0].ended_at"},
           {R"({"version":2,"attempts":{}})", "undo.attempts"},
           {R"([1])", "undo"},
           {R"({"step":)", "not JSON"},
       }) {
    SCOPED_TRACE(c.text);
    Result<StepRecord> r = ReadStepRecord(c.text, "change 1a2b3c4d");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    EXPECT_NE(r.status().message().find(c.names), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("change 1a2b3c4d"), std::string::npos) << r.status().message();
  }
}

TEST(StepRecord, NodeLabelValuesMustBeStringsOrNull) {
  const char* text =
      R"({"step":{"nodes":{"a":{"cordoned":true,"gpu_count":4,"labels_set":{"x":1},)"
      R"("prior":{"annotations":{},"labels":{},"unschedulable":false}}},"owners":[]}})";
  Result<StepRecord> r = ReadStepRecord(text, "change 1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("labels_set[\"x\"]"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace kubeon::apply
