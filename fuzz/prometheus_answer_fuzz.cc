// Fuzz harness: answers of the Prometheus HTTP API to an instant query
// (metrics::ParseQueryAnswer, what `--prometheus URL` reads), checked
// against metrics/prometheus_client.h.
//
// Input: an optional first line of three digits, the HTTP status (else 200),
// then the body.
//
// Invariants checked on every input, beyond "no crash":
//  - no exception escapes;
//  - success only on HTTP 2xx, with no error text;
//  - a failure is one line that names the server and the query
//    ("Prometheus at <url> failed <what>: ...") with a valid kind, and never
//    kTooLarge (that kind belongs to the transport's byte limit);
//  - every returned sample has only non-empty label names.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "metrics/prometheus_client.h"

namespace {

const std::string kUrl = "http://prom.fuzz:9090";
const std::string kWhat = "peak memory over the fuzz window";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kubeon::metrics::QueryErrorKind;
  std::string_view body = kubeon::fuzz::AsText(data, size);
  int status = 200;
  if (body.size() >= 4 && body[3] == '\n' && body.find_first_not_of("0123456789") == 3) {
    status = (body[0] - '0') * 100 + (body[1] - '0') * 10 + (body[2] - '0');
    body.remove_prefix(4);
  }
  kubeon::fuzz::NoExceptionEscapes([&] {
    const auto out = kubeon::metrics::ParseQueryAnswer(status, body, kUrl, kWhat);
    if (out.ok) {
      FUZZ_CHECK(status >= 200 && status <= 299, "success on HTTP " + std::to_string(status));
      FUZZ_CHECK(out.error.empty(), "success with an error: " + out.error);
      for (const auto& s : out.samples) {
        for (const auto& [name, value] : s.labels) FUZZ_CHECK(!name.empty(), "empty label name, value " + value);
      }
    } else {
      FUZZ_CHECK(kubeon::fuzz::IsOneLine(out.error), "error is not one line: " + out.error.substr(0, 300));
      FUZZ_CHECK(out.error.find("Prometheus at " + kUrl) != std::string::npos,
                 "error does not name the server: " + out.error.substr(0, 300));
      FUZZ_CHECK(out.error.find(kWhat) != std::string::npos, "error does not name the query: " + out.error.substr(0, 300));
      FUZZ_CHECK(out.error_kind != QueryErrorKind::kTooLarge && out.error_kind != QueryErrorKind::kUnreachable &&
                     out.error_kind != QueryErrorKind::kTimeout,
                 "a transport kind for an answer: " + out.error.substr(0, 300));
    }
  });
  return 0;
}
