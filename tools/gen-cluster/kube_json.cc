// See kube_json.h.  Each object has one function building its labels (shared
// by the JSON and the model) and one building its JSON; BuildModelCluster
// mirrors model/snapshot_json.cc's reading of those JSON objects.
#include "gen-cluster/kube_json.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace kubeon::gencluster {
namespace {

using json = nlohmann::json;

constexpr const char* kPoolLabel = "kubeon.io/pool";
constexpr const char* kPriceAnnotation = "kubeon.io/hourly-price-usd";
constexpr const char* kRegion = "us-east-1";

// ---- the items, in kubectl's order ------------------------------------------

enum class ItemType { kNode, kPod, kExporterPod, kPdb, kDeployment, kStatefulSet, kReplicaSet, kOldReplicaSet };

struct Item {
  int group;  // kind order of the kubectl command
  std::string namespace_;
  std::string name;
  ItemType type;
  int index;  // into nodes, pods or workloads
};

std::vector<Item> Items(const SyntheticCluster& c) {
  std::vector<Item> items;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    items.push_back({0, "", c.nodes[i].name, ItemType::kNode, static_cast<int>(i)});
    if (!c.nodes[i].exporter_pod.empty()) {
      items.push_back({1, ExporterFor(c.nodes[i].dcgm).namespace_, c.nodes[i].exporter_pod, ItemType::kExporterPod,
                       static_cast<int>(i)});
    }
  }
  for (size_t i = 0; i < c.pods.size(); ++i) {
    const PodSpec& p = c.pods[i];
    if (p.in_snapshot) items.push_back({1, c.workloads[p.workload].namespace_, p.name, ItemType::kPod, static_cast<int>(i)});
  }
  for (size_t i = 0; i < c.workloads.size(); ++i) {
    const WorkloadSpec& w = c.workloads[i];
    const int wi = static_cast<int>(i);
    if (w.pdb) items.push_back({2, w.namespace_, w.pdb->name, ItemType::kPdb, wi});
    if (w.kind == WorkloadKind::kDeployment) {
      items.push_back({3, w.namespace_, w.name, ItemType::kDeployment, wi});
      items.push_back({5, w.namespace_, w.name + "-" + w.rs_hash, ItemType::kReplicaSet, wi});
      if (!w.old_rs_hash.empty()) {
        items.push_back({5, w.namespace_, w.name + "-" + w.old_rs_hash, ItemType::kOldReplicaSet, wi});
      }
    } else if (w.kind == WorkloadKind::kStatefulSet) {
      items.push_back({4, w.namespace_, w.name, ItemType::kStatefulSet, wi});
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.group, a.namespace_, a.name) < std::tie(b.group, b.namespace_, b.name);
  });
  return items;
}

// Snapshot pods per workload (all Running and Ready).
std::vector<int> RunningPods(const SyntheticCluster& c) {
  std::vector<int> n(c.workloads.size(), 0);
  for (const PodSpec& p : c.pods) {
    if (p.in_snapshot) ++n[p.workload];
  }
  return n;
}

// ---- shared pieces ------------------------------------------------------------

std::string ResourceVersion(const SyntheticCluster& c, const std::string& key) {
  return std::to_string(10000000 + DeriveSeed(c.seed, key, 7) % 890000000);
}

std::string Hex(const SyntheticCluster& c, const std::string& key, int n) {
  Rng rng(DeriveSeed(c.seed, key, 11));
  return rng.Chars(kHexAlphabet, n);
}

std::string FormatPrice(double usd) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), usd);
  return std::string(buf, end);
}

std::string InternalDns(const NodeSpec& n) {
  std::string ip = n.ip;
  std::replace(ip.begin(), ip.end(), '.', '-');
  return "ip-" + ip + ".ec2.internal";
}

bool IsGpuNode(const SyntheticCluster& c, const NodeSpec& n) { return c.GpuOf(n) != nullptr; }

