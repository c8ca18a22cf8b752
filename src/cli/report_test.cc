// Tests for report.h: YAML rendering of JSON (round trip through yaml-cpp)
// and the table's content.
#include "cli/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <yaml-cpp/yaml.h>

#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"
#ifdef KUBEON_HAVE_GENCLUSTER
#include "gen-cluster/synthetic.h"
#endif

namespace kubeon::cli {
namespace {

TEST(Report, YamlRoundTrip) {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "a": "plain", "b": "needs: quotes", "c": "true", "d": "012", "e": 3, "f": 2.5, "g": null, "h": [],
    "i": {}, "j": ["x", {"k": "v", "l": [1, 2]}], "m": "line1\nline2\n", "n": "", "o": "#hash", "p": "-dash",
    "q": {"nested": {"deep": "yes"}}})");
  const std::string yaml = JsonToYaml(j);
  YAML::Node n = YAML::Load(yaml);
  EXPECT_EQ(n["a"].as<std::string>(), "plain");
  EXPECT_EQ(n["b"].as<std::string>(), "needs: quotes");
  EXPECT_EQ(n["c"].as<std::string>(), "true");
  EXPECT_EQ(n["d"].as<std::string>(), "012");
  EXPECT_EQ(n["e"].as<int>(), 3);
  EXPECT_DOUBLE_EQ(n["f"].as<double>(), 2.5);
  EXPECT_TRUE(n["g"].IsNull());
  EXPECT_TRUE(n["h"].IsSequence());
  EXPECT_EQ(n["h"].size(), 0u);
  EXPECT_TRUE(n["i"].IsMap());
  EXPECT_EQ(n["j"][0].as<std::string>(), "x");
  EXPECT_EQ(n["j"][1]["k"].as<std::string>(), "v");
  EXPECT_EQ(n["j"][1]["l"][1].as<int>(), 2);
  EXPECT_EQ(n["m"].as<std::string>(), "line1\nline2\n");
  EXPECT_EQ(n["n"].as<std::string>(), "");
  EXPECT_EQ(n["o"].as<std::string>(), "#hash");
  EXPECT_EQ(n["p"].as<std::string>(), "-dash");
  EXPECT_EQ(n["q"]["nested"]["deep"].as<std::string>(), "yes");
}

TEST(Report, YamlQuotesControlCharactersAndInvalidUtf8) {
  const nlohmann::json j = {{"esc", "\x1b[31mred"}, {"multi", "a\x1b\nb\n"}, {"bad", "line \xff\xfe"},
                            {"k\x07ey", "v"}, {"del", "x\x7f"}};
  const std::string yaml = JsonToYaml(j);
  for (char c : yaml) EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f)) << int(c);
  YAML::Node n = YAML::Load(yaml);
  EXPECT_EQ(n["esc"].as<std::string>(), "\x1b[31mred");
  EXPECT_EQ(n["multi"].as<std::string>(), "a\x1b\nb\n");
  EXPECT_EQ(n["bad"].as<std::string>(), "line \xef\xbf\xbd\xef\xbf\xbd");  // U+FFFD each
  EXPECT_EQ(n["k\x07ey"].as<std::string>(), "v");
  EXPECT_EQ(n["del"].as<std::string>(), "x\x7f");
}

TEST(Report, TableEscapesControlCharactersFromTheCluster) {
  plan::Plan p;
  p.policy_name = "pol\x1b]0;title\x07";
  p.policy_mode = "Proposal";
  plan::NodePlan n;
  n.name = "node\x1b[2J";
  n.gpu_model = "A100-40GB";
  n.method = "mig";
  n.labels = {{"team", "a\rb"}};
  p.nodes.push_back(n);
  p.warnings.push_back("pod \x9b" "31m");
  const std::string table = RenderTable({p});
  EXPECT_EQ(table.find('\x1b'), std::string::npos);
  EXPECT_EQ(table.find('\r'), std::string::npos);
  EXPECT_NE(table.find("Policy pol\\x1b]0;title\\x07"), std::string::npos) << table;
  EXPECT_NE(table.find("node\\x1b[2J"), std::string::npos) << table;
  EXPECT_NE(table.find("team=a\\x0db"), std::string::npos) << table;
  EXPECT_NE(table.find("warning: pod \\x9b31m"), std::string::npos) << table;
}

