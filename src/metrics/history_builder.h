// HistoryBuilder: the part of a history reader that does not depend on the
// text format — series interning, sample accounting and the final verdict.
//
// Contract:
//   * A reader hands over, per line, a series identity key (raw text that is
//     equal for equal label sets: the OpenMetrics label block, or the CSV
//     label cells joined) and, on a miss, the parsed labels.  Find() checks
//     the series of the previous line first (files written series by series
//     repeat it), then that series' successor the last time (files written
//     time by time repeat one order of series), then an open-addressed
//     index (view_index.h); all are lookups by view, so a hit allocates
//     nothing, and a key that missed is not hashed again when it is added.
//   * Memory depends on the number of distinct series and pods, never on the
//     number of samples: at most IngestOptions::max_cached_series series are
//     cached; past that, series are resolved again on every line (slower,
//     same result).
//   * Accept() REQUIRES a value that CheckSampleValue() accepted and a
//     series with a pod.  "Last seen" labels of a pod are those of the series
//     of its latest accepted sample.
//   * Finish() fails when there are no data lines, or when more than
//     max_bad_fraction of the data lines are bad; the message names the
//     source, the counts and the first bad lines with their reasons.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/history.h"
#include "metrics/sample_parse.h"
#include "metrics/view_index.h"
#include "model/status.h"

namespace kubeon::metrics::internal {

// Label values of one series, unescaped; an empty view means absent.
struct SeriesLabels {
  std::string_view namespace_, pod, container;
  std::string_view exported_namespace, exported_pod, exported_container;
  std::string_view hostname;  // `hostname` or the older `Hostname`
  std::string_view gpu, uuid, model_name, mig_profile, mig_instance;
  // Every value above is known to be valid UTF-8 (it lies in a label set
  // that the OpenMetrics first pass checked whole): Resolve need not look.
  bool utf8_checked = false;

  // The field that stores label `name`, or nullptr for labels not used.
  std::string_view* Field(std::string_view name);
};

// A resolved series.  Its label values are kept as spans of one text: the
// series' key first (the values written in it as they are point into it,
// nothing copied), then the values that are not (escaped in the key, or not
// part of it), then its device (see history.h), one allocation in all.
struct Series {
  struct Span {
    uint32_t at = 0;
    uint32_t size = 0;
  };
  int32_t pod = -1;  // pod slot, -1 = no pod (idle GPU)
  uint32_t id = 0;   // unique per resolution
  std::string text;  // the key (key_size bytes), then values not found in it, then the device
  uint32_t key_size = 0;
  Span hostname, uuid, model_name, mig_profile, container;
  Span device;  // empty when the labels name no device
  // Cached series only: the series that followed this one last time (files
  // written time by time repeat one order of series).
  bool cached = false;
  Series* successor = nullptr;

  std::string_view key() const { return std::string_view(text.data(), key_size); }
  std::string_view Value(Span s) const { return std::string_view(text.data() + s.at, s.size); }
};

// Now, Unix milliseconds (the default IngestOptions::now_ms).
int64_t WallClockMs();

// The final verdict on a whole input: an error naming history.source when it
// has no data lines or more than options.max_bad_fraction of them are bad
// (quoting the first bad lines), else the history itself.
Result<History> Verdict(History history, const IngestOptions& options);

class HistoryBuilder {
 public:
  HistoryBuilder(const IngestOptions& options, std::string source);

  // The cached series for key, or nullptr.  Checks the previous line's
  // series and its usual successor before the hash map.  `hash`, when
  // given, is ViewIndex<Series>::Hash(key) (computed elsewhere).
  const Series* Find(std::string_view key, const uint64_t* hash = nullptr);
  // The series predicted for this line (the previous line's, or its usual
  // successor) when `text` starts with that series' key followed by
  // `terminator` (e.g. the rest of an OpenMetrics line after '{', the key
  // ending at '}'); else nullptr.  *key_size is the matched key's size.
  // Saves finding the end of the key and hashing it.
  const Series* MatchPredicted(std::string_view text, char terminator, size_t* key_size);
  // Resolves labels into a series (cached under key when there is room).
  // Returns nullptr and sets *error when the labels cannot name a pod
  // consistently (e.g. a pod without its namespace).
  // REQUIRES: Find(key) returned nullptr; the views in `labels` are of the
  // same line as `key` or of memory that outlives the call.
  const Series* Add(std::string_view key, const SeriesLabels& labels, const char** error);

