// Tests for rbac.h and request_attributes.h: how a request becomes
// attributes (verbs from methods, watch, deletecollection, subresources,
// the namespace of /namespaces/<ns>, fieldSelector names, custom resources,
// non-resource paths), PolicyRule matching (wildcards, "*/status",
// resourceNames, custom verbs, nonResourceURLs), the authorizer over
// bindings in the store (cluster vs namespace scope, subjects, aggregation,
// bootstrap roles) and the Forbidden message.
#include "rbac.h"

#include <gtest/gtest.h>

#include "request_attributes.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

RequestAttributes Attrs(const std::string& method, const std::string& target) {
  ApiRequest r = testing::TestRequest(method, target);
  return AttributesOf(r.method, r.path, r.query);
}

RequestAttributes Res(const std::string& verb, const std::string& group, const std::string& resource,
                      const std::string& sub = "", const std::string& ns = "", const std::string& name = "") {
  RequestAttributes a;
  a.resource_request = true;
  a.verb = verb;
  a.api_group = group;
  a.resource = resource;
  a.subresource = sub;
  a.ns = ns;
  a.name = name;
  return a;
}

TEST(RequestAttributesTest, VerbsAndScopesAsTheApiServer) {
  struct Case {
    const char* method;
    const char* target;
    const char* verb;
    const char* group;
    const char* resource;
    const char* sub;
    const char* ns;
    const char* name;
  };
  for (const Case& c : {
           Case{"GET", "/api/v1/namespaces/ml/pods/p1", "get", "", "pods", "", "ml", "p1"},
           Case{"GET", "/api/v1/namespaces/ml/pods", "list", "", "pods", "", "ml", ""},
           Case{"GET", "/api/v1/pods", "list", "", "pods", "", "", ""},
           Case{"GET", "/api/v1/pods?watch=true", "watch", "", "pods", "", "", ""},
           Case{"GET", "/api/v1/pods?watch=1", "watch", "", "pods", "", "", ""},
           Case{"GET", "/api/v1/pods?watch=false", "list", "", "pods", "", "", ""},
           Case{"GET", "/api/v1/watch/namespaces/ml/pods/p1", "watch", "", "pods", "", "ml", "p1"},
           Case{"GET", "/api/v1/namespaces/ml/pods?fieldSelector=metadata.name%3Dp2", "list", "", "pods", "", "ml", "p2"},
           Case{"POST", "/api/v1/namespaces/ml/pods", "create", "", "pods", "", "ml", ""},
           Case{"PUT", "/apis/apps/v1/namespaces/ml/deployments/d", "update", "apps", "deployments", "", "ml", "d"},
           Case{"PATCH", "/apis/apps/v1/namespaces/ml/deployments/d/status", "patch", "apps", "deployments", "status", "ml", "d"},
           Case{"DELETE", "/api/v1/namespaces/ml/pods/p1", "delete", "", "pods", "", "ml", "p1"},
           Case{"DELETE", "/api/v1/namespaces/ml/pods", "deletecollection", "", "pods", "", "ml", ""},
           Case{"POST", "/api/v1/namespaces/ml/pods/p1/eviction", "create", "", "pods", "eviction", "ml", "p1"},
           Case{"GET", "/api/v1/namespaces/kube-system", "get", "", "namespaces", "", "kube-system", "kube-system"},
           Case{"PUT", "/api/v1/namespaces/ml/finalize", "update", "", "namespaces", "finalize", "ml", "ml"},
           Case{"GET", "/api/v1/namespaces", "list", "", "namespaces", "", "", ""},
           Case{"GET", "/api/v1/nodes/n1", "get", "", "nodes", "", "", "n1"},
           // Custom resources: from the URL alone, whatever the server serves.
           Case{"PATCH", "/apis/gpu.kubeon.io/v1/gpuchanges/ab12cd34/status", "patch", "gpu.kubeon.io", "gpuchanges",
                "status", "", "ab12cd34"},
           Case{"GET", "/apis/example.com/v2/namespaces/x/widgets", "list", "example.com", "widgets", "", "x", ""},
       }) {
    RequestAttributes a = Attrs(c.method, c.target);
    EXPECT_TRUE(a.resource_request) << c.target;
    EXPECT_EQ(a.verb, c.verb) << c.method << " " << c.target;
    EXPECT_EQ(a.api_group, c.group) << c.target;
    EXPECT_EQ(a.resource, c.resource) << c.target;
    EXPECT_EQ(a.subresource, c.sub) << c.target;
    EXPECT_EQ(a.ns, c.ns) << c.target;
    EXPECT_EQ(a.name, c.name) << c.target;
  }
  for (const char* path : {"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/healthz",
                           "/openapi/v3/apis/apps/v1", "/sim/state"}) {
    RequestAttributes a = Attrs("GET", path);
    EXPECT_FALSE(a.resource_request) << path;
    EXPECT_EQ(a.verb, "get") << path;
    EXPECT_EQ(a.path, path);
  }
  EXPECT_EQ(Attrs("POST", "/sim/clock").verb, "post");
}

