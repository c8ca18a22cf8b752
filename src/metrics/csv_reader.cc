// See csv_reader.h for the contract.
#include "metrics/csv_reader.h"

#include <algorithm>
#include <cstring>
#include <set>
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

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr size_t kMaxNameInMessage = 100;

struct MetricColumn {
  size_t index;
  std::string name;
  Metric metric;
  bool seen = false;
};

struct LabelColumn {
  size_t index;
  std::string name;
};

}  // namespace

class CsvReader::Impl {
 public:
  Impl(const IngestOptions& options, std::string source)
      : builder_(options, std::move(source)), lines_(kMaxCsvLineBytes) {}

  void Feed(std::string_view chunk) {
    lines_.Feed(chunk, [this](std::string_view line, uint64_t number, bool too_long) {
      Line(line, number, too_long);
    });
  }

  Result<History> Finish();

 private:
  void Line(std::string_view line, uint64_t number, bool too_long);
  // quoted: the record may contain '"' (false: it has none).
  void Record(std::string_view record, uint64_t number, bool quoted);
  // Splits record into fields_; returns a reason on malformed quoting.
  const char* Split(std::string_view record, bool quoted);
  void Header(uint64_t number);
  void WideRow(uint64_t number);
  void LongRow(uint64_t number);
  // The series of the current row (from its label cells), or nullptr after
  // reporting a bad line.
  const Series* RowSeries(uint64_t number);
  void Fatal(uint64_t number, const std::string& message) {
    if (fatal_.ok()) {
      fatal_ = Status::Error(builder_.source() + ":" + std::to_string(number) + ": " + message);
    }
  }

  internal::HistoryBuilder builder_;
  internal::LineSplitter lines_;
  Status fatal_;
  // Current row.
  std::vector<std::string_view> fields_;
  std::string unquoted_;
  std::string key_;
  // Header.
  bool have_header_ = false;
  bool long_form_ = false;
  size_t columns_ = 0;
  size_t ts_col_ = 0, metric_col_ = 0, value_col_ = 0;
  std::vector<MetricColumn> metric_cols_;
  std::vector<LabelColumn> label_cols_;
};

const char* CsvReader::Impl::Split(std::string_view record, bool quoted) {
  fields_.clear();
  if (!quoted) {
    const char* start = record.data();
    const char* end = start + record.size();
    const char* p = start;
    while ((p = internal::FindAny2(p, end, ',', ',')) != end) {
      fields_.emplace_back(start, p - start);
      start = ++p;
    }
    fields_.emplace_back(start, end - start);
    return nullptr;
  }
  // Quoted fields: unquote into a copy, in place (output never outruns input).
  unquoted_.assign(record);
  char* buf = unquoted_.data();
  const size_t n = unquoted_.size();
  size_t r = 0, w = 0;
  while (true) {
    size_t field_start = w;
    if (r < n && buf[r] == '"') {
      ++r;
      while (true) {
        if (r == n) return "unterminated quoted field (a quoted field cannot span lines)";
        if (buf[r] == '"') {
          if (r + 1 < n && buf[r + 1] == '"') {
            buf[w++] = '"';
            r += 2;
            continue;
          }
          ++r;
          break;
        }
        buf[w++] = buf[r++];
      }
      while (r < n && (buf[r] == ' ' || buf[r] == '\t')) ++r;
      if (r < n && buf[r] != ',') return "unexpected character after a closing quote";
    } else {
      while (r < n && buf[r] != ',') buf[w++] = buf[r++];
    }
    fields_.emplace_back(buf + field_start, w - field_start);
    if (r == n) return nullptr;
    ++r;  // the comma
  }
}

void CsvReader::Impl::Line(std::string_view line, uint64_t number, bool too_long) {
  builder_.Line();
  if (!fatal_.ok()) return;
  if (number == 1 && line.substr(0, kBom.size()) == kBom) line.remove_prefix(kBom.size());
  if (too_long) {
    if (!have_header_) {
      Fatal(number, "CSV header longer than " + std::to_string(kMaxCsvLineBytes) + " bytes");
      return;
    }
    builder_.DataLine();
    builder_.BadLine(number, "line longer than " + std::to_string(kMaxCsvLineBytes) + " bytes");
    return;
  }
  // A record is one line: an unterminated quote spoils its own line only.
  const bool quoted = std::memchr(line.data(), '"', line.size()) != nullptr;
  Record(line, number, quoted);
}

