// Tests for kubeconfig.h: kubectl's loading order and merge rules, field
// errors naming file/entry/field, in-cluster config, token redaction.
#include "kube/kubeconfig.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kubeon::kube {
namespace {

constexpr const char* kToken = "s3cr3t-T0KEN-abcdef0123456789";
// "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n" in base64.
constexpr const char* kCaData =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kubeconfig-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  LoadOptions WithPath(const std::string& path, const std::string& context = "") {
    LoadOptions o;
    o.kubeconfig_path = path;
    o.context = context;
    o.in_cluster_root = dir_ + "/no-such-root";
    return o;
  }

  std::string dir_;
};

std::string TwoContexts() {
  return std::string(R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/
    certificate-authority-data: )") +
         kCaData + R"(
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    insecure-skip-tls-verify: true
    tls-server-name: api.prod
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: ml}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
users:
- name: dev-user
  user:
    token: )" + kToken + R"(
- name: prod-user
  user: {}
)";
}

TEST_F(KubeconfigTest, CurrentContextSelectsClusterUserAndNamespace) {
  auto cfg = LoadRestConfig(WithPath(Write("config", TwoContexts())));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://dev.example:6443");
  EXPECT_EQ(cfg->ca_pem, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  EXPECT_FALSE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->token, kToken);
  EXPECT_EQ(cfg->namespace_, "ml");
  EXPECT_EQ(cfg->context_name, "dev");
}

TEST_F(KubeconfigTest, ContextFlagOverridesCurrentContext) {
  auto cfg = LoadRestConfig(WithPath(Write("config", TwoContexts()), "prod"));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://prod.example:6443");
  EXPECT_TRUE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->tls_server_name, "api.prod");
  EXPECT_EQ(cfg->token, "");
  EXPECT_EQ(cfg->namespace_, "default");
}

TEST_F(KubeconfigTest, UnknownContextNamesFileAndContext) {
  std::string path = Write("config", TwoContexts());
  auto cfg = LoadRestConfig(WithPath(path, "staging"));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(), "kubeconfig " + path + ": context \"staging\" not found");
}

TEST_F(KubeconfigTest, MissingCurrentContextIsAnError) {
  std::string path = Write("config", "clusters: []\ncontexts: []\n");
  auto cfg = LoadRestConfig(WithPath(path));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(),
            "kubeconfig " + path + ": current-context is not set and no --context was given");
}

TEST_F(KubeconfigTest, BadBase64NamesFileLineUserAndField) {
  std::string path = Write("config", R"(current-context: c
clusters:
- name: k
  cluster: {server: "https://k:6443"}
contexts:
- name: c
  context: {cluster: k, user: admin}
users:
- name: admin
  user:
    client-certificate-data: )" + std::string(kCaData) + R"(
    client-key-data: "not*base64"
)");
  auto cfg = LoadRestConfig(WithPath(path));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(),
            "kubeconfig " + path + ":9: user \"admin\": client-key-data is not valid base64");
}

TEST_F(KubeconfigTest, ExecAndAuthProviderUsersAreRefusedByName) {
  const std::string head = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k:6443"}}]
contexts: [{name: c, context: {cluster: k, user: eks-admin}}]
users:
- name: eks-admin
  user:
)";
  auto exec = LoadRestConfig(WithPath(Write("exec", head + "    exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1}\n")));
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.status().message().find("user \"eks-admin\": exec credential plugins are not supported"),
            std::string::npos)
      << exec.status().message();
  auto ap = LoadRestConfig(WithPath(Write("ap", head + "    auth-provider: {name: gcp}\n")));
  ASSERT_FALSE(ap.ok());
  EXPECT_NE(ap.status().message().find("user \"eks-admin\": auth-provider is not supported"), std::string::npos)
      << ap.status().message();
}

TEST_F(KubeconfigTest, RelativeFilesResolveAgainstTheKubeconfigDirectory) {
  Write("sub/pki/ca.crt", "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
  Write("sub/pki/admin.crt", "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n");
  Write("sub/pki/admin.key", "-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n");
  Write("sub/token", std::string(kToken) + "\n");
  std::string path = Write("sub/config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k:6443", certificate-authority: pki/ca.crt}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {client-certificate: pki/admin.crt, client-key: pki/admin.key, tokenFile: token}}]
)");
  auto cfg = LoadRestConfig(WithPath(path));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_NE(cfg->ca_pem.find("CA"), std::string::npos);
  EXPECT_NE(cfg->client_cert_pem.find("CERT"), std::string::npos);
  EXPECT_NE(cfg->client_key_pem.find("KEY"), std::string::npos);
  EXPECT_EQ(cfg->token, kToken);  // trimmed
  EXPECT_EQ(cfg->token_file, dir_ + "/sub/token");
}

TEST_F(KubeconfigTest, UnreadableCertificateFileNamesClusterFieldAndPath) {
  std::string path = Write("config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k:6443", certificate-authority: missing-ca.crt}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  auto cfg = LoadRestConfig(WithPath(path));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(), "kubeconfig " + path + ":2: cluster \"k\": certificate-authority " + dir_ +
                                        "/missing-ca.crt: No such file or directory");
}

