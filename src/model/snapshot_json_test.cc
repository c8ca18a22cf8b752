// Tests for snapshot_json.h: the kubectl List format, owner chains, GPU
// quantities and the errors that name the item and field.
#include "model/snapshot_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kubeon::model {
namespace {

const char* kList = R"({
 "apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
 "items": [
  {"apiVersion": "v1", "kind": "Node",
   "metadata": {"name": "gpu-a", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "8",
     "nvidia.com/gpu.memory": "40960", "nvidia.com/mig.capable": "true", "nvidia.com/mig.strategy": "mixed",
     "node.kubernetes.io/instance-type": "p4d.24xlarge"},
     "annotations": {"kubeon.io/hourly-price-usd": "32.77"}},
   "spec": {"unschedulable": true, "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]},
   "status": {"capacity": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "8"},
              "allocatable": {"nvidia.com/gpu": "8"},
              "conditions": [{"type": "Ready", "status": "False"}]}},
  {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "prod", "uid": "d1"}, "spec": {"replicas": 2}},
  {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-5d9f8", "namespace": "prod",
     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true}]}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-5d9f8-abcde", "namespace": "prod", "labels": {"app": "web"},
     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d9f8", "uid": "r1", "controller": true}]},
   "spec": {"nodeName": "gpu-a", "containers": [
      {"name": "main", "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "500m"}}},
      {"name": "side", "resources": {"requests": {"memory": "1Gi"}}}],
      "initContainers": [{"name": "warm", "resources": {"limits": {"nvidia.com/gpu": 2}}}]},
   "status": {"phase": "Running"}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lonely", "namespace": "dev"},
   "spec": {"nodeName": "gpu-a", "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/mig-1g.5gb": "1"}}}]},
   "status": {"phase": "Pending"}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job-x-1", "namespace": "dev",
     "ownerReferences": [{"kind": "Job", "name": "job-x", "controller": true}]},
   "spec": {"containers": []}, "status": {"phase": "Succeeded"}},
  {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web-pdb", "namespace": "prod"},
   "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}},
   "status": {"disruptionsAllowed": 1, "expectedPods": 2}},
  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ignored"}}
 ]})";

TEST(SnapshotJson, ParsesKubectlList) {
  Result<Cluster> r = ParseClusterJson(kList, "cluster.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Cluster& c = *r;
  ASSERT_EQ(c.nodes.size(), 1u);
  const Node& n = c.nodes[0];
  EXPECT_EQ(n.gpu_product, "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(n.gpu_count, 8);
  EXPECT_EQ(n.gpu_memory_mib, 40960);
  EXPECT_TRUE(n.mig_capable);
  EXPECT_EQ(n.mig_strategy, "mixed");
  EXPECT_EQ(n.instance_type, "p4d.24xlarge");
  EXPECT_TRUE(n.unschedulable);
  EXPECT_FALSE(n.ready);
  ASSERT_TRUE(n.hourly_price_usd.has_value());
  EXPECT_DOUBLE_EQ(*n.hourly_price_usd, 32.77);
  EXPECT_EQ(n.capacity.at("nvidia.com/gpu"), 8);
  EXPECT_EQ(n.capacity.count("cpu"), 0u);  // only GPU resources are kept
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");

  ASSERT_EQ(c.pods.size(), 3u);
  const Pod& web = c.pods[0];
  EXPECT_EQ(web.workload.kind, "Deployment");
  EXPECT_EQ(web.workload.name, "web");
  EXPECT_EQ(web.workload.Display(), "prod/web");
  EXPECT_EQ(web.gpus, 2);  // the init container's 2 exceed the app containers' 1
  EXPECT_TRUE(web.Active());
  const Pod& lonely = c.pods[1];
  EXPECT_EQ(lonely.workload.kind, "Pod");
  EXPECT_EQ(lonely.gpus, 0);
  EXPECT_EQ(lonely.gpu_slices.at("nvidia.com/mig-1g.5gb"), 1);
  const Pod& job = c.pods[2];
  EXPECT_EQ(job.workload.kind, "Job");  // Job not in the snapshot: it is the workload
  EXPECT_FALSE(job.Active());

  ASSERT_EQ(c.pdbs.size(), 1u);
  EXPECT_EQ(c.pdbs[0].min_available, "1");
  EXPECT_EQ(c.pdbs[0].disruptions_allowed, 1);
  EXPECT_TRUE(c.pdbs[0].selector.Matches({{"app", "web"}}));
  EXPECT_FALSE(c.pdbs[0].selector.Matches({{"app", "web"}, {"tier", "x"}}));
  EXPECT_FALSE(c.pdbs[0].selector.Matches({{"app", "db"}}));
}

// What the planner needs to judge a staying pod (safe-to-evict, local
// storage), to keep moved pods on their GPU model (required node affinity),
// and to fit the GPU Operator's install (ClusterPolicy, its ConfigMaps).
TEST(SnapshotJson, EvictionFactsAffinityClusterPolicyAndConfigMaps) {
  const char* list = R"({"kind": "List", "items": [
    {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns", "annotations": {
        "cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
        "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "cache, other"}},
     "spec": {"volumes": [{"name": "cache", "emptyDir": {}}, {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}},
                          {"name": "shm", "emptyDir": {"medium": "Memory"}}, {"name": "host", "hostPath": {"path": "/x"}},
                          {"name": "cfg", "configMap": {"name": "c"}}],
              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                 {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                 {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}]}}},
              "containers": []}},
    {"kind": "Pod", "metadata": {"name": "q", "namespace": "ns", "annotations": {
        "cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}}, "spec": {"containers": []}},
    {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
     "spec": {"mig": {"strategy": "mixed"},
              "migManager": {"config": {"name": "custom-mig", "default": "all-disabled"},
                             "env": [{"name": "WITH_REBOOT", "value": "true"}]},
              "devicePlugin": {"config": {"name": "ts", "default": "any"}}},
     "status": {"namespace": "nvidia-gpu-operator", "state": "ready"}},
    {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "second"}},
    {"kind": "ConfigMap", "metadata": {"name": "custom-mig", "namespace": "nvidia-gpu-operator"},
     "data": {"config.yaml": "version: v1\n"}}]})";
  Result<Cluster> r = ParseClusterJson(list, "c.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Pod& p = r->pods[0];
  EXPECT_EQ(p.safe_to_evict, std::optional<bool>(false));
  EXPECT_EQ(p.local_volumes, (std::vector<std::string>{"scratch", "host"}));
  ASSERT_EQ(p.required_node_terms.size(), 2u);
  EXPECT_EQ(p.required_node_terms[0].match_expressions[0].key, "zone");
  EXPECT_EQ(p.required_node_terms[0].match_expressions[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.required_node_terms[1].match_fields[0].op, "NotIn");
  EXPECT_EQ(r->pods[1].safe_to_evict, std::optional<bool>(true));
  EXPECT_TRUE(r->pods[1].local_volumes.empty());
  ASSERT_TRUE(r->gpu_operator.has_value());
  const GpuOperatorPolicy& cp = *r->gpu_operator;
  EXPECT_EQ(cp.name, "cluster-policy");
  EXPECT_EQ(cp.namespace_, "nvidia-gpu-operator");
  EXPECT_EQ(cp.mig_strategy, "mixed");
  EXPECT_EQ(cp.mig_config_name, "custom-mig");
  EXPECT_EQ(cp.mig_config_default, "all-disabled");
  EXPECT_EQ(cp.device_plugin_config_name, "ts");
  EXPECT_EQ(cp.device_plugin_config_default, "any");
  EXPECT_TRUE(cp.with_reboot);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("second ClusterPolicy"), std::string::npos);
  const ConfigMap* cm = r->FindConfigMap("nvidia-gpu-operator", "custom-mig");
  ASSERT_NE(cm, nullptr);
  EXPECT_EQ(cm->data.at("config.yaml"), "version: v1\n");
  EXPECT_EQ(r->FindConfigMap("gpu-operator", "custom-mig"), nullptr);
}