void CsvReader::Impl::Record(std::string_view record, uint64_t number, bool quoted) {
  if (internal::TrimBlanks(record).empty()) return;
  const char* error = Split(record, quoted);
  if (!have_header_) {
    if (error != nullptr) {
      Fatal(number, std::string("CSV header: ") + error);
      return;
    }
    Header(number);
    return;
  }
  builder_.DataLine();
  if (error != nullptr) {
    builder_.BadLine(number, error, record);
    return;
  }
  if (fields_.size() != columns_) {
    builder_.BadLine(number,
                     "expected " + std::to_string(columns_) + " fields as in the header, found " +
                         std::to_string(fields_.size()),
                     record);
    return;
  }
  if (long_form_) {
    LongRow(number);
  } else {
    WideRow(number);
  }
}

void CsvReader::Impl::Header(uint64_t number) {
  have_header_ = true;
  columns_ = fields_.size();
  std::set<std::string_view> names;
  bool has_ts = false, has_metric = false, has_value = false;
  SeriesLabels probe;
  for (size_t c = 0; c < fields_.size(); ++c) {
    std::string_view name = internal::TrimBlanks(fields_[c]);
    if (!names.insert(name).second) {
      Fatal(number, "CSV header: duplicate column \"" + MessageText(name, kMaxNameInMessage) + "\"");
      return;
    }
    if (name == "timestamp") {
      has_ts = true;
      ts_col_ = c;
    } else if (name == "metric") {
      has_metric = true;
      metric_col_ = c;
    } else if (name == "value") {
      has_value = true;
      value_col_ = c;
    } else if (name.substr(0, 5) == "DCGM_") {
      metric_cols_.push_back({c, std::string(name), internal::ClassifyMetric(name)});
    } else if (probe.Field(name) != nullptr) {
      label_cols_.push_back({c, std::string(name)});
    }
  }
  if (!has_ts) {
    Fatal(number, "CSV header has no \"timestamp\" column");
  } else if (has_metric != has_value) {
    Fatal(number, "CSV header has \"" + std::string(has_metric ? "metric" : "value") +
                      "\" without \"" + (has_metric ? "value" : "metric") +
                      "\" (the long form needs both)");
  } else if (has_metric && !metric_cols_.empty()) {
    Fatal(number, "CSV header mixes the long form (metric,value) with metric column \"" +
                      MessageText(metric_cols_.front().name, kMaxNameInMessage) + "\"");
  } else if (!has_metric && metric_cols_.empty()) {
    Fatal(number,
          "CSV header has neither metric columns (DCGM_FI_...) nor \"metric\" and \"value\" "
          "columns");
  }
  long_form_ = has_metric;
}

const Series* CsvReader::Impl::RowSeries(uint64_t number) {
  key_.clear();
  for (const LabelColumn& col : label_cols_) {
    key_.append(fields_[col.index]).push_back('\x1f');
  }
  const Series* series = builder_.Find(key_);
  if (series != nullptr) return series;
  SeriesLabels labels;
  for (const LabelColumn& col : label_cols_) {
    std::string_view cell = fields_[col.index];
    std::string_view* field = labels.Field(col.name);
    if (!cell.empty()) *field = cell;
  }
  const char* error = nullptr;
  series = builder_.Add(key_, labels, &error);
  if (series == nullptr) builder_.BadLine(number, error);
  return series;
}

