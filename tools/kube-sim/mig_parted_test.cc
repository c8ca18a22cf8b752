// Tests for mig_parted.h: the mig-parted config format, GPU identification
// from GFD labels, and layout placement rules.
#include "mig_parted.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kubeon::kubesim {
namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(KUBESIM_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const GpuModel* A100_80() { return IdentifyGpuModel("NVIDIA-A100-SXM4-80GB", 81920); }

Outcome<bool> Layout(const GpuModel* m, std::map<std::string, int> d) { return ValidateGpuLayout(m, d); }

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

TEST(GpuModelTest, IdentifiesFromProductAndMemory) {
  ASSERT_NE(A100_80(), nullptr);
  EXPECT_EQ(A100_80()->name, "80GB");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-A100-SXM4-40GB", 40960)->name, "A100-40GB");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-H100-80GB-HBM3", 81559)->name, "80GB");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-H100-NVL", 95830)->name, "H100-NVL");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-H200", 143771)->name, "H200");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-A30", 24576)->name, "A30");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-A100-SXM4-40GB-SHARED", 0)->name, "A100-40GB");
  EXPECT_EQ(IdentifyGpuModel("NVIDIA-L4", 23034), nullptr);
  EXPECT_FALSE(IsMigCapableProduct("Tesla-T4"));
  EXPECT_TRUE(IsMigCapableProduct("NVIDIA-B200"));
}

TEST(GpuLayoutTest, ValidA100Layouts) {
  const GpuModel* m = A100_80();
  EXPECT_TRUE(Layout(m, {{"1g.10gb", 7}}).ok());
  EXPECT_TRUE(Layout(m, {{"3g.40gb", 1}, {"4g.40gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {{"1g.10gb", 4}, {"3g.40gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {{"1g.20gb", 4}}).ok());
  EXPECT_TRUE(Layout(m, {{"7g.80gb", 1}}).ok());
  EXPECT_TRUE(Layout(m, {}).ok());
}

TEST(GpuLayoutTest, InvalidA100Layouts) {
  const GpuModel* m = A100_80();
  EXPECT_FALSE(Layout(m, {{"1g.10gb", 8}}).ok());                       // max 7
  EXPECT_FALSE(Layout(m, {{"4g.40gb", 2}}).ok());                       // one 4g per GPU
  EXPECT_FALSE(Layout(m, {{"1g.10gb", 5}, {"3g.40gb", 1}}).ok());       // 8 compute slices
  EXPECT_FALSE(Layout(m, {{"1g.10gb", 1}, {"3g.40gb", 2}}).ok());       // 7 slices but no memory left
  EXPECT_FALSE(Layout(m, {{"1g.20gb", 4}, {"1g.10gb", 1}}).ok());       // memory exhausted
  EXPECT_FALSE(Layout(m, {{"1g.5gb", 1}}).ok());                        // a 40GB profile
  auto msg = Layout(m, {{"2g.10gb", 1}});
  ASSERT_FALSE(msg.ok());
  EXPECT_NE(msg.error().message.find("2g.10gb"), std::string::npos);
}

TEST(GpuLayoutTest, A30AndGenericRules) {
  const GpuModel* a30 = IdentifyGpuModel("NVIDIA-A30", 24576);
  EXPECT_TRUE(Layout(a30, {{"1g.6gb", 2}, {"2g.12gb", 1}}).ok());
  EXPECT_FALSE(Layout(a30, {{"2g.12gb", 2}, {"1g.6gb", 1}}).ok());
  EXPECT_TRUE(Layout(nullptr, {{"1g.12gb", 3}, {"4g.48gb", 1}}).ok());
  EXPECT_FALSE(Layout(nullptr, {{"1g.12gb", 8}}).ok());
  EXPECT_FALSE(Layout(nullptr, {{"4g.48gb", 2}}).ok());
  EXPECT_FALSE(Layout(nullptr, {{"5g.50gb", 1}}).ok());
  EXPECT_FALSE(Layout(nullptr, {{"big", 1}}).ok());
}

TEST(ApplyMigConfigTest, CountsDevicesAndFullGpus) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  auto hb = ApplyMigConfig(cfg.at("half-balanced"), 8, A100_80(), true);
  ASSERT_TRUE(hb.ok()) << hb.error().message;
  EXPECT_EQ(hb.value().mig_gpus, 4);
  EXPECT_EQ(hb.value().full_gpus, 4);
  EXPECT_EQ(hb.value().devices.at("1g.10gb"), 8);
  EXPECT_EQ(hb.value().devices.at("3g.40gb"), 4);
  auto all = ApplyMigConfig(cfg.at("all-1g.10gb"), 8, A100_80(), true);
  EXPECT_EQ(all.value().devices.at("1g.10gb"), 56);
  EXPECT_EQ(all.value().full_gpus, 0);
  auto off = ApplyMigConfig(cfg.at("all-disabled"), 8, A100_80(), true);
  EXPECT_EQ(off.value().full_gpus, 8);
  EXPECT_TRUE(off.value().devices.empty());
}

TEST(ApplyMigConfigTest, DeviceFilterSelectsTheModel) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  auto r = ApplyMigConfig(cfg.at("filtered"), 2, A100_80(), true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().devices.size(), 1u);
  EXPECT_EQ(r.value().devices.at("3g.40gb"), 4);
}

TEST(ApplyMigConfigTest, Failures) {
  auto cfg = ParseMigPartedConfig(ReadTestdata("mig-parted-config.yaml"), "test").value();
  EXPECT_FALSE(ApplyMigConfig(cfg.at("overlapping"), 8, A100_80(), true).ok());
  EXPECT_FALSE(ApplyMigConfig(cfg.at("too-many-4g"), 8, A100_80(), true).ok());
  EXPECT_FALSE(ApplyMigConfig(cfg.at("wrong-model"), 8, A100_80(), true).ok());
  auto range = ApplyMigConfig(cfg.at("out-of-range"), 8, A100_80(), true);
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.error().message.find("out of range"), std::string::npos);
  EXPECT_FALSE(ApplyMigConfig(cfg.at("all-1g.10gb"), 1, nullptr, false).ok());  // not MIG capable
}

}  // namespace
}  // namespace kubeon::kubesim
