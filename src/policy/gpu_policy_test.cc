// Tests for gpu_policy.h: defaults, multi-document files, every validation
// error with its field path and line, the helpers, and agreement between the
// parser and deploy/crd-gpupolicy.yaml and examples/policies/.
// GCC 12 reports a false -Wmaybe-uninitialized inside <regex> when it
// inlines aggressively (sanitizer builds); the warning is about the standard
// library, not this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "policy/gpu_policy.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <regex>
#include <set>

namespace kubeon::policy {
namespace {

using namespace std::chrono;  // NOLINT(build/namespaces)

const std::set<std::string, std::less<>> kProfiles = {
    "1g.5gb", "2g.10gb", "3g.20gb", "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb",
    "1g.10gb+me"};

bool ProfileExists(std::string_view name) { return kProfiles.count(name) > 0; }

Result<std::vector<GpuPolicy>> Parse(std::string_view text) {
  return ParsePolicies(text, "test.yaml", ProfileExists);
}

GpuPolicy ParseOne(std::string_view text) {
  Result<std::vector<GpuPolicy>> r = Parse(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  if (!r.ok() || r->size() != 1) std::abort();
  return r->front();
}

std::vector<std::string> ErrorLines(std::string_view text) {
  Result<std::vector<GpuPolicy>> r = Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  std::vector<std::string> lines;
  if (r.ok()) return lines;
  std::string msg = r.status().message();
  size_t pos = 0;
  while (pos <= msg.size()) {
    size_t nl = msg.find('\n', pos);
    if (nl == std::string::npos) nl = msg.size();
    lines.push_back(msg.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

// True when some error line starts with `prefix` and contains `detail`.
::testing::AssertionResult HasError(const std::vector<std::string>& lines,
                                    const std::string& prefix, const std::string& detail = "") {
  for (const std::string& l : lines) {
    if (l.rfind(prefix, 0) == 0 && l.find(detail) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
  }
  std::string all;
  for (const std::string& l : lines) all += "\n  " + l;
  return ::testing::AssertionFailure()
         << "no error starting with [" << prefix << "] containing [" << detail << "] in:" << all;
}

// A valid document whose spec body is `spec_body` (already indented by 2).
std::string Doc(const std::string& spec_body, const std::string& name = "gpu-sharing") {
  return "apiVersion: gpu.kubeon.io/v1\n"   // line 1
         "kind: GpuPolicy\n"                // line 2
         "metadata:\n"                      // line 3
         "  name: " + name + "\n"           // line 4
         "spec:\n"                          // line 5
         "  kind: Sharing\n"                // line 6
         + spec_body;                       // line 7 on
}

// ---- Valid files ----

TEST(ParsePolicies, MinimalPolicyGetsDefaults) {
  const GpuPolicy p = ParseOne(Doc(""));
  EXPECT_EQ(p.name, "gpu-sharing");
  EXPECT_EQ(p.file, "test.yaml");
  EXPECT_EQ(p.line, 1);
  EXPECT_EQ(p.mode, Mode::kProposal);
  EXPECT_TRUE(p.node_selector.empty());
  EXPECT_FALSE(p.allowed_profiles_set);
  EXPECT_TRUE(p.allowed_profiles.empty());
  EXPECT_DOUBLE_EQ(p.headroom, 0.2);
  EXPECT_EQ(p.headroom_text, "20%");
  EXPECT_TRUE(p.time_slicing_namespaces.empty());
  EXPECT_EQ(p.max_replicas, 4);
  EXPECT_EQ(p.staying_pods, StayingPods::kRestartable);
  EXPECT_FALSE(p.window.has_value());
}

TEST(ParsePolicies, FullPolicy) {
  const GpuPolicy p = ParseOne(R"(apiVersion: gpu.kubeon.io/v1
kind: GpuPolicy
metadata:
  name: a100-pool
  namespace: kubeon-system
  labels: {team: platform, tier: ""}
  annotations:
    kubeon.io/owner: "gpu team <gpu@example.com>"
spec:
  kind: Sharing
  mode: Auto
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
    node-pool: "training"
  mig:
    allowedProfiles: ["1g.10gb", 2g.20gb, '3g.40gb']
    headroom: 12.5%
  timeSlicing:
    namespaces: [ml-dev, notebooks]
    maxReplicas: 8
  window: Mon-Fri 22:00-04:00 +02:00
)");
  EXPECT_EQ(p.name, "a100-pool");
  EXPECT_EQ(p.mode, Mode::kAuto);
  EXPECT_EQ(p.node_selector, (std::map<std::string, std::string>{
                                 {"node-pool", "training"},
                                 {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}));
  EXPECT_TRUE(p.allowed_profiles_set);
  EXPECT_EQ(p.allowed_profiles, (std::vector<std::string>{"1g.10gb", "2g.20gb", "3g.40gb"}));
  EXPECT_DOUBLE_EQ(p.headroom, 0.125);
  EXPECT_EQ(p.headroom_text, "12.5%");
  EXPECT_EQ(p.time_slicing_namespaces, (std::vector<std::string>{"ml-dev", "notebooks"}));
  EXPECT_EQ(p.max_replicas, 8);
  ASSERT_TRUE(p.window.has_value());
  EXPECT_EQ(p.window->text(), "Mon-Fri 22:00-04:00 +02:00");
  // Monday 2024-01-01 22:00 at +02:00 is 20:00 UTC; it closes Tuesday 02:00 UTC.
  const sys_days monday = 2024y / January / 1d;
  EXPECT_FALSE(p.window->Contains(monday + hours(19) + minutes(59)));
  EXPECT_TRUE(p.window->Contains(monday + hours(20)));
  EXPECT_TRUE(p.window->Contains(monday + hours(25) + minutes(59)));
  EXPECT_FALSE(p.window->Contains(monday + hours(26)));
}

TEST(ParsePolicies, MultipleDocumentsWithLinesAndEmptyDocuments) {
  const std::string text =
      "# policies for the cluster\n"    // 1
      "---\n"                           // 2
      "apiVersion: gpu.kubeon.io/v1\n"  // 3
      "kind: GpuPolicy\n"
      "metadata: {name: first}\n"
      "spec: {kind: Sharing}\n"
      "---\n"                           // 7
      "---\n"                           // 8: empty document
      "# second\n"                      // 9
      "apiVersion: gpu.kubeon.io/v1\n"  // 10
      "kind: GpuPolicy\n"
      "metadata: {name: second}\n"
      "spec:\n"
      "  kind: Sharing\n"
      "  mode: Approve\n"
      "  window: Sat 02:00-06:00 UTC\n"
      "---\n"
      "apiVersion: gpu.kubeon.io/v1\n"  // 18
      "kind: GpuPolicy\n"
      "metadata: {name: third}\n"
      "spec: {kind: Sharing, timeSlicing: {namespaces: [dev]}}\n"
      "---\n";                          // trailing separator
  Result<std::vector<GpuPolicy>> r = Parse(text);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].name, "first");
  EXPECT_EQ((*r)[0].line, 3);
  EXPECT_EQ((*r)[1].name, "second");
  EXPECT_EQ((*r)[1].line, 10);
  EXPECT_EQ((*r)[1].mode, Mode::kApprove);
  EXPECT_EQ((*r)[2].name, "third");
  EXPECT_EQ((*r)[2].line, 18);
  EXPECT_EQ((*r)[2].time_slicing_namespaces, std::vector<std::string>{"dev"});
}

TEST(ParsePolicies, NullValuesCountAsAbsent) {
  const GpuPolicy p = ParseOne(Doc("  mode:\n  mig:\n  timeSlicing: ~\n"));
  EXPECT_EQ(p.mode, Mode::kProposal);
  EXPECT_FALSE(p.allowed_profiles_set);
  EXPECT_EQ(p.max_replicas, 4);
}

TEST(ParsePolicies, HeadroomBoundsAndUnquotedPercent) {
  EXPECT_DOUBLE_EQ(ParseOne(Doc("  mig: {headroom: 0%}\n")).headroom, 0.0);
  EXPECT_DOUBLE_EQ(ParseOne(Doc("  mig: {headroom: \"200%\"}\n")).headroom, 2.0);
  EXPECT_DOUBLE_EQ(ParseOne(Doc("  mig:\n    headroom: 35%\n")).headroom, 0.35);
}

TEST(ParsePolicies, MaxReplicasBounds) {
  EXPECT_EQ(ParseOne(Doc("  timeSlicing: {maxReplicas: 1}\n")).max_replicas, 1);
  EXPECT_EQ(ParseOne(Doc("  timeSlicing: {maxReplicas: 64}\n")).max_replicas, 64);
}

TEST(ParsePolicies, DisruptionStayingPods) {
  EXPECT_EQ(ParseOne(Doc("  disruption: {stayingPods: None}\n")).staying_pods, StayingPods::kNone);
  EXPECT_EQ(ParseOne(Doc("  disruption: {stayingPods: Restartable}\n")).staying_pods, StayingPods::kRestartable);
  EXPECT_EQ(ParseOne(Doc("  disruption: {stayingPods: Any}\n")).staying_pods, StayingPods::kAny);
  EXPECT_EQ(ParseOne(Doc("  disruption: {}\n")).staying_pods, StayingPods::kRestartable);
}

TEST(ParsePolicies, DisruptionMaxNodesAndGitOps) {
  const GpuPolicy defaults = ParseOne(Doc("  disruption: {}\n"));
  EXPECT_EQ(defaults.max_nodes_per_pool, 1);
  EXPECT_FALSE(defaults.patch_gitops_owners);
  const GpuPolicy set = ParseOne(Doc("  disruption: {maxNodesPerPool: 100, patchGitOpsOwners: true}\n"));
  EXPECT_EQ(set.max_nodes_per_pool, 100);
  EXPECT_TRUE(set.patch_gitops_owners);
  EXPECT_FALSE(ParseOne(Doc("  disruption: {patchGitOpsOwners: false}\n")).patch_gitops_owners);
  EXPECT_TRUE(ParseOne(Doc("  disruption: {patchGitOpsOwners: TRUE}\n")).patch_gitops_owners);
  EXPECT_TRUE(ParseOne(Doc("  disruption: {patchGitOpsOwners: !!bool yes}\n")).patch_gitops_owners);
  EXPECT_EQ(ParseOne(Doc("  disruption: {maxNodesPerPool: 10}\n")).max_nodes_per_pool, 10);
}

TEST(ParsePolicies, DisruptionRetryBudget) {
  const GpuPolicy defaults = ParseOne(Doc("  disruption: {}\n"));
  EXPECT_EQ(defaults.max_attempts, 3);
  EXPECT_EQ(defaults.retry_backoff_text, "15m");
  EXPECT_DOUBLE_EQ(defaults.retry_backoff_hours, 0.25);
  const GpuPolicy set = ParseOne(Doc("  disruption: {maxAttempts: 1, retryBackoff: 2h}\n"));
  EXPECT_EQ(set.max_attempts, 1);
  EXPECT_DOUBLE_EQ(set.retry_backoff_hours, 2);
  EXPECT_EQ(set.retry_backoff_text, "2h");
  EXPECT_DOUBLE_EQ(ParseOne(Doc("  disruption: {retryBackoff: 0s}\n")).retry_backoff_hours, 0);
}

TEST(PolicyErrors, DisruptionMaxNodesAndGitOps) {
  struct Case {
    const char* field;
    const char* value;
    const char* detail;
  };
  const Case cases[] = {
      {"maxNodesPerPool", "0", "must be in 1..100, got 0"},
      {"maxNodesPerPool", "101", "must be in 1..100, got 101"},
      {"maxNodesPerPool", "two", "must be an integer in 1..100, got a string \"two\""},
      {"maxNodesPerPool", "\"2\"", "must be an integer in 1..100, got a string \"2\""},
      {"maxAttempts", "0", "must be in 1..10, got 0"},
      {"maxAttempts", "11", "must be in 1..10, got 11"},
      {"retryBackoff", "fortnight", "must be a duration like 15m, 1h or 0s, got \"fortnight\""},
      {"retryBackoff", "-5m", "must be a duration like 15m, 1h or 0s, got \"-5m\""},
      {"retryBackoff", "8d", "must be at most 7d, got \"8d\""},
      {"retryBackoff", "15", "must be a string"},
      {"patchGitOpsOwners", "\"true\"", "must be true or false, got a string \"true\""},
      {"patchGitOpsOwners", "1", "must be true or false, got an integer \"1\""},
      {"patchGitOpsOwners", "[true]", "must be true or false, got a list"},
      {"patchGitOpsOwners", "yes", "must be true or false, got yes (a YAML 1.1 boolean"},
      {"patchGitOpsOwners", "off", "must be true or false, got off (a YAML 1.1 boolean"},
      {"patchGitOpsOwners", "Y", "must be true or false, got Y (a YAML 1.1 boolean"},
  };
  for (const Case& c : cases) {
    const auto lines =
        ErrorLines(Doc("  disruption:\n    " + std::string(c.field) + ": " + std::string(c.value) + "\n"));
    EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"gpu-sharing\": spec.disruption." + std::string(c.field) + ": ",
                         c.detail))
        << c.field << " " << c.value;
  }
}

TEST(PolicyErrors, DisruptionStayingPods) {
  auto lines = ErrorLines(Doc("  disruption:\n    stayingPods: any\n"));
  EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"gpu-sharing\": spec.disruption.stayingPods: ",
                       "must be one of None, Restartable, Any, got \"any\""));
  lines = ErrorLines(Doc("  disruption:\n    stayingPod: Any\n"));
  EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"gpu-sharing\": spec.disruption.stayingPod: ", "unknown field"));
  lines = ErrorLines(Doc("  disruption: None\n"));
  EXPECT_TRUE(HasError(lines, "test.yaml:7: policy \"gpu-sharing\": spec.disruption: ", ""));
}

