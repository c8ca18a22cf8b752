// See schedule_json.h.
#include "plan/schedule_json.h"

#include <string_view>
#include <utility>

#include "model/json_tree_writer.h"

namespace kubeon::plan {
namespace {

using nlohmann::json;

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
  void StringMap(const char* key, model::Labels* out) {
    std::map<std::string, std::string> m;
    StringMap(key, &m);
    out->clear();
    for (const auto& [k, v] : m) out->Set(k, v);
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

// The schema, written once for both writers (model::JsonWriter: text;
// model::JsonTreeWriter: a nlohmann value).  Keys in byte order, as
// JsonWriter requires and as nlohmann's dump prints them.
template <typename W>
void Strings(W& w, std::string_view key, const std::vector<std::string>& v) {
  w.Key(key);
  w.BeginArray();
  for (const auto& s : v) w.String(s);
  w.EndArray();
}

template <typename W, typename Map>  // Map: std::map<std::string, std::string> or model::Labels
void StringMap(W& w, std::string_view key, const Map& m) {
  w.Key(key);
  w.BeginObject();
  for (const auto& [k, v] : m) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
}

template <typename W>
void Step(W& w, const ScheduleStep& s) {
  w.BeginObject();
  w.Key("content_hash"), w.String(s.content_hash);
  w.Key("disrupted");
  w.BeginArray();
  for (const auto& d : s.disrupted) {
    w.BeginObject();
    w.Key("owner"), w.String(d.owner);
    w.Key("pod"), w.String(d.pod);
    w.Key("why"), w.String(d.why);
    w.EndObject();
  }
  w.EndArray();
  w.Key("estimated_seconds"), w.Int(s.estimated_seconds);
  w.Key("evictions");
  w.BeginArray();
  for (const auto& e : s.evictions) {
    w.BeginObject();
    w.Key("comes_back"), w.Bool(e.comes_back);
    w.Key("count"), w.Int(e.count);
    w.Key("grace_period_seconds"), w.Int(e.grace_period_seconds);
    w.Key("owner"), w.String(e.owner);
    w.Key("pod"), w.String(e.pod);
    w.Key("resource"), w.String(e.resource);
    w.Key("runs_meanwhile"), w.String(e.runs_meanwhile);
    w.EndObject();
  }
  w.EndArray();
  Strings(w, "flags", s.flags);
  w.Key("gpu_model"), w.String(s.gpu_model);
  w.Key("gpus_freed"), w.Int(s.gpus_freed);
  w.Key("id"), w.String(s.id);
  w.Key("index"), w.Int(s.index);
  w.Key("isolation"), w.String(s.isolation);
  w.Key("labels_after");
  w.BeginObject();
  for (const auto& [node, labels] : s.labels_after) StringMap(w, node, labels);
  w.EndObject();
  StringMap(w, "layout_after", s.layout_after);
  StringMap(w, "layout_before", s.layout_before);
  w.Key("method"), w.String(s.method);
  w.Key("monthly_savings_usd"), w.Double(s.monthly_savings_usd);
  w.Key("needs");
  w.BeginArray();
  for (const auto& n : s.needs) {
    w.BeginObject();
    w.Key("count"), w.Int(n.count);
    Strings(w, "nodes", n.nodes);
    w.Key("resource"), w.String(n.resource);
    w.Key("why"), w.String(n.why);
    w.EndObject();
  }
  w.EndArray();
  Strings(w, "nodes", s.nodes);
  Strings(w, "nodes_freed", s.nodes_freed);
  w.Key("owners");
  w.BeginArray();
  for (const auto& o : s.owners) {
    w.BeginObject();
    w.Key("from_per_pod"), w.Int(o.from_per_pod);
    w.Key("from_resource"), w.String(o.from_resource);
    w.Key("gitops"), w.String(o.gitops);
    w.Key("max_surge"), w.Int(o.max_surge);
    w.Key("max_unavailable"), w.Int(o.max_unavailable);
    w.Key("owner");
    w.BeginObject();
    w.Key("kind"), w.String(o.owner.kind);
    w.Key("name"), w.String(o.owner.name);
    w.Key("namespace"), w.String(o.owner.namespace_);
    w.EndObject();
    w.Key("patch_json"), w.String(o.patch_json);
    w.Key("pdb"), w.String(o.pdb);
    w.Key("pdb_disruptions_allowed"), w.Int(o.pdb_disruptions_allowed);
    w.Key("pdb_ok"), w.Bool(o.pdb_ok);
    w.Key("replicas"), w.Int(o.replicas);
    w.Key("strategy"), w.String(o.strategy);
    Strings(w, "target_nodes", o.target_nodes);
    w.Key("to_per_pod"), w.Int(o.to_per_pod);
    w.Key("to_resource"), w.String(o.to_resource);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

template <typename W>
void WholeSchedule(W& w, const Schedule& s) {
  w.BeginObject();
  w.Key("blocked_pools");
  w.BeginObject();
  for (const auto& [pool, why] : s.blocked_pools) w.Key(pool), w.String(why);
  w.EndObject();
  w.Key("capacity");
  w.BeginArray();
  for (const auto& c : s.capacity) {
    w.BeginObject();
    w.Key("allocatable"), w.Int(c.allocatable);
    w.Key("free"), w.Int(c.free);
    w.Key("node"), w.String(c.node);
    w.Key("requested"), w.Int(c.requested);
    w.Key("resource"), w.String(c.resource);
    w.EndObject();
  }
  w.EndArray();
  w.Key("feasible"), w.Bool(s.feasible);
  Strings(w, "left_out", s.left_out);
  w.Key("max_nodes_per_pool"), w.Int(s.max_nodes_per_pool);
  w.Key("spare_gpus_needed");
  w.BeginObject();
  for (const auto& [model, n] : s.spare_gpus_needed) w.Key(model), w.Int(n);
  w.EndObject();
  w.Key("steps");
  w.BeginArray();
  for (const auto& step : s.steps) Step(w, step);
  w.EndArray();
  w.EndObject();
}

}  // namespace

json StepToJson(const ScheduleStep& s) {
  model::JsonTreeWriter w;
  Step(w, s);
  return w.Take();
}

void WriteStep(model::JsonWriter& w, const ScheduleStep& s) { Step(w, s); }

Result<ScheduleStep> StepFromJson(const json& j) {
  Status status;
  ScheduleStep s;
  Reader r(j, "", &status);
  ReadStep(r, &s);
  if (!status.ok()) return status;
  return s;
}

json ScheduleToJson(const Schedule& s) {
  model::JsonTreeWriter w;
  WholeSchedule(w, s);
  return w.Take();
}

void WriteSchedule(model::JsonWriter& w, const Schedule& s) { WholeSchedule(w, s); }

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
  if (status.ok() && j.contains("blocked_pools") && !j["blocked_pools"].is_null()) {
    if (!j["blocked_pools"].is_object()) return Status::Error("blocked_pools: expected an object");
    for (const auto& [pool, v] : j["blocked_pools"].items()) {
      if (!v.is_string()) return Status::Error("blocked_pools." + pool + ": expected a string");
      s.blocked_pools[pool] = v.get<std::string>();
    }
  }
  r.Strings("left_out", &s.left_out);
  r.Objects("capacity", &s.capacity, ReadCapacity);
  r.Objects("steps", &s.steps, ReadStep);
  if (!status.ok()) return status;
  return s;
}

}  // namespace kubeon::plan
