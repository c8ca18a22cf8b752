// See table.h.
#include "table.h"

#include <functional>

#include "custom_resources.h"
#include "json_path.h"
#include "quantity.h"

namespace kubeon::kubesim {

namespace {

struct Column {
  std::string name;
  std::string type;  // string | integer
  int priority;
  std::function<json(const json&)> cell;
};

std::string Age(const json& obj, TimePoint now) {
  std::string ts = Str(obj, {"metadata", "creationTimestamp"});
  std::tm tm{};
  if (ts.empty() || strptime(ts.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) return "<unknown>";
  auto created = std::chrono::system_clock::from_time_t(timegm(&tm));
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - created).count());
}

std::string OrNone(const std::string& s) { return s.empty() ? "<none>" : s; }

std::string Join(const json* list, const char* field) {
  std::string out;
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& e : *list) out += (out.empty() ? "" : ",") + e.value(field, "");
  return out;
}

std::string SelectorText(const json* sel) {
  if (sel == nullptr) return "<none>";
  std::string out;
  if (sel->contains("matchLabels")) {
    for (const auto& [k, v] : (*sel)["matchLabels"].items()) out += (out.empty() ? "" : ",") + k + "=" + v.get<std::string>();
  }
  return OrNone(out);
}

std::string PodStatus(const json& pod) {
  if (IsPodDeleting(pod)) return "Terminating";
  std::string reason = Str(pod, {"status", "reason"});
  if (!reason.empty()) return reason;
  if (const json* cs = Find(pod, {"status", "containerStatuses"}); cs != nullptr && cs->is_array()) {
    for (const auto& c : *cs) {
      std::string waiting = Str(c, {"state", "waiting", "reason"});
      if (!waiting.empty()) return waiting;
    }
  }
  return PodPhase(pod);
}

std::string PodReady(const json& pod) {
  int total = 0, ready = 0;
  if (const json* cs = Find(pod, {"spec", "containers"}); cs != nullptr && cs->is_array()) total = static_cast<int>(cs->size());
  if (const json* st = Find(pod, {"status", "containerStatuses"}); st != nullptr && st->is_array()) {
    for (const auto& c : *st) ready += c.value("ready", false) ? 1 : 0;
  }
  return std::to_string(ready) + "/" + std::to_string(total);
}

int64_t PodRestarts(const json& pod) {
  int64_t n = 0;
  if (const json* st = Find(pod, {"status", "containerStatuses"}); st != nullptr && st->is_array()) {
    for (const auto& c : *st) n += c.value("restartCount", 0);
  }
  return n;
}

std::string NodeStatus(const json& node) {
  std::string s = "Unknown";
  if (const json* conds = Find(node, {"status", "conditions"}); conds != nullptr && conds->is_array()) {
    for (const auto& c : *conds) {
      if (c.value("type", "") == "Ready") s = c.value("status", "") == "True" ? "Ready" : "NotReady";
    }
  }
  const json* u = Find(node, {"spec", "unschedulable"});
  if (u != nullptr && u->is_boolean() && u->get<bool>()) s += ",SchedulingDisabled";
  return s;
}

std::string NodeRoles(const json& node) {
  std::string roles;
  const std::string prefix = "node-role.kubernetes.io/";
  for (const auto& [k, v] : Labels(node).items()) {
    (void)v;
    if (k.rfind(prefix, 0) == 0 && k.size() > prefix.size()) roles += (roles.empty() ? "" : ",") + k.substr(prefix.size());
  }
  return OrNone(roles);
}

std::string Address(const json& node, const std::string& type) {
  if (const json* a = Find(node, {"status", "addresses"}); a != nullptr && a->is_array()) {
    for (const auto& e : *a) {
      if (e.value("type", "") == type) return e.value("address", "");
    }
  }
  return "<none>";
}

std::string IntOrString(const json* v) {
  if (v == nullptr || v->is_null()) return "N/A";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

// A custom resource's cell, as apiextensions' tableconvertor: the first
// value the column's JSONPath selects, typed by the column (date: the age
// of an RFC 3339 time); null (kubectl prints <none>) when nothing matches.
json CustomCell(const PrinterColumn& c, const json& obj, TimePoint now) {
  auto found = EvalJsonPath(obj, c.json_path);
  if (found.empty() || found[0]->is_null()) return nullptr;
  const json& v = *found[0];
  if (c.type == "date" && v.is_string()) {
    auto t = ParseRfc3339(v.get<std::string>());
    if (!t) return v;
    return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t).count());
  }
  if (c.type == "integer" && v.is_number()) return v.is_number_integer() ? v : json(static_cast<int64_t>(v.get<double>()));
  if (c.type == "number" || c.type == "boolean" || c.type == "integer") return v;
  return v.is_string() ? v : json(v.dump());
}

