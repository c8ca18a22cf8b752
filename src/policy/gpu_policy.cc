// See gpu_policy.h.
#include "policy/gpu_policy.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "model/durations.h"
#include "net/printable.h"
#include "policy/suggest.h"
#include "policy/yaml_documents.h"

namespace kubeon::policy {
namespace {

// Known fields of every map the format defines.  PolicyFieldPaths and the
// unknown-field check both read these tables.
const std::vector<std::string_view> kRootFields = {"apiVersion", "kind", "metadata", "spec"};
const std::vector<std::string_view> kMetadataFields = {"name", "namespace", "labels",
                                                       "annotations"};
const std::vector<std::string_view> kSpecFields = {"kind", "mode", "nodeSelector", "mig",
                                                   "timeSlicing", "disruption", "window"};
const std::vector<std::string_view> kMigFields = {"allowedProfiles", "headroom"};
const std::vector<std::string_view> kTimeSlicingFields = {"namespaces", "maxReplicas"};
const std::vector<std::string_view> kModeNames = {"Proposal", "Approve", "Auto"};
const std::vector<std::string_view> kDisruptionFields = {"stayingPods", "maxNodesPerPool", "patchGitOpsOwners",
                                                         "maxAttempts", "retryBackoff"};
const std::vector<std::string_view> kStayingPodsNames = {"None", "Restartable", "Any"};

constexpr const char* kUnnamed = "(unnamed)";
constexpr double kMaxHeadroomPercent = 200.0;

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string Join(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

// ---- YAML scalar typing (YAML 1.1 resolution, as kubectl's go-yaml does) ----

enum class ScalarType { kString, kInteger, kFloat, kBool, kNull };

// Reads characters from the front of a string; the Is* matchers below spell
// out small regular grammars without std::regex.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ == s_.size(); }
  bool Take(char c) {
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool TakeAny(std::string_view set) {
    if (i_ >= s_.size() || set.find(s_[i_]) == std::string_view::npos) return false;
    ++i_;
    return true;
  }
  bool TakeDigit() { return TakeAny("0123456789"); }
  // Takes characters of `set` while it can; returns how many.
  size_t TakeRun(std::string_view set) {
    size_t n = 0;
    while (TakeAny(set)) ++n;
    return n;
  }
  bool TakeWord(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

constexpr std::string_view kDigits = "0123456789";
constexpr std::string_view kDigitsUnderscore = "0123456789_";

// YAML 1.1 int: [-+]?(0|[1-9][0-9_]*) | [-+]?0b[01_]+ | [-+]?0[0-7_]+ | [-+]?0x[0-9a-fA-F_]+
bool IsYamlInt(std::string_view s) {
  Cursor c(s);
  c.TakeAny("+-");
  if (c.TakeWord("0b")) return c.TakeRun("01_") > 0 && c.done();
  if (c.TakeWord("0x")) return c.TakeRun("0123456789abcdefABCDEF_") > 0 && c.done();
  if (c.Take('0')) return c.done() || (c.TakeRun("01234567_") > 0 && c.done());
  if (!c.TakeAny("123456789")) return false;
  c.TakeRun(kDigitsUnderscore);
  return c.done();
}

// YAML 1.1 float: [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?
//                 | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)
bool IsYamlFloat(std::string_view s) {
  for (std::string_view nan : {".nan", ".NaN", ".NAN"}) {
    if (s == nan) return true;
  }
  Cursor c(s);
  c.TakeAny("+-");
  for (std::string_view inf : {".inf", ".Inf", ".INF"}) {
    Cursor d = c;
    if (d.TakeWord(inf) && d.done()) return true;
  }
  if (c.Take('.')) {
    if (c.TakeRun(kDigits) == 0) return false;
  } else {
    if (!c.TakeDigit()) return false;
    c.TakeRun(kDigitsUnderscore);
    if (c.Take('.')) c.TakeRun(kDigitsUnderscore);
  }
  if (c.TakeAny("eE")) {
    c.TakeAny("+-");
    if (c.TakeRun(kDigits) == 0) return false;
  }
  return c.done();
}

// A percentage: -?(0|[1-9][0-9]*)(\.[0-9]+)?%  (the sign only so that the
// range check, not the syntax check, reports "-5%").
bool IsPercent(std::string_view s) {
  Cursor c(s);
  c.Take('-');
  if (!c.Take('0')) {
    if (!c.TakeAny("123456789")) return false;
    c.TakeRun(kDigits);
  }
  if (c.Take('.') && c.TakeRun(kDigits) == 0) return false;
  return c.Take('%') && c.done();
}

// -?(0|[1-9][0-9]*): the only integers that YAML 1.1 (kubectl), YAML 1.2
// (yaml-cpp) and JSON read alike.  Not "010" (octal 8 for kubectl), "+5",
// "1_000", "0x10" or "0b10".
bool IsDecimal(std::string_view s) {
  Cursor c(s);
  c.Take('-');
  if (c.Take('0')) return c.done();
  return c.TakeAny("123456789") && (c.TakeRun(kDigits), c.done());
}

// Why an integer that YAML 1.1 accepts is not IsDecimal, for the error.
std::string NonDecimalHint(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  if (s.front() == '+') return " (write it without the sign)";
  if (digits.find('_') != std::string_view::npos) return " (write it without '_')";
  if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of("01234567") == std::string_view::npos) {
    return " (kubectl reads a leading 0 as octal: " + std::to_string(std::strtoll(std::string(digits).c_str(), nullptr, 8)) +
           "; write it without the leading 0)";
  }
  return " (write it in decimal digits)";
}

// The booleans every YAML version and JSON read alike.
bool IsPlainBool(std::string_view s) {
  for (std::string_view b : {"true", "false", "True", "False", "TRUE", "FALSE"}) {
    if (s == b) return true;
  }
  return false;
}

ScalarType ResolvePlain(const std::string& s) {
  static const std::set<std::string, std::less<>> kNulls = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string, std::less<>> kBools = {
      "y",    "Y",    "yes",   "Yes",   "YES",   "n",  "N",  "no", "No",  "NO",  "true",
      "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"};
  if (kNulls.count(s)) return ScalarType::kNull;
  if (kBools.count(s)) return ScalarType::kBool;
  if (IsYamlInt(s)) return ScalarType::kInteger;
  if (IsYamlFloat(s)) return ScalarType::kFloat;
  return ScalarType::kString;
}

ScalarType Resolve(const YAML::Node& n) {
  if (n.IsNull()) return ScalarType::kNull;
  const std::string& tag = n.Tag();
  if (tag == "?") return ResolvePlain(n.Scalar());
  if (tag == "tag:yaml.org,2002:int") return ScalarType::kInteger;
  if (tag == "tag:yaml.org,2002:float") return ScalarType::kFloat;
  if (tag == "tag:yaml.org,2002:bool") return ScalarType::kBool;
  if (tag == "tag:yaml.org,2002:null") return ScalarType::kNull;
  return ScalarType::kString;  // quoted, block scalar, !!str or a custom tag
}

bool IsString(const YAML::Node& n) { return n.IsScalar() && Resolve(n) == ScalarType::kString; }

std::string TypeName(const YAML::Node& n) {
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  switch (Resolve(n)) {
    case ScalarType::kString: return "a string";
    case ScalarType::kInteger: return "an integer";
    case ScalarType::kFloat: return "a number";
    case ScalarType::kBool: return "a boolean";
    case ScalarType::kNull: return "null";
  }
  return "a value";
}

// ---- Kubernetes name syntax ----

bool IsAlnumLower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnumLower(s.front()) || !IsAlnumLower(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnumLower(c) || c == '-'; });
}

// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t pos = 0;
  while (true) {
    const size_t dot = s.find('.', pos);
    if (!IsDnsLabel(s.substr(pos, dot == std::string_view::npos ? dot : dot - pos))) return false;
    if (dot == std::string_view::npos) return true;
    pos = dot + 1;
  }
}

// Label value: empty, or at most 63 of [-_.A-Za-z0-9] starting and ending alphanumeric.
bool IsLabelValue(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// Qualified name (label and annotation keys): [<dns-subdomain>/]<name>.
bool IsQualifiedName(std::string_view s) {
  const size_t slash = s.find('/');
  std::string_view name = s;
  if (slash != std::string_view::npos) {
    if (!IsDnsSubdomain(s.substr(0, slash))) return false;
    name = s.substr(slash + 1);
  }
  return !name.empty() && IsLabelValue(name);
}

// ---- Validation of one document ----

struct Problem {
  int line;
  std::string text;
};

// A key/value pair of a YAML map; `line` is where the value's problems are
// reported: the value's own line, or the key's when the value is null.
struct Entry {
  YAML::Node key;
  YAML::Node value;
  int key_line = 0;
  int line = 0;
};

int LineOf(const YAML::Node& n, int fallback) {
  const int line = n.Mark().line;
  return line >= 0 ? line + 1 : fallback;
}

bool Present(const Entry* e) { return e != nullptr && !e->value.IsNull(); }

class DocumentValidator {
 public:
  DocumentValidator(std::string file, const ProfileExistsFn& profile_exists,
                    std::vector<Problem>* problems)
      : file_(std::move(file)), profile_exists_(profile_exists), problems_(problems) {}

  // Validates `doc` (not null); returns the policy when it has no problems.
  std::optional<GpuPolicy> Validate(const YAML::Node& doc);

  const std::string& name() const { return policy_.name; }
  int name_line() const { return name_line_; }

 private:
  void Error(int line, const std::string& path, const std::string& problem) {
    ++errors_;
    // Names, keys and values are the file's: escaped, so each problem stays one line.
    problems_->push_back({line, net::EscapeControl(file_ + ":" + std::to_string(line) + ": policy " +
                                                   Quote(display_name_) + ": " + path + ": " + problem)});
  }

  // The entries of `map` by key; reports non-string, unknown and duplicate
  // keys.  REQUIRES: map.IsMap().  `known` null: any key is accepted.
  std::map<std::string, Entry> Fields(const YAML::Node& map, const std::string& path,
                                      const std::vector<std::string_view>* known);
  bool ExpectMap(const Entry& e, const std::string& path);
  bool ExpectList(const Entry& e, const std::string& path);
  std::optional<std::string> ExpectString(const YAML::Node& value, int line,
                                          const std::string& path);

  void CheckRoot(const YAML::Node& doc);
  void CheckMetadata(const Entry& e);
  std::map<std::string, std::string> CheckStringMap(const Entry& e, const std::string& path,
                                                    bool label_values);
  void CheckSpec(const Entry& e);
  void CheckMode(const Entry& e);
  void CheckNodeSelector(const Entry& e);
  void CheckMig(const Entry& e);
  void CheckAllowedProfiles(const Entry& e);
  void CheckHeadroom(const Entry& e);
  void CheckTimeSlicing(const Entry& e);
  void CheckNamespaces(const Entry& e);
  void CheckIntRange(const Entry& e, const std::string& path, int lo, int hi, int* out);
  void CheckBool(const Entry& e, const std::string& path, bool* out);
  void CheckDisruption(const Entry& e);
  void CheckWindow(const Entry& e);

  std::string file_;
  const ProfileExistsFn& profile_exists_;
  std::vector<Problem>* problems_;
  std::string display_name_ = kUnnamed;
  int name_line_ = 0;
  int errors_ = 0;
  GpuPolicy policy_;
};

std::map<std::string, Entry> DocumentValidator::Fields(
    const YAML::Node& map, const std::string& path,
    const std::vector<std::string_view>* known) {
  std::map<std::string, Entry> out;
  const int map_line = LineOf(map, 1);
  for (const auto& kv : map) {
    Entry e{kv.first, kv.second, LineOf(kv.first, map_line), 0};
    e.line = e.value.IsNull() ? e.key_line : LineOf(e.value, e.key_line);
    if (!e.key.IsScalar()) {
      Error(e.key_line, path.empty() ? "(document)" : path,
            "field name must be a string, got " + TypeName(e.key));
      continue;
    }
    const std::string key = e.key.Scalar();
    const std::string key_path = known == nullptr ? path + "[" + Quote(key) + "]"
                                 : path.empty()   ? key
                                                  : path + "." + key;
    if (known != nullptr && std::find(known->begin(), known->end(), key) == known->end()) {
      Error(e.key_line, key_path, "unknown field " + Quote(key) + DidYouMean(key, *known));
      continue;
    }
    if (out.count(key)) {
      Error(e.key_line, key_path,
            "duplicate field (first at line " + std::to_string(out[key].key_line) + ")");
      continue;
    }
    out.emplace(key, e);
  }
  return out;
}

bool DocumentValidator::ExpectMap(const Entry& e, const std::string& path) {
  if (e.value.IsMap()) return true;
  Error(e.line, path, "must be a map, got " + TypeName(e.value));
  return false;
}

bool DocumentValidator::ExpectList(const Entry& e, const std::string& path) {
  if (e.value.IsSequence()) return true;
  Error(e.line, path, "must be a list, got " + TypeName(e.value));
  return false;
}

std::optional<std::string> DocumentValidator::ExpectString(const YAML::Node& value, int line,
                                                           const std::string& path) {
  if (IsString(value)) return value.Scalar();
  std::string problem = "must be a string, got " + TypeName(value);
  if (value.IsScalar()) problem += " (" + value.Scalar() + "); quote it to make it a string";
  Error(line, path, problem);
  return std::nullopt;
}

const Entry* Find(const std::map<std::string, Entry>& fields, const std::string& key) {
  auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

std::optional<GpuPolicy> DocumentValidator::Validate(const YAML::Node& doc) {
  policy_.file = file_;
  policy_.line = LineOf(doc, 1);
  // Learn the name first so that every message can carry it.
  if (doc.IsMap()) {
    for (const auto& kv : doc) {
      if (!kv.first.IsScalar() || kv.first.Scalar() != "metadata" || !kv.second.IsMap()) continue;
      for (const auto& m : kv.second) {
        if (m.first.IsScalar() && m.first.Scalar() == "name" && m.second.IsScalar()) {
          display_name_ = m.second.Scalar();
          name_line_ = LineOf(m.second, policy_.line);
          break;
        }
      }
      break;
    }
  }
  if (!doc.IsMap()) {
    Error(policy_.line, "(document)", "must be a map holding a GpuPolicy, got " + TypeName(doc));
    return std::nullopt;
  }
  CheckRoot(doc);
  if (errors_ > 0) return std::nullopt;
  return policy_;
}

void DocumentValidator::CheckRoot(const YAML::Node& doc) {
  const std::map<std::string, Entry> f = Fields(doc, "", &kRootFields);
  const Entry* api = Find(f, "apiVersion");
  if (!Present(api)) {
    Error(api ? api->line : policy_.line, "apiVersion",
          "missing; must be " + Quote(kPolicyApiVersion));
  } else if (auto v = ExpectString(api->value, api->line, "apiVersion");
             v && *v != kPolicyApiVersion) {
    Error(api->line, "apiVersion", "must be " + Quote(kPolicyApiVersion) + ", got " + Quote(*v));
  }
  const Entry* kind = Find(f, "kind");
  if (!Present(kind)) {
    Error(kind ? kind->line : policy_.line, "kind", "missing; must be " + Quote(kPolicyKind));
  } else if (auto v = ExpectString(kind->value, kind->line, "kind"); v && *v != kPolicyKind) {
    Error(kind->line, "kind", "must be " + Quote(kPolicyKind) + ", got " + Quote(*v));
  }
  const Entry* metadata = Find(f, "metadata");
  if (!Present(metadata)) {
    Error(metadata ? metadata->line : policy_.line, "metadata.name", "missing required field");
  } else {
    CheckMetadata(*metadata);
  }
  const Entry* spec = Find(f, "spec");
  if (!Present(spec)) {
    Error(spec ? spec->line : policy_.line, "spec", "missing required field");
  } else {
    CheckSpec(*spec);
  }
}

void DocumentValidator::CheckMetadata(const Entry& e) {
  if (!ExpectMap(e, "metadata")) return;
  const std::map<std::string, Entry> f = Fields(e.value, "metadata", &kMetadataFields);
  const Entry* name = Find(f, "name");
  if (!Present(name)) {
    Error(name ? name->line : e.key_line, "metadata.name", "missing required field");
  } else if (auto v = ExpectString(name->value, name->line, "metadata.name")) {
    if (IsDnsSubdomain(*v)) {
      policy_.name = *v;
    } else {
      Error(name->line, "metadata.name",
            Quote(*v) + " is not a valid name (lowercase letters, digits, '-' and '.', "
                        "starting and ending with a letter or digit, at most 253 characters)");
    }
  }
  if (const Entry* ns = Find(f, "namespace"); Present(ns)) {
    if (auto v = ExpectString(ns->value, ns->line, "metadata.namespace"); v && !IsDnsLabel(*v)) {
      Error(ns->line, "metadata.namespace", Quote(*v) + " is not a valid namespace name");
    }
  }
  if (const Entry* labels = Find(f, "labels"); Present(labels)) {
    CheckStringMap(*labels, "metadata.labels", true);
  }
  if (const Entry* annotations = Find(f, "annotations"); Present(annotations)) {
    CheckStringMap(*annotations, "metadata.annotations", false);
  }
}

// A map of qualified-name keys to string values (labels, annotations,
// nodeSelector); label_values also checks the values' label syntax.
// Returns the valid entries.
std::map<std::string, std::string> DocumentValidator::CheckStringMap(const Entry& e,
                                                                     const std::string& path,
                                                                     bool label_values) {
  std::map<std::string, std::string> out;
  if (!ExpectMap(e, path)) return out;
  for (const auto& [key, entry] : Fields(e.value, path, nullptr)) {
    const std::string item = path + "[" + Quote(key) + "]";
    if (!IsQualifiedName(key)) {
      Error(entry.key_line, item,
            "not a valid key (optional DNS prefix and '/', then at most 63 of [-_.A-Za-z0-9] "
            "starting and ending with a letter or digit)");
    }
    std::optional<std::string> v = ExpectString(entry.value, entry.line, item);
    if (!v) continue;
    if (label_values && !IsLabelValue(*v)) {
      Error(entry.line, item,
            "value " + Quote(*v) + " is not a valid label value (at most 63 of [-_.A-Za-z0-9], "
            "starting and ending with a letter or digit)");
      continue;
    }
    out.emplace(key, *v);
  }
  return out;
}

void DocumentValidator::CheckSpec(const Entry& e) {
  if (!ExpectMap(e, "spec")) return;
  const std::map<std::string, Entry> f = Fields(e.value, "spec", &kSpecFields);
  const Entry* kind = Find(f, "kind");
  if (!Present(kind)) {
    Error(kind ? kind->line : e.key_line, "spec.kind",
          "missing required field; must be " + Quote(kSharingKind));
  } else if (auto v = ExpectString(kind->value, kind->line, "spec.kind"); v && *v != kSharingKind) {
    Error(kind->line, "spec.kind", "must be " + Quote(kSharingKind) + ", got " + Quote(*v));
  }
  const Entry* mode = Find(f, "mode");
  if (Present(mode)) CheckMode(*mode);
  if (const Entry* sel = Find(f, "nodeSelector"); Present(sel)) CheckNodeSelector(*sel);
  if (const Entry* mig = Find(f, "mig"); Present(mig)) CheckMig(*mig);
  if (const Entry* ts = Find(f, "timeSlicing"); Present(ts)) CheckTimeSlicing(*ts);
  if (const Entry* d = Find(f, "disruption"); Present(d)) CheckDisruption(*d);
  const Entry* window = Find(f, "window");
  if (Present(window)) {
    CheckWindow(*window);
  } else if (policy_.mode != Mode::kProposal) {
    Error(Present(mode) ? mode->line : e.key_line, "spec.window",
          "required when mode is " + std::string(ModeName(policy_.mode)) +
              " (e.g. window: \"Sat 02:00-06:00 UTC\")");
  }
}

void DocumentValidator::CheckMode(const Entry& e) {
  std::optional<std::string> v = ExpectString(e.value, e.line, "spec.mode");
  if (!v) return;
  for (Mode m : {Mode::kProposal, Mode::kApprove, Mode::kAuto}) {
    if (*v == ModeName(m)) {
      policy_.mode = m;
      return;
    }
  }
  Error(e.line, "spec.mode",
        "must be one of " + Join(kModeNames) + ", got " + Quote(*v) + DidYouMean(*v, kModeNames));
}

void DocumentValidator::CheckNodeSelector(const Entry& e) {
  policy_.node_selector = CheckStringMap(e, "spec.nodeSelector", true);
}

void DocumentValidator::CheckMig(const Entry& e) {
  if (!ExpectMap(e, "spec.mig")) return;
  const std::map<std::string, Entry> f = Fields(e.value, "spec.mig", &kMigFields);
  if (const Entry* p = Find(f, "allowedProfiles"); Present(p)) CheckAllowedProfiles(*p);
  if (const Entry* h = Find(f, "headroom"); Present(h)) CheckHeadroom(*h);
}

void DocumentValidator::CheckAllowedProfiles(const Entry& e) {
  const std::string path = "spec.mig.allowedProfiles";
  if (!ExpectList(e, path)) return;
  policy_.allowed_profiles_set = true;
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < e.value.size(); ++i) {
    const YAML::Node item = e.value[i];
    const int line = LineOf(item, e.line);
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    std::optional<std::string> v = ExpectString(item, line, item_path);
    if (!v) continue;
    if (auto it = seen.find(*v); it != seen.end()) {
      Error(line, item_path,
            "duplicate profile " + Quote(*v) + " (also at [" + std::to_string(it->second) + "])");
      continue;
    }
    seen.emplace(*v, i);
    if (!profile_exists_(*v)) {
      Error(line, item_path, "profile " + Quote(*v) + " exists on no GPU model");
      continue;
    }
    policy_.allowed_profiles.push_back(*v);
  }
}

void DocumentValidator::CheckHeadroom(const Entry& e) {
  const std::string path = "spec.mig.headroom";
  if (e.value.IsScalar() && !IsString(e.value)) {
    // 20 most likely means "20%", 0.2 most likely means "20%" too.
    std::string example = "20%";
    const ScalarType type = Resolve(e.value);
    const double x = std::strtod(e.value.Scalar().c_str(), nullptr);
    if (type == ScalarType::kInteger && x >= 0 && x <= kMaxHeadroomPercent) {
      example = e.value.Scalar() + "%";
    } else if (type == ScalarType::kFloat && x >= 0 && x <= kMaxHeadroomPercent / 100) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g%%", x * 100);
      example = buf;
    }
    Error(e.line, path,
          "must be a percentage string such as \"20%\", got " + TypeName(e.value) + " " +
              e.value.Scalar() + "; write it quoted with a percent sign, e.g. \"" + example +
              "\"");
    return;
  }
  std::optional<std::string> v = ExpectString(e.value, e.line, path);
  if (!v) return;
  if (!IsPercent(*v)) {
    Error(e.line, path, "must be a percentage such as \"20%\", got " + Quote(*v));
    return;
  }
  const double percent = std::strtod(v->c_str(), nullptr);
  if (percent < 0 || percent > kMaxHeadroomPercent) {
    Error(e.line, path, "must be between 0% and 200%, got " + Quote(*v));
    return;
  }
  policy_.headroom = percent / 100.0;
  policy_.headroom_text = *v;
}

void DocumentValidator::CheckTimeSlicing(const Entry& e) {
  if (!ExpectMap(e, "spec.timeSlicing")) return;
  const std::map<std::string, Entry> f = Fields(e.value, "spec.timeSlicing", &kTimeSlicingFields);
  if (const Entry* ns = Find(f, "namespaces"); Present(ns)) CheckNamespaces(*ns);
  if (const Entry* r = Find(f, "maxReplicas"); Present(r)) {
    CheckIntRange(*r, "spec.timeSlicing.maxReplicas", 1, kMaxReplicasLimit, &policy_.max_replicas);
  }
}

void DocumentValidator::CheckNamespaces(const Entry& e) {
  const std::string path = "spec.timeSlicing.namespaces";
  if (!ExpectList(e, path)) return;
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < e.value.size(); ++i) {
    const YAML::Node item = e.value[i];
    const int line = LineOf(item, e.line);
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    std::optional<std::string> v = ExpectString(item, line, item_path);
    if (!v) continue;
    if (!IsDnsLabel(*v)) {
      Error(line, item_path,
            Quote(*v) + " is not a valid namespace name (DNS-1123 label: at most 63 lowercase "
                        "letters, digits and '-', starting and ending with a letter or digit)");
      continue;
    }
    if (auto it = seen.find(*v); it != seen.end()) {
      Error(line, item_path,
            "duplicate namespace " + Quote(*v) + " (also at [" + std::to_string(it->second) +
                "])");
      continue;
    }
    seen.emplace(*v, i);
    policy_.time_slicing_namespaces.push_back(*v);
  }
}

