// Tests of the MIG layout validator against NVIDIA's published combinations
// and against an independent brute force written here (it assigns start
// positions directly, with its own occupancy array and its own reading of
// the count rules), over every MIG model of the built-in catalog.
#include "mig/layout.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mig/catalog.h"

namespace kubeon::mig {
namespace {

using Names = std::vector<std::string>;

const GpuModel& Model(const std::string& id) {
  const GpuModel* m = MigCatalog::Builtin().FindModel(id);
  if (m == nullptr) {
    ADD_FAILURE() << "model " << id << " missing from the built-in catalog";
    std::abort();
  }
  return *m;
}

Names Repeat(const std::string& name, int n) { return Names(static_cast<size_t>(n), name); }

Names Concat(std::initializer_list<Names> parts) {
  Names out;
  for (const Names& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Names Sorted(Names v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string Show(const Names& v) {
  std::string s;
  for (const std::string& n : v) s += (s.empty() ? "" : " + ") + n;
  return s.empty() ? "(empty)" : s;
}

// ---- The independent oracle.

// All k-subsets of `starts` (ascending), appended to *out.
void Combinations(const std::vector<int>& starts, int k, size_t from, std::vector<int>& cur,
                  std::vector<std::vector<int>>* out) {
  if (static_cast<int>(cur.size()) == k) {
    out->push_back(cur);
    return;
  }
  for (size_t i = from; i < starts.size(); ++i) {
    cur.push_back(starts[i]);
    Combinations(starts, k, i + 1, cur, out);
    cur.pop_back();
  }
}

// Tries every assignment of start positions, profile by profile.
bool AssignStarts(const GpuModel& m, const std::vector<int>& counts, size_t profile, std::vector<bool>& occupied) {
  if (profile == m.profiles.size()) return true;
  const MigProfile& p = m.profiles[profile];
  if (counts[profile] == 0) return AssignStarts(m, counts, profile + 1, occupied);
  std::vector<std::vector<int>> choices;
  std::vector<int> cur;
  Combinations(p.starts, counts[profile], 0, cur, &choices);
  for (const std::vector<int>& choice : choices) {
    std::vector<bool> next = occupied;
    bool clash = false;
    for (int s : choice) {
      for (int slice = s; slice < s + p.memory_slices; ++slice) {
        clash = clash || next[static_cast<size_t>(slice)];
        next[static_cast<size_t>(slice)] = true;
      }
    }
    if (!clash && AssignStarts(m, counts, profile + 1, next)) return true;
  }
  return false;
}

bool BruteForceFits(const GpuModel& m, const std::vector<int>& counts) {
  int instances = 0, compute = 0, plus_me = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const MigProfile& p = m.profiles[i];
    if (counts[i] > p.max_instances) return false;
    instances += counts[i];
    compute += counts[i] * p.compute_slices;
    const bool me = p.name.find("+me") != std::string::npos;
    if (me) plus_me += counts[i];
  }
  if (instances > m.max_instances || compute > m.compute_slices || plus_me > 1) return false;
  std::vector<bool> occupied(static_cast<size_t>(m.memory_slices), false);
  return AssignStarts(m, counts, 0, occupied);
}

Names NamesOf(const GpuModel& m, const std::vector<int>& counts) {
  Names out;
  for (size_t i = 0; i < counts.size(); ++i) {
    for (int n = 0; n < counts[i]; ++n) out.push_back(m.profiles[i].name);
  }
  return out;
}

// Every count vector with 0 <= counts[i] <= max_instances + 1.
std::vector<std::vector<int>> AllCountVectors(const GpuModel& m) {
  std::vector<std::vector<int>> out;
  std::vector<int> counts(m.profiles.size(), 0);
  while (true) {
    out.push_back(counts);
    size_t i = 0;
    while (i < counts.size() && counts[i] == m.profiles[i].max_instances + 1) counts[i++] = 0;
    if (i == counts.size()) return out;
    ++counts[i];
  }
}

// ---- NVIDIA's combinations.

// A100-40GB, mig-facts.md section 4: the 14 multisets of the 19 maximal
// placed layouts over {1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb}.
std::vector<Names> A100FourteenMultisets() {
  const std::string g1 = "1g.5gb", g2 = "2g.10gb", g3 = "3g.20gb", g4 = "4g.20gb", g7 = "7g.40gb";
  return {Repeat(g1, 7),
          Concat({Repeat(g1, 5), {g2}}),
          Concat({Repeat(g1, 4), {g3}}),
          Concat({Repeat(g1, 3), Repeat(g2, 2)}),
          Concat({Repeat(g1, 3), {g3}}),
          Concat({Repeat(g1, 3), {g4}}),
          Concat({Repeat(g1, 2), {g2, g3}}),
          Concat({{g1}, Repeat(g2, 3)}),
          {g1, g2, g3},
          {g1, g2, g4},
          Concat({Repeat(g2, 2), {g3}}),
          Repeat(g3, 2),
          {g3, g4},
          {g7}};
}

// mig-profiles.md: "Valid combinations on A100 40GB (from a public
// partitioner's table, same as NVIDIA's figure)".
std::vector<Names> A100PartitionerTable() {
  const std::string g1 = "1g.5gb", g2 = "2g.10gb", g3 = "3g.20gb", g4 = "4g.20gb", g7 = "7g.40gb";
  return {{g7},
          {g4, g2, g1},
          Concat({{g4}, Repeat(g1, 3)}),
          Repeat(g3, 2),
          {g3, g2, g1},
          Concat({{g3}, Repeat(g1, 3)}),
          Concat({{g3}, Repeat(g2, 2)}),
          Concat({{g3, g2}, Repeat(g1, 2)}),
          Concat({Repeat(g2, 3), {g1}}),
          Concat({Repeat(g2, 2), Repeat(g1, 3)}),
          Concat({{g2}, Repeat(g1, 5)}),
          Repeat(g1, 7)};
}

TEST(Layout, NvidiaA100CombinationsAllFit) {
  const GpuModel& a100 = Model("A100-40GB");
  for (const Names& layout : A100FourteenMultisets()) {
    Result<std::vector<PlacedInstance>> placed = PlaceLayout(a100, layout);
    EXPECT_TRUE(placed.ok()) << Show(layout) << ": " << placed.status().message();
    EXPECT_TRUE(LayoutFits(a100, layout)) << Show(layout);
  }
  for (const Names& layout : A100PartitionerTable()) {
    EXPECT_TRUE(LayoutFits(a100, layout)) << Show(layout);
  }
}

TEST(Layout, MaximalA100LayoutsAreTheFourteenMultisets) {
  const GpuModel& a100 = Model("A100-40GB");
  std::set<Names> got, want;
  for (const Names& v : EnumerateMaximalLayouts(a100, {"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"})) {
    got.insert(Sorted(v));
  }
  for (const Names& v : A100FourteenMultisets()) want.insert(Sorted(v));
  EXPECT_EQ(got.size(), 14u);
  EXPECT_EQ(got, want);
}

TEST(Layout, MaximalLayoutsOrderAndFiltering) {
  const GpuModel& a100 = Model("A100-40GB");
  // Unknown and repeated names are ignored; names keep the caller's order.
  std::vector<Names> got = EnumerateMaximalLayouts(a100, {"3g.20gb", "nope", "1g.5gb", "3g.20gb"});
  std::vector<Names> want = {Repeat("3g.20gb", 2), Concat({{"3g.20gb"}, Repeat("1g.5gb", 4)}),
                             Concat({{"3g.20gb"}, Repeat("1g.5gb", 3)}), Repeat("1g.5gb", 7)};
  EXPECT_EQ(got, want);
  EXPECT_TRUE(EnumerateMaximalLayouts(Model("L4"), {"1g.5gb"}).empty());
  EXPECT_EQ(EnumerateMaximalLayouts(a100, {}), std::vector<Names>{Names{}});
}

TEST(Layout, MaximalA30LayoutsAreNvidiasFour) {
  std::set<Names> got;
  for (const Names& v : EnumerateMaximalLayouts(Model("A30"), {"1g.6gb", "2g.12gb", "4g.24gb"})) got.insert(Sorted(v));
  const std::set<Names> want = {Names{"4g.24gb"}, Repeat("2g.12gb", 2), Sorted({"2g.12gb", "1g.6gb", "1g.6gb"}),
                                Repeat("1g.6gb", 4)};
  EXPECT_EQ(got, want);
}

// The property test: for every MIG model, every multiset with up to
// max_instances + 1 of each profile (+me profiles included).
TEST(Layout, AgreesWithBruteForceOnEveryModel) {
  const LayoutChecker checker(MigCatalog::Builtin());
  for (const GpuModel& m : MigCatalog::Builtin().models()) {
    if (!m.mig_capable) continue;
    const LayoutChecker::Table* table = checker.ForModel(m.id);
    ASSERT_NE(table, nullptr) << m.id;
    size_t valid = 0, checked = 0;
    std::vector<std::vector<int>> valid_vectors;
    for (const std::vector<int>& counts : AllCountVectors(m)) {
      const Names names = NamesOf(m, counts);
      const bool expected = BruteForceFits(m, counts);
      ASSERT_EQ(LayoutFits(m, names), expected) << m.id << ": " << Show(names);
      ASSERT_EQ(PlaceLayout(m, names).ok(), expected) << m.id << ": " << Show(names);
      ASSERT_EQ(table->Fits(counts), expected) << m.id << ": " << Show(names);
      ASSERT_EQ(checker.Fits(m, names), expected) << m.id << ": " << Show(names);
      ++checked;
      if (expected) {
        ++valid;
        valid_vectors.push_back(counts);
      }
    }
    EXPECT_EQ(table->valid_layouts(), valid) << m.id;  // the checker holds exactly the valid multisets
    EXPECT_GT(valid, 10u) << m.id;
    EXPECT_LT(valid, checked) << m.id;

    // Every valid layout lies inside some maximal one (over all non-+me profiles).
    Names plain;
    for (const MigProfile& p : m.profiles) {
      if (!p.media_extensions) plain.push_back(p.name);
    }
    std::vector<std::vector<int>> maximal;
    for (const Names& names : EnumerateMaximalLayouts(m, plain)) {
      std::vector<int> counts(m.profiles.size(), 0);
      for (const std::string& n : names) ++counts[static_cast<size_t>(ProfileIndex(m, n))];
      EXPECT_TRUE(BruteForceFits(m, counts)) << m.id << ": maximal " << Show(names);
      maximal.push_back(counts);
    }
    for (const std::vector<int>& v : valid_vectors) {
      bool uses_me = false;
      for (size_t i = 0; i < v.size(); ++i) uses_me = uses_me || (v[i] > 0 && m.profiles[i].media_extensions);
      if (uses_me) continue;
      const bool covered = std::any_of(maximal.begin(), maximal.end(), [&](const std::vector<int>& mx) {
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i] > mx[i]) return false;
        }
        return true;
      });
      EXPECT_TRUE(covered) << m.id << ": " << Show(NamesOf(m, v));
    }
  }
}

TEST(Layout, AsymmetryOfThe3gPlacement) {
  const GpuModel& a100 = Model("A100-40GB");
  // 4 x 1g + 3g fits only with the 3g at start 4.
  Result<std::vector<PlacedInstance>> placed = PlaceLayout(a100, Concat({Repeat("1g.5gb", 4), {"3g.20gb"}}));
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  ASSERT_EQ(placed->size(), 5u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*placed)[static_cast<size_t>(i)].profile, "1g.5gb");
    EXPECT_EQ((*placed)[static_cast<size_t>(i)].start, i);
  }
  EXPECT_EQ((*placed)[4].profile, "3g.20gb");
  EXPECT_EQ((*placed)[4].start, 4);
  EXPECT_EQ((*placed)[4].size, 4);
  // A 3g at 4 leaves no 1g slot beside it: 3g + 3g + 1g is invalid although
  // its compute slices (7) and counts are within limits.
  Result<std::vector<PlacedInstance>> bad = PlaceLayout(a100, {"3g.20gb", "3g.20gb", "1g.5gb"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no free placement for 1g.5gb on A100-40GB"), std::string::npos)
      << bad.status().message();
  // A 3g at 0 leaves 1g slots 4, 5, 6: three more 1g fit, and no fourth.
  EXPECT_TRUE(LayoutFits(a100, Concat({{"3g.20gb"}, Repeat("1g.5gb", 3)})));
  EXPECT_TRUE(LayoutFits(a100, Concat({{"3g.20gb"}, Repeat("1g.5gb", 4)})));
  EXPECT_FALSE(LayoutFits(a100, Concat({{"3g.20gb"}, Repeat("1g.5gb", 5)})));
  // 2 x 1g.10gb (2-slice 1g) + 3g: the 1g.10gb take 0 and 2, the 3g 4.
  EXPECT_TRUE(LayoutFits(a100, {"1g.10gb", "1g.10gb", "3g.20gb"}));
  EXPECT_FALSE(LayoutFits(a100, {"1g.10gb", "1g.10gb", "1g.10gb", "3g.20gb"}));
  // Slice 7 is reachable only by 1g.10gb (start 6), 3g (start 4) and 7g.
  Result<std::vector<PlacedInstance>> full = PlaceLayout(a100, Concat({Repeat("2g.10gb", 3), {"1g.10gb"}}));
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->back().profile, "1g.10gb");
  EXPECT_EQ(full->back().start, 6);
  // Compute 7 and 8 slices, yet no placement: with 4g at 0 and both 1g.10gb
  // at 4 and 6 the 1g.5gb has no start left (7 is not a 1g.5gb start).
  EXPECT_FALSE(LayoutFits(a100, {"4g.20gb", "1g.10gb", "1g.10gb", "1g.5gb"}));
}