TEST(SnapshotJson, ListCallBodyWithoutItemKinds) {
  Result<Cluster> r = ParseClusterJson(
      R"({"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p","namespace":"a"},"spec":{},"status":{"phase":"Running"}}]})",
      "pods.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->pods.size(), 1u);
}

TEST(SnapshotJson, ErrorsNameFileItemAndField) {
  Result<Cluster> bad_json = ParseClusterJson("{\"items\": [", "c.json");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_NE(bad_json.status().message().find("c.json: not valid JSON"), std::string::npos);

  Result<Cluster> no_name = ParseClusterJson(R"({"items":[{"kind":"Node","metadata":{}}]})", "c.json");
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.status().message(), "c.json: items[0] (Node): metadata.name missing");

  Result<Cluster> fraction = ParseClusterJson(
      R"({"items":[{"kind":"Pod","metadata":{"name":"p","namespace":"a"},
          "spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"500m"}}}]}}]})",
      "c.json");
  ASSERT_FALSE(fraction.ok());
  EXPECT_EQ(fraction.status().message(),
            "c.json: items[0] (Pod p): container \"c\": nvidia.com/gpu: \"500m\" is not a whole number");

  EXPECT_FALSE(ParseClusterJson("[1,2]", "c.json").ok());
  EXPECT_FALSE(LoadClusterFile("/nonexistent/cluster.json").ok());
}