void DocumentValidator::CheckIntRange(const Entry& e, const std::string& path, int lo, int hi, int* out) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (!e.value.IsScalar() || Resolve(e.value) != ScalarType::kInteger) {
    std::string got = TypeName(e.value);
    if (e.value.IsScalar()) got += " " + Quote(e.value.Scalar());
    Error(e.line, path, "must be an integer in " + range + ", got " + got);
    return;
  }
  const std::string& s = e.value.Scalar();
  if (!IsDecimal(s)) {
    Error(e.line, path, "must be a decimal integer in " + range + ", got " + s + NonDecimalHint(s));
    return;
  }
  long long n = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || ptr != s.data() + s.size() || n < lo || n > hi) {
    Error(e.line, path, "must be in " + range + ", got " + s);
    return;
  }
  *out = static_cast<int>(n);
}

void DocumentValidator::CheckBool(const Entry& e, const std::string& path, bool* out) {
  if (!e.value.IsScalar() || Resolve(e.value) != ScalarType::kBool) {
    std::string got = TypeName(e.value);
    if (e.value.IsScalar()) got += " " + Quote(e.value.Scalar());
    Error(e.line, path, "must be true or false, got " + got);
    return;
  }
  if (e.value.Tag() == "?" && !IsPlainBool(e.value.Scalar())) {
    Error(e.line, path,
          "must be true or false, got " + e.value.Scalar() +
              " (a YAML 1.1 boolean that other YAML readers take as a string; write true or false)");
    return;
  }
  *out = e.value.as<bool>();
}