TEST(Report, JsonReplacesInvalidUtf8) {
  plan::Plan p;
  p.policy_name = "pol";
  p.warnings.push_back("history: line 3: \xff\xfe");
  const std::string text = RenderJson({p});
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["warnings"][0], "history: line 3: \xef\xbf\xbd\xef\xbf\xbd");
}

TEST(Report, TableShowsNodesWorkloadsAndTotals) {
  plan::Plan p;
  p.policy_name = "pol";
  p.policy_mode = "Proposal";
  plan::NodePlan n;
  n.name = "a100-1";
  n.gpu_model = "A100-40GB";
  n.method = "mig";
  n.gpu_count = 8;
  n.gpus_before = 8;
  n.gpus_after = 1;
  n.monthly_savings_usd = 20935.5;
  plan::GpuAfter g;
  g.mig_enabled = true;
  g.mig_devices = {"3g.20gb", "1g.5gb"};
  g.workloads = {"prod/a", "prod/b"};
  n.gpus.push_back(g);
  n.isolation = "MIG isolation text";
  p.nodes.push_back(n);
  plan::WorkloadDecision w;
  w.ref = {"prod", "Deployment", "a"};
  w.decision = plan::Decision::kMig;
  w.slice = "3g.20gb";
  w.reason = "because";
  w.peak_memory_mib = 12000;
  p.workloads.push_back(w);
  p.summary.gpus_before = 8;
  p.summary.gpus_after = 1;
  p.summary.gpus_freed = 7;
  p.summary.monthly_savings_usd = 20935.5;
  p.summary.workloads = 1;
  p.summary.workloads_to_mig = 1;
  const std::string t = RenderTable({p});
  EXPECT_NE(t.find("1x[3g.20gb+1g.5gb]"), std::string::npos) << t;
  EXPECT_NE(t.find("$20,935.50"), std::string::npos) << t;
  EXPECT_NE(t.find("12,000 MiB"), std::string::npos) << t;
  EXPECT_NE(t.find("isolation: MIG isolation text"), std::string::npos) << t;
  EXPECT_NE(t.find("GPUs in use 8 -> 1 (7 freed)"), std::string::npos) << t;
}

// Money never aborts and JSON never prints null for an amount, whatever the
// double (the inputs are capped; this is the second line of defence).
TEST(Report, MoneyIsSafeForAnyDouble) {
  EXPECT_EQ(Money(0), "$0.00");
  EXPECT_EQ(Money(-1234.5), "$-1,234.50");
  EXPECT_EQ(Money(std::nan("")), "n/a");
  EXPECT_EQ(Money(std::numeric_limits<double>::infinity()), "n/a");
  EXPECT_EQ(Money(-std::numeric_limits<double>::infinity()), "n/a");
  const std::string huge = Money(1e308);
  EXPECT_EQ(huge.substr(0, 9), "$100,000,");  // 309 digits
  EXPECT_EQ(huge.substr(huge.size() - 3), ".00");
  EXPECT_EQ(Money(-1.7976931348623157e308).substr(0, 4), "$-17");
  for (double usd : {1e308, std::nan(""), std::numeric_limits<double>::infinity(), -1e300}) {
    plan::Plan p;
    p.policy_name = "pol";
    plan::NodePlan n;
    n.name = "n";
    n.gpus_before = 8;
    n.gpus_after = 1;
    n.monthly_savings_usd = usd;
    n.hourly_price_usd = 1.0;
    p.nodes.push_back(n);
    p.summary.monthly_savings_usd = usd;
    p.summary.safety_cost_monthly_usd = usd;
    const std::string json = RenderJson({p});
    for (const char* key : {"\"monthly_savings_usd\": ", "\"monthly_usd\": "}) {
      size_t found = 0;
      for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at + 1), ++found) {
        const char next = json[at + std::string(key).size()];
        EXPECT_TRUE(next == '-' || (next >= '0' && next <= '9')) << usd << ": " << json.substr(at, 40);
      }
      EXPECT_GT(found, 0u) << key;
    }
    EXPECT_FALSE(RenderTable({p}).empty());
    EXPECT_FALSE(RenderYaml({p}).empty());
  }
}

