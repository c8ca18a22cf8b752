#include "apply/step_journal.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using testing::StepFixture;

class StepJournalTest : public StepFixture {};

TEST_F(StepJournalTest, IntentSavesTheUndoDataBeforeItsEntry) {
  StepJournal& j = Journal();
  j.run().phase = Phase::kPrepare;
  j.run().nodes["a"].gpu_count = 4;
  ASSERT_TRUE(j.Intent("prepare-node", "node a: cordon").ok());
  auto rec = store_.GetChange("5e1c0a77");
  ASSERT_TRUE(rec.ok() && rec->has_value());
  Result<StepRecord> saved = ReadStepRecord((*rec)->undo_json, "change 5e1c0a77");
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  EXPECT_EQ(saved->step->phase, Phase::kPrepare);
  EXPECT_EQ(saved->step->nodes.at("a").gpu_count, 4);
  ASSERT_TRUE(j.Wrote("prepare-node", "node a cordoned").ok());
  EXPECT_EQ(LogLines(), (std::vector<std::string>{"prepare-node/intent", "prepare-node/ok"}));
  EXPECT_EQ(j.outcome().writes, 1);
  EXPECT_EQ(progress_, (std::vector<std::string>{"5e1c0a77: node a: cordon"}));
}

TEST_F(StepJournalTest, TheWriteObserverStopsTheRunBeforeTheOkEntry) {
  int seen = 0;
  options_.write_observer = [&](int writes) {
    seen = writes;
    return writes == 2;
  };
  StepJournal& j = Journal();
  ASSERT_TRUE(j.Wrote("evict", "one").ok());
  Status s = j.Wrote("evict", "two");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  EXPECT_TRUE(j.crashed());
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(LogLines(), (std::vector<std::string>{"evict/ok"}));
}

TEST_F(StepJournalTest, LoadRefusesARecordOfANewerVersion) {
  audit::ChangeRecord r;
  r.id = "0badf00d";
  r.state = audit::ChangeState::kRunning;
  r.undo_json = R"({"step":{"nodes":{},"owners":[],"phase":"prepare"},"version":3})";
  ASSERT_TRUE(store_.PutChange(r, 0).ok());
  StepContext ctx = Ctx();
  StepJournal j(ctx, "0badf00d", RunKind::kStep);
  Status s = j.Load(nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.message();
}

TEST_F(StepJournalTest, LoadOfAMissingChangeIsNotFoundUnlessCreated) {
  StepContext ctx = Ctx();
  StepJournal j(ctx, "00000001", RunKind::kRevert);
  EXPECT_EQ(j.Load(nullptr).code(), StatusCode::kNotFound);
  StepJournal& created = Journal("00000002", RunKind::kRevert);
  EXPECT_TRUE(created.record().revert.has_value());
  EXPECT_FALSE(created.record().step.has_value());
}

TEST_F(StepJournalTest, JournalErrorsAreKeptAndSaidOnce) {
  StepJournal& j = Journal();
  j.NoteJournalError(Status::Ok());
  EXPECT_EQ(j.journal_error(), "");
  j.NoteJournalError(Status::Error("disk full"));
  j.NoteJournalError(Status::Error("still full"));
  EXPECT_EQ(j.journal_error(), "disk full");
  EXPECT_EQ(progress_.back(), "5e1c0a77: warning: audit log: still full");
}

}  // namespace
}  // namespace kubeon::apply