// Wrong JSON types, deep nesting, huge numbers and trailing text are errors
// that name the item and the field (never an abort).
TEST(SnapshotJson, WrongTypesAndMalformedInputAreErrors) {
  auto error = [](const std::string& text) {
    Result<Cluster> r = ParseClusterJson(text, "c.json");
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error(R"({"items":[{"kind":"Node","metadata":{"name":"n"},"spec":{"unschedulable":"true"}}]})"),
            "c.json: items[0] (Node n): spec.unschedulable: expected a boolean, got a string");
  EXPECT_EQ(error(R"({"items":[{"kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":"3"}}]})"),
            "c.json: items[0] (Deployment d): spec.replicas: expected an integer, got a string");
  EXPECT_EQ(error(R"({"items":[{"kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1e100000}}]})"),
            "c.json: items[0] (Deployment d): spec.replicas: 1e100000 is not an integer from 0 to 2147483647");
  EXPECT_EQ(error(R"({"items":[{"kind":"Pod","metadata":{"name":"p","ownerReferences":[{"kind":"Job","controller":"true"}]}}]})"),
            "c.json: items[0] (Pod p): metadata.ownerReferences[0].controller: expected a boolean, got a string");
  // A controller reference without kind or name would leave the pod's workload unnamed (fuzz finding F2).
  EXPECT_EQ(error(R"({"items":[{"kind":"Pod","metadata":{"name":"p","ownerReferences":[{"name":"j","controller":true}]}}]})"),
            "c.json: items[0] (Pod p): metadata.ownerReferences[0].kind missing (the controller's kind)");
  EXPECT_EQ(error(R"({"items":[{"kind":"ReplicaSet","metadata":{"name":"r","ownerReferences":[{"kind":"Deployment","name":7,"controller":true}]}}]})"),
            "c.json: items[0] (ReplicaSet r): metadata.ownerReferences[0].name missing (the controller's name)");
  EXPECT_EQ(error(R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b"},"status":{"disruptionsAllowed":"1"}}]})"),
            "c.json: items[0] (PodDisruptionBudget b): status.disruptionsAllowed: expected an integer, got a string");
  EXPECT_EQ(error(R"({"items":[{"kind":"Pod","metadata":{"name":"p"},"spec":"x"}]})"),
            "c.json: items[0] (Pod p): spec: expected an object, got a string");
  EXPECT_EQ(error(R"({"items":[{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":[]}}]}}]})"),
            "c.json: items[0] (Pod p): spec.containers[0].resources.limits: expected an object, got an array");
  EXPECT_EQ(error(R"({"items":[7]})"), "c.json: items[0] (?): not an object");
  EXPECT_EQ(error(R"({"items":{}})"), "c.json: \"items\" is not an array");
  EXPECT_NE(error(R"({"items":[]} x)").find("c.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error("{\"items\": [{\"kind\": \"Node\",\n \"metadata\": {\"name\": tru}}]}").find("c.json: not valid JSON"),
            std::string::npos);
}

// Deep nesting (200 KB of nested arrays) is an error naming line and column,
// wherever it is (read field or not), found before parsing; the cap itself is
// accepted, and brackets inside strings do not count.
TEST(SnapshotJson, NestingDeeperThanTheCapIsAnError) {
  auto nest = [](size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  const std::string head = "{\"items\":[{\"kind\":\"Pod\",\n\"metadata\":{\"name\":\"p\",\"labels\":";
  // Where the reader wants labels (4 levels open before the first '['), and in a skipped field (3).
  const std::pair<std::string, size_t> cases[] = {{head + nest(100000) + "}}]}", 4},
                                                  {R"({"items":[{"kind":"Pod",)" "\n" R"("x":)" + nest(100000) + "}]}", 3}};
  for (const auto& [text, open] : cases) {
    Result<Cluster> r = ParseClusterJson(text, "c.json");
    ASSERT_FALSE(r.ok());
    // The bracket that opens level 257; column 1 is the character after the newline.
    const size_t offending = text.find('[', text.find('\n')) + (256 - open);
    EXPECT_EQ(r.status().message(), "c.json: arrays and objects nested deeper than 256 levels at line 2, column " +
                                        std::to_string(offending - text.find('\n')) +
                                        " (the cap; Kubernetes objects nest about 15)");
  }
  // List (1) + items (2) + item (3) + 253 levels = the cap: accepted.
  Result<Cluster> at_cap =
      ParseClusterJson(R"({"items":[{"kind":"Pod","metadata":{"name":"p"},"x":)" + nest(253) + "}]}", "c.json");
  ASSERT_TRUE(at_cap.ok()) << at_cap.status().message();
  EXPECT_EQ(at_cap->pods.size(), 1u);
  EXPECT_FALSE(ParseClusterJson(R"({"items":[{"kind":"Pod","metadata":{"name":"p"},"x":)" + nest(254) + "}]}", "c.json").ok());
  // Brackets in strings (with escaped quotes) are text, not nesting.
  Result<Cluster> in_string = ParseClusterJson(
      R"({"items":[{"kind":"Pod","metadata":{"name":"p","labels":{"a":"\"[[[)" + std::string(1000, '{') + R"(\\"}}}]})",
      "c.json");
  ASSERT_TRUE(in_string.ok()) << in_string.status().message();
  EXPECT_EQ(in_string->pods[0].labels.at("a").size(), 1005u);
}

TEST(SnapshotJson, InvalidPriceAnnotationIsAWarningAndIgnored) {
  for (const char* bad : {"cheap", "nan", "inf", "1e308", "-1", "10001"}) {
    Result<Cluster> r = ParseClusterJson(
        std::string(R"({"items":[{"kind":"Node","metadata":{"name":"n","annotations":{"kubeon.io/hourly-price-usd":")") +
            bad + R"("}}},{"kind":"Node","metadata":{"name":"m","annotations":{"kubeon.io/hourly-price-usd":"2.5"}}}]})",
        "c.json");
    ASSERT_TRUE(r.ok()) << bad << ": " << r.status().message();
    ASSERT_EQ(r->nodes.size(), 2u);
    EXPECT_FALSE(r->nodes[0].hourly_price_usd.has_value()) << bad;
    EXPECT_EQ(r->nodes[1].hourly_price_usd, std::optional<double>(2.5));
    ASSERT_EQ(r->warnings.size(), 1u) << bad;
    EXPECT_EQ(r->warnings[0], std::string("c.json: items[0] (Node n): annotation kubeon.io/hourly-price-usd: \"") + bad +
                                  "\" is not a non-negative number of USD per hour, at most 10000; ignored (the node is priced "
                                  "from the prices file, if at all)");
  }
}