// Driver R510+ is assumed (the catalog's notes say so): 4g + 3g is valid.
// Older drivers refused it; the MIG User Guide says newer drivers allow it,
// NVIDIA's 19-configuration figure includes it, and every GPU Operator
// release that ships mig-manager needs a driver newer than R510 anyway.
TEST(Layout, FourGPlusThreeGIsValid) {
  Result<std::vector<PlacedInstance>> placed = PlaceLayout(Model("A100-40GB"), {"3g.20gb", "4g.20gb"});
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  ASSERT_EQ(placed->size(), 2u);
  EXPECT_EQ((*placed)[0].profile, "4g.20gb");
  EXPECT_EQ((*placed)[0].start, 0);
  EXPECT_EQ((*placed)[1].profile, "3g.20gb");
  EXPECT_EQ((*placed)[1].start, 4);
  EXPECT_TRUE(LayoutFits(Model("H100-80GB"), {"4g.40gb", "3g.40gb"}));
  EXPECT_FALSE(LayoutFits(Model("A100-40GB"), {"4g.20gb", "3g.20gb", "1g.5gb"}));  // compute 8 > 7
}

TEST(Layout, A30Combinations) {
  const GpuModel& a30 = Model("A30");
  EXPECT_TRUE(LayoutFits(a30, {"4g.24gb"}));
  EXPECT_TRUE(LayoutFits(a30, {"2g.12gb", "2g.12gb"}));
  EXPECT_TRUE(LayoutFits(a30, {"2g.12gb", "1g.6gb", "1g.6gb"}));
  EXPECT_TRUE(LayoutFits(a30, Repeat("1g.6gb", 4)));
  EXPECT_FALSE(LayoutFits(a30, {"2g.12gb", "2g.12gb", "1g.6gb"}));
  EXPECT_FALSE(LayoutFits(a30, {"4g.24gb", "1g.6gb"}));
  EXPECT_FALSE(LayoutFits(a30, Repeat("1g.6gb", 5)));
  EXPECT_FALSE(LayoutFits(a30, {"1g.5gb"}));  // an A100 profile
}