TEST_F(KubeconfigTest, FieldErrors) {
  struct Case {
    std::string yaml;
    std::string expected;  // substring of the error
  };
  const std::string ctx = "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n";
  const std::vector<Case> cases = {
      {ctx + "clusters: [{name: k, cluster: {}}]\nusers: [{name: u, user: {}}]\n", "cluster \"k\": server is not set"},
      {ctx + "clusters: [{name: k, cluster: {server: k:6443}}]\nusers: [{name: u}]\n",
       "cluster \"k\": server \"k:6443\" must start with https:// or http://"},
      {ctx + "users: [{name: u}]\n", "context \"c\": cluster \"k\" not found"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\"}}]\n", "context \"c\": user \"u\" not found"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\", insecure-skip-tls-verify: maybe}}]\n",
       "cluster \"k\": insecure-skip-tls-verify must be true or false"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\", insecure-skip-tls-verify: true, "
             "certificate-authority-data: " + kCaData + "}}]\nusers: [{name: u}]\n",
       "cluster \"k\": insecure-skip-tls-verify cannot be combined with a certificate authority"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\"}}]\nusers: [{name: u, user: {client-certificate-data: " +
           kCaData + "}}]\n",
       "user \"u\": client-certificate is set without client-key"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\", certificate-authority-data: aGVsbG8=}}]\n",
       "cluster \"k\": certificate-authority-data does not hold PEM data"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\"}}, {name: k, cluster: {server: \"https://j\"}}]\n",
       "clusters[1]: duplicate name \"k\""},
      {ctx + "clusters: [{cluster: {server: \"https://k\"}}]\n", "clusters[0]: name is missing"},
      {ctx + "clusters: [{name: k, cluster: {server: \"https://k\"}}]\nusers: [{name: u, user: {username: a, password: b}}]\n",
       "user \"u\": basic authentication (username) is not supported"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string path = Write("config" + std::to_string(i), cases[i].yaml);
    auto cfg = LoadRestConfig(WithPath(path));
    ASSERT_FALSE(cfg.ok()) << "case " << i;
    EXPECT_NE(cfg.status().message().find(cases[i].expected), std::string::npos)
        << "case " << i << ": " << cfg.status().message();
    EXPECT_EQ(cfg.status().message().rfind("kubeconfig " + path, 0), 0u) << cfg.status().message();
  }
}

TEST_F(KubeconfigTest, MalformedYamlNamesFileAndLine) {
  std::string path = Write("config", "current-context: c\nclusters:\n  - name: [unclosed\n");
  auto cfg = LoadRestConfig(WithPath(path));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message().rfind("kubeconfig " + path + ":", 0), 0u) << cfg.status().message();
  EXPECT_NE(cfg.status().message().find("invalid YAML"), std::string::npos);
}

TEST_F(KubeconfigTest, ExplicitPathMustExist) {
  auto cfg = LoadRestConfig(WithPath(dir_ + "/nope"));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(), "kubeconfig " + dir_ + "/nope: No such file or directory");
}

TEST_F(KubeconfigTest, KubeconfigListMergesWithFirstFileWinning) {
  std::string a = Write("a", R"(current-context: from-a
clusters:
- name: shared
  cluster: {server: "https://a.example"}
users:
- name: ua
  user: {token: token-a}
contexts:
- name: from-a
  context: {cluster: shared, user: ub}
)");
  std::string b = Write("b", R"(current-context: from-b
clusters:
- name: shared
  cluster: {server: "https://b.example"}
- name: only-b
  cluster: {server: "https://only-b.example"}
users:
- name: ub
  user: {token: token-b}
contexts:
- name: from-a
  context: {cluster: only-b, user: ua}
- name: from-b
  context: {cluster: only-b, user: ua}
)");
  LoadOptions o;
  o.kubeconfig_env = a + ":" + dir_ + "/missing:" + b;
  o.home = dir_;  // ignored when KUBECONFIG is set
  o.in_cluster_root = dir_;
  auto cfg = LoadRestConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->context_name, "from-a");        // first current-context
  EXPECT_EQ(cfg->server, "https://a.example");   // context from a, cluster "shared" from a
  EXPECT_EQ(cfg->token, "token-b");              // user ub only in b: maps merge by name
  EXPECT_EQ(cfg->source, "kubeconfig " + a + ":" + b);

  o.context = "from-b";
  cfg = LoadRestConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://only-b.example");
  EXPECT_EQ(cfg->token, "token-a");
}

TEST_F(KubeconfigTest, HomeKubeConfigIsTheDefault) {
  Write("home/.kube/config", TwoContexts());
  LoadOptions o;
  o.home = dir_ + "/home";
  o.in_cluster_root = dir_;
  auto cfg = LoadRestConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://dev.example:6443");
}

TEST_F(KubeconfigTest, NothingFoundIsOneClearError) {
  LoadOptions o;
  o.home = dir_ + "/home";
  o.in_cluster_root = dir_;
  auto cfg = LoadRestConfig(o);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(), "no kubeconfig found (looked for " + dir_ +
                                        "/home/.kube/config) and not running in a cluster; pass --kubeconfig or "
                                        "set KUBECONFIG");
}

