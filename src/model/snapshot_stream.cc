// See snapshot_stream.h.
//
// Positions are absolute byte offsets in the file.  Window holds bytes
// [base, base + size) of the file and drops those before its keep mark when it
// needs room; the scanner keeps the mark at the start of the top-level value
// it is in, so an item's text is contiguous in the buffer when it ends (the
// buffer keeps SnapshotItemReader::kPadding bytes to spare behind its data).
#include "model/snapshot_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <simdjson.h>

#include "model/json_block_scan.h"
#include "model/run_parts.h"
#include "model/snapshot_json.h"

namespace kubeon::model {
namespace {

constexpr size_t kPad = SnapshotItemReader::kPadding;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// True for the bytes that change the nesting outside strings.
struct StructuralTable {
  bool is[256] = {};
  constexpr StructuralTable() {
    is[static_cast<unsigned char>('"')] = true;
    is[static_cast<unsigned char>('{')] = true;
    is[static_cast<unsigned char>('}')] = true;
    is[static_cast<unsigned char>('[')] = true;
    is[static_cast<unsigned char>(']')] = true;
  }
};
constexpr StructuralTable kStructural;

class Window {
 public:
  Window(SnapshotSource* source, size_t chunk, size_t max_keep)
      : source_(source), chunk_(chunk), max_keep_(max_keep), buf_(chunk + kPad) {}

  // Makes the byte at `pos` available.  False at the end of the file, on a
  // read error (status()) or when the kept bytes would exceed max_keep
  // (too_big()).  REQUIRES: pos >= keep mark.
  bool Ensure(size_t pos) {
    while (pos >= base_ + size_) {
      if (eof_ || !status_.ok()) return false;
      if (pos - keep_ >= max_keep_) {
        too_big_ = true;
        return false;
      }
      if (keep_ > base_) {  // drop what is no longer needed
        const size_t drop = std::min(keep_ - base_, size_);
        std::memmove(buf_.data(), buf_.data() + drop, size_ - drop);
        base_ += drop;
        size_ -= drop;
      }
      if (buf_.size() < size_ + chunk_ + kPad) buf_.resize(std::max(size_ + chunk_ + kPad, buf_.size() * 2));
      Result<size_t> n = source_->Read(buf_.data() + size_, chunk_);
      if (!n.ok()) {
        status_ = n.status();
        return false;
      }
      if (*n == 0) eof_ = true;
      size_ += *n;
      std::memset(buf_.data() + size_, ' ', kPad);  // the item reader's padding
    }
    return true;
  }
  const char* At(size_t pos) const { return buf_.data() + (pos - base_); }
  size_t End() const { return base_ + size_; }
  void Keep(size_t pos) { keep_ = pos; }
  bool too_big() const { return too_big_; }
  const Status& status() const { return status_; }

 private:
  SnapshotSource* source_;
  size_t chunk_, max_keep_;
  std::vector<char> buf_;
  size_t base_ = 0, size_ = 0, keep_ = 0;
  bool eof_ = false, too_big_ = false;
  Status status_;
};

// Why a scan stopped early.
enum class Stop { kEnd, kTooBig, kReadError };

// The items a Reader reads: those whose '{' is at a byte offset in
// [begin, end).  One of several parts (threads) leaves the workloads
// unresolved; a part other than the last returns its Cluster as soon as an
// item starts at `end` or the items end, and the last one checks the rest
// of the file.
struct ItemRange {
  size_t begin = 0;
  size_t end = std::numeric_limits<size_t>::max();
  bool part = false;
  bool last = true;
};

class Reader {
 public:
  Reader(SnapshotSource* source, std::string_view name, size_t chunk, size_t max_item, ItemRange range = {})
      : source_(source), name_(name), chunk_(chunk), max_item_(max_item), range_(range) {}

  // REQUIRES: range.part.  Any error means "read on one thread" (a part does
  // not read a file whose items its range cannot place).
  Result<Cluster> RunPart() { return Pass(""); }
  SnapshotItemReader* item_reader() { return &item_reader_; }

  Result<Cluster> Run() {
    Result<Cluster> first = Pass("");
    if (first.ok() || !rescan_kind_) return first;
    // Items without "kind" before the List's kind: read again knowing it.
    if (Status s = source_->Rewind(); !s.ok()) return s.WithPrefix(name_);
    pos_ = value_start_ = 0;
    rescan_kind_ = false;
    item_reader_.ForgetObjects();
    return Pass(implied_kind_);
  }

