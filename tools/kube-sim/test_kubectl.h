// Test-only helpers for driving kube-sim with the real kubectl binaries
// installed on the machine: `kubectl` on PATH and the kubectl.1.27 ...
// kubectl.1.33 next to the file that PATH entry really is (the Google Cloud
// SDK layout), and a fixture that runs kube-sim (testdata/small.json) in a
// temporary directory for one of them, skipping when it is not installed.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <memory>
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

// A gtest parameter name for a kubectl binary ("kubectl.1.27" -> "kubectl_1_27").
inline std::string KubectlTestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n) {
    if (c == '.') c = '_';
  }
  return n;
}

// Base fixture: StartSim(binary) from SetUp() (it skips the test when the
// binary is missing), then Kubectl(args) against the simulator; TearDown
// stops kube-sim (it must exit 0 on SIGTERM) and removes the directory.
template <typename Param>
class KubectlSimTest : public ::testing::TestWithParam<Param> {
 protected:
  // `extra`: more kube-sim flags (e.g. {"--settings", "{...}"}); an
  // argument "$DIR" or starting with "$DIR/" names the temporary directory.
  void StartSim(const std::string& binary, std::vector<std::string> extra = {}) {
    kubectl_ = KubectlPath(binary);
    if (kubectl_.empty()) GTEST_SKIP() << binary << " is not installed";
    dir_ = MakeTempDir("kubesim-kubectl-");
    ASSERT_FALSE(dir_.empty());
    for (auto& arg : extra) {
      if (arg == "$DIR" || arg.rfind("$DIR/", 0) == 0) arg = dir_ + arg.substr(4);
    }
    sim_ = std::make_unique<SimProcess>(KUBE_SIM_BINARY, std::string(KUBESIM_TESTDATA) + "/small.json", dir_, extra);
    ASSERT_TRUE(sim_->ready()) << "kube-sim did not start: " << sim_->Stderr();
  }
  void TearDown() override {
    if (sim_) {
      EXPECT_EQ(sim_->Stop(), 0) << "kube-sim did not exit cleanly on SIGTERM";
    }
    if (!dir_.empty()) RunProcess({"rm", "-rf", dir_}, 30);
  }
  RunResult Kubectl(std::vector<std::string> args, int timeout_sec = 30) {
    return KubectlWith(sim_->kubeconfig(), std::move(args), timeout_sec);
  }
  // As Kubectl, with another kubeconfig (another user of the same cluster).
  RunResult KubectlWith(const std::string& kubeconfig, std::vector<std::string> args, int timeout_sec = 30) {
    std::vector<std::string> argv = {kubectl_, "--kubeconfig", kubeconfig, "--cache-dir", dir_ + "/cache",
                                     "--request-timeout", "15s"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, timeout_sec, {"HOME=" + dir_, "KUBECONFIG="});
  }

  std::string kubectl_;
  std::string dir_;
  std::unique_ptr<SimProcess> sim_;
};

}  // namespace kubeon::kubesim::testing
