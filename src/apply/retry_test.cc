#include "apply/retry.h"

#include <gtest/gtest.h>

#include "apply/rfc3339.h"
#include "apply/step_record.h"

namespace kubeon::apply {
namespace {

using Kind = RetryDecision::Kind;

audit::ChangeRecord RolledBack(const std::string& at, const std::string& undo = "{}") {
  audit::ChangeRecord r;
  r.id = "5e1c0a77";
  r.state = audit::ChangeState::kRolledBack;
  r.updated_at = at;
  r.reason = "mig-manager reported failed";
  r.undo_json = undo;
  return r;
}

std::chrono::system_clock::time_point T(const std::string& s) { return *ParseTimePoint(s); }

TEST(Retry, TheBackoffDoublesForEachAttempt) {
  policy::GpuPolicy p;  // 3 attempts, 15m
  auto d = DecideRetry(RolledBack("2026-12-05T03:00:00Z"), p, T("2026-12-05T03:14:59Z"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, Kind::kLater);
  EXPECT_EQ(d->at, T("2026-12-05T03:15:00Z"));
  EXPECT_EQ(DecideRetry(RolledBack("2026-12-05T03:00:00Z"), p, T("2026-12-05T03:15:00Z"))->kind, Kind::kNow);
  const std::string once =
      R"({"version":2,"attempts":[{"number":1,"ended_at":"2026-12-05T02:00:00Z","cause":"x"}]})";
  d = DecideRetry(RolledBack("2026-12-05T03:00:00Z", once), p, T("2026-12-05T03:15:00Z"));
  EXPECT_EQ(d->kind, Kind::kLater);
  EXPECT_EQ(d->attempts, 2);
  EXPECT_EQ(d->at, T("2026-12-05T03:30:00Z"));
  const std::string twice =
      R"({"version":2,"attempts":[{"number":1,"ended_at":"2026-12-05T02:00:00Z","cause":"x"},)"
      R"({"number":2,"ended_at":"2026-12-05T02:30:00Z","cause":"y"}]})";
  d = DecideRetry(RolledBack("2026-12-05T03:00:00Z", twice), p, T("2026-12-09T00:00:00Z"));
  EXPECT_EQ(d->kind, Kind::kExhausted);
  EXPECT_EQ(d->attempts, 3);
  p.max_attempts = 1;  // never retried
  EXPECT_EQ(DecideRetry(RolledBack("2026-12-05T03:00:00Z"), p, T("2026-12-09T00:00:00Z"))->kind, Kind::kExhausted);
}

TEST(Retry, AnUnreadableStepRecordIsAnErrorNotARetry) {
  auto d = DecideRetry(RolledBack("2026-12-05T03:00:00Z", R"({"version":9})"), policy::GpuPolicy{},
                       T("2026-12-09T00:00:00Z"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kUnsupported);
}

TEST(Retry, ANewAttemptIsProposedWithTheLastOneRecorded) {
  audit::ChangeRecord r = RolledBack("2026-12-05T03:00:00Z", R"({"step":{"nodes":{},"owners":[],"phase":"rolled-back"}})");
  r.approved_by = "alice";
  r.approved_hash = "abc";
  r.approved_at = "2026-12-05T01:00:00Z";
  r.approval_expires_at = "2026-12-06T01:00:00Z";
  auto next = NewAttempt(r);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, audit::ChangeState::kProposed);
  EXPECT_EQ(next->id, r.id);
  EXPECT_TRUE(next->approved_by.empty() && next->approved_hash.empty() && next->approval_expires_at.empty());
  EXPECT_TRUE(next->reason.empty());
  auto record = ReadStepRecord(next->undo_json, "change 5e1c0a77");
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_FALSE(record->step.has_value());
  ASSERT_EQ(record->attempts.size(), 1u);
  EXPECT_EQ(record->attempts[0].number, 1);
  EXPECT_EQ(record->attempts[0].ended_at, "2026-12-05T03:00:00Z");
  EXPECT_EQ(record->attempts[0].cause, "mig-manager reported failed");
}

}  // namespace
}  // namespace kubeon::apply