TEST(ParsePolicies, ExplicitEmptyProfileListAllowsNothing) {
  const GpuPolicy p = ParseOne(Doc("  mig: {allowedProfiles: []}\n"));
  EXPECT_TRUE(p.allowed_profiles_set);
  EXPECT_FALSE(p.AllowsProfile("1g.10gb"));
}

TEST(ParsePolicies, ProposalMayHaveAWindow) {
  const GpuPolicy p = ParseOne(Doc("  window: \"Daily 01:00-02:00 UTC\"\n"));
  EXPECT_EQ(p.mode, Mode::kProposal);
  EXPECT_TRUE(p.window.has_value());
}

// ---- Errors: each names the file, line, policy and field ----

TEST(PolicyErrors, EmptyFile) {
  for (const char* text : {"", "\n\n", "# only a comment\n", "---\n---\n"}) {
    Result<std::vector<GpuPolicy>> r = Parse(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), "test.yaml: no GpuPolicy found");
  }
}

TEST(PolicyErrors, YamlSyntaxErrorHasLine) {
  const auto lines = ErrorLines(Doc("  mode: Auto: now\n"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(HasError(lines, "test.yaml:7: YAML syntax error"));
  const auto flow = ErrorLines("apiVersion: gpu.kubeon.io/v1\nkind: [GpuPolicy\n");
  EXPECT_TRUE(HasError(flow, "test.yaml:", "YAML syntax error"));
}

TEST(PolicyErrors, ApiVersionAndKind) {
  const auto lines = ErrorLines(
      "apiVersion: gpu.kubeon.io/v2\nkind: GpuPolicies\nmetadata: {name: p}\nspec: {kind: Sharing}\n");
  EXPECT_TRUE(HasError(lines, "test.yaml:1: policy \"p\": apiVersion: ",
                       "must be \"gpu.kubeon.io/v1\", got \"gpu.kubeon.io/v2\""));
  EXPECT_TRUE(HasError(lines, "test.yaml:2: policy \"p\": kind: ",
                       "must be \"GpuPolicy\", got \"GpuPolicies\""));
  const auto missing = ErrorLines("metadata: {name: p}\nspec: {kind: Sharing}\n");
  EXPECT_TRUE(HasError(missing, "test.yaml:1: policy \"p\": apiVersion: missing"));
  EXPECT_TRUE(HasError(missing, "test.yaml:1: policy \"p\": kind: missing"));
}

TEST(PolicyErrors, MissingName) {
  const auto lines = ErrorLines(
      "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata:\n  labels: {a: b}\n"
      "spec: {kind: Sharing}\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(HasError(lines, "test.yaml:3: policy \"(unnamed)\": metadata.name: ",
                       "missing required field"));
  const auto no_metadata =
      ErrorLines("apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nspec: {kind: Sharing}\n");
  EXPECT_TRUE(HasError(no_metadata, "test.yaml:1: policy \"(unnamed)\": metadata.name: missing"));
}

TEST(PolicyErrors, InvalidName) {
  const auto lines = ErrorLines(Doc("", "GPU_Sharing"));
  EXPECT_TRUE(HasError(lines, "test.yaml:4: policy \"GPU_Sharing\": metadata.name: ",
                       "is not a valid name"));
}

TEST(PolicyErrors, DuplicateNames) {
  const std::string text = Doc("") + "---\n" + Doc("  mode: Proposal\n");
  const auto lines = ErrorLines(text);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(HasError(lines, "test.yaml:11: policy \"gpu-sharing\": metadata.name: ",
                       "duplicate policy name (first defined at line 4)"));
}

TEST(PolicyErrors, UnknownFieldsAtEveryLevelWithSuggestions) {
  const auto lines = ErrorLines(R"(apiVersion: gpu.kubeon.io/v1
kind: GpuPolicy
metadata:
  name: p
  lables: {a: b}
spce: {}
spec:
  kind: Sharing
  nodeselector: {a: b}
  mig:
    headrom: "10%"
  timeSlicing:
    maxReplica: 3
    color: blue
)");
  EXPECT_EQ(lines.size(), 6u);
  EXPECT_TRUE(HasError(lines, "test.yaml:5: policy \"p\": metadata.lables: ",
                       "unknown field \"lables\" (did you mean \"labels\"?)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:6: policy \"p\": spce: ",
                       "unknown field \"spce\" (did you mean \"spec\"?)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:9: policy \"p\": spec.nodeselector: ",
                       "(did you mean \"nodeSelector\"?)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:11: policy \"p\": spec.mig.headrom: ",
                       "unknown field \"headrom\" (did you mean \"headroom\"?)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:13: policy \"p\": spec.timeSlicing.maxReplica: ",
                       "(did you mean \"maxReplicas\"?)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:14: policy \"p\": spec.timeSlicing.color: ",
                       "unknown field \"color\""));
  // No suggestion when nothing is close; still an error.
  const auto far = ErrorLines(Doc("  timeSlicing:\n    color: blue\n"));
  EXPECT_TRUE(HasError(far, "test.yaml:8: policy \"gpu-sharing\": spec.timeSlicing.color: ",
                       "unknown field \"color\""));
  EXPECT_EQ(far[0].find("did you mean"), std::string::npos);
}

TEST(PolicyErrors, DuplicateField) {
  const auto lines = ErrorLines(Doc("  mode: Auto\n  window: Sat 02:00-03:00 UTC\n  mode: Approve\n"));
  EXPECT_TRUE(HasError(lines, "test.yaml:9: policy \"gpu-sharing\": spec.mode: ",
                       "duplicate field (first at line 7)"));
}

TEST(PolicyErrors, WrongTypes) {
  const auto lines = ErrorLines(R"(apiVersion: gpu.kubeon.io/v1
kind: GpuPolicy
metadata:
  name: p
spec:
  kind: Sharing
  mode: 3
  nodeSelector: gpu
  mig:
    - allowedProfiles
  timeSlicing:
    namespaces: {dev: true}
    maxReplicas: "4"
  window: [Sat, "02:00-06:00", UTC]
)");
  EXPECT_EQ(lines.size(), 6u);
  EXPECT_TRUE(HasError(lines, "test.yaml:7: policy \"p\": spec.mode: ",
                       "must be a string, got an integer"));
  EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"p\": spec.nodeSelector: ",
                       "must be a map, got a string"));
  EXPECT_TRUE(HasError(lines, "test.yaml:10: policy \"p\": spec.mig: ",
                       "must be a map, got a list"));
  EXPECT_TRUE(HasError(lines, "test.yaml:12: policy \"p\": spec.timeSlicing.namespaces: ",
                       "must be a list, got a map"));
  EXPECT_TRUE(HasError(lines, "test.yaml:13: policy \"p\": spec.timeSlicing.maxReplicas: ",
                       "must be an integer in 1..64, got a string \"4\""));
  EXPECT_TRUE(HasError(lines, "test.yaml:14: policy \"p\": spec.window: ",
                       "must be a string, got a list"));

  const auto spec_list = ErrorLines(
      "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: {name: p}\nspec: [Sharing]\n");
  EXPECT_TRUE(HasError(spec_list, "test.yaml:4: policy \"p\": spec: must be a map, got a list"));
  const auto metadata_string = ErrorLines(
      "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: p\nspec: {kind: Sharing}\n");
  EXPECT_TRUE(HasError(metadata_string,
                       "test.yaml:3: policy \"(unnamed)\": metadata: must be a map, got a string"));
  const auto profiles_string = ErrorLines(Doc("  mig:\n    allowedProfiles: 1g.10gb\n"));
  EXPECT_TRUE(HasError(profiles_string,
                       "test.yaml:8: policy \"gpu-sharing\": spec.mig.allowedProfiles: ",
                       "must be a list, got a string"));
  const auto doc_list = ErrorLines("- apiVersion: gpu.kubeon.io/v1\n");
  EXPECT_TRUE(HasError(doc_list, "test.yaml:1: policy \"(unnamed)\": (document): ",
                       "must be a map holding a GpuPolicy, got a list"));
}

