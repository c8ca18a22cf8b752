// Tests of gen-cluster: determinism, the written files read back by kubeon's
// own readers (cluster JSON, OpenMetrics history, policy, prices) and equal to
// the in-memory builders, the demo's designed cases, and the scale preset's
// shape.  When promtool is installed, the history must also be accepted by
// `promtool tsdb create-blocks-from openmetrics`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gen-cluster/kube_json.h"
#include "gen-cluster/openmetrics_writer.h"
#include "gen-cluster/synthetic.h"
#include "gen-cluster/usage.h"
#include "metrics/history.h"
#include "metrics/openmetrics_reader.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "model/snapshot_stream.h"
#include "policy/gpu_policy.h"

namespace kubeon::gencluster {
namespace {

SyntheticCluster MustGenerate(const Options& o) {
  Result<SyntheticCluster> c = Generate(o);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.status().message());
  return std::move(c.value());
}

Options Demo(int64_t interval = 0) {
  Options o;
  o.interval_seconds = interval;
  return o;
}

Options Scale(int nodes, int gpus_per_node, int64_t samples) {
  Options o;
  o.preset = Preset::kScale;
  o.nodes = nodes;
  o.gpus_per_node = gpus_per_node;
  o.history_samples = samples;
  return o;
}

std::string ClusterText(const SyntheticCluster& c) {
  std::string out;
  EXPECT_TRUE(WriteClusterJson(c, [&](std::string_view s) {
                out.append(s);
                return true;
              }).ok());
  return out;
}

std::string HistoryText(const SyntheticCluster& c) {
  std::string out;
  EXPECT_TRUE(WriteHistory(c, [&](std::string_view s) {
                out.append(s);
                return true;
              }).ok());
  return out;
}

metrics::History ReadHistoryText(const std::string& text) {
  metrics::OpenMetricsReader reader(metrics::IngestOptions{}, "history.om");
  reader.Feed(text);
  Result<metrics::History> h = reader.Finish();
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.status().message());
  return std::move(h.value());
}

const WorkloadSpec& FindWorkload(const SyntheticCluster& c, const std::string& name) {
  for (const auto& w : c.workloads) {
    if (w.name == name) return w;
  }
  ADD_FAILURE() << "no workload " << name;
  return c.workloads.front();
}

int WorkloadIndex(const SyntheticCluster& c, const std::string& name) {
  return static_cast<int>(&FindWorkload(c, name) - c.workloads.data());
}

std::string TempDir(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(KUBEON_BINARY_DIR) / "gen-cluster-test" / name;
  std::filesystem::remove_all(p);
  return p.string();
}

// ---- determinism ------------------------------------------------------------------

TEST(GenerateTest, SameSeedSameBytes) {
  const SyntheticCluster a = MustGenerate(Demo(3600));
  const SyntheticCluster b = MustGenerate(Demo(3600));
  EXPECT_EQ(ClusterText(a), ClusterText(b));
  EXPECT_EQ(HistoryText(a), HistoryText(b));
  EXPECT_EQ(PolicyYaml(a), PolicyYaml(b));
  EXPECT_EQ(PricesYaml(a), PricesYaml(b));
}

TEST(GenerateTest, OtherSeedOtherBytes) {
  Options o = Demo(3600);
  o.seed = 7;
  const SyntheticCluster a = MustGenerate(Demo(3600));
  const SyntheticCluster b = MustGenerate(o);
  EXPECT_NE(ClusterText(a), ClusterText(b));
  EXPECT_NE(HistoryText(a), HistoryText(b));
}

TEST(GenerateTest, ScaleIsDeterministicToo) {
  EXPECT_EQ(ClusterText(MustGenerate(Scale(40, 8, 6))), ClusterText(MustGenerate(Scale(40, 8, 6))));
  EXPECT_EQ(HistoryText(MustGenerate(Scale(40, 8, 6))), HistoryText(MustGenerate(Scale(40, 8, 6))));
}

