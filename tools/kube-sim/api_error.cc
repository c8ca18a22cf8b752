// See api_error.h.  Messages follow k8s.io/apimachinery/pkg/api/errors.
#include "api_error.h"

namespace kubeon::kubesim {

std::string QualifiedResource(const std::string& group, const std::string& resource) {
  return group.empty() ? resource : resource + "." + group;
}

json ApiError::ToStatus() const {
  json s = {{"kind", "Status"},          {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"},       {"message", message}, {"reason", reason},
            {"code", code}};
  if (!details.is_null()) s["details"] = details;
  return s;
}

json SuccessStatus(int code) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Success"}, {"code", code}};
}

namespace {

json Details(const std::string& group, const std::string& resource, const std::string& name) {
  json d = {{"name", name}, {"kind", resource}};
  if (!group.empty()) d["group"] = group;
  return d;
}

ApiError Make(int code, std::string reason, std::string message, json details = nullptr) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.details = std::move(details);
  return e;
}

}  // namespace

ApiError ApiError::NotFound(const std::string& group, const std::string& resource,
                            const std::string& name) {
  return Make(404, "NotFound",
              QualifiedResource(group, resource) + " \"" + name + "\" not found",
              Details(group, resource, name));
}

ApiError ApiError::AlreadyExists(const std::string& group, const std::string& resource,
                                 const std::string& name) {
  return Make(409, "AlreadyExists",
              QualifiedResource(group, resource) + " \"" + name + "\" already exists",
              Details(group, resource, name));
}

ApiError ApiError::Conflict(const std::string& group, const std::string& resource,
                            const std::string& name, const std::string& why) {
  return Make(409, "Conflict",
              "Operation cannot be fulfilled on " + QualifiedResource(group, resource) + " \"" +
                  name + "\": " + why,
              Details(group, resource, name));
}

ApiError ApiError::Invalid(const std::string& group, const std::string& kind,
                           const std::string& name, const std::string& why) {
  json d = {{"name", name}, {"kind", kind}, {"causes", json::array({{{"message", why}}})}};
  if (!group.empty()) d["group"] = group;
  return Make(422, "Invalid", kind + " \"" + name + "\" is invalid: " + why, std::move(d));
}

ApiError ApiError::InvalidFields(const std::string& group, const std::string& kind, const std::string& name,
                                 const std::vector<std::string>& problems) {
  static const std::pair<const char*, const char*> kReasons[] = {
      {"Required value", "FieldValueRequired"},        {"Unsupported value", "FieldValueNotSupported"},
      {"Forbidden", "FieldValueForbidden"},            {"Too many", "FieldValueTooMany"},
      {"Too long", "FieldValueTooLong"},               {"Duplicate value", "FieldValueDuplicate"},
      {"Invalid value", "FieldValueInvalid"},          {"Internal error", "InternalError"}};
  json causes = json::array();
  std::string joined;
  for (const auto& p : problems) {
    size_t colon = p.find(": ");
    std::string field = colon == std::string::npos ? "" : p.substr(0, colon);
    std::string what = colon == std::string::npos ? p : p.substr(colon + 2);
    std::string reason = "FieldValueInvalid";
    for (const auto& [prefix, r] : kReasons) {
      if (what.rfind(prefix, 0) == 0) reason = r;
    }
    causes.push_back({{"reason", reason}, {"message", what}, {"field", field}});
    joined += (joined.empty() ? "" : ", ") + p;
  }
  json d = {{"name", name}, {"kind", kind}, {"causes", causes}};
  if (!group.empty()) d["group"] = group;
  std::string why = problems.size() == 1 ? joined : "[" + joined + "]";
  std::string qualified = group.empty() ? kind : kind + "." + group;  // "GpuPolicy.gpu.kubeon.io"
  return Make(422, "Invalid", qualified + " \"" + name + "\" is invalid: " + why, std::move(d));
}

ApiError ApiError::BadRequest(const std::string& message) {
  return Make(400, "BadRequest", message);
}

ApiError ApiError::Expired(const std::string& message) { return Make(410, "Expired", message); }

ApiError ApiError::TooManyRequests(const std::string& message) {
  return Make(429, "TooManyRequests", message);
}

ApiError ApiError::Internal(const std::string& message) {
  return Make(500, "InternalError", "Internal error occurred: " + message,
              json{{"causes", json::array({{{"message", message}}})}});
}

ApiError ApiError::MethodNotAllowed(const std::string& message) {
  return Make(405, "MethodNotAllowed", message);
}

ApiError ApiError::UnsupportedMediaType(const std::string& content_type) {
  return Make(415, "UnsupportedMediaType",
              "the body of the request was in an unknown format - accepted media types "
              "include: application/json, application/merge-patch+json, "
              "application/strategic-merge-patch+json, application/json-patch+json (got \"" +
                  content_type + "\")");
}

ApiError ApiError::Unauthorized() { return Make(401, "Unauthorized", "Unauthorized"); }

}  // namespace kubeon::kubesim
