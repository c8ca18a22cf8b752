// Tests for policy_object.h: a GpuPolicy object as the API serves it parses
// like a file; server-set fields are ignored; errors name the object.
#include "controller/policy_object.h"

#include <gtest/gtest.h>

#include "mig/catalog.h"

namespace kubeon::controller {
namespace {

using nlohmann::json;

policy::ProfileExistsFn Exists() {
  return [](std::string_view p) { return mig::MigCatalog::Builtin().ProfileExists(p); };
}

json Object(json spec) {
  return {{"apiVersion", "gpu.kubeon.io/v1"},
          {"kind", "GpuPolicy"},
          {"metadata",
           {{"name", "weekend"},
            {"uid", "1234"},
            {"resourceVersion", "77"},
            {"generation", 4},
            {"creationTimestamp", "2026-12-01T00:00:00Z"},
            {"managedFields", json::array({{{"manager", "kubectl"}}})}}},
          {"spec", std::move(spec)},
          {"status", {{"observedGeneration", 3}}}};
}

TEST(PolicyObject, ServerFieldsAreIgnored) {
  Result<policy::GpuPolicy> p = ParsePolicyObject(
      Object({{"kind", "Sharing"}, {"mode", "Auto"}, {"window", "Sat 02:00-06:00 UTC"}, {"nodeSelector", {{"pool", "a"}}}}),
      Exists());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->name, "weekend");
  EXPECT_EQ(p->mode, policy::Mode::kAuto);
  EXPECT_EQ(p->node_selector.at("pool"), "a");
  EXPECT_EQ(p->file, "GpuPolicy weekend");
}

TEST(PolicyObject, ListItemsWithoutApiVersionAndKind) {
  json item = Object({{"kind", "Sharing"}});
  item.erase("apiVersion");
  item.erase("kind");
  Result<policy::GpuPolicy> p = ParsePolicyObject(item, Exists());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->mode, policy::Mode::kProposal);
}

TEST(PolicyObject, ErrorsNameTheObjectAndField) {
  Result<policy::GpuPolicy> p =
      ParsePolicyObject(Object({{"kind", "Sharing"}, {"mode", "Sometimes"}, {"mig", {{"headroom", "500%"}}}}), Exists());
  ASSERT_FALSE(p.ok());
  const std::string m = p.status().message();
  EXPECT_EQ(m.rfind("GpuPolicy weekend: spec.", 0), 0u) << m;
  EXPECT_NE(m.find("GpuPolicy weekend: spec.mode: "), std::string::npos) << m;
  EXPECT_NE(m.find("GpuPolicy weekend: spec.mig.headroom: "), std::string::npos) << m;
  EXPECT_EQ(m.find("policy \"weekend\""), std::string::npos) << m;
}

}  // namespace
}  // namespace kubeon::controller