TEST(PolicyErrors, SpecKind) {
  const std::string base = "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: {name: p}\n";
  const auto wrong = ErrorLines(base + "spec:\n  kind: Sharding\n");
  EXPECT_TRUE(HasError(wrong, "test.yaml:5: policy \"p\": spec.kind: ",
                       "must be \"Sharing\", got \"Sharding\""));
  const auto missing = ErrorLines(base + "spec:\n  mode: Proposal\n");
  EXPECT_TRUE(HasError(missing, "test.yaml:4: policy \"p\": spec.kind: missing required field"));
  const auto no_spec = ErrorLines(base);
  EXPECT_TRUE(HasError(no_spec, "test.yaml:1: policy \"p\": spec: missing required field"));
}

TEST(PolicyErrors, ModeIsCaseSensitiveWithSuggestion) {
  const auto lower = ErrorLines(Doc("  mode: auto\n  window: Sat 02:00-06:00 UTC\n"));
  EXPECT_TRUE(HasError(lower, "test.yaml:7: policy \"gpu-sharing\": spec.mode: ",
                       "must be one of Proposal, Approve, Auto, got \"auto\" (did you mean "
                       "\"Auto\"?)"));
  const auto typo = ErrorLines(Doc("  mode: Aprove\n"));
  EXPECT_TRUE(HasError(typo, "test.yaml:7: policy \"gpu-sharing\": spec.mode: ",
                       "(did you mean \"Approve\"?)"));
  const auto far = ErrorLines(Doc("  mode: Manual\n"));
  EXPECT_TRUE(HasError(far, "test.yaml:7: policy \"gpu-sharing\": spec.mode: ",
                       "must be one of Proposal, Approve, Auto, got \"Manual\""));
}