TEST(Layout, MediaExtensionRules) {
  const GpuModel& a100 = Model("A100-40GB");
  EXPECT_TRUE(LayoutFits(a100, {"1g.5gb+me"}));
  EXPECT_TRUE(LayoutFits(a100, {"1g.5gb+me", "2g.10gb", "2g.10gb", "2g.10gb"}));
  EXPECT_TRUE(LayoutFits(a100, {"1g.5gb+me", "2g.10gb", "4g.20gb"}));
  Result<std::vector<PlacedInstance>> two = PlaceLayout(a100, {"1g.5gb+me", "1g.5gb+me"});
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(), "too many 1g.5gb+me (2 > max 1 per GPU on A100-40GB)");
  // NVIDIA documents no rule against a 1g+me beside other 1g instances:
  // only the media extensions are limited to one instance.
  EXPECT_TRUE(LayoutFits(a100, {"1g.5gb+me", "1g.5gb"}));
  EXPECT_TRUE(LayoutFits(a100, Concat({{"1g.5gb+me"}, Repeat("1g.5gb", 6)})));
  EXPECT_TRUE(LayoutFits(a100, {"1g.5gb+me", "1g.10gb", "1g.10gb", "1g.10gb"}));
  EXPECT_FALSE(LayoutFits(a100, Concat({{"1g.5gb+me"}, Repeat("1g.5gb", 7)})));  // 8 instances > 7
  // A30 has two +me profiles; only one +me instance per GPU.
  const GpuModel& a30 = Model("A30");
  Result<std::vector<PlacedInstance>> both = PlaceLayout(a30, {"1g.6gb+me", "2g.12gb+me"});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(), "at most one +me instance per GPU, got 2");
  // A 2g+me may sit beside 1g instances too.
  EXPECT_TRUE(LayoutFits(a30, {"2g.12gb+me", "1g.6gb", "1g.6gb"}));
  EXPECT_TRUE(LayoutFits(a30, {"2g.12gb+me", "2g.12gb"}));
}

