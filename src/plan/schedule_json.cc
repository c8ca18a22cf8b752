// See schedule_json.h.
#include "plan/schedule_json.h"

#include <utility>

namespace kubeon::plan {
namespace {

using nlohmann::json;

json RefToJson(const model::WorkloadRef& r) { return {{"namespace", r.namespace_}, {"kind", r.kind}, {"name", r.name}}; }

// Reads fields of one JSON object into C++ values; the first type error is
// kept (with its path) and later reads are skipped.
class Reader {
 public:
  Reader(const json& obj, std::string path, Status* status) : obj_(obj), path_(std::move(path)), status_(status) {
    if (status_->ok() && !obj_.is_object()) Fail(path_.empty() ? "expected an object" : path_ + ": expected an object");
  }

  void Str(const char* key, std::string* out) {
    if (const json* v = Get(key, &json::is_string, "a string")) *out = v->get<std::string>();
  }
  template <typename Int>
  void Integer(const char* key, Int* out) {
    if (const json* v = Get(key, &json::is_number_integer, "an integer")) *out = v->get<Int>();
  }
  void Bool(const char* key, bool* out) {
    if (const json* v = Get(key, &json::is_boolean, "a boolean")) *out = v->get<bool>();
  }
  void Number(const char* key, double* out) {
    if (const json* v = Get(key, &json::is_number, "a number")) *out = v->get<double>();
  }
  void Strings(const char* key, std::vector<std::string>* out) {
    const json* v = Get(key, &json::is_array, "a list");
    if (!v) return;
    out->clear();
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) return Fail(Path(key) + "[" + std::to_string(i) + "]: expected a string");
      out->push_back((*v)[i].get<std::string>());
    }
  }
  void StringMap(const char* key, std::map<std::string, std::string>* out) {
    const json* v = Get(key, &json::is_object, "an object");
    if (!v) return;
    out->clear();
    for (const auto& [k, x] : v->items()) {
      if (!x.is_string()) return Fail(Path(key) + "." + k + ": expected a string");
      (*out)[k] = x.get<std::string>();
    }
  }
  void LabelsMap(const char* key, std::map<std::string, model::Labels>* out) {
    const json* v = Get(key, &json::is_object, "an object");
    if (!v) return;
    out->clear();
    for (const auto& [k, x] : v->items()) {
      Reader r(*v, Path(key), status_);
      r.StringMap(k.c_str(), &(*out)[k]);
    }
  }
  void Ref(const char* key, model::WorkloadRef* out) {
    const json* v = Get(key, &json::is_object, "an object");
    if (!v) return;
    Reader r(*v, Path(key), status_);
    r.Str("namespace", &out->namespace_);
    r.Str("kind", &out->kind);
    r.Str("name", &out->name);
  }
  // A list of objects, each read by read(Reader&, T*).
  template <typename T, typename Fn>
  void Objects(const char* key, std::vector<T>* out, Fn read) {
    const json* v = Get(key, &json::is_array, "a list");
    if (!v) return;
    out->clear();
    for (size_t i = 0; i < v->size() && status_->ok(); ++i) {
      Reader r((*v)[i], Path(key) + "[" + std::to_string(i) + "]", status_);
      T item;
      if (status_->ok()) read(r, &item);
      out->push_back(std::move(item));
    }
  }

 private:
  std::string Path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  void Fail(const std::string& message) {
    if (status_->ok()) *status_ = Status::Error(message);
  }
  const json* Get(const char* key, bool (json::*is)() const noexcept, const char* what) {
    if (!status_->ok() || !obj_.is_object()) return nullptr;
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return nullptr;
    if (!((*it).*is)()) {
      Fail(Path(key) + ": expected " + what);
      return nullptr;
    }
    return &*it;
  }

  const json& obj_;
  std::string path_;
  Status* status_;
};

void ReadDisrupted(Reader& r, DisruptedPod* d) {
  r.Str("pod", &d->pod);
  r.Str("owner", &d->owner);
  r.Str("why", &d->why);
}

void ReadEviction(Reader& r, StepEviction* e) {
  r.Str("pod", &e->pod);
  r.Str("owner", &e->owner);
  r.Str("resource", &e->resource);
  r.Integer("count", &e->count);
  r.Integer("grace_period_seconds", &e->grace_period_seconds);
  r.Str("runs_meanwhile", &e->runs_meanwhile);
  r.Bool("comes_back", &e->comes_back);
}

void ReadOwner(Reader& r, StepOwnerMove* o) {
  r.Ref("owner", &o->owner);
  r.Integer("replicas", &o->replicas);
  r.Str("from_resource", &o->from_resource);
  r.Integer("from_per_pod", &o->from_per_pod);
  r.Str("to_resource", &o->to_resource);
  r.Integer("to_per_pod", &o->to_per_pod);
  r.Str("strategy", &o->strategy);
  r.Integer("max_surge", &o->max_surge);
  r.Integer("max_unavailable", &o->max_unavailable);
  r.Str("pdb", &o->pdb);
  r.Integer("pdb_disruptions_allowed", &o->pdb_disruptions_allowed);
  r.Bool("pdb_ok", &o->pdb_ok);
  r.Str("gitops", &o->gitops);
  r.Str("patch_json", &o->patch_json);
  r.Strings("target_nodes", &o->target_nodes);
}

void ReadNeed(Reader& r, CapacityNeed* n) {
  r.Str("resource", &n->resource);
  r.Integer("count", &n->count);
  r.Strings("nodes", &n->nodes);
  r.Str("why", &n->why);
}

