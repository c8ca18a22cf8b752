// See prometheus_history.h for the contract.
#include "metrics/prometheus_history.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "metrics/prometheus_client.h"
#include "metrics/promql.h"

namespace kubeon::metrics {
namespace {

using Labels = std::map<std::string, std::string>;
using Clock = std::chrono::steady_clock;

constexpr int64_t kMinStepMs = 1000;
constexpr int64_t kMaxStepMs = 3600000;
constexpr size_t kMaxQueryInMessage = 400;

// Queries whose cost grows alike share a window-size hint.
enum class QueryKind { kRange = 0, kSubquery = 1 };

// The samples with timestamps in (end_ms - len_ms, end_ms].
struct Window {
  int64_t end_ms = 0;
  int64_t len_ms = 0;
};

std::string Iso(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Describe(const Window& w) { return Iso(w.end_ms - w.len_ms) + ".." + Iso(w.end_ms); }

std::string SecondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f s", s);
  return buf;
}

std::string Shortened(const std::string& text) {
  if (text.size() <= kMaxQueryInMessage) return text;
  return text.substr(0, kMaxQueryInMessage) + "...";
}

// Newest first; pieces of at most `piece` ms covering w exactly.
std::vector<Window> Split(const Window& w, int64_t piece) {
  std::vector<Window> out;
  int64_t end = w.end_ms;
  int64_t remaining = w.len_ms;
  while (remaining > 0) {
    int64_t len = std::min(piece, remaining);
    out.push_back({end, len});
    end -= len;
    remaining -= len;
  }
  return out;
}

const std::string* Find(const Labels& labels, const char* name) {
  auto it = labels.find(name);
  return it == labels.end() || it->second.empty() ? nullptr : &it->second;
}

std::string Get(const Labels& labels, const char* name) {
  const std::string* v = Find(labels, name);
  return v == nullptr ? std::string() : *v;
}

enum class PodOf { kPod, kNone, kBad };

// The pod a result row names, by the rules of history.h: exported_* when
// exported_pod is set, else namespace/pod; no pod label = idle GPU.
PodOf ResolvePod(const Labels& labels, PodKey* key, const char** error) {
  if (const std::string* pod = Find(labels, "exported_pod")) {
    const std::string* ns = Find(labels, "exported_namespace");
    if (ns == nullptr) {
      *error = "label exported_pod without exported_namespace";
      return PodOf::kBad;
    }
    *key = PodKey{*ns, *pod};
    return PodOf::kPod;
  }
  if (const std::string* pod = Find(labels, "pod")) {
    const std::string* ns = Find(labels, "namespace");
    if (ns == nullptr) {
      *error = "label pod without namespace";
      return PodOf::kBad;
    }
    *key = PodKey{*ns, *pod};
    return PodOf::kPod;
  }
  return PodOf::kNone;
}

std::string LabelText(const Labels& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) {
    if (out.size() > 1) out += ",";
    out += k + "=\"" + v + "\"";
  }
  return out + "}";
}

bool Usable(double v) { return std::isfinite(v) && v >= 0; }

// What the queries found for one pod.
struct PodAcc {
  std::optional<double> memory;   // max FB_USED
  std::optional<double> gr, util; // max of quantiles
  uint64_t count = 0;
  std::optional<int64_t> first_ms, last_ms;
  uint64_t bad = 0;
  // "Last seen" labels: those of the series with the newest sample; ties go
  // to the lexicographically larger label text so the choice is stable.
  int64_t seen_ms = INT64_MIN;
  std::string seen_key;
  Labels seen;
  std::set<std::string> gpus;
};

class Reader {
 public:
  Reader(const PrometheusOptions& options, PrometheusClient& client, const PrometheusProgress& progress,
         int64_t end_ms)
      : options_(options), client_(client), progress_(progress), whole_{end_ms, options.lookback.count()} {
    int64_t first = options.max_window.count() > 0 ? std::min(options.max_window.count(), whole_.len_ms)
                                                   : whole_.len_ms;
    window_hint_[0] = window_hint_[1] = first;
  }

  Result<History> Run();
  uint64_t refused() const { return refused_; }
  uint64_t rows() const { return rows_; }

 private:
  using MakeQuery = std::function<std::string(int64_t range_ms)>;
  using OnRow = std::function<void(const PromSample&)>;

