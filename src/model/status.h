// Errors as values.
//
// Status is either OK or an error message meant for a person: it names the
// file, line, object and field that is wrong ("policy.yaml:12: policy
// \"gpu-sharing\": spec.mig.headroom: ...").  Result<T> holds a T or a failed
// Status.  Nothing in this project throws across a module boundary; parsers
// of third-party formats catch their library's exceptions and return Status.
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

class Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    s.failed_ = true;
    return s;
  }
  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }
  // Returns a copy whose message is "<prefix>: <message>".
  Status WithPrefix(const std::string& prefix) const {
    if (ok()) return *this;
    return Error(prefix + ": " + message_);
  }

 private:
  bool failed_ = false;
  std::string message_;
};

template <typename T>
class Result {
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