void ReadStep(Reader& r, ScheduleStep* s) {
  r.Integer("index", &s->index);
  r.Str("id", &s->id);
  r.Str("content_hash", &s->content_hash);
  r.Str("gpu_model", &s->gpu_model);
  r.Str("method", &s->method);
  r.Strings("nodes", &s->nodes);
  r.LabelsMap("labels_after", &s->labels_after);
  r.StringMap("layout_before", &s->layout_before);
  r.StringMap("layout_after", &s->layout_after);
  r.Objects("evictions", &s->evictions, ReadEviction);
  r.Objects("owners", &s->owners, ReadOwner);
  r.Objects("disrupted", &s->disrupted, ReadDisrupted);
  r.Objects("needs", &s->needs, ReadNeed);
  r.Strings("nodes_freed", &s->nodes_freed);
  r.Integer("gpus_freed", &s->gpus_freed);
  r.Number("monthly_savings_usd", &s->monthly_savings_usd);
  r.Str("isolation", &s->isolation);
  r.Strings("flags", &s->flags);
  r.Integer("estimated_seconds", &s->estimated_seconds);
}

void ReadCapacity(Reader& r, CapacityEntry* c) {
  r.Str("node", &c->node);
  r.Str("resource", &c->resource);
  r.Integer("allocatable", &c->allocatable);
  r.Integer("requested", &c->requested);
  r.Integer("free", &c->free);
}

}  // namespace

json StepToJson(const ScheduleStep& s) {
  json j;
  j["index"] = s.index;
  j["id"] = s.id;
  j["content_hash"] = s.content_hash;
  j["gpu_model"] = s.gpu_model;
  j["method"] = s.method;
  j["nodes"] = s.nodes;
  j["labels_after"] = json::object();
  for (const auto& [node, labels] : s.labels_after) j["labels_after"][node] = labels;
  j["layout_before"] = s.layout_before.empty() ? json::object() : json(s.layout_before);
  j["layout_after"] = s.layout_after.empty() ? json::object() : json(s.layout_after);
  j["evictions"] = json::array();
  for (const auto& e : s.evictions) {
    j["evictions"].push_back({{"pod", e.pod},
                              {"owner", e.owner},
                              {"resource", e.resource},
                              {"count", e.count},
                              {"grace_period_seconds", e.grace_period_seconds},
                              {"runs_meanwhile", e.runs_meanwhile},
                              {"comes_back", e.comes_back}});
  }
  j["owners"] = json::array();
  for (const auto& o : s.owners) {
    j["owners"].push_back({{"owner", RefToJson(o.owner)},
                           {"replicas", o.replicas},
                           {"from_resource", o.from_resource},
                           {"from_per_pod", o.from_per_pod},
                           {"to_resource", o.to_resource},
                           {"to_per_pod", o.to_per_pod},
                           {"strategy", o.strategy},
                           {"max_surge", o.max_surge},
                           {"max_unavailable", o.max_unavailable},
                           {"pdb", o.pdb},
                           {"pdb_disruptions_allowed", o.pdb_disruptions_allowed},
                           {"pdb_ok", o.pdb_ok},
                           {"gitops", o.gitops},
                           {"patch_json", o.patch_json},
                           {"target_nodes", o.target_nodes}});
  }
  j["disrupted"] = json::array();
  for (const auto& d : s.disrupted) j["disrupted"].push_back({{"pod", d.pod}, {"owner", d.owner}, {"why", d.why}});
  j["needs"] = json::array();
  for (const auto& n : s.needs) {
    j["needs"].push_back({{"resource", n.resource}, {"count", n.count}, {"nodes", n.nodes}, {"why", n.why}});
  }
  j["nodes_freed"] = s.nodes_freed;
  j["gpus_freed"] = s.gpus_freed;
  j["monthly_savings_usd"] = s.monthly_savings_usd;
  j["isolation"] = s.isolation;
  j["flags"] = s.flags;
  j["estimated_seconds"] = s.estimated_seconds;
  return j;
}

Result<ScheduleStep> StepFromJson(const json& j) {
  Status status;
  ScheduleStep s;
  Reader r(j, "", &status);
  ReadStep(r, &s);
  if (!status.ok()) return status;
  return s;
}

json ScheduleToJson(const Schedule& s) {
  json j;
  j["feasible"] = s.feasible;
  j["max_nodes_per_pool"] = s.max_nodes_per_pool;
  j["spare_gpus_needed"] = s.spare_gpus_needed.empty() ? json::object() : json(s.spare_gpus_needed);
  j["left_out"] = s.left_out;
  j["capacity"] = json::array();
  for (const auto& c : s.capacity) {
    j["capacity"].push_back({{"node", c.node},
                             {"resource", c.resource},
                             {"allocatable", c.allocatable},
                             {"requested", c.requested},
                             {"free", c.free}});
  }
  j["steps"] = json::array();
  for (const auto& step : s.steps) j["steps"].push_back(StepToJson(step));
  return j;
}

Result<Schedule> ScheduleFromJson(const json& j) {
  Status status;
  Schedule s;
  Reader r(j, "", &status);
  r.Bool("feasible", &s.feasible);
  r.Integer("max_nodes_per_pool", &s.max_nodes_per_pool);
  if (status.ok() && j.contains("spare_gpus_needed") && !j["spare_gpus_needed"].is_null()) {
    if (!j["spare_gpus_needed"].is_object()) return Status::Error("spare_gpus_needed: expected an object");
    for (const auto& [model, v] : j["spare_gpus_needed"].items()) {
      if (!v.is_number_integer()) return Status::Error("spare_gpus_needed." + model + ": expected an integer");
      s.spare_gpus_needed[model] = v.get<int>();
    }
  }
  r.Strings("left_out", &s.left_out);
  r.Objects("capacity", &s.capacity, ReadCapacity);
  r.Objects("steps", &s.steps, ReadStep);
  if (!status.ok()) return status;
  return s;
}

}  // namespace kubeon::plan
