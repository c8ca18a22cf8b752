// See history_builder.h for the contract.
#include "metrics/history_builder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <utility>

#include "metrics/message_text.h"

namespace kubeon::metrics::internal {
namespace {

constexpr size_t kMaxDetail = 60;

// The offending input text, quoted: one line of valid UTF-8 (message_text.h),
// with '"' escaped.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : MessageText(text, kMaxDetail)) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

void AssignIfDifferent(std::string& dst, std::string_view src) {
  if (dst != src) dst.assign(src);
}

}  // namespace

std::string_view* SeriesLabels::Field(std::string_view name) {
  switch (name.size()) {
    case 3:
      if (name == "pod") return &pod;
      if (name == "gpu") return &gpu;
      break;
    case 4:
      if (name == "UUID") return &uuid;
      break;
    case 8:
      if (name == "hostname" || name == "Hostname") return &hostname;
      if (name == "GPU_I_ID") return &mig_instance;
      break;
    case 9:
      if (name == "namespace") return &namespace_;
      if (name == "container") return &container;
      if (name == "modelName") return &model_name;
      break;
    case 12:
      if (name == "exported_pod") return &exported_pod;
      break;
    case 13:
      if (name == "GPU_I_PROFILE") return &mig_profile;
      break;
    case 18:
      if (name == "exported_namespace") return &exported_namespace;
      if (name == "exported_container") return &exported_container;
      break;
    default:
      break;
  }
  return nullptr;
}

static_assert(kMaxClockSkewMs == 5 * 60 * 1000, "CheckTime's message names the allowance");

int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

HistoryBuilder::HistoryBuilder(const IngestOptions& options, std::string source)
    : options_(options),
      latest_ms_((options.now_ms != 0 ? options.now_ms : WallClockMs()) + kMaxClockSkewMs),
      source_(std::move(source)) {}

void HistoryBuilder::SetLast(Series* s) {
  if (last_series_ != nullptr && last_series_ != s && last_series_->cached && s->cached) {
    last_series_->successor = s;
  }
  last_series_ = s;
}

namespace {
bool KeyThenTerminator(std::string_view text, std::string_view key, char terminator) {
  size_t n = key.size();
  return text.size() > n && text[n] == terminator && text.substr(0, n) == key;
}
}  // namespace

const Series* HistoryBuilder::MatchPredicted(std::string_view text, char terminator,
                                             size_t* key_size) {
  if (last_series_ == nullptr) return nullptr;
  if (KeyThenTerminator(text, last_series_->key(), terminator)) {
    *key_size = last_series_->key_size;
    return last_series_;
  }
  Series* next = last_series_->successor;
  if (next != nullptr && KeyThenTerminator(text, next->key(), terminator)) {
    SetLast(next);
    *key_size = next->key_size;
    return next;
  }
  return nullptr;
}

const Series* HistoryBuilder::Find(std::string_view key, const uint64_t* known_hash) {
  missed_key_ = {};
  if (last_series_ != nullptr) {
    if (key == last_series_->key()) return last_series_;
    Series* next = last_series_->successor;
    if (next != nullptr && key == next->key()) {
      SetLast(next);
      return next;
    }
  }
  const uint64_t hash = known_hash != nullptr ? *known_hash : ViewIndex<Series>::Hash(key);
  Series* found = series_.Find(key, hash);
  if (found == nullptr) {
    missed_key_ = key;
    missed_hash_ = hash;
    return nullptr;
  }
  SetLast(found);
  return last_series_;
}

bool HistoryBuilder::Resolve(std::string_view key, const SeriesLabels& labels, Series* out, const char** error) {
  // Labels reach the report (JSON/YAML: UTF-8 only); Prometheus requires
  // UTF-8 label values too.  Checked once per series, not per line.
  for (std::string_view v : {labels.namespace_, labels.pod, labels.container, labels.exported_namespace,
                             labels.exported_pod, labels.exported_container, labels.hostname, labels.gpu,
                             labels.uuid, labels.model_name, labels.mig_profile, labels.mig_instance}) {
    if (!labels.utf8_checked && !IsValidUtf8(v)) {
      *error = "a label value is not valid UTF-8";
      return false;
    }
  }
  std::string_view ns = labels.namespace_;
  std::string_view pod = labels.pod;
  std::string_view container = labels.container;
  if (!labels.exported_pod.empty()) {
    ns = labels.exported_namespace;
    pod = labels.exported_pod;
    container = labels.exported_container;
    if (ns.empty()) {
      *error = "label exported_pod without exported_namespace";
      return false;
    }
  } else if (!pod.empty() && ns.empty()) {
    *error = "label pod without namespace";
    return false;
  }
  // A value lying inside `key` (the same line's text, unescaped) is a span
  // of it; any other is appended, and so is the device.  Sized first: one
  // allocation.
  const std::less_equal<const char*> le;  // a total order even across buffers
  auto in_key = [&](std::string_view v) {
    return le(key.data(), v.data()) && le(v.data() + v.size(), key.data() + key.size());
  };
  const std::string_view gi = labels.mig_instance.empty() ? std::string_view() : std::string_view("/GI");
  size_t size = key.size();
  for (std::string_view v : {labels.hostname, labels.uuid, labels.model_name, labels.mig_profile, container}) {
    if (!v.empty() && !in_key(v)) size += v.size();
  }
  if (!labels.uuid.empty()) {
    size += labels.uuid.size() + gi.size() + labels.mig_instance.size();
  } else if (!labels.hostname.empty() || !labels.gpu.empty()) {
    size += labels.hostname.size() + 1 + labels.gpu.size() + gi.size() + labels.mig_instance.size();
  }
  // Offsets in 32 bits (a line is at most 1 MiB, a CSV row's cells likewise).
  if (size > UINT32_MAX) {
    *error = "the series' labels are longer than 4 GiB";
    return false;
  }
  out->id = next_series_id_++;
  out->key_size = static_cast<uint32_t>(key.size());
  out->text.clear();
  out->text.reserve(size);
  out->text.assign(key);
  auto span = [&](std::string_view v) {
    if (v.empty()) return Series::Span{};
    if (in_key(v)) return Series::Span{static_cast<uint32_t>(v.data() - key.data()), static_cast<uint32_t>(v.size())};
    const Series::Span at{static_cast<uint32_t>(out->text.size()), static_cast<uint32_t>(v.size())};
    out->text.append(v);
    return at;
  };
  out->hostname = span(labels.hostname);
  out->uuid = span(labels.uuid);
  out->model_name = span(labels.model_name);
  out->mig_profile = span(labels.mig_profile);
  out->container = span(container);
  const auto device_at = static_cast<uint32_t>(out->text.size());
  if (!labels.uuid.empty()) {
    out->text.append(labels.uuid);
  } else if (!labels.hostname.empty() || !labels.gpu.empty()) {
    out->text.append(labels.hostname).append("/").append(labels.gpu);
  }
  if (out->text.size() > device_at) out->text.append(gi).append(labels.mig_instance);
  out->device = Series::Span{device_at, static_cast<uint32_t>(out->text.size() - device_at)};
  out->pod = -1;
  if (pod.empty()) return true;
  PodIndexKey(ns, pod, &pod_key_);
  const uint64_t hash = ViewIndex<Slot>::Hash(pod_key_);
  Slot* slot = pod_index_.Find(pod_key_, hash);
  if (slot == nullptr) {
    if (slots_.size() >= static_cast<size_t>(INT32_MAX)) {
      *error = "more than 2^31 pods";
      return false;
    }
    slot = &slots_.emplace_back();
    // A node of History::pods's type, taken out of a map of its own.
    std::map<PodKey, PodUsage> one;
    slot->node = one.extract(one.emplace(PodKey{std::string(ns), std::string(pod)}, PodUsage{}).first);
    slot->index_key = pod_key_;
    slot->index = static_cast<int32_t>(slots_.size() - 1);
    pod_index_.Insert(slot->index_key, hash, slot);
  }
  out->pod = slot->index;
  return true;
}

void HistoryBuilder::PodIndexKey(std::string_view ns, std::string_view pod, std::string* out) {
  // Sizes below 2^32: a line (or CSV row) is at most 1 MiB.
  const auto ns_size = static_cast<uint32_t>(ns.size());
  out->assign(reinterpret_cast<const char*>(&ns_size), sizeof(ns_size));
  out->append(ns).append(pod);
}

const Series* HistoryBuilder::Add(std::string_view key, const SeriesLabels& labels,
                                  const char** error) {
  if (series_.size() < options_.max_cached_series) {
    // Find() just missed this key (the REQUIRES): its hash is known and
    // nothing has been added since.  Otherwise look first, and keep a
    // series already cached (the REQUIRES broken).
    const bool missed = key.data() == missed_key_.data() && key.size() == missed_key_.size();
    const uint64_t hash = missed ? missed_hash_ : ViewIndex<Series>::Hash(key);
    missed_key_ = {};
    if (Series* known = missed ? nullptr : series_.Find(key, hash); known != nullptr) {
      SetLast(known);
      return last_series_;
    }
    Series& series = cached_.emplace_back();
    if (!Resolve(key, labels, &series, error)) {
      cached_.pop_back();
      return nullptr;
    }
    series.cached = true;
    series_.Insert(series.key(), hash, &series);
    SetLast(&series);
    return last_series_;
  }
  if (!Resolve(key, labels, &uncached_, error)) return nullptr;
  SetLast(&uncached_);
  return last_series_;
}

void HistoryBuilder::ApplySeries(Slot& slot, const Series& series) {
  slot.last_series = series.id;
  PodUsage& u = slot.node.mapped();
  AssignIfDifferent(u.hostname, series.Value(series.hostname));
  AssignIfDifferent(u.gpu_uuid, series.Value(series.uuid));
  AssignIfDifferent(u.model_name, series.Value(series.model_name));
  AssignIfDifferent(u.mig_profile, series.Value(series.mig_profile));
  AssignIfDifferent(u.container, series.Value(series.container));
  if (const std::string_view device = series.Value(series.device); !device.empty()) {
    // A pod has a device or a few: looked for as a view, a string made only
    // for a new one (this runs whenever a pod's lines switch series).
    const bool known = u.gpus.size() <= 8 ? std::any_of(u.gpus.begin(), u.gpus.end(),
                                                         [&](const std::string& g) { return g == device; })
                                          : u.gpus.count(std::string(device)) > 0;
    if (!known) u.gpus.emplace(device);
  }
}

void HistoryBuilder::Accept(const Series& series, Metric metric, double value, int64_t ts_ms) {
  Slot& slot = slots_[static_cast<size_t>(series.pod)];
  if (slot.last_series != series.id) ApplySeries(slot, series);
  PodUsage& u = slot.node.mapped();
  switch (metric) {
    case Metric::kFbUsed: {
      int64_t mib = static_cast<int64_t>(std::ceil(value));
      if (mib > u.peak_memory_mib) u.peak_memory_mib = mib;
      if (options_.on_memory_sample) options_.on_memory_sample(slot.node.key(), ts_ms, value);
      break;
    }
    case Metric::kGrEngineActive:
      if (!u.compute_in_percent && value > kRatioPercentThreshold) {
        u.compute.ReinterpretAsPercent(kRatioPercentThreshold);
        u.compute_in_percent = true;
      }
      u.compute.Add(u.compute_in_percent ? value / 100.0 : value);
      break;
    case Metric::kGpuUtil:
      u.gpu_util.Add(value / 100.0);
      break;
    case Metric::kOther:
      return;  // excluded by the REQUIRES clause
  }
  if (u.samples == 0) {
    u.first_ts_ms = ts_ms;
    u.last_ts_ms = ts_ms;
  } else {
    if (ts_ms < u.first_ts_ms) u.first_ts_ms = ts_ms;
    if (ts_ms > u.last_ts_ms) {
      u.gaps.Add(ts_ms - u.last_ts_ms);  // newer than every sample before
      u.last_ts_ms = ts_ms;
    }
  }
  ++u.samples;
  ++stats_.samples;
}

void HistoryBuilder::SeenMetric(std::string_view metric_name) {
  if (metric_name == last_metric_seen_) return;
  last_metric_seen_.assign(metric_name);
  // Names are quoted in messages: one line of UTF-8, and only so many.
  if (stats_.metrics_seen.size() >= kMaxMetricsSeen) return;
  stats_.metrics_seen.insert(MessageText(metric_name, 100));
}

void HistoryBuilder::Ignored(std::string_view metric_name) {
  ++stats_.ignored_metric_lines;
  SeenMetric(metric_name);
}

void HistoryBuilder::BadLine(uint64_t line, std::string_view reason, std::string_view detail,
                             std::string_view column) {
  ++stats_.bad_lines;
  if (stats_.first_bad_line_numbers.size() >= kMaxBadExamples) return;
  std::string text;
  if (!column.empty()) text.append("column ").append(column).append(": ");
  text.append(reason);
  if (!detail.empty()) text += ": " + Quote(detail);
  stats_.first_bad_line_numbers.push_back(line);
  stats_.first_bad_reasons.push_back(std::move(text));
}

void HistoryBuilder::BadSample(const Series* series) {
  if (series != nullptr && series->pod >= 0) ++slots_[static_cast<size_t>(series->pod)].node.mapped().bad_samples;
}

Result<History> Verdict(History history, const IngestOptions& options) {
  const IngestStats& stats = history.stats;
  const std::string& source = history.source;
  if (stats.data_lines == 0) {
    return Status::Error(source + ": no samples (" + std::to_string(stats.lines) + " lines, none with data)");
  }
  double bad_fraction = static_cast<double>(stats.bad_lines) / static_cast<double>(stats.data_lines);
  if (bad_fraction > options.max_bad_fraction) {
    std::string msg = source + ": " + std::to_string(stats.bad_lines) + " of " + std::to_string(stats.data_lines) +
                      " data lines are bad (more than " +
                      std::to_string(static_cast<int>(std::lround(options.max_bad_fraction * 100))) +
                      "% allowed); first:";
    for (size_t i = 0; i < stats.first_bad_line_numbers.size(); ++i) {
      msg += (i == 0 ? " " : "; ") + source + ":" + std::to_string(stats.first_bad_line_numbers[i]) + ": " +
             stats.first_bad_reasons[i];
    }
    return Status::Error(msg);
  }
  return history;
}

History HistoryBuilder::TakeHistory() {
  // The pods in key order (PodKey's: namespace, then pod), each linked in
  // at the end of the map (no search).  Sorted as small entries: the
  // namespace as its rank among the few distinct ones, the pod's first 16
  // bytes as two integers that order as the bytes do (zero-padded: equal
  // prefixes, e.g. "a" and "a\0", fall back to comparing the names).
  std::vector<std::string_view> namespaces;  // runs of one namespace kept once
  for (const Slot& slot : slots_) {
    const std::string_view ns = slot.node.key().namespace_;
    if (namespaces.empty() || namespaces.back() != ns) namespaces.push_back(ns);
  }
  std::sort(namespaces.begin(), namespaces.end());
  namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
  struct Entry {
    uint32_t ns_rank;
    uint64_t pod_prefix[2];
    std::string_view pod;
    Slot* slot;
  };
  std::vector<Entry> order;
  order.reserve(slots_.size());
  std::string_view last_ns;
  uint32_t last_rank = 0;
  for (Slot& slot : slots_) {
    const std::string_view ns = slot.node.key().namespace_;
    if (order.empty() || ns != last_ns) {
      last_ns = ns;
      last_rank = static_cast<uint32_t>(std::lower_bound(namespaces.begin(), namespaces.end(), ns) - namespaces.begin());
    }
    Entry e{last_rank, {0, 0}, slot.node.key().pod, &slot};
    for (size_t i = 0; i < 16 && i < e.pod.size(); ++i) {
      e.pod_prefix[i / 8] |= uint64_t{static_cast<unsigned char>(e.pod[i])} << (8 * (7 - i % 8));
    }
    order.push_back(e);
  }
  std::sort(order.begin(), order.end(), [](const Entry& a, const Entry& b) {
    if (a.ns_rank != b.ns_rank) return a.ns_rank < b.ns_rank;
    if (a.pod_prefix[0] != b.pod_prefix[0]) return a.pod_prefix[0] < b.pod_prefix[0];
    if (a.pod_prefix[1] != b.pod_prefix[1]) return a.pod_prefix[1] < b.pod_prefix[1];
    return a.pod < b.pod;
  });
  History history;
  for (const Entry& e : order) history.pods.insert(history.pods.end(), std::move(e.slot->node));
  pod_index_.Clear();  // views of the slots' keys: gone before them
  slots_.clear();
  history.source = source_;
  history.stats = std::move(stats_);
  last_series_ = nullptr;
  series_.Clear();
  missed_key_ = {};
  cached_.clear();
  return history;
}

Result<History> HistoryBuilder::Finish() { return Verdict(TakeHistory(), options_); }

}  // namespace kubeon::metrics::internal