void DocumentValidator::CheckDisruption(const Entry& e) {
  if (!ExpectMap(e, "spec.disruption")) return;
  const std::map<std::string, Entry> f = Fields(e.value, "spec.disruption", &kDisruptionFields);
  if (const Entry* m = Find(f, "maxNodesPerPool"); Present(m)) {
    CheckIntRange(*m, "spec.disruption.maxNodesPerPool", 1, kMaxNodesPerPoolLimit, &policy_.max_nodes_per_pool);
  }
  if (const Entry* g = Find(f, "patchGitOpsOwners"); Present(g)) {
    CheckBool(*g, "spec.disruption.patchGitOpsOwners", &policy_.patch_gitops_owners);
  }
  if (const Entry* a = Find(f, "maxAttempts"); Present(a)) {
    CheckIntRange(*a, "spec.disruption.maxAttempts", 1, kMaxAttemptsLimit, &policy_.max_attempts);
  }
  if (const Entry* b = Find(f, "retryBackoff"); Present(b)) {
    const std::string path = "spec.disruption.retryBackoff";
    if (std::optional<std::string> v = ExpectString(b->value, b->line, path)) {
      double hours = 0;
      if (!model::ParseDurationHours(*v, &hours)) {
        Error(b->line, path, "must be a duration like 15m, 1h or 0s, got " + Quote(*v));
      } else if (hours > kMaxRetryBackoffHours) {
        Error(b->line, path, "must be at most " + std::string(kMaxRetryBackoffText) + ", got " + Quote(*v));
      } else {
        policy_.retry_backoff_hours = hours;
        policy_.retry_backoff_text = *v;
      }
    }
  }
  const Entry* staying = Find(f, "stayingPods");
  if (!Present(staying)) return;
  const std::string path = "spec.disruption.stayingPods";
  std::optional<std::string> v = ExpectString(staying->value, staying->line, path);
  if (!v) return;
  for (StayingPods s : {StayingPods::kNone, StayingPods::kRestartable, StayingPods::kAny}) {
    if (*v == StayingPodsName(s)) {
      policy_.staying_pods = s;
      return;
    }
  }
  Error(staying->line, path,
        "must be one of " + Join(kStayingPodsNames) + ", got " + Quote(*v) + DidYouMean(*v, kStayingPodsNames));
}

