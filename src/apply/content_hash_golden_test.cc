// Approvals are tied to a step's content_hash (audit/approvals): a change to
// the executor's house must not change any step's hash, or every approval
// given before an upgrade would stop matching.  testdata/content-hashes.txt
// holds the id and content_hash of every step planned on the bundled demo
// (as it is and with the spare H100 and A10G nodes that make its order fit;
// its policy, and that policy for each GPU model's pool under two disruption
// rules) and on testdata/small, as commit 246ea9f planned them; this test
// plans the same inputs and compares.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apply/apply_e2e_support.h"
#include "inputs/plan_each.h"
#include "inputs/plan_inputs.h"
#include "policy/gpu_policy.h"

namespace kubeon::apply {
namespace {

const std::string kSource = KUBEON_SOURCE_DIR;
const std::string kDemo = kSource + "/examples/demo/";

struct Case {
  std::string name;
  std::string cluster_file;
  std::string dir;          // history.om, prices.yaml
  std::string policy_file;  // "" = DIR/policy.yaml
};

// The demo's policy for one GPU model's pool, under a disruption rule.
std::string PoolPolicy(const std::string& dir, const std::string& product, const std::string& staying) {
  std::ifstream in(kDemo + "policy.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  yaml += "  nodeSelector:\n    nvidia.com/gpu.product: " + product + "\n";
  yaml += "  disruption:\n    stayingPods: " + staying + "\n";
  const std::string path = dir + "/policy-" + product + "-" + staying + ".yaml";
  std::ofstream(path) << yaml;
  return path;
}

// "case policy index id content_hash" for every step of every policy.
std::vector<std::string> Hashes(const Case& c) {
  std::vector<std::string> out;
  auto catalog = inputs::LoadCatalog("");
  EXPECT_TRUE(catalog.ok());
  const std::string policy_file = c.policy_file.empty() ? c.dir + "policy.yaml" : c.policy_file;
  auto policies = policy::LoadPolicyFile(policy_file, [&](std::string_view p) {
    return catalog->ProfileExists(p);
  });
  EXPECT_TRUE(policies.ok()) << policies.status().message();
  if (!catalog.ok() || !policies.ok()) return out;
  inputs::PlanArgs a;
  a.cluster_file = c.cluster_file;
  a.metrics_files = {c.dir + "history.om"};
  a.policy_file = policy_file;
  a.prices_file = c.dir + "prices.yaml";
  a.quiet = true;
  int exit_code = 0;
  const inputs::ProgressFn quiet = [](const std::string&) {};
  auto in = inputs::ReadPlanInputs(a, *catalog, quiet, &exit_code);
  EXPECT_TRUE(in.ok()) << in.status().message();
  if (!in.ok()) return out;
  const auto plans = inputs::PlanEach(*in, *policies, quiet);
  for (size_t i = 0; i < plans.size(); ++i) {
    EXPECT_TRUE(plans[i].plan.ok()) << plans[i].plan.status().message();
    if (!plans[i].plan.ok()) continue;
    for (const auto& s : plans[i].plan->schedule.steps) {
      out.push_back(c.name + " " + (*policies)[i].name + " " + std::to_string(s.index) + " " + s.id + " " +
                    s.content_hash);
    }
  }
  return out;
}

TEST(ContentHashGolden, EveryStepsHashIsAsBefore) {
  const std::string dir = ::testing::TempDir() + "/content-hash-golden";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/cluster.json");
    out << testing::DemoWithSpare(kDemo).dump();
  }
  std::vector<Case> cases = {{"demo-with-spares", dir + "/cluster.json", kDemo, ""},
                             {"small", kSource + "/testdata/small/cluster.json", kSource + "/testdata/small/", ""}};
  for (const char* product : {"NVIDIA-A100-SXM4-40GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-A10G", "NVIDIA-L4"}) {
    for (const char* staying : {"Restartable", "Any"}) {
      cases.push_back({std::string("demo-") + product + "-" + staying, kDemo + "cluster.json", kDemo,
                       PoolPolicy(dir, product, staying)});
      cases.push_back({std::string("demo-with-spares-") + product + "-" + staying, dir + "/cluster.json", kDemo,
                       PoolPolicy(dir, product, staying)});
    }
  }
  std::vector<std::string> got;
  for (const Case& c : cases) {
    for (auto& line : Hashes(c)) got.push_back(std::move(line));
  }
  std::ifstream in(kSource + "/testdata/content-hashes.txt");
  std::vector<std::string> want;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') want.push_back(line);
  }
  std::ostringstream now;
  for (const auto& l : got) now << l << "\n";
  ASSERT_GE(want.size(), 3u) << "testdata/content-hashes.txt is missing or empty; steps planned now:\n" << now.str();
  EXPECT_EQ(got, want) << "steps planned now:\n" << now.str();
}

}  // namespace
}  // namespace kubeon::apply
