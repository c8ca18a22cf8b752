// Tests of the MIG catalog: the built-in data is valid and complete, product
// labels match the right model, and Parse names the field at fault.
#include "mig/catalog.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kubeon::mig {
namespace {

using nlohmann::json;

const MigCatalog& Cat() { return MigCatalog::Builtin(); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string IdOf(const GpuModel* m) { return m == nullptr ? "<nullptr>" : m->id; }

TEST(BuiltinCatalog, ParsesAndIsTheDataFileOnDisk) {
  Result<MigCatalog> parsed = MigCatalog::Parse(BuiltinCatalogJson(), "builtin");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  // The embedded bytes must be the checked-in file (a stale build would differ).
  const std::string on_disk = ReadFile(std::string(KUBEON_SOURCE_DIR) + "/data/mig-catalog.json");
  ASSERT_FALSE(on_disk.empty());
  EXPECT_EQ(std::string(BuiltinCatalogJson()), on_disk);
  EXPECT_EQ(&MigCatalog::Builtin(), &MigCatalog::Builtin());
  EXPECT_EQ(parsed->models().size(), Cat().models().size());
}

TEST(BuiltinCatalog, HasEveryModelTheReferenceNames) {
  for (const char* id : {"A100-40GB", "A100-80GB", "A30", "H100-80GB", "H100-NVL-94GB", "H100-96GB", "H200",
                         "GH200-144GB", "B200", "GB200", "B300", "GB300", "RTX-PRO-6000"}) {
    const GpuModel* m = Cat().FindModel(id);
    ASSERT_NE(m, nullptr) << id;
    EXPECT_TRUE(m->mig_capable) << id;
  }
  struct NoMig {
    const char* id;
    int64_t memory_mib;
  };
  for (const NoMig& n : {NoMig{"L40S", 46068}, NoMig{"L40", 46068}, NoMig{"L4", 23034}, NoMig{"A10G", 23028},
                         NoMig{"A10", 23028}, NoMig{"T4", 15360}, NoMig{"V100-16GB", 16160},
                         NoMig{"V100-32GB", 32510}}) {
    const GpuModel* m = Cat().FindModel(n.id);
    ASSERT_NE(m, nullptr) << n.id;
    EXPECT_FALSE(m->mig_capable) << n.id;
    EXPECT_EQ(m->memory_mib, n.memory_mib) << n.id;
    EXPECT_TRUE(m->profiles.empty()) << n.id;
    EXPECT_FALSE(m->memory_source.empty()) << n.id;
  }
  EXPECT_EQ(Cat().FindModel("no-such-gpu"), nullptr);
}

TEST(BuiltinCatalog, EveryProfileHasMemoryAndPlacementsInBounds) {
  for (const GpuModel& m : Cat().models()) {
    EXPECT_GT(m.memory_mib, 0) << m.id;
    EXPECT_FALSE(m.product_labels.empty()) << m.id;
    if (!m.mig_capable) continue;
    EXPECT_FALSE(m.profiles.empty()) << m.id;
    for (const MigProfile& p : m.profiles) {
      const std::string what = m.id + " " + p.name;
      EXPECT_GT(p.memory_mib, 0) << what;
      EXPECT_LE(p.memory_mib, m.memory_mib) << what;
      EXPECT_FALSE(p.memory_source.empty()) << what;
      EXPECT_GE(p.compute_slices, 1) << what;
      EXPECT_LE(p.compute_slices, m.compute_slices) << what;
      EXPECT_LE(p.max_instances, static_cast<int>(p.starts.size())) << what;
      ASSERT_FALSE(p.starts.empty()) << what;
      for (int s : p.starts) {
        EXPECT_GE(s, 0) << what;
        EXPECT_LE(s + p.memory_slices, m.memory_slices) << what;
      }
      EXPECT_EQ(p.media_extensions, p.name.size() > 3 && p.name.substr(p.name.size() - 3) == "+me") << what;
      // The name starts with the compute slice count ("3g.20gb" -> 3).
      EXPECT_EQ(std::to_string(p.compute_slices) + "g.", p.name.substr(0, p.name.find('.') + 1)) << what;
    }
  }
}

// A larger instance never has less memory than a smaller one of the same
// model; a derived value must not claim more than the GPU's share.
TEST(BuiltinCatalog, MemoryGrowsWithMemorySlices) {
  for (const GpuModel& m : Cat().models()) {
    for (const MigProfile& a : m.profiles) {
      for (const MigProfile& b : m.profiles) {
        const std::string what = m.id + " " + a.name + " " + b.name;
        if (a.memory_slices < b.memory_slices) {
          EXPECT_LT(a.memory_mib, b.memory_mib) << what;
        }
        if (a.memory_slices == b.memory_slices) {
          EXPECT_EQ(a.memory_mib, b.memory_mib) << what;
        }
      }
      if (a.uncertain) {
        EXPECT_LE(a.memory_mib * m.memory_slices, m.memory_mib * a.memory_slices) << m.id << " " << a.name;
      }
    }
  }
}

TEST(BuiltinCatalog, ReferenceValuesForA100AndA30) {
  const GpuModel* a100 = Cat().FindModel("A100-40GB");
  ASSERT_NE(a100, nullptr);
  struct Want {
    const char* name;
    int id, cs, ms, max;
    std::vector<int> starts;
    int64_t mib;
  };
  for (const Want& w : {Want{"1g.5gb", 19, 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}, 4864},
                        Want{"1g.5gb+me", 20, 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 4864},
                        Want{"1g.10gb", 15, 1, 2, 4, {0, 2, 4, 6}, 9856}, Want{"2g.10gb", 14, 2, 2, 3, {0, 2, 4}, 9856},
                        Want{"3g.20gb", 9, 3, 4, 2, {0, 4}, 19968}, Want{"4g.20gb", 5, 4, 4, 1, {0}, 19968},
                        Want{"7g.40gb", 0, 7, 8, 1, {0}, 40192}}) {
    const MigProfile* p = FindProfile(*a100, w.name);
    ASSERT_NE(p, nullptr) << w.name;
    EXPECT_EQ(p->id, w.id) << w.name;
    EXPECT_EQ(p->compute_slices, w.cs) << w.name;
    EXPECT_EQ(p->memory_slices, w.ms) << w.name;
    EXPECT_EQ(p->max_instances, w.max) << w.name;
    EXPECT_EQ(p->starts, w.starts) << w.name;
    EXPECT_EQ(p->memory_mib, w.mib) << w.name;
    EXPECT_FALSE(p->uncertain) << w.name;
  }
  const GpuModel* a30 = Cat().FindModel("A30");
  ASSERT_NE(a30, nullptr);
  EXPECT_EQ(a30->compute_slices, 4);
  EXPECT_EQ(a30->memory_slices, 4);
  ASSERT_NE(FindProfile(*a30, "2g.12gb"), nullptr);
  EXPECT_EQ(FindProfile(*a30, "2g.12gb")->starts, (std::vector<int>{0, 2}));
  EXPECT_EQ(FindProfile(*a30, "4g.24gb")->memory_mib, 23344);
  EXPECT_EQ(ProfileIndex(*a30, "1g.6gb"), 0);
  EXPECT_EQ(ProfileIndex(*a30, "3g.20gb"), -1);
  EXPECT_EQ(FindProfile(*a30, "3g.20gb"), nullptr);
}

TEST(BuiltinCatalog, UncertainValuesAreFlaggedAndExplained) {
  // No capture gives B300 memory: every B300 profile is derived.
  const GpuModel* b300 = Cat().FindModel("B300");
  ASSERT_NE(b300, nullptr);
  for (const MigProfile& p : b300->profiles) {
    EXPECT_TRUE(p.uncertain) << p.name;
    EXPECT_TRUE(p.placements_uncertain) << p.name;
    EXPECT_NE(p.memory_source.find("derived"), std::string::npos) << p.name;
  }
  // H200 7g memory was never captured; its 1g was.
  const GpuModel* h200 = Cat().FindModel("H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_TRUE(FindProfile(*h200, "7g.141gb")->uncertain);
  EXPECT_FALSE(FindProfile(*h200, "1g.18gb")->uncertain);
  EXPECT_EQ(FindProfile(*h200, "1g.18gb")->memory_mib, 16 * 1024);
  // A value from the name alone would say 18 GiB; the capture says 16.00.
  EXPECT_LT(FindProfile(*h200, "1g.18gb")->memory_mib, 18 * 1024);
}

// GB200 and GB300 as NVIDIA's default mig-parted config and the GB200 -lgip
// captures name them: profile names and per-GPU counts.
TEST(BuiltinCatalog, GraceBlackwellModels) {
  struct Want {
    const char* model;
    const char* pci;
    std::vector<std::pair<std::string, int>> profiles;  // name, max_instances
  };
  for (const Want& w : {Want{"GB200",
                             "0x294110DE",
                             {{"1g.23gb", 7}, {"1g.23gb+me", 1}, {"1g.47gb", 4}, {"2g.47gb", 3}, {"3g.93gb", 2},
                              {"4g.93gb", 1}, {"7g.186gb", 1}}},
                        Want{"GB300",
                             "0x31C210DE",
                             {{"1g.35gb", 7}, {"1g.35gb+me", 1}, {"1g.70gb", 4}, {"2g.70gb", 3}, {"3g.139gb", 2},
                              {"4g.139gb", 1}, {"7g.278gb", 1}}}}) {
    const GpuModel* m = Cat().FindModel(w.model);
    ASSERT_NE(m, nullptr) << w.model;
    EXPECT_EQ(m->pci_device_ids, std::vector<std::string>{w.pci}) << w.model;
    ASSERT_EQ(m->profiles.size(), w.profiles.size()) << w.model;
    for (size_t i = 0; i < w.profiles.size(); ++i) {
      EXPECT_EQ(m->profiles[i].name, w.profiles[i].first) << w.model;
      EXPECT_EQ(m->profiles[i].max_instances, w.profiles[i].second) << w.model << " " << w.profiles[i].first;
      EXPECT_TRUE(m->profiles[i].placements_uncertain) << w.model << " " << w.profiles[i].first;
    }
  }
  // Captured on GB200: 1g at 20.00 GiB (the smaller of two drivers), 2-slice at 45.50 GiB.
  const GpuModel& gb200 = *Cat().FindModel("GB200");
  EXPECT_EQ(FindProfile(gb200, "1g.23gb")->memory_mib, 20480);
  EXPECT_FALSE(FindProfile(gb200, "1g.23gb")->uncertain);
  EXPECT_EQ(FindProfile(gb200, "2g.47gb")->memory_mib, 46592);
  EXPECT_TRUE(FindProfile(gb200, "7g.186gb")->uncertain);
  // Nothing of GB300 was captured.
  for (const MigProfile& p : Cat().FindModel("GB300")->profiles) EXPECT_TRUE(p.uncertain && p.id_uncertain) << p.name;
}

// A100-80GB 1g.10gb: 9.50 GiB in public -lgip captures, not the mock's 9856 MiB.
TEST(BuiltinCatalog, A100_80GbOneSliceMemoryIsWhatTheDriverReports) {
  const GpuModel& a100 = *Cat().FindModel("A100-80GB");
  EXPECT_EQ(FindProfile(a100, "1g.10gb")->memory_mib, 9728);
  EXPECT_EQ(FindProfile(a100, "1g.10gb+me")->memory_mib, 9728);
}

// RTX PRO 6000 placements in the 12-unit grid nvidia-smi mig -lgipp prints.
TEST(BuiltinCatalog, RtxPro6000PlacementsAsLgippPrintsThem) {
  const GpuModel& rtx = *Cat().FindModel("RTX-PRO-6000");
  EXPECT_EQ(rtx.memory_slices, 12);
  EXPECT_EQ(FindProfile(rtx, "1g.24gb")->starts, (std::vector<int>{0, 3, 6, 9}));
  EXPECT_EQ(FindProfile(rtx, "1g.24gb")->memory_slices, 3);
  EXPECT_EQ(FindProfile(rtx, "1g.24gb+me")->starts, (std::vector<int>{0, 3, 6, 9}));
  EXPECT_EQ(FindProfile(rtx, "2g.48gb")->starts, (std::vector<int>{0, 6}));
  EXPECT_EQ(FindProfile(rtx, "2g.48gb")->memory_slices, 6);
  EXPECT_EQ(FindProfile(rtx, "4g.96gb")->starts, (std::vector<int>{0}));
  EXPECT_EQ(FindProfile(rtx, "4g.96gb")->memory_slices, 12);
  for (const MigProfile& p : rtx.profiles) EXPECT_FALSE(p.placements_uncertain) << p.name;
}

// Sources are cited by name (issue numbers, guides), never by a path on one machine.
TEST(BuiltinCatalog, SourcesAreCitedByNameNotByPath) {
  const std::string json(BuiltinCatalogJson());
  for (const char* path : {"/work/", "/home/", "/tmp/", "/Users/", "C:\\"}) {
    EXPECT_EQ(json.find(path), std::string::npos) << path;
  }
}

TEST(BuiltinCatalog, ProfileExistsOnAnyMigModel) {
  EXPECT_TRUE(Cat().ProfileExists("1g.5gb"));
  EXPECT_TRUE(Cat().ProfileExists("1g.6gb+me"));
  EXPECT_TRUE(Cat().ProfileExists("7g.141gb"));
  EXPECT_FALSE(Cat().ProfileExists("9g.1gb"));
  EXPECT_FALSE(Cat().ProfileExists("1G.5GB"));
  EXPECT_FALSE(Cat().ProfileExists(""));
}

TEST(MatchProduct, LabelsFromTheReference) {
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A100-SXM4-40GB")), "A100-40GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("A100-SXM4-40GB")), "A100-40GB");  // older driver, no prefix
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb")), "A100-40GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("A100-SXM4-40GB-MIG-1g.5gb-SHARED")), "A100-40GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A100-SXM4-80GB-SHARED")), "A100-80GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A100-80GB-PCIe")), "A100-80GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-80GB-HBM3")), "H100-80GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-NVL")), "H100-NVL-94GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H200")), "H200");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H200-NVL")), "H200");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H20")), "H100-96GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-B200")), "B200");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-GB200")), "GB200");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-GB300")), "GB300");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A800-40GB-PCIe")), "A100-40GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-SXM5-94GB")), "H100-NVL-94GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A30")), "A30");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-L4")), "L4");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-L40S")), "L40S");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-L40")), "L40");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A10G")), "A10G");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-A10")), "A10");
  EXPECT_EQ(IdOf(Cat().MatchProduct("Tesla-T4")), "T4");
  EXPECT_EQ(IdOf(Cat().MatchProduct("Tesla-T4-SHARED")), "T4");
  EXPECT_EQ(IdOf(Cat().MatchProduct("Tesla-V100-SXM2-16GB")), "V100-16GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("Tesla-V100-SXM2-32GB")), "V100-32GB");
}

