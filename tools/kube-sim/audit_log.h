// The request audit log (kube-sim --audit-log FILE): one JSON object per
// line for every API request, after it is answered:
//   {"user": "...", "groups": [...], "verb": "get", "apiGroup": "apps",
//    "resource": "deployments", "subresource": "", "namespace": "ml",
//    "name": "svc-0", "code": 200}
// plus "path" for non-resource requests (the verb is then the lower-case
// method).  Unauthenticated requests (401) have user "" and no groups.
// Used to derive the least-privilege RBAC of a client from what it really
// calls (tests read it back with ReadAuditLog).
//
// Thread-safe: Record serializes writers and flushes each line, so the file
// is complete whenever a request has been answered.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api_error.h"
#include "identity.h"
#include "request_attributes.h"

namespace kubeon::kubesim {

class AuditLog {
 public:
  // Opens (creates or appends to) `path`.
  static Outcome<std::unique_ptr<AuditLog>> Open(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  void Record(const UserInfo* user, const RequestAttributes& a, int code);

 private:
  explicit AuditLog(std::FILE* f) : file_(f) {}
  std::mutex mu_;
  std::FILE* file_;
};

// The line Record writes.
json AuditEntry(const UserInfo* user, const RequestAttributes& a, int code);

// The entries of an audit log file, in order; an unreadable file or a bad
// line is an error naming it.
Outcome<std::vector<json>> ReadAuditLog(const std::string& path);

}  // namespace kubeon::kubesim
