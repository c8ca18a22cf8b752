#include "apply/step_record.h"

#include <array>
#include <initializer_list>
#include <utility>

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

constexpr std::array<std::pair<Phase, const char*>, 12> kPhaseNames = {{
    {Phase::kNotStarted, ""},
    {Phase::kStart, "start"},
    {Phase::kPrepare, "prepare"},
    {Phase::kConfigure, "configure"},
    {Phase::kUncordon, "uncordon"},
    {Phase::kOwners, "owners"},
    {Phase::kCleanup, "cleanup"},
    {Phase::kDone, "done"},
    {Phase::kRollback, "rollback"},
    {Phase::kRefused, "refused"},
    {Phase::kRolledBack, "rolled-back"},
    {Phase::kRollbackFailed, "rollback-failed"},
}};

json Values(const LabelValues& v) {
  json out = json::object();
  for (const auto& [k, s] : v) out[k] = s ? json(*s) : json(nullptr);
  return out;
}

json WriteRun(const RunRecord& r) {
  json out = json::object();
  if (r.phase != Phase::kNotStarted) out["phase"] = PhaseName(r.phase);
  if (r.cause) out["cause"] = *r.cause;
  out["nodes"] = json::object();
  for (const auto& [name, n] : r.nodes) {
    json e = json::object();
    e["prior"] = {{"unschedulable", n.prior.unschedulable},
                  {"labels", Values(n.prior.labels)},
                  {"annotations", Values(n.prior.annotations)}};
    e["cordoned"] = n.cordoned;
    e["gpu_count"] = n.gpu_count;
    e["labels_set"] = Values(n.labels_set);
    if (n.configured) e["configured"] = true;
    out["nodes"][name] = std::move(e);
  }
  out["owners"] = json::array();
  for (const auto& o : r.owners) {
    json e = {{"kind", o.kind}, {"namespace", o.namespace_}, {"name", o.name},
              {"template_before", o.template_before},
              {"annotation_before", o.annotation_before ? json(*o.annotation_before) : json(nullptr)}};
    if (o.intent) e["intent"] = true;
    if (o.patched) e["patched"] = true;
    if (o.template_after) e["template_after"] = *o.template_after;
    out["owners"].push_back(std::move(e));
  }
  return out;
}

// Reads one JSON object's fields, refusing unknown keys and wrong types;
// every message names the field's path.
class Fields {
 public:
  Fields(const json& obj, std::string path) : obj_(obj), path_(std::move(path)) {}

  Status Check(std::initializer_list<const char*> known) const {
    if (!obj_.is_object()) return Bad(path_, "is not an object");
    for (const auto& [k, v] : obj_.items()) {
      bool found = false;
      for (const char* n : known) found |= k == n;
      if (!found) return Bad(path_ + "." + k, "is not a field this version knows");
    }
    return Status::Ok();
  }
  bool Has(const char* key) const { return obj_.contains(key); }
  const json& At(const char* key) const { return obj_.at(key); }
  std::string PathOf(const char* key) const { return path_ + "." + key; }

  Status Bool(const char* key, bool required, bool* out) const {
    if (!Has(key)) return required ? Missing(key) : Status::Ok();
    if (!At(key).is_boolean()) return Bad(PathOf(key), "is not a boolean");
    *out = At(key).get<bool>();
    return Status::Ok();
  }
  Status Int(const char* key, int64_t* out) const {
    if (!Has(key)) return Missing(key);
    if (!At(key).is_number_integer()) return Bad(PathOf(key), "is not an integer");
    *out = At(key).get<int64_t>();
    return Status::Ok();
  }
  Status String(const char* key, std::string* out) const {
    if (!Has(key)) return Missing(key);
    if (!At(key).is_string()) return Bad(PathOf(key), "is not a string");
    *out = At(key).get<std::string>();
    return Status::Ok();
  }
  Status StringOrNull(const char* key, std::optional<std::string>* out) const {
    if (!Has(key)) return Missing(key);
    const json& v = At(key);
    if (v.is_null()) {
      out->reset();
    } else if (v.is_string()) {
      *out = v.get<std::string>();
    } else {
      return Bad(PathOf(key), "is neither a string nor null");
    }
    return Status::Ok();
  }
  Status Object(const char* key, bool required, std::optional<json>* out) const {
    if (!Has(key)) return required ? Missing(key) : Status::Ok();
    if (!At(key).is_object()) return Bad(PathOf(key), "is not an object");
    *out = At(key);
    return Status::Ok();
  }
  Status Values(const char* key, LabelValues* out) const {
    if (!Has(key)) return Missing(key);
    const json& v = At(key);
    if (!v.is_object()) return Bad(PathOf(key), "is not an object");
    for (const auto& [k, s] : v.items()) {
      if (s.is_null()) {
        (*out)[k] = std::nullopt;
      } else if (s.is_string()) {
        (*out)[k] = s.get<std::string>();
      } else {
        return Bad(PathOf(key) + "[\"" + k + "\"]", "is neither a string nor null");
      }
    }
    return Status::Ok();
  }