TEST(PolicyErrors, Headroom) {
  struct Case {
    const char* value;
    const char* detail;
  };
  const Case cases[] = {
      {"20", "must be a percentage string such as \"20%\", got an integer 20; write it quoted "
             "with a percent sign, e.g. \"20%\""},
      {"0.2", "got a number 0.2; write it quoted with a percent sign, e.g. \"20%\""},
      {"0.125", "e.g. \"12.5%\""},
      {"250", "e.g. \"20%\""},
      {"\"20\"", "must be a percentage such as \"20%\", got \"20\""},
      {"twenty", "must be a percentage such as \"20%\", got \"twenty\""},
      {"\"250%\"", "must be between 0% and 200%, got \"250%\""},
      {"200.5%", "must be between 0% and 200%"},
      {"\"-5%\"", "must be between 0% and 200%, got \"-5%\""},
      {"[20%]", "must be a string, got a list"},
  };
  for (const Case& c : cases) {
    const auto lines = ErrorLines(Doc("  mig:\n    headroom: " + std::string(c.value) + "\n"));
    EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"gpu-sharing\": spec.mig.headroom: ",
                         c.detail))
        << c.value;
  }
}

TEST(PolicyErrors, AllowedProfiles) {
  const auto lines = ErrorLines(Doc(
      "  mig:\n"
      "    allowedProfiles:\n"
      "      - 1g.10gb\n"    // 9
      "      - 2g.30gb\n"    // 10: exists on no model
      "      - 1g.10gb\n"    // 11: duplicate
      "      - 7\n"          // 12: not a string
      "      - 3g.40gb\n"));
  EXPECT_EQ(lines.size(), 3u);
  EXPECT_TRUE(HasError(lines, "test.yaml:10: policy \"gpu-sharing\": spec.mig.allowedProfiles[1]: ",
                       "profile \"2g.30gb\" exists on no GPU model"));
  EXPECT_TRUE(HasError(lines, "test.yaml:11: policy \"gpu-sharing\": spec.mig.allowedProfiles[2]: ",
                       "duplicate profile \"1g.10gb\" (also at [0])"));
  EXPECT_TRUE(HasError(lines, "test.yaml:12: policy \"gpu-sharing\": spec.mig.allowedProfiles[3]: ",
                       "must be a string, got an integer"));
}

