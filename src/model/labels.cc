#include "model/labels.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace kubeon::model {
namespace {

// The bytes `entries` refer to.
size_t LiveBytes(const std::vector<Labels::Entry>& entries) {
  size_t n = 0;
  for (const Labels::Entry& e : entries) n += e.first.size() + e.second.size();
  return n;
}

}  // namespace

Labels::Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
  std::vector<std::pair<std::string_view, std::string_view>> v(entries);
  *this = FromEntries(&v);
}

Labels::Labels(const Labels& other) : entries_(other.entries_) { Compact(); }

Labels& Labels::operator=(const Labels& other) {
  if (this != &other) {
    Labels copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Labels::Labels(Labels&& other) noexcept
    : text_(std::move(other.text_)),
      text_size_(std::exchange(other.text_size_, 0)),
      text_capacity_(std::exchange(other.text_capacity_, 0)),
      dead_(std::exchange(other.dead_, 0)),
      entries_(std::move(other.entries_)) {
  other.entries_.clear();
}

Labels& Labels::operator=(Labels&& other) noexcept {
  if (this != &other) {
    text_ = std::move(other.text_);
    text_size_ = std::exchange(other.text_size_, 0);
    text_capacity_ = std::exchange(other.text_capacity_, 0);
    entries_ = std::move(other.entries_);
    other.entries_.clear();
    dead_ = std::exchange(other.dead_, 0);
  }
  return *this;
}

Labels Labels::FromEntries(std::vector<std::pair<std::string_view, std::string_view>>* entries) {
  auto& v = *entries;
  auto key_less = [](const auto& a, const auto& b) { return a.first < b.first; };
  bool strictly_increasing = true;
  for (size_t i = 1; i < v.size() && strictly_increasing; ++i) strictly_increasing = v[i - 1].first < v[i].first;
  if (!strictly_increasing) {
    std::stable_sort(v.begin(), v.end(), key_less);
    // Of equal keys (adjacent, in input order) keep the last.
    size_t out = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i + 1 < v.size() && v[i + 1].first == v[i].first) continue;
      v[out++] = v[i];
    }
    v.resize(out);
  }
  Labels m;
  size_t bytes = 0;
  for (const auto& [k, x] : v) bytes += k.size() + x.size();
  if (bytes > 0) m.Grow(bytes);
  m.entries_.reserve(v.size());
  for (const auto& [k, x] : v) {
    std::string_view key = m.Store(k);
    m.entries_.push_back({key, m.Store(x)});
  }
  return m;
}

size_t Labels::LowerIndex(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key, [](const Entry& e, std::string_view k) { return e.first < k; });
  return static_cast<size_t>(it - entries_.begin());
}

Labels::const_iterator Labels::find(std::string_view key) const {
  const size_t i = LowerIndex(key);
  return i < entries_.size() && entries_[i].first == key ? begin() + i : end();
}

std::string_view Labels::at(std::string_view key) const {
  const_iterator it = find(key);
  if (it == end()) throw std::out_of_range("Labels::at: no key \"" + std::string(key) + "\"");
  return it->second;
}

std::string_view Labels::Get(std::string_view key) const {
  const_iterator it = find(key);
  return it == end() ? std::string_view() : it->second;
}

void Labels::Set(std::string_view key, std::string_view value) {
  // The arguments may be views into this map, whose buffer storing may move.
  std::string key_copy, value_copy;
  auto inside = [&](std::string_view s) {
    return !s.empty() && text_size_ > 0 && std::less_equal<const char*>()(text_.get(), s.data()) &&
           std::less<const char*>()(s.data(), text_.get() + text_size_);
  };
  if (inside(key)) key = key_copy.assign(key);
  if (inside(value)) value = value_copy.assign(value);
  // Room for both first, so that no view taken below moves.
  if (text_capacity_ - text_size_ < key.size() + value.size()) Grow(key.size() + value.size());
  const size_t at = LowerIndex(key);
  if (at < entries_.size() && entries_[at].first == key) {
    dead_ += static_cast<uint32_t>(entries_[at].second.size());
    std::string_view v = Store(value);
    entries_[at].second = v;
  } else {
    std::string_view k = Store(key);
    std::string_view v = Store(value);
    entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(at), Entry{k, v});
  }
  CompactIfMostlyDead();
}

bool Labels::Insert(std::string_view key, std::string_view value) {
  if (contains(key)) return false;
  Set(key, value);
  return true;
}

size_t Labels::erase(std::string_view key) {
  const size_t at = LowerIndex(key);
  if (at == entries_.size() || entries_[at].first != key) return 0;
  dead_ += static_cast<uint32_t>(entries_[at].first.size() + entries_[at].second.size());
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(at));
  CompactIfMostlyDead();
  return 1;
}

void Labels::CompactIfMostlyDead() {
  if (dead_ > 4096 && dead_ > text_size_ / 2) Compact();
}

void Labels::clear() {
  entries_.clear();
  text_.reset();
  text_size_ = text_capacity_ = 0;
  dead_ = 0;
}

std::string_view Labels::Store(std::string_view s) {
  if (s.empty()) return {};
  if (text_capacity_ - text_size_ < s.size()) Grow(s.size());
  char* at = text_.get() + text_size_;
  std::memcpy(at, s.data(), s.size());
  text_size_ += static_cast<uint32_t>(s.size());
  return {at, s.size()};
}

void Labels::Grow(size_t bytes) {
  constexpr size_t kMax = UINT32_MAX;
  if (bytes > kMax - text_size_) throw std::length_error("Labels: more than 4 GiB of keys and values");
  const size_t capacity = std::min(kMax, std::max(size_t{text_capacity_} * 2, text_size_ + bytes));
  std::unique_ptr<char[]> text(new char[capacity]);
  if (text_size_ > 0) std::memcpy(text.get(), text_.get(), text_size_);
  const char* old = text_.get();  // still allocated: the views move by their offsets in it
  for (Entry& e : entries_) {
    for (std::string_view* s : {&e.first, &e.second}) {
      if (!s->empty()) *s = std::string_view(text.get() + (s->data() - old), s->size());
    }
  }
  text_ = std::move(text);
  text_capacity_ = static_cast<uint32_t>(capacity);
}

void Labels::Compact() {
  // entries_ may point into another map's buffer (copy construction) or into
  // text_ itself: copy from the old bytes into a fresh buffer.
  const size_t bytes = LiveBytes(entries_);
  std::unique_ptr<char[]> text(bytes > 0 ? new char[bytes] : nullptr);
  size_t size = 0;
  for (Entry& e : entries_) {
    for (std::string_view* s : {&e.first, &e.second}) {
      if (s->empty()) continue;
      std::memcpy(text.get() + size, s->data(), s->size());
      *s = std::string_view(text.get() + size, s->size());
      size += s->size();
    }
  }
  text_ = std::move(text);
  text_size_ = text_capacity_ = static_cast<uint32_t>(size);  // live bytes: within the 32-bit sizes
  dead_ = 0;
}

bool operator==(const Labels& a, const Labels& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const Labels::Entry& x, const Labels::Entry& y) {
           return x.first == y.first && x.second == y.second;
         });
}

}  // namespace kubeon::model
