// See openmetrics_reader.h for the contract.
#include "metrics/openmetrics_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "metrics/byte_scan.h"
#include "metrics/history_builder.h"
#include "metrics/line_splitter.h"
#include "metrics/message_text.h"
#include "metrics/sample_parse.h"

namespace kubeon::metrics {
namespace {

using internal::Metric;
using internal::Series;
using internal::SeriesLabels;

constexpr size_t kMaxLineBytes = 1 << 20;
constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct CharTable {
  bool metric[256] = {};  // [a-zA-Z0-9_:]
  bool label[256] = {};   // [a-zA-Z0-9_]
  constexpr CharTable() {
    for (int c = 0; c < 256; ++c) {
      bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      label[c] = alnum || c == '_';
      metric[c] = label[c] || c == ':';
    }
  }
};
constexpr CharTable kChars;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size() && IsBlank(s[i])) ++i;
  return i;
}

size_t TokenEnd(std::string_view s, size_t i) {
  return static_cast<size_t>(internal::FindAny2(s.data() + i, s.data() + s.size(), ' ', '\t') - s.data());
}

// The end of the metric name that starts at s[from], or `from` when none
// does (a name is [a-zA-Z_:][a-zA-Z0-9_:]*).
size_t MetricNameEnd(std::string_view s, size_t from) {
  if (from >= s.size() || (s[from] >= '0' && s[from] <= '9')) return from;
  size_t i = from;
  while (i < s.size() && kChars.metric[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

// Position of the closing quote of a label value whose content starts at
// `from`, honouring backslash escapes; npos when unterminated.  *escaped
// (when given) tells whether the value holds a backslash.
size_t ClosingQuote(std::string_view s, size_t from, bool* escaped = nullptr) {
  const char* base = s.data();
  const char* end = base + s.size();
  const char* p = base + from;
  while (true) {
    const char* q = internal::FindAny2(p, end, '"', '\\');
    if (q == end) return std::string_view::npos;
    if (*q == '"') return static_cast<size_t>(q - base);
    if (escaped != nullptr) *escaped = true;
    p = q + 2;  // skip the escaped character
    if (p > end) return std::string_view::npos;
  }
}

// Position of the '}' closing a label set whose content starts at `from`;
// npos when there is none outside quotes.
size_t LabelSetEnd(std::string_view s, size_t from) {
  const char* base = s.data();
  const char* end = base + s.size();
  const char* p = base + from;
  while (true) {
    const char* q = internal::FindAny2(p, end, '"', '}');
    if (q == end) return std::string_view::npos;
    if (*q == '}') return static_cast<size_t>(q - base);
    size_t close = ClosingQuote(s, static_cast<size_t>(q + 1 - base));
    if (close == std::string_view::npos) return close;
    p = base + close + 1;
  }
}

// OpenMetrics label value escapes: \\ \" \n; any other escaped character is
// kept with its backslash, as Prometheus does.
void Unescape(std::string_view raw, std::string* out) {
  out->clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      char n = raw[++i];
      if (n == 'n') {
        *out += '\n';
      } else if (n == '\\' || n == '"') {
        *out += n;
      } else {
        *out += '\\';
        *out += n;
      }
    } else {
      *out += c;
    }
  }
}

// Parses a label set (the text between its braces) into *labels; on failure
// returns a reason.  A value with escapes is unescaped into the next string
// of *unescaped (kept as written once they are used up); with no
// `unescaped`, such a value fails ("escaped label value").
const char* ParseLabelSet(std::string_view block, SeriesLabels* labels, std::array<std::string, 16>* unescaped) {
  size_t used = 0;
  size_t i = 0;
  const size_t n = block.size();
  while (true) {
    i = SkipBlanks(block, i);
    if (i == n) return nullptr;
    size_t name_start = i;
    if (kChars.label[static_cast<unsigned char>(block[i])] && !(block[i] >= '0' && block[i] <= '9')) {
      while (i < n && kChars.label[static_cast<unsigned char>(block[i])]) ++i;
    }
    if (i == name_start) return "invalid label name";
    std::string_view name = block.substr(name_start, i - name_start);
    i = SkipBlanks(block, i);
    if (i == n || block[i] != '=') return "expected '=' after label name";
    i = SkipBlanks(block, i + 1);
    if (i == n || block[i] != '"') return "expected '\"' to open label value";
    bool escaped = false;
    size_t close = ClosingQuote(block, i + 1, &escaped);
    if (close == std::string_view::npos) return "unterminated label value";
    std::string_view raw = block.substr(i + 1, close - i - 1);
    i = close + 1;
    std::string_view* field = labels->Field(name);
    if (field != nullptr) {
      // A default-constructed view has a null data(); an assigned one never does.
      if (field->data() != nullptr && field != &labels->hostname) return "duplicate label";
      if (escaped && unescaped == nullptr) return "escaped label value";
      if (escaped && used < unescaped->size()) {
        Unescape(raw, &(*unescaped)[used]);
        *field = (*unescaped)[used++];
      } else {
        *field = raw;
      }
      if (field->data() == nullptr) *field = std::string_view(block.data() + i, 0);
    }
    i = SkipBlanks(block, i);
    if (i == n) return nullptr;
    if (block[i] != ',') return "expected ',' or '}' after label value";
    ++i;
  }
}

}  // namespace