TEST(PolicyErrors, MaxReplicas) {
  struct Case {
    const char* value;
    const char* detail;
  };
  const Case cases[] = {
      {"0", "must be in 1..64, got 0"},
      {"65", "must be in 1..64, got 65"},
      {"-3", "must be in 1..64, got -3"},
      {"99999999999999999999999", "must be in 1..64, got 99999999999999999999999"},
      {"4.5", "must be an integer in 1..64, got a number \"4.5\""},
      {"four", "must be an integer in 1..64, got a string \"four\""},
      {"0x10", "must be a decimal integer in 1..64, got 0x10"},
      {"010", "must be a decimal integer in 1..64, got 010 (kubectl reads a leading 0 as octal: 8; write it without the leading 0)"},
      {"08", "must be an integer in 1..64, got a number \"08\""},
      {"+5", "must be a decimal integer in 1..64, got +5 (write it without the sign)"},
      {"1_0", "must be a decimal integer in 1..64, got 1_0 (write it without '_')"},
      {"0b11", "must be a decimal integer in 1..64, got 0b11 (write it in decimal digits)"},
      {"0o10", "must be an integer in 1..64, got a string \"0o10\""},
      {"1:30", "must be an integer in 1..64, got a string \"1:30\""},
      {"-0", "must be in 1..64, got -0"},
      {"true", "got a boolean"},
  };
  for (const Case& c : cases) {
    const auto lines =
        ErrorLines(Doc("  timeSlicing:\n    maxReplicas: " + std::string(c.value) + "\n"));
    EXPECT_TRUE(HasError(lines,
                         "test.yaml:8: policy \"gpu-sharing\": spec.timeSlicing.maxReplicas: ",
                         c.detail))
        << c.value;
  }
}

TEST(PolicyErrors, WindowParts) {
  struct Case {
    const char* window;
    const char* detail;
  };
  const Case cases[] = {
      {"Sta 02:00-06:00 UTC", "day \"Sta\": not a day name"},
      {"Sat 02:00-26:00 UTC", "end time \"26:00\": hour must be 00..23"},
      {"Sat 02:00-06:00 CEST", "zone \"CEST\""},
      {"Sat 02:00-02:00 UTC", "start equals end"},
  };
  for (const Case& c : cases) {
    const auto lines =
        ErrorLines(Doc("  mode: Auto\n  window: \"" + std::string(c.window) + "\"\n"));
    ASSERT_EQ(lines.size(), 1u) << c.window;  // no "window missing" on top
    EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"gpu-sharing\": spec.window: \"" +
                                    std::string(c.window) + "\": ",
                         c.detail));
  }
  const auto typed = ErrorLines(Doc("  window: 42\n"));
  EXPECT_TRUE(HasError(typed, "test.yaml:7: policy \"gpu-sharing\": spec.window: ",
                       "must be a string, got an integer"));
}

TEST(PolicyErrors, WindowRequiredForApproveAndAuto) {
  for (const char* mode : {"Approve", "Auto"}) {
    const auto lines = ErrorLines(Doc("  nodeSelector: {a: b}\n  mode: " + std::string(mode) + "\n"));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(HasError(lines, "test.yaml:8: policy \"gpu-sharing\": spec.window: ",
                         "required when mode is " + std::string(mode)));
  }
  const auto null_window = ErrorLines(Doc("  mode: Auto\n  window:\n"));
  EXPECT_TRUE(HasError(null_window, "test.yaml:7: policy \"gpu-sharing\": spec.window: required"));
}

TEST(PolicyErrors, Namespaces) {
  const auto lines = ErrorLines(Doc(
      "  timeSlicing:\n"
      "    namespaces:\n"
      "      - ml-dev\n"                 // 9
      "      - ML_Dev\n"                 // 10
      "      - -dev\n"                   // 11
      "      - " + std::string(64, 'a') + "\n"  // 12
      "      - ml-dev\n"                 // 13
      "      - 123\n"                    // 14: an integer in YAML
      "      - \"\"\n"));                // 15
  EXPECT_EQ(lines.size(), 6u);
  const std::string prefix = "test.yaml:%d: policy \"gpu-sharing\": spec.timeSlicing.namespaces[%d]: ";
  auto at = [&](int line, int index) {
    char buf[200];
    std::snprintf(buf, sizeof buf, prefix.c_str(), line, index);
    return std::string(buf);
  };
  EXPECT_TRUE(HasError(lines, at(10, 1), "\"ML_Dev\" is not a valid namespace name"));
  EXPECT_TRUE(HasError(lines, at(11, 2), "\"-dev\" is not a valid namespace name"));
  EXPECT_TRUE(HasError(lines, at(12, 3), "is not a valid namespace name"));
  EXPECT_TRUE(HasError(lines, at(13, 4), "duplicate namespace \"ml-dev\" (also at [0])"));
  EXPECT_TRUE(HasError(lines, at(14, 5), "must be a string, got an integer"));
  EXPECT_TRUE(HasError(lines, at(15, 6), "\"\" is not a valid namespace name"));
}

TEST(PolicyErrors, NodeSelectorValuesMustBeStrings) {
  const auto lines = ErrorLines(Doc(
      "  nodeSelector:\n"
      "    nvidia.com/mig.capable: true\n"   // 8: boolean
      "    nvidia.com/gpu.count: 8\n"        // 9: integer
      "    gpu: yes\n"                       // 10: YAML 1.1 boolean, as kubectl reads it
      "    zone: \"yes\"\n"                  // 11: fine
      "    bad key!: x\n"                    // 12
      "    pool: [a]\n"                      // 13
      "    tier: \"not valid\"\n"));         // 14
  EXPECT_EQ(lines.size(), 6u);
  EXPECT_TRUE(HasError(lines,
                       "test.yaml:8: policy \"gpu-sharing\": spec.nodeSelector[\"nvidia.com/mig.capable\"]: ",
                       "must be a string, got a boolean (true); quote it"));
  EXPECT_TRUE(HasError(lines,
                       "test.yaml:9: policy \"gpu-sharing\": spec.nodeSelector[\"nvidia.com/gpu.count\"]: ",
                       "must be a string, got an integer (8)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:10: policy \"gpu-sharing\": spec.nodeSelector[\"gpu\"]: ",
                       "got a boolean (yes)"));
  EXPECT_TRUE(HasError(lines, "test.yaml:12: policy \"gpu-sharing\": spec.nodeSelector[\"bad key!\"]: ",
                       "not a valid key"));
  EXPECT_TRUE(HasError(lines, "test.yaml:13: policy \"gpu-sharing\": spec.nodeSelector[\"pool\"]: ",
                       "must be a string, got a list"));
  EXPECT_TRUE(HasError(lines, "test.yaml:14: policy \"gpu-sharing\": spec.nodeSelector[\"tier\"]: ",
                       "is not a valid label value"));
}