TEST(MatchProduct, NormalisationIsCaseInsensitiveAndAcceptsDcgmModelNames) {
  EXPECT_EQ(IdOf(Cat().MatchProduct("nvidia-a100-sxm4-40gb")), "A100-40GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA A100-SXM4-40GB")), "A100-40GB");  // dcgm modelName, with a space
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA H100 80GB HBM3")), "H100-80GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("  NVIDIA-L4  ")), "L4");
  EXPECT_EQ(IdOf(Cat().MatchProduct("L4")), "L4");
}

TEST(MatchProduct, UnknownLabelsGiveNullptr) {
  EXPECT_EQ(Cat().MatchProduct("NVIDIA-GeForce-RTX-4090"), nullptr);
  EXPECT_EQ(Cat().MatchProduct("NVIDIA-A100"), nullptr);  // a family, not a product
  EXPECT_EQ(Cat().MatchProduct("NVIDIA-A100-SXM4-40GBX"), nullptr);
  EXPECT_EQ(Cat().MatchProduct(""), nullptr);
  EXPECT_EQ(Cat().MatchProduct("-SHARED"), nullptr);
  EXPECT_EQ(Cat().MatchProduct("NVIDIA-"), nullptr);
}

TEST(MatchProduct, MemoryBreaksTiesBetweenModelsSharingALabel) {
  // NVIDIA-H100-PCIe is carried by the 80GB card and (uncertain) the 94GB one.
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-PCIe")), "H100-80GB");  // unknown memory: catalog order
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-PCIe", 81559)), "H100-80GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-PCIe", 95830)), "H100-NVL-94GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("H100-PCIe-SHARED", 95830)), "H100-NVL-94GB");
  // NVIDIA-H20: 96 GB (H100-96GB profiles) or 141 GB (H200 profiles).
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H20", 97871)), "H100-96GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H20", 143771)), "H200");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H20-MIG-1g.18gb", 16384)), "H200");
  // Memory does not override an unambiguous label.
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-L4", 80000)), "L4");
}

