// Test-only helpers for driving kube-sim with the real kubectl binaries:
// finding `kubectl` on PATH and the kubectl.1.NN next to the file it
// resolves to, and running one of them against a kube-sim subprocess.
// A kubectl that is not installed resolves to "" (tests skip it).
#pragma once

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_process.h"

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

// `kubectl` resolves to the PATH entry; "kubectl.1.NN" lives beside the
// file that entry really is.
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

// Runs `kubectl` (a path) with its own cache dir and HOME under `dir`.
inline RunResult RunKubectl(const std::string& kubectl, const std::string& kubeconfig, const std::string& dir,
                            std::vector<std::string> args, int timeout_sec = 30) {
  std::vector<std::string> argv = {kubectl, "--kubeconfig", kubeconfig, "--cache-dir", dir + "/cache",
                                   "--request-timeout", "15s"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, timeout_sec, {"HOME=" + dir, "KUBECONFIG="});
}

}  // namespace kubeon::kubesim::testing