// Maps and arrays are read through buffers kept between items (released
// when one grew large): an item with thousands of labels, duplicate keys and
// tolerations, then small items, each read in full and alone.
TEST(SnapshotJson, LargeMapsAndArraysThenSmallOnes) {
  std::string labels, tolerations;
  for (int i = 5000; i > 0; --i) {  // keys out of order
    labels += (labels.empty() ? "" : ",") + ("\"k" + std::to_string(i) + "\":\"v" + std::to_string(i) + "\"");
    tolerations += (tolerations.empty() ? "" : ",") + ("{\"key\":\"t" + std::to_string(i) + "\",\"operator\":\"Exists\"}");
  }
  labels += R"(,"k7":"last")";  // a duplicate key: the last wins
  const std::string text = R"({"items":[{"kind":"Pod","metadata":{"name":"big","namespace":"ml","labels":{)" + labels +
                           R"(}},"spec":{"tolerations":[)" + tolerations +
                           R"(]}},{"kind":"Pod","metadata":{"name":"small","namespace":"ml","labels":{"b":"2","a":"1"}},)"
                           R"("spec":{"tolerations":[{"key":"gpu","operator":"Exists"}]}}]})";
  Result<Cluster> r = ParseClusterJson(text, "c.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pods.size(), 2u);
  const Pod& big = r->pods[0];
  EXPECT_EQ(big.labels.size(), 5000u);
  EXPECT_EQ(big.labels.Get("k7"), "last");
  EXPECT_EQ(big.labels.Get("k4999"), "v4999");
  EXPECT_EQ(big.labels.begin()->first, "k1");
  ASSERT_EQ(big.tolerations.size(), 5000u);
  EXPECT_EQ(big.tolerations.front().key, "t5000");
  EXPECT_EQ(big.tolerations.back().key, "t1");
  const Pod& small = r->pods[1];
  EXPECT_EQ(small.labels, (Labels{{"a", "1"}, {"b", "2"}}));
  ASSERT_EQ(small.tolerations.size(), 1u);
  EXPECT_EQ(small.tolerations[0].key, "gpu");
  EXPECT_EQ(small.tolerations.capacity(), 1u);
}

// Hostile GPU counts: caps per node and per pod, no overflow in the sums
// (UBSan), no wrap-around of 4294967304 to 8.
TEST(SnapshotJson, GpuCountsAreCapped) {
  auto error = [](const std::string& text) {
    Result<Cluster> r = ParseClusterJson(text, "c.json");
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  auto node_label = [](const std::string& label, const std::string& value) {
    return R"({"items":[{"kind":"Node","metadata":{"name":"n","labels":{")" + label + R"(":")" + value + R"("}}}]})";
  };
  EXPECT_EQ(error(node_label("nvidia.com/gpu.count", "2000000000")),
            "c.json: items[0] (Node n): label nvidia.com/gpu.count: \"2000000000\" is more than 64 GPUs per node (the cap)");
  EXPECT_EQ(error(node_label("nvidia.com/gpu.count", "4294967304")),
            "c.json: items[0] (Node n): label nvidia.com/gpu.count: \"4294967304\" is more than 64 GPUs per node (the cap)");
  EXPECT_EQ(error(node_label("nvidia.com/gpu.count", "99999999999999999999999")),
            "c.json: items[0] (Node n): label nvidia.com/gpu.count: \"99999999999999999999999\" is more than 64 GPUs per "
            "node (the cap)");
  EXPECT_EQ(error(node_label("nvidia.com/gpu.count", "-1")),
            "c.json: items[0] (Node n): label nvidia.com/gpu.count: \"-1\" is not a whole number");
  EXPECT_EQ(error(node_label("nvidia.com/gpu.memory", "9223372036854775807")),
            "c.json: items[0] (Node n): label nvidia.com/gpu.memory: \"9223372036854775807\" is more than 1048576 MiB "
            "per GPU (the cap)");
  EXPECT_EQ(error(R"({"items":[{"kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":"65"}}}]})"),
            "c.json: items[0] (Node n): status.capacity.nvidia.com/gpu: 65 is more than 64 GPUs per node (the cap; the "
            "node has no nvidia.com/gpu.count label)");
  EXPECT_EQ(error(R"({"items":[{"kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"nvidia.com/gpu":4097}}}]})"),
            "c.json: items[0] (Node n): status: nvidia.com/gpu: \"4097\" is more than 4096 of a GPU resource (the cap)");
  auto pod = [](const std::string& containers) {
    return R"({"items":[{"kind":"Pod","metadata":{"name":"p","namespace":"ml"},"spec":{"containers":[)" + containers +
           "]}}]}";
  };
  EXPECT_EQ(error(pod(R"({"name":"c","resources":{"limits":{"nvidia.com/gpu":"9223372036854775807"}}})")),
            "c.json: items[0] (Pod p): container \"c\": nvidia.com/gpu: \"9223372036854775807\" is more than 4096 "
            "of a GPU resource (the cap)");
  EXPECT_EQ(error(pod(R"({"name":"c","resources":{"limits":{"nvidia.com/gpu":4294967304}}})")),
            "c.json: items[0] (Pod p): container \"c\": nvidia.com/gpu: \"4294967304\" is more than 4096 of a GPU "
            "resource (the cap)");
  EXPECT_EQ(error(pod(R"({"name":"c","resources":{"limits":{"nvidia.com/gpu":"-2"}}})")),
            "c.json: items[0] (Pod p): container \"c\": nvidia.com/gpu: \"-2\" is not a whole number");
  EXPECT_EQ(error(pod(R"({"name":"c","resources":{"limits":{"nvidia.com/gpu":"65"}}})")),
            "c.json: items[0] (Pod p): nvidia.com/gpu: 65 GPUs is more than 64 GPUs per pod (the cap)");
  // The sum over containers is checked as it grows: 4096 + 4096 + ... never overflows.
  std::string many;
  for (int i = 0; i < 3; ++i) {
    many += std::string(i ? "," : "") + R"({"name":"c)" + std::to_string(i) +
            R"(","resources":{"requests":{"nvidia.com/mig-1g.10gb":"4096"}}})";
  }
  EXPECT_EQ(error(pod(many)),
            "c.json: items[0] (Pod p): nvidia.com/mig-1g.10gb: the containers request more than 4096 in all (the cap on "
            "a GPU resource per pod)");
  // At the caps: accepted.
  Result<Cluster> ok = ParseClusterJson(
      R"({"items":[{"kind":"Node","metadata":{"name":"n","labels":{"nvidia.com/gpu.count":"64"}}},
          {"kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n","containers":[
            {"name":"a","resources":{"limits":{"nvidia.com/gpu":32}}},{"name":"b","resources":{"limits":{"nvidia.com/gpu":"32"}}}]}}]})",
      "c.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->nodes[0].gpu_count, 64);
  EXPECT_EQ(ok->pods[0].gpus, 64);
}

