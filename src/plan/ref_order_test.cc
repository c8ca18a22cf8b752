// Tests of ref_order.h against std::stable_sort with WorkloadRef::operator<:
// names sharing long prefixes, names that are prefixes of others, empty
// fields, bytes above 0x7f and NUL, repeated refs, and many namespaces.
#include "plan/ref_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

namespace kubeon::plan {
namespace {

std::vector<size_t> Reference(const std::vector<model::WorkloadRef>& refs) {
  std::vector<size_t> order(refs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return refs[a] < refs[b]; });
  return order;
}

std::vector<size_t> Ordered(const std::vector<model::WorkloadRef>& refs) {
  std::vector<const model::WorkloadRef*> p;
  for (const auto& r : refs) p.push_back(&r);
  return RefOrder(p);
}

TEST(RefOrder, OrdersByNamespaceKindThenName) {
  const std::vector<model::WorkloadRef> refs = {
      {"ml", "ReplicaSet", "b"},      {"ml", "Deployment", "z"},   {"default", "StatefulSet", "a"},
      {"ml", "ReplicaSet", "abcdefgh-2"}, {"ml", "ReplicaSet", "abcdefgh-10"}, {"ml", "ReplicaSet", "abcdefgh"},
      {"ml", "ReplicaSet", ""},       {"", "Pod", "x"},            {"ml", "ReplicaSet", std::string("ab\0c", 4)},
      {"ml", "ReplicaSet", "ab"},     {"ml", "ReplicaSet", "\xc3\xa9t\xc3\xa9"}, {"ml", "ReplicaSet", "b"},
  };
  EXPECT_EQ(Ordered(refs), Reference(refs));
  EXPECT_TRUE(Ordered({}).empty());
}

TEST(RefOrder, AgreesWithStdSortOnRandomRefs) {
  std::mt19937 rng(13);
  const std::string alphabet = std::string("ab-0\xff", 5) + std::string(1, '\0');
  auto word = [&](size_t max_len) {
    std::string s(rng() % (max_len + 1), 'a');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 50; ++round) {
    std::vector<model::WorkloadRef> refs;
    const int n = static_cast<int>(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      // Names share a long prefix now and then, as a Deployment's ReplicaSets do.
      std::string name = (rng() % 2 ? "inference-server-" : "") + word(rng() % 2 ? 4 : 14);
      refs.push_back({word(2), rng() % 3 ? "ReplicaSet" : word(3), std::move(name)});
    }
    ASSERT_EQ(Ordered(refs), Reference(refs)) << "round " << round;
  }
}

}  // namespace
}  // namespace kubeon::plan
