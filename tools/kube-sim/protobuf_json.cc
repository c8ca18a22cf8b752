// See protobuf_json.h.
#include "protobuf_json.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "base64.h"

namespace kubeon::kubesim {

namespace {

// How a field's value maps to JSON.
enum class Kind { kString, kInt, kBool, kMessage, kStringMap, kBytesMap };

struct FieldSpec {
  uint32_t number;
  const char* name;
  Kind kind;
  bool repeated = false;
  const char* message = nullptr;  // kMessage: the message's name in kMessages
};

// Message name -> its fields (field numbers of k8s.io/api generated.proto).
const std::map<std::string, std::vector<FieldSpec>>& Messages() {
  static const std::map<std::string, std::vector<FieldSpec>> m = {
      {"ObjectMeta",
       {{1, "name", Kind::kString}, {2, "generateName", Kind::kString}, {3, "namespace", Kind::kString},
        {5, "uid", Kind::kString}, {6, "resourceVersion", Kind::kString}, {11, "labels", Kind::kStringMap},
        {12, "annotations", Kind::kStringMap}, {14, "finalizers", Kind::kString, true}}},
      {"NamespaceSpec", {{1, "finalizers", Kind::kString, true}}},
      {"Namespace",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "spec", Kind::kMessage, false, "NamespaceSpec"}}},
      {"ConfigMap",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "data", Kind::kStringMap},
        {3, "binaryData", Kind::kBytesMap}, {4, "immutable", Kind::kBool}}},
      {"ObjectReference", {{1, "kind", Kind::kString}, {2, "namespace", Kind::kString}, {3, "name", Kind::kString}}},
      {"ServiceAccount",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"},
        {2, "secrets", Kind::kMessage, true, "ObjectReference"},
        {4, "automountServiceAccountToken", Kind::kBool}}},
      {"Secret",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "data", Kind::kBytesMap},
        {3, "type", Kind::kString}, {4, "stringData", Kind::kStringMap}, {5, "immutable", Kind::kBool}}},
      {"BoundObjectReference",
       {{1, "kind", Kind::kString}, {2, "apiVersion", Kind::kString}, {3, "name", Kind::kString},
        {4, "uid", Kind::kString}}},
      {"TokenRequestSpec",
       {{1, "audiences", Kind::kString, true}, {3, "boundObjectRef", Kind::kMessage, false, "BoundObjectReference"},
        {4, "expirationSeconds", Kind::kInt}}},
      {"TokenRequest",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "spec", Kind::kMessage, false, "TokenRequestSpec"}}},
      {"TokenReviewSpec", {{1, "token", Kind::kString}, {2, "audiences", Kind::kString, true}}},
      {"TokenReview",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "spec", Kind::kMessage, false, "TokenReviewSpec"}}},
      {"ResourceAttributes",
       {{1, "namespace", Kind::kString}, {2, "verb", Kind::kString}, {3, "group", Kind::kString},
        {4, "version", Kind::kString}, {5, "resource", Kind::kString}, {6, "subresource", Kind::kString},
        {7, "name", Kind::kString}}},
      {"NonResourceAttributes", {{1, "path", Kind::kString}, {2, "verb", Kind::kString}}},
      {"SelfSubjectAccessReviewSpec",
       {{1, "resourceAttributes", Kind::kMessage, false, "ResourceAttributes"},
        {2, "nonResourceAttributes", Kind::kMessage, false, "NonResourceAttributes"}}},
      {"SubjectAccessReviewSpec",
       {{1, "resourceAttributes", Kind::kMessage, false, "ResourceAttributes"},
        {2, "nonResourceAttributes", Kind::kMessage, false, "NonResourceAttributes"},
        {3, "user", Kind::kString}, {4, "groups", Kind::kString, true}, {6, "uid", Kind::kString}}},
      {"SelfSubjectAccessReview",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"},
        {2, "spec", Kind::kMessage, false, "SelfSubjectAccessReviewSpec"}}},
      {"SubjectAccessReview",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"},
        {2, "spec", Kind::kMessage, false, "SubjectAccessReviewSpec"}}},
      {"LocalSubjectAccessReview",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"},
        {2, "spec", Kind::kMessage, false, "SubjectAccessReviewSpec"}}},
      {"SelfSubjectRulesReviewSpec", {{1, "namespace", Kind::kString}}},
      {"SelfSubjectRulesReview",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"},
        {2, "spec", Kind::kMessage, false, "SelfSubjectRulesReviewSpec"}}},
      {"PolicyRule",
       {{1, "verbs", Kind::kString, true}, {2, "apiGroups", Kind::kString, true},
        {3, "resources", Kind::kString, true}, {4, "resourceNames", Kind::kString, true},
        {5, "nonResourceURLs", Kind::kString, true}}},
      {"LabelSelectorRequirement",
       {{1, "key", Kind::kString}, {2, "operator", Kind::kString}, {3, "values", Kind::kString, true}}},
      {"LabelSelector",
       {{1, "matchLabels", Kind::kStringMap},
        {2, "matchExpressions", Kind::kMessage, true, "LabelSelectorRequirement"}}},
      {"AggregationRule", {{1, "clusterRoleSelectors", Kind::kMessage, true, "LabelSelector"}}},
      {"Role", {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "rules", Kind::kMessage, true, "PolicyRule"}}},
      {"ClusterRole",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "rules", Kind::kMessage, true, "PolicyRule"},
        {3, "aggregationRule", Kind::kMessage, false, "AggregationRule"}}},
      {"Subject",
       {{1, "kind", Kind::kString}, {2, "apiGroup", Kind::kString}, {3, "name", Kind::kString},
        {4, "namespace", Kind::kString}}},
      {"RoleRef", {{1, "apiGroup", Kind::kString}, {2, "kind", Kind::kString}, {3, "name", Kind::kString}}},
      {"RoleBinding",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "subjects", Kind::kMessage, true, "Subject"},
        {3, "roleRef", Kind::kMessage, false, "RoleRef"}}},
      {"ClusterRoleBinding",
       {{1, "metadata", Kind::kMessage, false, "ObjectMeta"}, {2, "subjects", Kind::kMessage, true, "Subject"},
        {3, "roleRef", Kind::kMessage, false, "RoleRef"}}},
  };
  return m;
}

struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;
  std::string bytes;
};

ApiError Undecodable(const std::string& why) {
  ApiError e = ApiError::UnsupportedMediaType(kProtobufContentType);
  e.message = "the protobuf request body could not be decoded: " + why;
  return e;
}

std::optional<std::vector<WireField>> Fields(const std::string& data) {
  std::vector<WireField> out;
  size_t i = 0;
  auto varint = [&](uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= data.size()) return false;
      auto b = static_cast<unsigned char>(data[i++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  while (i < data.size()) {
    uint64_t key = 0;
    if (!varint(&key)) return std::nullopt;
    WireField f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire_type = static_cast<uint32_t>(key & 7);
    if (f.wire_type == 0) {
      if (!varint(&f.varint)) return std::nullopt;
    } else if (f.wire_type == 1 || f.wire_type == 5) {
      size_t n = f.wire_type == 1 ? 8 : 4;
      if (i + n > data.size()) return std::nullopt;
      i += n;
    } else if (f.wire_type == 2) {
      uint64_t n = 0;
      if (!varint(&n) || n > data.size() - i) return std::nullopt;
      f.bytes = data.substr(i, static_cast<size_t>(n));
      i += static_cast<size_t>(n);
    } else {
      return std::nullopt;
    }
    out.push_back(std::move(f));
  }
  return out;
}

Outcome<json> Decode(const std::string& message, const std::string& data);

// A map entry message {1: key, 2: value}.
Outcome<std::pair<std::string, std::string>> MapEntry(const std::string& data) {
  auto fields = Fields(data);
  if (!fields) return Undecodable("bad map entry");
  std::pair<std::string, std::string> kv;
  for (const auto& f : *fields) {
    if (f.wire_type != 2) continue;
    if (f.number == 1) kv.first = f.bytes;
    if (f.number == 2) kv.second = f.bytes;
  }
  return kv;
}

Outcome<json> Decode(const std::string& message, const std::string& data) {
  const auto& specs = Messages().at(message);
  auto fields = Fields(data);
  if (!fields) return Undecodable("malformed " + message);
  json out = json::object();
  for (const auto& f : *fields) {
    const FieldSpec* spec = nullptr;
    for (const auto& s : specs) {
      if (s.number == f.number) spec = &s;
    }
    if (spec == nullptr) continue;
    const bool varint = f.wire_type == 0;
    json value;
    switch (spec->kind) {
      case Kind::kString:
        if (varint) return Undecodable(message + "." + spec->name + ": expected bytes");
        value = f.bytes;
        break;
      case Kind::kInt:
        if (!varint) return Undecodable(message + "." + spec->name + ": expected a varint");
        value = static_cast<int64_t>(f.varint);
        break;
      case Kind::kBool:
        if (!varint) return Undecodable(message + "." + spec->name + ": expected a varint");
        value = f.varint != 0;
        break;
      case Kind::kMessage: {
        if (varint) return Undecodable(message + "." + spec->name + ": expected a message");
        auto sub = Decode(spec->message, f.bytes);
        if (!sub.ok()) return sub.error();
        value = std::move(sub).value();
        break;
      }
      case Kind::kStringMap:
      case Kind::kBytesMap: {
        if (varint) return Undecodable(message + "." + spec->name + ": expected a map entry");
        auto kv = MapEntry(f.bytes);
        if (!kv.ok()) return kv.error();
        if (!out.contains(spec->name)) out[spec->name] = json::object();
        out[spec->name][kv.value().first] =
            spec->kind == Kind::kBytesMap ? Base64Encode(kv.value().second) : kv.value().second;
        continue;
      }
    }
    if (spec->repeated) {
      if (!out.contains(spec->name)) out[spec->name] = json::array();
      out[spec->name].push_back(std::move(value));
      continue;
    }
    // proto3 leaves out empty values; keep JSON the same.
    if ((value.is_string() && value.get<std::string>().empty()) || (value.is_boolean() && !value.get<bool>()) ||
        (value.is_number_integer() && value.get<int64_t>() == 0)) {
      continue;
    }
    out[spec->name] = std::move(value);
  }
  return out;
}

}  // namespace

bool IsProtobufContentType(const std::string& content_type) {
  return content_type.substr(0, content_type.find(';')) == kProtobufContentType;
}

Outcome<json> ProtobufToJson(const std::string& body) {
  static const std::string magic("k8s\0", 4);
  if (body.compare(0, magic.size(), magic) != 0) return Undecodable("missing the k8s magic prefix");
  auto unknown = Fields(body.substr(magic.size()));
  if (!unknown) return Undecodable("malformed runtime.Unknown");
  std::string api_version, kind, raw;
  for (const auto& f : *unknown) {
    if (f.number == 1 && f.wire_type == 2) {
      auto type_meta = Fields(f.bytes);
      if (!type_meta) return Undecodable("malformed TypeMeta");
      for (const auto& t : *type_meta) {
        if (t.number == 1 && t.wire_type == 2) api_version = t.bytes;
        if (t.number == 2 && t.wire_type == 2) kind = t.bytes;
      }
    }
    if (f.number == 2 && f.wire_type == 2) raw = f.bytes;
  }
  static const std::vector<std::string> top_level = {
      "Namespace", "ConfigMap", "ServiceAccount", "Secret", "TokenRequest", "TokenReview", "SubjectAccessReview", "SelfSubjectAccessReview",
      "LocalSubjectAccessReview", "SelfSubjectRulesReview", "Role", "ClusterRole", "RoleBinding",
      "ClusterRoleBinding"};
  if (std::find(top_level.begin(), top_level.end(), kind) == top_level.end()) {
    return Undecodable("kind \"" + kind + "\" is not accepted in protobuf");
  }
  auto obj = Decode(kind, raw);
  if (!obj.ok()) return obj.error();
  json out = std::move(obj).value();
  out["apiVersion"] = api_version;
  out["kind"] = kind;
  return out;
}

}  // namespace kubeon::kubesim
