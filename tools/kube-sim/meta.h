// Small read helpers over Kubernetes objects held as JSON, and time/ID
// formatting shared by the store and the controllers.
//
// Readers never throw: a missing or mistyped field reads as empty.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

namespace kubeon::kubesim {

using json = nlohmann::json;
using TimePoint = std::chrono::system_clock::time_point;

// The value at `path` if every step exists, else nullptr.
const json* Find(const json& obj, std::initializer_list<const char*> path);
// The string at `path`, or "" when absent or not a string.
std::string Str(const json& obj, std::initializer_list<const char*> path);
// The integer at `path`, or `fallback` when absent or not a number.
int64_t Int(const json& obj, std::initializer_list<const char*> path, int64_t fallback);

std::string Name(const json& obj);
std::string Namespace(const json& obj);
std::string Uid(const json& obj);
// metadata.labels as an object (an empty object when absent).
const json& Labels(const json& obj);
// metadata.ownerReferences entry with controller: true, or nullptr.
const json* ControllerRef(const json& obj);

// Pods.
const std::string& PodPhase(const json& pod);    // "Pending" when absent
bool IsPodReady(const json& pod);                 // Ready condition True
bool IsPodTerminal(const json& pod);              // Succeeded or Failed
bool IsPodDeleting(const json& pod);              // metadata.deletionTimestamp set
bool IsPodActive(const json& pod);                // not terminal, not deleting

// Nodes.
bool IsNodeReady(const json& node);               // Ready condition True (no conditions: Ready)

// RFC 3339 UTC with second precision ("2024-05-01T10:00:00Z").
std::string Rfc3339(TimePoint t);
// The inverse of Rfc3339 (a "Z" time with second precision); nullopt when
// `text` is not one.
std::optional<TimePoint> ParseRfc3339(const std::string& text);

// A version-4 style UUID string from `rng`.
std::string NewUid(std::mt19937_64& rng);
// `n` characters from the alphabet Kubernetes uses for generated names.
std::string RandomSuffix(std::mt19937_64& rng, int n);
// FNV-1a 32-bit hash of `text`, encoded with the same alphabet
// (the shape of a pod-template-hash).
std::string SafeHash(const std::string& text);

}  // namespace kubeon::kubesim
