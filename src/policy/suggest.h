// "Did you mean ...?" for error messages.
//
// ClosestMatch returns the candidate nearest to `word` when it is near enough
// to be a plausible typo, compared case-insensitively: an exact match that
// differs only in case always wins; otherwise the candidate with the smallest
// optimal-string-alignment distance (insertions, deletions, substitutions and
// swaps of neighbouring letters each cost 1), provided that distance is at
// most max(2, word.size() / 3) and smaller than word.size().  Ties go to the
// earlier candidate.  Returns nullopt when nothing is near enough.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubeon::policy {

// Optimal string alignment distance between a and b, ignoring ASCII case.
int EditDistance(std::string_view a, std::string_view b);

std::optional<std::string> ClosestMatch(std::string_view word,
                                        const std::vector<std::string_view>& candidates);

// " (did you mean \"x\"?)" when ClosestMatch finds x, else "".
std::string DidYouMean(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace kubeon::policy