class InClusterTest : public KubeconfigTest {
 protected:
  LoadOptions InCluster() {
    LoadOptions o;
    o.home = dir_ + "/home";  // no ~/.kube/config there
    o.service_host = "10.96.0.1";
    o.service_port = "443";
    o.in_cluster_root = dir_ + "/root";
    return o;
  }
  const std::string sa_ = "/root/var/run/secrets/kubernetes.io/serviceaccount/";
};

TEST_F(InClusterTest, UsesServiceAccountWhenNoKubeconfigExists) {
  Write(sa_ + "token", std::string(kToken) + "\n");
  Write(sa_ + "ca.crt", "-----BEGIN CERTIFICATE-----\nSA\n-----END CERTIFICATE-----\n");
  Write(sa_ + "namespace", "gpu-ops");
  auto cfg = LoadRestConfig(InCluster());
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg->token, kToken);
  EXPECT_EQ(cfg->token_file, dir_ + sa_ + "token");
  EXPECT_NE(cfg->ca_pem.find("SA"), std::string::npos);
  EXPECT_EQ(cfg->namespace_, "gpu-ops");
  EXPECT_EQ(cfg->source, "in-cluster service account");
  EXPECT_EQ(cfg->Describe().find(kToken), std::string::npos);
}

TEST_F(InClusterTest, Ipv6HostIsBracketedAndNamespaceDefaults) {
  Write(sa_ + "token", "t");
  Write(sa_ + "ca.crt", "-----BEGIN CERTIFICATE-----\nSA\n-----END CERTIFICATE-----\n");
  LoadOptions o = InCluster();
  o.service_host = "fd00::1";
  auto cfg = LoadRestConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://[fd00::1]:443");
  EXPECT_EQ(cfg->namespace_, "default");
}

TEST_F(InClusterTest, AKubeconfigWinsOverInCluster) {
  Write(sa_ + "token", "t");
  Write(sa_ + "ca.crt", "-----BEGIN CERTIFICATE-----\nSA\n-----END CERTIFICATE-----\n");
  Write("home/.kube/config", TwoContexts());
  auto cfg = LoadRestConfig(InCluster());
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://dev.example:6443");
}

TEST_F(InClusterTest, NoServiceAccountFilesMeansNoInCluster) {
  Write(sa_ + "token", "t");  // ca.crt missing
  auto cfg = LoadRestConfig(InCluster());
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("no kubeconfig found"), std::string::npos);
  auto direct = LoadInClusterConfig(InCluster());
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(direct.status().message(),
            "in-cluster config: " + dir_ + sa_ + "ca.crt: No such file or directory");
}

TEST_F(KubeconfigTest, TokenNeverAppearsInErrorsOrDescribe) {
  const std::string user = std::string("users: [{name: u, user: {token: ") + kToken;
  const std::string ctx = "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n";
  const std::vector<std::string> broken = {
      ctx + user + ", client-key-data: '!!'}}]\nclusters: [{name: k, cluster: {server: \"https://k\"}}]\n",
      ctx + user + ", exec: {command: x}}}]\nclusters: [{name: k, cluster: {server: \"https://k\"}}]\n",
      ctx + user + "}}]\nclusters: [{name: k, cluster: {}}]\n",
      ctx + user + "}}]\n",
      ctx + user + " [oops\n",
      ctx + "users: [{name: u, user: {token: [" + kToken + "]}}]\nclusters: [{name: k, cluster: {server: \"https://k\"}}]\n",
  };
  for (size_t i = 0; i < broken.size(); ++i) {
    auto cfg = LoadRestConfig(WithPath(Write("broken" + std::to_string(i), broken[i])));
    ASSERT_FALSE(cfg.ok()) << "case " << i;
    EXPECT_EQ(cfg.status().message().find(kToken), std::string::npos) << cfg.status().message();
    EXPECT_EQ(cfg.status().message().find("s3cr3t"), std::string::npos) << cfg.status().message();
  }
  auto ok = LoadRestConfig(WithPath(Write("config", TwoContexts())));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->Describe().find(kToken), std::string::npos) << ok->Describe();
  EXPECT_NE(ok->Describe().find("bearer token"), std::string::npos) << ok->Describe();
}

TEST(DecodeBase64Test, AcceptsStandardAlphabetAndRejectsGarbage) {
  std::string out;
  EXPECT_TRUE(DecodeBase64("aGVsbG8=", &out));
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(DecodeBase64("aGVs\nbG8", &out));  // wrapped, unpadded
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(DecodeBase64("", &out));
  EXPECT_EQ(out, "");
  EXPECT_FALSE(DecodeBase64("aGVsbG8*", &out));
  EXPECT_FALSE(DecodeBase64("a", &out));
  EXPECT_FALSE(DecodeBase64("aGVsbG8=x", &out));
  EXPECT_FALSE(DecodeBase64("aGVsbG8===", &out));
}

}  // namespace
}  // namespace kubeon::kube