// Integers the migration schedule computes with: int-or-percent fields must be
// what the API server accepts, the grace period at most 2^31-1 seconds.
TEST(SnapshotJson, IntOrPercentAndGracePeriodAreValidated) {
  auto error = [](const std::string& text) {
    Result<Cluster> r = ParseClusterJson(text, "c.json");
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error(R"({"items":[{"kind":"Deployment","metadata":{"name":"d","namespace":"a"},
                  "spec":{"strategy":{"rollingUpdate":{"maxSurge":"nan%"}}}}]})"),
            "c.json: items[0] (Deployment d): spec.strategy.rollingUpdate.maxSurge: \"nan%\" is not an integer from 0 "
            "to 2147483647 or a percentage like \"25%\"");
  EXPECT_EQ(error(R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b"},"spec":{"minAvailable":1e400}}]})"),
            "c.json: items[0] (PodDisruptionBudget b): spec.minAvailable: 1e400 is not an integer from 0 to 2147483647");
  EXPECT_EQ(error(R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b"},"spec":{"maxUnavailable":-1}}]})"),
            "c.json: items[0] (PodDisruptionBudget b): spec.maxUnavailable: -1 is not an integer from 0 to 2147483647");
  EXPECT_EQ(error(R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b"},"spec":{"maxUnavailable":"1e300%"}}]})"),
            "c.json: items[0] (PodDisruptionBudget b): spec.maxUnavailable: \"1e300%\" is not an integer from 0 to "
            "2147483647 or a percentage like \"25%\"");
  EXPECT_EQ(error(R"({"items":[{"kind":"Pod","metadata":{"name":"p"},"spec":{"terminationGracePeriodSeconds":9223372036854775807}}]})"),
            "c.json: items[0] (Pod p): spec.terminationGracePeriodSeconds: 9223372036854775807 is not an integer from 0 "
            "to 2147483647");
  Result<Cluster> ok = ParseClusterJson(
      R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b"},"spec":{"minAvailable":"50%","maxUnavailable":2}}]})",
      "c.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->pdbs[0].min_available, "50%");
  EXPECT_EQ(ok->pdbs[0].max_unavailable, "2");
}

