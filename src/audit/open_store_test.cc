// Tests for open_store.h: a near miss of "kubernetes" or "-" is an error
// that names the flag, and no file of that name is created.
#include "audit/open_store.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace kubeon::audit {
namespace {

TEST(OpenStore, NearMissesOfKubernetesAreErrors) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "open-store-near-miss";
  std::filesystem::create_directories(dir);
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  for (const std::string flag : {"Kubernetes", "kubernetes ", " KUBERNETES", "kubernets", "kuberentes", "kubernetess"}) {
    EXPECT_EQ(CheckAuditDbFlag(flag).code(), StatusCode::kInvalid) << flag;
    AuditDbRequest r;
    r.flag = flag;
    r.create_if_missing = true;
    Result<AuditDb> db = OpenAuditDb(r);
    ASSERT_FALSE(db.ok()) << flag;
    EXPECT_NE(db.status().message().find("did you mean kubernetes"), std::string::npos) << db.status().message();
    EXPECT_FALSE(std::filesystem::exists(dir / flag)) << flag;
  }
  AuditDbRequest dash;
  dash.flag = "-";
  dash.create_if_missing = true;
  Result<AuditDb> db = OpenAuditDb(dash);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("not standard input"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "-"));
  std::filesystem::current_path(cwd);
}

TEST(OpenStore, PathsAndTheRealNameAreAccepted) {
  for (const std::string flag : {"", "kubernetes", "./Kubernetes", "/var/lib/kubeon/audit.db", "audit.db", "k8s"}) {
    EXPECT_TRUE(CheckAuditDbFlag(flag).ok()) << flag;
  }
}

}  // namespace
}  // namespace kubeon::audit
