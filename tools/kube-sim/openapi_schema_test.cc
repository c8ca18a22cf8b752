// Tests for openapi_schema.h: the compiled-in model covers every kind
// kube-sim serves with the patch strategies Kubernetes publishes, the
// notation's errors, the schema JSON, and pruning of unknown fields.
#include "openapi_schema.h"

#include <gtest/gtest.h>

#include "resources.h"

namespace kubeon::kubesim {
namespace {

const SchemaField& FieldOf(const std::string& def, const std::string& field) {
  const SchemaDefinition* d = OpenApiSchema::Builtin().Find(def);
  EXPECT_NE(d, nullptr) << def;
  static const SchemaField kNone;
  if (d == nullptr) return kNone;
  const SchemaField* f = d->Field(field);
  EXPECT_NE(f, nullptr) << def << "." << field;
  return f != nullptr ? *f : kNone;
}

TEST(OpenApiSchemaTest, EveryServedKindHasADefinition) {
  const OpenApiSchema& s = OpenApiSchema::Builtin();
  for (const auto& t : AllResources()) {
    for (const auto& v : t.versions) {
      const SchemaDefinition* d = s.ForKind({t.group, v, t.kind});
      ASSERT_NE(d, nullptr) << t.group << "/" << v << " " << t.kind;
      EXPECT_NE(d->Field("metadata"), nullptr);
      EXPECT_NE(d->Field("apiVersion"), nullptr);
      ASSERT_TRUE(d->gvk.has_value());
      EXPECT_EQ(d->gvk->kind, t.kind);
    }
    for (const auto& sub : t.subresources) {
      if (!sub.kind.empty()) {
        EXPECT_NE(s.ForKind({sub.group, sub.version, sub.kind}), nullptr) << sub.kind;
      }
    }
  }
  EXPECT_EQ(s.ForKind({"apps", "v1", "Deployment"})->name, "io.k8s.api.apps.v1.Deployment");
  EXPECT_EQ(s.ForKind({"", "v1", "Deployment"}), nullptr);
}

TEST(OpenApiSchemaTest, PatchStrategiesFollowKubernetes) {
  const std::string pod = "io.k8s.api.core.v1.PodSpec";
  EXPECT_EQ(FieldOf(pod, "containers").patch_strategy, "merge");
  EXPECT_EQ(FieldOf(pod, "containers").merge_key, "name");
  EXPECT_EQ(FieldOf(pod, "volumes").patch_strategy, "merge,retainKeys");
  EXPECT_EQ(FieldOf(pod, "volumes").merge_key, "name");
  EXPECT_EQ(FieldOf(pod, "tolerations").patch_strategy, "");  // atomic in Kubernetes
  EXPECT_EQ(FieldOf("io.k8s.api.core.v1.Container", "env").merge_key, "name");
  EXPECT_EQ(FieldOf("io.k8s.api.core.v1.Container", "ports").merge_key, "containerPort");
  EXPECT_EQ(FieldOf("io.k8s.api.core.v1.Container", "volumeMounts").merge_key, "mountPath");
  EXPECT_EQ(FieldOf("io.k8s.api.apps.v1.DeploymentSpec", "strategy").patch_strategy, "retainKeys");
  EXPECT_EQ(FieldOf("io.k8s.api.policy.v1.PodDisruptionBudgetSpec", "selector").patch_strategy, "replace");
  EXPECT_EQ(FieldOf("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers").patch_strategy, "merge");
  EXPECT_EQ(FieldOf("io.k8s.api.core.v1.NodeStatus", "conditions").merge_key, "type");
  // "like" copies fields: v1beta1 PDBs and ephemeral containers.
  EXPECT_EQ(FieldOf("io.k8s.api.policy.v1beta1.PodDisruptionBudgetSpec", "minAvailable").type,
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  EXPECT_EQ(FieldOf("io.k8s.api.core.v1.EphemeralContainer", "targetContainerName").type, "string");
  EXPECT_EQ(FieldOf("io.k8s.api.core.v1.EphemeralContainer", "image").type, "string");
}

TEST(OpenApiSchemaTest, SchemaJsonOfAKind) {
  const OpenApiSchema& s = OpenApiSchema::Builtin();
  json dep = s.SchemaJson(*s.Find("io.k8s.api.apps.v1.DeploymentSpec"), "#/definitions/");
  EXPECT_EQ(dep["type"], "object");
  EXPECT_EQ(dep["required"], json({"selector", "template"}));
  EXPECT_EQ(dep["properties"]["replicas"], json({{"type", "integer"}, {"format", "int32"}}));
  EXPECT_EQ(dep["properties"]["template"]["$ref"], "#/definitions/io.k8s.api.core.v1.PodTemplateSpec");
  EXPECT_EQ(dep["properties"]["strategy"]["x-kubernetes-patch-strategy"], "retainKeys");
  json spec = s.SchemaJson(*s.Find("io.k8s.api.core.v1.PodSpec"), "#/components/schemas/");
  EXPECT_EQ(spec["properties"]["containers"]["type"], "array");
  EXPECT_EQ(spec["properties"]["containers"]["items"]["$ref"], "#/components/schemas/io.k8s.api.core.v1.Container");
  EXPECT_EQ(spec["properties"]["containers"]["x-kubernetes-patch-merge-key"], "name");
  EXPECT_EQ(spec["properties"]["nodeSelector"], json({{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}));
  json d = s.SchemaJson(*s.Find("io.k8s.api.apps.v1.Deployment"), "#/definitions/");
  EXPECT_EQ(d["x-kubernetes-group-version-kind"], json::parse(R"([{"group":"apps","kind":"Deployment","version":"v1"}])"));
  EXPECT_EQ(s.SchemaJson(*s.Find("io.k8s.apimachinery.pkg.apis.meta.v1.Time"), "#/definitions/"),
            json({{"type", "string"}, {"format", "date-time"}}));
}

TEST(OpenApiSchemaTest, ClosureReachesEveryReferencedDefinition) {
  const OpenApiSchema& s = OpenApiSchema::Builtin();
  auto names = s.Closure({"io.k8s.api.core.v1.ConfigMap"});
  EXPECT_EQ(names.count("io.k8s.api.core.v1.ConfigMap"), 1u);
  EXPECT_EQ(names.count("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), 1u);
  EXPECT_EQ(names.count("io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"), 1u);
  EXPECT_EQ(names.count("io.k8s.api.core.v1.PodSpec"), 0u);
  auto all = s.Closure({"io.k8s.api.apps.v1.Deployment"});
  for (const auto& name : all) {
    for (const auto& f : s.Find(name)->fields) {
      if (f.type.find('.') != std::string::npos) {
        EXPECT_EQ(all.count(f.type), 1u) << name << "." << f.name;
      }
    }
  }
  EXPECT_EQ(all.count("io.k8s.api.core.v1.Affinity"), 1u);
}

TEST(OpenApiSchemaTest, PruneRemovesAndReportsUnknownFields) {
  json dep = json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment", "spce": 1,
    "metadata": {"name": "web", "labels": {"any.key/x": "y"}, "colour": "red"},
    "spec": {"replcas": 2, "replicas": 1, "template": {"spec": {"containers": [
      {"name": "a", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}},
      {"name": "b", "imagePullPolcy": "Always", "env": [{"name": "E", "vaule": "1"}]}]}}}})");
  auto unknown = OpenApiSchema::Builtin().Prune("io.k8s.api.apps.v1.Deployment", dep);
  EXPECT_EQ(unknown, (std::vector<std::string>{"metadata.colour", "spce", "spec.replcas",
                                               "spec.template.spec.containers[1].env[0].vaule",
                                               "spec.template.spec.containers[1].imagePullPolcy"}));
  EXPECT_FALSE(dep.contains("spce"));
  EXPECT_FALSE(dep["spec"].contains("replcas"));
  EXPECT_EQ(dep["spec"]["replicas"], 1);
  EXPECT_EQ(dep["metadata"]["labels"]["any.key/x"], "y");  // map keys are free
  EXPECT_EQ(dep["spec"]["template"]["spec"]["containers"][1], json({{"name", "b"}, {"env", {{{"name", "E"}}}}}));
  EXPECT_EQ(dep["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "1");
}

TEST(OpenApiSchemaTest, PruneKeepsFieldsTheReferenceAlreadyHas) {
  json stored = {{"status", {{"simGpuDevices", {"GPU-0"}}}}, {"extra", 1}};
  json written = {{"status", {{"simGpuDevices", {"GPU-0"}}, {"phase", "Running"}, {"bogus", true}}},
                  {"extra", 2}, {"other", 3}};
  auto unknown = OpenApiSchema::Builtin().Prune("io.k8s.api.core.v1.Pod", written, stored);
  EXPECT_EQ(unknown, (std::vector<std::string>{"other", "status.bogus"}));
  EXPECT_EQ(written, json({{"status", {{"simGpuDevices", {"GPU-0"}}, {"phase", "Running"}}}, {"extra", 2}}));
}

TEST(OpenApiSchemaTest, FreeFormAndWronglyTypedValuesAreLeftAlone) {
  json crd = {{"spec", {{"group", "x.io"}, {"names", "not-an-object"}, {"conversion", {{"anything", {{"goes", 1}}}}}}}};
  auto unknown = OpenApiSchema::Builtin().Prune(
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition", crd);
  EXPECT_TRUE(unknown.empty());
  EXPECT_EQ(crd["spec"]["conversion"]["anything"]["goes"], 1);
  EXPECT_EQ(crd["spec"]["names"], "not-an-object");
}

TEST(OpenApiSchemaTest, ParseErrorsNameTheDefinition) {
  auto bad_type = OpenApiSchema::Parse(R"({"packages": {"p": "io.x"}, "definitions": {"p.A": {"fields": {"f": "p.B"}}}})");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.error().message.find("p.A.f: undefined type \"p.B\""), std::string::npos) << bad_type.error().message;
  auto bad_opt = OpenApiSchema::Parse(R"({"packages": {"p": "io.x"}, "definitions": {"p.A": {"fields": {"f": "[]string sorted"}}}})");
  ASSERT_FALSE(bad_opt.ok());
  EXPECT_NE(bad_opt.error().message.find("unknown option \"sorted\""), std::string::npos);
  auto bad_pkg = OpenApiSchema::Parse(R"({"packages": {}, "definitions": {"q.A": {"fields": {}}}})");
  ASSERT_FALSE(bad_pkg.ok());
  EXPECT_NE(bad_pkg.error().message.find("q.A: unknown package"), std::string::npos);
  auto bad_required = OpenApiSchema::Parse(R"({"packages": {"p": "io.x"}, "definitions": {"p.A": {"required": ["g"], "fields": {"f": "string"}}}})");
  ASSERT_FALSE(bad_required.ok());
  auto no_meta = OpenApiSchema::Parse(R"({"packages": {"p": "io.x"}, "definitions": {
      "p.A": {"gvk": ["g", "v1", "K"], "fields": {}}}})");
  ASSERT_FALSE(no_meta.ok());
  EXPECT_NE(no_meta.error().message.find("needs the definition meta.ObjectMeta"), std::string::npos);
  auto dup = OpenApiSchema::Parse(R"({"packages": {"p": "io.x", "meta": "io.m"}, "definitions": {
      "p.A": {"gvk": ["g", "v1", "K"], "fields": {}}, "p.B": {"gvk": ["g", "v1", "K"], "fields": {}},
      "meta.ObjectMeta": {"fields": {"name": "string"}}}})");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("duplicate gvk"), std::string::npos) << dup.error().message;
  auto ok = OpenApiSchema::Parse(R"({"packages": {"p": "io.x"}, "definitions": {
      "p.A": {"fields": {"list": "[]p.B merge=k", "map": "{}int64"}}, "p.B": {"like": "p.C", "fields": {"k": "string"}},
      "p.C": {"fields": {"c": "boolean"}}}})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  const SchemaDefinition* b = ok.value().Find("io.x.B");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->fields.size(), 2u);
  EXPECT_EQ(b->fields[0].name, "c");
  EXPECT_EQ(ok.value().Find("io.x.A")->Field("list")->shape, SchemaField::Shape::kList);
  EXPECT_EQ(ok.value().Find("io.x.A")->Field("map")->shape, SchemaField::Shape::kMap);
}

}  // namespace
}  // namespace kubeon::kubesim