// Plain scalars resolve as kubectl's YAML 1.1 reader resolves them.
TEST(PolicyErrors, PlainScalarTypes) {
  struct Case {
    const char* value;
    const char* type;  // "" when the value is a string
  };
  const Case cases[] = {
      {"1e3", "a number"},     {".5", "a number"},       {"-.inf", "a number"},
      {".NaN", "a number"},    {"09", "a number"},       {"12_000", "an integer"},
      {"0x1F", "an integer"},  {"0b101", "an integer"},  {"017", "an integer"},
      {"+5", "an integer"},    {"Off", "a boolean"},     {"Y", "a boolean"},
      {"NO", "a boolean"},     {"~", "null"},            {"null", "null"},
      {"0o7", ""},             {"1.2.3", ""},            {"v1", ""},
      {"\"8\"", ""},           {"'true'", ""},           {"!!str 8", ""},
      {"1g", ""},              {"e3", ""},               {"x-ok", ""},
  };
  for (const Case& c : cases) {
    Result<std::vector<GpuPolicy>> r =
        Parse(Doc("  nodeSelector:\n    key: " + std::string(c.value) + "\n"));
    if (*c.type == '\0') {
      EXPECT_TRUE(r.ok()) << c.value << ": " << r.status().message();
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.value;
    EXPECT_NE(r.status().message().find("must be a string, got " + std::string(c.type)),
              std::string::npos)
        << c.value << ": " << r.status().message();
  }
}

TEST(PolicyErrors, LabelsAndAnnotations) {
  const auto lines = ErrorLines(R"(apiVersion: gpu.kubeon.io/v1
kind: GpuPolicy
metadata:
  name: p
  namespace: Kube_System
  labels:
    team: 7
  annotations:
    note: "any text at all, even spaces"
    flag: on
spec: {kind: Sharing}
)");
  EXPECT_EQ(lines.size(), 3u);
  EXPECT_TRUE(HasError(lines, "test.yaml:5: policy \"p\": metadata.namespace: ",
                       "\"Kube_System\" is not a valid namespace name"));
  EXPECT_TRUE(HasError(lines, "test.yaml:7: policy \"p\": metadata.labels[\"team\"]: ",
                       "must be a string, got an integer"));
  EXPECT_TRUE(HasError(lines, "test.yaml:10: policy \"p\": metadata.annotations[\"flag\"]: ",
                       "got a boolean"));
}

TEST(PolicyErrors, AllErrorsAcrossDocumentsSortedByLine) {
  const std::string text = Doc("  mode: Autoo\n", "one") + "---\n" +
                           Doc("  timeSlicing: {maxReplicas: 0}\n  mig: {headroom: 5}\n", "two");
  const auto lines = ErrorLines(text);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("test.yaml:7: policy \"one\": spec.mode: ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("test.yaml:15: policy \"two\": spec.timeSlicing.maxReplicas: ", 0), 0u)
      << lines[1];
  EXPECT_EQ(lines[2].rfind("test.yaml:16: policy \"two\": spec.mig.headroom: ", 0), 0u) << lines[2];
}

TEST(PolicyErrors, MangledFilesNeverThrowAndAlwaysNameTheFile) {
  const std::string valid = Doc(
      "  mode: Approve\n"
      "  nodeSelector: {pool: a, \"nvidia.com/gpu.product\": NVIDIA-A100-SXM4-80GB}\n"
      "  mig:\n"
      "    allowedProfiles: [1g.10gb, \"2g.20gb\"]\n"
      "    headroom: \"20%\"\n"
      "  timeSlicing:\n"
      "    namespaces:\n"
      "      - ml-dev\n"
      "    maxReplicas: 4\n"
      "  window: Sat 02:00-06:00 UTC\n") + "---\n" + Doc("", "other");
  ASSERT_TRUE(Parse(valid).ok());
  const std::string alphabet = " :-[]{},\n\"'#&*!|>%@`?0aZ";
  std::mt19937 rng(7);
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = valid;
    for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) {
      const size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0: text.erase(pos, 1 + rng() % 3); break;
        case 1: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: text[pos] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    Result<std::vector<GpuPolicy>> r = Parse(text);  // must not throw
    if (r.ok()) continue;
    ++rejected;
    std::istringstream lines(r.status().message());
    for (std::string line; std::getline(lines, line);) {
      ASSERT_EQ(line.rfind("test.yaml", 0), 0u) << line << "\nin:\n" << text;
    }
  }
  EXPECT_GT(rejected, 1000);
}

// Fuzz finding F3: names, keys and yaml-cpp's messages quote control
// characters; every problem must stay one line without escapes.
TEST(PolicyErrors, ControlCharactersInNamesKeysAndSyntaxErrorsAreEscaped) {
  Result<std::vector<GpuPolicy>> r = Parse(
      "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata: {name: \"evil\\nname\\e[31m\"}\n"
      "spec: {kind: Sharing, \"x\\ry\": 1}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "test.yaml:3: policy \"evil\\x0aname\\x1b[31m\": metadata.name: \"evil\\x0aname\\x1b[31m\" is not a valid "
            "name (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 "
            "characters)\n"
            "test.yaml:4: policy \"evil\\x0aname\\x1b[31m\": spec.x\\x0dy: unknown field \"x\\x0dy\"");
  Result<std::vector<GpuPolicy>> syntax = Parse(std::string("+\x01\xfc\xff\0\n.I", 8));
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().message().find('\n'), std::string::npos) << syntax.status().message();
  EXPECT_NE(syntax.status().message().find("YAML syntax error"), std::string::npos) << syntax.status().message();
  for (unsigned char c : syntax.status().message()) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
}

