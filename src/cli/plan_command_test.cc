// End-to-end tests of `kubeon-gpu plan` through RunPlan, on the files in
// testdata/small/: the JSON contract, and that bad input gives one clear
// error naming the file (and line), a non-zero exit, and nothing on stdout.
#include "cli/plan_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "inputs/small_inputs_test_util.h"

namespace kubeon::cli {
namespace {

const std::string& kDir = inputs::testing::kSmallDir;

PlanArgs Args() { return inputs::testing::SmallPlanArgs(); }

// A file of the running test's own (CTest runs this file's tests side by
// side, and two of them writing one path raced).
std::string TempFile(const std::string& name, const std::string& content) {
  const std::string path = std::string(::testing::TempDir()) +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" + name;
  std::ofstream(path) << content;
  return path;
}

TEST(PlanCommand, JsonContract) {
  PlanArgs a = Args();
  a.output = "json";
  std::ostringstream out, err;
  ASSERT_EQ(RunPlan(a, out, err), 0) << err.str();
  const auto j = nlohmann::json::parse(out.str());
  for (const char* k : {"gpus_before", "gpus_after", "gpus_freed", "nodes_freed", "monthly_savings_usd"}) {
    EXPECT_TRUE(j["summary"].contains(k)) << k;
  }
  EXPECT_EQ(j["summary"]["gpus_before"], 3);
  EXPECT_EQ(j["summary"]["gpus_after"], 1);
  EXPECT_EQ(j["summary"]["nodes_freed"], 1);
  ASSERT_EQ(j["workloads"].size(), 2u);
  const auto& embed = j["workloads"][0];
  EXPECT_EQ(embed["namespace"], "prod");
  EXPECT_EQ(embed["kind"], "Deployment");
  EXPECT_EQ(embed["name"], "embed");
  EXPECT_EQ(embed["decision"], "mig");
  EXPECT_EQ(embed["slice"], "1g.5gb");
  EXPECT_EQ(embed["peak_memory_mib"], 3100);
  EXPECT_EQ(embed["pods"].size(), 2u);
  for (const auto& n : j["nodes"]) {
    for (const char* k : {"name", "gpu_model", "method", "freed", "gpus", "time_slicing_replicas", "labels", "isolation",
                          "monthly_savings_usd"}) {
      EXPECT_TRUE(n.contains(k)) << k;
    }
  }
  EXPECT_NE(j["artifacts"]["mig_parted_config"].get<std::string>().find("mig-configs:"), std::string::npos);
  ASSERT_EQ(j["artifacts"]["workload_patches"].size(), 2u);
  EXPECT_TRUE(j["artifacts"]["workload_patches"][0]["patch"].is_object());
  // a100-1 (annotation) is freed: its whole price; a100-2 has no annotation,
  // is priced through prices.yaml and gives up 1 of its 4 GPUs.
  for (const auto& n : j["nodes"]) {
    EXPECT_EQ(n["price_source"], n["name"] == "a100-1" ? "annotation" : "prices file");
    EXPECT_EQ(n["freed"], n["name"] == "a100-1");
    EXPECT_TRUE(n["disrupted_pods"].is_array());
  }
  double savings = j["summary"]["monthly_savings_usd"];
  EXPECT_NEAR(savings, 32.77 * 730 + 32.77 / 4 * 730, 0.01);
  EXPECT_EQ(j["summary"]["pods_disrupted"], 0);
  EXPECT_EQ(j["summary"]["safety_cost"]["gpus"], 0);
}

TEST(PlanCommand, TableAndYaml) {
  PlanArgs a = Args();
  std::ostringstream out, err;
  ASSERT_EQ(RunPlan(a, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("prod/embed"), std::string::npos);
  EXPECT_NE(out.str().find("Proposal only: nothing was changed"), std::string::npos);
  a.output = "yaml";
  std::ostringstream yout;
  ASSERT_EQ(RunPlan(a, yout, err), 0);
  EXPECT_NE(yout.str().find("mig_parted_config: |\n"), std::string::npos);
}

TEST(PlanCommand, ProgressGoesToStderrOnly) {
  PlanArgs a = Args();
  a.quiet = false;
  a.output = "json";
  std::ostringstream out, err;
  ASSERT_EQ(RunPlan(a, out, err), 0);
  EXPECT_NE(err.str().find("read "), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(out.str()));
}

TEST(PlanCommand, BadPolicyNamesFileLineAndField) {
  PlanArgs a = Args();
  a.policy_file = TempFile("bad-policy.yaml",
                           "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata:\n  name: p\nspec:\n  kind: Sharing\n"
                           "  mig:\n    headroom: \"250%\"\n");
  std::ostringstream out, err;
  EXPECT_EQ(RunPlan(a, out, err), 1);
  EXPECT_TRUE(out.str().empty());
  EXPECT_NE(err.str().find("bad-policy.yaml:8"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("spec.mig.headroom"), std::string::npos) << err.str();
}

TEST(PlanCommand, PrometheusFlags) {
  CLI::App app;
  PlanArgs a;
  AddPlanCommand(app, a);
  app.parse("kubeon-gpu plan --cluster c.json --policy p.yaml --prometheus https://prom:9090 --prometheus-token-file t "
            "--prometheus-ca-file ca.pem --prometheus-header 'X-Scope-OrgID: team-a' --prometheus-header 'X-B: 1' "
            "--prometheus-selector 'cluster=\"prod\"' --lookback 3d",
            true);
  EXPECT_EQ(a.prometheus_url, "https://prom:9090");
  EXPECT_TRUE(a.metrics_files.empty());
  EXPECT_EQ(a.prometheus_token_file, "t");
  EXPECT_EQ(a.prometheus_ca_file, "ca.pem");
  EXPECT_EQ(a.prometheus_headers, (std::vector<std::string>{"X-Scope-OrgID: team-a", "X-B: 1"}));
  EXPECT_EQ(a.prometheus_selector, "cluster=\"prod\"");
  EXPECT_EQ(a.lookback, "3d");

  CLI::App both;
  PlanArgs b;
  AddPlanCommand(both, b);
  EXPECT_THROW(both.parse("kubeon-gpu plan --cluster c.json --policy p.yaml --metrics h.om --prometheus http://p", true),
               CLI::ExcludesError);
}

TEST(PlanCommand, BadInputsFailWithoutOutput) {
  struct Case {
    std::string what;
    PlanArgs args;
    std::string expect;
  };
  std::vector<Case> cases;
  PlanArgs a = Args();
  a.cluster_file = "/nonexistent.json";
  cases.push_back({"cluster missing", a, "/nonexistent.json"});
  a = Args();
  a.catalog_file = "/nonexistent-catalog.json";
  cases.push_back({"catalog missing", a, "/nonexistent-catalog.json: cannot open MIG catalog: No such file or directory"});
  a = Args();
  a.metrics_files = {TempFile("empty.om", "# EOF\n")};
  cases.push_back({"empty history", a, "empty.om"});
  a = Args();
  a.metrics_files = {TempFile("power.om",
                              "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
                              "DCGM_FI_DEV_POWER_USAGE{namespace=\"a\",pod=\"b\"} 100 1790000000\n# EOF\n")};
  cases.push_back({"no DCGM series", a, "DCGM_FI_DEV_FB_USED"});
  a = Args();
  a.prices_file = TempFile("prices.yaml", "p4d.24xlarge: free\n");
  cases.push_back({"bad price", a, "prices.yaml:1"});
  a = Args();
  a.min_history = "yesterday";
  cases.push_back({"bad duration", a, "--min-history"});
  a = Args();
  a.policy_name = "nope";
  cases.push_back({"unknown policy", a, "no GpuPolicy named \"nope\""});
  a = Args();
  a.cluster_file = TempFile("cluster.json", "{\"items\": [}");
  cases.push_back({"bad json", a, "not valid JSON"});
  // The snapshot file is read beside the history: when both are bad, the
  // snapshot's error is the one reported (as when they were read in turn).
  a.metrics_files = {TempFile("empty2.om", "# EOF\n")};
  cases.push_back({"bad json and empty history", a, "cluster.json: not valid JSON"});
  a.metrics_files = {"/nonexistent-history.om"};
  cases.push_back({"bad json and missing history", a, "cluster.json: not valid JSON"});
  a = Args();
  a.metrics_files.clear();
  cases.push_back({"no history source", a, "--metrics FILE... or --prometheus URL (exactly one)"});
  a = Args();
  a.prometheus_url = "http://127.0.0.1:1";
  cases.push_back({"two history sources", a, "--metrics FILE... or --prometheus URL (exactly one)"});
  a = Args();
  a.metrics_files.clear();
  a.prometheus_url = "http://127.0.0.1:1";
  a.lookback = "a fortnight";
  cases.push_back({"bad lookback", a, "--lookback"});
  // Issue 14: a huge lookback overflowed into "must be at least 1s".
  a.lookback = "1e300d";
  cases.push_back({"huge lookback", a, "--lookback: \"1e300d\" is too large (max 3650d)"});
  a.lookback = "3651d";
  cases.push_back({"lookback over the cap", a, "--lookback: \"3651d\" is too large (max 3650d)"});
  a = Args();
  a.metrics_files.clear();
  a.prometheus_url = "http://127.0.0.1:1";  // port 1: nothing listens
  cases.push_back({"prometheus down", a, "cannot reach Prometheus at http://127.0.0.1:1"});
  for (const auto& c : cases) {
    std::ostringstream out, err;
    EXPECT_NE(RunPlan(c.args, out, err), 0) << c.what;
    EXPECT_TRUE(out.str().empty()) << c.what;
    EXPECT_NE(err.str().find(c.expect), std::string::npos) << c.what << ": " << err.str();
  }
}

TEST(PlanCommand, OutputFileWrittenAtomically) {
  PlanArgs a = Args();
  a.output = "json";
  a.output_file = std::string(::testing::TempDir()) + "plan.json";
  std::remove(a.output_file.c_str());
  std::ostringstream out, err;
  ASSERT_EQ(RunPlan(a, out, err), 0);
  EXPECT_TRUE(out.str().empty());
  std::ifstream in(a.output_file);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_TRUE(nlohmann::json::accept(s.str()));
  // A failing run leaves the previous file untouched.
  a.cluster_file = "/nonexistent.json";
  EXPECT_EQ(RunPlan(a, out, err), 1);
  std::ifstream again(a.output_file);
  std::stringstream s2;
  s2 << again.rdbuf();
  EXPECT_EQ(s.str(), s2.str());
}

TEST(PlanCommand, OutputWriteFailuresExitNonZeroWithTheReason) {
  for (const char* format : {"table", "json", "yaml"}) {
    PlanArgs a = Args();
    a.output = format;
    std::ofstream full("/dev/full", std::ios::binary);
    if (!full) GTEST_SKIP() << "no /dev/full";
    std::ostringstream err;
    EXPECT_EQ(RunPlan(a, full, err), 1) << format;
    EXPECT_EQ(err.str(), "error: stdout: No space left on device\n") << format;
  }
  PlanArgs a = Args();
  a.output_file = std::string(::testing::TempDir()) + "no-such-dir/plan.json";
  std::ostringstream out, err;
  EXPECT_EQ(RunPlan(a, out, err), 1);
  EXPECT_EQ(err.str(), "error: " + a.output_file + ": cannot write: No such file or directory\n");
}

TEST(PlanCommand, OutputFileIsOwnerOnly) {
  PlanArgs a = Args();
  a.output_file = std::string(::testing::TempDir()) + "plan-mode.txt";
  std::remove(a.output_file.c_str());
  const mode_t saved = umask(022);
  std::ostringstream out, err;
  EXPECT_EQ(RunPlan(a, out, err), 0) << err.str();
  umask(saved);
  struct stat st {};
  ASSERT_EQ(stat(a.output_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// Two policies whose nodeSelectors both pick a100-1 and a100-2 of testdata/small.
const char* kOverlapping =
    "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: {name: all}\nspec: {kind: Sharing}\n"
    "---\n"
    "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: {name: a100}\n"
    "spec:\n  kind: Sharing\n  nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}\n";

TEST(PlanCommand, OverlappingPoliciesAreAnErrorWhenBothArePlanned) {
  PlanArgs a = Args();
  a.policy_file = TempFile("overlap.yaml", kOverlapping);
  std::ostringstream out, err;
  EXPECT_EQ(RunPlan(a, out, err), 1);
  EXPECT_TRUE(out.str().empty());
  EXPECT_EQ(err.str(), "error: " + a.policy_file +
                           ": policies \"all\" (line 1) and \"a100\" (line 6) both select 2 GPU nodes (a100-1 and "
                           "a100-2): a GPU node belongs to one policy only; make their nodeSelectors disjoint, or plan "
                           "one of them with --policy-name\n");
}

TEST(PlanCommand, OverlappingPolicyPlannedAloneGetsAWarning) {
  PlanArgs a = Args();
  a.policy_file = TempFile("overlap.yaml", kOverlapping);
  a.policy_name = "a100";
  a.output = "json";
  a.quiet = false;
  std::ostringstream out, err;
  ASSERT_EQ(RunPlan(a, out, err), 0) << err.str();
  const auto j = nlohmann::json::parse(out.str());
  const std::string want = "policies \"all\" (line 1) and \"a100\" (line 6) both select 2 GPU nodes (a100-1 and a100-2)";
  ASSERT_FALSE(j["warnings"].empty());
  EXPECT_NE(j["warnings"].back().get<std::string>().find(want), std::string::npos) << j["warnings"];
  EXPECT_NE(err.str().find("warning: " + want), std::string::npos) << err.str();
}

TEST(PlanCommand, NodeSelectorSelectingNothingGetsAWarning) {
  PlanArgs a = Args();
  a.policy_file = TempFile("nothing.yaml",
                           "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: {name: typo}\n"
                           "spec:\n  kind: Sharing\n  nodeSelector: {pool: infrence}\n");
  a.output = "json";
  std::ostringstream out, err;
  ASSERT_EQ(RunPlan(a, out, err), 0) << err.str();
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["warnings"], nlohmann::json::array({"policy \"typo\" selects none of the cluster's 2 GPU nodes "
                                                  "(nodeSelector pool=infrence): nothing to plan"}));
}

TEST(PlanCommand, DurationFlagErrorsNameTheFlag) {
  for (const std::string flag : {"--min-history", "--lookback"}) {
    PlanArgs a = Args();
    if (flag == "--lookback") {
      a.metrics_files.clear();
      a.prometheus_url = "http://127.0.0.1:1";
      a.lookback = "99999999999d";
    } else {
      a.min_history = "99999999999d";
    }
    std::ostringstream out, err;
    EXPECT_EQ(RunPlan(a, out, err), 2) << flag;
    EXPECT_EQ(err.str(), "error: " + flag + ": \"99999999999d\" is too large (max 3650d)\n");
  }
}

// A namespace flag is one segment of the API paths built from it.
TEST(PlanCommand, NamespaceFlagsAreNamespaceNames) {
  for (const char* bad : {"a/b", "gpu-operator?dryRun=All", "..", "-x", "x-", "Gpu", "", "a b"}) {
    CLI::App app;
    PlanArgs a;
    AddPlanCommand(app, a);
    // CLI11 takes a vector of arguments last first.
    std::vector<std::string> args = {bad, "--operator-namespace", "c.json", "--cluster", "p.yaml", "--policy",
                                     "h.om", "--metrics", "plan"};
    EXPECT_THROW(app.parse(args), CLI::ValidationError) << bad;
  }
  for (const char* good : {"gpu-operator", "nvidia-gpu-operator", "a", "ns1"}) {
    CLI::App app;
    PlanArgs a;
    AddPlanCommand(app, a);
    std::vector<std::string> args = {good, "--operator-namespace", "c.json", "--cluster", "p.yaml", "--policy",
                                     "h.om", "--metrics", "plan"};
    EXPECT_NO_THROW(app.parse(args)) << good;
    EXPECT_EQ(a.operator_namespace, good);
  }
  std::string text = std::string("a") + '\x1b' + "[2J";
  EXPECT_EQ(NamespaceName()(text).find('\x1b'), std::string::npos);
}

TEST(PlanCommand, PercentileMustBeAFiniteNumberInRange) {
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e400", "0.4", "1.01", "0.9x"}) {
    CLI::App app;
    PlanArgs a;
    AddPlanCommand(app, a);
    EXPECT_THROW(
        app.parse(std::string("kubeon-gpu plan --cluster c.json --policy p.yaml --metrics h.om --percentile ") + bad, true),
        CLI::ValidationError)
        << bad;
  }
  CLI::App app;
  PlanArgs a;
  AddPlanCommand(app, a);
  app.parse("kubeon-gpu plan --cluster c.json --policy p.yaml --metrics h.om --percentile 0.95", true);
  EXPECT_DOUBLE_EQ(a.percentile, 0.95);
}

}  // namespace
}  // namespace kubeon::cli
