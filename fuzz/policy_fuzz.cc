// Fuzz harness: policy YAML (policy::ParsePolicies, the reader behind
// `--policy FILE`), checked against the contract in policy/gpu_policy.h.
//
// Invariants checked on every input, beyond "no crash":
//  - no exception escapes;
//  - an error is non-empty and every line of it is one problem that starts
//    with the file name (`fuzz.yaml:<line>: ...`), none blank;
//  - a parsed file holds at least one policy, names are unique, and each
//    policy keeps the validated ranges (0 <= headroom <= 2,
//    1 <= maxReplicas <= 64, 1 <= maxNodesPerPool <= 100), names only
//    existing, distinct MIG profiles, and has a window when its mode is
//    Approve or Auto.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "mig/catalog.h"
#include "policy/gpu_policy.h"

namespace {

constexpr std::string_view kFile = "fuzz.yaml";

void CheckError(const std::string& message) {
  FUZZ_CHECK(!message.empty(), std::string("empty error"));
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    const std::string_view line(message.data() + start, end - start);
    FUZZ_CHECK(line.substr(0, kFile.size() + 1) == std::string(kFile) + ":",
               "error line does not name the file: " + std::string(line.substr(0, 200)));
    FUZZ_CHECK(line.find('\r') == std::string_view::npos, "carriage return in error: " + message.substr(0, 200));
    start = end + 1;
  }
}

void CheckPolicies(const std::vector<kubeon::policy::GpuPolicy>& policies,
                   const kubeon::policy::ProfileExistsFn& exists) {
  using kubeon::policy::Mode;
  FUZZ_CHECK(!policies.empty(), std::string("a parsed file without any policy"));
  std::set<std::string> names;
  for (const auto& p : policies) {
    FUZZ_CHECK(names.insert(p.name).second, "duplicate policy name " + p.name);
    FUZZ_CHECK(p.file == kFile, "file " + p.file);
    FUZZ_CHECK(p.line >= 1, "line " + std::to_string(p.line));
    FUZZ_CHECK(std::isfinite(p.headroom) && p.headroom >= 0 && p.headroom <= 2,
               "headroom " + std::to_string(p.headroom));
    FUZZ_CHECK(p.max_replicas >= 1 && p.max_replicas <= kubeon::policy::kMaxReplicasLimit,
               "maxReplicas " + std::to_string(p.max_replicas));
    FUZZ_CHECK(p.max_nodes_per_pool >= 1 && p.max_nodes_per_pool <= kubeon::policy::kMaxNodesPerPoolLimit,
               "maxNodesPerPool " + std::to_string(p.max_nodes_per_pool));
    FUZZ_CHECK(p.mode == Mode::kProposal || p.window.has_value(), "no window in mode " + std::string(ModeName(p.mode)));
    std::set<std::string> profiles;
    for (const auto& prof : p.allowed_profiles) {
      FUZZ_CHECK(profiles.insert(prof).second, "duplicate profile " + prof);
      FUZZ_CHECK(exists(prof), "unknown profile accepted: " + prof);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = kubeon::fuzz::AsText(data, size);
  const auto& catalog = kubeon::mig::MigCatalog::Builtin();
  const kubeon::policy::ProfileExistsFn exists = [&](std::string_view name) { return catalog.ProfileExists(name); };
  kubeon::fuzz::NoExceptionEscapes([&] {
    auto result = kubeon::policy::ParsePolicies(text, kFile, exists);
    if (result.ok()) {
      CheckPolicies(*result, exists);
    } else {
      CheckError(result.status().message());
    }
  });
  return 0;
}
