// Test-only lookup of the real kubectl binaries installed on the machine:
// `kubectl` on PATH and the kubectl.1.27 ... kubectl.1.33 next to the file
// that PATH entry really is (the Google Cloud SDK layout).  A test asks
// for a name and skips when it gets "".
#pragma once

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

namespace kubeon::kubesim::testing {

inline std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path != nullptr ? path : "";
  size_t start = 0;
  while (start <= p.size()) {
    size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = dir + "/" + name;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

// "kubectl" or "kubectl.1.NN" -> its path, or "" when not installed.
inline std::string KubectlPath(const std::string& name) {
  std::string main = FindOnPath("kubectl");
  if (main.empty()) return "";
  if (name == "kubectl") return main;
  char real[PATH_MAX];
  if (realpath(main.c_str(), real) == nullptr) return "";
  std::string dir(real);
  dir = dir.substr(0, dir.rfind('/'));
  std::string candidate = dir + "/" + name;
  return access(candidate.c_str(), X_OK) == 0 ? candidate : "";
}

}  // namespace kubeon::kubesim::testing