 private:
  // One pass over the file.  forced_implied: the items' kind found by a
  // previous pass ("" on the first).
  Result<Cluster> Pass(const std::string& forced_implied) {
    Window window(source_, chunk_, max_item_);
    w_ = &window;
    SkipSpace();
    const int first = Peek();
    if (first < 0 && StopReason() == Stop::kEnd) {
      return Status::Error(name_ + ": not valid JSON: " + simdjson::error_message(simdjson::EMPTY));
    }
    if (first != '{') return WholeText();
    ++pos_;
    Cluster cluster;
    std::string implied = forced_implied;
    bool has_kind = false, has_items = false;
    Status item_error;  // the first item's error, when the List's kind may still imply one
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
    } else {
      while (true) {
        SkipSpace();
        Mark();
        if (Peek() != '"') return Unexpected("a field name");
        const size_t key_start = pos_;
        if (!SkipValue()) return Stopped("the top-level object");
        Result<std::string> key = StringToken(key_start, pos_);
        if (!key.ok()) return key.status();
        SkipSpace();
        if (Peek() != ':') return Unexpected("':'");
        ++pos_;
        SkipSpace();
        if (*key == "items") {
          if (has_items) return Status::Error(name_ + ": \"items\" twice");
          if (Peek() != '[') {
            if (Peek() < 0) return Stopped("the top-level object");
            return Status::Error(name_ + ": \"items\" is not an array");
          }
          has_items = true;
          ++pos_;
          Status s = Items(implied, has_kind, &cluster, &item_error);
          if (!s.ok()) return s;
          if (part_done_) {
            if (!item_error.ok()) return item_error;
            return cluster;
          }
        } else {
          Mark();
          const size_t value_start = pos_;
          if (Peek() < 0) return Stopped("the top-level object");
          if (!SkipValue() || pos_ - value_start > max_item_) return Stopped("the top-level \"" + OneLine(*key) + "\"");
          const std::string_view value(w_->At(value_start), pos_ - value_start);
          if (!simdjson::validate_utf8(value.data(), value.size())) {
            return Status::Error(name_ + ": not valid JSON: " + simdjson::error_message(simdjson::UTF8_ERROR));
          }
          if (*key == "kind" && !has_kind) {
            has_kind = true;
            Result<std::string> kind = ScalarString(value_start, pos_);
            if (!kind.ok()) return kind.status();
            if (kind->size() > 4 && kind->ends_with("List") && forced_implied.empty()) {
              implied = kind->substr(0, kind->size() - 4);
            }
          }
        }
        SkipSpace();
        const int c = Peek();
        if (c == ',') {
          ++pos_;
          continue;
        }
        if (c == '}') {
          ++pos_;
          break;
        }
        if (c < 0) return Stopped("the top-level object");
        return Unexpected("',' or '}' in the top-level object");
      }
    }
    if (!item_error.ok()) {
      if (!implied.empty()) {
        rescan_kind_ = true;
        implied_kind_ = implied;
      }
      return item_error;
    }
    if (!has_items) return WholeText();
    SkipSpace();
    if (Peek() >= 0) return Error(pos_, "text after the top-level object");
    if (StopReason() == Stop::kReadError) return w_->status();
    if (!range_.part) ResolveClusterWorkloads(&cluster);
    return cluster;
  }

