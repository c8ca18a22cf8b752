// See meta.h.
#include "meta.h"

#include <cstdio>
#include <ctime>

namespace kubeon::kubesim {

namespace {
const json& EmptyObject() {
  static const json empty = json::object();
  return empty;
}
// k8s.io/apimachinery/pkg/util/rand alphanums: no vowels, no confusable digits.
constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
constexpr int kAlphabetSize = sizeof(kAlphabet) - 1;
}  // namespace

const json* Find(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* step : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(step);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string Str(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

int64_t Int(const json& obj, std::initializer_list<const char*> path, int64_t fallback) {
  const json* v = Find(obj, path);
  if (v == nullptr || !v->is_number()) return fallback;
  return v->get<int64_t>();
}

std::string Name(const json& obj) { return Str(obj, {"metadata", "name"}); }
std::string Namespace(const json& obj) { return Str(obj, {"metadata", "namespace"}); }
std::string Uid(const json& obj) { return Str(obj, {"metadata", "uid"}); }

const json& Labels(const json& obj) {
  const json* l = Find(obj, {"metadata", "labels"});
  return l != nullptr && l->is_object() ? *l : EmptyObject();
}

const json* ControllerRef(const json& obj) {
  const json* refs = Find(obj, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return nullptr;
  for (const auto& r : *refs) {
    if (r.is_object() && r.value("controller", false)) return &r;
  }
  return nullptr;
}

const std::string& PodPhase(const json& pod) {
  static const std::string kPending = "Pending";
  const json* p = Find(pod, {"status", "phase"});
  if (p == nullptr || !p->is_string() || p->get_ref<const std::string&>().empty()) return kPending;
  return p->get_ref<const std::string&>();
}

bool IsPodReady(const json& pod) {
  const json* conds = Find(pod, {"status", "conditions"});
  if (conds == nullptr || !conds->is_array()) return false;
  for (const auto& c : *conds) {
    if (c.is_object() && c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

bool IsPodTerminal(const json& pod) {
  const std::string& p = PodPhase(pod);
  return p == "Succeeded" || p == "Failed";
}

bool IsPodDeleting(const json& pod) {
  const json* d = Find(pod, {"metadata", "deletionTimestamp"});
  return d != nullptr && !d->is_null();
}

bool IsPodActive(const json& pod) { return !IsPodTerminal(pod) && !IsPodDeleting(pod); }

bool IsNodeReady(const json& node) {
  const json* conds = Find(node, {"status", "conditions"});
  if (conds == nullptr || !conds->is_array()) return true;  // no kubelet report: assume Ready
  for (const auto& c : *conds) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return true;
}

std::string Rfc3339(TimePoint t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<TimePoint> ParseRfc3339(const std::string& text) {
  std::tm tm{};
  const char* end = text.empty() ? nullptr : strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::string NewUid(std::mt19937_64& rng) {
  uint64_t a = rng();
  uint64_t b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xffff),
                static_cast<unsigned>(a & 0xffff), static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string RandomSuffix(std::mt19937_64& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(kAlphabet[rng() % kAlphabetSize]);
  return s;
}

std::string SafeHash(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  // Like rand.SafeEncodeString: each character code of the decimal string
  // picks a letter of the alphabet.
  std::string out;
  for (char d : std::to_string(h)) out.push_back(kAlphabet[static_cast<unsigned char>(d) % kAlphabetSize]);
  return out;
}

}  // namespace kubeon::kubesim
