// Base64 (RFC 4648): the standard alphabet with padding (kubeconfig
// *-data fields) and the raw URL alphabet without padding (continue tokens).
#pragma once

#include <optional>
#include <string>

namespace kubeon::kubesim {

std::string Base64Encode(const std::string& data);
std::string Base64UrlEncode(const std::string& data);
// Accepts either alphabet, with or without padding; nullopt on bad input.
std::optional<std::string> Base64Decode(const std::string& text);

}  // namespace kubeon::kubesim
