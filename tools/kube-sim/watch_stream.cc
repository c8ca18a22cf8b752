// See watch_stream.h.
#include "watch_stream.h"

namespace kubeon::kubesim {

WatchStream::WatchStream(std::shared_ptr<Watcher> watcher, WatchOptions options, std::string preamble)
    : watcher_(std::move(watcher)), opts_(std::move(options)), preamble_(std::move(preamble)) {
  last_rv_ = opts_.start_rv;
  next_bookmark_ = std::chrono::steady_clock::now() + opts_.bookmark_interval;
}

WatchStream::~WatchStream() {
  if (watcher_) watcher_->Close();
}

std::string WatchStream::EventLine(const std::string& type, json object) const {
  object["apiVersion"] = opts_.api_version;
  object["kind"] = opts_.kind;
  if (opts_.transform) object = opts_.transform(object);
  return json{{"type", type}, {"object", std::move(object)}}.dump() + "\n";
}

std::string WatchStream::BookmarkLine(uint64_t rv, bool initial_end) const {
  json meta = {{"resourceVersion", std::to_string(rv)}};
  if (initial_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  json obj = {{"kind", opts_.kind}, {"apiVersion", opts_.api_version}, {"metadata", meta}};
  return json{{"type", "BOOKMARK"}, {"object", obj}}.dump() + "\n";
}

WatchStream::Step WatchStream::Next(std::string* chunk, std::chrono::milliseconds wait) {
  if (!preamble_.empty()) {
    *chunk += preamble_;
    preamble_.clear();
    if (!watcher_) return Step::kEnd;
  }
  if (!watcher_) return Step::kEnd;
  if (opts_.stopping != nullptr && opts_.stopping->load()) return Step::kEnd;
  auto now = std::chrono::steady_clock::now();
  if (now >= opts_.deadline) return Step::kEnd;
  auto until_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(opts_.deadline - now);
  std::deque<WatchEvent> events;
  // Read the published version before draining: every event up to it is
  // then already in the queue, so a bookmark at it is truthful.
  uint64_t published = opts_.published_rv ? opts_.published_rv() : 0;
  bool open = watcher_->Pop(&events, std::min(wait, until_deadline));
  for (auto& e : events) {
    if (opts_.drop_after && sent_ >= *opts_.drop_after) return Step::kDrop;
    *chunk += EventLine(e.type, std::move(e.object));
    last_rv_ = std::max(last_rv_, e.rv);
    ++sent_;
    if (opts_.initial_events_bookmark && !initial_bookmark_sent_ &&
        static_cast<size_t>(sent_) >= opts_.initial_events) {
      *chunk += BookmarkLine(opts_.start_rv, true);
      initial_bookmark_sent_ = true;
    }
  }
  if (opts_.drop_after && sent_ >= *opts_.drop_after && !events.empty()) return Step::kDrop;
  if (!open) return watcher_->overflowed() ? Step::kDrop : Step::kEnd;
  if (opts_.initial_events_bookmark && !initial_bookmark_sent_ && opts_.initial_events == 0) {
    *chunk += BookmarkLine(opts_.start_rv, true);
    initial_bookmark_sent_ = true;
  }
  if (opts_.bookmarks && events.empty() && std::chrono::steady_clock::now() >= next_bookmark_) {
    uint64_t rv = std::max(last_rv_, published);
    *chunk += BookmarkLine(rv, false);
    last_rv_ = rv;
    next_bookmark_ = std::chrono::steady_clock::now() + opts_.bookmark_interval;
  }
  return Step::kMore;
}

}  // namespace kubeon::kubesim
