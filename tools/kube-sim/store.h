// The object store: every Kubernetes object kube-sim serves, a global
// resourceVersion, a bounded event history, and watch fan-out.
//
// Objects are kept per type (store id, see resources.h) in key order
// ("<namespace>/<name>" or "<name>"), which is the order of a LIST and of
// its continue tokens.
//
// Invariants:
//  - every write (create, effective update, delete) increments the global
//    resourceVersion by one and stamps it on the object as a decimal string;
//    an update that changes nothing but metadata.managedFields is a no-op
//    (no new version, no event; the stored object is returned);
//  - creates set metadata.uid, metadata.creationTimestamp and, for objects
//    with a spec, metadata.generation = 1; updates keep uid and
//    creationTimestamp and bump generation when anything outside metadata
//    and status changes;
//  - history holds the newest `history_limit` events; a watch from a
//    version older than the oldest retained event fails with 410 Expired.
//
// Threading: Store is not internally synchronised; the caller (Simulator)
// holds one mutex around every call.  Watcher objects have their own lock
// and may be drained from any thread; PublishedRevision() is atomic.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api_error.h"
#include "meta.h"
#include "selector.h"

namespace kubeon::kubesim {

struct WatchEvent {
  std::string type;  // ADDED | MODIFIED | DELETED
  uint64_t rv = 0;
  json object;
};

// What a watch (or list) selects.
struct WatchSpec {
  std::string store_id;
  std::string ns;  // "" = every namespace
  LabelSelector labels;
  FieldSelector fields;
  bool Matches(const json& obj) const;
};

// One open watch: a queue the store fills and a stream drains.
class Watcher {
 public:
  Watcher(WatchSpec spec, size_t max_queue) : spec_(std::move(spec)), max_queue_(max_queue) {}
  const WatchSpec& spec() const { return spec_; }

  // Appends an event; closes the watcher (overflowed) past max_queue.
  void Push(WatchEvent event);
  // Waits up to `wait` for events and moves them into *out.  Returns false
  // once the watcher is closed and empty.
  bool Pop(std::deque<WatchEvent>* out, std::chrono::milliseconds wait);
  void Close();
  bool overflowed() const;

 private:
  WatchSpec spec_;
  size_t max_queue_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WatchEvent> queue_;
  bool closed_ = false;
  bool overflowed_ = false;
};

class Store {
 public:
  using Clock = std::function<TimePoint()>;
  Store(size_t history_limit, Clock clock, uint64_t seed);

  uint64_t ResourceVersion() const { return rv_; }
  // The newest version whose events have all been handed to watchers.
  uint64_t PublishedRevision() const { return published_.load(); }
  // Watches from versions below this get 410 Expired.
  uint64_t CompactedRevision() const { return compacted_; }
  // Number of writes so far (a cheap "did anything change" check).
  uint64_t WriteCount() const { return writes_; }
  // Number of writes to one type so far.
  uint64_t WriteCount(const std::string& store_id) const;

  static std::string Key(const std::string& ns, const std::string& name) {
    return ns.empty() ? name : ns + "/" + name;
  }

  const json* Get(const std::string& store_id, const std::string& ns,
                  const std::string& name) const;
  // Objects of a type in `ns` ("" = all) in key order, starting after key
  // `after` ("" = from the first).  `fn` returns false to stop.
  void ForEach(const std::string& store_id, const std::string& ns, const std::string& after,
               const std::function<bool(const std::string& key, const json& obj)>& fn) const;
  std::vector<json> List(const std::string& store_id, const std::string& ns) const;
  size_t Count(const std::string& store_id) const;
  std::vector<std::string> StoreIds() const;

  // REQUIRES: obj has metadata.name; metadata.namespace set iff the type is
  // namespaced.  409 AlreadyExists if the key is taken.
  Outcome<json> Create(const std::string& store_id, json obj);
  // Replaces the object; 404 if absent; 409 Conflict if obj carries a
  // metadata.resourceVersion different from the stored one.
  Outcome<json> Update(const std::string& store_id, json obj);
  // Removes the object; 404 if absent; 409 if `uid_precondition` is set and
  // differs.  Returns the object as deleted, with the new version.
  Outcome<json> Delete(const std::string& store_id, const std::string& ns,
                       const std::string& name, const std::string& uid_precondition = "");
  // Inserts an object as loaded from a snapshot or state file: keeps uid,
  // creationTimestamp and generation (filling them when absent), records no
  // event, replaces an existing object.  The object gets a new version, or
  // keeps its own when keep_version (state reload; the global version
  // becomes at least that).
  void Restore(const std::string& store_id, json obj, bool keep_version = false);
  // Forgets all history (after loading): watches must start from now.
  void Compact();
  // Sets the global version (state reload); REQUIRES: rv >= ResourceVersion().
  void SetResourceVersion(uint64_t rv);

  // Opens a watch.  from_rv == nullopt: synthetic ADDED events for every
  // matching object, then changes.  Otherwise every matching change after
  // from_rv; 410 Expired when from_rv < CompactedRevision().
  Outcome<std::shared_ptr<Watcher>> Watch(const WatchSpec& spec, std::optional<uint64_t> from_rv,
                                          size_t max_queue);

  // Calls fn(store_id, type, object, old_object or nullptr) for every
  // recorded change after version `rv`, oldest first.  Returns false (and
  // calls nothing) when the history no longer reaches back to `rv`.
  using ChangeFn = std::function<void(const std::string& store_id, const std::string& type, const json& object,
                                      const json* old_object)>;
  bool ChangesSince(uint64_t rv, const ChangeFn& fn) const;

  std::mt19937_64& rng() { return rng_; }
  TimePoint Now() const { return clock_(); }

 private:
  struct HistoryEntry {
    std::string store_id;
    WatchEvent event;
    json old_object;  // previous state for MODIFIED, else null
  };
  void Record(const std::string& store_id, WatchEvent event, json old_object);
  static void Deliver(Watcher& w, const WatchEvent& e, const json& old_object);

  std::map<std::string, std::map<std::string, json>> objects_;
  uint64_t rv_ = 0;
  std::atomic<uint64_t> published_{0};
  uint64_t compacted_ = 0;
  uint64_t writes_ = 0;
  std::map<std::string, uint64_t> type_writes_;
  size_t history_limit_;
  std::deque<HistoryEntry> history_;
  std::vector<std::weak_ptr<Watcher>> watchers_;
  Clock clock_;
  std::mt19937_64 rng_;
};

}  // namespace kubeon::kubesim