TEST(GenerateTest, RejectsBadOptions) {
  Options o = Demo();
  o.history_samples = 10;
  o.interval_seconds = 60;
  EXPECT_FALSE(Generate(o).ok());
  o = Demo();
  o.history_samples = 1;
  EXPECT_FALSE(Generate(o).ok());
  o = Demo();
  o.history_days = 0;
  EXPECT_FALSE(Generate(o).ok());
  o = Scale(0, 8, 10);
  EXPECT_FALSE(Generate(o).ok());
  o = Scale(10, 17, 10);
  EXPECT_FALSE(Generate(o).ok());
}

// ---- the cluster file ----------------------------------------------------------------

void ExpectSameCluster(const model::Cluster& parsed, const model::Cluster& built) {
  ASSERT_EQ(parsed.nodes.size(), built.nodes.size());
  for (size_t i = 0; i < parsed.nodes.size(); ++i) {
    const model::Node& a = parsed.nodes[i];
    const model::Node& b = built.nodes[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.annotations, b.annotations);
    ASSERT_EQ(a.taints.size(), b.taints.size());
    for (size_t t = 0; t < a.taints.size(); ++t) {
      EXPECT_EQ(a.taints[t].key, b.taints[t].key);
      EXPECT_EQ(a.taints[t].value, b.taints[t].value);
      EXPECT_EQ(a.taints[t].effect, b.taints[t].effect);
    }
    EXPECT_EQ(a.unschedulable, b.unschedulable);
    EXPECT_EQ(a.ready, b.ready);
    EXPECT_EQ(a.instance_type, b.instance_type);
    EXPECT_EQ(a.gpu_product, b.gpu_product);
    EXPECT_EQ(a.gpu_count, b.gpu_count);
    EXPECT_EQ(a.gpu_memory_mib, b.gpu_memory_mib);
    EXPECT_EQ(a.mig_capable, b.mig_capable);
    EXPECT_EQ(a.mig_strategy, b.mig_strategy);
    EXPECT_EQ(a.hourly_price_usd, b.hourly_price_usd);
    EXPECT_EQ(a.capacity, b.capacity);
    EXPECT_EQ(a.allocatable, b.allocatable);
  }
  ASSERT_EQ(parsed.pods.size(), built.pods.size());
  for (size_t i = 0; i < parsed.pods.size(); ++i) {
    const model::Pod& a = parsed.pods[i];
    const model::Pod& b = built.pods[i];
    SCOPED_TRACE(a.namespace_ + "/" + a.name);
    EXPECT_EQ(a.namespace_, b.namespace_);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.uid, b.uid);
    EXPECT_EQ(a.node_name, b.node_name);
    EXPECT_EQ(a.phase, b.phase);
    EXPECT_EQ(a.labels, b.labels);
    ASSERT_EQ(a.controller.has_value(), b.controller.has_value());
    if (a.controller) {
      EXPECT_EQ(a.controller->api_version, b.controller->api_version);
      EXPECT_EQ(a.controller->kind, b.controller->kind);
      EXPECT_EQ(a.controller->name, b.controller->name);
      EXPECT_EQ(a.controller->uid, b.controller->uid);
    }
    ASSERT_EQ(a.containers.size(), b.containers.size());
    for (size_t k = 0; k < a.containers.size(); ++k) {
      EXPECT_EQ(a.containers[k].name, b.containers[k].name);
      EXPECT_EQ(a.containers[k].init, b.containers[k].init);
      EXPECT_EQ(a.containers[k].requests, b.containers[k].requests);
      EXPECT_EQ(a.containers[k].limits, b.containers[k].limits);
    }
    EXPECT_EQ(a.workload, b.workload);
    EXPECT_EQ(a.gpus, b.gpus);
    EXPECT_EQ(a.gpu_slices, b.gpu_slices);
    EXPECT_EQ(a.daemonset, b.daemonset);
  }
  ASSERT_EQ(parsed.pdbs.size(), built.pdbs.size());
  for (size_t i = 0; i < parsed.pdbs.size(); ++i) {
    const auto& a = parsed.pdbs[i];
    const auto& b = built.pdbs[i];
    EXPECT_EQ(a.namespace_, b.namespace_);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.selector.match_labels, b.selector.match_labels);
    EXPECT_EQ(a.selector.empty_selects_all, b.selector.empty_selects_all);
    EXPECT_EQ(a.min_available, b.min_available);
    EXPECT_EQ(a.max_unavailable, b.max_unavailable);
    EXPECT_EQ(a.disruptions_allowed, b.disruptions_allowed);
    EXPECT_EQ(a.expected_pods, b.expected_pods);
  }
  ASSERT_EQ(parsed.controllers.size(), built.controllers.size());
  for (size_t i = 0; i < parsed.controllers.size(); ++i) {
    const auto& a = parsed.controllers[i];
    const auto& b = built.controllers[i];
    EXPECT_EQ(a.namespace_, b.namespace_);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.uid, b.uid);
    EXPECT_EQ(a.replicas, b.replicas);
    ASSERT_EQ(a.owner.has_value(), b.owner.has_value());
    if (a.owner) {
      EXPECT_EQ(a.owner->kind, b.owner->kind);
      EXPECT_EQ(a.owner->name, b.owner->name);
      EXPECT_EQ(a.owner->uid, b.owner->uid);
    }
  }
  EXPECT_TRUE(parsed.warnings.empty());
}