class OpenMetricsReader::Impl {
 public:
  Impl(const IngestOptions& options, std::string source, bool starts_file)
      : builder_(options, std::move(source)), lines_(kMaxLineBytes), starts_file_(starts_file) {}

  void Feed(std::string_view chunk) {
    lines_.Feed(
        chunk, [this](const char* p, const char* end, uint64_t number) { return PredictedLine(p, end, number); },
        [this](std::string_view line, uint64_t number, bool too_long) { Line(line, number, too_long); });
  }

  // Feed(chunk, runs): makes the chunk and its first pass NewSeriesAt()'s
  // for the time of FeedWithRuns, which reads the chunk.
  void Feed(std::string_view chunk, const internal::RepeatRuns& runs);
  void FeedWithRuns(std::string_view chunk, const internal::RepeatRuns& runs);

  Result<History> Finish() {
    FlushLastLine();
    return builder_.Finish();
  }

  Piece FinishPiece() {
    FlushLastLine();
    return Piece{builder_.TakeHistory(), eof_};
  }

 private:
  void FlushLastLine() {
    lines_.Finish([this](std::string_view line, uint64_t number, bool too_long) {
      Line(line, number, too_long);
    });
  }
  void Line(std::string_view line, uint64_t number, bool too_long);
  // The fast path of LineSplitter::Feed: a line that starts with the
  // previous line's metric name (a used one), '{' and the predicted series'
  // label set is read here, with only its end after the label set scanned
  // for '\n' (the rest of its bytes are compared once, never searched).
  // Returns the position of its '\n', or nullptr (Line() reads it).  Same
  // counts, reports and samples as Line() would give.
  const char* PredictedLine(const char* p, const char* end, uint64_t number);
  // A sample line of `series` whose value and time were read in their
  // common spelling (ReadSimpleSampleEnd): counted and accepted as Line()
  // would, and true; false, nothing counted, when the builder refuses the
  // time or the value (the caller leaves the line to Line(), which reports it).
  bool TakeSimpleSample(const Series& series, Metric metric, double value, int64_t ts_ms) {
    if (builder_.CheckTime(ts_ms) != nullptr || internal::CheckSampleValue(metric, value) != nullptr) return false;
    builder_.Line();
    builder_.DataLine();
    if (series.pod < 0) {
      builder_.Unattributed();
    } else {
      builder_.Accept(series, metric, value, ts_ms);
    }
    return true;
  }
  // Whether line[i...], after the label set, is empty or starts with a
  // blank; else reports the line as bad.
  bool BlankAfterLabels(std::string_view line, size_t i, uint64_t number) {
    if (i < line.size() && !IsBlank(line[i])) {
      builder_.BadLine(number, "expected a blank after the label set", line.substr(i));
      return false;
    }
    return true;
  }
  // The rest of a data line of a used metric whose series is resolved:
  // line[i...] follows the label set (or the name when there is none).
  void Sample(std::string_view line, size_t i, uint64_t number, Metric metric, const Series* series);
  // The first pass's reading of the label set that starts at `key` (a
  // position in the line being read), or nullptr (Feed(chunk, runs) only).
  const internal::RepeatRuns::NewSeries* NewSeriesAt(const char* key);
  // Reads the lines of `run` from runs.samples, as Line() would read them,
  // while that holds (the line before the run was read with the run's head:
  // see prev_); returns how many it read, the rest left to Feed(chunk).
  uint32_t RunFromSamples(const internal::RepeatRuns::Run& run, const internal::RepeatRuns& runs);
  // What a line was read as, for Feed(chunk, runs): a sample line of a used
  // metric whose series resolved, its metric name and label set its first
  // `head` bytes; a line of an unused metric, its name `head` bytes long;
  // or anything else.
  enum class LineKind { kOther, kSample, kIgnored };
  void Read(LineKind kind, size_t head = 0, const Series* series = nullptr) {
    prev_kind_ = kind;
    prev_head_ = head;
    prev_series_ = series;
  }