  Status RunQuery(const std::string& name, QueryKind kind, const MakeQuery& make, const OnRow& on_row);
  Status ReadCounts();
  Status ReadPeak(const char* metric, const std::string& name, std::optional<double> PodAcc::*field,
                  bool quantile);
  // Per pod, the series with samples the file readers refuse (acc.bad).
  Status ReadBadSeries();
  // First/last timestamps of `metric` for the pods in `only` (all when null).
  Status ReadSpan(const char* metric, const std::set<PodKey>* only);
  Status NoSeriesError();
  History Build();
  void Progress(const std::string& line) {
    if (progress_) progress_(line);
  }

  const PrometheusOptions& options_;
  PrometheusClient& client_;
  const PrometheusProgress& progress_;
  Window whole_;
  int64_t window_hint_[2];
  std::map<PodKey, PodAcc> pods_;
  IngestStats stats_;
  uint64_t refused_ = 0;
  uint64_t rows_ = 0;
};

Status Reader::RunQuery(const std::string& name, QueryKind kind, const MakeQuery& make, const OnRow& on_row) {
  auto t0 = Clock::now();
  std::deque<Window> todo;
  for (const Window& w : Split(whole_, window_hint_[static_cast<int>(kind)])) todo.push_back(w);
  size_t windows = 0;
  uint64_t rows = 0;
  while (!todo.empty()) {
    Window w = todo.front();
    todo.pop_front();
    std::string promql = make(w.len_ms - 1);
    std::string what = name + " over " + Describe(w);
    QueryOutcome out = client_.Query(promql, w.end_ms, what);
    if (out.ok) {
      ++windows;
      rows += out.samples.size();
      for (const std::string& warning : out.warnings) Progress("prometheus: warning (" + what + "): " + warning);
      for (const PromSample& s : out.samples) on_row(s);
      continue;
    }
    bool splittable = out.error_kind == QueryErrorKind::kLimit ||
                      (out.error_kind == QueryErrorKind::kTimeout && w.len_ms > options_.chunk.count());
    if (!splittable) {
      bool show_query = out.error_kind == QueryErrorKind::kRejected || out.error_kind == QueryErrorKind::kServer ||
                        out.error_kind == QueryErrorKind::kLimit;
      return Status::Error(out.error + (show_query ? "; query: " + Shortened(promql) : ""));
    }
    int64_t piece = 0;
    if (w.len_ms > options_.chunk.count()) {
      piece = options_.chunk.count();
    } else if ((w.len_ms + 1) / 2 >= options_.min_window.count()) {
      piece = (w.len_ms + 1) / 2;
    } else {
      return Status::Error(out.error + "; a window of " + promql::Duration(w.len_ms) +
                           " is still too much for the server: raise its limits (Prometheus --query.max-samples, "
                           "--query.timeout), shorten the lookback, or use a coarser step; query: " +
                           Shortened(promql));
    }
    ++refused_;
    Progress("prometheus: " + name + ": the server refused a " + promql::Duration(w.len_ms) + " window (" +
             out.error + "); retrying in " + promql::Duration(piece) + " windows");
    int64_t& hint = window_hint_[static_cast<int>(kind)];
    hint = std::min(hint, piece);
    std::vector<Window> pieces = Split(w, piece);
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) todo.push_front(*it);
  }
  rows_ += rows;
  stats_.lines += rows;
  stats_.data_lines += rows;
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  Progress("prometheus: " + name + ": " + std::to_string(windows) + (windows == 1 ? " window, " : " windows, ") +
           std::to_string(rows) + " rows in " + SecondsText(secs));
  return Status::Ok();
}

Status Reader::ReadCounts() {
  const std::string& sel = options_.selector;
  Status st = RunQuery("sample count", QueryKind::kRange,
                       [&](int64_t r) { return promql::SampleCount(sel, r); },
                       [&](const PromSample& s) {
                         PodKey key;
                         const char* error = nullptr;
                         uint64_t n = Usable(s.value) ? static_cast<uint64_t>(std::llround(s.value)) : 0;
                         switch (ResolvePod(s.labels, &key, &error)) {
                           case PodOf::kPod:
                             pods_[key].count += n;
                             stats_.samples += n;
                             break;
                           case PodOf::kNone:
                             stats_.unattributed_lines += n;
                             break;
                           case PodOf::kBad:
                             ++stats_.bad_lines;
                             if (stats_.first_bad_line_numbers.size() < kMaxBadExamples) {
                               // Line 0: these come from a server, not a file.
                               stats_.first_bad_line_numbers.push_back(0);
                               stats_.first_bad_reasons.push_back("Prometheus series " + LabelText(s.labels) +
                                                                  ": " + error);
                             }
                             break;
                         }
                       });
  return st;
}