model::Labels NodeLabels(const SyntheticCluster& c, const NodeSpec& n) {
  const InstanceType& it = c.InstanceOf(n);
  model::Labels l = {
      {"beta.kubernetes.io/arch", "amd64"},
      {"beta.kubernetes.io/instance-type", it.name},
      {"beta.kubernetes.io/os", "linux"},
      {"eks.amazonaws.com/capacityType", "ON_DEMAND"},
      {"eks.amazonaws.com/nodegroup", n.pool},
      {"eks.amazonaws.com/nodegroup-image", "ami-0" + Hex(c, "ami/" + n.pool, 16)},
      {"failure-domain.beta.kubernetes.io/region", kRegion},
      {"failure-domain.beta.kubernetes.io/zone", n.zone},
      {"k8s.io/cloud-provider-aws", Hex(c, "cloud-provider", 32)},
      {kPoolLabel, n.pool},
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/hostname", n.name},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", it.name},
      {"topology.kubernetes.io/region", kRegion},
      {"topology.kubernetes.io/zone", n.zone},
  };
  const GpuType* gpu = c.GpuOf(n);
  if (gpu == nullptr) return l;
  const std::string& d = n.driver_version;  // "550.90.07"
  const size_t d1 = d.find('.'), d2 = d.find('.', d1 + 1);
  l["nvidia.com/cuda.driver.major"] = d.substr(0, d1);
  l["nvidia.com/cuda.driver.minor"] = d.substr(d1 + 1, d2 - d1 - 1);
  l["nvidia.com/cuda.driver.rev"] = d.substr(d2 + 1);
  l["nvidia.com/cuda.runtime.major"] = "12";
  l["nvidia.com/cuda.runtime.minor"] = d.rfind("535", 0) == 0 ? "2" : "4";
  l["nvidia.com/gfd.timestamp"] = std::to_string(n.created + 600);
  l["nvidia.com/gpu-driver-upgrade-state"] = "upgrade-done";
  l["nvidia.com/gpu.compute.major"] = std::to_string(gpu->compute_major);
  l["nvidia.com/gpu.compute.minor"] = std::to_string(gpu->compute_minor);
  l["nvidia.com/gpu.count"] = std::to_string(it.gpus);
  l["nvidia.com/gpu.deploy.container-toolkit"] = "true";
  l["nvidia.com/gpu.deploy.dcgm"] = "true";
  l["nvidia.com/gpu.deploy.dcgm-exporter"] = n.dcgm == DcgmStyle::kOldHostname ? "true" : "false";
  l["nvidia.com/gpu.deploy.device-plugin"] = "true";
  l["nvidia.com/gpu.deploy.driver"] = "pre-installed";
  l["nvidia.com/gpu.deploy.gpu-feature-discovery"] = "true";
  l["nvidia.com/gpu.deploy.node-status-exporter"] = "true";
  l["nvidia.com/gpu.deploy.operator-validator"] = "true";
  l["nvidia.com/gpu.family"] = gpu->family;
  l["nvidia.com/gpu.machine"] = it.name;
  l["nvidia.com/gpu.memory"] = std::to_string(gpu->memory_mib);
  l["nvidia.com/gpu.present"] = "true";
  l["nvidia.com/gpu.product"] = gpu->product;
  l["nvidia.com/gpu.replicas"] = "1";
  l["nvidia.com/gpu.sharing-strategy"] = "none";
  l["nvidia.com/mig.capable"] = gpu->mig_capable ? "true" : "false";
  if (gpu->mig_capable) {
    l["nvidia.com/gpu.deploy.mig-manager"] = "true";
    l["nvidia.com/mig.config"] = "all-disabled";
    l["nvidia.com/mig.config.state"] = "success";
    l["nvidia.com/mig.strategy"] = "mixed";
  }
  return l;
}

model::Labels NodeAnnotations(const NodeSpec& n) {
  model::Labels a = {
      {"alpha.kubernetes.io/provided-node-ip", n.ip},
      {"node.alpha.kubernetes.io/ttl", "0"},
      {"volumes.kubernetes.io/controller-managed-attach-detach", "true"},
  };
  if (n.price_annotation) a[kPriceAnnotation] = FormatPrice(*n.price_annotation);
  return a;
}

std::vector<model::Taint> NodeTaints(const SyntheticCluster& c, const NodeSpec& n) {
  std::vector<model::Taint> t;
  if (IsGpuNode(c, n)) t.push_back({"nvidia.com/gpu", "true", "NoSchedule"});
  if (n.cordoned) t.push_back({"node.kubernetes.io/unschedulable", "", "NoSchedule"});
  return t;
}

// Every resource as kubectl prints it (capacity, or allocatable).
std::map<std::string, std::string> NodeResources(const SyntheticCluster& c, const NodeSpec& n, bool allocatable) {
  const InstanceType& it = c.InstanceOf(n);
  const int64_t mem_ki = it.memory_mib * 1024 - 3 * 1024 * 1024 / 10;  // firmware/kernel
  std::map<std::string, std::string> r;
  if (allocatable) {
    const int64_t cpu_m = it.cpus * 1000 - 70 - 10 * it.cpus;
    const int64_t reserved_ki = (255 + 11 * static_cast<int64_t>(it.max_pods)) * 1024 + 100 * 1024;
    r["cpu"] = std::to_string(cpu_m) + "m";
    r["ephemeral-storage"] = "95491281146";
    r["memory"] = std::to_string(mem_ki - reserved_ki) + "Ki";
  } else {
    r["cpu"] = std::to_string(it.cpus);
    r["ephemeral-storage"] = "104845292Ki";
    r["memory"] = std::to_string(mem_ki) + "Ki";
  }
  r["hugepages-1Gi"] = "0";
  r["hugepages-2Mi"] = "0";
  r["pods"] = std::to_string(it.max_pods);
  if (it.gpus > 0) r["nvidia.com/gpu"] = std::to_string(it.gpus);
  return r;
}

model::Labels WorkloadSelector(const WorkloadSpec& w) { return {{"app", w.name}}; }

model::Labels PodLabels(const SyntheticCluster& c, const PodSpec& p) {
  const WorkloadSpec& w = c.workloads[p.workload];
  model::Labels l = {{"app", w.name}};
  switch (w.kind) {
    case WorkloadKind::kDeployment: l["pod-template-hash"] = p.old_replicaset ? w.old_rs_hash : w.rs_hash; break;
    case WorkloadKind::kStatefulSet:
      l["apps.kubernetes.io/pod-index"] = std::to_string(p.ordinal);
      l["controller-revision-hash"] = w.name + "-" + w.revision_hash;
      l["statefulset.kubernetes.io/pod-name"] = p.name;
      break;
    case WorkloadKind::kJob:
      l["batch.kubernetes.io/controller-uid"] = w.job_uid;
      l["batch.kubernetes.io/job-name"] = w.job_name;
      l["controller-uid"] = w.job_uid;
      l["job-name"] = w.job_name;
      break;
    case WorkloadKind::kBarePod: break;
  }
  return l;
}