TEST(MatchProduct, MigSingleStrategyUsesTheProfileAndItsMemory) {
  // GFD reports the MIG device's memory under the single strategy.
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-PCIe-MIG-1g.10gb", 9856)), "H100-80GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-PCIe-MIG-1g.12gb", 11008)), "H100-NVL-94GB");
  EXPECT_EQ(IdOf(Cat().MatchProduct("NVIDIA-H100-PCIe-MIG-1g.12gb")), "H100-NVL-94GB");
}

TEST(SplitProductLabel, SuffixesAndSanitising) {
  ProductLabelParts p = SplitProductLabel("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED");
  EXPECT_EQ(p.base, "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(p.mig_profile, "1g.5gb");
  EXPECT_TRUE(p.shared);
  p = SplitProductLabel("NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p.base, "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(p.mig_profile, "");
  EXPECT_FALSE(p.shared);
  p = SplitProductLabel("NVIDIA-MIG-Thing");  // "-MIG-" not followed by a profile
  EXPECT_EQ(p.base, "NVIDIA-MIG-Thing");
  EXPECT_EQ(p.mig_profile, "");
  EXPECT_EQ(SplitProductLabel("NVIDIA (R) A10*").base, "NVIDIA-R-A10");
  EXPECT_EQ(NormalizeProductLabel("Tesla-T4"), "T4");
  EXPECT_EQ(NormalizeProductLabel("nvidia-l4-shared"), "L4");
}

// ---- Parse errors name the model, profile and field.

json MinimalCatalog() {
  return json::parse(R"({
    "version": 1,
    "models": [{
      "id": "X100", "display": "Test GPU", "mig_capable": true, "product_labels": ["NVIDIA-X100"],
      "memory_mib": 8000, "memory_source": "test", "compute_slices": 7, "memory_slices": 8,
      "max_instances": 7, "pci_device_ids": ["0x12345678"], "source": "test",
      "profiles": [
        {"name": "1g.1gb", "id": 19, "compute_slices": 1, "memory_slices": 1, "max_instances": 7,
         "starts": [0,1,2,3,4,5,6], "memory_mib": 900, "media_extensions": false,
         "memory_source": "test", "uncertain": false},
        {"name": "3g.4gb", "id": 9, "compute_slices": 3, "memory_slices": 4, "max_instances": 2,
         "starts": [0,4], "memory_mib": 3900, "media_extensions": false,
         "memory_source": "test", "uncertain": false}]}]})");
}

std::string ParseError(const json& doc) {
  Result<MigCatalog> r = MigCatalog::Parse(doc.dump(), "test.json");
  return r.ok() ? "<parsed>" : r.status().message();
}

TEST(Parse, MinimalCatalogParses) {
  Result<MigCatalog> r = MigCatalog::Parse(MinimalCatalog().dump(), "test.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->models().size(), 1u);
  EXPECT_EQ(r->models()[0].profiles[1].starts, (std::vector<int>{0, 4}));
  EXPECT_EQ(IdOf(r->MatchProduct("X100")), "X100");
}

TEST(Parse, MissingProfileFieldIsNamed) {
  json doc = MinimalCatalog();
  doc["models"][0]["profiles"][1].erase("memory_mib");
  EXPECT_EQ(ParseError(doc), "test.json: models[0] \"X100\": profiles[1]: field \"memory_mib\": missing (required)");
}

TEST(Parse, WrongTypeIsNamed) {
  json doc = MinimalCatalog();
  doc["models"][0]["profiles"][0]["compute_slices"] = "1";
  EXPECT_EQ(ParseError(doc),
            "test.json: models[0] \"X100\": profiles[0] \"1g.1gb\": field \"compute_slices\": must be an integer, "
            "got string \"1\"");
  doc = MinimalCatalog();
  doc["models"][0]["mig_capable"] = 1;
  EXPECT_NE(ParseError(doc).find("field \"mig_capable\": must be true or false"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][0]["memory_mib"] = 900.5;
  EXPECT_NE(ParseError(doc).find("\"1g.1gb\": field \"memory_mib\": must be an integer"), std::string::npos);
}

TEST(Parse, PlacementsOutOfBoundsAreRejected) {
  json doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["starts"] = {0, 6};
  EXPECT_EQ(ParseError(doc),
            "test.json: models[0] \"X100\": profiles[1] \"3g.4gb\": field \"starts[1]\": start 6 + memory_slices 4 "
            "exceeds the model's 8 memory slices");
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["starts"] = {4, 0};
  EXPECT_NE(ParseError(doc).find("field \"starts[1]\": starts must be strictly increasing"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["starts"] = json::array();
  EXPECT_NE(ParseError(doc).find("field \"starts\": must list at least one start"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["starts"] = {-1, 4};
  EXPECT_NE(ParseError(doc).find("field \"starts[0]\": must be in [0, 7]"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["memory_slices"] = 9;
  EXPECT_NE(ParseError(doc).find("\"3g.4gb\": field \"memory_slices\": must be in [1, 8], got 9"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["max_instances"] = 3;  // only two starts
  EXPECT_NE(ParseError(doc).find("field \"max_instances\": 3 instances but only 2 starts"), std::string::npos);
}

TEST(Parse, DuplicatesAreRejected) {
  json doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["name"] = "1g.1gb";
  EXPECT_EQ(ParseError(doc),
            "test.json: models[0] \"X100\": field \"profiles[1]\": profile name \"1g.1gb\" appears twice");
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["id"] = 19;
  EXPECT_NE(ParseError(doc).find("profile id 19 of \"3g.4gb\" is also used by \"1g.1gb\""), std::string::npos);
  doc = MinimalCatalog();
  doc["models"].push_back(doc["models"][0]);
  EXPECT_EQ(ParseError(doc), "test.json: models[1]: field \"id\": \"X100\" is used by an earlier model");
  doc = MinimalCatalog();
  doc["models"][0]["product_labels"] = {"A", "A"};
  EXPECT_NE(ParseError(doc).find("field \"product_labels[1]\": repeats \"A\""), std::string::npos);
  // A repeated JSON key would silently win with nlohmann; the parser refuses it.
  std::string text = MinimalCatalog().dump();
  text.replace(text.find("\"version\":1"), 11, "\"version\":1,\"version\":1");
  Result<MigCatalog> r = MigCatalog::Parse(text, "test.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "test.json: duplicate key \"version\" (a key may appear only once per object)");
}

TEST(Parse, UnknownFieldsAndBadValuesAreRejected) {
  json doc = MinimalCatalog();
  doc["models"][0]["profiles"][0]["memroy_mib"] = 1;
  EXPECT_NE(ParseError(doc).find("profiles[0]: field \"memroy_mib\": unknown field (allowed: name, id,"),
            std::string::npos);
  doc = MinimalCatalog();
  doc["version"] = 2;
  EXPECT_EQ(ParseError(doc), "test.json: field \"version\": unsupported version 2 (expected 1)");
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][0]["media_extensions"] = true;
  EXPECT_NE(ParseError(doc).find("field \"media_extensions\": must be false"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["pci_device_ids"] = {"20B0"};
  EXPECT_NE(ParseError(doc).find("field \"pci_device_ids\": \"20B0\" is not of the form 0xDDDDVVVV"),
            std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["profiles"][1]["memory_mib"] = 9000;  // more than the GPU
  EXPECT_NE(ParseError(doc).find("\"3g.4gb\": field \"memory_mib\": must be in [1, 8000], got 9000"),
            std::string::npos);
  doc = MinimalCatalog();
  doc["models"][0]["product_labels_uncertain"] = {"NVIDIA-Y"};
  EXPECT_NE(ParseError(doc).find("\"NVIDIA-Y\" is not in product_labels"), std::string::npos);
  doc = MinimalCatalog();
  doc["models"] = json::array();
  EXPECT_EQ(ParseError(doc), "test.json: field \"models\": must be a non-empty list of models");
}

TEST(Parse, MigCapabilityMustAgreeWithSlicesAndProfiles) {
  json doc = MinimalCatalog();
  doc["models"][0]["mig_capable"] = false;
  EXPECT_NE(ParseError(doc).find("field \"compute_slices\": must be 0 for a model without MIG"), std::string::npos);
  json& m = doc["models"][0];
  m["compute_slices"] = 0;
  m["memory_slices"] = 0;
  m["max_instances"] = 0;
  EXPECT_NE(ParseError(doc).find("field \"profiles\": must be empty for a model without MIG"), std::string::npos);
  m["profiles"] = json::array();
  EXPECT_EQ(ParseError(doc), "<parsed>");
  m["mig_capable"] = true;
  EXPECT_NE(ParseError(doc).find("field \"compute_slices\": must be positive for a MIG-capable model"),
            std::string::npos);
}

TEST(Parse, SyntaxErrorsGiveLineAndColumn) {
  Result<MigCatalog> r = MigCatalog::Parse("{\n  \"version\": 1,\n  \"models\": [ }\n", "broken.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("broken.json: line 3, column ", 0), 0u) << r.status().message();
  EXPECT_NE(r.status().message().find("invalid JSON"), std::string::npos);
  r = MigCatalog::Parse("", "empty.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("empty.json: line 1"), std::string::npos);
  r = MigCatalog::Parse("[]", "array.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "array.json: must be a JSON object");
}

}  // namespace
}  // namespace kubeon::mig
