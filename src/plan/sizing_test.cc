// Tests for sizing.h: smallest profile by memory and compute with headroom.
#include "plan/sizing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

namespace kubeon::plan {
namespace {

policy::GpuPolicy Policy(double headroom) {
  policy::GpuPolicy p;
  p.headroom = headroom;
  p.headroom_text = std::to_string(static_cast<int>(headroom * 100)) + "%";
  return p;
}

const mig::GpuModel& Model(const char* id) { return *mig::MigCatalog::Builtin().FindModel(id); }

TEST(Sizing, SmallestProfileWithHeadroom) {
  const auto& a100 = Model("A100-40GB");
  EXPECT_EQ(SizeForMig(a100, Policy(0.2), 4000, 0.05).profile->name, "1g.5gb");   // 4800 <= 4864
  EXPECT_EQ(SizeForMig(a100, Policy(0.2), 4100, 0.05).profile->name, "1g.10gb");  // 4920 > 4864; 1 compute slice
  EXPECT_EQ(SizeForMig(a100, Policy(0.2), 4100, 0.20).profile->name, "2g.10gb");  // 24% > 1/7
  EXPECT_EQ(SizeForMig(a100, Policy(0.2), 12000, 0.05).profile->name, "3g.20gb");
  EXPECT_EQ(SizeForMig(a100, Policy(0.2), 12000, 0.45).profile->name, "4g.20gb");  // 54% > 3/7
  SizingResult busy = SizeForMig(a100, Policy(0.2), 20000, 0.1);  // 24000 > 19968: only 7g
  EXPECT_EQ(busy.decision, Decision::kUnchanged);
  EXPECT_NE(busy.reason.find("busy"), std::string::npos);
  EXPECT_NE(busy.reason.find("7g.40gb"), std::string::npos);
  EXPECT_EQ(SizeForMig(a100, Policy(0.0), 4864, 1.0 / 7).profile->name, "1g.5gb");  // boundaries inclusive
}

TEST(Sizing, PolicyRestrictsProfiles) {
  policy::GpuPolicy p = Policy(0.2);
  p.allowed_profiles = {"2g.10gb"};
  p.allowed_profiles_set = true;
  const auto& a100 = Model("A100-40GB");
  EXPECT_EQ(SizeForMig(a100, p, 100, 0.01).profile->name, "2g.10gb");
  SizingResult none = SizeForMig(a100, p, 12000, 0.05);
  EXPECT_EQ(none.decision, Decision::kUnchanged);
  EXPECT_NE(none.reason.find("no allowed MIG profile is big enough"), std::string::npos);
  EXPECT_NE(none.reason.find("largest allowed on A100-40GB is 2g.10gb"), std::string::npos);
}

TEST(Sizing, TimeSlicing) {
  EXPECT_EQ(SizeForTimeSlicing(23034, Policy(0.2), 5000, 0.1).decision, Decision::kTimeSlicing);
  EXPECT_EQ(SizeForTimeSlicing(23034, Policy(0.2), 20000, 0.1).decision, Decision::kUnchanged);
  EXPECT_EQ(SizeForTimeSlicing(23034, Policy(0.2), 1000, 0.9).decision, Decision::kUnchanged);
}

TEST(Sizing, Formatting) {
  EXPECT_EQ(FormatMiB(4864), "4,864 MiB");
  EXPECT_EQ(FormatMiB(123), "123 MiB");
  EXPECT_EQ(FormatMiB(1234567), "1,234,567 MiB");
  EXPECT_EQ(FormatPercent(0.125), "12.5%");
}

// FormatPercent prints as printf("%.1f%%", ratio * 100) does, halfway cases,
// signs, huge values, infinities and NaN included.
TEST(Sizing, FormatPercentPrintsAsPrintf) {
  std::vector<double> ratios = {0,       -0.0,    0.00125, 0.00135, 0.0005,  0.9995, 1.0 / 3, 2.0 / 3, 0.999999,
                                1e-300,  -0.5,    12.345,  1e300,   -1e300,  5e-324, std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(), std::nan("")};
  for (int i = 0; i <= 20000; ++i) ratios.push_back(i / 20000.0);
  for (int i = 0; i <= 800; ++i) ratios.push_back(i / 400.0);  // compute histogram bin edges
  for (int i = 0; i <= 800; ++i) ratios.push_back(i / 400.0 * 1.3);  // and with headroom
  uint64_t seed = 20251103;
  for (int i = 0; i < 20000; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    ratios.push_back(static_cast<double>(seed >> 11) / static_cast<double>(1ULL << 53) * (i % 2 ? 2.0 : 1e6));
  }
  for (double r : ratios) {
    char want[512];
    std::snprintf(want, sizeof(want), "%.1f%%", r * 100.0);
    EXPECT_EQ(FormatPercent(r), want) << r;
  }
}

}  // namespace
}  // namespace kubeon::plan