std::optional<model::OwnerRef> PodOwner(const SyntheticCluster& c, const PodSpec& p) {
  const WorkloadSpec& w = c.workloads[p.workload];
  switch (w.kind) {
    case WorkloadKind::kDeployment:
      return model::OwnerRef{"apps/v1", "ReplicaSet", c.ControllerName(p), p.old_replicaset ? w.old_rs_uid : w.rs_uid,
                             true};
    case WorkloadKind::kStatefulSet: return model::OwnerRef{"apps/v1", "StatefulSet", w.name, w.uid, true};
    case WorkloadKind::kJob: return model::OwnerRef{"batch/v1", "Job", w.job_name, w.job_uid, true};
    case WorkloadKind::kBarePod: return std::nullopt;
  }
  return std::nullopt;
}

model::Labels ExporterLabels(const SyntheticCluster& c, const NodeSpec& n) {
  const ExporterInfo& e = ExporterFor(n.dcgm);
  return {{"app", e.daemonset},
          {"app.kubernetes.io/managed-by", n.dcgm == DcgmStyle::kOldHostname ? "gpu-operator" : "Helm"},
          {"controller-revision-hash", Rng(DeriveSeed(c.seed, e.daemonset, 3)).Chars(kKubeAlphabet, 10)},
          {"pod-template-generation", "1"}};
}

std::string ExporterUid(const SyntheticCluster& c, const NodeSpec& n) {
  Rng rng(DeriveSeed(c.seed, std::string("daemonset/") + ExporterFor(n.dcgm).daemonset, 5));
  return NewUid(rng);
}

struct PdbStatus {
  int expected = 0, healthy = 0, desired = 0, allowed = 0;
};

// What the disruption controller computes: percentages of minAvailable and
// maxUnavailable round up.
PdbStatus ComputePdbStatus(const SyntheticCluster& c, int workload, const std::vector<int>& running) {
  const WorkloadSpec& w = c.workloads[workload];
  PdbStatus s;
  s.expected = running[workload];
  s.healthy = s.expected;
  auto scaled = [&](const std::string& v) {
    if (!v.empty() && v.back() == '%') {
      const int pct = std::stoi(v.substr(0, v.size() - 1));
      return (pct * s.expected + 99) / 100;
    }
    return std::stoi(v);
  };
  if (!w.pdb->min_available.empty()) {
    s.desired = scaled(w.pdb->min_available);
  } else {
    s.desired = std::max(0, s.expected - scaled(w.pdb->max_unavailable));
  }
  s.allowed = std::max(0, s.healthy - s.desired);
  return s;
}

json IntOrString(const std::string& v) {
  if (!v.empty() && v.back() == '%') return v;
  return std::stoi(v);
}

// ---- JSON objects -------------------------------------------------------------