std::vector<Column> Columns(const ResourceType& t, TimePoint now) {
  auto name = Column{"Name", "string", 0, [](const json& o) { return json(Name(o)); }};
  if (t.custom != nullptr) {
    std::vector<Column> cols = {name};
    for (const PrinterColumn& c : t.custom->Columns(t.versions[0])) {
      cols.push_back({c.name, c.type, c.priority, [c, now](const json& o) { return CustomCell(c, o, now); }});
    }
    return cols;
  }
  auto age = Column{"Age", "string", 0, [now](const json& o) { return json(Age(o, now)); }};
  auto i = [](std::initializer_list<const char*> path) {
    std::vector<const char*> p(path);
    return [p](const json& o) {
      const json* cur = &o;
      for (const char* s : p) {
        if (!cur->is_object() || !cur->contains(s)) return json(0);
        cur = &(*cur)[s];
      }
      return cur->is_number() ? *cur : json(0);
    };
  };
  auto containers = Column{"Containers", "string", 1, [](const json& o) {
                             return json(Join(Find(o, {"spec", "template", "spec", "containers"}), "name"));
                           }};
  auto images = Column{"Images", "string", 1, [](const json& o) {
                         return json(Join(Find(o, {"spec", "template", "spec", "containers"}), "image"));
                       }};
  auto selector = Column{"Selector", "string", 1, [](const json& o) { return json(SelectorText(Find(o, {"spec", "selector"}))); }};
  const std::string& p = t.plural;
  if (p == "pods") {
    return {name,
            {"Ready", "string", 0, [](const json& o) { return json(PodReady(o)); }},
            {"Status", "string", 0, [](const json& o) { return json(PodStatus(o)); }},
            {"Restarts", "integer", 0, [](const json& o) { return json(PodRestarts(o)); }},
            age,
            {"IP", "string", 1, [](const json& o) { return json(OrNone(Str(o, {"status", "podIP"}))); }},
            {"Node", "string", 1, [](const json& o) { return json(OrNone(Str(o, {"spec", "nodeName"}))); }},
            {"Nominated Node", "string", 1, [](const json& o) { return json(OrNone(Str(o, {"status", "nominatedNodeName"}))); }},
            {"Readiness Gates", "string", 1, [](const json&) { return json("<none>"); }}};
  }
  if (p == "nodes") {
    return {name,
            {"Status", "string", 0, [](const json& o) { return json(NodeStatus(o)); }},
            {"Roles", "string", 0, [](const json& o) { return json(NodeRoles(o)); }},
            age,
            {"Version", "string", 0, [](const json& o) { return json(Str(o, {"status", "nodeInfo", "kubeletVersion"})); }},
            {"Internal-IP", "string", 1, [](const json& o) { return json(Address(o, "InternalIP")); }},
            {"External-IP", "string", 1, [](const json& o) { return json(Address(o, "ExternalIP")); }},
            {"OS-Image", "string", 1, [](const json& o) { return json(OrNone(Str(o, {"status", "nodeInfo", "osImage"}))); }},
            {"Kernel-Version", "string", 1, [](const json& o) { return json(OrNone(Str(o, {"status", "nodeInfo", "kernelVersion"}))); }},
            {"Container-Runtime", "string", 1, [](const json& o) {
               return json(OrNone(Str(o, {"status", "nodeInfo", "containerRuntimeVersion"})));
             }}};
  }
  if (p == "deployments") {
    return {name,
            {"Ready", "string", 0, [](const json& o) {
               return json(std::to_string(Int(o, {"status", "readyReplicas"}, 0)) + "/" + std::to_string(Int(o, {"spec", "replicas"}, 1)));
             }},
            {"Up-to-date", "integer", 0, i({"status", "updatedReplicas"})},
            {"Available", "integer", 0, i({"status", "availableReplicas"})},
            age, containers, images, selector};
  }
  if (p == "replicasets") {
    return {name, {"Desired", "integer", 0, i({"spec", "replicas"})}, {"Current", "integer", 0, i({"status", "replicas"})},
            {"Ready", "integer", 0, i({"status", "readyReplicas"})}, age, containers, images, selector};
  }
  if (p == "statefulsets") {
    return {name,
            {"Ready", "string", 0, [](const json& o) {
               return json(std::to_string(Int(o, {"status", "readyReplicas"}, 0)) + "/" + std::to_string(Int(o, {"spec", "replicas"}, 1)));
             }},
            age, containers, images};
  }
  if (p == "daemonsets") {
    return {name, {"Desired", "integer", 0, i({"status", "desiredNumberScheduled"})},
            {"Current", "integer", 0, i({"status", "currentNumberScheduled"})}, {"Ready", "integer", 0, i({"status", "numberReady"})},
            {"Up-to-date", "integer", 0, i({"status", "updatedNumberScheduled"})},
            {"Available", "integer", 0, i({"status", "numberAvailable"})},
            {"Node Selector", "string", 0, [](const json& o) {
               const json* ns = Find(o, {"spec", "template", "spec", "nodeSelector"});
               std::string s;
               if (ns != nullptr && ns->is_object()) {
                 for (const auto& [k, v] : ns->items()) s += (s.empty() ? "" : ",") + k + "=" + v.get<std::string>();
               }
               return json(OrNone(s));
             }},
            age};
  }
  if (p == "poddisruptionbudgets") {
    return {name,
            {"Min Available", "string", 0, [](const json& o) { return json(IntOrString(Find(o, {"spec", "minAvailable"}))); }},
            {"Max Unavailable", "string", 0, [](const json& o) { return json(IntOrString(Find(o, {"spec", "maxUnavailable"}))); }},
            {"Allowed Disruptions", "integer", 0, i({"status", "disruptionsAllowed"})},
            age};
  }
  if (p == "namespaces") {
    return {name, {"Status", "string", 0, [](const json& o) { return json(Str(o, {"status", "phase"})); }}, age};
  }
  if (p == "configmaps") {
    return {name,
            {"Data", "integer", 0, [](const json& o) {
               const json* d = Find(o, {"data"});
               return json(d != nullptr && d->is_object() ? d->size() : 0);
             }},
            age};
  }
  if (p == "events") {
    return {{"Last Seen", "string", 0, [now](const json& o) {
               json copy = {{"metadata", {{"creationTimestamp", Str(o, {"lastTimestamp"})}}}};
               return json(Age(copy, now));
             }},
            {"Type", "string", 0, [](const json& o) { return json(Str(o, {"type"})); }},
            {"Reason", "string", 0, [](const json& o) { return json(Str(o, {"reason"})); }},
            {"Object", "string", 0, [](const json& o) {
               std::string kind = Str(o, {"involvedObject", "kind"});
               for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
               return json(kind + "/" + Str(o, {"involvedObject", "name"}));
             }},
            {"Message", "string", 0, [](const json& o) { return json(Str(o, {"message"})); }}};
  }
  if (p == "leases") {
    return {name, {"Holder", "string", 0, [](const json& o) { return json(Str(o, {"spec", "holderIdentity"})); }}, age};
  }
  if (p == "jobs") {
    return {name,
            {"Completions", "string", 0, [](const json& o) {
               return json(std::to_string(Int(o, {"status", "succeeded"}, 0)) + "/" + std::to_string(Int(o, {"spec", "completions"}, 1)));
             }},
            age, containers, images};
  }
  return {name, age};
}

}  // namespace