Status Reader::ReadPeak(const char* metric, const std::string& name, std::optional<double> PodAcc::*field,
                        bool quantile) {
  const std::string& sel = options_.selector;
  const double q = options_.compute_percentile;
  bool any = false;
  Status st = RunQuery(
      name, QueryKind::kRange,
      [&](int64_t r) {
        return quantile ? promql::QuantileOverTime(metric, q, sel, r) : promql::MaxOverTime(metric, sel, r);
      },
      [&](const PromSample& s) {
        any = true;
        PodKey key;
        const char* error = nullptr;
        if (ResolvePod(s.labels, &key, &error) != PodOf::kPod) return;
        PodAcc& acc = pods_[key];
        if (!Usable(s.value)) {
          ++acc.bad;
          return;
        }
        std::optional<double>& v = acc.*field;
        v = v ? std::max(*v, s.value) : s.value;
      });
  if (any) stats_.metrics_seen.insert(metric);
  return st;
}

// max_over_time and quantile_over_time skip NaN samples, which the file
// readers refuse: count, per pod, the series holding any sample the files
// would call bad, so that the same data gives the same decision.
Status Reader::ReadBadSeries() {
  const std::string& sel = options_.selector;
  return RunQuery("unusable samples (NaN, Inf, negative)", QueryKind::kRange,
                  [&](int64_t r) { return promql::BadSeriesCount(sel, r); },
                  [&](const PromSample& s) {
                    PodKey key;
                    const char* error = nullptr;
                    if (ResolvePod(s.labels, &key, &error) != PodOf::kPod || !Usable(s.value)) return;
                    pods_[key].bad += static_cast<uint64_t>(std::llround(s.value));
                  });
}

Status Reader::ReadSpan(const char* metric, const std::set<PodKey>* only) {
  const std::string& sel = options_.selector;
  const int64_t step = options_.step.count();
  const std::string m(metric);
  auto wanted = [&](const Labels& labels, PodKey* key) {
    const char* error = nullptr;
    if (ResolvePod(labels, key, &error) != PodOf::kPod) return false;
    // Only pods with samples in the window: the subquery's first steps and
    // the instant timestamp() look back 5m, possibly before the window.
    auto it = pods_.find(*key);
    if (it == pods_.end() || it->second.count == 0) return false;
    return only == nullptr || only->count(*key) > 0;
  };
  Status st = RunQuery("first sample (" + m + ")", QueryKind::kSubquery,
                       [&](int64_t r) { return promql::FirstTimestamp(metric, sel, r, step); },
                       [&](const PromSample& s) {
                         PodKey key;
                         if (!wanted(s.labels, &key) || !std::isfinite(s.value)) return;
                         int64_t ms = std::llround(s.value * 1000.0);
                         PodAcc& acc = pods_[key];
                         acc.first_ms = acc.first_ms ? std::min(*acc.first_ms, ms) : ms;
                       });
  if (!st.ok()) return st;
  return RunQuery("last sample (" + m + ")", QueryKind::kSubquery,
                  [&](int64_t r) { return promql::LastTimestamp(metric, sel, r, step); },
                  [&](const PromSample& s) {
                    PodKey key;
                    if (!wanted(s.labels, &key) || !std::isfinite(s.value)) return;
                    int64_t ms = std::llround(s.value * 1000.0);
                    PodAcc& acc = pods_[key];
                    acc.last_ms = acc.last_ms ? std::max(*acc.last_ms, ms) : ms;
                    // One device per series: UUID, else hostname/gpu; "/GI<id>" on a MIG slice.
                    std::string host = Get(s.labels, "hostname");
                    if (host.empty()) host = Get(s.labels, "Hostname");
                    std::string device = Get(s.labels, "UUID");
                    if (device.empty() && (!host.empty() || Find(s.labels, "gpu") != nullptr)) {
                      device = host + "/" + Get(s.labels, "gpu");
                    }
                    if (!device.empty() && Find(s.labels, "GPU_I_ID") != nullptr) {
                      device += "/GI" + Get(s.labels, "GPU_I_ID");
                    }
                    if (!device.empty()) acc.gpus.insert(device);
                    std::string text = LabelText(s.labels);
                    if (ms > acc.seen_ms || (ms == acc.seen_ms && text > acc.seen_key)) {
                      acc.seen_ms = ms;
                      acc.seen_key = std::move(text);
                      acc.seen = s.labels;
                    }
                  });
}

