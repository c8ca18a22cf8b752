// See snapshot_json.h.
#include "model/snapshot_json.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

namespace kubeon::model {
namespace {

using json = nlohmann::json;

std::string Str(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

Labels StringMap(const json& obj, const char* key) {
  Labels out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

const json& Child(const json& obj, const char* key) {
  static const json kEmpty = json::object();
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return kEmpty;
  return *it;
}

std::optional<OwnerRef> ControllerOf(const json& metadata) {
  auto it = metadata.find("ownerReferences");
  if (it == metadata.end() || !it->is_array()) return std::nullopt;
  for (const auto& ref : *it) {
    if (ref.value("controller", false)) {
      return OwnerRef{Str(ref, "apiVersion"), Str(ref, "kind"), Str(ref, "name"), Str(ref, "uid"), true};
    }
  }
  return std::nullopt;
}

bool IsGpuResource(const std::string& name) { return name.rfind("nvidia.com/", 0) == 0; }

// Integer resources under "nvidia.com/" from a resource map; non-whole values
// are reported through *bad.
std::map<std::string, int64_t> GpuQuantities(const json& resources, std::string* bad) {
  std::map<std::string, int64_t> out;
  if (!resources.is_object()) return out;
  for (const auto& [k, v] : resources.items()) {
    if (!IsGpuResource(k)) continue;
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    int64_t n = 0;
    if (!ParseWholeQuantity(text, &n)) {
      if (bad->empty()) *bad = k + ": \"" + text + "\" is not a whole number";
      continue;
    }
    out[k] = n;
  }
  return out;
}

std::string ItemPrefix(std::string_view source, size_t index, const std::string& kind, const std::string& name) {
  std::string p = std::string(source) + ": items[" + std::to_string(index) + "] (" + kind;
  if (!name.empty()) p += " " + name;
  return p + ")";
}

Status ParseNode(const json& item, Node* node) {
  const json& md = Child(item, "metadata");
  const json& spec = Child(item, "spec");
  const json& status = Child(item, "status");
  node->name = Str(md, "name");
  node->labels = StringMap(md, "labels");
  node->annotations = StringMap(md, "annotations");
  node->unschedulable = spec.value("unschedulable", false);
  if (auto t = spec.find("taints"); t != spec.end() && t->is_array()) {
    for (const auto& taint : *t) node->taints.push_back({Str(taint, "key"), Str(taint, "value"), Str(taint, "effect")});
  }
  if (auto c = status.find("conditions"); c != status.end() && c->is_array()) {
    for (const auto& cond : *c) {
      if (Str(cond, "type") == "Ready") node->ready = Str(cond, "status") == "True";
    }
  }
  std::string bad;
  node->capacity = GpuQuantities(Child(status, "capacity"), &bad);
  node->allocatable = GpuQuantities(Child(status, "allocatable"), &bad);
  if (!bad.empty()) return Status::Error("status: " + bad);
  auto label = [&](const char* k) -> std::string {
    auto it = node->labels.find(k);
    return it == node->labels.end() ? "" : it->second;
  };
  node->instance_type = label("node.kubernetes.io/instance-type");
  if (node->instance_type.empty()) node->instance_type = label("beta.kubernetes.io/instance-type");
  node->gpu_product = label("nvidia.com/gpu.product");
  node->mig_capable = label("nvidia.com/mig.capable") == "true";
  node->mig_strategy = label("nvidia.com/mig.strategy");
  int64_t v = 0;
  if (std::string c = label("nvidia.com/gpu.count"); !c.empty()) {
    if (!ParseWholeQuantity(c, &v)) return Status::Error("label nvidia.com/gpu.count: \"" + c + "\" is not a whole number");
    node->gpu_count = static_cast<int>(v);
  } else if (auto it = node->capacity.find(kGpuResource); it != node->capacity.end()) {
    node->gpu_count = static_cast<int>(it->second);
  }
  if (std::string m = label("nvidia.com/gpu.memory"); !m.empty()) {
    if (!ParseWholeQuantity(m, &v)) return Status::Error("label nvidia.com/gpu.memory: \"" + m + "\" is not a whole number of MiB");
    node->gpu_memory_mib = v;
  }
  if (auto it = node->annotations.find(kPriceAnnotation); it != node->annotations.end()) {
    double price = 0;
    const std::string& s = it->second;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), price);
    if (ec != std::errc() || ptr != s.data() + s.size() || price < 0) {
      return Status::Error(std::string("annotation ") + kPriceAnnotation + ": \"" + s + "\" is not a non-negative number of USD per hour");
    }
    node->hourly_price_usd = price;
  }
  return Status::Ok();
}

Status ParseContainers(const json& list, bool init, Pod* pod) {
  if (!list.is_array()) return Status::Ok();
  for (const auto& c : list) {
    ContainerResources cr;
    cr.name = Str(c, "name");
    cr.init = init;
    const json& res = Child(c, "resources");
    std::string bad;
    cr.requests = GpuQuantities(Child(res, "requests"), &bad);
    cr.limits = GpuQuantities(Child(res, "limits"), &bad);
    if (!bad.empty()) return Status::Error(std::string(init ? "initContainer " : "container ") + "\"" + cr.name + "\": " + bad);
    pod->containers.push_back(std::move(cr));
  }
  return Status::Ok();
}

// Effective amounts per GPU resource: max(sum of app containers, max of init containers).
void ComputePodGpus(Pod* pod) {
  std::map<std::string, int64_t> app, init;
  for (const auto& c : pod->containers) {
    std::map<std::string, int64_t> eff = c.limits;
    for (const auto& [k, v] : c.requests) eff[k] = v;  // request wins; limit alone implies request
    for (const auto& [k, v] : eff) {
      if (c.init) {
        init[k] = std::max(init[k], v);
      } else {
        app[k] += v;
      }
    }
  }
  for (const auto& [k, v] : init) app[k] = std::max(app[k], v);
  for (const auto& [k, v] : app) {
    if (v == 0) continue;
    if (k == kGpuResource) {
      pod->gpus = v;
    } else {
      pod->gpu_slices[k] = v;
    }
  }
}

std::vector<std::string> Strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<NodeSelectorRequirement> Requirements(const json& term, const char* key) {
  std::vector<NodeSelectorRequirement> out;
  auto it = term.find(key);
  if (it == term.end() || !it->is_array()) return out;
  for (const auto& r : *it) {
    if (r.is_object()) out.push_back({Str(r, "key"), Str(r, "operator"), Strings(r, "values")});
  }
  return out;
}

// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
std::vector<NodeSelectorTerm> RequiredNodeTerms(const json& spec) {
  const json& required =
      Child(Child(Child(spec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution");
  std::vector<NodeSelectorTerm> out;
  auto it = required.find("nodeSelectorTerms");
  if (it == required.end() || !it->is_array()) return out;
  for (const auto& t : *it) {
    if (t.is_object()) out.push_back({Requirements(t, "matchExpressions"), Requirements(t, "matchFields")});
  }
  return out;
}

// Volumes cluster-autoscaler calls local storage: hostPath, and emptyDir
// unless its medium is Memory; those the annotation
// cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes lists (comma
// separated) do not count.
std::vector<std::string> LocalVolumes(const json& spec, const Labels& annotations) {
  std::set<std::string> allowed;
  if (auto a = annotations.find("cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"); a != annotations.end()) {
    size_t start = 0;
    while (start <= a->second.size()) {
      size_t comma = a->second.find(',', start);
      if (comma == std::string::npos) comma = a->second.size();
      std::string name = a->second.substr(start, comma - start);
      while (!name.empty() && name.front() == ' ') name.erase(0, 1);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!name.empty()) allowed.insert(name);
      start = comma + 1;
    }
  }
  std::vector<std::string> out;
  auto it = spec.find("volumes");
  if (it == spec.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (!v.is_object()) continue;
    const std::string name = Str(v, "name");
    const bool host_path = v.contains("hostPath");
    const bool disk_empty_dir = v.contains("emptyDir") && Str(Child(v, "emptyDir"), "medium") != "Memory";
    if ((host_path || disk_empty_dir) && !allowed.count(name)) out.push_back(name);
  }
  return out;
}

std::vector<Toleration> Tolerations(const json& spec) {
  std::vector<Toleration> out;
  auto it = spec.find("tolerations");
  if (it == spec.end() || !it->is_array()) return out;
  for (const auto& t : *it) {
    if (!t.is_object()) continue;
    Toleration tol{Str(t, "key"), Str(t, "operator"), Str(t, "value"), Str(t, "effect")};
    if (tol.op.empty()) tol.op = "Equal";
    out.push_back(std::move(tol));
  }
  return out;
}

Placement PlacementOfSpec(const json& spec) {
  return {StringMap(spec, "nodeSelector"), Tolerations(spec), RequiredNodeTerms(spec)};
}

Status ParsePod(const json& item, Pod* pod) {
  const json& md = Child(item, "metadata");
  const json& spec = Child(item, "spec");
  pod->namespace_ = Str(md, "namespace");
  if (pod->namespace_.empty()) pod->namespace_ = "default";
  pod->name = Str(md, "name");
  pod->uid = Str(md, "uid");
  pod->labels = StringMap(md, "labels");
  const Labels annotations = StringMap(md, "annotations");
  if (auto a = annotations.find("cluster-autoscaler.kubernetes.io/safe-to-evict"); a != annotations.end()) {
    if (a->second == "true") pod->safe_to_evict = true;
    if (a->second == "false") pod->safe_to_evict = false;
  }
  pod->local_volumes = LocalVolumes(spec, annotations);
  Placement placement = PlacementOfSpec(spec);
  pod->required_node_terms = std::move(placement.required_node_terms);
  pod->node_selector = std::move(placement.node_selector);
  pod->tolerations = std::move(placement.tolerations);
  if (auto g = spec.find("terminationGracePeriodSeconds"); g != spec.end() && g->is_number_integer()) {
    pod->termination_grace_period_seconds = g->get<int64_t>();
  }
  pod->controller = ControllerOf(md);
  pod->daemonset = pod->controller && pod->controller->kind == "DaemonSet";
  pod->node_name = Str(spec, "nodeName");
  pod->phase = Str(Child(item, "status"), "phase");
  if (pod->phase.empty()) pod->phase = "Pending";
  Status s = ParseContainers(Child(spec, "initContainers"), true, pod);
  if (!s.ok()) return s;
  s = ParseContainers(Child(spec, "containers"), false, pod);
  if (!s.ok()) return s;
  ComputePodGpus(pod);
  return Status::Ok();
}

Status ParseSelector(const json& sel, LabelSelector* out) {
  out->match_labels = StringMap(sel, "matchLabels");
  if (auto it = sel.find("matchExpressions"); it != sel.end() && it->is_array()) {
    for (const auto& e : *it) {
      LabelSelectorRequirement r{Str(e, "key"), Str(e, "operator"), {}};
      if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist") {
        return Status::Error("spec.selector.matchExpressions: operator \"" + r.op + "\" is not In, NotIn, Exists or DoesNotExist");
      }
      if (auto v = e.find("values"); v != e.end() && v->is_array()) {
        for (const auto& x : *v) {
          if (x.is_string()) r.values.push_back(x.get<std::string>());
        }
      }
      out->match_expressions.push_back(std::move(r));
    }
  }
  return Status::Ok();
}

std::string IntOrString(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

Status ParsePdb(const json& item, PodDisruptionBudget* pdb) {
  const json& md = Child(item, "metadata");
  const json& spec = Child(item, "spec");
  const json& status = Child(item, "status");
  pdb->namespace_ = Str(md, "namespace");
  if (pdb->namespace_.empty()) pdb->namespace_ = "default";
  pdb->name = Str(md, "name");
  auto sel = spec.find("selector");
  // policy/v1: a null selector selects no pods; an empty one selects all.
  pdb->selector.empty_selects_all = sel != spec.end() && sel->is_object();
  if (sel != spec.end() && sel->is_object()) {
    Status s = ParseSelector(*sel, &pdb->selector);
    if (!s.ok()) return s;
  }
  pdb->min_available = IntOrString(spec, "minAvailable");
  pdb->max_unavailable = IntOrString(spec, "maxUnavailable");
  pdb->disruptions_allowed = status.value("disruptionsAllowed", 0);
  pdb->expected_pods = status.value("expectedPods", 0);
  return Status::Ok();
}

void ParseController(const json& item, const std::string& kind, Controller* c) {
  const json& md = Child(item, "metadata");
  c->namespace_ = Str(md, "namespace");
  if (c->namespace_.empty()) c->namespace_ = "default";
  c->kind = kind;
  c->name = Str(md, "name");
  c->uid = Str(md, "uid");
  const json& spec = Child(item, "spec");
  c->replicas = spec.value("replicas", 1);
  c->owner = ControllerOf(md);
  c->labels = StringMap(md, "labels");
  c->annotations = StringMap(md, "annotations");
  if (auto m = md.find("managedFields"); m != md.end() && m->is_array()) {
    for (const auto& f : *m) {
      const std::string manager = f.is_object() ? Str(f, "manager") : "";
      if (!manager.empty() && std::find(c->managers.begin(), c->managers.end(), manager) == c->managers.end()) {
        c->managers.push_back(manager);
      }
    }
  }
  const json& strategy = Child(spec, kind == "StatefulSet" ? "updateStrategy" : "strategy");
  c->strategy = Str(strategy, "type");
  if (c->strategy.empty() && kind != "ReplicaSet") c->strategy = "RollingUpdate";
  const json& rolling = Child(strategy, "rollingUpdate");
  c->max_surge = IntOrString(rolling, "maxSurge");
  c->max_unavailable = IntOrString(rolling, "maxUnavailable");
  if (auto p = rolling.find("partition"); p != rolling.end() && p->is_number_integer()) c->partition = p->get<int>();
  c->pod_template = PlacementOfSpec(Child(Child(spec, "template"), "spec"));
}

// nvidia.com/v1 ClusterPolicy: the fields the plan's artifacts depend on.
GpuOperatorPolicy ParseClusterPolicy(const json& item) {
  const json& spec = Child(item, "spec");
  GpuOperatorPolicy p;
  p.name = Str(Child(item, "metadata"), "name");
  p.namespace_ = Str(Child(item, "status"), "namespace");
  p.mig_strategy = Str(Child(spec, "mig"), "strategy");
  const json& mig_manager = Child(spec, "migManager");
  p.mig_config_name = Str(Child(mig_manager, "config"), "name");
  p.mig_config_default = Str(Child(mig_manager, "config"), "default");
  const json& device_plugin = Child(spec, "devicePlugin");
  p.device_plugin_config_name = Str(Child(device_plugin, "config"), "name");
  p.device_plugin_config_default = Str(Child(device_plugin, "config"), "default");
  if (auto env = mig_manager.find("env"); env != mig_manager.end() && env->is_array()) {
    for (const auto& e : *env) {
      if (e.is_object() && Str(e, "name") == "WITH_REBOOT") p.with_reboot = Str(e, "value") == "true";
    }
  }
  return p;
}

ConfigMap ParseConfigMap(const json& item) {
  const json& md = Child(item, "metadata");
  ConfigMap c;
  c.namespace_ = Str(md, "namespace");
  if (c.namespace_.empty()) c.namespace_ = "default";
  c.name = Str(md, "name");
  c.data = StringMap(item, "data");
  return c;
}

void ResolveWorkloads(Cluster* cluster) {
  std::map<std::tuple<std::string, std::string, std::string>, const Controller*> index;
  for (const auto& c : cluster->controllers) index[{c.namespace_, c.kind, c.name}] = &c;
  for (auto& pod : cluster->pods) {
    if (!pod.controller) {
      pod.workload = {pod.namespace_, "Pod", pod.name};
      continue;
    }
    std::string kind = pod.controller->kind;
    std::string name = pod.controller->name;
    // Climb at most a few levels: ReplicaSet -> Deployment, Job -> CronJob.
    for (int depth = 0; depth < 4; ++depth) {
      auto it = index.find({pod.namespace_, kind, name});
      if (it == index.end() || !it->second->owner) break;
      kind = it->second->owner->kind;
      name = it->second->owner->name;
    }
    pod.workload = {pod.namespace_, kind, name};
  }
}

}  // namespace

bool ParseWholeQuantity(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < 0) return false;
  *out = v;
  return true;
}

Result<Cluster> ParseClusterJson(std::string_view json_text, std::string_view source_name) {
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    return Status::Error(std::string(source_name) + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object()) return Status::Error(std::string(source_name) + ": expected a JSON object (a List with items)");
  // Items are read in place (no copy of the document).
  const json single = json::array({doc});
  const json* items_ptr = &single;
  if (doc.contains("items")) {
    if (!doc["items"].is_array()) return Status::Error(std::string(source_name) + ": \"items\" is not an array");
    items_ptr = &doc["items"];
  } else if (!doc.contains("kind")) {
    return Status::Error(std::string(source_name) + ": neither a List (\"items\") nor a Kubernetes object (\"kind\")");
  }
  const json& items = *items_ptr;
  // A list call's body (e.g. /api/v1/pods) has kind PodList and items without kind.
  std::string list_kind = Str(doc, "kind");
  std::string implied_kind;
  if (list_kind.size() > 4 && list_kind.substr(list_kind.size() - 4) == "List") implied_kind = list_kind.substr(0, list_kind.size() - 4);

  Cluster cluster;
  for (size_t i = 0; i < items.size(); ++i) {
    const json& item = items[i];
    if (!item.is_object()) return Status::Error(ItemPrefix(source_name, i, "?", "") + ": not an object");
    std::string kind = Str(item, "kind");
    if (kind.empty()) kind = implied_kind;
    std::string name = Str(Child(item, "metadata"), "name");
    const std::string prefix = ItemPrefix(source_name, i, kind.empty() ? "?" : kind, name);
    if (kind.empty()) return Status::Error(prefix + ": kind missing");
    static const std::set<std::string> kKnown = {"Node",    "Pod",      "PodDisruptionBudget", "Deployment",
                                                 "StatefulSet", "ReplicaSet", "Job",    "CronJob",
                                                 "DaemonSet", "ClusterPolicy", "ConfigMap"};
    if (!kKnown.count(kind)) continue;
    if (name.empty()) return Status::Error(prefix + ": metadata.name missing");
    Status s;
    if (kind == "Node") {
      Node n;
      s = ParseNode(item, &n);
      if (s.ok()) cluster.nodes.push_back(std::move(n));
    } else if (kind == "Pod") {
      Pod p;
      s = ParsePod(item, &p);
      if (s.ok()) cluster.pods.push_back(std::move(p));
    } else if (kind == "ClusterPolicy") {
      if (cluster.gpu_operator) {
        cluster.warnings.push_back(prefix + ": a second ClusterPolicy; the GPU Operator uses only one, the first (" +
                                   cluster.gpu_operator->name + ") is read");
      } else {
        cluster.gpu_operator = ParseClusterPolicy(item);
      }
    } else if (kind == "ConfigMap") {
      cluster.config_maps.push_back(ParseConfigMap(item));
    } else if (kind == "PodDisruptionBudget") {
      PodDisruptionBudget p;
      s = ParsePdb(item, &p);
      if (s.ok()) cluster.pdbs.push_back(std::move(p));
    } else {
      Controller c;
      ParseController(item, kind, &c);
      cluster.controllers.push_back(std::move(c));
    }
    if (!s.ok()) return s.WithPrefix(prefix);
  }
  ResolveWorkloads(&cluster);
  return cluster;
}

Result<Cluster> LoadClusterFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Status::Error(path + ": cannot open cluster snapshot");
  std::string text(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in) return Status::Error(path + ": read error");
  return ParseClusterJson(text, path);
}

}  // namespace kubeon::model
