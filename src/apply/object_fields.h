// Fields of Kubernetes API objects (as JSON) the executor reads, merges and
// compares.  Pure functions, no I/O.
//
//  - Quantity: an integer quantity ("4", 4); anything else is 0 (GPU
//    resources are whole numbers).
//  - PodGpuRequests: resource name -> amount a pod (or pod template) asks
//    for, over containers and initContainers, of nvidia.com/gpu,
//    nvidia.com/gpu.shared and nvidia.com/mig-*; a container's request, else
//    its limit (Kubernetes defaults the request to the limit).
//  - StrategicMerge: the subset of a strategic merge patch the planner's
//    owner patches use: objects merge key by key (null removes a key, and is
//    never stored), lists of objects that carry "name" merge by name
//    (containers, initContainers, env, volumes), other lists are replaced.
//  - FieldPath: a JSON pointer as a person reads a field,
//    /spec/containers/0/resources/requests/nvidia.com~1gpu ->
//    .spec.containers[0].resources.requests["nvidia.com/gpu"].
//  - FirstDrift: whether `current` still holds, at every field where
//    `before` and `after` differ, the value `after` has there; "" when it
//    does, else "<FieldPath>: expected X, found Y" for the first that does
//    not ("(absent)" for a missing field).  An element appended to a list
//    is checked at its index.
//  - RestoreFields: `current` with the fields where `before` and `after`
//    differ put back to `before`, everything else (someone else's edits)
//    kept; nullopt when FirstDrift finds one of those fields changed, or the
//    lists they are in no longer line up.
//  - Accessors that never throw on a missing or mistyped field: OptStr (a
//    string field or nullopt), Labels / Annotations (an object, {} when
//    absent), IsTerminal (phase Succeeded or Failed), PodName ("ns/name"),
//    IsUnschedulable (a node's spec.unschedulable is true), GracePeriodSeconds
//    (a pod's spec.terminationGracePeriodSeconds, 30 when absent or not an
//    integer, never negative).
//  - Paths: NodePath, OwnerPath (Deployment, StatefulSet or ReplicaSet).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kubeon::apply {

int64_t Quantity(const nlohmann::json& v);
bool IsGpuResource(const std::string& name);
std::map<std::string, int64_t> PodGpuRequests(const nlohmann::json& pod);
void StrategicMerge(nlohmann::json& target, const nlohmann::json& patch);
std::string FieldPath(const std::string& json_pointer);
std::string FirstDrift(const nlohmann::json& before, const nlohmann::json& after, const nlohmann::json& current);
std::optional<nlohmann::json> RestoreFields(const nlohmann::json& before, const nlohmann::json& after,
                                            const nlohmann::json& current);

std::optional<std::string> OptStr(const nlohmann::json& obj, const char* key);
nlohmann::json Labels(const nlohmann::json& obj);
nlohmann::json Annotations(const nlohmann::json& obj);
bool IsTerminal(const nlohmann::json& pod);
std::string PodName(const nlohmann::json& pod);
bool IsUnschedulable(const nlohmann::json& node);
int64_t GracePeriodSeconds(const nlohmann::json& pod);

std::string NodePath(const std::string& node);
std::string OwnerPath(const std::string& kind, const std::string& ns, const std::string& name);

}  // namespace kubeon::apply