  static Status Bad(const std::string& path, const std::string& what) {
    return Status::Error(path + " " + what, StatusCode::kInvalid);
  }

 private:
  Status Missing(const char* key) const { return Bad(PathOf(key), "is missing"); }
  const json& obj_;
  std::string path_;
};

#define KUBEON_RETURN_IF_ERROR(expr)  \
  do {                                \
    Status _s = (expr);               \
    if (!_s.ok()) return _s;          \
  } while (0)

Status ReadNode(const json& j, const std::string& path, NodeUndo* n) {
  Fields f(j, path);
  KUBEON_RETURN_IF_ERROR(f.Check({"prior", "cordoned", "gpu_count", "labels_set", "configured"}));
  if (!f.Has("prior")) return Fields::Bad(f.PathOf("prior"), "is missing");
  Fields prior(f.At("prior"), f.PathOf("prior"));
  KUBEON_RETURN_IF_ERROR(prior.Check({"unschedulable", "labels", "annotations"}));
  KUBEON_RETURN_IF_ERROR(prior.Bool("unschedulable", true, &n->prior.unschedulable));
  KUBEON_RETURN_IF_ERROR(prior.Values("labels", &n->prior.labels));
  KUBEON_RETURN_IF_ERROR(prior.Values("annotations", &n->prior.annotations));
  KUBEON_RETURN_IF_ERROR(f.Bool("cordoned", true, &n->cordoned));
  KUBEON_RETURN_IF_ERROR(f.Int("gpu_count", &n->gpu_count));
  KUBEON_RETURN_IF_ERROR(f.Values("labels_set", &n->labels_set));
  return f.Bool("configured", false, &n->configured);
}

Status ReadOwner(const json& j, const std::string& path, OwnerUndo* o) {
  Fields f(j, path);
  KUBEON_RETURN_IF_ERROR(f.Check({"kind", "namespace", "name", "template_before", "annotation_before", "intent",
                                  "patched", "template_after"}));
  KUBEON_RETURN_IF_ERROR(f.String("kind", &o->kind));
  KUBEON_RETURN_IF_ERROR(f.String("namespace", &o->namespace_));
  KUBEON_RETURN_IF_ERROR(f.String("name", &o->name));
  std::optional<json> before;
  KUBEON_RETURN_IF_ERROR(f.Object("template_before", true, &before));
  o->template_before = std::move(*before);
  KUBEON_RETURN_IF_ERROR(f.StringOrNull("annotation_before", &o->annotation_before));
  KUBEON_RETURN_IF_ERROR(f.Bool("intent", false, &o->intent));
  KUBEON_RETURN_IF_ERROR(f.Bool("patched", false, &o->patched));
  return f.Object("template_after", false, &o->template_after);
}

Status ReadRun(const json& j, const std::string& path, RunRecord* r) {
  Fields f(j, path);
  KUBEON_RETURN_IF_ERROR(f.Check({"phase", "cause", "nodes", "owners"}));
  if (f.Has("phase")) {
    std::string name;
    KUBEON_RETURN_IF_ERROR(f.String("phase", &name));
    Result<Phase> p = ParsePhase(name);
    if (!p.ok()) return p.status().WithPrefix(f.PathOf("phase"));
    if (*p == Phase::kNotStarted) return Fields::Bad(f.PathOf("phase"), "is empty");
    r->phase = *p;
  }
  if (f.Has("cause")) {
    std::string cause;
    KUBEON_RETURN_IF_ERROR(f.String("cause", &cause));
    r->cause = std::move(cause);
  }
  if (!f.Has("nodes")) return Fields::Bad(f.PathOf("nodes"), "is missing");
  const json& nodes = f.At("nodes");
  if (!nodes.is_object()) return Fields::Bad(f.PathOf("nodes"), "is not an object");
  for (const auto& [name, e] : nodes.items()) {
    KUBEON_RETURN_IF_ERROR(ReadNode(e, f.PathOf("nodes") + "[\"" + name + "\"]", &r->nodes[name]));
  }
  if (!f.Has("owners")) return Fields::Bad(f.PathOf("owners"), "is missing");
  const json& owners = f.At("owners");
  if (!owners.is_array()) return Fields::Bad(f.PathOf("owners"), "is not an array");
  for (size_t i = 0; i < owners.size(); ++i) {
    OwnerUndo o;
    KUBEON_RETURN_IF_ERROR(ReadOwner(owners[i], f.PathOf("owners") + "[" + std::to_string(i) + "]", &o));
    r->owners.push_back(std::move(o));
  }
  return Status::Ok();
}

