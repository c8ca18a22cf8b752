// Tests for custom_resources.h, crd_controller.h and the REST behaviour of
// custom resources, through the in-process Api: CRD lifecycle and status,
// discovery, CR create/get/list/watch/update/patch/delete, generation, the
// status subresource, Table output with printer columns, server-side apply.
#include "custom_resources.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

// A CRD of group example.kubeon.io; `scope` Cluster or Namespaced.
json Crd(const std::string& plural, const std::string& kind, const std::string& scope, bool status) {
  json version = {{"name", "v1"},
                  {"served", true},
                  {"storage", true},
                  {"schema", {{"openAPIV3Schema", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}},
                  {"additionalPrinterColumns",
                   json::array({{{"name", "Mode"}, {"type", "string"}, {"jsonPath", ".spec.mode"}},
                                {{"name", "Ready"},
                                 {"type", "string"},
                                 {"jsonPath", ".status.conditions[?(@.type==\"Ready\")].status"}},
                                {{"name", "Size"}, {"type", "integer"}, {"jsonPath", ".spec.size"}, {"priority", 1}},
                                {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}}})}};
  if (status) version["subresources"] = {{"status", json::object()}};
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", plural + ".example.kubeon.io"}}},
          {"spec",
           {{"group", "example.kubeon.io"},
            {"scope", scope},
            {"names", {{"plural", plural}, {"kind", kind}, {"shortNames", {plural.substr(0, 3)}}, {"categories", {"kubeon"}}}},
            {"versions", json::array({version})}}}};
}

class CustomResourcesTest : public ::testing::Test {
 protected:
  ApiResponse Call(const std::string& method, const std::string& target, const std::string& body = "",
                   const std::string& content_type = "application/json") {
    return api.Handle(testing::TestRequest(method, target, body, content_type));
  }
  json Json(const std::string& method, const std::string& target, int want_status, const std::string& body = "",
            const std::string& content_type = "application/json") {
    ApiResponse r = Call(method, target, body, content_type);
    EXPECT_EQ(r.status, want_status) << method << " " << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  void CreateCrd(const json& crd) {
    Json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", 201, crd.dump());
  }

  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

const char* kWidgets = "/apis/example.kubeon.io/v1/widgets";

TEST_F(CustomResourcesTest, NotServedUntilItsCrdExists) {
  EXPECT_EQ(Json("GET", kWidgets, 404)["reason"], "NotFound");
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  json list = Json("GET", kWidgets, 200);
  EXPECT_EQ(list["kind"], "WidgetList");
  EXPECT_EQ(list["apiVersion"], "example.kubeon.io/v1");
  EXPECT_TRUE(list["items"].empty());
}

TEST_F(CustomResourcesTest, CrdStatusIsEstablished) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  json crd = Json("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeon.io", 200);
  std::map<std::string, std::string> conds;
  for (const auto& c : crd["status"]["conditions"]) conds[c["type"]] = c["status"];
  EXPECT_EQ(conds["Established"], "True");
  EXPECT_EQ(conds["NamesAccepted"], "True");
  EXPECT_EQ(crd["status"]["acceptedNames"]["kind"], "Widget");
  EXPECT_EQ(crd["status"]["acceptedNames"]["singular"], "widget");
  EXPECT_EQ(crd["status"]["acceptedNames"]["listKind"], "WidgetList");
  EXPECT_EQ(crd["status"]["storedVersions"], json::array({"v1"}));
}

TEST_F(CustomResourcesTest, InvalidCrdsAreRejectedWithTheFieldNamed) {
  json bad = Crd("widgets", "Widget", "Sometimes", true);
  bad["metadata"]["name"] = "gadgets.example.kubeon.io";
  json s = Json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", 422, bad.dump());
  EXPECT_EQ(s["reason"], "Invalid");
  std::set<std::string> fields;
  for (const auto& c : s["details"]["causes"]) fields.insert(c["field"]);
  EXPECT_EQ(fields, (std::set<std::string>{"spec.scope", "metadata.name"}));
  EXPECT_NE(s["message"].get<std::string>().find("spec.scope: Unsupported value: \"Sometimes\""), std::string::npos);
}

TEST_F(CustomResourcesTest, ANameTakenByABuiltInIsNotAccepted) {
  json crd = Crd("widgets", "Widget", "Cluster", false);
  crd["metadata"]["name"] = "leases.coordination.k8s.io";
  crd["spec"]["group"] = "coordination.k8s.io";
  crd["spec"]["names"]["plural"] = "leases";
  CreateCrd(crd);
  json got = Json("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/leases.coordination.k8s.io", 200);
  EXPECT_EQ(got["status"]["conditions"][0]["type"], "NamesAccepted");
  EXPECT_EQ(got["status"]["conditions"][0]["status"], "False");
  EXPECT_EQ(got["status"]["conditions"][0]["reason"], "NameConflict");
  EXPECT_EQ(Json("GET", "/apis/coordination.k8s.io/v1/leases", 200)["kind"], "LeaseList");
}

TEST_F(CustomResourcesTest, Discovery) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  bool group = false;
  const json groups = Json("GET", "/apis", 200)["groups"];
  for (const auto& g : groups) {
    if (g["name"] == "example.kubeon.io") group = g["preferredVersion"]["groupVersion"] == "example.kubeon.io/v1";
  }
  EXPECT_TRUE(group);
  json list = Json("GET", "/apis/example.kubeon.io/v1", 200);
  ASSERT_EQ(list["resources"].size(), 2u);
  const json& r = list["resources"][0];
  EXPECT_EQ(r["name"], "widgets");
  EXPECT_EQ(r["singularName"], "widget");
  EXPECT_EQ(r["kind"], "Widget");
  EXPECT_EQ(r["namespaced"], false);
  EXPECT_EQ(r["shortNames"], json::array({"wid"}));
  EXPECT_EQ(r["categories"], json::array({"kubeon"}));
  EXPECT_EQ(list["resources"][1]["name"], "widgets/status");
  EXPECT_EQ(Json("GET", "/apis/example.kubeon.io", 200)["kind"], "APIGroup");
}