  // The elements of "items", after its '['.  An item without a kind while
  // the List's kind is unknown sets *deferred and skips the rest.
  Status Items(const std::string& implied, bool kind_known, Cluster* cluster, Status* deferred) {
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return Status::Ok();
    }
    for (size_t index = 0;; ++index) {
      SkipSpace();
      Mark();
      const size_t start = pos_;
      const int c = Peek();
      if (c < 0) return Stopped("items[" + std::to_string(index) + "]");
      if (c == '}' || c == ']' || c == ',' || c == ':') return Error(pos_, "expected a value in items");
      if (c != '{') return Status::Error(name_ + ": items[" + std::to_string(index) + "] (?): not an object");
      if (start >= range_.end) {
        part_done_ = true;
        return Status::Ok();
      }
      // An item sits 2 levels deep: its nesting is checked by the same scan.
      size_t too_deep_at = std::string_view::npos;
      if (!SkipValue(kMaxSnapshotNestingDepth - 2, &too_deep_at) || pos_ - start > max_item_) {
        return Stopped("items[" + std::to_string(index) + "]");
      }
      if (too_deep_at != std::string_view::npos) {
        return Status::Error(name_ + ": " + TooDeepMessage(Where(too_deep_at)));
      }
      if (deferred->ok() && start >= range_.begin) {
        SnapshotItemReader::Diagnostics d;
        // The first part's vectors grow as projected for the whole file
        // (the later parts' items are appended to them), a later part's for
        // its own bytes (its item may end past them).
        item_reader_.Locate(start, range_.last || range_.begin == 0 ? source_->SizeHint() : std::max(range_.end, pos_));
        Status s = item_reader_.Read(std::string_view(w_->At(start), pos_ - start), index, name_, implied, cluster, &d,
                                     /*nesting_checked=*/true);
        if (!s.ok()) {
          if (d.malformed) {
            if (d.offset == std::string_view::npos) {
              return Status::Error(name_ + ": " + s.message().substr(0, 14) + " in items[" + std::to_string(index) +
                                   "] (" + Where(start) + ")" + s.message().substr(14));
            }
            return Error(start + d.offset, s.message().substr(std::string_view("not valid JSON: ").size()));
          }
          if (!(d.kind_missing && !kind_known)) return s;
          *deferred = s;  // the List's kind, after "items", may name the kind
        }
      }
      SkipSpace();
      const int next = Peek();
      if (next == ',') {
        ++pos_;
        continue;
      }
      if (next == ']') {
        ++pos_;
        part_done_ = !range_.last;
        return Status::Ok();
      }
      if (next < 0) return Stopped("items");
      return Unexpected("',' or ']' after items[" + std::to_string(index) + "]");
    }
  }

  // A file whose top level is not an object with "items": read whole, under
  // the item cap, by ParseClusterJson.
  Result<Cluster> WholeText() {
    if (range_.part) return Status::Error(name_ + ": not a List: read on one thread");
    if (StopReason() == Stop::kReadError) return w_->status();
    if (Status s = source_->Rewind(); !s.ok()) return s.WithPrefix(name_);
    std::string text;
    std::vector<char> chunk(chunk_);
    while (true) {
      Result<size_t> n = source_->Read(chunk.data(), chunk.size());
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      if (text.size() + *n > max_item_) {
        return Status::Error(name_ + ": a snapshot without \"items\" larger than " + std::to_string(max_item_) +
                             " bytes (a single object is at most that)");
      }
      text.append(chunk.data(), *n);
    }
    return ParseClusterJson(text, name_);
  }

  // The current top-level value starts at pos_: what precedes may go.
  void Mark() {
    w_->Keep(pos_);
    value_start_ = pos_;
  }

  int Peek() {
    if (!w_->Ensure(pos_)) return -1;
    return static_cast<unsigned char>(*w_->At(pos_));
  }

  void SkipSpace() {
    while (w_->Ensure(pos_)) {
      const char* p = w_->At(pos_);
      const char* end = w_->At(w_->End());
      const char* q = p;
      while (q < end && IsSpace(*q)) ++q;
      pos_ += static_cast<size_t>(q - p);
      if (q < end) return;
    }
  }

  // Moves pos_ past the string whose opening quote is at pos_.
  bool SkipString() {
    const size_t open = pos_;
    ++pos_;
    while (w_->Ensure(pos_)) {
      const char* p = w_->At(pos_);
      const char* end = w_->At(w_->End());
      const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
      if (q == nullptr) {
        pos_ = w_->End();
        continue;
      }
      pos_ += static_cast<size_t>(q - p) + 1;
      // Escaped when preceded by an odd number of backslashes (all kept:
      // the string's opening quote is at or after the keep mark).
      size_t backslashes = 0;
      for (const char* b = q - 1; b > w_->At(open) && *b == '\\'; --b) ++backslashes;
      if (backslashes % 2 == 0) return true;
    }
    return false;
  }