// ---- Helpers ----

TEST(GpuPolicy, ModeNames) {
  EXPECT_EQ(ModeName(Mode::kProposal), "Proposal");
  EXPECT_EQ(ModeName(Mode::kApprove), "Approve");
  EXPECT_EQ(ModeName(Mode::kAuto), "Auto");
}

TEST(GpuPolicy, AllowsProfile) {
  GpuPolicy p;
  EXPECT_TRUE(p.AllowsProfile("1g.10gb"));
  EXPECT_TRUE(p.AllowsProfile("7g.80gb"));
  EXPECT_FALSE(p.AllowsProfile("1g.10gb+me"));
  p.allowed_profiles_set = true;
  p.allowed_profiles = {"2g.20gb", "1g.10gb+me"};
  EXPECT_TRUE(p.AllowsProfile("2g.20gb"));
  EXPECT_TRUE(p.AllowsProfile("1g.10gb+me"));
  EXPECT_FALSE(p.AllowsProfile("1g.10gb"));
}

TEST(GpuPolicy, MeProfilesCanBeListedExplicitly) {
  const GpuPolicy p = ParseOne(Doc("  mig: {allowedProfiles: [1g.10gb+me]}\n"));
  EXPECT_TRUE(p.AllowsProfile("1g.10gb+me"));
  EXPECT_FALSE(p.AllowsProfile("1g.10gb"));
}

TEST(GpuPolicy, TimeSlicingNamespace) {
  const GpuPolicy p = ParseOne(Doc("  timeSlicing: {namespaces: [ml-dev, notebooks]}\n"));
  EXPECT_TRUE(p.TimeSlicingNamespace("ml-dev"));
  EXPECT_TRUE(p.TimeSlicingNamespace("notebooks"));
  EXPECT_FALSE(p.TimeSlicingNamespace("prod"));
  EXPECT_FALSE(p.TimeSlicingNamespace("ml"));
}

TEST(GpuPolicy, SelectsNode) {
  GpuPolicy all;
  EXPECT_TRUE(all.SelectsNode({}));
  EXPECT_TRUE(all.SelectsNode({{"x", "y"}}));
  const GpuPolicy p = ParseOne(Doc("  nodeSelector: {pool: training, \"nvidia.com/mig.capable\": \"true\"}\n"));
  EXPECT_TRUE(p.SelectsNode({{"pool", "training"}, {"nvidia.com/mig.capable", "true"}, {"z", "1"}}));
  EXPECT_FALSE(p.SelectsNode({{"pool", "training"}}));
  EXPECT_FALSE(p.SelectsNode({{"pool", "inference"}, {"nvidia.com/mig.capable", "true"}}));
}

// ---- Files ----

TEST(LoadPolicyFile, MissingFileNamesThePath) {
  Result<std::vector<GpuPolicy>> r = LoadPolicyFile("/nonexistent/kubeon/policy.yaml", ProfileExists);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/kubeon/policy.yaml: cannot open", 0), 0u)
      << r.status().message();
}

TEST(LoadPolicyFile, ReadsAndLabelsWithThePath) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("kubeon-policy-test-" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(path);
    out << Doc("  mig: {headroom: 150%}\n");
  }
  Result<std::vector<GpuPolicy>> r = LoadPolicyFile(path.string(), ProfileExists);
  std::filesystem::remove(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->front().file, path.string());
  EXPECT_DOUBLE_EQ(r->front().headroom, 1.5);
}

TEST(LoadPolicyFile, ExamplesAreValid) {
  const std::filesystem::path dir = std::filesystem::path(KUBEON_SOURCE_DIR) / "examples/policies";
  int files = 0;
  int policies = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    Result<std::vector<GpuPolicy>> r = LoadPolicyFile(entry.path().string(), ProfileExists);
    ASSERT_TRUE(r.ok()) << r.status().message();
    policies += static_cast<int>(r->size());
    for (const GpuPolicy& p : *r) {
      if (p.mode != Mode::kProposal) {
        EXPECT_TRUE(p.window.has_value()) << p.name;
      }
    }
  }
  EXPECT_GE(files, 2);
  EXPECT_GT(policies, files);  // at least one file holds several documents
}

// ---- The CRD agrees with the parser ----

void CollectSchemaPaths(const YAML::Node& schema, const std::string& prefix,
                        std::set<std::string>* out) {
  if (!schema["properties"]) return;
  for (const auto& kv : schema["properties"]) {
    const std::string path = prefix + kv.first.as<std::string>();
    out->insert(path);
    CollectSchemaPaths(kv.second, path + ".", out);
  }
}

class CrdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    crd_ = YAML::LoadFile(std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpupolicy.yaml");
    schema_ = crd_["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    ASSERT_TRUE(schema_.IsMap());
  }
  // The schema of spec.<dotted>.  Only const lookups and reset(): assigning
  // one yaml-cpp Node to another rewrites the tree it points into.
  YAML::Node Spec(const std::string& dotted) const {
    YAML::Node n;
    n.reset(Child(schema_, "spec"));
    size_t pos = 0;
    while (pos < dotted.size()) {
      size_t dot = dotted.find('.', pos);
      if (dot == std::string::npos) dot = dotted.size();
      n.reset(Child(n, dotted.substr(pos, dot - pos)));
      pos = dot + 1;
    }
    return n;
  }
  static YAML::Node Child(const YAML::Node& schema, const std::string& name) {
    const YAML::Node props = schema["properties"];
    const YAML::Node child = props[name];
    EXPECT_TRUE(child.IsMap()) << "schema has no property " << name;
    return child;
  }
  YAML::Node crd_;
  YAML::Node schema_;
};

TEST_F(CrdTest, Identity) {
  EXPECT_EQ(crd_["apiVersion"].as<std::string>(), "apiextensions.k8s.io/v1");
  EXPECT_EQ(crd_["kind"].as<std::string>(), "CustomResourceDefinition");
  EXPECT_EQ(crd_["metadata"]["name"].as<std::string>(), "gpupolicies.gpu.kubeon.io");
  EXPECT_EQ(crd_["spec"]["group"].as<std::string>(), "gpu.kubeon.io");
  EXPECT_EQ(crd_["spec"]["scope"].as<std::string>(), "Cluster");
  EXPECT_EQ(crd_["spec"]["names"]["kind"].as<std::string>(), kPolicyKind);
  EXPECT_EQ(crd_["spec"]["names"]["plural"].as<std::string>(), "gpupolicies");
  EXPECT_EQ(crd_["spec"]["names"]["shortNames"][0].as<std::string>(), "gpupol");
  const YAML::Node version = crd_["spec"]["versions"][0];
  EXPECT_EQ(crd_["spec"]["group"].as<std::string>() + "/" + version["name"].as<std::string>(),
            kPolicyApiVersion);
  EXPECT_TRUE(version["served"].as<bool>());
  EXPECT_TRUE(version["storage"].as<bool>());
}

