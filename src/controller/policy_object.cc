// See policy_object.h.
#include "controller/policy_object.h"

#include <cctype>
#include <sstream>

namespace kubeon::controller {

Result<policy::GpuPolicy> ParsePolicyObject(const nlohmann::json& object, const policy::ProfileExistsFn& exists) {
  std::string name = "(unnamed)";
  nlohmann::json doc = nlohmann::json::object();
  // Items of a list carry no apiVersion and kind (the list does): they are the GpuPolicy's.
  doc["apiVersion"] = object.value("apiVersion", std::string(policy::kPolicyApiVersion));
  doc["kind"] = object.value("kind", std::string(policy::kPolicyKind));
  if (object.contains("spec")) doc["spec"] = object["spec"];
  if (object.contains("metadata") && object["metadata"].is_object()) {
    const nlohmann::json& m = object["metadata"];
    doc["metadata"] = nlohmann::json::object();
    for (const char* key : {"name", "labels", "annotations"}) {
      if (m.contains(key)) doc["metadata"][key] = m[key];
    }
    if (m.contains("name") && m["name"].is_string()) name = m["name"].get<std::string>();
  }
  const std::string label = "GpuPolicy " + name;
  Result<std::vector<policy::GpuPolicy>> parsed = policy::ParsePolicies(doc.dump(2), label, exists);
  if (!parsed.ok()) {
    // "<label>:<line>: policy \"<name>\": <path>: <problem>" -> "<label>: <path>: <problem>"
    std::istringstream lines(parsed.status().message());
    std::string line, out;
    const std::string policy_prefix = "policy \"" + name + "\": ";
    while (std::getline(lines, line)) {
      if (line.rfind(label + ":", 0) == 0) {
        size_t rest = label.size() + 1;
        while (rest < line.size() && std::isdigit(static_cast<unsigned char>(line[rest]))) ++rest;
        if (rest < line.size() && line[rest] == ':') ++rest;
        while (rest < line.size() && line[rest] == ' ') ++rest;
        line = line.substr(rest);
        if (line.rfind(policy_prefix, 0) == 0) line = line.substr(policy_prefix.size());
        line = label + ": " + line;
      }
      out += (out.empty() ? "" : "\n") + line;
    }
    return Status::Error(out);
  }
  if (parsed->size() != 1) return Status::Error(label + ": not one GpuPolicy");
  policy::GpuPolicy p = std::move(parsed->front());
  p.file = label;
  return p;
}

}  // namespace kubeon::controller
