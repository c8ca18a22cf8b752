// Fuzz harness: CSV history (metrics::CsvReader, the reader behind `--metrics FILE.csv`),
// checked against metrics/csv_reader.h and metrics/history.h.
//
// Invariants checked on every input, beyond "no crash" (see history_check.h):
//  - no exception escapes;
//  - the input fed whole, in three pieces and byte by byte (small inputs)
//    gives the same History or the same error;
//  - an error is one line naming the source; a History's counts are
//    consistent (bad <= data <= lines, examples within the input, per-pod
//    sample counts and time spans sane).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "fuzz/history_check.h"
#include "metrics/csv_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kubeon::fuzz::NoExceptionEscapes([&] {
    kubeon::fuzz::FeedAndCheck<kubeon::metrics::CsvReader>(kubeon::fuzz::AsText(data, size), "fuzz.csv");
  });
  return 0;
}
