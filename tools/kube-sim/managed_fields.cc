// See managed_fields.h.
#include "managed_fields.h"

namespace kubeon::kubesim {

std::string FieldManagerOf(const std::string& field_manager_param, const std::string& user_agent) {
  std::string m = !field_manager_param.empty() ? field_manager_param : user_agent.substr(0, user_agent.find('/'));
  if (m.empty()) m = "unknown";
  return m.substr(0, 128);
}

void RecordManagedFields(json& obj, const ManagedWrite& w, TimePoint now) {
  json& meta = obj["metadata"];
  json& entries = meta["managedFields"];
  if (!entries.is_array()) entries = json::array();
  json entry = {{"manager", w.manager},           {"operation", w.operation},
                {"apiVersion", w.api_version},     {"time", Rfc3339(now)},
                {"fieldsType", "FieldsV1"},        {"fieldsV1", json::object()}};
  if (!w.subresource.empty()) entry["subresource"] = w.subresource;
  for (json& e : entries) {
    if (e.is_object() && e.value("manager", "") == w.manager && e.value("operation", "") == w.operation &&
        e.value("subresource", "") == w.subresource) {
      e = std::move(entry);
      return;
    }
  }
  entries.push_back(std::move(entry));
}

}  // namespace kubeon::kubesim