TEST_F(CustomResourcesTest, CrudGenerationAndConflicts) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  json w = Json("POST", kWidgets, 201,
                R"({"apiVersion": "example.kubeon.io/v1", "kind": "Widget", "metadata": {"name": "a", "labels": {"t": "x"}},
                    "spec": {"mode": "Auto"}, "status": {"phase": "ignored"}})");
  EXPECT_EQ(w["metadata"]["generation"], 1);
  EXPECT_FALSE(w.contains("status"));  // the status subresource owns it
  EXPECT_EQ(w["kind"], "Widget");
  Json("POST", kWidgets, 201, R"({"metadata": {"name": "b"}})");
  EXPECT_EQ(Json("POST", kWidgets, 409, R"({"metadata": {"name": "b"}})")["reason"], "AlreadyExists");
  EXPECT_EQ(Json("GET", std::string(kWidgets) + "?labelSelector=t%3Dx", 200)["items"].size(), 1u);
  json page = Json("GET", std::string(kWidgets) + "?limit=1", 200);
  ASSERT_EQ(page["items"].size(), 1u);
  std::string cont = page["metadata"]["continue"];
  EXPECT_EQ(Json("GET", std::string(kWidgets) + "?limit=1&continue=" + cont, 200)["items"][0]["metadata"]["name"], "b");

  // A metadata-only change keeps generation; a spec change bumps it.
  json labelled = Json("PATCH", std::string(kWidgets) + "/a", 200, R"({"metadata": {"labels": {"u": "y"}}})",
                       "application/merge-patch+json");
  EXPECT_EQ(labelled["metadata"]["generation"], 1);
  json patched = Json("PATCH", std::string(kWidgets) + "/a", 200, R"([{"op": "replace", "path": "/spec/mode", "value": "Approve"}])",
                      "application/json-patch+json");
  EXPECT_EQ(patched["metadata"]["generation"], 2);
  EXPECT_EQ(Json("PATCH", std::string(kWidgets) + "/a", 415, R"({"spec": {"mode": "x"}})",
                 "application/strategic-merge-patch+json")["reason"], "UnsupportedMediaType");

  json stale = labelled;
  stale["spec"]["mode"] = "Proposal";
  EXPECT_EQ(Json("PUT", std::string(kWidgets) + "/a", 409, stale.dump())["reason"], "Conflict");
  json fresh = patched;
  fresh["spec"]["mode"] = "Proposal";
  EXPECT_EQ(Json("PUT", std::string(kWidgets) + "/a", 200, fresh.dump())["metadata"]["generation"], 3);

  Json("DELETE", std::string(kWidgets) + "/a", 200);
  Json("GET", std::string(kWidgets) + "/a", 404);
}