  // Moves pos_ past the JSON value starting at pos_ (by structure only:
  // brackets are counted, strings skipped; the item reader checks the rest).
  // When `too_deep_at` is given, *too_deep_at becomes the position of the
  // first '[' or '{' nested more than `max_depth` levels inside the value
  // (the value's own bracket is level 1), if any and it was npos.
  bool SkipValue(size_t max_depth = 0, size_t* too_deep_at = nullptr) {
    const int c = Peek();
    if (c == '"') return SkipString();
    if (c != '{' && c != '[') {  // a literal: up to the next delimiter
      while (w_->Ensure(pos_)) {
        const char ch = *w_->At(pos_);
        if (IsSpace(ch) || ch == ',' || ch == '}' || ch == ']' || ch == ':') return true;
        ++pos_;
      }
      return false;
    }
    size_t depth = 0;
    size_t scalar_until = 0;  // a block with a backslash: byte by byte up to here
    while (w_->Ensure(pos_)) {
      if (depth > 0 && pos_ >= scalar_until && w_->End() - pos_ >= kJsonBlock) {
        size_t deep = std::string_view::npos;
        const bool check = too_deep_at != nullptr && *too_deep_at == std::string_view::npos;
        const JsonBlockScan scan =
            ScanJsonBlocks(w_->At(pos_), w_->End() - pos_, &depth, max_depth, check ? &deep : nullptr);
        if (deep != std::string_view::npos) *too_deep_at = pos_ + deep;
        if (scan.stop == JsonBlockScan::kBackslash) scalar_until = pos_ + scan.scalar_until;
        pos_ += scan.offset;
        if (scan.stop == JsonBlockScan::kClosed) return true;
      }
      const char* p = w_->At(pos_);
      const char* end = w_->At(w_->End());
      while (p < end && !kStructural.is[static_cast<unsigned char>(*p)]) ++p;
      pos_ = w_->End() - static_cast<size_t>(end - p);
      if (p == end) continue;
      const char ch = *p;
      if (ch == '"') {
        if (!SkipString()) return false;
        continue;
      }
      ++pos_;
      if (ch == '{' || ch == '[') {
        if (++depth > max_depth && too_deep_at != nullptr && *too_deep_at == std::string_view::npos) {
          *too_deep_at = pos_ - 1;
        }
      } else if (--depth == 0) {
        return true;
      }
    }
    return false;
  }

  // The string a token [begin, end) spells (a field name).
  Result<std::string> StringToken(size_t begin, size_t end) {
    const std::string_view token(w_->At(begin), end - begin);
    if (token.find('\\') == std::string_view::npos) {
      if (!simdjson::validate_utf8(token.data(), token.size())) {
        return Status::Error(name_ + ": not valid JSON: " + simdjson::error_message(simdjson::UTF8_ERROR));
      }
      return std::string(token.substr(1, token.size() - 2));
    }
    return ScalarString(begin, end);
  }

  // A scalar token [begin, end) as Str reads it: a string's value, "" for
  // other types; a malformed literal is an error.
  Result<std::string> ScalarString(size_t begin, size_t end) {
    const std::string_view token(w_->At(begin), end - begin);
    if (token.empty() || token[0] == '{' || token[0] == '[') return std::string();
    const simdjson::padded_string padded(token);
    simdjson::ondemand::document doc;
    std::string out;
    simdjson::error_code e = scalar_parser_.iterate(padded).get(doc);
    if (e == simdjson::SUCCESS) {
      simdjson::ondemand::json_type t;
      e = doc.type().get(t);
      if (e == simdjson::SUCCESS && t == simdjson::ondemand::json_type::string) {
        std::string_view s;
        e = doc.get_string().get(s);
        out = s;
      } else if (e == simdjson::SUCCESS && t == simdjson::ondemand::json_type::boolean) {
        bool b;
        e = doc.get_bool().get(b);
      } else if (e == simdjson::SUCCESS && t == simdjson::ondemand::json_type::null) {
        bool n = false;
        e = doc.is_null().get(n);
        if (e == simdjson::SUCCESS && !n) e = simdjson::N_ATOM_ERROR;
      } else if (e == simdjson::SUCCESS) {
        double d;
        e = doc.get_double().get(d);
      }
    }
    if (e != simdjson::SUCCESS) return Error(begin, simdjson::error_message(e));
    return out;
  }

  // Why the last scan stopped (or ended a value past the cap).
  Stop StopReason() const {
    if (!w_->status().ok()) return Stop::kReadError;
    return w_->too_big() || pos_ - value_start_ > max_item_ ? Stop::kTooBig : Stop::kEnd;
  }

  // The scan could not go on inside `what`.
  Status Stopped(const std::string& what) {
    switch (StopReason()) {
      case Stop::kReadError: return w_->status();
      case Stop::kTooBig:
        return Status::Error(name_ + ": " + what + " is larger than " + std::to_string(max_item_) +
                             " bytes, the most one item may take");
      case Stop::kEnd: break;
    }
    return Status::Error(name_ + ": truncated: the file ends inside " + what);
  }