Status Reader::NoSeriesError() {
  std::string where = "Prometheus at " + client_.url() + " has no DCGM series between " + Iso(whole_.end_ms - whole_.len_ms) +
                      " and " + Iso(whole_.end_ms) + ": looked for " + kFbUsedMetric + ", " + kGrEngineActiveMetric +
                      " and " + kGpuUtilMetric;
  if (!options_.selector.empty()) where += " matching {" + options_.selector + "}";
  Result<std::vector<std::string>> names = client_.MetricNames(whole_.end_ms - whole_.len_ms, whole_.end_ms);
  if (names.ok()) {
    std::string dcgm;
    size_t shown = 0;
    for (const std::string& n : *names) {
      if (n.rfind("DCGM_", 0) != 0) continue;
      if (shown++ < 10) dcgm += (dcgm.empty() ? "" : ", ") + n;
    }
    if (shown > 10) dcgm += ", ...";
    where += dcgm.empty() ? "; it has no DCGM_* metric at all in that window (is dcgm-exporter scraped? is the "
                            "lookback right?)"
                          : "; DCGM metrics it does have: " + dcgm;
  }
  return Status::Error(where);
}

History Reader::Build() {
  History h;
  h.source = client_.url();
  const int64_t window_start = whole_.end_ms - whole_.len_ms + 1;
  for (auto& [key, acc] : pods_) {
    PodUsage u;
    if (acc.memory) u.peak_memory_mib = static_cast<int64_t>(std::ceil(*acc.memory));
    if (acc.gr) {
      // Exported in percent (history.h, kRatioPercentThreshold).
      u.compute_in_percent = *acc.gr > kRatioPercentThreshold;
      u.compute.Add(u.compute_in_percent ? *acc.gr / 100.0 : *acc.gr);
    }
    if (acc.util) u.gpu_util.Add(*acc.util / 100.0);
    u.samples = acc.count;
    u.bad_samples = acc.bad;
    if (acc.first_ms && acc.last_ms) {
      u.first_ts_ms = std::max(*acc.first_ms, window_start);
      u.last_ts_ms = std::max(*acc.last_ms, u.first_ts_ms);
      u.gaps.AddSpan(u.last_ts_ms - u.first_ts_ms);
    } else if (u.samples > 0) {
      // Samples counted but no timestamp found (data changing under the
      // queries): do not invent a span; the planner will not size this pod.
      u.first_ts_ms = u.last_ts_ms = whole_.end_ms;
      ++u.bad_samples;
    }
    const Labels& l = acc.seen;
    u.hostname = Get(l, "hostname");
    if (u.hostname.empty()) u.hostname = Get(l, "Hostname");
    u.gpu_uuid = Get(l, "UUID");
    u.model_name = Get(l, "modelName");
    u.mig_profile = Get(l, "GPU_I_PROFILE");
    u.container = Find(l, "exported_pod") != nullptr ? Get(l, "exported_container") : Get(l, "container");
    u.gpus = std::move(acc.gpus);
    h.pods.emplace(key, std::move(u));
  }
  h.stats = std::move(stats_);
  return h;
}

