#include "audit/audit_store.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace kubeon::audit {
namespace {

TEST(ChangeStateTest, EveryStateHasADistinctNameThatParsesBack) {
  const ChangeState all[] = {ChangeState::kProposed, ChangeState::kApproved, ChangeState::kRejected,
                             ChangeState::kExpired,  ChangeState::kRunning,  ChangeState::kDone,
                             ChangeState::kFailed,   ChangeState::kRolledBack, ChangeState::kReverted};
  std::set<std::string> names;
  for (ChangeState s : all) {
    const std::string name(ChangeStateName(s));
    EXPECT_NE(name, "unknown");
    names.insert(name);
    auto parsed = ParseChangeState(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, s) << name;
  }
  EXPECT_EQ(names.size(), 9u);
}

TEST(ChangeStateTest, NamesAreTheDocumentedOnes) {
  EXPECT_EQ(ChangeStateName(ChangeState::kRolledBack), "rolled-back");
  EXPECT_EQ(ChangeStateName(ChangeState::kProposed), "proposed");
  EXPECT_EQ(ParseChangeState("reverted"), ChangeState::kReverted);
}

TEST(ChangeStateTest, UnknownNamesDoNotParse) {
  EXPECT_FALSE(ParseChangeState("").has_value());
  EXPECT_FALSE(ParseChangeState("Proposed").has_value());
  EXPECT_FALSE(ParseChangeState("rolled_back").has_value());
}

}  // namespace
}  // namespace kubeon::audit
