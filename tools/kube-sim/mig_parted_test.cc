// Tests for mig_parted.h: the mig-parted config format, GPU identification
// from GFD labels through the MIG catalog, and layout checks (kubeon_mig).
#include "mig_parted.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "mig/layout.h"

namespace kubeon::kubesim {
namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(KUBESIM_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const mig::GpuModel* A100_80() { return IdentifyGpuModel("NVIDIA-A100-SXM4-80GB", 81920); }
const mig::GpuModel* A100_40() { return IdentifyGpuModel("NVIDIA-A100-SXM4-40GB", 40960); }

NodeGpu A100_80Node() { return DescribeNodeGpu("NVIDIA-A100-SXM4-80GB", 81920, "true"); }

Outcome<bool> Layout(const mig::GpuModel* m, std::map<std::string, int> d) {
  EXPECT_NE(m, nullptr);
  if (m == nullptr) return ApiError::BadRequest("no model");
  return ValidateGpuLayout(*m, d);
}

// The error message of a failed layout, "" when it was accepted.
std::string LayoutError(const mig::GpuModel* m, std::map<std::string, int> d) {
  auto r = Layout(m, std::move(d));
  return r.ok() ? std::string() : r.error().message;
}

TEST(MigPartedConfigTest, ParsesEntries) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  const auto& hb = cfg.value().at("half-balanced");
  ASSERT_EQ(hb.size(), 2u);
  EXPECT_FALSE(hb[0].all_devices);
  EXPECT_EQ(hb[0].devices, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(hb[0].mig_enabled);
  EXPECT_EQ(hb[0].mig_devices.at("3g.40gb"), 1);
  EXPECT_FALSE(hb[1].mig_enabled);
  const auto& f = cfg.value().at("filtered");
  EXPECT_EQ(f[1].device_filter, (std::vector<std::string>{"0X20B210DE"}));
}

TEST(MigPartedConfigTest, ErrorsNameTheField) {
  auto bad_version = ParseMigPartedConfig("version: v2\nmig-configs: {}\n", "cm");
  ASSERT_FALSE(bad_version.ok());
  EXPECT_NE(bad_version.error().message.find("version"), std::string::npos);
  auto unknown = ParseMigPartedConfig("version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enable: true\n", "cm");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("mig-configs.x[0].mig-enable"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("line 5"), std::string::npos);
  EXPECT_FALSE(ParseMigPartedConfig("version: v1\nmig-configs:\n  x:\n    - devices: some\n", "cm").ok());
  EXPECT_FALSE(ParseMigPartedConfig("version: v1\nmig-configs:\n  x:\n    - mig-enabled: false\n      mig-devices: {\"1g.10gb\": 1}\n", "cm").ok());
  EXPECT_FALSE(ParseMigPartedConfig("version: [", "cm").ok());
}

TEST(GpuModelTest, IdentifiesFromTheCatalog) {
  ASSERT_NE(A100_80(), nullptr);
  EXPECT_EQ(A100_80()->id, "A100-80GB");
  EXPECT_EQ(A100_80(), mig::MigCatalog::Builtin().FindModel("A100-80GB"));
  ASSERT_NE(A100_40(), nullptr);
  EXPECT_EQ(A100_40()->id, "A100-40GB");
  auto id = [](const std::string& product, int64_t memory) {
    const mig::GpuModel* m = IdentifyGpuModel(product, memory);
    return m == nullptr ? std::string("<none>") : m->id;
  };
  EXPECT_EQ(id("NVIDIA-H100-80GB-HBM3", 81559), "H100-80GB");
  EXPECT_EQ(id("NVIDIA-H100-NVL", 95830), "H100-NVL-94GB");
  EXPECT_EQ(id("NVIDIA-H200", 143771), "H200");
  EXPECT_EQ(id("NVIDIA-A30", 24576), "A30");
  EXPECT_EQ(id("NVIDIA-B200", 0), "B200");
  // Suffixes and the memory tie-break are the catalog's.
  EXPECT_EQ(id("NVIDIA-A100-SXM4-40GB-SHARED", 0), "A100-40GB");
  EXPECT_EQ(id("NVIDIA-H100-PCIe", 81559), "H100-80GB");
  EXPECT_EQ(id("NVIDIA-H100-PCIe", 95830), "H100-NVL-94GB");
  // Known models without MIG are found, and say so.
  ASSERT_NE(IdentifyGpuModel("NVIDIA-L4", 23034), nullptr);
  EXPECT_FALSE(IdentifyGpuModel("NVIDIA-L4", 23034)->mig_capable);
  ASSERT_NE(IdentifyGpuModel("Tesla-T4", 0), nullptr);
  EXPECT_FALSE(IdentifyGpuModel("Tesla-T4", 0)->mig_capable);
  EXPECT_TRUE(A100_80()->mig_capable);
  // Unknown products are not guessed from their name or memory.
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-FOO", 0), nullptr);
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-A100-SXM9-77GB", 78848), nullptr);
  EXPECT_EQ(IdentifyGpuModel("", 40960), nullptr);
}

TEST(GpuModelTest, MigCapableFromLabelElseCatalog) {
  NodeGpu a = DescribeNodeGpu("NVIDIA-A100-SXM4-80GB", 81920, "");
  EXPECT_EQ(a.product, "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(a.model, A100_80());
  EXPECT_TRUE(a.mig_capable);
  EXPECT_FALSE(DescribeNodeGpu("NVIDIA-A100-SXM4-80GB", 81920, "false").mig_capable);
  EXPECT_FALSE(DescribeNodeGpu("NVIDIA-L4", 23034, "").mig_capable);
  EXPECT_TRUE(DescribeNodeGpu("NVIDIA-L4", 23034, "true").mig_capable);
  NodeGpu unknown = DescribeNodeGpu("NVIDIA-FOO", 0, "");
  EXPECT_EQ(unknown.model, nullptr);
  EXPECT_FALSE(unknown.mig_capable);
  EXPECT_TRUE(DescribeNodeGpu("NVIDIA-FOO", 0, "true").mig_capable);
}

TEST(GpuLayoutTest, ValidA100Layouts) {
  const mig::GpuModel* m = A100_80();
  EXPECT_TRUE(Layout(m, {{"1g.10gb", 7}}).ok());
  EXPECT_TRUE(Layout(m, {{"3g.40gb", 1}, {"4g.40gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {{"1g.10gb", 4}, {"3g.40gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {{"1g.20gb", 4}}).ok());
  EXPECT_TRUE(Layout(m, {{"7g.80gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {}).ok());
  const mig::GpuModel* small = A100_40();
  EXPECT_TRUE(Layout(small, {{"4g.20gb", 1}, {"3g.20gb", 1}}).ok());
  EXPECT_TRUE(Layout(small, {{"1g.5gb", 7}}).ok());
  EXPECT_TRUE(Layout(small, {{"3g.20gb", 2}}).ok());
  EXPECT_TRUE(Layout(small, {{"1g.5gb+me", 1}, {"2g.10gb", 1}, {"3g.20gb", 1}}).ok());
}

TEST(GpuLayoutTest, InvalidA100Layouts) {
  const mig::GpuModel* m = A100_80();
  EXPECT_FALSE(Layout(m, {{"1g.10gb", 8}}).ok());                       // max 7
  EXPECT_FALSE(Layout(m, {{"4g.40gb", 2}}).ok());                       // one 4g per GPU
  EXPECT_FALSE(Layout(m, {{"1g.10gb", 5}, {"3g.40gb", 1}}).ok());       // 8 compute slices
  EXPECT_FALSE(Layout(m, {{"1g.10gb", 1}, {"3g.40gb", 2}}).ok());       // 7 slices but no memory left
  EXPECT_FALSE(Layout(m, {{"1g.20gb", 4}, {"1g.10gb", 1}}).ok());       // memory exhausted
  EXPECT_FALSE(Layout(m, {{"1g.5gb", 1}}).ok());                        // a 40GB profile
  const mig::GpuModel* small = A100_40();
  EXPECT_FALSE(Layout(small, {{"3g.20gb", 3}}).ok());
  EXPECT_FALSE(Layout(small, {{"1g.5gb", 8}}).ok());
  EXPECT_FALSE(Layout(small, {{"4g.20gb", 1}, {"3g.20gb", 1}, {"1g.5gb", 1}}).ok());
  EXPECT_FALSE(Layout(small, {{"1g.5gb+me", 2}}).ok());
}

TEST(GpuLayoutTest, ErrorsAreTheCatalogs) {
  // PlaceLayout's messages pass through unchanged.
  const mig::GpuModel* small = A100_40();
  for (const std::map<std::string, int>& d : std::vector<std::map<std::string, int>>{
           {{"3g.20gb", 3}}, {{"1g.5gb", 8}}, {{"1g.10gb", 1}, {"3g.20gb", 2}}, {{"2g.20gb", 1}}}) {
    std::vector<std::string> instances;
    for (const auto& [name, n] : d) instances.insert(instances.end(), static_cast<size_t>(n), name);
    auto placed = mig::PlaceLayout(*small, instances);
    ASSERT_FALSE(placed.ok());
    EXPECT_EQ(LayoutError(small, d), placed.status().message());
  }
  EXPECT_NE(LayoutError(small, {{"1g.5gb", 8}}).find("too many 1g.5gb (8 > max 7"), std::string::npos);
  EXPECT_NE(LayoutError(small, {{"2g.20gb", 1}}).find("unknown profile \"2g.20gb\" for model A100-40GB"),
            std::string::npos);
  EXPECT_NE(LayoutError(A100_80(), {{"1g.10gb", 1}, {"3g.40gb", 2}}).find("no free placement"), std::string::npos);
  // A count far beyond any GPU is reported as written, without listing its instances.
  EXPECT_NE(LayoutError(small, {{"1g.5gb", 2000000000}}).find("2000000000 > max 7"), std::string::npos);
  EXPECT_NE(LayoutError(small, {{"1g.5gb", 2000000000}, {"9g.1gb", 2000000000}}).find("unknown profile \"9g.1gb\""),
            std::string::npos);
  const mig::GpuModel* l4 = IdentifyGpuModel("NVIDIA-L4", 23034);
  EXPECT_NE(LayoutError(l4, {{"1g.5gb", 1}}).find("model L4 has no MIG"), std::string::npos);
  EXPECT_NE(LayoutError(l4, {}).find("model L4 has no MIG"), std::string::npos);
}

TEST(GpuLayoutTest, OtherModels) {
  const mig::GpuModel* a30 = IdentifyGpuModel("NVIDIA-A30", 24576);
  EXPECT_TRUE(Layout(a30, {{"1g.6gb", 2}, {"2g.12gb", 1}}).ok());
  EXPECT_FALSE(Layout(a30, {{"2g.12gb", 2}, {"1g.6gb", 1}}).ok());
  EXPECT_FALSE(Layout(a30, {{"1g.6gb", 5}}).ok());
  const mig::GpuModel* nvl = IdentifyGpuModel("NVIDIA-H100-NVL", 95830);
  EXPECT_TRUE(Layout(nvl, {{"1g.12gb", 3}, {"4g.47gb", 1}}).ok());
  EXPECT_FALSE(Layout(nvl, {{"1g.12gb", 8}}).ok());
  EXPECT_FALSE(Layout(nvl, {{"4g.47gb", 2}}).ok());
  EXPECT_FALSE(Layout(nvl, {{"1g.12gb", 1}, {"4g.48gb", 1}}).ok());  // an H100-96GB profile
  const mig::GpuModel* b200 = IdentifyGpuModel("NVIDIA-B200", 183359);
  EXPECT_TRUE(Layout(b200, {{"3g.90gb", 2}}).ok());
  EXPECT_FALSE(Layout(b200, {{"3g.90gb", 2}, {"1g.23gb", 1}}).ok());
}

TEST(ApplyMigConfigTest, CountsDevicesAndFullGpus) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  auto hb = ApplyMigConfig(cfg.at("half-balanced"), 8, A100_80Node());
  ASSERT_TRUE(hb.ok()) << hb.error().message;
  EXPECT_EQ(hb.value().mig_gpus, 4);
  EXPECT_EQ(hb.value().full_gpus, 4);
  EXPECT_EQ(hb.value().devices.at("1g.10gb"), 8);
  EXPECT_EQ(hb.value().devices.at("3g.40gb"), 4);
  auto all = ApplyMigConfig(cfg.at("all-1g.10gb"), 8, A100_80Node());
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all.value().devices.at("1g.10gb"), 56);
  EXPECT_EQ(all.value().full_gpus, 0);
  auto off = ApplyMigConfig(cfg.at("all-disabled"), 8, A100_80Node());
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off.value().full_gpus, 8);
  EXPECT_TRUE(off.value().devices.empty());
  // Without the mig.capable label the catalog decides.
  auto h100 = ApplyMigConfig(cfg.at("all-1g.10gb"), 2, DescribeNodeGpu("NVIDIA-H100-80GB-HBM3", 81559, ""));
  ASSERT_TRUE(h100.ok()) << h100.error().message;
  EXPECT_EQ(h100.value().devices.at("1g.10gb"), 14);
}

TEST(ApplyMigConfigTest, DeviceFilterSelectsTheModel) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  // "0x20b210de" (lower case in the file) is an A100-80GB id.
  auto r = ApplyMigConfig(cfg.at("filtered"), 2, A100_80Node());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().devices.size(), 1u);
  EXPECT_EQ(r.value().devices.at("3g.40gb"), 4);
  // "0x20B010DE" is an A100-40GB id.
  auto small = ApplyMigConfig(cfg.at("filtered"), 2, DescribeNodeGpu("NVIDIA-A100-SXM4-40GB", 40960, ""));
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small.value().devices.size(), 1u);
  EXPECT_EQ(small.value().devices.at("1g.5gb"), 14);
  // A model neither filter names keeps MIG disabled, as does an unknown one.
  for (const NodeGpu& g : {DescribeNodeGpu("NVIDIA-H100-80GB-HBM3", 81559, ""), DescribeNodeGpu("NVIDIA-FOO", 0, "true")}) {
    auto none = ApplyMigConfig(cfg.at("filtered"), 2, g);
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_EQ(none.value().full_gpus, 2);
    EXPECT_TRUE(none.value().devices.empty());
  }
  // Filters parsed from either case match.
  auto mixed = ParseMigPartedConfig(
      "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n"
      "      device-filter: [\"0X20b510dE\", \"0x233010de\"]\n      mig-devices: {\"7g.80gb\": 1}\n",
      "cm");
  ASSERT_TRUE(mixed.ok()) << mixed.error().message;
  auto m = ApplyMigConfig(mixed.value().at("x"), 1, A100_80Node());  // A100-80GB lists 0x20B510DE
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().mig_gpus, 1);
}

TEST(ApplyMigConfigTest, Failures) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  EXPECT_FALSE(ApplyMigConfig(cfg.at("overlapping"), 8, A100_80Node()).ok());
  EXPECT_FALSE(ApplyMigConfig(cfg.at("too-many-4g"), 8, A100_80Node()).ok());
  auto wrong = ApplyMigConfig(cfg.at("wrong-model"), 8, A100_80Node());
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("GPU 0 (A100-80GB): unknown profile \"1g.5gb\""), std::string::npos)
      << wrong.error().message;
  auto range = ApplyMigConfig(cfg.at("out-of-range"), 8, A100_80Node());
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.error().message.find("out of range"), std::string::npos);
}