bool WantsTable(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos && accept.find("g=meta.k8s.io") != std::string::npos;
}

std::string HumanDuration(int64_t s) {
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  int64_t m = s / 60;
  if (m < 10) return s % 60 == 0 ? std::to_string(m) + "m" : std::to_string(m) + "m" + std::to_string(s % 60) + "s";
  if (m < 180) return std::to_string(m) + "m";
  int64_t h = s / 3600;
  if (h < 8) return m % 60 == 0 ? std::to_string(h) + "h" : std::to_string(h) + "h" + std::to_string(m % 60) + "m";
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8) return h % 24 == 0 ? std::to_string(h / 24) + "d" : std::to_string(h / 24) + "d" + std::to_string(h % 24) + "h";
  if (h < 24 * 365 * 2) return std::to_string(h / 24) + "d";
  int64_t y = h / (24 * 365);
  if (y < 8) return std::to_string(y) + "y" + std::to_string((h / 24) % 365) + "d";
  return std::to_string(y) + "y";
}

json RenderTable(const ResourceType& type, const std::vector<const json*>& objects, TimePoint now,
                 const json& list_metadata, const std::string& include_object) {
  std::vector<Column> cols = Columns(type, now);
  json defs = json::array();
  for (const auto& c : cols) {
    json d = {{"name", c.name}, {"type", c.type}, {"format", c.name == "Name" ? "name" : ""},
              {"description", ""}, {"priority", c.priority}};
    defs.push_back(d);
  }
  json rows = json::array();
  for (const json* o : objects) {
    json cells = json::array();
    for (const auto& c : cols) cells.push_back(c.cell(*o));
    json row = {{"cells", cells}};
    if (include_object == "Object") {
      row["object"] = *o;
    } else if (include_object != "None") {
      row["object"] = {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", (*o)["metadata"]}};
    }
    rows.push_back(row);
  }
  return {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", list_metadata},
          {"columnDefinitions", defs}, {"rows", rows}};
}

}  // namespace kubeon::kubesim