TEST_F(CustomResourcesTest, StatusSubresource) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  Json("POST", kWidgets, 201, R"({"metadata": {"name": "a"}, "spec": {"mode": "Auto"}})");
  json st = Json("PATCH", std::string(kWidgets) + "/a/status", 200,
                 R"({"spec": {"mode": "Approve"}, "status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True"}]}})",
                 "application/merge-patch+json");
  EXPECT_EQ(st["spec"]["mode"], "Auto");  // /status changes only status
  EXPECT_EQ(st["status"]["observedGeneration"], 1);
  EXPECT_EQ(st["metadata"]["generation"], 1);
  json main = Json("PATCH", std::string(kWidgets) + "/a", 200, R"({"status": {"observedGeneration": 7}})",
                   "application/merge-patch+json");
  EXPECT_EQ(main["status"]["observedGeneration"], 1);  // the main resource ignores status
  EXPECT_EQ(Json("GET", std::string(kWidgets) + "/a/status", 200)["status"]["conditions"][0]["status"], "True");
}

TEST_F(CustomResourcesTest, WithoutStatusSubresourceStatusIsPartOfTheObject) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", false));
  json w = Json("POST", kWidgets, 201, R"({"metadata": {"name": "a"}, "status": {"x": 1}})");
  EXPECT_EQ(w["status"]["x"], 1);
  Json("GET", std::string(kWidgets) + "/a/status", 404);
}

TEST_F(CustomResourcesTest, NamespacedResources) {
  CreateCrd(Crd("gizmos", "Gizmo", "Namespaced", false));
  const std::string ns = "/apis/example.kubeon.io/v1/namespaces/default/gizmos";
  Json("POST", ns, 201, R"({"metadata": {"name": "g"}, "spec": {}})");
  EXPECT_EQ(Json("GET", ns + "/g", 200)["metadata"]["namespace"], "default");
  EXPECT_EQ(Json("GET", "/apis/example.kubeon.io/v1/gizmos", 200)["items"].size(), 1u);
  Json("GET", "/apis/example.kubeon.io/v1/gizmos/g", 404);
  Json("POST", "/apis/example.kubeon.io/v1/namespaces/nope/gizmos", 404, R"({"metadata": {"name": "g"}})");
  Json("DELETE", "/api/v1/namespaces/default", 200);
  Json("GET", ns + "/g", 404);
}

TEST_F(CustomResourcesTest, DeletingTheCrdDeletesItsObjects) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  Json("POST", kWidgets, 201, R"({"metadata": {"name": "a"}})");
  Json("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeon.io", 200);
  Json("GET", kWidgets, 404);
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  EXPECT_TRUE(Json("GET", kWidgets, 200)["items"].empty());
}

// Reads watch lines until `n` arrived or the stream ends.
std::vector<json> ReadEvents(WatchStream& s, size_t n) {
  std::vector<json> out;
  std::string buf;
  for (int i = 0; i < 200 && out.size() < n; ++i) {
    WatchStream::Step step = s.Next(&buf, std::chrono::milliseconds(50));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      out.push_back(json::parse(buf.substr(0, nl)));
      buf.erase(0, nl + 1);
    }
    if (step != WatchStream::Step::kMore) break;
  }
  return out;
}

TEST_F(CustomResourcesTest, Watch) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  std::string rv = Json("GET", kWidgets, 200)["metadata"]["resourceVersion"];
  ApiResponse w = Call("GET", std::string(kWidgets) + "?watch=true&resourceVersion=" + rv);
  ASSERT_TRUE(w.watch);
  Json("POST", kWidgets, 201, R"({"metadata": {"name": "a"}})");
  Json("PATCH", std::string(kWidgets) + "/a/status", 200, R"({"status": {"n": 1}})", "application/merge-patch+json");
  auto events = ReadEvents(*w.watch, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["kind"], "Widget");
  EXPECT_EQ(events[1]["type"], "MODIFIED");
  EXPECT_EQ(events[1]["object"]["status"]["n"], 1);
}

