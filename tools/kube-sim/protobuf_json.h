// Kubernetes protobuf request bodies (Content-Type
// application/vnd.kubernetes.protobuf) as the JSON objects they stand for.
//
// kubectl's typed clients (create serviceaccount/secret/rolebinding/...,
// create token, auth can-i) send protobuf.  The body is the 4-byte magic
// "k8s\0" and a runtime.Unknown {1: TypeMeta {1: apiVersion, 2: kind},
// 2: raw (the object's message)}.  The object is decoded by a field table
// (data, in protobuf_json.cc) for the kinds kube-sim takes in protobuf:
// Namespace, ConfigMap, ServiceAccount, Secret, TokenRequest, TokenReview, SubjectAccessReview,
// SelfSubjectAccessReview, LocalSubjectAccessReview,
// SelfSubjectRulesReview, Role, ClusterRole, RoleBinding,
// ClusterRoleBinding (field numbers of k8s.io/api's generated.proto).
// Fields outside the table are skipped; proto3 does not send empty values,
// so empty strings, zeros and false are left out of the JSON.  Secret data
// (bytes) become base64 strings, as in JSON.
//
// Errors (malformed wire data, an unknown kind) are 415
// UnsupportedMediaType, what the API server answers a body it cannot
// decode; callers answer JSON either way.
#pragma once

#include <string>

#include "api_error.h"

namespace kubeon::kubesim {

inline constexpr const char* kProtobufContentType = "application/vnd.kubernetes.protobuf";

// True when `content_type` is the Kubernetes protobuf media type.
bool IsProtobufContentType(const std::string& content_type);

Outcome<json> ProtobufToJson(const std::string& body);

}  // namespace kubeon::kubesim
