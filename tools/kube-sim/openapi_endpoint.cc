// See openapi_endpoint.h.
#include "openapi_endpoint.h"

#include <openssl/evp.h>

#include <map>
#include <memory>
#include <mutex>

#include "openapi_custom.h"
#include "openapi_v2.h"
#include "openapi_v3.h"
#include "rest.h"
#include "route.h"

namespace kubeon::kubesim {

namespace {

// What clients ask for, and (as kube-openapi does, since Go's mime parser
// rejects the "@") what the response is labelled.
constexpr const char* kV2Protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr const char* kV2ProtobufType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

struct Body {
  std::string bytes;
  std::string hash;
};

struct Documents {
  Body v2_json;
  Body v2_proto;
  Body v3_root;
  std::map<std::string, Body> v3;  // key -> document
};

Body MakeBody(std::string bytes) {
  Body b{std::move(bytes), ""};
  b.hash = OpenApiHash(b.bytes);
  return b;
}

std::shared_ptr<const Documents> Build(const std::string& server_version, const std::vector<const ResourceType*>& custom) {
  auto d = std::make_shared<Documents>();
  OpenApiExtra extra = CustomOpenApi(custom);
  json v2 = OpenApiV2Json(server_version, &extra);
  d->v2_json = MakeBody(v2.dump());
  d->v2_proto = MakeBody(OpenApiV2Protobuf(v2));
  json paths = json::object();
  for (const auto& key : OpenApiV3Keys(&extra)) {
    Body b = MakeBody(OpenApiV3Document(key, server_version, &extra).dump());
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + b.hash}};
    d->v3[key] = std::move(b);
  }
  d->v3_root = MakeBody(json{{"paths", paths}}.dump());
  return d;
}

// The documents for a server version and set of custom types.  Custom
// type entries are immutable and never freed (custom_resources.h), so
// their addresses identify the set; the built-in-only documents stay cached
// for good, the newest custom set's replace the previous one.
std::shared_ptr<const Documents> DocumentsFor(const std::string& server_version, const CustomTypes* custom) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Documents>> cache;
  std::vector<const ResourceType*> types = custom != nullptr ? custom->All() : std::vector<const ResourceType*>{};
  std::string key = server_version;
  for (const ResourceType* t : types) key += "/" + std::to_string(reinterpret_cast<uintptr_t>(t));
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[key];
  if (!slot) {
    if (!types.empty()) {  // forget other custom sets (a map entry per CRD change would only grow)
      for (auto it = cache.begin(); it != cache.end();) {
        bool builtin_only = it->first.find('/') == std::string::npos;
        it = builtin_only || it->first == key ? std::next(it) : cache.erase(it);
      }
    }
    slot = Build(server_version, types);
  }
  return slot;
}

bool EtagMatches(const ApiRequest& req, const std::string& etag) {
  std::string inm = req.Header("if-none-match");
  return !inm.empty() && (inm == "*" || inm.find(etag) != std::string::npos);
}

ApiResponse Serve(const ApiRequest& req, const Body& body, const std::string& content_type, const std::string& cache) {
  std::string etag = "\"" + body.hash + "\"";
  ApiResponse r;
  r.content_type = content_type;
  r.headers = {{"ETag", etag}, {"Cache-Control", cache}, {"Vary", "Accept"}};
  if (EtagMatches(req, etag)) {
    r.status = 304;
    return r;
  }
  r.body = body.bytes;
  return r;
}

}  // namespace

std::string OpenApiHash(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha512(), nullptr);
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xf];
  }
  return out;
}

ApiResponse ServeOpenApi(const ApiRequest& req, const std::string& path, const std::string& server_version,
                         const CustomTypes* custom) {
  if (req.method != "GET") return ErrorResponse(ApiError::MethodNotAllowed("GET only"));
  auto docs = DocumentsFor(server_version, custom);
  if (path == "/openapi/v2") {
    std::string accept = req.Header("accept");
    if (accept.find(kV2Protobuf) != std::string::npos || accept.find(kV2ProtobufType) != std::string::npos) {
      return Serve(req, docs->v2_proto, kV2ProtobufType, "no-cache, private");
    }
    return Serve(req, docs->v2_json, "application/json", "no-cache, private");
  }
  if (path == "/openapi/v3") return Serve(req, docs->v3_root, "application/json", "no-cache, private");
  const std::string prefix = "/openapi/v3/";
  if (path.rfind(prefix, 0) != 0) return ErrorResponse(PathNotFound());
  auto it = docs->v3.find(path.substr(prefix.size()));
  if (it == docs->v3.end()) return ErrorResponse(PathNotFound());
  std::string hash = req.Param("hash");
  if (hash.empty()) return Serve(req, it->second, "application/json", "no-cache, private");
  if (hash != it->second.hash) {
    ApiResponse r;
    r.status = 301;
    r.content_type = "text/plain; charset=utf-8";
    r.headers = {{"Location", path + "?hash=" + it->second.hash}};
    r.body = "Moved Permanently";
    return r;
  }
  ApiResponse r = Serve(req, it->second, "application/json", "public, immutable");
  r.headers.push_back({"Expires", "Thu, 01 Jan 2099 00:00:00 GMT"});
  return r;
}

}  // namespace kubeon::kubesim