TEST_F(CrdTest, SameFieldsAsTheParser) {
  std::set<std::string> crd_paths;
  CollectSchemaPaths(schema_, "", &crd_paths);
  // status is written by the controller, not read from policy files.
  std::erase_if(crd_paths, [](const std::string& p) { return p == "status" || p.rfind("status.", 0) == 0; });
  std::set<std::string> parser_paths;
  for (const std::string& p : PolicyFieldPaths()) {
    if (p.rfind("metadata.", 0) != 0) parser_paths.insert(p);  // the API server owns metadata
  }
  EXPECT_EQ(crd_paths, parser_paths);
}

TEST_F(CrdTest, SameEnumsDefaultsAndBounds) {
  std::vector<std::string> modes;
  for (const auto& m : Spec("mode")["enum"]) modes.push_back(m.as<std::string>());
  EXPECT_EQ(modes, (std::vector<std::string>{"Proposal", "Approve", "Auto"}));
  EXPECT_EQ(Spec("mode")["default"].as<std::string>(), ModeName(GpuPolicy().mode));
  EXPECT_EQ(Spec("kind")["enum"][0].as<std::string>(), kSharingKind);
  EXPECT_EQ(Spec("mig.headroom")["default"].as<std::string>(), GpuPolicy().headroom_text);
  EXPECT_EQ(Spec("timeSlicing.maxReplicas")["type"].as<std::string>(), "integer");
  EXPECT_EQ(Spec("timeSlicing.maxReplicas")["minimum"].as<int>(), 1);
  EXPECT_EQ(Spec("timeSlicing.maxReplicas")["maximum"].as<int>(), kMaxReplicasLimit);
  EXPECT_EQ(Spec("timeSlicing.maxReplicas")["default"].as<int>(), GpuPolicy().max_replicas);
  EXPECT_EQ(Spec("nodeSelector")["additionalProperties"]["type"].as<std::string>(), "string");
  std::vector<std::string> staying;
  for (const auto& m : Spec("disruption.stayingPods")["enum"]) staying.push_back(m.as<std::string>());
  EXPECT_EQ(staying, (std::vector<std::string>{"None", "Restartable", "Any"}));
  EXPECT_EQ(Spec("disruption.stayingPods")["default"].as<std::string>(), StayingPodsName(GpuPolicy().staying_pods));
  EXPECT_EQ(Spec("disruption.maxNodesPerPool")["type"].as<std::string>(), "integer");
  EXPECT_EQ(Spec("disruption.maxNodesPerPool")["minimum"].as<int>(), 1);
  EXPECT_EQ(Spec("disruption.maxNodesPerPool")["maximum"].as<int>(), kMaxNodesPerPoolLimit);
  EXPECT_EQ(Spec("disruption.maxNodesPerPool")["default"].as<int>(), GpuPolicy().max_nodes_per_pool);
  EXPECT_EQ(Spec("disruption.patchGitOpsOwners")["type"].as<std::string>(), "boolean");
  EXPECT_EQ(Spec("disruption.patchGitOpsOwners")["default"].as<bool>(), GpuPolicy().patch_gitops_owners);
  EXPECT_EQ(Spec("mig.allowedProfiles")["x-kubernetes-list-type"].as<std::string>(), "set");
  EXPECT_EQ(Spec("timeSlicing.namespaces")["x-kubernetes-list-type"].as<std::string>(), "set");
  std::vector<std::string> required;
  for (const auto& r : schema_["properties"]["spec"]["required"]) required.push_back(r.as<std::string>());
  EXPECT_EQ(required, std::vector<std::string>{"kind"});
}

// The schema's patterns accept exactly what the parser accepts (headroom,
// namespaces) or at least everything it accepts (window, profiles).
TEST_F(CrdTest, PatternsAgreeWithTheParser) {
  const std::regex headroom(Spec("mig.headroom")["pattern"].as<std::string>());
  for (const char* v : {"0%", "5%", "20%", "12.5%", "99.99%", "100%", "199.9%", "200%", "200.0%",
                        "200.5%", "201%", "250%", "1000%", "-5%", "20", "020%", "20 %", ".5%"}) {
    const bool parser = Parse(Doc("  mig: {headroom: \"" + std::string(v) + "\"}\n")).ok();
    EXPECT_EQ(std::regex_match(v, headroom), parser) << v;
  }
  const YAML::Node ns = Spec("timeSlicing.namespaces")["items"];
  const std::regex ns_pattern(ns["pattern"].as<std::string>());
  const size_t ns_max = ns["maxLength"].as<size_t>();
  for (const std::string& v : {std::string("dev"), std::string("ml-dev"), std::string("a1"),
                              std::string("1a"), std::string("ML"), std::string("-a"),
                              std::string("a-"), std::string("a_b"), std::string("a.b"),
                              std::string(63, 'x'), std::string(64, 'x')}) {
    const bool parser = Parse(Doc("  timeSlicing: {namespaces: [\"" + v + "\"]}\n")).ok();
    EXPECT_EQ(std::regex_match(v, ns_pattern) && v.size() <= ns_max, parser) << v;
  }
  const std::regex window(Spec("window")["pattern"].as<std::string>());
  for (const char* v : {"Sat 02:00-06:00 UTC", "Mon-Fri 22:00-04:00 +02:00", "Sat, Sun 2:00-6:00 Z",
                        "Mon,Wed-Fri 01:00-02:00 UTC-0530", "* 00:00-24:00 UTC",
                        "Daily 03:00 - 05:00 GMT"}) {
    ASSERT_TRUE(Window::Parse(v).ok()) << v;
    EXPECT_TRUE(std::regex_match(v, window)) << v;
  }
  const std::regex profile(Spec("mig.allowedProfiles")["items"]["pattern"].as<std::string>());
  for (const std::string& p : kProfiles) EXPECT_TRUE(std::regex_match(p, profile)) << p;
}

}  // namespace
}  // namespace kubeon::policy
