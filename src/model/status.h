// Errors as values.
//
// Status is either OK or an error: a code that callers branch on
// (StatusCode: not found, conflict, forbidden, unavailable, ...) and a
// message meant for a person that names the file, line, object and field
// that is wrong ("policy.yaml:12: policy \"gpu-sharing\": spec.mig.headroom:
// ...").  Callers test code(), never the message's text.  Result<T> holds a
// T or a failed Status.  Both are [[nodiscard]]: an error is handled or
// passed on, never dropped (an intentional drop says so with a comment and
// a (void) cast).  Nothing in this project throws across a module boundary;
// parsers of third-party formats catch their library's exceptions and return
// Status.
//
// Invariant: a Result constructed from a Status holds a failed Status
// (constructing one from Status::Ok() is a programming error and aborts).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kubeon {

// What kind of error a Status is.  For Kubernetes API answers the code comes
// from the metav1.Status reason, not the HTTP status alone (kube/client.h):
// 409 is Conflict or AlreadyExists, 429 is a PodDisruptionBudget refusing an
// eviction (kDisruptionBudget) or API Priority and Fairness throttling
// (kThrottled, with a Retry-After), 410 an expired watch (kExpired).
enum class StatusCode {
  kOk = 0,
  kUnknown,           // an error of no particular kind
  kInvalid,           // bad input: a file, a flag, an object (422, 400)
  kNotFound,          // 404
  kAlreadyExists,     // 409 AlreadyExists
  kConflict,          // 409 Conflict, or a store's revision check
  kForbidden,         // 403
  kUnauthorized,      // 401
  kDisruptionBudget,  // 429 on an eviction: a PodDisruptionBudget forbids it now
  kThrottled,         // 429 otherwise: API Priority and Fairness; honour Retry-After
  kUnavailable,       // no answer, a timeout, 5xx: may work when tried again
  kExpired,           // 410 Gone: an expired resourceVersion or watch
  kAborted,           // the caller stopped the operation (an update function, a deadline)
  kTooLarge,          // a response or file over a cap
  kUnsupported,       // written by a newer version of this program (a record's version)
  kInternal,          // this program's own invariant broken
};

// "NotFound", "Conflict", ...: the code's name, as logs and tests print it.
const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  static Status Error(std::string message, StatusCode code = StatusCode::kUnknown) {
    Status s;
    s.message_ = std::move(message);
    s.code_ = code == StatusCode::kOk ? StatusCode::kUnknown : code;
    return s;
  }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Returns a copy whose message is "<prefix>: <message>", with the same code.
  Status WithPrefix(const std::string& prefix) const {
    if (ok()) return *this;
    return Error(prefix + ": " + message_, code_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kUnknown: return "Unknown";
    case StatusCode::kInvalid: return "Invalid";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kForbidden: return "Forbidden";
    case StatusCode::kUnauthorized: return "Unauthorized";
    case StatusCode::kDisruptionBudget: return "DisruptionBudget";
    case StatusCode::kThrottled: return "Throttled";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kExpired: return "Expired";
    case StatusCode::kAborted: return "Aborted";
    case StatusCode::kTooLarge: return "TooLarge";
    case StatusCode::kUnsupported: return "Unsupported";
    case StatusCode::kInternal: return "Internal";
  }
  return "Unknown";
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status error) : v_(std::move(error)) {  // NOLINT(google-explicit-constructor)
    if (std::get<Status>(v_).ok()) std::abort();  // REQUIRES: error is a failure
  }
  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // REQUIRES: !ok()
  const Status& status() const { return std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace kubeon