  internal::HistoryBuilder builder_;
  internal::LineSplitter lines_;
  std::array<std::string, 16> unescaped_;  // storage for escaped label values of one line
  // The metric name of the last line that had a well-formed one, and its
  // class; it has been passed to the builder (SeenMetric or Ignored).
  std::string last_name_;
  Metric last_metric_ = Metric::kOther;
  bool starts_file_ = true;
  bool eof_ = false;
  // While Feed(chunk, runs) runs: the chunk, its first pass, and the next
  // of its new_series that a line may use.
  std::string_view chunk_;
  const internal::RepeatRuns* runs_ = nullptr;
  size_t next_new_ = 0;
  // The previous line, as Read() recorded it.
  LineKind prev_kind_ = LineKind::kOther;
  size_t prev_head_ = 0;
  const Series* prev_series_ = nullptr;
};

void OpenMetricsReader::Impl::Line(std::string_view line, uint64_t number, bool too_long) {
  Read(LineKind::kOther);
  builder_.Line();
  // A line read without its byte order mark is not what a run repeating
  // its bytes would be read as (their mark is not skipped): left kOther.
  const bool bom = number == 1 && starts_file_ && line.substr(0, kBom.size()) == kBom;
  if (bom) line.remove_prefix(kBom.size());
  auto read = [&](LineKind kind, size_t head, const Series* series = nullptr) {
    if (!bom) Read(kind, head, series);
  };
  size_t i = SkipBlanks(line, 0);
  if (i == line.size()) return;  // blank line
  if (line[i] == '#') {
    if (internal::TrimBlanks(line.substr(i)) == "# EOF") eof_ = true;
    return;
  }
  builder_.DataLine();
  if (too_long) {
    builder_.BadLine(number, "line longer than 1048576 bytes");
    return;
  }
  if (eof_) {
    builder_.BadLine(number, "data after # EOF");
    return;
  }
  // Metric name: most lines repeat the previous one's, already checked,
  // classified and recorded.
  Metric metric = last_metric_;
  if (const size_t n = last_name_.size();
      n > 0 && line.size() - i >= n && std::memcmp(line.data() + i, last_name_.data(), n) == 0 &&
      (line.size() - i == n || line[i + n] == '{' || IsBlank(line[i + n]))) {
    i += n;
    if (metric == Metric::kOther) {
      builder_.Ignored();
      read(LineKind::kIgnored, i);
      return;
    }
  } else {
    const size_t name_start = i;
    i = MetricNameEnd(line, i);
    if (i == name_start) {
      builder_.BadLine(number, "line does not start with a metric name", line);
      return;
    }
    std::string_view name = line.substr(name_start, i - name_start);
    if (i < line.size() && line[i] != '{' && !IsBlank(line[i])) {
      builder_.BadLine(number, "unexpected character after metric name", line.substr(i));
      return;
    }
    metric = internal::ClassifyMetric(name);
    last_name_.assign(name);
    last_metric_ = metric;
    if (metric == Metric::kOther) {
      builder_.Ignored(name);
      read(LineKind::kIgnored, i);
      return;
    }
    builder_.SeenMetric(name);
  }
  // Label set: its raw text is the series key.
  std::string_view key;
  const Series* series = nullptr;
  const internal::RepeatRuns::NewSeries* read_ahead = nullptr;  // the key's first reading
  size_t key_size = 0;
  if (i < line.size() && line[i] == '{' &&
      (series = builder_.MatchPredicted(line.substr(i + 1), '}', &key_size)) != nullptr) {
    // The predicted label set (the common case): its end is known.
    i += key_size + 2;
  } else if (i < line.size() && line[i] == '{' && (read_ahead = NewSeriesAt(line.data() + i + 1)) != nullptr) {
    // A label set the first pass read (its end found as below, its labels parsed).
    key = line.substr(i + 1, read_ahead->key_size);
    i += read_ahead->key_size + 2;
  } else if (i < line.size() && line[i] == '{') {
    size_t close = LabelSetEnd(line, i + 1);
    if (close == std::string_view::npos) {
      builder_.BadLine(number, "unterminated label set", line.substr(i));
      return;
    }
    key = line.substr(i + 1, close - i - 1);
    i = close + 1;
  }
  if (!BlankAfterLabels(line, i, number)) return;
  if (series == nullptr &&
      (series = builder_.Find(key, read_ahead != nullptr ? &read_ahead->hash : nullptr)) == nullptr) {
    SeriesLabels labels;
    const char* error = nullptr;
    if (read_ahead != nullptr) {
      labels = read_ahead->labels;
    } else {
      error = ParseLabelSet(key, &labels, &unescaped_);
    }
    if (error == nullptr) series = builder_.Add(key, labels, &error);
    if (series == nullptr) {
      builder_.BadLine(number, error, key);
      return;
    }
  }
  read(LineKind::kSample, i, series);
  Sample(line, i, number, metric, series);
}