TEST(ApplyMigConfigTest, UnknownOrNonMigGpusFail) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  // Not in the catalog: failing, whatever the labels say.
  for (const char* label : {"", "true", "false"}) {
    auto r = ApplyMigConfig(cfg.at("all-1g.10gb"), 1, DescribeNodeGpu("NVIDIA-FOO", 81920, label));
    ASSERT_FALSE(r.ok()) << label;
    EXPECT_NE(r.error().message.find("GPU model \"NVIDIA-FOO\" is not in the MIG catalog"), std::string::npos)
        << r.error().message;
  }
  // ... unless no GPU is put in MIG mode.
  auto off = ApplyMigConfig(cfg.at("all-disabled"), 2, DescribeNodeGpu("NVIDIA-FOO", 0, ""));
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off.value().full_gpus, 2);
  // A catalog model without MIG.
  auto l4 = ApplyMigConfig(cfg.at("all-1g.10gb"), 1, DescribeNodeGpu("NVIDIA-L4", 23034, ""));
  ASSERT_FALSE(l4.ok());
  EXPECT_NE(l4.error().message.find("is not MIG capable"), std::string::npos) << l4.error().message;
  EXPECT_NE(l4.error().message.find("NVIDIA-L4"), std::string::npos) << l4.error().message;
  // A label claiming MIG does not make the catalog's geometry appear.
  auto l4_labelled = ApplyMigConfig(cfg.at("all-1g.10gb"), 1, DescribeNodeGpu("NVIDIA-L4", 23034, "true"));
  ASSERT_FALSE(l4_labelled.ok());
  EXPECT_NE(l4_labelled.error().message.find("model L4 has no MIG"), std::string::npos) << l4_labelled.error().message;
  // The label saying false wins over the catalog.
  auto off_label = ApplyMigConfig(cfg.at("all-1g.10gb"), 1, DescribeNodeGpu("NVIDIA-A100-SXM4-80GB", 81920, "false"));
  ASSERT_FALSE(off_label.ok());
  EXPECT_NE(off_label.error().message.find("is not MIG capable"), std::string::npos) << off_label.error().message;
}

}  // namespace
}  // namespace kubeon::kubesim
