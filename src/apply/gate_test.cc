#include "apply/gate.h"

#include <gtest/gtest.h>

namespace kubeon::apply {
namespace {

using audit::ChangeRecord;
using audit::ChangeState;
using policy::Mode;
using std::chrono::sys_seconds;

sys_seconds At(const std::string& text) {
  auto t = ParseTime(text);
  EXPECT_TRUE(t.has_value()) << text;
  return t.value_or(sys_seconds{});
}

policy::Window Win(const std::string& text) {
  auto w = policy::Window::Parse(text);
  EXPECT_TRUE(w.ok()) << text;
  return *w;
}

plan::ScheduleStep Step(int64_t seconds = 600) {
  plan::ScheduleStep s;
  s.id = "abcd1234";
  s.content_hash = "abcd1234" + std::string(56, 'e');
  s.estimated_seconds = seconds;
  return s;
}

ChangeRecord Approved(const plan::ScheduleStep& s, const std::string& expires) {
  ChangeRecord r;
  r.id = s.id;
  r.state = ChangeState::kApproved;
  r.approved_hash = s.content_hash;
  r.approved_by = "alice";
  r.approval_expires_at = expires;
  return r;
}

// 2026-12-05 is a Saturday.
const char* kSatInside = "2026-12-05T03:00:00Z";
const char* kSatOutside = "2026-12-05T07:00:00Z";

TEST(Gate, ProposalNeverRuns) {
  auto s = Step();
  auto d = Decide(s, Approved(s, "2026-12-06T00:00:00Z"), Mode::kProposal, Win("Sat 02:00-06:00 UTC"), At(kSatInside));
  EXPECT_EQ(d.verdict, GateVerdict::kProposeOnly);
}

TEST(Gate, ApproveNeedsAnApprovalAndTheWindow) {
  auto s = Step();
  auto w = Win("Sat 02:00-06:00 UTC");
  EXPECT_EQ(Decide(s, std::nullopt, Mode::kApprove, w, At(kSatInside)).verdict, GateVerdict::kNeedsApproval);
  auto approved = Approved(s, "2026-12-06T00:00:00Z");
  EXPECT_EQ(Decide(s, approved, Mode::kApprove, w, At(kSatInside)).verdict, GateVerdict::kRun);
  auto closed = Decide(s, approved, Mode::kApprove, w, At(kSatOutside));
  EXPECT_EQ(closed.verdict, GateVerdict::kOutsideWindow);
  ASSERT_TRUE(closed.next_open.has_value());
  EXPECT_EQ(FormatTime(*closed.next_open), "2026-12-12T02:00:00Z");
}

TEST(Gate, ApprovalForOtherContentOrPastItsTtlExpires) {
  auto s = Step();
  auto w = Win("Sat 02:00-06:00 UTC");
  auto other = Approved(s, "2026-12-06T00:00:00Z");
  other.approved_hash = std::string(64, 'f');
  EXPECT_EQ(Decide(s, other, Mode::kApprove, w, At(kSatInside)).verdict, GateVerdict::kExpired);
  auto old = Approved(s, "2026-12-05T02:30:00Z");
  auto d = Decide(s, old, Mode::kAuto, w, At(kSatInside));
  EXPECT_EQ(d.verdict, GateVerdict::kExpired);
  EXPECT_NE(d.why.find("alice"), std::string::npos);
}

TEST(Gate, AutoRunsCleanStepsButNotFlaggedOnes) {
  auto s = Step();
  auto w = Win("Sat 02:00-06:00 UTC");
  EXPECT_EQ(Decide(s, std::nullopt, Mode::kAuto, w, At(kSatInside)).verdict, GateVerdict::kRun);
  s.flags.push_back("PodDisruptionBudget ml/train-pdb allows 0 disruptions; Recreate takes down 2");
  auto d = Decide(s, std::nullopt, Mode::kAuto, w, At(kSatInside));
  EXPECT_EQ(d.verdict, GateVerdict::kNeedsApproval);
  EXPECT_NE(d.why.find("PodDisruptionBudget"), std::string::npos);
  auto approved = Approved(s, "2026-12-06T00:00:00Z");
  EXPECT_EQ(Decide(s, approved, Mode::kAuto, w, At(kSatInside)).verdict, GateVerdict::kRun);
}

TEST(Gate, AStepMustFitBeforeTheWindowCloses) {
  auto w = Win("Sat 02:00-06:00 UTC");
  // 03:00 + 2h59m fits; 3h01m does not.
  EXPECT_EQ(Decide(Step(3 * 3600 - 60), std::nullopt, Mode::kAuto, w, At(kSatInside)).verdict, GateVerdict::kRun);
  auto d = Decide(Step(3 * 3600 + 60), std::nullopt, Mode::kAuto, w, At(kSatInside));
  EXPECT_EQ(d.verdict, GateVerdict::kOutsideWindow);
  EXPECT_NE(d.why.find("closes at 2026-12-05T06:00:00Z"), std::string::npos);
}

TEST(Gate, WindowsOverMidnightAndInOtherZones) {
  auto w = Win("Fri 22:00-04:00 +02:00");  // Fri 20:00 UTC .. Sat 02:00 UTC
  EXPECT_EQ(Decide(Step(60), std::nullopt, Mode::kAuto, w, At("2026-12-05T01:00:00Z")).verdict, GateVerdict::kRun);
  EXPECT_EQ(Decide(Step(60), std::nullopt, Mode::kAuto, w, At("2026-12-04T19:59:00Z")).verdict,
            GateVerdict::kOutsideWindow);
  EXPECT_EQ(Decide(Step(60), std::nullopt, Mode::kAuto, w, At("2026-12-05T02:00:00Z")).verdict,
            GateVerdict::kOutsideWindow);
}

TEST(Gate, HandledStepsAreNotStartedAgain) {
  auto s = Step();
  auto w = Win("Daily 00:00-24:00 UTC");
  for (ChangeState st : {ChangeState::kDone, ChangeState::kReverted, ChangeState::kRejected, ChangeState::kRolledBack,
                         ChangeState::kFailed, ChangeState::kRunning}) {
    ChangeRecord r;
    r.id = s.id;
    r.state = st;
    EXPECT_EQ(Decide(s, r, Mode::kAuto, w, At(kSatInside)).verdict, GateVerdict::kAlreadyHandled)
        << audit::ChangeStateName(st);
  }
}

TEST(Gate, TimesRoundTrip) {
  EXPECT_EQ(FormatTime(At("2026-12-05T05:00:00+02:00")), "2026-12-05T03:00:00Z");
  EXPECT_FALSE(ParseTime("tomorrow").has_value());
  EXPECT_FALSE(ParseTime("").has_value());
}

}  // namespace
}  // namespace kubeon::apply