const char* OpenMetricsReader::Impl::PredictedLine(const char* p, const char* end, uint64_t number) {
  const size_t n = last_name_.size();
  // last_name_ is empty before the first data line (so line 1, which may
  // start with a byte order mark, never comes here).
  if (n == 0 || last_metric_ == Metric::kOther || eof_ || static_cast<size_t>(end - p) <= n + 1 ||
      p[n] != '{' || std::memcmp(p, last_name_.data(), n) != 0) {
    return nullptr;
  }
  const char* labels = p + n + 1;
  size_t key_size = 0;
  const Series* series =
      builder_.MatchPredicted(std::string_view(labels, static_cast<size_t>(end - labels)), '}', &key_size);
  if (series == nullptr) return nullptr;
  // The name and the key hold no '\n' (each was part of an earlier line).
  const char* rest = labels + key_size + 1;
  // A value and a time in their common spelling, usable as they are: the
  // line is read to its end here.
  double value = 0;
  int64_t ts_ms = 0;
  if (const char* nl = internal::ReadSimpleSampleEnd(rest, end, &value, &ts_ms);
      nl != nullptr && static_cast<size_t>(nl - p) <= kMaxLineBytes &&
      TakeSimpleSample(*series, last_metric_, value, ts_ms)) {
    Read(LineKind::kSample, static_cast<size_t>(rest - p), series);
    return nl;
  }
  const char* nl = static_cast<const char*>(std::memchr(rest, '\n', static_cast<size_t>(end - rest)));
  if (nl == nullptr || static_cast<size_t>(nl - p) > kMaxLineBytes) return nullptr;  // Line() reads it
  std::string_view line(p, static_cast<size_t>(nl - p));
  if (line.back() == '\r') line.remove_suffix(1);
  builder_.Line();
  builder_.DataLine();
  const size_t i = static_cast<size_t>(rest - p);
  Read(LineKind::kOther);
  if (BlankAfterLabels(line, i, number)) {
    Read(LineKind::kSample, i, series);
    Sample(line, i, number, last_metric_, series);
  }
  return nl;
}

const internal::RepeatRuns::NewSeries* OpenMetricsReader::Impl::NewSeriesAt(const char* key) {
  if (runs_ == nullptr) return nullptr;
  const std::less<const char*> lt;  // a total order even across buffers
  // A line copied out of the chunk (one that spans two) has no reading.
  if (lt(key, chunk_.data()) || !lt(key, chunk_.data() + chunk_.size())) return nullptr;
  const auto at = static_cast<size_t>(key - chunk_.data());
  const std::vector<internal::RepeatRuns::NewSeries>& found = runs_->new_series;
  while (next_new_ < found.size() && found[next_new_].key_at < at) ++next_new_;  // lines are read in order
  return next_new_ < found.size() && found[next_new_].key_at == at ? &found[next_new_] : nullptr;
}

