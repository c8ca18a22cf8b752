// Fuzz harness: the executor's step record (apply::ReadStepRecord, which
// reads ChangeRecord::undo_json back from SQLite or from a GpuChange's
// status, where anyone allowed to patch gpuchanges/status can write it),
// checked against the contract in apply/step_record.h.
//
// Invariants checked on every input, beyond "no crash":
//  - no exception escapes;
//  - a refusal is kInvalid or kUnsupported (a newer version), on one line,
//    naming the record ("step record of change fuzz");
//  - what it reads, written back, reads again to the same bytes
//    (Write(Read(Write(Read(x)))) == Write(Read(x))).
#include <cstddef>
#include <cstdint>
#include <string>

#include "apply/step_record.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = kubeon::fuzz::AsText(data, size);
  kubeon::fuzz::NoExceptionEscapes([&] {
    auto read = kubeon::apply::ReadStepRecord(text, "change fuzz");
    if (!read.ok()) {
      const auto code = read.status().code();
      FUZZ_CHECK(code == kubeon::StatusCode::kInvalid || code == kubeon::StatusCode::kUnsupported,
                 "code " + std::string(kubeon::StatusCodeName(code)));
      FUZZ_CHECK(kubeon::fuzz::IsOneLine(read.status().message()), read.status().message().substr(0, 200));
      FUZZ_CHECK(read.status().message().rfind("step record of change fuzz", 0) == 0,
                 read.status().message().substr(0, 200));
      return;
    }
    // A version the record does not need (an older one's): not written back as read.
    if (read->version != kubeon::apply::StepRecordVersionOf(*read)) return;
    const std::string once = kubeon::apply::WriteStepRecord(*read);
    auto again = kubeon::apply::ReadStepRecord(once, "change fuzz");
    FUZZ_CHECK(again.ok(), "what it wrote does not read back: " + again.status().message().substr(0, 200));
    FUZZ_CHECK(kubeon::apply::WriteStepRecord(*again) == once, "write is not stable: " + once.substr(0, 200));
  });
  return 0;
}