TEST_F(CustomResourcesTest, TableUsesThePrinterColumns) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  Json("POST", kWidgets, 201, R"({"metadata": {"name": "a"}, "spec": {"mode": "Auto", "size": 3}})");
  Json("PATCH", std::string(kWidgets) + "/a/status", 200, R"({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})",
       "application/merge-patch+json");
  ApiRequest req = testing::TestRequest("GET", kWidgets);
  req.headers["accept"] = "application/json;as=Table;v=v1;g=meta.k8s.io";
  json t = json::parse(api.Handle(req).body);
  std::vector<std::string> names;
  for (const auto& c : t["columnDefinitions"]) names.push_back(c["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Mode", "Ready", "Size", "Age"}));
  EXPECT_EQ(t["columnDefinitions"][3]["priority"], 1);
  EXPECT_EQ(t["columnDefinitions"][4]["type"], "date");
  const json& cells = t["rows"][0]["cells"];
  EXPECT_EQ(cells[0], "a");
  EXPECT_EQ(cells[1], "Auto");
  EXPECT_EQ(cells[2], "False");
  EXPECT_EQ(cells[3], 3);
  EXPECT_EQ(cells[4], "0s");
}

TEST_F(CustomResourcesTest, ServerSideApplyCreatesThenMerges) {
  CreateCrd(Crd("widgets", "Widget", "Cluster", true));
  const std::string url = std::string(kWidgets) + "/a?fieldManager=kubectl";
  const std::string ct = "application/apply-patch+yaml";
  EXPECT_EQ(Json("PATCH", std::string(kWidgets) + "/a", 422, R"({"metadata": {"name": "a"}})", ct)["reason"], "Invalid");
  json created = Json("PATCH", url, 201, R"({"apiVersion": "example.kubeon.io/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"mode": "Auto"}})", ct);
  EXPECT_EQ(created["metadata"]["managedFields"][0]["operation"], "Apply");
  EXPECT_EQ(created["metadata"]["managedFields"][0]["manager"], "kubectl");
  json merged = Json("PATCH", url, 200, R"({"apiVersion": "example.kubeon.io/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"size": 2}})", ct);
  EXPECT_EQ(merged["spec"]["mode"], "Auto");
  EXPECT_EQ(merged["spec"]["size"], 2);
  EXPECT_EQ(merged["metadata"]["generation"], 2);
}

TEST_F(CustomResourcesTest, SchemaValidationPruningAndDefaults) {
  json crd = Crd("widgets", "Widget", "Cluster", true);
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json::parse(R"({
    "type": "object", "required": ["spec"], "properties": {
      "spec": {"type": "object", "required": ["kind"], "properties": {
        "kind": {"type": "string", "enum": ["Sharing"]},
        "mode": {"type": "string", "enum": ["Proposal", "Approve", "Auto"], "default": "Proposal"},
        "size": {"type": "integer", "minimum": 1}}},
      "status": {"type": "object", "properties": {"observedGeneration": {"type": "integer"}}}}})");
  CreateCrd(crd);
  json bad = Json("POST", kWidgets, 422, R"({"metadata": {"name": "bad"}, "spec": {"kind": "Sharing", "mode": "Sometimes", "size": 0}})");
  EXPECT_EQ(bad["reason"], "Invalid");
  EXPECT_EQ(bad["message"],
            "Widget.example.kubeon.io \"bad\" is invalid: [spec.mode: Unsupported value: \"Sometimes\": supported values: "
            "\"Proposal\", \"Approve\", \"Auto\", spec.size: Invalid value: 0: spec.size in body should be greater than or "
            "equal to 1]");
  EXPECT_EQ(bad["details"]["causes"][0],
            json({{"reason", "FieldValueNotSupported"}, {"field", "spec.mode"},
                  {"message", "Unsupported value: \"Sometimes\": supported values: \"Proposal\", \"Approve\", \"Auto\""}}));
  EXPECT_EQ(Json("POST", kWidgets, 422, R"({"metadata": {"name": "bad"}})")["details"]["causes"][0]["field"], "spec");

  // Unknown fields: Warn (the default) prunes and warns, Strict rejects.
  ApiResponse warned = Call("POST", kWidgets, R"({"metadata": {"name": "a"}, "spec": {"kind": "Sharing", "mdoe": "Auto"}})");
  ASSERT_EQ(warned.status, 201) << warned.body;
  json a = json::parse(warned.body);
  EXPECT_FALSE(a["spec"].contains("mdoe"));
  EXPECT_EQ(a["spec"]["mode"], "Proposal");  // defaulted
  ASSERT_EQ(warned.headers.size(), 1u);
  EXPECT_EQ(warned.headers[0].second, "299 - \"unknown field \\\"spec.mdoe\\\"\"");
  json strict = Json("POST", std::string(kWidgets) + "?fieldValidation=Strict", 400,
                     R"({"metadata": {"name": "b"}, "spec": {"kind": "Sharing", "mdoe": "Auto"}})");
  EXPECT_EQ(strict["message"], "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"spec.mdoe\"");
  // Updates are validated too, through the main resource and /status.
  Json("PATCH", std::string(kWidgets) + "/a", 422, R"({"spec": {"size": -1}})", "application/merge-patch+json");
  Json("PATCH", std::string(kWidgets) + "/a/status", 422, R"({"status": {"observedGeneration": "one"}})",
       "application/merge-patch+json");
  EXPECT_EQ(Json("PATCH", std::string(kWidgets) + "/a/status", 200, R"({"status": {"observedGeneration": 1, "x": 2}})",
                 "application/merge-patch+json")["status"], json({{"observedGeneration", 1}}));
}