void CsvReader::Impl::WideRow(uint64_t number) {
  bool any_used = false;
  const MetricColumn* first_ignored = nullptr;
  for (MetricColumn& col : metric_cols_) {
    if (internal::TrimBlanks(fields_[col.index]).empty()) continue;
    if (!col.seen) {
      col.seen = true;
      builder_.SeenMetric(col.name);
    }
    if (col.metric == Metric::kOther) {
      if (first_ignored == nullptr) first_ignored = &col;
    } else {
      any_used = true;
    }
  }
  if (!any_used) {
    if (first_ignored != nullptr) builder_.Ignored(first_ignored->name);
    return;  // a row without any sample is neither good nor bad
  }
  const Series* series = RowSeries(number);
  if (series == nullptr) return;
  if (series->pod < 0) {
    builder_.Unattributed();
    return;
  }
  std::string_view ts_text = internal::TrimBlanks(fields_[ts_col_]);
  int64_t ts_ms = 0;
  const char* ts_error = internal::ParseCsvTimestamp(ts_text, &ts_ms);
  if (ts_error == nullptr) ts_error = builder_.CheckTime(ts_ms);
  bool line_bad = false;
  for (const MetricColumn& col : metric_cols_) {
    if (col.metric == Metric::kOther) continue;
    std::string_view cell = internal::TrimBlanks(fields_[col.index]);
    if (cell.empty()) continue;
    const char* error = ts_error;
    std::string_view column = ts_error != nullptr ? "timestamp" : std::string_view(col.name);
    std::string_view detail = ts_error != nullptr ? ts_text : cell;
    double value = 0;
    if (error == nullptr) {
      if (!internal::ParseSampleValue(cell, &value)) {
        error = "value is not a number";
      } else {
        error = internal::CheckSampleValue(col.metric, value);
      }
    }
    if (error != nullptr) {
      if (!line_bad) builder_.BadLine(number, error, detail, column);
      line_bad = true;
      builder_.BadSample(series);
      continue;
    }
    builder_.Accept(*series, col.metric, value, ts_ms);
  }
}

void CsvReader::Impl::LongRow(uint64_t number) {
  std::string_view name = internal::TrimBlanks(fields_[metric_col_]);
  if (name.empty()) {
    builder_.BadLine(number, "empty metric name", {}, "metric");
    return;
  }
  Metric metric = internal::ClassifyMetric(name);
  if (metric == Metric::kOther) {
    builder_.Ignored(name);
    return;
  }
  builder_.SeenMetric(name);
  const Series* series = RowSeries(number);
  if (series == nullptr) return;
  if (series->pod < 0) {
    builder_.Unattributed();
    return;
  }
  std::string_view ts_text = internal::TrimBlanks(fields_[ts_col_]);
  std::string_view value_text = internal::TrimBlanks(fields_[value_col_]);
  int64_t ts_ms = 0;
  double value = 0;
  const char* error = internal::ParseCsvTimestamp(ts_text, &ts_ms);
  if (error == nullptr) error = builder_.CheckTime(ts_ms);
  std::string_view column = "timestamp";
  std::string_view detail = ts_text;
  if (error == nullptr) {
    column = "value";
    detail = value_text;
    if (value_text.empty()) {
      error = "value is empty";
    } else if (!internal::ParseSampleValue(value_text, &value)) {
      error = "value is not a number";
    } else {
      error = internal::CheckSampleValue(metric, value);
    }
  }
  if (error != nullptr) {
    builder_.BadLine(number, error, detail, column);
    builder_.BadSample(series);
    return;
  }
  builder_.Accept(*series, metric, value, ts_ms);
}

Result<History> CsvReader::Impl::Finish() {
  lines_.Finish([this](std::string_view line, uint64_t number, bool too_long) {
    Line(line, number, too_long);
  });
  if (!fatal_.ok()) return fatal_;
  if (!have_header_) return Status::Error(builder_.source() + ": empty CSV (no header row)");
  return builder_.Finish();
}

CsvReader::CsvReader(IngestOptions options, std::string source_name)
    : impl_(std::make_unique<Impl>(options, std::move(source_name))) {}
CsvReader::~CsvReader() = default;
CsvReader::CsvReader(CsvReader&&) noexcept = default;
CsvReader& CsvReader::operator=(CsvReader&&) noexcept = default;

void CsvReader::Feed(std::string_view chunk) { impl_->Feed(chunk); }

Result<History> CsvReader::Finish() { return impl_->Finish(); }

}  // namespace kubeon::metrics
