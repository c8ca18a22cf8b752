// Fuzz harness: Kubernetes list pages (kube::KubeClient::List, what
// `kubeon-gpu snapshot` and `--from-cluster` read page by page), over an
// in-memory HttpTransport that serves the fuzz input, then the snapshot's
// text form of the items (kube::FormatSnapshot).
//
// Input: the pages' answers separated by form feeds ('\f'); each answer is
// an optional first line of three digits (the HTTP status, else 200) and the
// body.  Request i gets answer i; once they run out the last answer is
// served again (a server that always says `continue`).
//
// Invariants checked on every input, beyond "no crash":
//  - no exception escapes (List and FormatSnapshot);
//  - List ends by itself: at most kMaxRequests requests for any input;
//  - an error is one line that never contains the bearer token (unless the
//    server's answer did);
//  - a result has at least one page and an array of items, whose size is
//    the count on_page was last told.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "kube/client.h"
#include "kube/snapshot.h"

namespace {

constexpr std::string_view kToken = "fuzz-secret-token-4f1c";
constexpr size_t kMaxRequests = 1000;

struct Answer {
  int status = 200;
  std::string body;
};

std::vector<Answer> SplitAnswers(std::string_view input) {
  std::vector<Answer> out;
  while (true) {
    const size_t ff = input.find('\f');
    std::string_view part = input.substr(0, ff);
    Answer a;
    if (part.size() >= 4 && part[3] == '\n' && part.find_first_not_of("0123456789") == 3) {
      a.status = (part[0] - '0') * 100 + (part[1] - '0') * 10 + (part[2] - '0');
      part.remove_prefix(4);
    }
    a.body = std::string(part);
    out.push_back(std::move(a));
    if (ff == std::string_view::npos) break;
    input.remove_prefix(ff + 1);
  }
  return out;
}

class ReplayTransport : public kubeon::kube::HttpTransport {
 public:
  ReplayTransport(std::vector<Answer> answers, size_t* requests) : answers_(std::move(answers)), requests_(requests) {}

  kubeon::kube::HttpResult Send(const kubeon::kube::HttpRequest&) override {
    ++*requests_;
    FUZZ_CHECK(*requests_ <= kMaxRequests, "List does not end: " + std::to_string(*requests_) + " requests for " +
                                               std::to_string(answers_.size()) + " answers");
    const Answer& a = answers_[std::min(*requests_ - 1, answers_.size() - 1)];
    kubeon::kube::HttpResponse r;
    r.status = a.status;
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = a.body;
    return r;
  }
  kubeon::kube::HttpResult Stream(const kubeon::kube::HttpRequest&, const kubeon::kube::StreamHandler&) override {
    return kubeon::kube::TransportError{kubeon::kube::TransportErrorKind::kOther, "fuzz: no streams"};
  }

 private:
  std::vector<Answer> answers_;
  size_t* requests_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kubeon::kube;
  size_t requests = 0;
  RestConfig config;
  config.server = "https://kube.fuzz:6443";
  config.token = std::string(kToken);
  ClientOptions options;
  options.retry_deadline = std::chrono::milliseconds(0);  // no retries, no sleeping
  options.initial_backoff = std::chrono::milliseconds(0);
  KubeClient client(std::make_unique<ReplayTransport>(SplitAnswers(kubeon::fuzz::AsText(data, size)), &requests),
                    config, options);
  kubeon::fuzz::NoExceptionEscapes([&] {
    ListOptions lo;
    lo.limit = 2;
    size_t last_seen = 0;
    lo.on_page = [&](size_t items_so_far) { last_seen = items_so_far; };
    auto list = client.List("/api/v1/pods", lo);
    if (list.ok()) {
      FUZZ_CHECK(list->pages >= 1, std::string("a list without pages"));
      FUZZ_CHECK(list->items.is_array(), std::string("items is not an array"));
      FUZZ_CHECK(list->items.size() == last_seen,
                 "items " + std::to_string(list->items.size()) + " after on_page saw " + std::to_string(last_seen));
      nlohmann::json snapshot = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", list->items},
                                 {"metadata", {{"resourceVersion", ""}}}};
      const std::string text = FormatSnapshot(snapshot);
      FUZZ_CHECK(!text.empty() && text.back() == '\n', std::string("snapshot text without a final newline"));
    } else {
      const std::string message = list.error().ToString();
      FUZZ_CHECK(kubeon::fuzz::IsOneLine(message), "error is not one line: " + message.substr(0, 300));
      // (Unless the server's own answer holds it: quoting the server is fine.)
      FUZZ_CHECK(message.find(kToken) == std::string::npos ||
                     kubeon::fuzz::AsText(data, size).find(kToken) != std::string_view::npos,
                 "the token is in the error: " + message.substr(0, 300));
    }
  });
  return 0;
}