TEST_F(CustomResourcesTest, MistypedCrdFieldsAreTolerated) {
  json crd = Crd("widgets", "Widget", "Cluster", true);
  crd["spec"]["versions"][0]["additionalPrinterColumns"] = json::parse(R"([{"name": 5, "type": 1, "jsonPath": []}])");
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json::parse(R"({"type": 3, "properties": 4, "required": "x"})");
  ApiResponse created = Call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.dump(),
                             "application/json");
  ASSERT_EQ(created.status, 201) << created.body;
  Json("PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeon.io/status", 200,
       R"({"status": {"conditions": [{"type": 1, "status": [], "lastTransitionTime": 2}]}})", "application/merge-patch+json");
  Json("POST", kWidgets, 201, R"({"metadata": {"name": "a"}, "spec": {"x": 1}})");
  ApiRequest req = testing::TestRequest("GET", kWidgets);
  req.headers["accept"] = "application/json;as=Table;v=v1;g=meta.k8s.io";
  EXPECT_EQ(api.Handle(req).status, 200);
  json got = Json("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeon.io", 200);
  EXPECT_EQ(got["status"]["conditions"][1]["type"], "Established");
}

TEST_F(CustomResourcesTest, CrdsAndTheirObjectsLoadFromASnapshot) {
  ManualSim other;
  json crd = Crd("widgets", "Widget", "Cluster", true);
  json list = {{"apiVersion", "v1"},
               {"kind", "List"},
               {"items", json::array({{{"apiVersion", "example.kubeon.io/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}},
                                      crd})}};
  std::lock_guard<std::mutex> lock(other.sim().mutex());
  auto n = other.sim().LoadSnapshot(list, "test");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n.value(), 2u);
  EXPECT_NE(other.sim().store().Get("example.kubeon.io/widgets", "", "w"), nullptr);
  EXPECT_NE(other.sim().custom_types().Find("example.kubeon.io", "v1", "widgets"), nullptr);
}

TEST(CustomTypesTest, PointersStayValidWhenTheCrdChanges) {
  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
  json crd = Crd("widgets", "Widget", "Cluster", true);
  ASSERT_EQ(api.Handle(testing::TestRequest("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.dump())).status, 201);
  const ResourceType* before = m.sim().custom_types().Find("example.kubeon.io", "v1", "widgets");
  ASSERT_NE(before, nullptr);
  ASSERT_EQ(api.Handle(testing::TestRequest("PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeon.io",
                                            R"({"spec": {"names": {"shortNames": ["wd"]}}})", "application/merge-patch+json"))
                .status,
            200);
  const ResourceType* after = m.sim().custom_types().Find("example.kubeon.io", "v1", "widgets");
  ASSERT_NE(after, nullptr);
  EXPECT_NE(before, after);
  EXPECT_EQ(before->short_names, std::vector<std::string>{"wid"});  // the retired entry is still readable
  EXPECT_EQ(after->short_names, std::vector<std::string>{"wd"});
}

}  // namespace
}  // namespace kubeon::kubesim