TEST(Layout, ErrorMessagesSayWhy) {
  const GpuModel& a100 = Model("A100-40GB");
  Result<std::vector<PlacedInstance>> r = PlaceLayout(a100, {"1g.5gb", "9g.1gb"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "unknown profile \"9g.1gb\" for model A100-40GB (profiles: 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, "
            "3g.20gb, 4g.20gb, 7g.40gb)");
  r = PlaceLayout(a100, Repeat("1g.5gb", 8));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "too many 1g.5gb (8 > max 7 per GPU on A100-40GB)");
  r = PlaceLayout(a100, {"4g.20gb", "2g.10gb", "2g.10gb"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "compute slices 8 > 7 on A100-40GB");
  r = PlaceLayout(a100, {"3g.20gb", "3g.20gb", "2g.10gb"});  // compute 8 is checked before placement
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "compute slices 8 > 7 on A100-40GB");
  r = PlaceLayout(a100, {"7g.40gb", "1g.5gb"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "compute slices 8 > 7 on A100-40GB");
  r = PlaceLayout(a100, {"1g.5gb", "4g.20gb", "1g.10gb", "1g.10gb"});  // counts and compute (7) are fine
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "no free placement for 1g.5gb on A100-40GB: it may start only at memory slice {0,1,2,3,4,5,6} and "
            "takes 1 of 8 slices, which overlap the other instances");
  r = PlaceLayout(Model("L4"), {"1g.5gb"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "model L4 has no MIG");
  EXPECT_FALSE(LayoutFits(Model("L4"), {}));
}

TEST(Layout, PlacementIsDeterministicLargestFirstLowestStart) {
  // NVIDIA's all-balanced A100-40GB layout.
  Result<std::vector<PlacedInstance>> placed =
      PlaceLayout(Model("A100-40GB"), {"1g.5gb", "2g.10gb", "3g.20gb", "1g.5gb"});
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  std::vector<std::pair<std::string, int>> got;
  for (const PlacedInstance& p : *placed) got.emplace_back(p.profile, p.start);
  const std::vector<std::pair<std::string, int>> want = {{"2g.10gb", 0}, {"1g.5gb", 2}, {"1g.5gb", 3}, {"3g.20gb", 4}};
  EXPECT_EQ(got, want);
  // Larger instances take the lowest start when nothing forces otherwise.
  placed = PlaceLayout(Model("A100-40GB"), {"1g.5gb", "3g.20gb"});
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ((*placed)[0].profile, "3g.20gb");
  EXPECT_EQ((*placed)[0].start, 0);
  EXPECT_EQ((*placed)[1].start, 4);
  Result<std::vector<PlacedInstance>> empty = PlaceLayout(Model("A100-40GB"), {});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

// For every profile of every model: max_instances of it fit, one more does not.
TEST(Layout, MaxInstancesAgreeWithPlacements) {
  for (const GpuModel& m : MigCatalog::Builtin().models()) {
    for (const MigProfile& p : m.profiles) {
      EXPECT_TRUE(LayoutFits(m, Repeat(p.name, p.max_instances))) << m.id << " " << p.name;
      EXPECT_FALSE(LayoutFits(m, Repeat(p.name, p.max_instances + 1))) << m.id << " " << p.name;
    }
  }
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Every config of NVIDIA's GPU Operator default mig-parted ConfigMap (kept
// unchanged in testdata/nvidia/) must be a valid layout for the catalogued
// models it targets: with a device-filter, every model carrying one of the
// filter's PCI ids (and every id must belong to a catalogued model); without
// one, every MIG model offering all the profiles the config names.  Configs
// no catalogued model can take are listed, so a GPU NVIDIA adds to the file
// without the catalog following shows up here.
TEST(Layout, GpuOperatorDefaultConfigsFitTheModelsTheyTarget) {
  std::ifstream in(std::string(KUBEON_SOURCE_DIR) + "/testdata/nvidia/gpu-operator-default-mig-parted-config.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_FALSE(ss.str().empty());
  const YAML::Node config = YAML::Load(YAML::Load(ss.str())["data"]["config.yaml"].as<std::string>());
  const YAML::Node configs = config["mig-configs"];
  ASSERT_TRUE(configs.IsMap());
  const MigCatalog& catalog = MigCatalog::Builtin();
  std::set<std::string> untargeted;
  int checked = 0, filtered = 0;
  std::set<std::string> models_checked;
  for (const auto& named : configs) {
    const std::string name = named.first.as<std::string>();
    for (const YAML::Node& entry : named.second) {
      if (!entry["mig-enabled"].as<bool>()) continue;
      Names layout;
      for (const auto& device : entry["mig-devices"]) {
        const int n = device.second.as<int>();
        for (int k = 0; k < n; ++k) layout.push_back(device.first.as<std::string>());
      }
      if (layout.empty()) continue;  // all-enabled: MIG on, no instances
      std::vector<const GpuModel*> targets;
      if (const YAML::Node filter = entry["device-filter"]; filter) {
        ++filtered;
        std::vector<std::string> ids;
        if (filter.IsSequence()) {
          for (const YAML::Node& id : filter) ids.push_back(Upper(id.as<std::string>()));
        } else {
          ids.push_back(Upper(filter.as<std::string>()));
        }
        for (const std::string& id : ids) {
          const GpuModel* owner = nullptr;
          for (const GpuModel& m : catalog.models()) {
            for (const std::string& pci : m.pci_device_ids) {
              if (Upper(pci) == id) owner = &m;
            }
          }
          ASSERT_NE(owner, nullptr) << name << ": device " << id << " is in no catalogued model";
          if (std::find(targets.begin(), targets.end(), owner) == targets.end()) targets.push_back(owner);
        }
      } else {
        for (const GpuModel& m : catalog.models()) {
          const bool offers_all = m.mig_capable && std::all_of(layout.begin(), layout.end(), [&](const std::string& p) {
                                    return FindProfile(m, p) != nullptr;
                                  });
          if (offers_all) targets.push_back(&m);
        }
        if (targets.empty()) untargeted.insert(name);
      }
      for (const GpuModel* m : targets) {
        Result<std::vector<PlacedInstance>> placed = PlaceLayout(*m, layout);
        EXPECT_TRUE(placed.ok()) << name << " on " << m->id << ": " << placed.status().message();
        models_checked.insert(m->id);
        ++checked;
      }
    }
  }
  // The RTX PRO 6000 +gfx / +me.all / -me variants are not catalogued (the
  // planner never asks for them); 3g.95gb, 4g.95gb and 7g.189gb name no GPU
  // in the file's comments (GB200's all-balanced uses 3g.93gb).
  const std::set<std::string> want_untargeted = {"all-1g.24gb.gfx", "all-1g.24gb.me.all", "all-1g.24gb-me",
                                                 "all-2g.48gb.gfx", "all-2g.48gb.me.all", "all-2g.48gb-me",
                                                 "all-4g.96gb.gfx", "all-3g.95gb",       "all-4g.95gb",
                                                 "all-7g.189gb"};
  EXPECT_EQ(untargeted, want_untargeted);
  EXPECT_GE(filtered, 15);
  // Every MIG model of the catalog is the target of at least one config.
  for (const GpuModel& m : catalog.models()) {
    if (m.mig_capable) {
      EXPECT_TRUE(models_checked.count(m.id)) << m.id << " is targeted by no NVIDIA config";
    }
  }
  std::printf("NVIDIA default mig-parted configs: %d (config, model) layouts checked\n", checked);
}

TEST(LayoutChecker, EncodingAndLookups) {
  EXPECT_EQ(LayoutChecker::EncodeCounts(std::vector<int>{}), 0u);
  EXPECT_EQ(LayoutChecker::EncodeCounts(std::vector<int>{1, 2, 15}), 0xF21u);
  const LayoutChecker checker(MigCatalog::Builtin());
  EXPECT_EQ(checker.ForModel("L4"), nullptr);
  EXPECT_EQ(checker.ForModel("nope"), nullptr);
  const LayoutChecker::Table* a30 = checker.ForModel("A30");
  ASSERT_NE(a30, nullptr);
  // A30 profiles in catalog order: 1g.6gb, 1g.6gb+me, 2g.12gb, 2g.12gb+me, 4g.24gb.
  EXPECT_TRUE(a30->Fits(std::vector<int>{2, 0, 1, 0, 0}));
  EXPECT_FALSE(a30->Fits(std::vector<int>{1, 0, 2, 0, 0}));
  EXPECT_FALSE(a30->Fits(std::vector<int>{2, 0, 1, 0}));       // wrong size
  EXPECT_FALSE(a30->Fits(std::vector<int>{-1, 0, 1, 0, 0}));   // negative
  EXPECT_FALSE(a30->Fits(std::vector<int>{16, 0, 0, 0, 0}));   // beyond the encoding
  EXPECT_TRUE(a30->Fits(std::vector<int>{0, 0, 0, 0, 0}));     // the empty layout
  EXPECT_FALSE(checker.Fits(Model("A30"), {"1g.5gb"}));
  EXPECT_TRUE(checker.Fits(Model("A30"), {"2g.12gb", "2g.12gb"}));
}

// Not a benchmark: records the cost figures layout.h quotes, and checks the
// checker's answers on the same loop.
TEST(LayoutChecker, CostFigures) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const LayoutChecker checker(MigCatalog::Builtin());
  const auto t1 = Clock::now();
  const GpuModel& a100 = Model("A100-40GB");
  const LayoutChecker::Table* table = checker.ForModel(a100.id);
  ASSERT_NE(table, nullptr);
  const std::vector<std::vector<int>> vectors = AllCountVectors(a100);
  size_t fits_checker = 0, fits_search = 0;
  const auto t2 = Clock::now();
  for (int round = 0; round < 20; ++round) {
    for (const std::vector<int>& v : vectors) fits_checker += table->Fits(v) ? 1 : 0;
  }
  const auto t3 = Clock::now();
  for (const std::vector<int>& v : vectors) fits_search += LayoutFits(a100, NamesOf(a100, v)) ? 1 : 0;
  const auto t4 = Clock::now();
  EXPECT_EQ(fits_checker, 20 * fits_search);
  auto ns = [](auto d) { return std::chrono::duration<double, std::nano>(d).count(); };
  std::printf("LayoutChecker build (all models): %.0f us; A100-40GB valid multisets: %zu\n", ns(t1 - t0) / 1000,
              table->valid_layouts());
  std::printf("Table::Fits: %.1f ns/call; LayoutFits (names, search): %.0f ns/call over %zu layouts\n",
              ns(t3 - t2) / (20.0 * static_cast<double>(vectors.size())),
              ns(t4 - t3) / static_cast<double>(vectors.size()), vectors.size());
}

}  // namespace
}  // namespace kubeon::mig