void DocumentValidator::CheckWindow(const Entry& e) {
  std::optional<std::string> v = ExpectString(e.value, e.line, "spec.window");
  if (!v) return;
  Result<Window> w = Window::Parse(*v);
  if (!w.ok()) {
    Error(e.line, "spec.window", w.status().message());
    return;
  }
  policy_.window = *w;
}

}  // namespace

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kProposal: return "Proposal";
    case Mode::kApprove: return "Approve";
    case Mode::kAuto: return "Auto";
  }
  return "Proposal";
}

std::string_view StayingPodsName(StayingPods s) {
  switch (s) {
    case StayingPods::kNone: return "None";
    case StayingPods::kRestartable: return "Restartable";
    case StayingPods::kAny: return "Any";
  }
  return "Restartable";
}

bool GpuPolicy::AllowsProfile(std::string_view profile) const {
  if (!allowed_profiles_set) return profile.find("+me") == std::string_view::npos;
  return std::find(allowed_profiles.begin(), allowed_profiles.end(), profile) !=
         allowed_profiles.end();
}

bool GpuPolicy::TimeSlicingNamespace(std::string_view ns) const {
  return std::find(time_slicing_namespaces.begin(), time_slicing_namespaces.end(), ns) !=
         time_slicing_namespaces.end();
}