TEST(ClusterJsonTest, DemoParsesAndEqualsTheInMemoryModel) {
  const SyntheticCluster c = MustGenerate(Demo(3600));
  const std::string text = ClusterText(c);
  Result<model::Cluster> parsed = model::ParseClusterJson(text, "cluster.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ExpectSameCluster(*parsed, BuildModelCluster(c));
  EXPECT_EQ(parsed->nodes.size(), 12u);
  int gpu_pods = 0;
  for (const auto& p : parsed->pods) gpu_pods += p.gpus > 0 ? 1 : 0;
  EXPECT_EQ(gpu_pods, 48);
}

TEST(ClusterJsonTest, IsTheListKubectlPrints) {
  const std::string text = ClusterText(MustGenerate(Demo(3600)));
  EXPECT_EQ(text.rfind("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n", 0), 0u);
  const std::string tail = "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
  ASSERT_GT(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
  // Items grouped in the command's kind order.
  const std::vector<std::string> kinds = {"Node", "Pod", "PodDisruptionBudget", "Deployment", "StatefulSet", "ReplicaSet"};
  size_t last = 0;
  for (const auto& k : kinds) {
    const size_t first = text.find("\n            \"kind\": \"" + k + "\",");
    ASSERT_NE(first, std::string::npos) << k;
    EXPECT_GE(first, last) << k;
    last = text.rfind("\n            \"kind\": \"" + k + "\",");
  }
}

TEST(ClusterJsonTest, ScaleParsesAndEqualsTheInMemoryModel) {
  const SyntheticCluster c = MustGenerate(Scale(60, 8, 4));
  Result<model::Cluster> parsed = model::ParseClusterJson(ClusterText(c), "cluster.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ExpectSameCluster(*parsed, BuildModelCluster(c));
}

// The item-by-item file reader (model/snapshot_stream.h) makes the same
// Cluster of a generated List as the whole-text reader, chunk boundaries
// anywhere (small chunks) or one item at a time (the default chunk).
TEST(ClusterJsonTest, StreamedReaderEqualsTheWholeTextReader) {
  const std::string text = ClusterText(MustGenerate(Scale(60, 8, 4)));
  Result<model::Cluster> whole = model::ParseClusterJson(text, "cluster.json");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  for (size_t chunk : {size_t{61}, size_t{4096}, model::kSnapshotChunkBytes}) {
    Result<model::Cluster> streamed = model::ReadClusterText(text, "cluster.json", chunk);
    ASSERT_TRUE(streamed.ok()) << streamed.status().message();
    EXPECT_TRUE(*streamed == *whole) << "chunk " << chunk;
  }
}

// --compact drops only fields kubeon does not read: the same Cluster.
TEST(ClusterJsonTest, CompactFormGivesTheSameCluster) {
  const SyntheticCluster c = MustGenerate(Scale(60, 8, 4));
  std::string compact;
  ASSERT_TRUE(WriteClusterJson(c, [&](std::string_view s) {
                compact.append(s);
                return true;
              }, true).ok());
  const std::string full = ClusterText(c);
  EXPECT_LT(compact.size() * 4, full.size());
  Result<model::Cluster> a = model::ParseClusterJson(compact, "cluster.json");
  Result<model::Cluster> b = model::ParseClusterJson(full, "cluster.json");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(*a == *b);
}

TEST(ClusterJsonTest, WorkloadsResolveToTheirControllers) {
  const SyntheticCluster c = MustGenerate(Demo(3600));
  Result<model::Cluster> parsed = model::ParseClusterJson(ClusterText(c), "cluster.json");
  ASSERT_TRUE(parsed.ok());
  std::map<std::string, std::set<std::string>> kinds;  // workload name -> kinds of its pods
  for (const auto& p : parsed->pods) kinds[p.workload.name].insert(p.workload.kind);
  for (const char* d : {"embedder", "reranker", "sentiment", "llm-7b", "llm-8b", "asr-whisper", "embeddings-xl",
                        "llm-canary", "new-model", "feature-exp", "tokenizer-bench", "ocr", "asr-experiments",
                        "summarizer-dev", "api-gateway"}) {
    EXPECT_EQ(kinds[d], std::set<std::string>{"Deployment"}) << d;
  }
  for (const char* s : {"fraud-scorer", "recsys-trainer", "llm-finetune", "ranker-train", "alice-nb", "grace-nb"}) {
    EXPECT_EQ(kinds[s], std::set<std::string>{"StatefulSet"}) << s;
  }
  EXPECT_EQ(kinds["gpu-debug-shell"], std::set<std::string>{"Pod"});
  EXPECT_EQ(kinds["nvidia-dcgm-exporter"], std::set<std::string>{"DaemonSet"});
  const WorkloadSpec& job = FindWorkload(c, "nightly-eval");
  EXPECT_EQ(kinds[job.job_name], std::set<std::string>{"Job"});
  // Replica counts: pods of each Deployment match spec.replicas.
  std::map<std::string, int> pods;
  for (const auto& p : parsed->pods) ++pods[p.workload.name];
  for (const auto& ctl : parsed->controllers) {
    if (ctl.kind == "Deployment" || ctl.kind == "StatefulSet") {
      EXPECT_EQ(pods[ctl.name], ctl.replicas) << ctl.name;
    }
  }
}

TEST(ClusterJsonTest, PdbStatusFollowsThePods) {
  Result<model::Cluster> parsed = model::ParseClusterJson(ClusterText(MustGenerate(Demo(3600))), "cluster.json");
  ASSERT_TRUE(parsed.ok());
  std::map<std::string, const model::PodDisruptionBudget*> pdbs;
  for (const auto& p : parsed->pdbs) pdbs[p.name] = &p;
  ASSERT_EQ(pdbs.count("embedder"), 1u);
  EXPECT_EQ(pdbs["embedder"]->expected_pods, 4);      // minAvailable 3
  EXPECT_EQ(pdbs["embedder"]->disruptions_allowed, 1);
  EXPECT_EQ(pdbs["fraud-scorer"]->disruptions_allowed, 1);  // minAvailable 66% of 3 -> 2
  EXPECT_EQ(pdbs["llm-8b"]->disruptions_allowed, 1);        // minAvailable 75% of 4 -> 3
  EXPECT_EQ(pdbs["asr-whisper"]->disruptions_allowed, 0);   // minAvailable 3 of 3
  EXPECT_EQ(pdbs["ocr"]->disruptions_allowed, 2);           // maxUnavailable 34% of 3 -> 2
  for (const auto& p : parsed->pdbs) {
    int selected = 0;
    for (const auto& pod : parsed->pods) {
      if (pod.namespace_ == p.namespace_ && p.selector.Matches(pod.labels)) ++selected;
    }
    EXPECT_EQ(selected, p.expected_pods) << p.name;
  }
}

// ---- the history file ----------------------------------------------------------------

void ExpectSameHistory(const metrics::History& read, const metrics::History& built) {
  EXPECT_EQ(read.stats.lines, built.stats.lines);
  EXPECT_EQ(read.stats.data_lines, built.stats.data_lines);
  EXPECT_EQ(read.stats.samples, built.stats.samples);
  EXPECT_EQ(read.stats.bad_lines, built.stats.bad_lines);
  EXPECT_EQ(read.stats.ignored_metric_lines, built.stats.ignored_metric_lines);
  EXPECT_EQ(read.stats.unattributed_lines, built.stats.unattributed_lines);
  EXPECT_EQ(read.stats.metrics_seen, built.stats.metrics_seen);
  ASSERT_EQ(read.pods.size(), built.pods.size());
  for (const auto& [key, a] : read.pods) {
    SCOPED_TRACE(key.namespace_ + "/" + key.pod);
    auto it = built.pods.find(key);
    ASSERT_NE(it, built.pods.end());
    const metrics::PodUsage& b = it->second;
    EXPECT_EQ(a.peak_memory_mib, b.peak_memory_mib);
    EXPECT_EQ(a.samples, b.samples);
    EXPECT_EQ(a.bad_samples, b.bad_samples);
    EXPECT_EQ(a.first_ts_ms, b.first_ts_ms);
    EXPECT_EQ(a.last_ts_ms, b.last_ts_ms);
    EXPECT_EQ(a.compute.count(), b.compute.count());
    EXPECT_EQ(a.compute.max(), b.compute.max());
    EXPECT_EQ(a.gpu_util.count(), b.gpu_util.count());
    for (double q : {0.5, 0.9, 0.99, 1.0}) {
      EXPECT_EQ(a.compute.Quantile(q), b.compute.Quantile(q)) << q;
      EXPECT_EQ(a.gpu_util.Quantile(q), b.gpu_util.Quantile(q)) << q;
    }
    EXPECT_EQ(a.hostname, b.hostname);
    EXPECT_EQ(a.gpu_uuid, b.gpu_uuid);
    EXPECT_EQ(a.model_name, b.model_name);
    EXPECT_EQ(a.mig_profile, b.mig_profile);
    EXPECT_EQ(a.container, b.container);
    EXPECT_EQ(a.gpus, b.gpus);
  }
}

TEST(HistoryTest, DemoReadsBackAsTheInMemoryHistory) {
  const SyntheticCluster c = MustGenerate(Demo(900));
  ExpectSameHistory(ReadHistoryText(HistoryText(c)), BuildHistory(c));
}

TEST(HistoryTest, ScaleReadsBackAsTheInMemoryHistory) {
  const SyntheticCluster c = MustGenerate(Scale(40, 4, 12));
  ExpectSameHistory(ReadHistoryText(HistoryText(c)), BuildHistory(c));
}

TEST(HistoryTest, DemoWorkloadsHaveTheirDesignedHistory) {
  const SyntheticCluster c = MustGenerate(Demo(900));
  const metrics::History h = BuildHistory(c);
  // Workload peaks are exactly the designed ones, over all of their pods.
  std::map<int, int64_t> peak;
  std::map<int, int64_t> first, last;
  std::map<int, uint64_t> bad;
  for (const auto& p : c.pods) {
    auto it = h.pods.find({c.workloads[p.workload].namespace_, p.name});
    if (it == h.pods.end()) continue;
    peak[p.workload] = std::max(peak[p.workload], it->second.peak_memory_mib);
    first[p.workload] = first.count(p.workload) ? std::min(first[p.workload], it->second.first_ts_ms) : it->second.first_ts_ms;
    last[p.workload] = std::max(last[p.workload], it->second.last_ts_ms);
    bad[p.workload] += it->second.bad_samples;
  }
  for (size_t w = 0; w < c.workloads.size(); ++w) {
    const WorkloadSpec& ws = c.workloads[w];
    SCOPED_TRACE(ws.name);
    if (ws.gpus_per_pod == 0 || ws.history == HistoryKind::kNone) {
      EXPECT_EQ(peak.count(static_cast<int>(w)), 0u);
      continue;
    }
    EXPECT_EQ(peak[w], ws.usage.peak_memory_mib);
    const double hours = static_cast<double>(last[w] - first[w]) / 3.6e6;
    if (ws.history == HistoryKind::kShort) {
      EXPECT_NEAR(hours, 10.0, 0.25);
    } else if (ws.kind != WorkloadKind::kJob) {
      EXPECT_DOUBLE_EQ(hours, 72.0);
    }
    EXPECT_EQ(bad[w], ws.history == HistoryKind::kBadSamples ? 6u : 0u);
  }
  // The rollout: the peak lies in a pod that no longer exists.
  const int llm = WorkloadIndex(c, "llm-7b");
  int old_pods = 0;
  for (const auto& p : c.pods) {
    if (p.workload != llm || p.in_snapshot) continue;
    ++old_pods;
    EXPECT_TRUE(p.HasHistory());
    EXPECT_LT(p.history_to, c.workloads[llm].rollout);
  }
  EXPECT_EQ(old_pods, 3);
  bool old_peak = false;
  for (const auto& p : c.pods) old_peak |= p.workload == llm && !p.in_snapshot && p.peak_gpu >= 0;
  EXPECT_TRUE(old_peak);
}

TEST(HistoryTest, ExportedLabelsOnTheServiceMonitorPoolOnly) {
  const std::string text = HistoryText(MustGenerate(Demo(3600)));
  EXPECT_NE(text.find("exported_pod=\"llm-8b-"), std::string::npos);
  EXPECT_EQ(text.find("exported_pod=\"embedder-"), std::string::npos);
  EXPECT_NE(text.find(",Hostname=\""), std::string::npos);
  EXPECT_NE(text.find(",hostname=\""), std::string::npos);
  EXPECT_NE(text.find("modelName=\"NVIDIA A100-SXM4-40GB\""), std::string::npos);
  EXPECT_NE(text.find(" NaN "), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

TEST(HistoryTest, NoHistoryOption) {
  Options o = Demo();
  o.history = false;
  const SyntheticCluster c = MustGenerate(o);
  for (const auto& p : c.pods) EXPECT_FALSE(p.HasHistory()) << p.name;
  EXPECT_TRUE(BuildInMemory(c).history.pods.empty());
  const std::string dir = TempDir("no-history");
  ASSERT_TRUE(WriteFiles(c, dir).ok());
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "history.om"));
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "cluster.json"));
}

// The in-memory history (what the benchmarks plan) is the file's history as
// the reader reads it: the same pods, peaks, samples and covered time (a
// history without coverage would make every workload "too little history").
TEST(HistoryTest, InMemoryHistoryEqualsTheFileRead) {
  for (Preset preset : {Preset::kScale, Preset::kFull}) {
    Options o;
    o.preset = preset;
    o.nodes = 6;
    o.history_samples = 25;
    const SyntheticCluster c = MustGenerate(o);
    const metrics::History mem = BuildInMemory(c).history;
    const std::string dir = TempDir(preset == Preset::kScale ? "mem-vs-file-scale" : "mem-vs-file-full");
    ASSERT_TRUE(WriteFiles(c, dir).ok());
    Result<metrics::History> file = metrics::ReadHistoryFile(dir + "/history.om", metrics::IngestOptions{});
    ASSERT_TRUE(file.ok()) << file.status().message();
    ASSERT_EQ(mem.pods.size(), file->pods.size());
    size_t covered = 0;
    for (const auto& [key, u] : mem.pods) {
      auto it = file->pods.find(key);
      ASSERT_NE(it, file->pods.end()) << key.pod;
      EXPECT_EQ(u.peak_memory_mib, it->second.peak_memory_mib) << key.pod;
      EXPECT_EQ(u.covered_ms(), it->second.covered_ms()) << key.pod;
      covered += u.covered_ms() > 0 ? 1 : 0;
    }
    EXPECT_GT(covered, mem.pods.size() / 2);  // most pods have days of history
  }
}

TEST(HistoryTest, PromtoolAcceptsIt) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) GTEST_SKIP() << "promtool not installed";
  const SyntheticCluster c = MustGenerate(Demo(1800));
  const std::string dir = TempDir("promtool");
  ASSERT_TRUE(WriteFiles(c, dir).ok());
  const std::string cmd = "promtool tsdb create-blocks-from openmetrics " + dir + "/history.om " + dir +
                          "/tsdb >" + dir + "/promtool.log 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "see " << dir << "/promtool.log";
}