json Metadata(const SyntheticCluster& c, const std::string& ns, const std::string& name, const std::string& uid,
              int64_t created) {
  json m = {{"creationTimestamp", Rfc3339(created)}, {"name", name}, {"uid", uid},
            {"resourceVersion", ResourceVersion(c, ns + "/" + name)}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

json LabelsJson(const model::Labels& l) {
  json j = json::object();
  for (const auto& [k, v] : l) j[k] = v;
  return j;
}

json NodeJson(const SyntheticCluster& c, const NodeSpec& n) {
  json md = Metadata(c, "", n.name, n.uid, n.created);
  md["labels"] = LabelsJson(NodeLabels(c, n));
  md["annotations"] = LabelsJson(NodeAnnotations(n));
  json spec = {{"providerID", "aws:///" + n.zone + "/" + n.instance_id}};
  json taints = json::array();
  for (const auto& t : NodeTaints(c, n)) {
    json tj = {{"effect", t.effect}, {"key", t.key}};
    if (!t.value.empty()) tj["value"] = t.value;
    if (t.key == "node.kubernetes.io/unschedulable") tj["timeAdded"] = Rfc3339(c.snapshot_time - 5400);
    taints.push_back(tj);
  }
  if (!taints.empty()) spec["taints"] = taints;
  if (n.cordoned) spec["unschedulable"] = true;
  const std::string boot = Rfc3339(n.created + 35);
  auto cond = [&](const char* type, const char* status, const char* reason, const char* message) {
    return json{{"lastHeartbeatTime", Rfc3339(c.snapshot_time - 17)},
                {"lastTransitionTime", boot},
                {"message", message},
                {"reason", reason},
                {"status", status},
                {"type", type}};
  };
  Rng rng(DeriveSeed(c.seed, "node-info/" + n.name));
  const bool al2023 = n.dcgm != DcgmStyle::kOldHostname;
  json status = {
      {"addresses", json::array({{{"address", n.ip}, {"type", "InternalIP"}},
                                 {{"address", InternalDns(n)}, {"type", "InternalDNS"}},
                                 {{"address", n.name}, {"type", "Hostname"}}})},
      {"allocatable", NodeResources(c, n, true)},
      {"capacity", NodeResources(c, n, false)},
      {"conditions",
       json::array({cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                    cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                    cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                    cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")})},
      {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
      {"nodeInfo",
       {{"architecture", "amd64"},
        {"bootID", NewUid(rng)},
        {"containerRuntimeVersion", al2023 ? "containerd://1.7.20" : "containerd://1.7.11"},
        {"kernelVersion", al2023 ? "6.1.102-111.182.amzn2023.x86_64" : "5.10.220-209.869.amzn2.x86_64"},
        {"kubeProxyVersion", "v1.30.4-eks-a737599"},
        {"kubeletVersion", "v1.30.4-eks-a737599"},
        {"machineID", rng.Chars(kHexAlphabet, 32)},
        {"operatingSystem", "linux"},
        {"osImage", al2023 ? "Amazon Linux 2023.5.20240819" : "Amazon Linux 2"},
        {"systemUUID", "ec2" + rng.Chars(kHexAlphabet, 5) + "-" + rng.Chars(kHexAlphabet, 4) + "-" +
                           rng.Chars(kHexAlphabet, 4) + "-" + rng.Chars(kHexAlphabet, 4) + "-" +
                           rng.Chars(kHexAlphabet, 12)}}},
  };
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", md}, {"spec", spec}, {"status", status}};
}

// The image the workload ran before its last rollout: the last number in the
// tag one lower ("2.4.0" -> "2.3.0"... no: "2.4.0" -> "2.4.0" has last number 0,
// so the number before it is lowered: "2.3.0"; "v1.9.2" -> "v1.9.1"), or
// "<tag>-prev" when the tag has no number to lower.  Old ReplicaSets carry it,
// so their template differs from the Deployment's as in a real rollout.
std::string PreviousImage(const std::string& image) {
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos || image.find('/', colon) != std::string::npos) return image + ":previous";
  std::string tag = image.substr(colon + 1);
  // Scan the numbers of the version part from the right; lower the first one above 0.
  const size_t dash = tag.find('-');
  size_t end = dash != std::string::npos && tag.find_first_of("0123456789") < dash ? dash : tag.size();
  while (end > 0) {
    size_t last_digit = tag.find_last_of("0123456789", end - 1);
    if (last_digit == std::string::npos) break;
    size_t first_digit = last_digit;
    while (first_digit > 0 && std::isdigit(static_cast<unsigned char>(tag[first_digit - 1]))) --first_digit;
    const std::string digits = tag.substr(first_digit, last_digit - first_digit + 1);
    if (digits.size() < 10 && std::stol(digits) > 0) {
      std::string lowered = std::to_string(std::stol(digits) - 1);
      if (lowered.size() < digits.size()) lowered.insert(0, digits.size() - lowered.size(), '0');  // keep "08" -> "07"
      tag.replace(first_digit, digits.size(), lowered);
      return image.substr(0, colon + 1) + tag;
    }
    end = first_digit;
  }
  return image + "-prev";
}

// The service-account token volume's name, "kube-api-access-<5 chars>" (empty for a template).
// `image` overrides the workload's image (old ReplicaSets); "" keeps it.
json ContainerJson(const WorkloadSpec& w, const std::string& api_volume, const std::string& image = "") {
  json limits = {{"memory", w.memory_limit}};
  if (!w.cpu_limit.empty()) limits["cpu"] = w.cpu_limit;
  json requests = {{"cpu", w.cpu_request}, {"memory", w.memory_request}};
  if (w.gpus_per_pod > 0) {
    limits["nvidia.com/gpu"] = std::to_string(w.gpus_per_pod);
    if (w.gpu_in_requests) requests["nvidia.com/gpu"] = std::to_string(w.gpus_per_pod);
  }
  json j = {{"image", image.empty() ? w.image : image},
            {"imagePullPolicy", "IfNotPresent"},
            {"name", w.container},
            {"resources", {{"limits", limits}, {"requests", requests}}},
            {"terminationMessagePath", "/dev/termination-log"},
            {"terminationMessagePolicy", "File"}};
  if (w.kind != WorkloadKind::kJob && w.usage.shape == UsageShape::kInference) {
    j["ports"] = json::array({{{"containerPort", 8000}, {"name", "http"}, {"protocol", "TCP"}}});
  }
  if (w.usage.shape == UsageShape::kNotebook && w.kind == WorkloadKind::kStatefulSet) {
    j["ports"] = json::array({{{"containerPort", 8888}, {"name", "notebook-port"}, {"protocol", "TCP"}}});
  }
  if (!api_volume.empty()) {
    j["volumeMounts"] = json::array({{{"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                                      {"name", api_volume},
                                      {"readOnly", true}}});
  }
  return j;
}

const char* RestartPolicy(const WorkloadSpec& w) {
  return w.kind == WorkloadKind::kJob ? "Never" : "Always";
}

json PodSpecJson(const WorkloadSpec& w, const std::string& api_volume, const std::string& image = "") {
  json spec = {{"containers", json::array({ContainerJson(w, api_volume, image)})},
               {"dnsPolicy", "ClusterFirst"},
               {"restartPolicy", RestartPolicy(w)},
               {"schedulerName", "default-scheduler"},
               {"securityContext", json::object()},
               {"terminationGracePeriodSeconds", 30}};
  if (!w.pool.empty()) spec["nodeSelector"] = {{kPoolLabel, w.pool}};
  if (w.gpus_per_pod > 0) {
    spec["tolerations"] = json::array({{{"effect", "NoSchedule"}, {"key", "nvidia.com/gpu"}, {"operator", "Exists"}}});
  }
  return spec;
}

json TemplateJson(const WorkloadSpec& w, const model::Labels& labels, const std::string& image = "") {
  return {{"metadata", {{"creationTimestamp", nullptr}, {"labels", LabelsJson(labels)}}},
          {"spec", PodSpecJson(w, "", image)}};
}

json ApiAccessVolume(const std::string& name) {
  return {{"name", name},
          {"projected",
           {{"defaultMode", 420},
            {"sources",
             json::array({{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
                          {{"configMap", {{"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})},
                                          {"name", "kube-root-ca.crt"}}}},
                          {{"downwardAPI",
                            {{"items", json::array({{{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}},
                                                     {"path", "namespace"}}})}}}}})}}}};
}

json RunningStatus(const SyntheticCluster& c, const NodeSpec& n, const std::string& pod_key, const std::string& ip,
                   int64_t created, const std::string& container, const std::string& image) {
  const std::string started = Rfc3339(created + 2);
  const std::string ready = Rfc3339(created + 31);
  auto cond = [](const char* type, const std::string& at) {
    return json{{"lastProbeTime", nullptr}, {"lastTransitionTime", at}, {"status", "True"}, {"type", type}};
  };
  Rng rng(DeriveSeed(c.seed, "container/" + pod_key));
  json cs = {{"containerID", "containerd://" + rng.Chars(kHexAlphabet, 64)},
             {"image", image},
             {"imageID", image.substr(0, image.find(':')) + "@sha256:" + Hex(c, "image/" + image, 64)},
             {"lastState", json::object()},
             {"name", container},
             {"ready", true},
             {"restartCount", 0},
             {"started", true},
             {"state", {{"running", {{"startedAt", ready}}}}}};
  return {{"conditions", json::array({cond("PodReadyToStartContainers", ready), cond("Initialized", started),
                                      cond("Ready", ready), cond("ContainersReady", ready),
                                      cond("PodScheduled", Rfc3339(created))})},
          {"containerStatuses", json::array({cs})},
          {"hostIP", n.ip},
          {"hostIPs", json::array({{{"ip", n.ip}}})},
          {"phase", "Running"},
          {"podIP", ip},
          {"podIPs", json::array({{{"ip", ip}}})},
          {"qosClass", "Burstable"},
          {"startTime", Rfc3339(created)}};
}

json OwnerJson(const model::OwnerRef& o) {
  return {{"apiVersion", o.api_version}, {"blockOwnerDeletion", true}, {"controller", true},
          {"kind", o.kind},              {"name", o.name},           {"uid", o.uid}};
}

json PodJson(const SyntheticCluster& c, const PodSpec& p) {
  const WorkloadSpec& w = c.workloads[p.workload];
  const NodeSpec& n = c.nodes[p.node];
  json md = Metadata(c, w.namespace_, p.name, p.uid, p.created);
  md["labels"] = LabelsJson(PodLabels(c, p));
  if (auto owner = PodOwner(c, p)) {
    md["ownerReferences"] = json::array({OwnerJson(*owner)});
    md["generateName"] = owner->name + "-";
  }
  const std::string api_volume =
      "kube-api-access-" + Rng(DeriveSeed(c.seed, "sa-volume/" + p.uid)).Chars(kKubeAlphabet, 5);
  const std::string image = p.old_replicaset ? PreviousImage(w.image) : w.image;
  json spec = PodSpecJson(w, api_volume, image);
  spec["enableServiceLinks"] = true;
  spec["nodeName"] = n.name;
  spec["preemptionPolicy"] = "PreemptLowerPriority";
  spec["priority"] = 0;
  spec["serviceAccount"] = "default";
  spec["serviceAccountName"] = "default";
  spec["volumes"] = json::array({ApiAccessVolume(api_volume)});
  json& tol = spec["tolerations"];
  if (tol.is_null()) tol = json::array();
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    tol.push_back({{"effect", "NoExecute"}, {"key", key}, {"operator", "Exists"}, {"tolerationSeconds", 300}});
  }
  if (w.kind == WorkloadKind::kStatefulSet) {
    spec["hostname"] = p.name;
    spec["subdomain"] = w.name;
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", md},
          {"spec", spec},
          {"status", RunningStatus(c, n, w.namespace_ + "/" + p.name, p.ip, p.created, w.container, image)}};
}

json ExporterPodJson(const SyntheticCluster& c, const NodeSpec& n) {
  const ExporterInfo& e = ExporterFor(n.dcgm);
  json md = Metadata(c, e.namespace_, n.exporter_pod, n.exporter_uid, n.created + 120);
  md["labels"] = LabelsJson(ExporterLabels(c, n));
  md["generateName"] = std::string(e.daemonset) + "-";
  md["ownerReferences"] = json::array({OwnerJson({"apps/v1", "DaemonSet", e.daemonset, ExporterUid(c, n), true})});
  json container = {{"env", json::array({{{"name", "DCGM_EXPORTER_KUBERNETES"}, {"value", "true"}},
                                         {{"name", "DCGM_EXPORTER_LISTEN"}, {"value", ":9400"}},
                                         {{"name", "NODE_NAME"},
                                          {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "spec.nodeName"}}}}}}})},
                    {"image", e.image},
                    {"imagePullPolicy", "IfNotPresent"},
                    {"name", e.container},
                    {"ports", json::array({{{"containerPort", 9400}, {"name", "metrics"}, {"protocol", "TCP"}}})},
                    {"resources", {{"limits", {{"memory", "512Mi"}}}, {"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}}},
                    {"securityContext", {{"capabilities", {{"add", json::array({"SYS_ADMIN"})}}}, {"runAsNonRoot", false}, {"runAsUser", 0}}},
                    {"terminationMessagePath", "/dev/termination-log"},
                    {"terminationMessagePolicy", "File"}};
  json spec = {{"containers", json::array({container})},
               {"dnsPolicy", "ClusterFirst"},
               {"enableServiceLinks", true},
               {"nodeName", n.name},
               {"nodeSelector", {{"nvidia.com/gpu.present", "true"}}},
               {"preemptionPolicy", "PreemptLowerPriority"},
               {"priority", 2000001000},
               {"priorityClassName", "system-node-critical"},
               {"restartPolicy", "Always"},
               {"schedulerName", "default-scheduler"},
               {"securityContext", json::object()},
               {"serviceAccount", e.daemonset},
               {"serviceAccountName", e.daemonset},
               {"terminationGracePeriodSeconds", 30},
               {"tolerations", json::array({{{"effect", "NoSchedule"}, {"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", md},
          {"spec", spec},
          {"status", RunningStatus(c, n, std::string(e.namespace_) + "/" + n.exporter_pod, n.exporter_ip, n.created + 120,
                                   e.container, e.image)}};
}

json PdbJson(const SyntheticCluster& c, int workload, const std::vector<int>& running) {
  const WorkloadSpec& w = c.workloads[workload];
  const PdbStatus s = ComputePdbStatus(c, workload, running);
  Rng rng(DeriveSeed(c.seed, "pdb/" + w.namespace_ + "/" + w.pdb->name));
  json md = Metadata(c, w.namespace_, w.pdb->name, NewUid(rng), w.created + 60);
  md["generation"] = 1;
  json spec = {{"selector", {{"matchLabels", LabelsJson(WorkloadSelector(w))}}}};
  if (!w.pdb->min_available.empty()) spec["minAvailable"] = IntOrString(w.pdb->min_available);
  if (!w.pdb->max_unavailable.empty()) spec["maxUnavailable"] = IntOrString(w.pdb->max_unavailable);
  const bool ok = s.allowed > 0;
  json status = {{"conditions", json::array({{{"lastTransitionTime", Rfc3339(w.created + 90)},
                                              {"message", ""},
                                              {"observedGeneration", 1},
                                              {"reason", ok ? "SufficientPods" : "InsufficientPods"},
                                              {"status", ok ? "True" : "False"},
                                              {"type", "DisruptionAllowed"}}})},
                 {"currentHealthy", s.healthy},
                 {"desiredHealthy", s.desired},
                 {"disruptionsAllowed", s.allowed},
                 {"expectedPods", s.expected},
                 {"observedGeneration", 1}};
  return {{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"}, {"metadata", md}, {"spec", spec}, {"status", status}};
}


json DeploymentJson(const SyntheticCluster& c, int workload, const std::vector<int>& running) {
  const WorkloadSpec& w = c.workloads[workload];
  json md = Metadata(c, w.namespace_, w.name, w.uid, w.created);
  md["annotations"] = {{"deployment.kubernetes.io/revision", std::to_string(w.revision)}};
  md["generation"] = w.revision;
  md["labels"] = LabelsJson(WorkloadSelector(w));
  json spec = {{"progressDeadlineSeconds", 600},
               {"replicas", w.replicas},
               {"revisionHistoryLimit", 10},
               {"selector", {{"matchLabels", LabelsJson(WorkloadSelector(w))}}},
               {"strategy", {{"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}, {"type", "RollingUpdate"}}},
               {"template", TemplateJson(w, WorkloadSelector(w))}};
  const int ready = running[workload];
  auto cond = [&](const char* type, const char* reason, const std::string& message, int64_t at) {
    return json{{"lastTransitionTime", Rfc3339(at)},
                {"lastUpdateTime", Rfc3339(at)},
                {"message", message},
                {"reason", reason},
                {"status", "True"},
                {"type", type}};
  };
  const int64_t progressed = std::max(w.rs_created, w.rollout) + 95;
  json status = {{"availableReplicas", ready},
                 {"conditions", json::array({cond("Available", "MinimumReplicasAvailable", "Deployment has minimum availability.",
                                                  w.created + 70),
                                             cond("Progressing", "NewReplicaSetAvailable",
                                                  "ReplicaSet \"" + w.name + "-" + w.rs_hash + "\" has successfully progressed.",
                                                  progressed)})},
                 {"observedGeneration", w.revision},
                 {"readyReplicas", ready},
                 {"replicas", ready},
                 {"updatedReplicas", ready}};
  return {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", md}, {"spec", spec}, {"status", status}};
}

json ReplicaSetJson(const SyntheticCluster& c, int workload, bool old, const std::vector<int>& running) {
  const WorkloadSpec& w = c.workloads[workload];
  const std::string& hash = old ? w.old_rs_hash : w.rs_hash;
  const std::string name = w.name + "-" + hash;
  const int replicas = old ? 0 : w.replicas;
  json md = Metadata(c, w.namespace_, name, old ? w.old_rs_uid : w.rs_uid, old ? w.old_rs_created : w.rs_created);
  md["annotations"] = {{"deployment.kubernetes.io/desired-replicas", std::to_string(w.replicas)},
                       {"deployment.kubernetes.io/max-replicas", std::to_string(w.replicas + (w.replicas + 3) / 4)},
                       {"deployment.kubernetes.io/revision", std::to_string(old ? w.revision - 1 : w.revision)}};
  md["generation"] = old ? 2 : 1;
  model::Labels labels = WorkloadSelector(w);
  labels["pod-template-hash"] = hash;
  md["labels"] = LabelsJson(labels);
  md["ownerReferences"] = json::array({OwnerJson({"apps/v1", "Deployment", w.name, w.uid, true})});
  json spec = {{"replicas", replicas},
               {"selector", {{"matchLabels", LabelsJson(labels)}}},
               {"template", TemplateJson(w, labels, old ? PreviousImage(w.image) : "")}};
  json status;
  if (old) {
    status = {{"observedGeneration", 2}, {"replicas", 0}};
  } else {
    const int ready = running[workload];
    status = {{"availableReplicas", ready},
              {"fullyLabeledReplicas", ready},
              {"observedGeneration", 1},
              {"readyReplicas", ready},
              {"replicas", ready}};
  }
  return {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"metadata", md}, {"spec", spec}, {"status", status}};
}

json StatefulSetJson(const SyntheticCluster& c, int workload, const std::vector<int>& running) {
  const WorkloadSpec& w = c.workloads[workload];
  json md = Metadata(c, w.namespace_, w.name, w.uid, w.created);
  md["generation"] = 1;
  md["labels"] = LabelsJson(WorkloadSelector(w));
  json spec = {{"persistentVolumeClaimRetentionPolicy", {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}},
               {"podManagementPolicy", w.usage.shape == UsageShape::kNotebook ? "OrderedReady" : "Parallel"},
               {"replicas", w.replicas},
               {"revisionHistoryLimit", 10},
               {"selector", {{"matchLabels", LabelsJson(WorkloadSelector(w))}}},
               {"serviceName", w.name},
               {"template", TemplateJson(w, WorkloadSelector(w))},
               {"updateStrategy", {{"rollingUpdate", {{"partition", 0}}}, {"type", "RollingUpdate"}}}};
  const int ready = running[workload];
  const std::string revision = w.name + "-" + w.revision_hash;
  json status = {{"availableReplicas", ready},    {"collisionCount", 0},       {"currentReplicas", ready},
                 {"currentRevision", revision},   {"observedGeneration", 1},   {"readyReplicas", ready},
                 {"replicas", ready},             {"updateRevision", revision}, {"updatedReplicas", ready}};
  return {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"metadata", md}, {"spec", spec}, {"status", status}};
}

json ItemJson(const SyntheticCluster& c, const Item& item, const std::vector<int>& running) {
  switch (item.type) {
    case ItemType::kNode: return NodeJson(c, c.nodes[item.index]);
    case ItemType::kPod: return PodJson(c, c.pods[item.index]);
    case ItemType::kExporterPod: return ExporterPodJson(c, c.nodes[item.index]);
    case ItemType::kPdb: return PdbJson(c, item.index, running);
    case ItemType::kDeployment: return DeploymentJson(c, item.index, running);
    case ItemType::kStatefulSet: return StatefulSetJson(c, item.index, running);
    case ItemType::kReplicaSet: return ReplicaSetJson(c, item.index, false, running);
    case ItemType::kOldReplicaSet: return ReplicaSetJson(c, item.index, true, running);
  }
  return json::object();
}

// Appends `text` with every line indented by `spaces`.
void AppendIndented(std::string& out, const std::string& text, int spaces) {
  const std::string pad(spaces, ' ');
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out += pad;
    out.append(text, start, nl - start);
    if (nl == text.size()) break;
    out += '\n';
    start = nl + 1;
  }
}

// ---- model --------------------------------------------------------------------

std::map<std::string, int64_t> GpuResources(const std::map<std::string, std::string>& r) {
  std::map<std::string, int64_t> out;
  for (const auto& [k, v] : r) {
    if (k.rfind("nvidia.com/", 0) == 0) out[k] = std::stoll(v);
  }
  return out;
}

model::Node ModelNode(const SyntheticCluster& c, const NodeSpec& n) {
  model::Node m;
  m.name = n.name;
  m.labels = NodeLabels(c, n);
  m.annotations = NodeAnnotations(n);
  m.taints = NodeTaints(c, n);
  m.unschedulable = n.cordoned;
  m.ready = true;
  m.capacity = GpuResources(NodeResources(c, n, false));
  m.allocatable = GpuResources(NodeResources(c, n, true));
  auto label = [&](const char* k) -> std::string {
    return std::string(m.labels.Get(k));
  };
  m.instance_type = label("node.kubernetes.io/instance-type");
  m.gpu_product = label("nvidia.com/gpu.product");
  m.mig_capable = label("nvidia.com/mig.capable") == "true";
  m.mig_strategy = label("nvidia.com/mig.strategy");
  if (std::string v = label("nvidia.com/gpu.count"); !v.empty()) {
    m.gpu_count = std::stoi(v);
  } else if (auto it = m.capacity.find(model::kGpuResource); it != m.capacity.end()) {
    m.gpu_count = static_cast<int>(it->second);
  }
  if (std::string v = label("nvidia.com/gpu.memory"); !v.empty()) m.gpu_memory_mib = std::stoll(v);
  if (auto it = m.annotations.find(kPriceAnnotation); it != m.annotations.end()) {
    double price = 0;
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), price);
    m.hourly_price_usd = price;
  }
  return m;
}

model::Pod ModelPod(const SyntheticCluster& c, const PodSpec& p) {
  const WorkloadSpec& w = c.workloads[p.workload];
  model::Pod m;
  m.namespace_ = w.namespace_;
  m.name = p.name;
  m.uid = p.uid;
  m.node_name = c.nodes[p.node].name;
  m.phase = "Running";
  m.labels = PodLabels(c, p);
  m.controller = PodOwner(c, p);
  model::ContainerResources cr;
  cr.name = w.container;
  if (w.gpus_per_pod > 0) {
    cr.limits[model::kGpuResource] = w.gpus_per_pod;
    if (w.gpu_in_requests) cr.requests[model::kGpuResource] = w.gpus_per_pod;
    m.gpus = w.gpus_per_pod;
  }
  m.containers.push_back(std::move(cr));
  switch (w.kind) {
    case WorkloadKind::kDeployment: m.workload = {w.namespace_, "Deployment", w.name}; break;
    case WorkloadKind::kStatefulSet: m.workload = {w.namespace_, "StatefulSet", w.name}; break;
    case WorkloadKind::kJob: m.workload = {w.namespace_, "Job", w.job_name}; break;
    case WorkloadKind::kBarePod: m.workload = {w.namespace_, "Pod", p.name}; break;
  }
  return m;
}

model::Pod ModelExporterPod(const SyntheticCluster& c, const NodeSpec& n) {
  const ExporterInfo& e = ExporterFor(n.dcgm);
  model::Pod m;
  m.namespace_ = e.namespace_;
  m.name = n.exporter_pod;
  m.uid = n.exporter_uid;
  m.node_name = n.name;
  m.phase = "Running";
  m.labels = ExporterLabels(c, n);
  m.controller = model::OwnerRef{"apps/v1", "DaemonSet", e.daemonset, ExporterUid(c, n), true};
  m.daemonset = true;
  model::ContainerResources cr;
  cr.name = e.container;
  m.containers.push_back(cr);
  m.workload = {e.namespace_, "DaemonSet", e.daemonset};
  return m;
}

model::PodDisruptionBudget ModelPdb(const SyntheticCluster& c, int workload, const std::vector<int>& running) {
  const WorkloadSpec& w = c.workloads[workload];
  const PdbStatus s = ComputePdbStatus(c, workload, running);
  model::PodDisruptionBudget m;
  m.namespace_ = w.namespace_;
  m.name = w.pdb->name;
  m.selector.match_labels = WorkloadSelector(w);
  m.selector.empty_selects_all = true;
  m.min_available = w.pdb->min_available;
  m.max_unavailable = w.pdb->max_unavailable;
  m.disruptions_allowed = s.allowed;
  m.expected_pods = s.expected;
  return m;
}

// Keeps only the members of `o` named in `keep`.
void KeepOnly(json& o, std::initializer_list<const char*> keep) {
  if (!o.is_object()) return;
  json out = json::object();
  for (const char* k : keep) {
    if (auto it = o.find(k); it != o.end()) out[k] = std::move(*it);
  }
  o = std::move(out);
}

// A pod spec without what kubeon does not read of its containers.
void CompactPodSpec(json& spec) {
  KeepOnly(spec, {"nodeName", "nodeSelector", "tolerations", "affinity", "volumes", "terminationGracePeriodSeconds",
                  "containers", "initContainers"});
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list)) continue;
    for (json& c : spec[list]) KeepOnly(c, {"name", "resources"});
  }
}

// The item without the fields snapshot_json.cc does not read.
void Compact(json& item) {
  const std::string kind = item.value("kind", "");
  if (json& md = item["metadata"]; md.is_object()) {
    KeepOnly(md, {"name", "namespace", "uid", "labels", "annotations", "ownerReferences", "managedFields"});
    if (md.contains("ownerReferences")) {
      for (json& r : md["ownerReferences"]) KeepOnly(r, {"apiVersion", "kind", "name", "uid", "controller"});
    }
    if (md.contains("managedFields")) {
      for (json& f : md["managedFields"]) KeepOnly(f, {"manager"});
    }
  }
  if (kind == "Node") {
    json& status = item["status"];
    KeepOnly(status, {"capacity", "allocatable", "conditions"});
    json ready = json::array();
    for (json& cond : status["conditions"]) {
      if (cond.value("type", "") == "Ready") ready.push_back({{"status", cond["status"]}, {"type", "Ready"}});
    }
    status["conditions"] = std::move(ready);
  } else if (kind == "Pod") {
    CompactPodSpec(item["spec"]);
    KeepOnly(item["status"], {"phase"});
  } else if (kind != "PodDisruptionBudget") {  // the controllers
    if (item.contains("spec") && item["spec"].contains("template") && item["spec"]["template"].contains("spec")) {
      CompactPodSpec(item["spec"]["template"]["spec"]);
    }
    item.erase("status");
  }
}

}  // namespace

Status WriteClusterJson(const SyntheticCluster& c, const std::function<bool(std::string_view)>& sink, bool compact) {
  const std::vector<Item> items = Items(c);
  const std::vector<int> running = RunningPods(c);
  std::string buf = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [";
  buf += items.empty() ? "]" : "\n";
  for (size_t i = 0; i < items.size(); ++i) {
    if (compact) {
      json item = ItemJson(c, items[i], running);
      Compact(item);
      buf += item.dump();
    } else {
      AppendIndented(buf, ItemJson(c, items[i], running).dump(4), 8);
    }
    buf += i + 1 < items.size() ? ",\n" : "\n    ]";
    if (buf.size() >= (1 << 20)) {
      if (!sink(buf)) return Status::Error("cluster.json: write failed");
      buf.clear();
    }
  }
  buf += ",\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
  if (!sink(buf)) return Status::Error("cluster.json: write failed");
  return Status::Ok();
}

model::Cluster BuildModelCluster(const SyntheticCluster& c) {
  model::Cluster m;
  const std::vector<int> running = RunningPods(c);
  for (const Item& item : Items(c)) {
    switch (item.type) {
      case ItemType::kNode: m.nodes.push_back(ModelNode(c, c.nodes[item.index])); break;
      case ItemType::kPod: m.pods.push_back(ModelPod(c, c.pods[item.index])); break;
      case ItemType::kExporterPod: m.pods.push_back(ModelExporterPod(c, c.nodes[item.index])); break;
      case ItemType::kPdb: m.pdbs.push_back(ModelPdb(c, item.index, running)); break;
      case ItemType::kDeployment:
      case ItemType::kStatefulSet: {
        const WorkloadSpec& w = c.workloads[item.index];
        m.controllers.push_back({w.namespace_, KindName(w.kind), w.name, w.uid, w.replicas, std::nullopt});
        break;
      }
      case ItemType::kReplicaSet:
      case ItemType::kOldReplicaSet: {
        const WorkloadSpec& w = c.workloads[item.index];
        const bool old = item.type == ItemType::kOldReplicaSet;
        m.controllers.push_back({w.namespace_, "ReplicaSet", item.name, old ? w.old_rs_uid : w.rs_uid,
                                 old ? 0 : w.replicas, model::OwnerRef{"apps/v1", "Deployment", w.name, w.uid, true}});
        break;
      }
    }
  }
  return m;
}

}  // namespace kubeon::gencluster