TEST(RbacRuleTest, VerbsGroupsResourcesAndWildcards) {
  const json rule = json::parse(R"({"apiGroups": ["apps"], "resources": ["deployments", "deployments/scale"],
                                    "verbs": ["get", "patch"]})");
  EXPECT_TRUE(RuleAllows(rule, Res("get", "apps", "deployments", "", "ml", "d")));
  EXPECT_TRUE(RuleAllows(rule, Res("patch", "apps", "deployments", "scale", "ml", "d")));
  EXPECT_FALSE(RuleAllows(rule, Res("patch", "apps", "deployments", "status", "ml", "d")));  // subresources are separate
  EXPECT_FALSE(RuleAllows(rule, Res("delete", "apps", "deployments", "", "ml", "d")));
  EXPECT_FALSE(RuleAllows(rule, Res("get", "", "deployments", "", "ml", "d")));               // core is another group
  EXPECT_FALSE(RuleAllows(rule, Res("get", "apps", "statefulsets", "", "ml", "d")));

  const json any = json::parse(R"({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]})");
  EXPECT_TRUE(RuleAllows(any, Res("approve", "gpu.kubeon.io", "gpuchanges", "status", "", "x")));
  const json status = json::parse(R"({"apiGroups": ["*"], "resources": ["*/status"], "verbs": ["update"]})");
  EXPECT_TRUE(RuleAllows(status, Res("update", "apps", "deployments", "status", "ml", "d")));
  EXPECT_FALSE(RuleAllows(status, Res("update", "apps", "deployments", "", "ml", "d")));
  EXPECT_FALSE(RuleAllows(status, Res("update", "apps", "deployments", "scale", "ml", "d")));

  const json evict = json::parse(R"({"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]})");
  EXPECT_TRUE(RuleAllows(evict, Res("create", "", "pods", "eviction", "ml", "p")));
  EXPECT_FALSE(RuleAllows(evict, Res("create", "", "pods", "", "ml", "")));
}

TEST(RbacRuleTest, CustomVerbsAndResourceNames) {
  const json approve = json::parse(R"({"apiGroups": ["gpu.kubeon.io"], "resources": ["gpuchanges"],
                                       "verbs": ["approve", "revert"]})");
  EXPECT_TRUE(RuleAllows(approve, Res("approve", "gpu.kubeon.io", "gpuchanges", "", "", "ab12cd34")));
  EXPECT_TRUE(RuleAllows(approve, Res("revert", "gpu.kubeon.io", "gpuchanges")));
  EXPECT_FALSE(RuleAllows(approve, Res("patch", "gpu.kubeon.io", "gpuchanges", "", "", "ab12cd34")));

  const json lease = json::parse(R"({"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                                     "resourceNames": ["kubeon-gpu-controller"], "verbs": ["get", "update"]})");
  EXPECT_TRUE(RuleAllows(lease, Res("get", "coordination.k8s.io", "leases", "", "kubeon-system", "kubeon-gpu-controller")));
  EXPECT_FALSE(RuleAllows(lease, Res("get", "coordination.k8s.io", "leases", "", "kubeon-system", "other")));
  // A rule with resourceNames never covers a request without a name.
  EXPECT_FALSE(RuleAllows(lease, Res("get", "coordination.k8s.io", "leases", "", "kubeon-system", "")));
}