// ---- the four files with kubeon's own loaders -----------------------------------------

TEST(FilesTest, EveryFileLoads) {
  const SyntheticCluster c = MustGenerate(Demo(1800));
  const std::string dir = TempDir("demo");
  ASSERT_TRUE(WriteFiles(c, dir).ok());
  Result<model::Cluster> cluster = model::LoadClusterFile(dir + "/cluster.json");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Result<metrics::History> history = metrics::ReadHistoryFile(dir + "/history.om", metrics::IngestOptions{});
  ASSERT_TRUE(history.ok()) << history.status().message();
  ExpectSameHistory(*history, BuildHistory(c));
  const mig::MigCatalog& catalog = mig::MigCatalog::Builtin();
  auto policies = policy::LoadPolicyFile(dir + "/policy.yaml", [&](std::string_view p) { return catalog.ProfileExists(p); });
  ASSERT_TRUE(policies.ok()) << policies.status().message();
  ASSERT_EQ(policies->size(), 1u);
  EXPECT_EQ((*policies)[0].max_replicas, 4);
  EXPECT_DOUBLE_EQ((*policies)[0].headroom, 0.2);
  EXPECT_TRUE((*policies)[0].TimeSlicingNamespace("notebooks"));
  EXPECT_FALSE((*policies)[0].TimeSlicingNamespace("production"));
  EXPECT_TRUE((*policies)[0].window.has_value());
  Result<model::PriceTable> prices = model::LoadPricesFile(dir + "/prices.yaml");
  ASSERT_TRUE(prices.ok()) << prices.status().message();
  // Every node is priced: by annotation or through the prices file.
  for (const auto& n : cluster->nodes) {
    EXPECT_TRUE(n.hourly_price_usd.has_value() || prices->count(n.instance_type)) << n.name;
  }
  // Every GPU product is in the MIG catalog.
  for (const auto& n : cluster->nodes) {
    if (!n.gpu_product.empty()) {
      EXPECT_NE(catalog.MatchProduct(n.gpu_product, n.gpu_memory_mib), nullptr) << n.gpu_product;
    }
  }
}

