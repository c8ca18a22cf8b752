// See repeat_runs.h for the contract.
#include "metrics/repeat_runs.h"

#include <cstring>

#include "metrics/sample_parse.h"

namespace kubeon::metrics::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The head of the line [s, e) (e at its '\n'): the number of its bytes
// before " <digits and '.'> <digits>" and an optional '\r' at its end; 0
// when it does not end so (or nothing comes before).
size_t HeadOf(const char* s, const char* e) {
  const char* q = e;
  if (q > s && q[-1] == '\r') --q;
  const char* const time_end = q;
  while (q > s && IsDigit(q[-1])) --q;
  if (q == time_end || q == s || q[-1] != ' ') return 0;
  const char* const value_end = --q;
  while (q > s && (IsDigit(q[-1]) || q[-1] == '.')) --q;
  if (q == value_end || q == s || q[-1] != ' ') return 0;
  return static_cast<size_t>(q - 1 - s);
}

}  // namespace

void FindRepeatRuns(std::string_view chunk, bool at_line_start, size_t max_line_bytes, RepeatRuns* out) {
  out->Clear();
  const char* const base = chunk.data();
  const char* p = base;
  if (!at_line_start) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', chunk.size()));
    if (nl == nullptr) return;
    p = nl + 1;
  }
  const char* end = base + chunk.size();
  while (end > p && end[-1] != '\n') --end;  // the last whole line's end
  if (end == p) return;
  out->region_begin = static_cast<size_t>(p - base);
  out->region_end = static_cast<size_t>(end - base);
  const char* prev = nullptr;  // the line before p
  size_t head = 0;             // prev's head, 0 = none
  bool in_run = false;         // prev is the last line of out->runs.back()
  while (p < end) {
    if (head != 0 && static_cast<size_t>(end - p) > head && p[head] == ' ' && std::memcmp(p, prev, head) == 0) {
      RepeatRuns::Sample s;
      const char* nl = ReadSimpleSampleEnd(p + head, end, &s.value, &s.ts_ms);
      if (nl != nullptr && static_cast<size_t>(nl - p) <= max_line_bytes) {
        if (!in_run) {
          out->runs.push_back(RepeatRuns::Run{static_cast<uint32_t>(p - base), 0, static_cast<uint32_t>(head),
                                              static_cast<uint32_t>(out->samples.size()), 0});
          in_run = true;
        }
        RepeatRuns::Run& run = out->runs.back();
        ++run.count;
        run.end = static_cast<uint32_t>(nl + 1 - base);
        out->samples.push_back(s);
        prev = p;
        p = nl + 1;
        continue;
      }
    }
    in_run = false;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    head = static_cast<size_t>(nl - p) <= max_line_bytes ? HeadOf(p, nl) : 0;
    if (head != 0) out->heads.push_back({static_cast<uint32_t>(p - base), static_cast<uint32_t>(head)});
    prev = p;
    p = nl + 1;
  }
}

}  // namespace kubeon::metrics::internal