TEST(RbacRuleTest, NonResourceUrls) {
  const json rule = json::parse(R"({"nonResourceURLs": ["/healthz", "/apis/*"], "verbs": ["get"]})");
  RequestAttributes a;
  a.verb = "get";
  for (const char* ok : {"/healthz", "/apis/apps/v1", "/apis/"}) {
    a.path = ok;
    EXPECT_TRUE(RuleAllows(rule, a)) << ok;
  }
  for (const char* no : {"/healthz/etcd", "/api", "/apis"}) {
    a.path = no;
    EXPECT_FALSE(RuleAllows(rule, a)) << no;
  }
  a.path = "/healthz";
  a.verb = "post";
  EXPECT_FALSE(RuleAllows(rule, a));
  // Resource rules never match a non-resource request, and the reverse.
  a.verb = "get";
  EXPECT_FALSE(RuleAllows(json::parse(R"({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]})"), a));
  EXPECT_FALSE(RuleAllows(rule, Res("get", "", "healthz")));
}

class RbacAuthorizeTest : public ::testing::Test {
 protected:
  RbacAuthorizeTest() : store(100, [] { return TimePoint(std::chrono::seconds(1714521600)); }, 1) {
    SeedBootstrapRbac(store);
    for (const char* ns : {"ml", "data"}) {
      Add(kNamespaces, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    }
  }
  void Add(const std::string& id, const json& obj) {
    auto r = store.Create(id, obj);
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  void Role(const std::string& kind, const std::string& ns, const std::string& name, const std::string& rules,
            const json& extra = json::object()) {
    json o = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", kind}, {"metadata", {{"name", name}}},
              {"rules", json::parse(rules)}};
    if (!ns.empty()) o["metadata"]["namespace"] = ns;
    o.update(extra);
    Add(ns.empty() ? kClusterRoles : kRoles, o);
  }
  void Bind(const std::string& ns, const std::string& name, const std::string& role_kind, const std::string& role,
            const std::string& subjects) {
    json o = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
              {"kind", ns.empty() ? "ClusterRoleBinding" : "RoleBinding"},
              {"metadata", {{"name", name}}},
              {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", role_kind}, {"name", role}}},
              {"subjects", json::parse(subjects)}};
    if (!ns.empty()) o["metadata"]["namespace"] = ns;
    Add(ns.empty() ? kClusterRoleBindings : kRoleBindings, o);
  }
  bool Can(const UserInfo& u, const RequestAttributes& a) { return Authorize(store, u, a).allowed; }

  Store store;
  UserInfo alice{"alice", "", {"reviewers", "system:authenticated"}};
  UserInfo sa{"system:serviceaccount:kubeon-system:kubeon-gpu", "", {"system:serviceaccounts",
                                                                    "system:serviceaccounts:kubeon-system",
                                                                    "system:authenticated"}};
};

TEST_F(RbacAuthorizeTest, BootstrapRolesAllowDiscoveryAndSelfReviewsOnly) {
  RequestAttributes version;
  version.verb = "get";
  version.path = "/version";
  EXPECT_TRUE(Can(alice, version));
  version.path = "/apis/apps/v1";
  EXPECT_TRUE(Can(alice, version));
  version.path = "/sim/state";
  EXPECT_FALSE(Can(alice, version));
  EXPECT_TRUE(Can(alice, Res("create", "authorization.k8s.io", "selfsubjectaccessreviews")));
  EXPECT_TRUE(Can(alice, Res("create", "authentication.k8s.io", "selfsubjectreviews")));
  EXPECT_FALSE(Can(alice, Res("create", "authorization.k8s.io", "subjectaccessreviews")));
  EXPECT_FALSE(Can(alice, Res("get", "", "pods", "", "ml", "p")));
  UserInfo admin{"kube-sim-admin", "", {"system:masters", "system:authenticated"}};
  EXPECT_TRUE(Privileged(admin));
  EXPECT_TRUE(Can(admin, Res("approve", "gpu.kubeon.io", "gpuchanges")));
  // The default roles exist as objects (kubectl get clusterroles).
  for (const char* r : {"cluster-admin", "view", "edit", "admin", "system:auth-delegator", "system:basic-user"}) {
    EXPECT_NE(store.Get(kClusterRoles, "", r), nullptr) << r;
  }
}

TEST_F(RbacAuthorizeTest, ClusterBindingsGrantEverywhereRoleBindingsInTheirNamespace) {
  Bind("", "reviewers-view", "ClusterRole", "view", R"([{"kind": "Group", "name": "reviewers"}])");
  Bind("ml", "sa-edit", "ClusterRole", "edit",
       R"([{"kind": "ServiceAccount", "name": "kubeon-gpu", "namespace": "kubeon-system"}])");
  Role("Role", "data", "lease-writer",
       R"([{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "update"]}])");
  Bind("data", "sa-lease", "Role", "lease-writer", R"([{"kind": "User", "name": "system:serviceaccount:kubeon-system:kubeon-gpu"}])");

  EXPECT_TRUE(Can(alice, Res("list", "", "pods", "", "ml")));
  EXPECT_TRUE(Can(alice, Res("list", "", "pods", "", "")));  // all namespaces: the cluster binding
  EXPECT_FALSE(Can(alice, Res("delete", "", "pods", "", "ml", "p")));
  Decision d = Authorize(store, alice, Res("get", "", "namespaces", "", "kube-system", "kube-system"));
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reason, "RBAC: allowed by ClusterRoleBinding \"reviewers-view\" of ClusterRole \"view\" to Group \"reviewers\"");

  EXPECT_TRUE(Can(sa, Res("patch", "apps", "deployments", "", "ml", "d")));
  EXPECT_FALSE(Can(sa, Res("patch", "apps", "deployments", "", "data", "d")));
  EXPECT_FALSE(Can(sa, Res("list", "apps", "deployments", "", "")));  // a RoleBinding never grants cluster-wide
  EXPECT_TRUE(Can(sa, Res("update", "coordination.k8s.io", "leases", "", "data", "l")));
  EXPECT_FALSE(Can(sa, Res("update", "coordination.k8s.io", "leases", "", "ml", "l")));
  d = Authorize(store, sa, Res("create", "", "pods", "eviction", "ml", "p"));
  EXPECT_EQ(d.reason, "RBAC: allowed by RoleBinding \"sa-edit/ml\" of ClusterRole \"edit\" to ServiceAccount "
                      "\"kubeon-gpu/kubeon-system\"");
  // A binding to a role that does not exist grants nothing.
  Bind("", "dangling", "ClusterRole", "nope", R"([{"kind": "User", "name": "bob"}])");
  EXPECT_FALSE(Can({"bob", "", {"system:authenticated"}}, Res("get", "", "pods", "", "ml", "p")));
}

TEST_F(RbacAuthorizeTest, ServiceAccountSubjectDefaultsToTheBindingsNamespace) {
  Bind("kubeon-system", "own", "ClusterRole", "view", R"([{"kind": "ServiceAccount", "name": "kubeon-gpu"}])");
  EXPECT_TRUE(Can(sa, Res("list", "", "pods", "", "kubeon-system")));
  UserInfo other{"system:serviceaccount:ml:kubeon-gpu", "", {"system:authenticated"}};
  EXPECT_FALSE(Can(other, Res("list", "", "pods", "", "kubeon-system")));
}

TEST_F(RbacAuthorizeTest, AggregatedClusterRolesCarryTheSelectedRules) {
  Role("ClusterRole", "", "gpu-approver",
       R"([{"apiGroups": ["gpu.kubeon.io"], "resources": ["gpuchanges"], "verbs": ["approve"]}])",
       {{"metadata", {{"name", "gpu-approver"}, {"labels", {{"kubeon.io/aggregate-to-reviewer", "true"}}}}}});
  Role("ClusterRole", "", "reviewer", "[]",
       json::parse(R"({"aggregationRule": {"clusterRoleSelectors": [
                       {"matchLabels": {"kubeon.io/aggregate-to-reviewer": "true"}}]}})"));
  Bind("", "alice-reviewer", "ClusterRole", "reviewer", R"([{"kind": "User", "name": "alice"}])");
  EXPECT_TRUE(Can(alice, Res("approve", "gpu.kubeon.io", "gpuchanges", "", "", "ab12cd34")));
  EXPECT_FALSE(Can(alice, Res("revert", "gpu.kubeon.io", "gpuchanges", "", "", "ab12cd34")));
  std::vector<json> rules = RulesFor(store, alice, "");
  EXPECT_NE(std::find(rules.begin(), rules.end(), json::parse(R"({"apiGroups": ["gpu.kubeon.io"],
            "resources": ["gpuchanges"], "verbs": ["approve"]})")), rules.end());
}

TEST(ForbiddenTest, MessagesAsTheApiServer) {
  UserInfo u{"alice", "", {}};
  ApiError e = Forbidden(u, Res("get", "", "pods", "", "ml", "p1"));
  EXPECT_EQ(e.code, 403);
  EXPECT_EQ(e.reason, "Forbidden");
  EXPECT_EQ(e.message, "pods \"p1\" is forbidden: User \"alice\" cannot get resource \"pods\" in API group \"\" in "
                       "the namespace \"ml\"");
  EXPECT_EQ(e.details, json::parse(R"({"name": "p1", "kind": "pods"})"));
  EXPECT_EQ(Forbidden(u, Res("list", "apps", "deployments")).message,
            "deployments.apps is forbidden: User \"alice\" cannot list resource \"deployments\" in API group \"apps\" "
            "at the cluster scope");
  EXPECT_EQ(Forbidden(u, Res("create", "", "pods", "eviction", "ml", "p")).message,
            "pods \"p\" is forbidden: User \"alice\" cannot create resource \"pods/eviction\" in API group \"\" in the "
            "namespace \"ml\"");
  RequestAttributes path;
  path.verb = "get";
  path.path = "/sim/state";
  EXPECT_EQ(Forbidden(u, path).message, "forbidden: User \"alice\" cannot get path \"/sim/state\"");
}

}  // namespace
}  // namespace kubeon::kubesim