bool GpuPolicy::SelectsNode(const model::Labels& labels) const {
  for (const auto& [key, value] : node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

Result<std::vector<GpuPolicy>> ParsePolicies(std::string_view yaml_text,
                                             std::string_view file_name,
                                             const ProfileExistsFn& profile_exists) {
  const std::string file(file_name);
  Result<std::vector<YAML::Node>> docs = LoadYamlDocuments(yaml_text, file_name);
  if (!docs.ok()) return docs.status();

  std::vector<Problem> problems;
  std::vector<GpuPolicy> policies;
  std::map<std::string, int> first_line_of_name;
  int documents = 0;
  for (const YAML::Node& doc : *docs) {
    if (doc.IsNull()) continue;  // empty document, e.g. after a trailing ---
    ++documents;
    DocumentValidator v(file, profile_exists, &problems);
    std::optional<GpuPolicy> policy;
    try {
      policy = v.Validate(doc);
    } catch (const YAML::Exception& e) {  // the checks above should leave nothing to throw
      const int line = LineOf(doc, 1);
      problems.push_back({line, file + ":" + std::to_string(line) + ": policy " +
                                    Quote(v.name().empty() ? kUnnamed : v.name()) +
                                    ": (document): unreadable: " + e.msg});
      continue;
    }
    const std::string& name = v.name();
    if (!name.empty()) {
      auto [it, inserted] = first_line_of_name.emplace(name, v.name_line());
      if (!inserted) {
        problems.push_back({v.name_line(), file + ":" + std::to_string(v.name_line()) +
                                               ": policy " + Quote(name) +
                                               ": metadata.name: duplicate policy name (first "
                                               "defined at line " +
                                               std::to_string(it->second) + ")"});
        continue;
      }
    }
    if (policy) policies.push_back(std::move(*policy));
  }
  if (documents == 0) return Status::Error(file + ": no GpuPolicy found");
  if (!problems.empty()) {
    std::stable_sort(problems.begin(), problems.end(),
                     [](const Problem& a, const Problem& b) { return a.line < b.line; });
    std::string message;
    for (const Problem& p : problems) message += (message.empty() ? "" : "\n") + p.text;
    return Status::Error(message);
  }
  return policies;
}

Result<std::vector<GpuPolicy>> LoadPolicyFile(const std::string& path,
                                              const ProfileExistsFn& profile_exists) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::Error(path + ": read error: " + std::strerror(errno));
  return ParsePolicies(text.str(), path, profile_exists);
}

std::vector<std::string> PolicyFieldPaths() {
  std::vector<std::string> out;
  auto add = [&out](const std::string& prefix, const std::vector<std::string_view>& fields) {
    for (std::string_view f : fields) out.push_back(prefix + std::string(f));
  };
  add("", kRootFields);
  add("metadata.", kMetadataFields);
  add("spec.", kSpecFields);
  add("spec.mig.", kMigFields);
  add("spec.timeSlicing.", kTimeSlicingFields);
  add("spec.disruption.", kDisruptionFields);
  return out;
}

}  // namespace kubeon::policy
