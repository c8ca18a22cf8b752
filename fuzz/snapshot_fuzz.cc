// Fuzz harness: cluster snapshot JSON, both readers: model::ParseClusterJson
// (the whole text: pipes, --from-cluster) and model::ReadClusterText (item
// by item, the reader behind `--cluster FILE`; small chunks so that tokens
// cross chunk boundaries), checked against model/snapshot_json.h,
// model/snapshot_stream.h and the invariants of model/cluster.h.
//
// Invariants checked on every input, beyond "no crash":
//  - no exception escapes;
//  - an error is one line that names the source (`fuzz.json...`);
//  - a parsed Cluster has named nodes and pods, gpu_count >= 0, whole GPU
//    counts >= 0, every pod's workload filled (kind and name), integer
//    resources >= 0, and one-line warnings;
//  - when both readers accept the text they give the same Cluster (errors
//    may differ: with several defects the item reader reports the first in
//    file order);
//  - the item reader on three threads (the text cut into three parts) gives
//    exactly what it gives on one: the same Cluster or the same error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "model/snapshot_json.h"
#include "model/snapshot_stream.h"

namespace {

constexpr std::string_view kSource = "fuzz.json";

void CheckQuantities(const std::map<std::string, int64_t>& q, const std::string& what) {
  for (const auto& [name, value] : q) {
    FUZZ_CHECK(value >= 0, what + " " + name + " = " + std::to_string(value));
  }
}

void CheckCluster(const kubeon::model::Cluster& c) {
  for (const auto& n : c.nodes) {
    FUZZ_CHECK(!n.name.empty(), std::string("node without a name"));
    FUZZ_CHECK(n.gpu_count >= 0, "node " + n.name + " gpu_count " + std::to_string(n.gpu_count));
    FUZZ_CHECK(n.gpu_memory_mib >= 0, "node " + n.name + " gpu memory " + std::to_string(n.gpu_memory_mib));
    CheckQuantities(n.capacity, "node " + n.name + " capacity");
    CheckQuantities(n.allocatable, "node " + n.name + " allocatable");
  }
  for (const auto& p : c.pods) {
    FUZZ_CHECK(!p.name.empty(), std::string("pod without a name"));
    FUZZ_CHECK(!p.workload.kind.empty() && !p.workload.name.empty(),
               "pod " + p.name + " has no workload (" + p.workload.kind + " " + p.workload.name + ")");
    FUZZ_CHECK(p.gpus >= 0, "pod " + p.name + " gpus " + std::to_string(p.gpus));
    CheckQuantities(p.gpu_slices, "pod " + p.name + " slices");
    for (const auto& ctr : p.containers) {
      CheckQuantities(ctr.requests, "pod " + p.name + " requests");
      CheckQuantities(ctr.limits, "pod " + p.name + " limits");
    }
  }
  for (const auto& ctl : c.controllers) {
    FUZZ_CHECK(!ctl.name.empty() && !ctl.kind.empty(), "controller without kind or name: " + ctl.kind + " " + ctl.name);
    FUZZ_CHECK(ctl.replicas >= 0, "controller " + ctl.name + " replicas " + std::to_string(ctl.replicas));
  }
  for (const auto& w : c.warnings) {
    FUZZ_CHECK(kubeon::fuzz::IsOneLine(w), "warning is not one line: " + w.substr(0, 200));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = kubeon::fuzz::AsText(data, size);
  kubeon::fuzz::NoExceptionEscapes([&] {
    auto whole = kubeon::model::ParseClusterJson(text, kSource);
    auto streamed = kubeon::model::ReadClusterText(text, kSource, 7);
    for (const auto* result : {&whole, &streamed}) {
      if (result->ok()) {
        CheckCluster(**result);
      } else {
        const std::string& m = result->status().message();
        FUZZ_CHECK(kubeon::fuzz::IsOneLine(m), "error is not one line: " + m.substr(0, 300));
        FUZZ_CHECK(m.compare(0, kSource.size(), kSource) == 0, "error does not name the source: " + m.substr(0, 300));
      }
    }
    if (whole.ok() && streamed.ok()) {
      FUZZ_CHECK(*whole == *streamed, std::string("the item reader's Cluster differs from the whole-text reader's"));
    }
    kubeon::model::StreamOptions parts;
    parts.chunk_bytes = 7;
    parts.threads = 3;
    parts.min_part_bytes = 1;
    auto parted = kubeon::model::ReadClusterText(text, kSource, parts);
    FUZZ_CHECK(parted.ok() == streamed.ok(), std::string("three threads and one disagree on whether the text is read"));
    if (parted.ok()) {
      FUZZ_CHECK(*parted == *streamed, std::string("three threads read another Cluster than one"));
    } else {
      FUZZ_CHECK(parted.status().message() == streamed.status().message(),
                 "three threads report another error than one: " + parted.status().message().substr(0, 300));
    }
  });
  return 0;
}