// The same object twice would count its GPUs twice: an error naming both items.
TEST(SnapshotJson, DuplicateObjectsAreErrors) {
  auto error = [](const std::string& text) {
    Result<Cluster> r = ParseClusterJson(text, "c.json");
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error(R"({"items":[{"kind":"Node","metadata":{"name":"n"}},{"kind":"Pod","metadata":{"name":"n"}},
                  {"kind":"Node","metadata":{"name":"n"}}]})"),
            "c.json: items[2] (Node n): the same Node as items[0]; a snapshot lists each object once (were two files "
            "joined?)");
  // "default" is the namespace an item without one lives in.
  EXPECT_EQ(error(R"({"items":[{"kind":"Pod","metadata":{"name":"a","namespace":"default"}},
                  {"kind":"Pod","metadata":{"name":"a","namespace":"ml"}},{"kind":"Pod","metadata":{"name":"a"}}]})"),
            "c.json: items[2] (Pod a): the same Pod as items[0]; a snapshot lists each object once (were two files "
            "joined?)");
  EXPECT_NE(error(R"({"items":[{"kind":"Deployment","metadata":{"name":"d","namespace":"x"}},
                  {"kind":"Deployment","metadata":{"name":"d","namespace":"x"}}]})")
                .find("items[1] (Deployment d): the same Deployment as items[0]"),
            std::string::npos);
  EXPECT_NE(error(R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"x"}},
                  {"kind":"PodDisruptionBudget","metadata":{"name":"b","namespace":"x"}}]})")
                .find("items[1] (PodDisruptionBudget b): the same PodDisruptionBudget as items[0]"),
            std::string::npos);
  // Same name, other kind or namespace: distinct objects.
  Result<Cluster> ok = ParseClusterJson(
      R"({"items":[{"kind":"Deployment","metadata":{"name":"d","namespace":"x"}},
          {"kind":"StatefulSet","metadata":{"name":"d","namespace":"x"}},{"kind":"Deployment","metadata":{"name":"d","namespace":"y"}}]})",
      "c.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->controllers.size(), 3u);
}

TEST(SnapshotJson, GpuPodsOnMissingNodesAreAWarning) {
  std::string items = R"({"kind":"Node","metadata":{"name":"here"}})";
  const char* pods[][3] = {{"a", "gone-1", "Running"}, {"b", "here", "Running"}, {"c", "gone-2", "Pending"},
                           {"d", "gone-1", "Succeeded"}, {"e", "gone-3", "Running"}, {"f", "gone-3", "Running"}};
  for (const auto& p : pods) {
    items += std::string(R"(,{"kind":"Pod","metadata":{"name":")") + p[0] + R"(","namespace":"ml"},"spec":{"nodeName":")" +
             p[1] + R"(","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]},"status":{"phase":")" +
             p[2] + R"("}})";
  }
  // A pod without GPUs on a missing node does not matter to the plan.
  items += R"(,{"kind":"Pod","metadata":{"name":"cpu"},"spec":{"nodeName":"gone-9","containers":[{"name":"c"}]}})";
  Result<Cluster> r = ParseClusterJson(R"({"items":[)" + items + "]}", "c.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0],
            "4 GPU pods are bound to nodes missing from the snapshot and left out of the plan (ml/a on gone-1, "
            "ml/c on gone-2, ml/e on gone-3, ...)");
  Result<Cluster> one = ParseClusterJson(
      R"({"items":[{"kind":"Pod","metadata":{"name":"a"},"spec":{"nodeName":"x","containers":[
          {"name":"c","resources":{"limits":{"nvidia.com/mig-1g.10gb":1}}}]},"status":{"phase":"Running"}}]})",
      "c.json");
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_EQ(one->warnings.size(), 1u);
  EXPECT_EQ(one->warnings[0],
            "1 GPU pod is bound to nodes missing from the snapshot and left out of the plan (default/a on x)");
}

// Errors and warnings are one line even when the names and values they
// quote hold control characters (a newline, an escape sequence).
TEST(SnapshotJson, MessagesAreOneLine) {
  Result<Cluster> bad = ParseClusterJson(
      R"({"items":[{"kind":"Node","metadata":{"name":"n\nx","labels":{"nvidia.com/gpu.count":"1\r\u001b[31m"}}}]})", "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "c.json: items[0] (Node n\\nx): label nvidia.com/gpu.count: \"1\\r\\x1b[31m\" is not a whole number");
  Result<Cluster> warned = ParseClusterJson(
      R"({"items":[{"kind":"Node","metadata":{"name":"n\tx","annotations":{"kubeon.io/hourly-price-usd":"1\n2"}}},
          {"kind":"Pod","metadata":{"name":"p\n"},"spec":{"nodeName":"gone\n","containers":[
            {"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]},"status":{"phase":"Running"}}]})",
      "c.json");
  ASSERT_TRUE(warned.ok()) << warned.status().message();
  ASSERT_EQ(warned->warnings.size(), 2u);
  for (const auto& w : warned->warnings) EXPECT_EQ(w.find_first_of("\n\r\t"), std::string::npos) << w;
  EXPECT_NE(warned->warnings[0].find("(Node n\\tx): annotation kubeon.io/hourly-price-usd: \"1\\n2\""), std::string::npos);
  EXPECT_NE(warned->warnings[1].find("default/p\\n on gone\\n"), std::string::npos);
}

TEST(SnapshotJson, ItemKeysInAnyOrder) {
  // kind after spec, metadata last: the same result as kubectl's sorted keys.
  Result<Cluster> r = ParseClusterJson(
      R"({"items":[{"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"2"}},"name":"c"}],
          "initContainers":[{"name":"i","resources":{"limits":{"nvidia.com/gpu":3}}}]},
          "status":{"phase":"Running"},"kind":"Pod","metadata":{"namespace":"a","name":"p"}}],"kind":"List"})",
      "c.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pods.size(), 1u);
  const Pod& p = r->pods[0];
  EXPECT_EQ(p.name, "p");
  EXPECT_EQ(p.namespace_, "a");
  EXPECT_EQ(p.phase, "Running");
  EXPECT_EQ(p.gpus, 3);  // max(sum of app containers 2, max of init containers 3)
  ASSERT_EQ(p.containers.size(), 2u);
  EXPECT_TRUE(p.containers[0].init);  // init containers first, as before
  EXPECT_EQ(p.containers[1].name, "c");
}