// ---- invariants of both presets -----------------------------------------------------------

void ExpectInvariants(const SyntheticCluster& c) {
  std::set<std::string> nodes, pods;
  for (const auto& n : c.nodes) EXPECT_TRUE(nodes.insert(n.name).second) << n.name;
  std::set<std::pair<int, int>> held;  // (node, gpu) of snapshot pods
  for (const auto& p : c.pods) {
    const WorkloadSpec& w = c.workloads[p.workload];
    EXPECT_TRUE(pods.insert(w.namespace_ + "/" + p.name).second) << p.name;
    EXPECT_EQ(static_cast<int>(p.gpus.size()), w.gpus_per_pod) << p.name;
    for (int g : p.gpus) {
      EXPECT_GE(g, 0);
      EXPECT_LT(g, c.InstanceOf(c.nodes[p.node]).gpus) << p.name;
      if (p.in_snapshot) {
        EXPECT_TRUE(held.insert({p.node, g}).second) << p.name << " shares GPU " << g;
      }
    }
    if (p.HasHistory()) {
      EXPECT_GE(p.history_from, c.history_start);
      EXPECT_LE(p.history_to, c.history_end);
      EXPECT_EQ((p.history_from - c.history_start) % c.interval_seconds, 0);
      EXPECT_EQ((p.history_to - c.history_start) % c.interval_seconds, 0);
    }
  }
  // One peak per workload with history, inside its pod's window.
  std::map<int, int> peaks;
  for (const auto& p : c.pods) {
    if (p.peak_gpu < 0) continue;
    ++peaks[p.workload];
    EXPECT_TRUE(p.HasHistory());
    EXPECT_GE(p.peak_ts, p.history_from);
    EXPECT_LE(p.peak_ts, p.history_to);
  }
  for (size_t w = 0; w < c.workloads.size(); ++w) {
    bool any = false;
    for (const auto& p : c.pods) any |= p.workload == static_cast<int>(w) && p.HasHistory();
    EXPECT_EQ(peaks[w], any ? 1 : 0) << c.workloads[w].name;
  }
}