TEST(Report, MigrationOrderInTableAndJson) {
  plan::Plan p;
  p.policy_name = "pol";
  p.policy_mode = "Auto";
  plan::ScheduleStep st;
  st.index = 1;
  st.id = "0123abcd";
  st.content_hash = "0123abcd" + std::string(56, '0');
  st.gpu_model = "A100-80GB";
  st.method = "mig";
  st.nodes = {"n1"};
  st.evictions.push_back({"ml/a-0", "Deployment/a", "nvidia.com/gpu", 1, 30, "n2", true});
  plan::StepOwnerMove o;
  o.owner = {"ml", "Deployment", "a"};
  st.owners.push_back(o);
  st.nodes_freed = {"n2"};
  st.gpus_freed = 3;
  st.estimated_seconds = 125;
  st.flags = {"Deployment ml/a: managed by Argo CD"};
  p.schedule.steps.push_back(st);
  p.schedule.left_out = {"Deployment ml/pinned: pinned"};
  const std::string t = RenderTable({p});
  EXPECT_NE(t.find("Migration order (at most 1 node per GPU model at once):"), std::string::npos) << t;
  EXPECT_NE(t.find("STEP  ID"), std::string::npos) << t;
  EXPECT_NE(t.find("0123abcd  n1     1 pod   ml/a   3 GPUs (1 node)  3m   1"), std::string::npos) << t;
  EXPECT_NE(t.find("step 1 (0123abcd) flagged: Deployment ml/a: managed by Argo CD"), std::string::npos) << t;
  EXPECT_NE(t.find("left out: Deployment ml/pinned: pinned"), std::string::npos) << t;
  const nlohmann::json j = PlanToJson(p);
  EXPECT_EQ(j["schedule"]["steps"][0]["id"], "0123abcd");
  EXPECT_EQ(j["schedule"]["steps"][0]["evictions"][0]["runs_meanwhile"], "n2");
  EXPECT_TRUE(j["schedule"]["feasible"].get<bool>());
  p.schedule.feasible = false;
  p.schedule.blocked_pools["H100-80GB"] = "its evicted pods need 8 spare whole H100-80GB GPU(s) to run on meanwhile";
  p.schedule.spare_gpus_needed["H100-80GB"] = 8;
  const std::string t1 = RenderTable({p});
  EXPECT_NE(t1.find("pool H100-80GB: no order fits (its evicted pods need 8 spare whole H100-80GB GPU(s) to run on "
                    "meanwhile); its nodes stay as they are.\n  spare whole GPUs needed: 8 H100-80GB.\n  The other "
                    "pools' order:"),
            std::string::npos)
      << t1;
  EXPECT_NE(t1.find("0123abcd  n1"), std::string::npos) << t1;
  p.schedule.steps.clear();
  const std::string t2 = RenderTable({p});
  EXPECT_NE(t2.find("Nothing will be started."), std::string::npos) << t2;
  EXPECT_EQ(t2.find("The other pools"), std::string::npos) << t2;
  EXPECT_EQ(PlanToJson(p)["schedule"]["spare_gpus_needed"]["H100-80GB"], 8);
  EXPECT_EQ(PlanToJson(p)["schedule"]["blocked_pools"].size(), 1u);
}