Result<History> Reader::Run() {
  Status st = ReadCounts();
  if (!st.ok()) return st;
  if (stats_.samples == 0 && stats_.unattributed_lines == 0 && stats_.bad_lines == 0) return NoSeriesError();
  if (pods_.empty()) {
    return Status::Error("Prometheus at " + client_.url() + " has " + std::to_string(stats_.unattributed_lines) +
                         " DCGM samples between " + Iso(whole_.end_ms - whole_.len_ms) + " and " + Iso(whole_.end_ms) +
                         " but none on a series with pod labels (namespace/pod or exported_namespace/exported_pod): "
                         "turn on dcgm-exporter's Kubernetes pod mapping (DCGM_EXPORTER_KUBERNETES=true)");
  }
  st = ReadPeak(kFbUsedMetric, std::string("peak memory (") + kFbUsedMetric + ")", &PodAcc::memory, false);
  if (!st.ok()) return st;
  std::string q = promql::Number(options_.compute_percentile);
  st = ReadPeak(kGrEngineActiveMetric, "compute q" + q + " (" + kGrEngineActiveMetric + ")", &PodAcc::gr, true);
  if (!st.ok()) return st;
  st = ReadPeak(kGpuUtilMetric, "compute q" + q + " (" + kGpuUtilMetric + ")", &PodAcc::util, true);
  if (!st.ok()) return st;
  st = ReadBadSeries();
  if (!st.ok()) return st;
  st = ReadSpan(kFbUsedMetric, nullptr);
  if (!st.ok()) return st;
  // Pods with samples but no FB_USED: span of their compute metrics.
  for (const char* metric : {kGrEngineActiveMetric, kGpuUtilMetric}) {
    std::set<PodKey> missing;
    for (const auto& [key, acc] : pods_) {
      if (acc.count > 0 && !(acc.first_ms && acc.last_ms)) missing.insert(key);
    }
    if (missing.empty()) break;
    st = ReadSpan(metric, &missing);
    if (!st.ok()) return st;
  }
  return Build();
}

Status CheckOptions(const PrometheusOptions& o) {
  if (o.lookback > kMaxLookback) {
    return Status::Error(std::string("Prometheus lookback is too large (max ") + kMaxLookbackText + ")");
  }
  if (o.lookback.count() < 1000) return Status::Error("Prometheus lookback must be at least 1s");
  if (o.step.count() < kMinStepMs || o.step.count() > kMaxStepMs) {
    return Status::Error("Prometheus step must be between 1s and 1h, got " +
                         promql::Duration(std::max<int64_t>(1, o.step.count())));
  }
  if (o.min_window.count() < o.step.count()) {
    return Status::Error("Prometheus min window must not be shorter than the step");
  }
  if (o.chunk.count() < o.min_window.count()) {
    return Status::Error("Prometheus chunk must not be shorter than the min window");
  }
  if (o.max_window.count() < 0) return Status::Error("Prometheus max window must not be negative");
  if (!(o.compute_percentile >= 0 && o.compute_percentile <= 1)) {
    return Status::Error("compute percentile must be between 0 and 1");
  }
  return Status::Ok();
}

}  // namespace

Result<History> ReadPrometheusHistory(const PrometheusOptions& options, const PrometheusProgress& progress,
                                      PrometheusReadStats* stats) {
  auto t0 = Clock::now();
  if (Status st = CheckOptions(options); !st.ok()) return st;
  PrometheusHttpOptions http_options;
  http_options.url = options.url;
  http_options.bearer_token_file = options.bearer_token_file;
  http_options.ca_file = options.ca_file;
  http_options.headers = options.headers;
  http_options.timeout = options.timeout;
  http_options.connect_timeout = options.connect_timeout;
  http_options.max_response_bytes = options.max_response_bytes;
  Result<std::unique_ptr<PrometheusHttp>> http = PrometheusHttp::Create(http_options);
  if (!http.ok()) return http.status();
  PrometheusClient client(std::move(http.value()));
  int64_t end_ms = options.end_unix_ms ? *options.end_unix_ms
                                       : std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count();
  Reader reader(options, client, progress, end_ms);
  Result<History> history = reader.Run();
  if (stats != nullptr) {
    stats->queries = client.requests();
    stats->refused_queries = reader.refused();
    stats->bytes_received = client.bytes_received();
    stats->result_rows = reader.rows();
    stats->seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  if (history.ok() && progress) {
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.2f", std::chrono::duration<double>(Clock::now() - t0).count());
    progress("prometheus: " + std::to_string(history->pods.size()) + " pods, " +
             std::to_string(history->stats.samples) + " samples summarised by " + client.url() + " in " +
             std::to_string(client.requests()) + " queries, " + secs + " s");
  }
  return history;
}

}  // namespace kubeon::metrics