  // nullptr when a sample may carry timestamp ts_ms, else the reason it may
  // not: later than IngestOptions::now_ms + kMaxClockSkewMs.
  const char* CheckTime(int64_t ts_ms) const {
    return ts_ms > latest_ms_ ? "timestamp is in the future (more than 5 minutes after the time of reading)"
                              : nullptr;
  }
  // Records an accepted sample.  REQUIRES: series.pod >= 0, metric != kOther,
  // CheckSampleValue(metric, value) == nullptr, CheckTime(ts_ms) == nullptr.
  void Accept(const Series& series, Metric metric, double value, int64_t ts_ms);
  // A sample of a used metric on a series without a pod.
  void Unattributed() { ++stats_.unattributed_lines; }
  // A sample of a metric that is not used.
  void Ignored(std::string_view metric_name);
  // Ignored(name) again, for a name already passed to Ignored.
  void Ignored() { ++stats_.ignored_metric_lines; }
  // n lines that Line(), DataLine() and Ignored() would each count.
  void IgnoredLines(uint64_t n) {
    stats_.lines += n;
    stats_.data_lines += n;
    stats_.ignored_metric_lines += n;
  }
  // A used metric name was seen (for IngestStats::metrics_seen).
  void SeenMetric(std::string_view metric_name);
  // Counts a bad line and keeps the first kMaxBadExamples reasons.  `detail`
  // (e.g. the offending text) is quoted after the reason, shortened; a
  // non-empty `column` (CSV) is named before it.
  void BadLine(uint64_t line, std::string_view reason, std::string_view detail = {},
               std::string_view column = {});
  // A sample that named `series`' pod but could not be used.
  void BadSample(const Series* series);
  void Line() { ++stats_.lines; }
  void DataLine() { ++stats_.data_lines; }

  const IngestStats& stats() const { return stats_; }
  const std::string& source() const { return source_; }

  // Verdict(TakeHistory()).  REQUIRES: called once.
  Result<History> Finish();
  // The History read so far, without the verdict (for a piece of a file read
  // in parallel; the pieces are merged, then judged once).  REQUIRES: called
  // once, instead of Finish().
  History TakeHistory();

 private:
  // A pod met so far, in the order met (a deque: slots never move), its
  // entry a node of History::pods not yet in the map.  The sorted map is
  // built from them once, by TakeHistory, each node linked in at the end
  // (nothing copied or allocated again): keeping it sorted while reading cost
  // a walk down two trees of string keys for every new series
  // (BENCHMARKS.md (g)).
  struct Slot {
    std::map<PodKey, PodUsage>::node_type node;
    // pod_index_'s key: the namespace's size in four bytes, the namespace,
    // the pod (PodIndexKey).
    std::string index_key;
    int32_t index = 0;  // in slots_
    uint32_t last_series = UINT32_MAX;
  };
  // Writes (ns, pod)'s pod_index_ key into *out.
  static void PodIndexKey(std::string_view ns, std::string_view pod, std::string* out);
  // Resolves the labels of the series `key` into *out (its text rebuilt).
  bool Resolve(std::string_view key, const SeriesLabels& labels, Series* out, const char** error);
  // Makes s the previous line's series, linking it as the successor of the
  // one before when both are cached.
  void SetLast(Series* s);
  void ApplySeries(Slot& slot, const Series& series);

  IngestOptions options_;
  int64_t latest_ms_;  // the latest sample time accepted
  std::string source_;
  IngestStats stats_;
  // The pods' usage, a slot each: series name pods by slot (its index);
  // Resolve finds a pod's slot by its key through the hash index.
  std::deque<Slot> slots_;
  ViewIndex<Slot> pod_index_;
  std::string pod_key_;  // PodIndexKey's output for the pod looked up
  // The cached series (a deque: they never move) and the cache, keyed by
  // views of their keys.  The key that Find() last missed and its hash:
  // Add() of that key (its REQUIRES) does not hash it again.
  std::deque<Series> cached_;
  ViewIndex<Series> series_;
  std::string_view missed_key_;
  uint64_t missed_hash_ = 0;
  Series* last_series_ = nullptr;  // the previous line's series
  Series uncached_;  // used when the cache is full
  uint32_t next_series_id_ = 0;
  std::string last_metric_seen_;
};

}  // namespace kubeon::metrics::internal
