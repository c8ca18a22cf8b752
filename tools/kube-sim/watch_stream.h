// A watch response body, produced chunk by chunk: one JSON object per line,
// {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}.
//
// The stream ends cleanly at its deadline (timeoutSeconds) or when the
// server stops; it is cut (Step::kDrop: no closing chunk) when an injected
// fault says so or the watcher overflowed.  BOOKMARK events carry only
// kind, apiVersion and metadata.resourceVersion (the newest version whose
// events this watcher has already been given); with sendInitialEvents the
// bookmark after the initial ADDED events is annotated
// k8s.io/initial-events-end: "true".
//
// Thread-safety: one thread drives Next(); the store fills the watcher.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "store.h"

namespace kubeon::kubesim {

struct WatchOptions {
  std::string api_version;  // stamped on every object
  std::string kind;         // for BOOKMARK objects
  bool bookmarks = false;
  std::chrono::milliseconds bookmark_interval{1000};
  std::chrono::steady_clock::time_point deadline;
  std::optional<int64_t> drop_after;  // events before an injected cut
  size_t initial_events = 0;          // > 0 with sendInitialEvents
  bool initial_events_bookmark = false;
  uint64_t start_rv = 0;
  std::function<uint64_t()> published_rv;
  // Applied to every event object after apiVersion/kind are set (e.g. to
  // render a Table); null = none.
  std::function<json(const json&)> transform;
  const std::atomic<bool>* stopping = nullptr;
};

class WatchStream {
 public:
  enum class Step { kMore, kEnd, kDrop };
  // `watcher` may be null for a stream that only sends `preamble` lines
  // (e.g. the ERROR event of a 410) and ends.
  WatchStream(std::shared_ptr<Watcher> watcher, WatchOptions options, std::string preamble = "");
  ~WatchStream();

  // Waits at most `wait` and appends the next lines to *chunk (possibly
  // none).  kEnd/kDrop: the stream is over (after *chunk is sent).
  Step Next(std::string* chunk, std::chrono::milliseconds wait);

 private:
  std::string EventLine(const std::string& type, json object) const;
  std::string BookmarkLine(uint64_t rv, bool initial_end) const;

  std::shared_ptr<Watcher> watcher_;
  WatchOptions opts_;
  std::string preamble_;
  int64_t sent_ = 0;
  uint64_t last_rv_ = 0;
  bool initial_bookmark_sent_ = false;
  std::chrono::steady_clock::time_point next_bookmark_;
};

}  // namespace kubeon::kubesim
