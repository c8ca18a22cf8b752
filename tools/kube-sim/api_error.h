// Kubernetes API errors as values, and their metav1.Status wire form.
//
// ApiError carries what a real kube-apiserver puts in a failure Status:
// the HTTP code, the machine reason (NotFound, AlreadyExists, Conflict,
// Invalid, BadRequest, TooManyRequests, Expired, InternalError, ...), a
// message for people and optional details ({name, group, kind, causes}).
// Outcome<T> holds either a T or an ApiError; nothing in kube-sim throws
// across a file boundary.
//
// Invariant: an Outcome built from an ApiError is a failure; code >= 400.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>
#include <utility>

#include <nlohmann/json.hpp>

namespace kubeon::kubesim {

using json = nlohmann::json;

struct ApiError {
  int code = 500;
  std::string reason = "InternalError";
  std::string message;
  json details;  // null, or a StatusDetails object

  // The metav1.Status body a client receives.
  json ToStatus() const;

  // `resource` is the plural ("pods"), `group` "" for the core group.
  static ApiError NotFound(const std::string& group, const std::string& resource,
                           const std::string& name);
  static ApiError AlreadyExists(const std::string& group, const std::string& resource,
                                const std::string& name);
  static ApiError Conflict(const std::string& group, const std::string& resource,
                           const std::string& name, const std::string& why);
  static ApiError Invalid(const std::string& group, const std::string& kind,
                          const std::string& name, const std::string& why);
  // 422 with one cause per problem; each problem is "<field>: <what>"
  // ("spec.mode: Unsupported value: ..."), the cause's reason follows
  // <what> (FieldValueRequired, FieldValueNotSupported, FieldValueInvalid,
  // ...); message `<Kind>.<group> "<name>" is invalid: ...`.  REQUIRES: problems non-empty.
  static ApiError InvalidFields(const std::string& group, const std::string& kind, const std::string& name,
                                const std::vector<std::string>& problems);
  static ApiError BadRequest(const std::string& message);
  static ApiError Expired(const std::string& message);
  static ApiError TooManyRequests(const std::string& message);
  static ApiError Internal(const std::string& message);
  static ApiError MethodNotAllowed(const std::string& message);
  static ApiError UnsupportedMediaType(const std::string& content_type);
  static ApiError Unauthorized();
};

// "pods" or "deployments.apps": how the apiserver names a resource in messages.
std::string QualifiedResource(const std::string& group, const std::string& resource);

// The Status body of a successful operation (eviction, delete of some kinds).
json SuccessStatus(int code);

template <typename T>
class Outcome {
 public:
  Outcome(T value) : value_(std::move(value)) {}           // NOLINT
  Outcome(ApiError error) : error_(std::move(error)) {      // NOLINT
    if (error_.code < 400) std::abort();  // REQUIRES: a failure code
  }
  bool ok() const { return value_.has_value(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const ApiError& error() const { return error_; }

 private:
  std::optional<T> value_;
  ApiError error_;
};

}  // namespace kubeon::kubesim
