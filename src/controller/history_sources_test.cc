#include "controller/history_sources.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kubeon::controller {
namespace {

TEST(FileHistorySource, ReadsThePlannedPodsDownsampled) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("history_sources_test_" + std::to_string(::getpid()) + ".om")).string();
  {
    std::ofstream f(path);
    for (int i = 0; i < 100; ++i) {
      f << "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"infer-1\"} " << (i == 42 ? 9000 : 1000 + i) << " "
        << 1000 + i * 60 << "\n";
      f << "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"other-1\"} 20000 " << 1000 + i * 60 << "\n";
    }
  }
  PolicyViews views;
  PolicyView v;
  v.name = "p";
  v.plan = plan::Plan();
  plan::WorkloadDecision w;
  w.ref = {"ml", "Deployment", "infer"};
  w.pods = {"infer-1"};
  v.plan->workloads.push_back(w);
  views.Put(v);
  FileHistorySource source(views, {path});
  auto s = source.MemoryMiB(w.ref, 10);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_LE(s->size(), 10u);
  double max = 0;
  for (const auto& p : *s) max = std::max(max, p.value);
  EXPECT_EQ(max, 9000);  // the spike survives; other-1's 20000 is not this workload's
  // Each point sits at its bucket's largest sample: the first bucket's is its last (values rise).
  EXPECT_EQ(s->front().unix_seconds, 1000 + 9 * 60);
  EXPECT_EQ(s->front().value, 1009);
  auto unknown = source.MemoryMiB({"ml", "Deployment", "nope"}, 10);
  EXPECT_FALSE(unknown.ok());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kubeon::controller
