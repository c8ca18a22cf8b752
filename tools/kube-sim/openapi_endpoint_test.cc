// Tests for openapi_endpoint.h through the in-process Api: content
// negotiation, ETag / If-None-Match, the v3 hash URLs (immutable, 301 on a
// stale hash), errors; and the write path's field validation as clients
// see it (Status bodies and Warning headers, rest.cc + field_validation.h).
#include "openapi_endpoint.h"

#include <gtest/gtest.h>

#include "test_proto_reader.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

std::string Header(const ApiResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

std::vector<std::string> Headers(const ApiResponse& r, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& [k, v] : r.headers) {
    if (k == name) out.push_back(v);
  }
  return out;
}

class OpenApiEndpointTest : public ::testing::Test {
 protected:
  ApiResponse Call(const std::string& method, const std::string& path, std::map<std::string, std::string> query = {},
                   std::map<std::string, std::string> headers = {}, const std::string& body = "") {
    ApiRequest req;
    req.method = method;
    req.path = path;
    for (const auto& [k, v] : query) req.query.emplace(k, v);
    req.headers = std::move(headers);
    req.headers["authorization"] = "Bearer sekrit";
    req.body = body;
    return api.Handle(req);
  }

  testing::ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST_F(OpenApiEndpointTest, V2JsonOrProtobufByAccept) {
  ApiResponse js = Call("GET", "/openapi/v2", {}, {{"accept", "application/json"}});
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "application/json");
  EXPECT_EQ(json::parse(js.body)["swagger"], "2.0");
  EXPECT_EQ(json::parse(js.body)["info"]["version"], m.sim().settings().server_version);
  ApiResponse pb = Call("GET", "/openapi/v2", {},
                        {{"accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
  ASSERT_EQ(pb.status, 200);
  EXPECT_EQ(pb.content_type, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  EXPECT_EQ(testing::ProtoOne(pb.body, 1), "2.0");
  EXPECT_NE(Header(js, "ETag"), Header(pb, "ETag"));
  EXPECT_EQ(Header(pb, "ETag"), "\"" + OpenApiHash(pb.body) + "\"");
  EXPECT_EQ(Header(pb, "Vary"), "Accept");
}

TEST_F(OpenApiEndpointTest, IfNoneMatchIsNotModified) {
  ApiResponse first = Call("GET", "/openapi/v2");
  std::string etag = Header(first, "ETag");
  ASSERT_FALSE(etag.empty());
  ApiResponse again = Call("GET", "/openapi/v2", {}, {{"if-none-match", etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(Call("GET", "/openapi/v2", {}, {{"if-none-match", "\"other\""}}).status, 200);
}

TEST_F(OpenApiEndpointTest, V3RootLinksHashedDocuments) {
  ApiResponse root = Call("GET", "/openapi/v3");
  ASSERT_EQ(root.status, 200);
  json paths = json::parse(root.body)["paths"];
  ASSERT_TRUE(paths.contains("apis/apps/v1"));
  ASSERT_TRUE(paths.contains("api/v1"));
  std::string url = paths["apis/apps/v1"]["serverRelativeURL"];
  ASSERT_EQ(url.rfind("/openapi/v3/apis/apps/v1?hash=", 0), 0u) << url;
  std::string hash = url.substr(url.find('=') + 1);

  ApiResponse doc = Call("GET", "/openapi/v3/apis/apps/v1", {{"hash", hash}});
  ASSERT_EQ(doc.status, 200);
  EXPECT_EQ(OpenApiHash(doc.body), hash);
  EXPECT_EQ(Header(doc, "Cache-Control"), "public, immutable");
  EXPECT_TRUE(json::parse(doc.body)["paths"].contains("/apis/apps/v1/namespaces/{namespace}/deployments/{name}"));

  ApiResponse stale = Call("GET", "/openapi/v3/apis/apps/v1", {{"hash", "0123"}});
  EXPECT_EQ(stale.status, 301);
  EXPECT_EQ(Header(stale, "Location"), url);

  ApiResponse plain = Call("GET", "/openapi/v3/apis/apps/v1");
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(Header(plain, "Cache-Control"), "no-cache, private");
  EXPECT_EQ(Call("GET", "/openapi/v3/apis/apps/v1", {}, {{"if-none-match", Header(plain, "ETag")}}).status, 304);
}

TEST_F(OpenApiEndpointTest, ErrorsAreStatuses) {
  EXPECT_EQ(Call("GET", "/openapi/v3/apis/nope/v1").status, 404);
  EXPECT_EQ(Call("GET", "/openapi/v1").status, 404);
  EXPECT_EQ(Call("POST", "/openapi/v2").status, 405);
  ApiRequest anon;
  anon.method = "GET";
  anon.path = "/openapi/v2";
  EXPECT_EQ(api.Handle(anon).status, 401);
}

TEST_F(OpenApiEndpointTest, ServerVersionChangesTheDocuments) {
  std::string before = Header(Call("GET", "/openapi/v2"), "ETag");
  {
    std::lock_guard<std::mutex> lock(m.sim().mutex());
    ASSERT_TRUE(m.sim().UpdateSettings({{"serverVersion", "v1.27.4"}}).ok());
  }
  ApiResponse after = Call("GET", "/openapi/v2");
  EXPECT_NE(Header(after, "ETag"), before);
  EXPECT_EQ(json::parse(after.body)["info"]["version"], "v1.27.4");
}

TEST_F(OpenApiEndpointTest, WritesValidateFields) {
  const std::string cm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"dta":{"a":"1"},"data":{"b":"2"}})";
  ApiResponse strict = Call("POST", "/api/v1/namespaces/default/configmaps", {{"fieldValidation", "Strict"}},
                            {{"content-type", "application/json"}}, cm);
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(json::parse(strict.body)["message"],
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"dta\"");
  EXPECT_TRUE(m.Get(kConfigMaps, "default", "c").is_null());

  ApiResponse warn = Call("POST", "/api/v1/namespaces/default/configmaps", {}, {{"content-type", "application/json"}}, cm);
  EXPECT_EQ(warn.status, 201);
  EXPECT_EQ(Headers(warn, "Warning"), (std::vector<std::string>{"299 - \"unknown field \\\"dta\\\"\""}));
  json stored = m.Get(kConfigMaps, "default", "c");
  EXPECT_FALSE(stored.contains("dta"));
  EXPECT_EQ(stored["data"]["b"], "2");

  ApiResponse patch = Call("PATCH", "/api/v1/namespaces/default/configmaps/c", {{"fieldValidation", "Strict"}},
                           {{"content-type", "application/strategic-merge-patch+json"}}, R"({"dta":{"x":"y"}})");
  EXPECT_EQ(patch.status, 422);
  json status = json::parse(patch.body);
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["details"]["causes"][0]["field"], "patch");
  EXPECT_EQ(status["details"]["causes"][0]["message"],
            "Invalid value: \"map[dta:map[x:y]]\": strict decoding error: unknown field \"dta\"");

  ApiResponse ignore = Call("PATCH", "/api/v1/namespaces/default/configmaps/c", {{"fieldValidation", "Ignore"}},
                            {{"content-type", "application/merge-patch+json"}}, R"({"dta":{"x":"y"},"data":{"b":"3"}})");
  EXPECT_EQ(ignore.status, 200);
  EXPECT_TRUE(Headers(ignore, "Warning").empty());
  EXPECT_EQ(m.Get(kConfigMaps, "default", "c")["data"]["b"], "3");
  EXPECT_FALSE(m.Get(kConfigMaps, "default", "c").contains("dta"));

  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/configmaps/c", {{"fieldValidation", "Loose"}},
                 {{"content-type", "application/merge-patch+json"}}, "{}").status, 400);
}

TEST_F(OpenApiEndpointTest, StatusAndReplaceAreValidatedAgainstTheKind) {
  json node = m.Get(kNodes, "", "gpu-a");
  ASSERT_FALSE(node.is_null());
  node["spec"]["unschedulabel"] = true;
  ApiResponse put = Call("PUT", "/api/v1/nodes/gpu-a", {{"fieldValidation", "Strict"}},
                         {{"content-type", "application/json"}}, node.dump());
  EXPECT_EQ(put.status, 400);
  EXPECT_NE(json::parse(put.body)["message"].get<std::string>().find("unknown field \"spec.unschedulabel\""), std::string::npos);
  ApiResponse status = Call("PATCH", "/api/v1/nodes/gpu-a/status", {{"fieldValidation", "Strict"}},
                            {{"content-type", "application/merge-patch+json"}}, R"({"status":{"phaze":"x"}})");
  EXPECT_EQ(status.status, 422);
}

}  // namespace
}  // namespace kubeon::kubesim