TEST(InvariantsTest, Demo) { ExpectInvariants(MustGenerate(Demo())); }

TEST(InvariantsTest, Scale) {
  ExpectInvariants(MustGenerate(Scale(300, 8, 8)));
  ExpectInvariants(MustGenerate(Scale(50, 4, 8)));
  ExpectInvariants(MustGenerate(Scale(7, 1, 8)));
}

TEST(ScaleTest, PoolsAreSixtyToEightyPercentHeldMostlyByOneGpuPods) {
  const SyntheticCluster c = MustGenerate(Scale(1000, 8, 4));
  EXPECT_EQ(c.nodes.size(), 1000u);
  std::map<std::string, int> total, held;
  int pods = 0, single = 0;
  for (const auto& n : c.nodes) total[n.pool] += c.InstanceOf(n).gpus;
  for (const auto& p : c.pods) {
    if (!p.in_snapshot) continue;
    held[c.nodes[p.node].pool] += static_cast<int>(p.gpus.size());
    ++pods;
    single += p.gpus.size() == 1 ? 1 : 0;
  }
  EXPECT_EQ(total.size(), 5u);
  for (const auto& [pool, gpus] : total) {
    const double f = static_cast<double>(held[pool]) / gpus;
    EXPECT_GE(f, 0.55) << pool;
    EXPECT_LE(f, 0.80) << pool;
  }
  EXPECT_GT(static_cast<double>(single) / pods, 0.9);
  std::set<std::string> models;
  for (const auto& n : c.nodes) models.insert(c.InstanceOf(n).gpu);
  EXPECT_EQ(models, (std::set<std::string>{"A100-40GB", "A100-80GB", "H100-80GB", "A10G", "L4"}));
}