TEST(SnapshotJson, WholeQuantities) {
  int64_t v = 0;
  EXPECT_TRUE(ParseWholeQuantity("8", &v));
  EXPECT_EQ(v, 8);
  EXPECT_FALSE(ParseWholeQuantity("0.5", &v));
  EXPECT_FALSE(ParseWholeQuantity("-1", &v));
  EXPECT_FALSE(ParseWholeQuantity("", &v));
  EXPECT_FALSE(ParseWholeQuantity("1k", &v));
}

// Each pod's workload is its controller chain's top, whatever the pods
// listed before it: pods of one controller one after another, then pods
// whose controller differs from the previous pod's only in namespace, kind
// or name (same-named ReplicaSets of two Deployments, a StatefulSet named
// like a ReplicaSet), a pod without a controller between two of one
// ReplicaSet, and a ReplicaSet without a Deployment.
TEST(SnapshotJson, WorkloadsOfPodsListedAfterSimilarOnes) {
  std::string items;
  auto add = [&](const std::string& item) { items += (items.empty() ? "" : ",") + item; };
  // An object of `kind` whose controller, when `owner` is not empty, is
  // the object `owner` of `owner_kind`; `rest` follows its metadata.
  auto object = [&](const std::string& ns, const std::string& kind, const std::string& name,
                    const std::string& owner_kind, const std::string& owner, const std::string& rest = "") {
    std::string refs = owner.empty() ? "" : R"(,"ownerReferences":[{"kind":")" + owner_kind + R"(","name":")" +
                                                owner + R"(","controller":true}])";
    add(R"({"kind":")" + kind + R"(","metadata":{"name":")" + name + R"(","namespace":")" + ns + "\"" + refs + "}" +
        rest + "}");
  };
  object("a", "Deployment", "web", "", "");
  object("a", "ReplicaSet", "web-1", "Deployment", "web");
  object("b", "Deployment", "api", "", "");
  object("b", "ReplicaSet", "web-1", "Deployment", "api");
  object("a", "StatefulSet", "web-1", "", "");
  object("a", "ReplicaSet", "orphan-1", "", "");
  object("a", "Job", "nightly-1", "CronJob", "nightly");
  object("a", "CronJob", "nightly", "", "");
  const std::vector<std::vector<std::string>> pods = {
      // namespace, pod, owner kind, owner, then the workload expected
      {"a", "p1", "ReplicaSet", "web-1", "Deployment", "web"},
      {"a", "p2", "ReplicaSet", "web-1", "Deployment", "web"},
      {"b", "p3", "ReplicaSet", "web-1", "Deployment", "api"},
      {"b", "p4", "ReplicaSet", "web-1", "Deployment", "api"},
      {"a", "p5", "ReplicaSet", "web-1", "Deployment", "web"},
      {"a", "p6", "StatefulSet", "web-1", "StatefulSet", "web-1"},
      {"a", "p7", "ReplicaSet", "web-1", "Deployment", "web"},
      {"a", "p8", "", "", "Pod", "p8"},
      {"a", "p9", "ReplicaSet", "web-1", "Deployment", "web"},
      {"a", "p10", "ReplicaSet", "web-2", "ReplicaSet", "web-2"},
      {"a", "p11", "ReplicaSet", "orphan-1", "ReplicaSet", "orphan-1"},
      {"a", "p12", "ReplicaSet", "orphan-1", "ReplicaSet", "orphan-1"},
      {"a", "p13", "Job", "nightly-1", "CronJob", "nightly"},
      {"a", "p14", "Job", "nightly-1", "CronJob", "nightly"},
  };
  for (const auto& p : pods) object(p[0], "Pod", p[1], p[2], p[3]);
  Result<Cluster> c = ParseClusterJson(R"({"kind":"List","items":[)" + items + "]}", "w.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->pods.size(), pods.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    const Pod& got = c->pods[i];
    EXPECT_EQ(got.name, pods[i][1]);
    EXPECT_EQ(got.workload.namespace_, pods[i][0]) << got.name;
    EXPECT_EQ(got.workload.kind, pods[i][4]) << got.name;
    EXPECT_EQ(got.workload.name, pods[i][5]) << got.name;
  }
  // The same pods ~1,000 times over (14,014 pods: ranges of 4,096 pods at
  // least), resolved on 1, 2, 3 and 7 threads: the same workloads, the same
  // warning about GPU pods on missing nodes (the pods' node "gone").
  const size_t rounds = 1001;
  const std::string on_gone_node =
      R"(,"spec":{"nodeName":"gone","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},)"
      R"("status":{"phase":"Running"})";
  for (size_t r = 0; r < rounds; ++r) {
    for (const auto& p : pods) object(p[0], "Pod", p[1] + "-" + std::to_string(r), p[2], p[3], on_gone_node);
  }
  Result<Cluster> many = ParseClusterJson(R"({"kind":"List","items":[)" + items + "]}", "w.json");
  ASSERT_TRUE(many.ok()) << many.status().message();
  ASSERT_EQ(many->pods.size(), pods.size() * (rounds + 1));
  ASSERT_EQ(many->warnings.size(), 1u);
  EXPECT_NE(many->warnings[0].find("14014 GPU pods are bound to nodes missing"), std::string::npos)
      << many->warnings[0];
  for (size_t i = pods.size(); i < many->pods.size(); ++i) {
    const Pod& got = many->pods[i];
    ASSERT_EQ(got.workload.kind, pods[i % pods.size()][4]) << got.name;
    ASSERT_EQ(got.workload.name, got.workload.kind == "Pod" ? got.name : pods[i % pods.size()][5]) << got.name;
  }
  for (int threads : {2, 3, 7}) {
    Cluster again = *many;
    for (Pod& p : again.pods) p.workload = {};
    again.warnings.clear();
    ResolveClusterWorkloads(&again, threads);
    EXPECT_TRUE(again == *many) << threads << " threads";
  }
}

