// Kubernetes resource quantities ("500m", "2", "16Gi", "1e3") as numbers.
//
// ParseQuantity returns the value in base units (cores, bytes, devices) or
// nullopt for text that is not a quantity.  Precision is that of a double,
// exact for every integer below 2^53, which covers device counts, bytes and
// millicores.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kubeon::kubesim {

std::optional<double> ParseQuantity(const std::string& text);
// A JSON quantity: a string or a number; nullopt otherwise.
std::optional<double> QuantityOf(const nlohmann::json& value);

// Resource name -> amount, summed over what a pod requests: the sum of its
// containers' requests (limits stand in when a request is absent, as the
// API server defaults them), or the largest init container request if that
// is bigger.
using ResourceList = std::map<std::string, double>;
ResourceList PodRequests(const nlohmann::json& pod);
// status.allocatable (or capacity when allocatable is absent) of a node.
ResourceList NodeAllocatable(const nlohmann::json& node);

}  // namespace kubeon::kubesim
