// See audit_log.h.
#include "audit_log.h"

#include <fstream>
#include <memory>

namespace kubeon::kubesim {

Outcome<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return ApiError::BadRequest("--audit-log " + path + ": cannot open for writing");
  return std::unique_ptr<AuditLog>(new AuditLog(f));
}

AuditLog::~AuditLog() { std::fclose(file_); }

json AuditEntry(const UserInfo* user, const RequestAttributes& a, int code) {
  json e = {{"user", user != nullptr ? user->username : ""},
            {"groups", user != nullptr ? json(user->groups) : json::array()},
            {"verb", a.verb},
            {"apiGroup", a.api_group},
            {"resource", a.resource},
            {"subresource", a.subresource},
            {"namespace", a.ns},
            {"name", a.name},
            {"code", code}};
  if (!a.resource_request) e["path"] = a.path;
  return e;
}

void AuditLog::Record(const UserInfo* user, const RequestAttributes& a, int code) {
  std::string line = AuditEntry(user, a, code).dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

Outcome<std::vector<json>> ReadAuditLog(const std::string& path) {
  std::ifstream in(path);
  if (!in) return ApiError::BadRequest(path + ": cannot read");
  std::vector<json> out;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (!j.is_object()) return ApiError::BadRequest(path + ":" + std::to_string(n) + ": not a JSON object");
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace kubeon::kubesim
