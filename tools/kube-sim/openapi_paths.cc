// See openapi_paths.h.
#include "openapi_paths.h"

#include <cctype>

#include "resources.h"

namespace kubeon::kubesim {

namespace {

std::string Pascal(const std::string& s) {
  std::string out;
  bool up = true;
  for (char c : s) {
    if (c == '.' || c == '-') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

OpenApiParam Query(const std::string& name, const std::string& type, const std::string& description) {
  return {name, "query", type, false, description};
}

const OpenApiParam kPretty = Query("pretty", "string", "If 'true', then the output is pretty printed.");
const OpenApiParam kDryRun = Query("dryRun", "string", "When present, indicates that modifications should not be persisted. Valid values: All.");
const OpenApiParam kFieldManager = Query("fieldManager", "string", "A name associated with the actor or entity that is making these changes.");
const OpenApiParam kFieldValidation = Query(
    "fieldValidation", "string",
    "How the server handles fields in the request that the schema does not know: Ignore drops them, Warn "
    "drops them with a Warning header per field (the default), Strict rejects the request.");

std::vector<OpenApiParam> WriteParams(bool patch) {
  std::vector<OpenApiParam> p = {kDryRun, kFieldManager, kFieldValidation};
  if (patch) p.push_back(Query("force", "boolean", "Force is going to \"force\" Apply requests."));
  return p;
}

std::vector<OpenApiParam> ListParams(bool watch_params) {
  std::vector<OpenApiParam> p = {Query("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
                                 Query("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."),
                                 Query("limit", "integer", "The maximum number of objects to return."),
                                 Query("continue", "string", "The continue token of the previous page."),
                                 Query("resourceVersion", "string", "The resource version to list or watch from.")};
  if (watch_params) {
    p.push_back(Query("watch", "boolean", "Watch for changes and return them as a stream of events."));
    p.push_back(Query("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events."));
    p.push_back(Query("timeoutSeconds", "integer", "Timeout for the list/watch call."));
    p.push_back(Query("sendInitialEvents", "boolean", "Begin a watch with synthetic events of the current state."));
  }
  return p;
}

const std::vector<std::string> kJsonBody = {"*/*"};
const std::vector<std::string> kBuiltinPatch = {"application/json-patch+json", "application/merge-patch+json",
                                                "application/strategic-merge-patch+json", "application/apply-patch+yaml"};
const std::vector<std::string> kCustomPatch = {"application/json-patch+json", "application/merge-patch+json",
                                               "application/apply-patch+yaml"};

struct Builder {
  const ResourceType& type;
  std::string version;
  GroupVersionKind gvk;
  std::string def;  // full definition name of the kind
  std::string tag;
  std::string prefix;  // "/api/v1" or "/apis/apps/v1"

  OpenApiOperation Op(const std::string& method, const std::string& verb, const std::string& action,
                      bool namespaced, const std::string& suffix) const {
    OpenApiOperation op;
    op.method = method;
    op.action = action;
    op.tag = tag;
    op.gvk = gvk;
    op.operation_id = verb + Pascal(type.group.empty() ? "core" : type.group) + Pascal(version) +
                      (namespaced ? "Namespaced" : "") + type.kind + suffix;
    op.response = def;
    op.params = {kPretty};
    return op;
  }
  void Write(OpenApiOperation& op, bool patch) const {
    for (auto& p : WriteParams(patch)) op.params.push_back(p);
    op.body = patch ? "io.k8s.apimachinery.pkg.apis.meta.v1.Patch" : op.response;
    op.consumes = !patch ? kJsonBody : type.custom != nullptr ? kCustomPatch : kBuiltinPatch;
  }
};

void AddType(const ResourceType& t, const std::string& version, const std::string& def_name,
             std::vector<OpenApiPath>& out) {
  const OpenApiSchema& schema = OpenApiSchema::Builtin();
  GroupVersionKind gvk{t.group, version, t.kind};
  std::string gv = t.ApiVersion(version);
  Builder b{t, version, gvk, def_name, (t.group.empty() ? "core" : t.group) + "_" + version,
            t.group.empty() ? "/api/" + version : "/apis/" + gv};
  const OpenApiParam ns_param{"namespace", "path", "string", true, "object name and auth scope, such as for teams and projects"};
  const OpenApiParam name_param{"name", "path", "string", true, "name of the " + t.kind};
  std::string base = b.prefix + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural;

  OpenApiPath collection{base, gv, {}, {}};
  if (t.namespaced) collection.params.push_back(ns_param);
  OpenApiOperation list = b.Op("get", "list", "list", t.namespaced, "");
  for (auto& p : ListParams(true)) list.params.push_back(p);
  OpenApiOperation create = b.Op("post", "create", "post", t.namespaced, "");
  b.Write(create, false);
  OpenApiOperation del_all = b.Op("delete", "deleteCollection", "deletecollection", t.namespaced, "");
  for (auto& p : ListParams(false)) del_all.params.push_back(p);
  del_all.params.push_back(kDryRun);
  collection.operations = {list, create, del_all};
  out.push_back(collection);

  if (t.namespaced) {
    OpenApiPath all{b.prefix + "/" + t.plural, gv, {}, {}};
    OpenApiOperation list_all = b.Op("get", "list", "list", false, "ForAllNamespaces");
    for (auto& p : ListParams(true)) list_all.params.push_back(p);
    all.operations = {list_all};
    out.push_back(all);
  }

  OpenApiPath item{base + "/{name}", gv, collection.params, {}};
  item.params.push_back(name_param);
  OpenApiOperation read = b.Op("get", "read", "get", t.namespaced, "");
  OpenApiOperation replace = b.Op("put", "replace", "put", t.namespaced, "");
  b.Write(replace, false);
  OpenApiOperation patch = b.Op("patch", "patch", "patch", t.namespaced, "");
  b.Write(patch, true);
  OpenApiOperation del = b.Op("delete", "delete", "delete", t.namespaced, "");
  del.params.push_back(kDryRun);
  del.params.push_back(Query("propagationPolicy", "string", "Orphan, Background or Foreground."));
  del.body = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
  del.consumes = kJsonBody;
  item.operations = {read, replace, patch, del};
  out.push_back(item);

  for (const auto& sub : t.subresources) {
    OpenApiPath p{base + "/{name}/" + sub.name, gv, item.params, {}};
    std::string suffix = Pascal(sub.name);
    Builder sb = b;
    if (!sub.kind.empty()) {
      sb.gvk = {sub.group, sub.version.empty() ? version : sub.version, sub.kind};
      const SchemaDefinition* sd = schema.ForKind(sb.gvk);
      if (sd == nullptr) continue;
      sb.def = sd->name;
    }
    if (sub.name == "eviction") {
      OpenApiOperation evict = sb.Op("post", "create", "post", t.namespaced, suffix);
      sb.Write(evict, false);
      p.operations = {evict};
    } else {
      OpenApiOperation r = sb.Op("get", "read", "get", t.namespaced, suffix);
      OpenApiOperation u = sb.Op("put", "replace", "put", t.namespaced, suffix);
      sb.Write(u, false);
      OpenApiOperation pa = sb.Op("patch", "patch", "patch", t.namespaced, suffix);
      sb.Write(pa, true);
      p.operations = {r, u, pa};
    }
    out.push_back(p);
  }
}

std::vector<OpenApiPath> Build() {
  std::vector<OpenApiPath> out;
  const OpenApiSchema& schema = OpenApiSchema::Builtin();
  for (const auto& t : AllResources()) {
    for (const auto& v : t.versions) {
      const SchemaDefinition* def = schema.ForKind({t.group, v, t.kind});
      if (def == nullptr) continue;  // openapi_schema_test checks every served kind has one
      AddType(t, v, def->name, out);
    }
  }
  return out;
}

}  // namespace

std::vector<OpenApiPath> OpenApiPathsOf(const ResourceType& type, const std::string& version, const std::string& def) {
  std::vector<OpenApiPath> out;
  AddType(type, version, def, out);
  return out;
}

const std::vector<OpenApiPath>& OpenApiPaths() {
  static const std::vector<OpenApiPath> paths = Build();
  return paths;
}

json OpenApiParamJson(const OpenApiParam& p, bool v3) {
  json j = {{"name", p.name}, {"in", p.in}};
  json type = {{"type", p.type}, {"uniqueItems", true}};
  if (v3) j["schema"] = type;
  else j.update(type);
  if (p.required) j["required"] = true;
  if (!p.description.empty()) j["description"] = p.description;
  return j;
}

json OpenApiOperationJson(const OpenApiOperation& op, bool v3) {
  json params = json::array();
  for (const auto& p : op.params) params.push_back(OpenApiParamJson(p, v3));
  return {{"description", op.action + " " + op.gvk.kind},
          {"operationId", op.operation_id},
          {"tags", {op.tag}},
          {"parameters", params},
          {"x-kubernetes-action", op.action},
          {"x-kubernetes-group-version-kind",
           {{"group", op.gvk.group}, {"kind", op.gvk.kind}, {"version", op.gvk.version}}}};
}

std::string OpenApiV3Key(const std::string& group_version) {
  return group_version.find('/') == std::string::npos ? "api/" + group_version : "apis/" + group_version;
}

}  // namespace kubeon::kubesim
