// Tests for suggest.h: edit distance and the "did you mean" choice.
#include "policy/suggest.h"

#include <gtest/gtest.h>

namespace kubeon::policy {
namespace {

TEST(EditDistance, CountsEditsIgnoringCase) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("abc", ""), 3);
  EXPECT_EQ(EditDistance("", "ab"), 2);
  EXPECT_EQ(EditDistance("headrom", "headroom"), 1);   // deletion
  EXPECT_EQ(EditDistance("headroomm", "headroom"), 1); // insertion
  EXPECT_EQ(EditDistance("haedroom", "headroom"), 1);  // swap of neighbours
  EXPECT_EQ(EditDistance("Sta", "Sat"), 1);
  EXPECT_EQ(EditDistance("MODE", "mode"), 0);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
}

TEST(ClosestMatch, PrefersCaseInsensitiveEquality) {
  const std::vector<std::string_view> modes = {"Proposal", "Approve", "Auto"};
  EXPECT_EQ(ClosestMatch("auto", modes), "Auto");
  EXPECT_EQ(ClosestMatch("APPROVE", modes), "Approve");
  EXPECT_EQ(ClosestMatch("Proposl", modes), "Proposal");
}

TEST(ClosestMatch, NothingWhenTooFar) {
  const std::vector<std::string_view> fields = {"allowedProfiles", "headroom"};
  EXPECT_EQ(ClosestMatch("replicas", fields), std::nullopt);
  EXPECT_EQ(ClosestMatch("x", fields), std::nullopt);
  EXPECT_EQ(ClosestMatch("alowedProfile", fields), "allowedProfiles");
}

TEST(ClosestMatch, TiesGoToTheEarlierCandidate) {
  EXPECT_EQ(ClosestMatch("abd", {"abc", "abe"}), "abc");
  EXPECT_EQ(ClosestMatch("abd", {"abe", "abc"}), "abe");
}

TEST(DidYouMean, FormatsTheHint) {
  EXPECT_EQ(DidYouMean("headrom", {"allowedProfiles", "headroom"}),
            " (did you mean \"headroom\"?)");
  EXPECT_EQ(DidYouMean("zzzzzz", {"allowedProfiles", "headroom"}), "");
}

}  // namespace
}  // namespace kubeon::policy
