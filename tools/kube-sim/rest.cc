// See rest.h.
#include "rest.h"

#include <algorithm>
#include <set>

#include "apps_defaults.h"
#include "base64.h"
#include "custom_resources.h"
#include "eviction.h"
#include "field_validation.h"
#include "managed_fields.h"
#include "patch.h"
#include "pod_deletion.h"
#include "selector.h"
#include "structural_schema.h"
#include "table.h"
#include "validation.h"

namespace kubeon::kubesim {

namespace {

bool DryRun(const ApiRequest& req) { return !req.Param("dryRun").empty(); }

// Prunes unknown fields of a written object per fieldValidation
// (field_validation.h); the warnings go into the response.
Outcome<std::vector<std::string>> CheckWrite(const Route& r, const ApiRequest& req, json& obj, const json& existing,
                                             WriteKind write) {
  auto directive = ParseFieldValidation(req.Param("fieldValidation"));
  if (!directive.ok()) return directive.error();
  return CheckFields(*r.type, r.version, obj, existing, {directive.value(), write, req.body});
}

ApiResponse WithWarnings(ApiResponse resp, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) resp.headers.emplace_back("Warning", WarningHeaderValue(w));
  return resp;
}

Outcome<json> ParseBody(const ApiRequest& req) {
  std::string ct = req.Header("content-type");
  std::string base = ct.substr(0, ct.find(';'));
  if (!base.empty() && base != "application/json" && base != "*/*") return ApiError::UnsupportedMediaType(ct);
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return ApiError::BadRequest("the request body is not a JSON object");
  }
  return body;
}