void OpenMetricsReader::Impl::Feed(std::string_view chunk, const internal::RepeatRuns& runs) {
  chunk_ = chunk;
  runs_ = &runs;
  next_new_ = 0;
  FeedWithRuns(chunk, runs);
  runs_ = nullptr;
  chunk_ = {};
}

void OpenMetricsReader::Impl::FeedWithRuns(std::string_view chunk, const internal::RepeatRuns& runs) {
  size_t at = 0;  // chunk[0, at) is read
  auto read_to = [&](size_t to) {
    if (to > at) Feed(chunk.substr(at, to - at));
    at = to;
  };
  read_to(runs.region_begin);
  if (!lines_.at_line_start()) {  // runs found with a wrong at_line_start
    read_to(chunk.size());
    return;
  }
  for (const internal::RepeatRuns::Run& run : runs.runs) {
    read_to(run.begin);
    const uint32_t done = RunFromSamples(run, runs);
    if (done == run.count) {
      at = run.end;
      continue;
    }
    for (uint32_t k = 0; k < done; ++k) {
      at = static_cast<size_t>(static_cast<const char*>(std::memchr(chunk.data() + at, '\n', run.end - at)) -
                               chunk.data()) + 1;
    }
    read_to(run.end);
  }
  read_to(chunk.size());
}

uint32_t OpenMetricsReader::Impl::RunFromSamples(const internal::RepeatRuns::Run& run,
                                                 const internal::RepeatRuns& runs) {
  // Each line of the run has the previous line's first run.head bytes, then
  // ' ' (repeat_runs.h).  When that line was read with a head of exactly
  // run.head bytes, Line() would read each of them with the same metric
  // name and label set, so the same metric and series; the ignored metric's
  // name is a prefix of the head.  (A line after `# EOF` is read by Line(),
  // which leaves kOther.)
  if (prev_kind_ == LineKind::kIgnored && prev_head_ <= run.head) {
    builder_.IgnoredLines(run.count);
    lines_.SkipLines(run.count);
    return run.count;
  }
  if (prev_kind_ != LineKind::kSample || prev_head_ != run.head) return 0;
  const internal::RepeatRuns::Sample* samples = runs.samples.data() + run.first;
  // Up to a time or value the builder refuses: that line on is read by
  // Line(), which reports it.
  uint32_t k = 0;
  while (k < run.count && TakeSimpleSample(*prev_series_, last_metric_, samples[k].value, samples[k].ts_ms)) ++k;
  lines_.SkipLines(k);
  return k;
}

void OpenMetricsReader::Impl::Sample(std::string_view line, size_t i, uint64_t number, Metric metric,
                                     const Series* series) {
  if (series->pod < 0) {
    builder_.Unattributed();
    return;
  }
  // Value and timestamp.
  i = SkipBlanks(line, i);
  size_t value_end = TokenEnd(line, i);
  std::string_view value_text = line.substr(i, value_end - i);
  i = SkipBlanks(line, value_end);
  size_t ts_end = TokenEnd(line, i);
  std::string_view ts_text = line.substr(i, ts_end - i);
  i = SkipBlanks(line, ts_end);
  const char* error = nullptr;
  std::string_view detail;
  double value = 0;
  int64_t ts_ms = 0;
  if (value_text.empty()) {
    error = "missing value";
  } else if (!internal::ParseSampleValue(value_text, &value)) {
    error = "value is not a number";
    detail = value_text;
  } else if (ts_text.empty()) {
    error = "missing timestamp";
  } else if ((error = internal::ParseUnixSeconds(ts_text, &ts_ms)) != nullptr ||
             (error = builder_.CheckTime(ts_ms)) != nullptr) {
    detail = ts_text;
  } else if (i < line.size() && line[i] != '#') {
    error = "unexpected text after the timestamp";
    detail = line.substr(i);
  } else if ((error = internal::CheckSampleValue(metric, value)) != nullptr) {
    detail = value_text;
  }
  if (error != nullptr) {
    builder_.BadLine(number, error, detail);
    builder_.BadSample(series);
    return;
  }
  builder_.Accept(*series, metric, value, ts_ms);
}