TEST(LabelSelector, NullSelectorSelectsNothing) {
  Result<Cluster> r = ParseClusterJson(
      R"({"items":[{"kind":"PodDisruptionBudget","metadata":{"name":"x","namespace":"a"},"spec":{"maxUnavailable":"25%"}}]})",
      "c.json");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->pdbs[0].selector.Matches({{"app", "web"}}));
  EXPECT_EQ(r->pdbs[0].max_unavailable, "25%");
}

// What the migration schedule reads: pod placement and grace period, the
// controllers' rollout strategy, GitOps labels and managers, template placement.
TEST(SnapshotJson, ParsesPlacementStrategyAndManagers) {
  const char* list = R"({"items": [
  {"apiVersion": "apps/v1", "kind": "Deployment",
   "metadata": {"name": "web", "namespace": "prod", "labels": {"app.kubernetes.io/instance": "web"},
     "annotations": {"argocd.argoproj.io/tracking-id": "web:apps/Deployment:prod/web"},
     "managedFields": [{"manager": "argocd-controller"}, {"manager": "kube-controller-manager"}, {"manager": "argocd-controller"}]},
   "spec": {"replicas": 4, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50%", "maxUnavailable": 0}},
     "template": {"spec": {"nodeSelector": {"pool": "a100"},
       "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
       "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
         {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}}}},
  {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "plain", "namespace": "prod"}, "spec": {}},
  {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "prod"},
   "spec": {"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}}},
  {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "od", "namespace": "prod"},
   "spec": {"updateStrategy": {"type": "OnDelete"}}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "prod"},
   "spec": {"nodeName": "gpu-a", "terminationGracePeriodSeconds": 120, "nodeSelector": {"pool": "a100"},
     "tolerations": [{"key": "gpu", "value": "x", "effect": "NoSchedule"}, {"operator": "Exists"}],
     "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
   "status": {"phase": "Running"}}]})";
  Result<Cluster> r = ParseClusterJson(list, "x.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->controllers.size(), 4u);
  const Controller& web = r->controllers[0];
  EXPECT_EQ(web.strategy, "RollingUpdate");
  EXPECT_EQ(web.max_surge, "50%");
  EXPECT_EQ(web.max_unavailable, "0");
  EXPECT_EQ(web.labels.at("app.kubernetes.io/instance"), "web");
  EXPECT_EQ(web.annotations.at("argocd.argoproj.io/tracking-id"), "web:apps/Deployment:prod/web");
  EXPECT_EQ(web.managers, (std::vector<std::string>{"argocd-controller", "kube-controller-manager"}));
  EXPECT_EQ(web.pod_template.node_selector.at("pool"), "a100");
  ASSERT_EQ(web.pod_template.tolerations.size(), 1u);
  EXPECT_EQ(web.pod_template.tolerations[0].op, "Exists");
  ASSERT_EQ(web.pod_template.required_node_terms.size(), 1u);
  EXPECT_EQ(web.pod_template.required_node_terms[0].match_expressions[0].values[0], "a");
  const Controller& plain = r->controllers[1];
  EXPECT_EQ(plain.strategy, "RollingUpdate");  // the default
  EXPECT_EQ(plain.max_surge, "");
  EXPECT_EQ(plain.replicas, 1);
  EXPECT_EQ(r->controllers[2].strategy, "RollingUpdate");
  EXPECT_EQ(r->controllers[2].partition, 1);
  EXPECT_EQ(r->controllers[3].strategy, "OnDelete");
  ASSERT_EQ(r->pods.size(), 1u);
  const Pod& p = r->pods[0];
  EXPECT_EQ(p.termination_grace_period_seconds, 120);
  EXPECT_EQ(p.node_selector.at("pool"), "a100");
  ASSERT_EQ(p.tolerations.size(), 2u);
  EXPECT_EQ(p.tolerations[0].op, "Equal");  // the default operator
  EXPECT_EQ(p.tolerations[1].op, "Exists");
}

}  // namespace
}  // namespace kubeon::model