// "k=v,k2 in (a,b)" from a metav1.LabelSelector, for Scale.status.selector.
std::string SelectorString(const json& sel) {
  std::vector<std::string> parts;
  if (sel.contains("matchLabels") && sel["matchLabels"].is_object()) {
    for (const auto& [k, v] : sel["matchLabels"].items()) parts.push_back(k + "=" + v.get<std::string>());
  }
  if (sel.contains("matchExpressions") && sel["matchExpressions"].is_array()) {
    for (const auto& e : sel["matchExpressions"]) {
      std::string op = e.value("operator", "");
      std::string key = e.value("key", "");
      std::string values;
      if (e.contains("values")) {
        for (const auto& v : e["values"]) values += (values.empty() ? "" : ",") + v.get<std::string>();
      }
      if (op == "In") parts.push_back(key + " in (" + values + ")");
      if (op == "NotIn") parts.push_back(key + " notin (" + values + ")");
      if (op == "Exists") parts.push_back(key);
      if (op == "DoesNotExist") parts.push_back("!" + key);
    }
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

json ScaleOf(const json& obj) {
  json meta = {{"name", Name(obj)},
               {"namespace", Namespace(obj)},
               {"uid", Uid(obj)},
               {"resourceVersion", Str(obj, {"metadata", "resourceVersion"})},
               {"creationTimestamp", Str(obj, {"metadata", "creationTimestamp"})}};
  const json* sel = Find(obj, {"spec", "selector"});
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", meta},
          {"spec", {{"replicas", Int(obj, {"spec", "replicas"}, 1)}}},
          {"status", {{"replicas", Int(obj, {"status", "replicas"}, 0)},
                      {"selector", sel != nullptr ? SelectorString(*sel) : ""}}}};
}

// Removes the "apiVersion" and "kind" members that lead a dumped object
// (nlohmann orders keys, so they come first).
std::string DumpListItem(const json& obj) {
  std::string s = obj.dump();
  for (const char* key : {"{\"apiVersion\":\"", "{\"kind\":\""}) {
    if (s.compare(0, std::strlen(key), key) != 0) continue;
    size_t end = s.find('"', std::strlen(key));
    if (end == std::string::npos || end + 1 >= s.size()) break;
    if (s[end + 1] == ',') s.erase(1, end + 1);  // drop `"key":"value",`
    else break;
  }
  return s;
}

ApiResponse TableResponse(const json& table) {
  ApiResponse resp = JsonResponse(200, table);
  resp.content_type = "application/json;as=Table;v=v1;g=meta.k8s.io";
  return resp;
}

ApiResponse List(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  WatchSpec spec{t.StoreId(), r.ns, {}, {}};
  auto ls = LabelSelector::Parse(req.Param("labelSelector"));
  if (!ls.ok()) return ErrorResponse(ls.error());
  auto fs = FieldSelector::Parse(req.Param("fieldSelector"), t.StoreId());
  if (!fs.ok()) return ErrorResponse(fs.error());
  spec.labels = ls.value();
  spec.fields = fs.value();
  Store& store = sim.store();
  int64_t limit = 0;
  if (std::string l = req.Param("limit"); !l.empty()) {
    limit = std::atoll(l.c_str());
    if (limit < 0) return ErrorResponse(ApiError::BadRequest("limit must be non-negative"));
  }
  uint64_t list_rv = store.ResourceVersion();
  std::string after;
  if (std::string c = req.Param("continue"); !c.empty()) {
    auto raw = Base64Decode(c);
    json tok = raw ? json::parse(*raw, nullptr, false) : json();
    if (!tok.is_object() || !tok.contains("rv") || !tok["rv"].is_number_unsigned() || !tok.contains("start") ||
        !tok["start"].is_string()) {
      return ErrorResponse(ApiError::BadRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"));
    }
    list_rv = tok["rv"].get<uint64_t>();
    if (list_rv < store.CompactedRevision()) {
      return ErrorResponse(ApiError::Expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new "
          "list without the continue parameter."));
    }
    after = tok["start"].get<std::string>();
  }
  std::vector<const json*> matched;
  std::string last_key;
  bool more = false;
  store.ForEach(t.StoreId(), r.ns, after, [&](const std::string& key, const json& obj) {
    if (!spec.Matches(obj)) return true;
    if (limit > 0 && static_cast<int64_t>(matched.size()) == limit) {
      more = true;
      return false;
    }
    matched.push_back(&obj);
    last_key = key;
    return true;
  });
  json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (more) {
    meta["continue"] = Base64UrlEncode(json{{"v", "meta.k8s.io/v1"}, {"rv", list_rv}, {"start", last_key}}.dump());
  }
  if (WantsTable(req.Header("accept"))) return TableResponse(RenderTable(t, matched, sim.Now(), meta, req.Param("includeObject")));
  std::string items;
  for (const json* obj : matched) {
    if (!items.empty()) items += ",";
    items += DumpListItem(*obj);
  }
  ApiResponse resp;
  resp.body = "{\"apiVersion\":" + json(t.ApiVersion(r.version)).dump() + ",\"items\":[" + items +
              "],\"kind\":" + json(t.kind + "List").dump() + ",\"metadata\":" + meta.dump() + "}";
  return resp;
}

// The rules of apiextensions types: a CRD's names, scope and versions
// (custom_resources.h CrdProblems); a custom resource gets its schema's
// defaults and is validated against it (structural_schema.h).
Outcome<bool> ValidateCustom(const ResourceType& t, json& obj) {
  std::vector<std::string> problems;
  if (t.StoreId() == kCrds) {
    problems = CrdProblems(obj);
  } else if (t.custom != nullptr) {
    const json& schema = t.custom->Schema(t.versions[0]);
    ApplyDefaults(schema, obj);
    problems = ValidateAgainstSchema(schema, obj);
  }
  if (problems.empty()) return true;
  return ApiError::InvalidFields(t.group, t.kind, Name(obj), problems);
}

// The managedFields entry a write through `r` records (managed_fields.h).
ManagedWrite WriteBy(const Route& r, const ApiRequest& req) {
  return {FieldManagerOf(req.Param("fieldManager"), req.Header("user-agent")), "Update",
          r.type->ApiVersion(r.version), r.subresource};
}

// Applies the subresource rules and commits `candidate` over `existing`;
// `by` is recorded in managedFields (a candidate without any keeps the
// existing ones).
Outcome<json> Commit(Simulator& sim, const Route& r, const json& existing, json candidate, bool dry_run,
                     const ManagedWrite& by) {
  const ResourceType& t = *r.type;
  if (Name(candidate) != r.name) {
    return ApiError::BadRequest("the name of the object (" + Name(candidate) +
                                ") does not match the name on the URL (" + r.name + ")");
  }
  if (t.namespaced && Namespace(candidate) != r.ns) {
    return ApiError::BadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  candidate["apiVersion"] = t.ApiVersion(t.versions[0]);
  candidate["kind"] = t.kind;
  if (r.subresource == "status") {
    json merged = existing;
    if (candidate.contains("status")) merged["status"] = candidate["status"];
    else merged.erase("status");
    merged["metadata"]["resourceVersion"] = Str(candidate, {"metadata", "resourceVersion"});
    candidate = std::move(merged);
  } else if (t.HasStatus()) {
    if (existing.contains("status")) candidate["status"] = existing["status"];
    else candidate.erase("status");
  }
  if (!candidate["metadata"].contains("managedFields")) {
    if (const json* mf = Find(existing, {"metadata", "managedFields"})) candidate["metadata"]["managedFields"] = *mf;
  }
  RecordManagedFields(candidate, by, sim.Now());
  if (r.subresource.empty()) ApplyAppsDefaults(t.plural, &candidate);
  auto valid = ValidateUpdate(t, existing, candidate);
  if (!valid.ok()) return valid.error();
  if (auto crd = ValidateCustom(t, candidate); !crd.ok()) return crd.error();
  if (dry_run) {
    std::string want = Str(candidate, {"metadata", "resourceVersion"});
    if (!want.empty() && want != Str(existing, {"metadata", "resourceVersion"})) {
      return ApiError::Conflict(t.group, t.plural, r.name,
                                "the object has been modified; please apply your changes to the latest version and try again");
    }
    return candidate;
  }
  auto updated = sim.store().Update(t.StoreId(), std::move(candidate));
  if (updated.ok()) sim.AfterWrite();
  return updated;
}

// `apply`: the managedFields entry of a server-side apply that creates.
ApiResponse Create(Simulator& sim, const Route& r, const ApiRequest& req, const ManagedWrite* apply = nullptr) {
  const ResourceType& t = *r.type;
  auto parsed = ParseBody(req);
  if (!parsed.ok()) return ErrorResponse(parsed.error());
  json obj = std::move(parsed).value();
  auto warnings = CheckWrite(r, req, obj, nullptr, WriteKind::kCreate);
  if (!warnings.ok()) return ErrorResponse(warnings.error());
  Store& store = sim.store();
  if (!obj["metadata"].is_object()) obj["metadata"] = json::object();
  json& meta = obj["metadata"];
  if (t.namespaced) {
    std::string ns = meta.value("namespace", "");
    if (ns.empty()) meta["namespace"] = r.ns;
    else if (ns != r.ns) {
      return ErrorResponse(ApiError::BadRequest("the namespace of the provided object does not match the namespace sent on the request"));
    }
    if (store.Get(kNamespaces, "", r.ns) == nullptr) return ErrorResponse(ApiError::NotFound("", "namespaces", r.ns));
  } else {
    meta.erase("namespace");
  }
  if (meta.value("name", "").empty() && !meta.value("generateName", "").empty()) {
    std::string name;
    do {
      name = meta["generateName"].get<std::string>() + RandomSuffix(store.rng(), 5);
    } while (store.Get(t.StoreId(), r.ns, name) != nullptr);
    meta["name"] = name;
  }
  for (const char* f : {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "generation"}) meta.erase(f);
  obj["apiVersion"] = t.ApiVersion(t.versions[0]);
  obj["kind"] = t.kind;
  if (t.plural == "pods") {
    json& spec = obj["spec"];
    if (!spec.is_object()) spec = json::object();
    if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
    if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
    if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
    if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
    obj["status"] = {{"phase", "Pending"}};
  } else if (t.plural == "namespaces") {
    obj["status"] = {{"phase", "Active"}};
    obj["metadata"]["labels"]["kubernetes.io/metadata.name"] = Name(obj);
  } else if (t.HasStatus() && t.plural != "nodes") {
    obj.erase("status");
  }
  RecordManagedFields(obj, apply != nullptr ? *apply : WriteBy(r, req), sim.Now());
  ApplyAppsDefaults(t.plural, &obj);
  auto valid = ValidateCreate(t, obj);
  if (!valid.ok()) return ErrorResponse(valid.error());
  if (auto crd = ValidateCustom(t, obj); !crd.ok()) return ErrorResponse(crd.error());
  if (t.custom != nullptr) obj["metadata"]["generation"] = 1;  // CRs have one with or without a spec
  if (DryRun(req)) {
    if (store.Get(t.StoreId(), r.ns, Name(obj)) != nullptr) {
      return ErrorResponse(ApiError::AlreadyExists(t.group, t.plural, Name(obj)));
    }
    return WithWarnings(JsonResponse(201, ServedObject(obj, t, r.version)), warnings.value());
  }
  auto created = store.Create(t.StoreId(), std::move(obj));
  if (!created.ok()) return ErrorResponse(created.error());
  sim.AfterWrite();
  return WithWarnings(JsonResponse(201, ServedObject(created.value(), t, r.version)), warnings.value());
}

ApiResponse Update(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  const json* existing = sim.store().Get(t.StoreId(), r.ns, r.name);
  if (existing == nullptr) return ErrorResponse(ApiError::NotFound(t.group, t.plural, r.name));
  auto parsed = ParseBody(req);
  if (!parsed.ok()) return ErrorResponse(parsed.error());
  json body = std::move(parsed).value();
  if (!body["metadata"].is_object()) body["metadata"] = json::object();
  if (t.namespaced && body["metadata"].value("namespace", "").empty()) body["metadata"]["namespace"] = r.ns;
  json current = *existing;
  if (r.subresource == "scale") {
    if (!body.contains("spec") || !body["spec"].contains("replicas") || !body["spec"]["replicas"].is_number_integer() ||
        body["spec"]["replicas"].get<int64_t>() < 0) {
      return ErrorResponse(ApiError::Invalid("autoscaling", "Scale", r.name, "spec.replicas: Invalid value: must be greater than or equal to 0"));
    }
    json parent = current;
    parent["spec"]["replicas"] = body["spec"]["replicas"];
    parent["metadata"]["resourceVersion"] = Str(body, {"metadata", "resourceVersion"});
    Route main = r;
    main.subresource.clear();
    auto out = Commit(sim, main, current, std::move(parent), DryRun(req), WriteBy(r, req));
    if (!out.ok()) return ErrorResponse(out.error());
    return JsonResponse(200, ScaleOf(out.value()));
  }
  auto warnings = CheckWrite(r, req, body, current, WriteKind::kUpdate);
  if (!warnings.ok()) return ErrorResponse(warnings.error());
  auto out = Commit(sim, r, current, std::move(body), DryRun(req), WriteBy(r, req));
  if (!out.ok()) return ErrorResponse(out.error());
  return WithWarnings(JsonResponse(200, ServedObject(out.value(), t, r.version)), warnings.value());
}

// An apply patch body: JSON (what kubectl sends; YAML that is not JSON is
// refused with 400).
Outcome<json> ApplyBody(const std::string& body) {
  json obj = json::parse(body, nullptr, false);
  if (obj.is_discarded() || !obj.is_object()) {
    return ApiError::BadRequest("kube-sim reads apply patches as JSON objects; the body is not one");
  }
  return obj;
}

bool IsApplyPatch(const std::string& content_type) {
  return content_type.substr(0, content_type.find(';')) == "application/apply-patch+yaml";
}

// The 415 of a strategic merge patch (or unknown type) on a custom resource.
ApiError CustomUnsupportedMediaType(const std::string& content_type) {
  ApiError e = ApiError::UnsupportedMediaType(content_type);
  e.message = "the body of the request was in an unknown format - accepted media types include: "
              "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
  return e;
}

// Server-side apply (application/apply-patch+yaml, kubectl apply
// --server-side), kept simple: the applied configuration is created when
// the object is absent, else merged into it as a JSON merge patch; fields
// the manager stopped applying are not removed and no ownership conflicts
// are computed (managed_fields.h tracks no fields).  The managedFields
// entry has operation Apply.
ApiResponse Apply(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  if (req.Param("fieldManager").empty()) {
    return ErrorResponse(ApiError::InvalidFields(t.group, t.kind, r.name,
                                                 {"fieldManager: Required value: is required for apply patch"}));
  }
  auto applied = ApplyBody(req.body);
  if (!applied.ok()) return ErrorResponse(applied.error());
  json config = std::move(applied).value();
  if (!config["metadata"].is_object()) config["metadata"] = json::object();
  if (config["metadata"].value("name", "") != r.name) {
    return ErrorResponse(ApiError::BadRequest("metadata.name: the applied object's name must match the URL (" + r.name + ")"));
  }
  ManagedWrite by = WriteBy(r, req);
  by.operation = "Apply";
  const json* existing = sim.store().Get(t.StoreId(), r.ns, r.name);
  if (existing == nullptr) {
    if (!r.subresource.empty()) return ErrorResponse(ApiError::NotFound(t.group, t.plural, r.name));
    ApiRequest create = req;
    create.body = config.dump();
    create.headers["content-type"] = "application/json";
    Route collection = r;
    collection.name.clear();
    return Create(sim, collection, create, &by);
  }
  json current = *existing;
  config.erase("apiVersion");
  config.erase("kind");
  config["metadata"].erase("resourceVersion");
  json candidate = MergePatch(ServedObject(current, t, r.version), config);
  auto warnings = CheckWrite(r, req, candidate, current, WriteKind::kOtherPatch);
  if (!warnings.ok()) return ErrorResponse(warnings.error());
  auto out = Commit(sim, r, current, std::move(candidate), DryRun(req), by);
  if (!out.ok()) return ErrorResponse(out.error());
  return WithWarnings(JsonResponse(200, ServedObject(out.value(), t, r.version)), warnings.value());
}

ApiResponse Patch(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  if (IsApplyPatch(req.Header("content-type"))) return Apply(sim, r, req);
  const json* existing = sim.store().Get(t.StoreId(), r.ns, r.name);
  if (existing == nullptr) return ErrorResponse(ApiError::NotFound(t.group, t.plural, r.name));
  auto type = PatchTypeFromContentType(req.Header("content-type"));
  if (!type || (t.custom != nullptr && *type == PatchType::kStrategicMerge)) {
    return ErrorResponse(t.custom != nullptr ? CustomUnsupportedMediaType(req.Header("content-type"))
                                             : ApiError::UnsupportedMediaType(req.Header("content-type")));
  }
  json current = *existing;
  if (r.subresource == "scale") {
    auto patched = ApplyPatch(*type, ScaleOf(current), req.body);
    if (!patched.ok()) return ErrorResponse(patched.error());
    ApiRequest put = req;
    put.body = patched.value().dump();
    put.headers["content-type"] = "application/json";
    return Update(sim, r, put);
  }
  auto patched = ApplyPatch(*type, ServedObject(current, t, r.version), req.body);
  if (!patched.ok()) return ErrorResponse(patched.error());
  json candidate = std::move(patched).value();
  if (!candidate.is_object() || Name(candidate) != r.name) {
    return ErrorResponse(ApiError::BadRequest("metadata.name: the patch may not change the object's name"));
  }
  auto warnings = CheckWrite(r, req, candidate, current,
                             *type == PatchType::kStrategicMerge ? WriteKind::kStrategicPatch : WriteKind::kOtherPatch);
  if (!warnings.ok()) return ErrorResponse(warnings.error());
  auto out = Commit(sim, r, current, std::move(candidate), DryRun(req), WriteBy(r, req));
  if (!out.ok()) return ErrorResponse(out.error());
  return WithWarnings(JsonResponse(200, ServedObject(out.value(), t, r.version)), warnings.value());
}

bool CanOwn(const std::string& store_id) {
  return store_id != kPods && store_id != kEvents && store_id != kConfigMaps;
}

// Deletes (or orphans) everything that `uid` owned, recursively; pods are
// deleted gracefully (pod_deletion.h).
void Cascade(Store& store, const std::string& uid, bool orphan, TimePoint now) {
  std::vector<std::pair<std::string, json>> dependents;
  for (const auto& id : store.StoreIds()) {
    store.ForEach(id, "", "", [&](const std::string&, const json& o) {
      const json* refs = Find(o, {"metadata", "ownerReferences"});
      if (refs == nullptr || !refs->is_array()) return true;
      for (const auto& ref : *refs) {
        if (ref.value("uid", "") == uid) {
          dependents.emplace_back(id, o);
          break;
        }
      }
      return true;
    });
  }
  for (auto& [id, o] : dependents) {
    json refs = json::array();
    for (const auto& ref : o["metadata"]["ownerReferences"]) {
      if (ref.value("uid", "") != uid) refs.push_back(ref);
    }
    if (orphan || !refs.empty()) {
      if (refs.empty()) o["metadata"].erase("ownerReferences");
      else o["metadata"]["ownerReferences"] = refs;
      (void)store.Update(id, o);
      continue;
    }
    if (id == kPods) {
      (void)DeletePod(store, Namespace(o), Name(o), std::nullopt, now);
      continue;
    }
    auto deleted = store.Delete(id, Namespace(o), Name(o));
    if (deleted.ok() && CanOwn(id)) Cascade(store, Uid(o), false, now);
  }
}

ApiResponse Delete(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  Store& store = sim.store();
  const json* existing = store.Get(t.StoreId(), r.ns, r.name);
  if (existing == nullptr) return ErrorResponse(ApiError::NotFound(t.group, t.plural, r.name));
  json opts = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
  if (opts.is_discarded() || !opts.is_object()) return ErrorResponse(ApiError::BadRequest("DeleteOptions body is not a JSON object"));
  std::string propagation = req.Param("propagationPolicy");
  if (propagation.empty()) propagation = opts.value("propagationPolicy", "Background");
  bool dry_run = DryRun(req) || (opts.contains("dryRun") && opts["dryRun"].is_array() && !opts["dryRun"].empty());
  std::string want_rv = Str(opts, {"preconditions", "resourceVersion"});
  if (!want_rv.empty() && want_rv != Str(*existing, {"metadata", "resourceVersion"})) {
    return ErrorResponse(ApiError::Conflict(t.group, t.plural, r.name,
                                            "Precondition failed: ResourceVersion in precondition: " + want_rv +
                                                ", ResourceVersion in object meta: " +
                                                Str(*existing, {"metadata", "resourceVersion"})));
  }
  std::string want_uid = Str(opts, {"preconditions", "uid"});
  if (dry_run) {
    if (!want_uid.empty() && want_uid != Uid(*existing)) {
      return ErrorResponse(ApiError::Conflict(t.group, t.plural, r.name, "Precondition failed: UID in precondition: " + want_uid));
    }
    return JsonResponse(200, ServedObject(*existing, t, r.version));
  }
  if (t.plural == "namespaces") {
    for (const ResourceType* rt : ServedResources(&sim.custom_types())) {
      if (!rt->namespaced) continue;
      for (const json& o : store.List(rt->StoreId(), r.name)) (void)store.Delete(rt->StoreId(), r.name, Name(o));
    }
  }
  if (t.StoreId() == kPods) {
    std::optional<int64_t> grace = GraceFromOptions(opts);
    if (std::string g = req.Param("gracePeriodSeconds"); !g.empty()) grace = std::atoll(g.c_str());
    auto pod = DeletePod(store, r.ns, r.name, grace, sim.Now(), want_uid);
    if (!pod.ok()) return ErrorResponse(pod.error());
    sim.AfterWrite();
    return JsonResponse(200, ServedObject(pod.value(), t, r.version));
  }
  auto deleted = store.Delete(t.StoreId(), r.ns, r.name, want_uid);
  if (!deleted.ok()) return ErrorResponse(deleted.error());
  if (CanOwn(t.StoreId())) Cascade(store, Uid(deleted.value()), propagation == "Orphan", sim.Now());
  sim.AfterWrite();
  return JsonResponse(200, ServedObject(deleted.value(), t, r.version));
}

ApiResponse DeleteCollection(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  auto ls = LabelSelector::Parse(req.Param("labelSelector"));
  if (!ls.ok()) return ErrorResponse(ls.error());
  auto fs = FieldSelector::Parse(req.Param("fieldSelector"), t.StoreId());
  if (!fs.ok()) return ErrorResponse(fs.error());
  WatchSpec spec{t.StoreId(), r.ns, ls.value(), fs.value()};
  Store& store = sim.store();
  json items = json::array();
  for (const json& o : store.List(t.StoreId(), r.ns)) {
    if (!spec.Matches(o)) continue;
    if (DryRun(req)) {
      items.push_back(o);
      continue;
    }
    auto d = t.StoreId() == kPods ? DeletePod(store, Namespace(o), Name(o), std::nullopt, sim.Now())
                                  : store.Delete(t.StoreId(), Namespace(o), Name(o));
    if (!d.ok()) continue;
    if (CanOwn(t.StoreId())) Cascade(store, Uid(d.value()), false, sim.Now());
    items.push_back(d.value());
  }
  if (!DryRun(req)) sim.AfterWrite();
  return JsonResponse(200, {{"apiVersion", t.ApiVersion(r.version)},
                            {"kind", t.kind + "List"},
                            {"metadata", {{"resourceVersion", std::to_string(store.ResourceVersion())}}},
                            {"items", items}});
}

ApiResponse Evict(Simulator& sim, const Route& r, const ApiRequest& req) {
  json body = req.body.empty() ? json() : json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return ErrorResponse(ApiError::BadRequest("the Eviction body is not valid JSON"));
  auto out = EvictPod(sim.store(), sim.faults(), r.ns, r.name, body, DryRun(req), sim.Now());
  if (!out.ok()) return ErrorResponse(out.error());
  if (!DryRun(req)) sim.AfterWrite();
  return JsonResponse(201, out.value());
}

}  // namespace

ApiResponse ErrorResponse(const ApiError& e) { return JsonResponse(e.code, e.ToStatus()); }

ApiResponse JsonResponse(int status, const json& body) {
  ApiResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

json ServedObject(json obj, const ResourceType& type, const std::string& version) {
  obj["apiVersion"] = type.ApiVersion(version);
  obj["kind"] = type.kind;
  return obj;
}

ApiResponse RestHandle(Simulator& sim, const Route& r, const ApiRequest& req) {
  const ResourceType& t = *r.type;
  const std::string& m = req.method;
  const Subresource* sub = r.subresource.empty() ? nullptr : t.FindSubresource(r.subresource);
  auto not_allowed = [&] {
    return ErrorResponse(ApiError::MethodNotAllowed("the server does not allow this method on the requested resource"));
  };
  if (r.subresource == "eviction") return m == "POST" ? Evict(sim, r, req) : not_allowed();
  if (sub != nullptr && std::find(sub->verbs.begin(), sub->verbs.end(), m == "GET" ? "get" : m == "PUT" ? "update" : m == "PATCH" ? "patch" : "?") == sub->verbs.end()) {
    return not_allowed();
  }
  if (r.name.empty()) {
    if (m == "GET") return List(sim, r, req);
    if (m == "POST") return Create(sim, r, req);
    if (m == "DELETE") return DeleteCollection(sim, r, req);
    return not_allowed();
  }
  if (m == "GET") {
    const json* obj = sim.store().Get(t.StoreId(), r.ns, r.name);
    if (obj == nullptr) return ErrorResponse(ApiError::NotFound(t.group, t.plural, r.name));
    if (r.subresource == "scale") return JsonResponse(200, ScaleOf(*obj));
    if (WantsTable(req.Header("accept"))) {
      json meta = {{"resourceVersion", Str(*obj, {"metadata", "resourceVersion"})}};
      return TableResponse(RenderTable(t, {obj}, sim.Now(), meta, req.Param("includeObject")));
    }
    return JsonResponse(200, ServedObject(*obj, t, r.version));
  }
  if (m == "PUT") return Update(sim, r, req);
  if (m == "PATCH") return Patch(sim, r, req);
  if (m == "DELETE" && r.subresource.empty()) return Delete(sim, r, req);
  return not_allowed();
}

}  // namespace kubeon::kubesim