OpenMetricsReader::OpenMetricsReader(IngestOptions options, std::string source_name, bool starts_file)
    : impl_(std::make_unique<Impl>(options, std::move(source_name), starts_file)) {}
OpenMetricsReader::~OpenMetricsReader() = default;
OpenMetricsReader::OpenMetricsReader(OpenMetricsReader&&) noexcept = default;
OpenMetricsReader& OpenMetricsReader::operator=(OpenMetricsReader&&) noexcept = default;

void OpenMetricsReader::Feed(std::string_view chunk) { impl_->Feed(chunk); }

OpenMetricsReader::FirstPass::FirstPass() = default;
OpenMetricsReader::FirstPass::~FirstPass() = default;

bool OpenMetricsReader::FirstPass::Met(uint64_t hash) {
  if (hash == 0) hash = 1;  // 0 marks an empty slot
  if ((met_count_ + 1) * 2 > met_.size()) {
    if (met_.size() >= kMaxMet) return true;  // full: as if met (nothing read ahead)
    std::vector<uint64_t> old(std::max<size_t>(1024, met_.size() * 2), 0);
    old.swap(met_);
    met_count_ = 0;
    for (uint64_t h : old) {
      if (h != 0) Met(h);
    }
  }
  const size_t mask = met_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (met_[i] == hash) return true;
    if (met_[i] == 0) {
      met_[i] = hash;
      ++met_count_;
      return false;
    }
  }
}

void OpenMetricsReader::FirstPass::Run(std::string_view chunk, bool at_line_start, internal::RepeatRuns* runs) {
  if (skip_ > 0) {
    --skip_;
    runs->Clear();
    return;
  }
  Read(chunk, at_line_start, runs);
  // Worth it when it read a quarter of the chunk's lines for the parser (a
  // file written time by time has no runs and, after its first lines, no new
  // series: the pass would only cost the reading thread); else it looks again
  // kSkip chunks later.
  if ((runs->samples.size() + runs->new_series.size()) * 4 < runs->samples.size() + runs->heads.size()) {
    skip_ = kSkip;
  }
}

void OpenMetricsReader::FirstPass::Read(std::string_view chunk, bool at_line_start, internal::RepeatRuns* runs) {
  internal::FindRepeatRuns(chunk, at_line_start, kMaxLineBytes, runs);
  // The lines outside runs with a head: a label set not met before is read
  // here as Line() would read it (its end, ParseLabelSet; one that fails, or
  // holds escapes, is left to Line()), and checked as UTF-8.  A chunk with
  // none (a later metric family repeats the first one's label sets) makes
  // it look for them again only kSkip chunks later.
  if (skip_new_ > 0) {
    --skip_new_;
    return;
  }
  for (const internal::RepeatRuns::Head& h : runs->heads) {
    const std::string_view line = chunk.substr(h.line, h.head);  // the line up to its head
    const size_t i = MetricNameEnd(line, 0);
    if (i == 0 || i + 2 > line.size() || line[i] != '{' || line.back() != '}') continue;
    const std::string_view key = line.substr(i + 1, line.size() - i - 2);
    const uint64_t hash = internal::ViewIndex<internal::Series>::Hash(key);
    if (Met(hash)) continue;
    // A block that ParseLabelSet accepts holds no '}' outside quotes, so
    // LabelSetEnd would end the label set at line.back() as well.
    internal::RepeatRuns::NewSeries n;
    if (ParseLabelSet(key, &n.labels, nullptr) != nullptr || !IsValidUtf8(key)) continue;
    n.labels.utf8_checked = true;  // each value lies between quotes in the key
    n.key_at = h.line + static_cast<uint32_t>(i + 1);
    n.key_size = static_cast<uint32_t>(key.size());
    n.hash = hash;
    runs->new_series.push_back(n);
  }
  if (runs->new_series.empty() && !runs->heads.empty()) skip_new_ = kSkip;
}

void OpenMetricsReader::Feed(std::string_view chunk, const internal::RepeatRuns& runs) { impl_->Feed(chunk, runs); }

Result<History> OpenMetricsReader::Finish() { return impl_->Finish(); }

OpenMetricsReader::Piece OpenMetricsReader::FinishPiece() { return impl_->FinishPiece(); }

}  // namespace kubeon::metrics
