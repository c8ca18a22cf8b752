// Tests for protobuf_json.h against bodies kubectl really sends
// (testdata/kubectl-protobuf-bodies.txt, captured from kubectl 1.32's typed
// clients), and its errors.
#include "protobuf_json.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "test_util.h"

namespace kubeon::kubesim {
namespace {

// kubectl command -> body bytes.
std::map<std::string, std::string> Bodies() {
  std::map<std::string, std::string> out;
  std::istringstream in(testing::ReadTestdata("kubectl-protobuf-bodies.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t bar = line.find(" | ");
    std::string hex = line.substr(bar + 3), bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    out[line.substr(0, bar)] = bytes;
  }
  return out;
}

json Decoded(const std::string& command) {
  auto bodies = Bodies();
  auto it = bodies.find(command);
  EXPECT_NE(it, bodies.end()) << command;
  if (it == bodies.end()) return nullptr;
  auto j = ProtobufToJson(it->second);
  EXPECT_TRUE(j.ok()) << command << ": " << j.error().message;
  return j.ok() ? j.value() : json();
}

TEST(ProtobufJsonTest, KubectlBodiesDecodeToTheirJson) {
  EXPECT_EQ(Decoded("create sa ctrl -n ns1"), json::parse(R"({"apiVersion": "v1", "kind": "ServiceAccount",
                                                                "metadata": {"name": "ctrl", "namespace": "ns1"}})"));
  EXPECT_EQ(Decoded("create token ctrl -n ns1 --duration 700s --audience aud1 --audience aud2"),
            json::parse(R"({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": {},
                            "spec": {"audiences": ["aud1", "aud2"], "expirationSeconds": 700}})"));
  EXPECT_EQ(Decoded("auth can-i approve gpuchanges.gpu.kubeon.io/n1 --subresource status -n ns2"),
            json::parse(R"({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": {},
                            "spec": {"resourceAttributes": {"namespace": "ns2", "verb": "approve",
                                     "resource": "gpuchanges.gpu.kubeon.io", "subresource": "status",
                                     "name": "n1"}}})"));
  EXPECT_EQ(Decoded("auth can-i get /healthz")["spec"],
            json::parse(R"({"nonResourceAttributes": {"path": "/healthz", "verb": "get"}})"));
  EXPECT_EQ(Decoded("auth can-i --list -n ns3")["spec"], json::parse(R"({"namespace": "ns3"})"));
  EXPECT_EQ(Decoded("create secret generic s1 -n ns1 --from-literal=k=v"),
            json::parse(R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s1", "namespace": "ns1"},
                            "data": {"k": "dg=="}})"));
  EXPECT_EQ(Decoded("create rolebinding rb1 -n ns1 --clusterrole=cr1 --user=alice --group=g1 "
                    "--serviceaccount=ns1:sa1"),
            json::parse(R"({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                            "metadata": {"name": "rb1", "namespace": "ns1"},
                            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"},
                                         {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "g1"},
                                         {"kind": "ServiceAccount", "name": "sa1", "namespace": "ns1"}],
                            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                        "name": "cr1"}})"));
}

TEST(ProtobufJsonTest, UndecodableBodiesAre415) {
  const std::string sa = Bodies().at("create sa ctrl -n ns1");
  for (const std::string& bad : {std::string("{\"kind\": \"Pod\"}"), sa.substr(0, sa.size() - 5),
                                 std::string("k8s\0\x0a\x0b\x0a\x02v1\x12\x03Pod", 15)}) {  // TypeMeta claims 11 bytes, 9 follow
    auto j = ProtobufToJson(bad);
    ASSERT_FALSE(j.ok());
    EXPECT_EQ(j.error().code, 415);
  }
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf"));
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf; charset=utf-8"));
  EXPECT_FALSE(IsProtobufContentType("application/json"));
}

}  // namespace
}  // namespace kubeon::kubesim
