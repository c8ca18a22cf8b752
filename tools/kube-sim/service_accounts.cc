// See service_accounts.h.
#include "service_accounts.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

#include "base64.h"

namespace kubeon::kubesim {

namespace {

constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMinExpirationSeconds = 600;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;
constexpr const char* kIssuer = "https://kubernetes.default.svc.cluster.local";

int64_t UnixSeconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) std::abort();
  return out;
}

std::string Hex(const std::string& bytes) {
  const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 0x0f]);
  }
  return out;
}

ApiError InvalidTokenRequest(const std::string& name, const std::string& why) {
  return ApiError::Invalid("authentication.k8s.io", "TokenRequest", name, why);
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens() : key_(RandomBytes(32)) {}

std::string ServiceAccountTokens::Sign(const std::string& signing_input) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), mac, &len);
  return Base64UrlEncode(std::string(reinterpret_cast<const char*>(mac), len));
}

Outcome<json> ServiceAccountTokens::Issue(const Store& store, const std::string& ns, const std::string& name,
                                          const json& request, TimePoint now) const {
  const json* sa = store.Get(kServiceAccounts, ns, name);
  if (sa == nullptr) return ApiError::NotFound("", "serviceaccounts", name);
  if (!request.is_object()) return ApiError::BadRequest("the TokenRequest body is not a JSON object");
  json spec = request.contains("spec") && request["spec"].is_object() ? request["spec"] : json::object();
  int64_t seconds = kDefaultExpirationSeconds;
  if (spec.contains("expirationSeconds") && !spec["expirationSeconds"].is_null()) {
    if (!spec["expirationSeconds"].is_number_integer()) {
      return InvalidTokenRequest(name, "spec.expirationSeconds: Invalid value: must be an integer");
    }
    seconds = spec["expirationSeconds"].get<int64_t>();
  }
  if (seconds < kMinExpirationSeconds) {
    return InvalidTokenRequest(name, "spec.expirationSeconds: Invalid value: " + std::to_string(seconds) +
                                         ": may not specify a duration less than 10 minutes");
  }
  if (seconds > kMaxExpirationSeconds) {
    return InvalidTokenRequest(name, "spec.expirationSeconds: Invalid value: " + std::to_string(seconds) +
                                         ": may not specify a duration larger than 2^32 seconds");
  }
  json audiences = json::array();
  if (spec.contains("audiences") && spec["audiences"].is_array()) {
    for (const auto& a : spec["audiences"]) {
      if (a.is_string() && !a.get<std::string>().empty()) audiences.push_back(a);
    }
  }
  if (audiences.empty()) audiences.push_back(kDefaultAudience);
  const int64_t iat = UnixSeconds(now), exp = iat + seconds;
  const std::string uid = Uid(*sa);
  json header = {{"alg", "HS256"}, {"kid", "kube-sim"}, {"typ", "JWT"}};
  json claims = {{"aud", audiences},
                 {"exp", exp},
                 {"iat", iat},
                 {"nbf", iat},
                 {"iss", kIssuer},
                 {"jti", Hex(RandomBytes(16))},
                 {"sub", "system:serviceaccount:" + ns + ":" + name},
                 {"kubernetes.io", {{"namespace", ns}, {"serviceaccount", {{"name", name}, {"uid", uid}}}}}};
  std::string input = Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(claims.dump());
  std::string token = input + "." + Sign(input);
  spec["audiences"] = audiences;
  spec["expirationSeconds"] = seconds;
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  return json{{"kind", "TokenRequest"},
              {"apiVersion", "authentication.k8s.io/v1"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
              {"spec", spec},
              {"status", {{"token", token}, {"expirationTimestamp", Rfc3339(TimePoint(std::chrono::seconds(exp)))}}}};
}

std::optional<TokenIdentity> ServiceAccountTokens::Authenticate(const Store& store, const std::string& bearer,
                                                                TimePoint now) const {
  std::string token = bearer;
  if (token.size() > 7) {
    std::string scheme = token.substr(0, 7);
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme == "bearer ") token = token.substr(7);
  }
  size_t first = token.find('.');
  size_t second = first == std::string::npos ? std::string::npos : token.find('.', first + 1);
  if (second == std::string::npos || token.find('.', second + 1) != std::string::npos) return std::nullopt;
  const std::string input = token.substr(0, second), signature = token.substr(second + 1);
  const std::string expected = Sign(input);
  if (signature.size() != expected.size() || CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) != 0) {
    return std::nullopt;
  }
  auto payload = Base64Decode(token.substr(first + 1, second - first - 1));
  if (!payload) return std::nullopt;
  json claims = json::parse(*payload, nullptr, false);
  if (!claims.is_object() || !claims.contains("exp") || !claims["exp"].is_number_integer()) return std::nullopt;
  if (claims["exp"].get<int64_t>() <= UnixSeconds(now)) return std::nullopt;
  const std::string ns = Str(claims, {"kubernetes.io", "namespace"});
  const std::string name = Str(claims, {"kubernetes.io", "serviceaccount", "name"});
  const json* sa = store.Get(kServiceAccounts, ns, name);
  if (sa == nullptr || Uid(*sa) != Str(claims, {"kubernetes.io", "serviceaccount", "uid"})) return std::nullopt;
  TokenIdentity id;
  id.user = {"system:serviceaccount:" + ns + ":" + name,
             Uid(*sa),
             {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}};
  if (claims["aud"].is_array()) {
    for (const auto& a : claims["aud"]) {
      if (a.is_string()) id.audiences.push_back(a.get<std::string>());
    }
  }
  return id;
}

Outcome<bool> NormalizeSecret(json* obj) {
  json& s = *obj;
  if (s.contains("stringData")) {
    if (!s["stringData"].is_object()) return ApiError::BadRequest("stringData: must be a map of strings");
    if (!s.contains("data") || !s["data"].is_object()) s["data"] = json::object();
    for (const auto& [k, v] : s["stringData"].items()) {
      if (!v.is_string()) return ApiError::BadRequest("stringData[" + k + "]: must be a string");
      s["data"][k] = Base64Encode(v.get<std::string>());
    }
    s.erase("stringData");
  }
  if (s.contains("data") && !s["data"].is_null()) {
    if (!s["data"].is_object()) return ApiError::BadRequest("data: must be a map of base64 strings");
    for (const auto& [k, v] : s["data"].items()) {
      if (!v.is_string() || !Base64Decode(v.get<std::string>())) {
        return ApiError::BadRequest("Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data "
                                    "in data[" + k + "]");
      }
    }
  }
  if (!s.contains("type") || !s["type"].is_string() || s["type"].get<std::string>().empty()) s["type"] = "Opaque";
  return true;
}

}  // namespace kubeon::kubesim