TEST(ScaleTest, HistorySamplesSetTheGrid) {
  const SyntheticCluster c = MustGenerate(Scale(20, 8, 24));
  EXPECT_EQ(c.SampleCount(c.history_start, c.history_end), 24);
  EXPECT_EQ(c.history_end, c.snapshot_time);
}

// ---- samples ------------------------------------------------------------------------------

TEST(SamplerTest, PeakIsExactAndNeverExceeded) {
  const SyntheticCluster c = MustGenerate(Demo(600));
  for (const auto& p : c.pods) {
    if (!p.HasHistory()) continue;
    const UsageSpec& u = c.workloads[p.workload].usage;
    const GpuType* gpu = c.GpuOf(c.nodes[p.node]);
    for (int g = 0; g < static_cast<int>(p.gpus.size()); ++g) {
      SeriesSampler s(c, p, g);
      Sample x;
      int64_t n = 0, at_peak = 0;
      while (s.Next(&x)) {
        ++n;
        EXPECT_LE(x.fb_used_mib, u.peak_memory_mib);
        EXPECT_GE(x.fb_used_mib, 0);
        EXPECT_LE(x.fb_used_mib, gpu->memory_mib - gpu->reserved_mib);
        EXPECT_LE(x.gr_engine_active, u.peak_compute);
        EXPECT_GE(x.gr_engine_active, 0);
        EXPECT_GE(x.gpu_util, 0);
        EXPECT_LE(x.gpu_util, 100);
        if (x.fb_used_mib == u.peak_memory_mib) {
          ++at_peak;
          EXPECT_EQ(x.ts, p.peak_ts);
          EXPECT_EQ(g, p.peak_gpu);
          EXPECT_EQ(x.gr_engine_active, u.peak_compute);
        }
      }
      EXPECT_EQ(n, s.count());
      EXPECT_EQ(at_peak, g == p.peak_gpu ? 1 : 0) << p.name;
    }
  }
}

TEST(SamplerTest, InferenceFollowsTheDay) {
  const SyntheticCluster c = MustGenerate(Demo(300));
  const int w = WorkloadIndex(c, "embedder");
  double day = 0, night = 0;
  int nd = 0, nn = 0;
  for (const auto& p : c.pods) {
    if (p.workload != w || !p.HasHistory()) continue;
    SeriesSampler s(c, p, 0);
    Sample x;
    while (s.Next(&x)) {
      const int64_t hour = (x.ts % 86400) / 3600;
      if (hour >= 14 && hour < 18) {
        day += x.gr_engine_active;
        ++nd;
      } else if (hour >= 2 && hour < 6) {
        night += x.gr_engine_active;
        ++nn;
      }
    }
  }
  ASSERT_GT(nd, 0);
  ASSERT_GT(nn, 0);
  EXPECT_GT(day / nd, 2 * night / nn);
}

}  // namespace
}  // namespace kubeon::gencluster