Status ReadAttempts(const json& j, std::vector<Attempt>* out) {
  if (!j.is_array()) return Fields::Bad("undo.attempts", "is not an array");
  for (size_t i = 0; i < j.size(); ++i) {
    Fields f(j[i], "undo.attempts[" + std::to_string(i) + "]");
    KUBEON_RETURN_IF_ERROR(f.Check({"number", "ended_at", "cause"}));
    Attempt a;
    KUBEON_RETURN_IF_ERROR(f.Int("number", &a.number));
    if (a.number != static_cast<int64_t>(i) + 1) {
      return Fields::Bad(f.PathOf("number"), "is " + std::to_string(a.number) + ", not " + std::to_string(i + 1));
    }
    KUBEON_RETURN_IF_ERROR(f.String("ended_at", &a.ended_at));
    KUBEON_RETURN_IF_ERROR(f.String("cause", &a.cause));
    out->push_back(std::move(a));
  }
  return Status::Ok();
}

}  // namespace

const char* PhaseName(Phase p) {
  for (const auto& [phase, name] : kPhaseNames) {
    if (phase == p) return name;
  }
  return "?";
}

Result<Phase> ParsePhase(std::string_view name) {
  for (const auto& [phase, n] : kPhaseNames) {
    if (name == n) return phase;
  }
  return Status::Error("phase \"" + std::string(name) + "\" is not one this version knows", StatusCode::kInvalid);
}

int StepRecordVersionOf(const StepRecord& record) { return record.attempts.empty() ? 1 : 2; }

std::string WriteStepRecord(const StepRecord& record) {
  json out = json::object();
  if (const int v = StepRecordVersionOf(record); v != 1) out["version"] = v;
  if (record.step) out["step"] = WriteRun(*record.step);
  if (record.revert) out["revert"] = WriteRun(*record.revert);
  if (!record.attempts.empty()) {
    json& attempts = out["attempts"] = json::array();
    for (const Attempt& a : record.attempts) {
      attempts.push_back({{"number", a.number}, {"ended_at", a.ended_at}, {"cause", a.cause}});
    }
  }
  return out.dump();
}

Result<StepRecord> ReadStepRecord(std::string_view undo_json, const std::string& what) {
  StepRecord out;
  if (undo_json.empty()) return out;
  json j = json::parse(undo_json, nullptr, false);
  if (j.is_discarded()) return Status::Error("step record of " + what + " is not JSON", StatusCode::kInvalid);
  auto fail = [&](const Status& s) { return Status::Error("step record of " + what + ": " + s.message(), s.code()); };
  Fields f(j, "undo");
  if (Status s = f.Check({"version", "step", "revert", "attempts"}); !s.ok()) return fail(s);
  if (f.Has("version")) {
    int64_t v = 0;
    if (Status s = f.Int("version", &v); !s.ok()) return fail(s);
    if (v > kStepRecordVersion) {
      return Status::Error("step record of " + what + " has version " + std::to_string(v) + ", newer than this " +
                               "version of kubeon-gpu reads (" + std::to_string(kStepRecordVersion) +
                               "): left for the newer executor that wrote it",
                           StatusCode::kUnsupported);
    }
    if (v < 1) return fail(Fields::Bad("undo.version", "is not a version (" + std::to_string(v) + ")"));
    out.version = static_cast<int>(v);
  }
  for (const char* key : {"step", "revert"}) {
    if (!f.Has(key)) continue;
    RunRecord r;
    if (Status s = ReadRun(f.At(key), f.PathOf(key), &r); !s.ok()) return fail(s);
    (std::string(key) == "step" ? out.step : out.revert) = std::move(r);
  }
  if (f.Has("attempts")) {
    if (out.version < 2) return fail(Fields::Bad("undo.attempts", "needs version 2 (the record says " +
                                                                      std::to_string(out.version) + ")"));
    if (Status s = ReadAttempts(f.At("attempts"), &out.attempts); !s.ok()) return fail(s);
  }
  return out;
}

}  // namespace kubeon::apply