// RenderJson streams the document; it must print exactly what the tree
// (PlanToJson) printed before, for one plan and for several.
void ExpectStreamedJsonIsTheTreeDump(const std::vector<plan::Plan>& plans) {
  std::string tree;
  if (plans.size() == 1) {
    tree = PlanToJson(plans[0]).dump(2) + "\n";
  } else {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& p : plans) all.push_back(PlanToJson(p));
    tree = nlohmann::json{{"plans", all}}.dump(2) + "\n";
  }
  const std::string streamed = RenderJson(plans);
  ASSERT_EQ(streamed.size(), tree.size());
  EXPECT_TRUE(streamed == tree);  // not EXPECT_EQ: megabytes of text on failure
  if (streamed != tree) {
    size_t i = 0;
    while (streamed[i] == tree[i]) ++i;
    ADD_FAILURE() << "first difference at byte " << i << ": ..." << tree.substr(i > 80 ? i - 80 : 0, 160);
  }
  // The same text in pieces (what `plan -o json` writes as it renders):
  // every piece but the last holds at least kRenderChunkBytes, none is empty,
  // and a document of several chunks comes in several pieces.
  std::vector<std::string> pieces;
  RenderJson(plans, [&](std::string_view piece) { pieces.emplace_back(piece); });
  std::string joined;
  for (size_t k = 0; k < pieces.size(); ++k) {
    EXPECT_FALSE(pieces[k].empty()) << "piece " << k;
    if (k + 1 < pieces.size()) {
      EXPECT_GE(pieces[k].size(), kRenderChunkBytes) << "piece " << k;
    }
    joined += pieces[k];
  }
  EXPECT_TRUE(joined == tree) << "pieces joined differ from the whole text";
  EXPECT_GE(pieces.size(), tree.size() / (2 * kRenderChunkBytes));
  if (tree.size() > 2 * kRenderChunkBytes) {
    EXPECT_GT(pieces.size(), 1u);
  }
}

TEST(Report, StreamedJsonIsByteIdenticalOnTheDemo) {
  const std::string demo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";
  auto cluster = model::LoadClusterFile(demo + "cluster.json");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto history = metrics::ReadHistoryFile(demo + "history.om", metrics::IngestOptions{});
  ASSERT_TRUE(history.ok()) << history.status().message();
  const auto& catalog = mig::MigCatalog::Builtin();
  auto policies = policy::LoadPolicyFile(demo + "policy.yaml", [&](std::string_view p) { return catalog.ProfileExists(p); });
  ASSERT_TRUE(policies.ok()) << policies.status().message();
  auto prices = model::LoadPricesFile(demo + "prices.yaml");
  ASSERT_TRUE(prices.ok()) << prices.status().message();
  plan::PlannerOptions options;
  options.instance_prices_usd = *prices;
  const plan::Plan p = plan::MakePlan(*cluster, *history, policies->front(), catalog, options).value();
  ASSERT_FALSE(p.nodes.empty());
  ASSERT_FALSE(p.artifacts.workload_patches.empty());
  ExpectStreamedJsonIsTheTreeDump({p});
  plan::Plan second = p;
  second.policy_name += "-2";
  second.warnings.push_back("caf\xC3\xA9 \"quoted\"\t\x01");
  ExpectStreamedJsonIsTheTreeDump({p, second});
}

TEST(Report, StreamedJsonIsByteIdenticalOnAGeneratedCluster) {
#ifdef KUBEON_HAVE_GENCLUSTER
  namespace gc = gencluster;
  gc::Options o;
  o.preset = gc::Preset::kScale;
  o.nodes = 1000;  // a plan of ~3 MB: several pieces of kRenderChunkBytes
  o.gpus_per_node = 8;
  o.history_samples = 24;
  auto c = gc::Generate(o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const gc::InMemory data = gc::BuildInMemory(*c);
  const auto& catalog = mig::MigCatalog::Builtin();
  auto policies = policy::ParsePolicies(gc::PolicyYaml(*c), "policy.yaml",
                                        [&](std::string_view p) { return catalog.ProfileExists(p); });
  ASSERT_TRUE(policies.ok()) << policies.status().message();
  auto prices = model::ParsePrices(gc::PricesYaml(*c), "prices.yaml");
  ASSERT_TRUE(prices.ok()) << prices.status().message();
  plan::PlannerOptions options;
  options.instance_prices_usd = *prices;
  const plan::Plan p = plan::MakePlan(data.cluster, data.history, policies->front(), catalog, options).value();
  ASSERT_GT(p.nodes.size(), 100u);
  ExpectStreamedJsonIsTheTreeDump({p});
  ASSERT_GT(RenderJson({p}).size(), 2 * kRenderChunkBytes) << "a plan of several pieces";
#else
  GTEST_SKIP() << "tools/gen-cluster is not part of this build (KUBEON_TOOLS=OFF)";
#endif
}

}  // namespace
}  // namespace kubeon::cli
