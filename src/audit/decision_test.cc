#include "audit/decision.h"

#include <gtest/gtest.h>

namespace kubeon::audit {
namespace {

ChangeRecord Proposed() {
  ChangeRecord r;
  r.id = "abcd1234";
  r.policy = "p";
  r.content_hash = std::string(64, 'a');
  r.state = ChangeState::kProposed;
  r.revision = 3;
  return r;
}

DecisionRequest Req(DecisionRequest::Kind kind) {
  DecisionRequest q;
  q.kind = kind;
  q.username = "alice";
  q.groups = {"reviewers"};
  q.at = "2026-12-03T12:00:00Z";
  q.expires_at = "2026-12-04T12:00:00Z";
  return q;
}

TEST(DecideChange, ApproveRecordsApproverHashAndExpiry) {
  ChangeRecord r = Proposed();
  DecisionRequest q = Req(DecisionRequest::Kind::kApprove);
  q.hash = r.content_hash;
  auto e = DecideChange(r, q);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(r.state, ChangeState::kApproved);
  EXPECT_EQ(r.approved_by, "alice");
  EXPECT_EQ(r.approved_hash, r.content_hash);
  EXPECT_EQ(r.approval_expires_at, "2026-12-04T12:00:00Z");
  EXPECT_EQ(r.updated_at, "2026-12-03T12:00:00Z");
  EXPECT_EQ(e->action, "approve");
  EXPECT_EQ(e->outcome, "ok");
  EXPECT_EQ(e->change_id, "abcd1234");
  EXPECT_NE(e->data_json.find("\"alice\""), std::string::npos);
}

TEST(DecideChange, ApproveWithAnotherHashIsRefusedAndChangesNothing) {
  ChangeRecord r = Proposed();
  DecisionRequest q = Req(DecisionRequest::Kind::kApprove);
  q.hash = std::string(64, 'b');
  auto e = DecideChange(r, q);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("step changed"), std::string::npos);
  EXPECT_EQ(r.state, ChangeState::kProposed);
  EXPECT_TRUE(r.approved_by.empty());
}

TEST(DecideChange, RejectClearsApproval) {
  ChangeRecord r = Proposed();
  r.state = ChangeState::kApproved;
  r.approved_by = "bob";
  r.approved_hash = r.content_hash;
  DecisionRequest q = Req(DecisionRequest::Kind::kReject);
  q.reason = "not now";
  auto e = DecideChange(r, q);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(r.state, ChangeState::kRejected);
  EXPECT_EQ(r.rejected_by, "alice");
  EXPECT_EQ(r.reason, "not now");
  EXPECT_TRUE(r.approved_by.empty());
  EXPECT_TRUE(r.approved_hash.empty());
  EXPECT_EQ(e->detail, "rejected by alice: not now");
}

// `reject --reason $'\xff'` aborted in the JSON writer (type_error 316):
// text that is not UTF-8 is refused naming the field, and nothing changes.
TEST(DecideChange, TextThatIsNotUtf8IsRefusedNamingTheField) {
  for (const std::string& bad : {std::string("\xff"), std::string("caf\xc3"), std::string("\xed\xa0\x80")}) {
    ChangeRecord r = Proposed();
    const ChangeRecord before = r;
    DecisionRequest q = Req(DecisionRequest::Kind::kReject);
    q.reason = "no: " + bad;
    auto e = DecideChange(r, q);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().message(), "reason: not valid UTF-8");
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(r.state, before.state);
    DecisionRequest u = Req(DecisionRequest::Kind::kApprove);
    u.username = "eve" + bad;
    EXPECT_EQ(DecideChange(r, u).status().message(), "user: not valid UTF-8");
    u = Req(DecisionRequest::Kind::kApprove);
    u.groups = {"ok", bad};
    EXPECT_EQ(DecideChange(r, u).status().message(), "group: not valid UTF-8");
  }
  ChangeRecord r = Proposed();
  DecisionRequest q = Req(DecisionRequest::Kind::kReject);
  q.reason = "caf\xc3\xa9 \xe2\x80\x94 ok";  // valid UTF-8 is kept as written
  ASSERT_TRUE(DecideChange(r, q).ok());
  EXPECT_EQ(r.reason, q.reason);
}

TEST(DecideChange, RefusesOtherStates) {
  for (ChangeState s : {ChangeState::kExpired, ChangeState::kRunning, ChangeState::kDone, ChangeState::kRejected}) {
    ChangeRecord r = Proposed();
    r.state = s;
    auto e = DecideChange(r, Req(DecisionRequest::Kind::kApprove));
    ASSERT_FALSE(e.ok()) << ChangeStateName(s);
    EXPECT_EQ(r.state, s);
  }
}

TEST(DecideChange, RevertRequestOnlyForDoneAndLeavesRecord) {
  ChangeRecord r = Proposed();
  EXPECT_FALSE(DecideChange(r, Req(DecisionRequest::Kind::kRevertRequest)).ok());
  r.state = ChangeState::kDone;
  const ChangeRecord before = r;
  auto e = DecideChange(r, Req(DecisionRequest::Kind::kRevertRequest));
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->action, kRevertRequestAction);
  EXPECT_EQ(e->outcome, "intent");
  EXPECT_EQ(r.state, ChangeState::kDone);
  EXPECT_EQ(r.updated_at, before.updated_at);
}

}  // namespace
}  // namespace kubeon::audit