  Status Unexpected(const std::string& expected) {
    if (Peek() < 0) return Stopped("the top-level object");
    return Error(pos_, "expected " + expected);
  }

  // "not valid JSON at line L, column C: why" for the byte at `pos`.
  Status Error(size_t pos, const std::string& why) {
    return Status::Error(name_ + ": not valid JSON " + Where(pos) + ": " + why);
  }

  // "at line L, column C" of the byte at `pos`: counts lines from the start
  // of the file again (only on an error).
  std::string Where(size_t pos) {
    if (!source_->Rewind().ok()) return "at byte " + std::to_string(pos + 1);
    size_t line = 1, column = 1, at = 0;
    std::vector<char> chunk(chunk_);
    while (at < pos) {
      Result<size_t> n = source_->Read(chunk.data(), std::min(chunk.size(), pos - at));
      if (!n.ok() || *n == 0) break;
      for (size_t i = 0; i < *n; ++i) {
        if (chunk[i] == '\n') {
          ++line;
          column = 1;
        } else {
          ++column;
        }
      }
      at += *n;
    }
    return "at line " + std::to_string(line) + ", column " + std::to_string(column);
  }

  SnapshotSource* source_;
  std::string name_;
  size_t chunk_, max_item_;
  ItemRange range_;
  bool part_done_ = false;  // a part's range is read: its Cluster is returned as it is
  Window* w_ = nullptr;
  size_t pos_ = 0;
  size_t value_start_ = 0;  // the start of the current top-level value
  SnapshotItemReader item_reader_;
  simdjson::ondemand::parser scalar_parser_;
  bool rescan_kind_ = false;
  std::string implied_kind_;
};

// A file descriptor closed with its last user (a file and its reopened copies).
struct Descriptor {
  int fd;
  explicit Descriptor(int f) : fd(f) {}
  ~Descriptor() { ::close(fd); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
};

// A regular file is read with pread from the source's own offset, so that
// its reopened copies share the descriptor and read on other threads; any
// other file (a pipe) with read, and cannot be reopened.
class FileSource : public SnapshotSource {
 public:
  FileSource(std::shared_ptr<const Descriptor> fd, std::string path, size_t size, bool regular)
      : fd_(std::move(fd)), path_(std::move(path)), size_(size), regular_(regular) {}
  Result<size_t> Read(char* out, size_t n) override {
    while (true) {
      const ssize_t got = regular_ ? ::pread(fd_->fd, out, n, static_cast<off_t>(offset_)) : ::read(fd_->fd, out, n);
      if (got >= 0) {
        offset_ += static_cast<size_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) return Status::Error(path_ + ": read error: " + std::strerror(errno));
    }
  }
  Status Rewind() override {
    if (!regular_ && ::lseek(fd_->fd, 0, SEEK_SET) != 0) {
      return Status::Error(path_ + ": cannot read the snapshot again (not a regular file?): " + std::strerror(errno));
    }
    offset_ = 0;
    return Status::Ok();
  }
  size_t SizeHint() const override { return size_; }
  std::unique_ptr<SnapshotSource> Reopen() const override {
    if (!regular_) return nullptr;
    return std::make_unique<FileSource>(fd_, path_, size_, true);
  }

 private:
  std::shared_ptr<const Descriptor> fd_;
  std::string path_;
  size_t size_;  // st_size of a regular file, else 0
  bool regular_;
  size_t offset_ = 0;
};

class TextSource : public SnapshotSource {
 public:
  explicit TextSource(std::string_view text) : text_(text) {}
  Result<size_t> Read(char* out, size_t n) override {
    const size_t k = std::min(n, text_.size() - at_);
    std::memcpy(out, text_.data() + at_, k);
    at_ += k;
    return k;
  }
  Status Rewind() override {
    at_ = 0;
    return Status::Ok();
  }
  size_t SizeHint() const override { return text_.size(); }
  std::unique_ptr<SnapshotSource> Reopen() const override { return std::make_unique<TextSource>(text_); }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

// Appends *from to *to: the vector itself when *to is empty (a kind the
// earlier parts did not have), else its elements one by one.
template <typename T>
void MoveAppend(std::vector<T>* to, std::vector<T>* from) {
  if (to->empty()) {
    std::swap(*to, *from);
  } else {
    to->insert(to->end(), std::make_move_iterator(from->begin()), std::make_move_iterator(from->end()));
  }
}

// The items of `sources` (one per part, each over the whole file of `total`
// bytes) read on as many threads and joined in file order; nullopt when the
// one-thread reader must read the file (a part failed, or two parts hold
// the same object or each a ClusterPolicy): see the contract.
std::optional<Cluster> ReadParts(const std::vector<std::unique_ptr<SnapshotSource>>& sources, std::string_view name,
                                 const StreamOptions& o, size_t total) {
  const size_t n = sources.size();
  std::vector<std::unique_ptr<Reader>> readers;
  for (size_t k = 0; k < n; ++k) {
    const ItemRange range{total / n * k, k + 1 == n ? std::numeric_limits<size_t>::max() : total / n * (k + 1), true,
                          k + 1 == n};
    readers.push_back(std::make_unique<Reader>(sources[k].get(), name, o.chunk_bytes, o.max_item_bytes, range));
  }
  std::vector<std::optional<Result<Cluster>>> parts(n);
  RunParts(n, [&](size_t k) { parts[k].emplace(readers[k]->RunPart()); });
  for (const auto& p : parts) {
    if (!p->ok()) return std::nullopt;
  }
  Cluster out = std::move(parts[0]->value());
  for (size_t k = 1; k < n; ++k) {
    Cluster& c = parts[k]->value();
    if (!readers[0]->item_reader()->AddObjectsOf(*readers[k]->item_reader())) return std::nullopt;
    if (c.gpu_operator) {
      if (out.gpu_operator) return std::nullopt;
      out.gpu_operator = std::move(c.gpu_operator);
    }
    MoveAppend(&out.nodes, &c.nodes);
    MoveAppend(&out.pods, &c.pods);
    MoveAppend(&out.pdbs, &c.pdbs);
    MoveAppend(&out.controllers, &c.controllers);
    MoveAppend(&out.config_maps, &c.config_maps);
    MoveAppend(&out.warnings, &c.warnings);
  }
  ResolveClusterWorkloads(&out, static_cast<int>(n));
  return out;
}

}  // namespace

Result<Cluster> ReadClusterStream(SnapshotSource* source, std::string_view name, const StreamOptions& options) {
  const size_t total = source->SizeHint();
  const size_t threads = options.threads > 1 ? static_cast<size_t>(options.threads) : 1;
  const size_t parts = std::min({threads, options.max_parts, total / std::max<size_t>(options.min_part_bytes, 1)});
  if (parts > 1) {
    std::vector<std::unique_ptr<SnapshotSource>> sources;
    for (size_t k = 0; k < parts; ++k) {
      std::unique_ptr<SnapshotSource> s = source->Reopen();
      if (s == nullptr) break;
      sources.push_back(std::move(s));
    }
    if (sources.size() == parts) {
      if (std::optional<Cluster> c = ReadParts(sources, name, options, total)) return std::move(*c);
    }
  }
  Reader reader(source, name, options.chunk_bytes, options.max_item_bytes);
  return reader.Run();
}

Result<Cluster> ReadClusterStream(SnapshotSource* source, std::string_view name, size_t chunk_bytes,
                                  size_t max_item_bytes) {
  StreamOptions o;
  o.chunk_bytes = chunk_bytes;
  o.max_item_bytes = max_item_bytes;
  return ReadClusterStream(source, name, o);
}

Result<Cluster> ReadClusterText(std::string_view text, std::string_view name, const StreamOptions& options) {
  TextSource source(text);
  return ReadClusterStream(&source, name, options);
}

Result<Cluster> ReadClusterText(std::string_view text, std::string_view name, size_t chunk_bytes,
                                size_t max_item_bytes) {
  TextSource source(text);
  return ReadClusterStream(&source, name, chunk_bytes, max_item_bytes);
}

Result<Cluster> ReadClusterFile(const std::string& path, int threads) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(path + ": cannot open cluster snapshot: " + std::strerror(errno));
  auto descriptor = std::make_shared<const Descriptor>(fd);
  struct stat st;
  const bool known = ::fstat(fd, &st) == 0;
  if (known && S_ISDIR(st.st_mode)) {
    return Status::Error(path + ": is a directory, not a cluster snapshot");
  }
  const bool regular = known && S_ISREG(st.st_mode);
  FileSource source(std::move(descriptor), path, regular ? static_cast<size_t>(st.st_size) : 0, regular);
  StreamOptions o;
  o.threads = threads;
  return ReadClusterStream(&source, path, o);
}

}  // namespace kubeon::model
