// Parsing, validation and look-ups of the MIG catalog (see catalog.h for the
// invariants a parsed catalog satisfies).  JSON errors from nlohmann are
// caught here and returned as Status; nothing throws out of this file.
#include "mig/catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

namespace kubeon::mig {
namespace {

using nlohmann::json;

#define MIG_RETURN_IF_ERROR(expr)  \
  do {                             \
    Status status_ = (expr);       \
    if (!status_.ok()) return status_; \
  } while (0)

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// "line L, column C" (1-based) of a byte offset into text.
std::string LineColumn(std::string_view text, size_t byte) {
  byte = std::min(byte, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(byte - line_start + 1);
}

// Finds the first repeated key of any JSON object while the document is
// parsed (nlohmann silently keeps the last one).  The path names the keys of
// the enclosing objects, e.g. models.profiles.memory_mib.
class DuplicateKeyFinder {
 public:
  json::parser_callback_t Callback() {
    return [this](int /*depth*/, json::parse_event_t event, json& parsed) {
      switch (event) {
        case json::parse_event_t::object_start:
          frames_.push_back(Frame{true, {}, ""});
          break;
        case json::parse_event_t::array_start:
          frames_.push_back(Frame{false, {}, ""});
          break;
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
          if (!frames_.empty()) frames_.pop_back();
          break;
        case json::parse_event_t::key:
          if (!frames_.empty() && parsed.is_string()) OnKey(parsed.get<std::string>());
          break;
        case json::parse_event_t::value:
          break;
      }
      return true;
    };
  }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string current_key;
  };
  void OnKey(const std::string& key) {
    Frame& top = frames_.back();
    top.current_key = key;
    if (top.keys.insert(key).second || !error_.empty()) return;
    std::string path;
    for (const Frame& f : frames_) {
      if (!f.is_object) continue;
      if (!path.empty()) path += ".";
      path += f.current_key;
    }
    error_ = "duplicate key " + Quote(path) + " (a key may appear only once per object)";
  }
  std::vector<Frame> frames_;
  std::string error_;
};

// Typed, strict access to the fields of one JSON object.  `where` names the
// object in error messages ("x.json: models[2] \"A30\"").
class Fields {
 public:
  Fields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  const std::string& where() const { return where_; }

  // Every required key present; no key outside required + optional.
  Status Check(std::initializer_list<const char*> required,
               std::initializer_list<const char*> optional) const {
    if (!obj_.is_object()) return Error("", "must be a JSON object");
    for (const char* key : required) {
      if (!obj_.contains(key)) return Error(key, "missing (required)");
    }
    for (const auto& item : obj_.items()) {
      bool known = false;
      for (const char* key : required) known = known || item.key() == key;
      for (const char* key : optional) known = known || item.key() == key;
      if (!known) {
        std::string allowed;
        for (const char* key : required) allowed += std::string(allowed.empty() ? "" : ", ") + key;
        for (const char* key : optional) allowed += std::string(", ") + key;
        return Error(item.key(), "unknown field (allowed: " + allowed + ")");
      }
    }
    return Status::Ok();
  }

  Status Int(const char* key, int64_t lo, int64_t hi, int64_t* out) const {
    const json& v = obj_.at(key);
    if (!v.is_number_integer()) return Error(key, "must be an integer, got " + Describe(v));
    const bool too_big = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi);
    const int64_t x = v.get<int64_t>();
    if (too_big || x < lo || x > hi) {
      return Error(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
    }
    *out = x;
    return Status::Ok();
  }

  Status SmallInt(const char* key, int lo, int hi, int* out) const {
    int64_t x = 0;
    MIG_RETURN_IF_ERROR(Int(key, lo, hi, &x));
    *out = static_cast<int>(x);
    return Status::Ok();
  }

  Status Bool(const char* key, bool* out) const {
    const json& v = obj_.at(key);
    if (!v.is_boolean()) return Error(key, "must be true or false, got " + Describe(v));
    *out = v.get<bool>();
    return Status::Ok();
  }

  // Leaves *out unchanged when the key is absent.
  Status OptionalBool(const char* key, bool* out) const {
    return obj_.contains(key) ? Bool(key, out) : Status::Ok();
  }

  Status String(const char* key, std::string* out) const {
    const json& v = obj_.at(key);
    if (!v.is_string()) return Error(key, "must be a string, got " + Describe(v));
    *out = v.get<std::string>();
    if (out->empty()) return Error(key, "must not be empty");
    return Status::Ok();
  }

  Status OptionalString(const char* key) const {
    std::string ignored;
    return obj_.contains(key) ? String(key, &ignored) : Status::Ok();
  }

  // A list of distinct non-empty strings (possibly empty list).
  Status StringList(const char* key, std::vector<std::string>* out) const {
    const json& v = obj_.at(key);
    if (!v.is_array()) return Error(key, "must be a list of strings, got " + Describe(v));
    out->clear();
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string elem = std::string(key) + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) return Error(elem, "must be a string, got " + Describe(v[i]));
      std::string s = v[i].get<std::string>();
      if (s.empty()) return Error(elem, "must not be empty");
      if (std::find(out->begin(), out->end(), s) != out->end()) {
        return Error(elem, "repeats " + Quote(s));
      }
      out->push_back(std::move(s));
    }
    return Status::Ok();
  }

  Status IntList(const char* key, int lo, int hi, std::vector<int>* out) const {
    const json& v = obj_.at(key);
    if (!v.is_array()) return Error(key, "must be a list of integers, got " + Describe(v));
    out->clear();
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string elem = std::string(key) + "[" + std::to_string(i) + "]";
      if (!v[i].is_number_integer()) return Error(elem, "must be an integer, got " + Describe(v[i]));
      int64_t x = v[i].get<int64_t>();
      if (x < lo || x > hi || (v[i].is_number_unsigned() && v[i].get<uint64_t>() > static_cast<uint64_t>(hi))) {
        return Error(elem, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                               "], got " + v[i].dump());
      }
      out->push_back(static_cast<int>(x));
    }
    return Status::Ok();
  }

  Status PositiveNumber(const char* key) const {
    const json& v = obj_.at(key);
    if (!v.is_number() || v.get<double>() <= 0) return Error(key, "must be a positive number, got " + v.dump());
    return Status::Ok();
  }

  Status Error(std::string_view field, const std::string& message) const {
    if (field.empty()) return Status::Error(where_ + ": " + message);
    return Status::Error(where_ + ": field " + Quote(field) + ": " + message);
  }

 private:
  static std::string Describe(const json& v) {
    std::string text = v.dump();
    if (text.size() > 40) text = text.substr(0, 40) + "...";
    return std::string(v.type_name()) + " " + text;
  }

  const json& obj_;
  std::string where_;
};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsPciDeviceId(std::string_view s) {
  if (s.size() != 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  return std::all_of(s.begin() + 2, s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

constexpr int kMaxMemorySlices = 32;  // layout.cc keeps occupied slices in a 32-bit mask
constexpr int kMaxComputeSlices = 64;
constexpr int kMaxInstances = 15;     // layout.cc packs a per-profile count into 4 bits
constexpr size_t kMaxProfiles = 16;   // ... of at most 16 profiles into 64 bits
constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;

// REQUIRES: m holds the model's slice counts (profiles are checked against them).
Status ParseProfile(const json& j, const std::string& where, const GpuModel& m, MigProfile* p) {
  Fields f(j, where);
  MIG_RETURN_IF_ERROR(f.Check({"name", "id", "compute_slices", "memory_slices", "max_instances", "starts",
                               "memory_mib", "media_extensions", "memory_source", "uncertain"},
                              {"placements_uncertain", "id_uncertain", "memory_gib_nvidia_smi", "note"}));
  MIG_RETURN_IF_ERROR(f.String("name", &p->name));
  Fields g(j, where + " " + Quote(p->name));
  MIG_RETURN_IF_ERROR(g.SmallInt("id", 0, 1 << 20, &p->id));
  MIG_RETURN_IF_ERROR(g.SmallInt("compute_slices", 1, m.compute_slices, &p->compute_slices));
  MIG_RETURN_IF_ERROR(g.SmallInt("memory_slices", 1, m.memory_slices, &p->memory_slices));
  MIG_RETURN_IF_ERROR(g.SmallInt("max_instances", 1, m.max_instances, &p->max_instances));
  MIG_RETURN_IF_ERROR(g.IntList("starts", 0, m.memory_slices - 1, &p->starts));
  if (p->starts.empty()) return g.Error("starts", "must list at least one start");
  for (size_t i = 0; i < p->starts.size(); ++i) {
    const int s = p->starts[i];
    const std::string elem = "starts[" + std::to_string(i) + "]";
    if (i > 0 && s <= p->starts[i - 1]) return g.Error(elem, "starts must be strictly increasing");
    if (s + p->memory_slices > m.memory_slices) {
      return g.Error(elem, "start " + std::to_string(s) + " + memory_slices " + std::to_string(p->memory_slices) +
                               " exceeds the model's " + std::to_string(m.memory_slices) + " memory slices");
    }
  }
  if (static_cast<size_t>(p->max_instances) > p->starts.size()) {
    return g.Error("max_instances", std::to_string(p->max_instances) + " instances but only " +
                                        std::to_string(p->starts.size()) + " starts");
  }
  MIG_RETURN_IF_ERROR(g.Int("memory_mib", 1, m.memory_mib, &p->memory_mib));
  MIG_RETURN_IF_ERROR(g.Bool("media_extensions", &p->media_extensions));
  if (p->media_extensions != EndsWith(p->name, "+me")) {
    return g.Error("media_extensions", std::string("must be ") + (p->media_extensions ? "false" : "true") +
                                           ": true exactly for profiles whose name ends in \"+me\"");
  }
  MIG_RETURN_IF_ERROR(g.String("memory_source", &p->memory_source));
  MIG_RETURN_IF_ERROR(g.Bool("uncertain", &p->uncertain));
  MIG_RETURN_IF_ERROR(g.OptionalBool("placements_uncertain", &p->placements_uncertain));
  MIG_RETURN_IF_ERROR(g.OptionalBool("id_uncertain", &p->id_uncertain));
  if (j.contains("memory_gib_nvidia_smi")) MIG_RETURN_IF_ERROR(g.PositiveNumber("memory_gib_nvidia_smi"));
  MIG_RETURN_IF_ERROR(g.OptionalString("note"));
  return Status::Ok();
}

Status ParseSlices(const Fields& f, GpuModel* m) {
  MIG_RETURN_IF_ERROR(f.SmallInt("compute_slices", 0, kMaxComputeSlices, &m->compute_slices));
  MIG_RETURN_IF_ERROR(f.SmallInt("memory_slices", 0, kMaxMemorySlices, &m->memory_slices));
  MIG_RETURN_IF_ERROR(f.SmallInt("max_instances", 0, kMaxInstances, &m->max_instances));
  const char* fields[] = {"compute_slices", "memory_slices", "max_instances"};
  const int values[] = {m->compute_slices, m->memory_slices, m->max_instances};
  for (int i = 0; i < 3; ++i) {
    if (m->mig_capable && values[i] == 0) return f.Error(fields[i], "must be positive for a MIG-capable model");
    if (!m->mig_capable && values[i] != 0) return f.Error(fields[i], "must be 0 for a model without MIG");
  }
  return Status::Ok();
}

Status ParseProfiles(const json& j, const Fields& f, GpuModel* m) {
  const json& list = j.at("profiles");
  if (!list.is_array()) return f.Error("profiles", "must be a list of profile objects");
  if (m->mig_capable && list.empty()) return f.Error("profiles", "a MIG-capable model needs at least one profile");
  if (!m->mig_capable && !list.empty()) return f.Error("profiles", "must be empty for a model without MIG");
  if (list.size() > kMaxProfiles) {
    return f.Error("profiles", "at most " + std::to_string(kMaxProfiles) + " profiles per model, got " +
                                   std::to_string(list.size()));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    MigProfile p;
    MIG_RETURN_IF_ERROR(ParseProfile(list[i], f.where() + ": profiles[" + std::to_string(i) + "]", *m, &p));
    for (const MigProfile& other : m->profiles) {
      const std::string where = "profiles[" + std::to_string(i) + "]";
      if (other.name == p.name) return f.Error(where, "profile name " + Quote(p.name) + " appears twice");
      if (other.id == p.id) {
        return f.Error(where, "profile id " + std::to_string(p.id) + " of " + Quote(p.name) + " is also used by " +
                                  Quote(other.name));
      }
    }
    m->profiles.push_back(std::move(p));
  }
  return Status::Ok();
}

Status ParseModel(const json& j, const std::string& where, GpuModel* m) {
  Fields f(j, where);
  MIG_RETURN_IF_ERROR(f.Check({"id", "display", "mig_capable", "product_labels", "memory_mib", "memory_source",
                               "compute_slices", "memory_slices", "max_instances", "pci_device_ids", "source",
                               "profiles"},
                              {"product_labels_uncertain", "notes"}));
  MIG_RETURN_IF_ERROR(f.String("id", &m->id));
  Fields g(j, where + " " + Quote(m->id));
  MIG_RETURN_IF_ERROR(g.String("display", &m->display));
  MIG_RETURN_IF_ERROR(g.Bool("mig_capable", &m->mig_capable));
  MIG_RETURN_IF_ERROR(g.StringList("product_labels", &m->product_labels));
  if (m->product_labels.empty()) return g.Error("product_labels", "must list at least one label");
  if (j.contains("product_labels_uncertain")) {
    MIG_RETURN_IF_ERROR(g.StringList("product_labels_uncertain", &m->product_labels_uncertain));
    for (const std::string& label : m->product_labels_uncertain) {
      if (std::find(m->product_labels.begin(), m->product_labels.end(), label) == m->product_labels.end()) {
        return g.Error("product_labels_uncertain", Quote(label) + " is not in product_labels");
      }
    }
  }
  MIG_RETURN_IF_ERROR(g.Int("memory_mib", 1, kMaxMemoryMib, &m->memory_mib));
  MIG_RETURN_IF_ERROR(g.String("memory_source", &m->memory_source));
  MIG_RETURN_IF_ERROR(ParseSlices(g, m));
  MIG_RETURN_IF_ERROR(g.StringList("pci_device_ids", &m->pci_device_ids));
  for (const std::string& id : m->pci_device_ids) {
    if (!IsPciDeviceId(id)) return g.Error("pci_device_ids", Quote(id) + " is not of the form 0xDDDDVVVV");
  }
  MIG_RETURN_IF_ERROR(g.String("source", &m->source));
  MIG_RETURN_IF_ERROR(g.OptionalString("notes"));
  return ParseProfiles(j, g, m);
}

Status CheckNotes(const json& doc, const std::string& src) {
  if (!doc.contains("notes")) return Status::Ok();
  const json& notes = doc.at("notes");
  bool ok = notes.is_string() || notes.is_array();
  if (notes.is_array()) {
    for (const json& n : notes) ok = ok && n.is_string();
  }
  return ok ? Status::Ok() : Status::Error(src + ": field \"notes\": must be a string or a list of strings");
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// GFD's sanitise(): drop characters outside [A-Za-z0-9-_. ], join the
// space-separated words with '-'.
std::string Sanitise(std::string_view s) {
  std::string out;
  bool pending_dash = false;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == ' ') {
      pending_dash = !out.empty();
      continue;
    }
    if (!(std::isalnum(u) || c == '-' || c == '_' || c == '.')) continue;
    if (pending_dash) out += '-';
    pending_dash = false;
    out += c;
  }
  return out;
}

// "1g.5gb", "1c.2g.10gb", "1g.5gb+me": digits, then 'g' or 'c', then '.'.
bool LooksLikeProfile(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  return i > 0 && i + 1 < s.size() && (s[i] == 'g' || s[i] == 'c') && s[i + 1] == '.';
}

}  // namespace

ProductLabelParts SplitProductLabel(std::string_view label) {
  ProductLabelParts parts;
  std::string s = Trim(label);
  std::string upper = Upper(s);
  if (EndsWith(upper, "-SHARED")) {
    parts.shared = true;
    s.resize(s.size() - 7);
    upper.resize(s.size());
  }
  const size_t pos = upper.rfind("-MIG-");
  if (pos != std::string::npos && LooksLikeProfile(std::string_view(s).substr(pos + 5))) {
    parts.mig_profile = s.substr(pos + 5);
    s.resize(pos);
  }
  parts.base = Sanitise(s);
  return parts;
}

std::string NormalizeProductLabel(std::string_view label) {
  std::string key = Upper(SplitProductLabel(label).base);
  for (std::string_view prefix : {"NVIDIA-", "TESLA-"}) {
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0) {
      key.erase(0, prefix.size());
      break;
    }
  }
  return key;
}

Result<MigCatalog> MigCatalog::Parse(std::string_view text, std::string_view source_name) {
  const std::string src(source_name);
  json doc;
  DuplicateKeyFinder duplicates;
  try {
    doc = json::parse(text.begin(), text.end(), duplicates.Callback());
  } catch (const json::exception& e) {
    size_t byte = text.size();
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) byte = pe->byte > 0 ? pe->byte - 1 : 0;
    return Status::Error(src + ": " + LineColumn(text, byte) + ": invalid JSON: " + e.what());
  }
  if (!duplicates.error().empty()) return Status::Error(src + ": " + duplicates.error());

  Fields top(doc, src);
  MIG_RETURN_IF_ERROR(top.Check({"version", "models"}, {"notes"}));
  int64_t version = 0;
  MIG_RETURN_IF_ERROR(top.Int("version", 0, std::numeric_limits<int>::max(), &version));
  if (version != 1) return top.Error("version", "unsupported version " + std::to_string(version) + " (expected 1)");
  MIG_RETURN_IF_ERROR(CheckNotes(doc, src));
  const json& models = doc.at("models");
  if (!models.is_array() || models.empty()) return top.Error("models", "must be a non-empty list of models");

  MigCatalog catalog;
  for (size_t i = 0; i < models.size(); ++i) {
    GpuModel m;
    MIG_RETURN_IF_ERROR(ParseModel(models[i], src + ": models[" + std::to_string(i) + "]", &m));
    if (catalog.FindModel(m.id) != nullptr) {
      return Status::Error(src + ": models[" + std::to_string(i) + "]: field \"id\": " + Quote(m.id) +
                           " is used by an earlier model");
    }
    catalog.models_.push_back(std::move(m));
  }
  catalog.BuildIndexes();
  return catalog;
}

void MigCatalog::BuildIndexes() {
  for (size_t i = 0; i < models_.size(); ++i) {
    const GpuModel& m = models_[i];
    for (const std::string& label : m.product_labels) {
      exact_labels_[label].push_back(i);
      std::vector<size_t>& normalized = normalized_labels_[NormalizeProductLabel(label)];
      if (std::find(normalized.begin(), normalized.end(), i) == normalized.end()) normalized.push_back(i);
    }
    if (!m.mig_capable) continue;
    for (const MigProfile& p : m.profiles) profile_names_.insert(p.name);
  }
}

const MigCatalog& MigCatalog::Builtin() {
  // Never destroyed: look-ups may run during static destruction elsewhere.
  static const MigCatalog* const builtin = [] {
    Result<MigCatalog> parsed = Parse(BuiltinCatalogJson(), "data/mig-catalog.json (built into the binary)");
    if (!parsed.ok()) {
      std::fprintf(stderr, "kubeon: the built-in MIG catalog is invalid: %s\n", parsed.status().message().c_str());
      std::abort();
    }
    return new MigCatalog(std::move(parsed).value());
  }();
  return *builtin;
}

const GpuModel* MigCatalog::FindModel(std::string_view id) const {
  for (const GpuModel& m : models_) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

const GpuModel* MigCatalog::MatchProduct(std::string_view product_label, int64_t memory_mib) const {
  const ProductLabelParts parts = SplitProductLabel(product_label);
  auto exact = exact_labels_.find(std::string(product_label));
  if (exact != exact_labels_.end()) return PickCandidate(exact->second, parts, memory_mib);
  auto normalized = normalized_labels_.find(NormalizeProductLabel(product_label));
  if (normalized == normalized_labels_.end()) return nullptr;
  return PickCandidate(normalized->second, parts, memory_mib);
}

const GpuModel* MigCatalog::PickCandidate(const std::vector<size_t>& candidates, const ProductLabelParts& parts,
                                          int64_t memory_mib) const {
  std::vector<size_t> pool;
  if (!parts.mig_profile.empty()) {
    for (size_t i : candidates) {
      if (FindProfile(models_[i], parts.mig_profile) != nullptr) pool.push_back(i);
    }
  }
  if (pool.empty()) pool = candidates;  // no MIG suffix, or no candidate offers it
  if (pool.size() == 1 || memory_mib <= 0) return &models_[pool.front()];
  const GpuModel* best = nullptr;
  int64_t best_distance = 0;
  for (size_t i : pool) {
    const GpuModel& m = models_[i];
    const MigProfile* p = parts.mig_profile.empty() ? nullptr : FindProfile(m, parts.mig_profile);
    const int64_t reference = p != nullptr ? p->memory_mib : m.memory_mib;
    const int64_t distance = reference > memory_mib ? reference - memory_mib : memory_mib - reference;
    if (best == nullptr || distance < best_distance) {
      best = &m;
      best_distance = distance;
    }
  }
  return best;
}

bool MigCatalog::ProfileExists(std::string_view profile_name) const {
  return profile_names_.count(std::string(profile_name)) > 0;
}

const MigProfile* FindProfile(const GpuModel& m, std::string_view name) {
  const int i = ProfileIndex(m, name);
  return i < 0 ? nullptr : &m.profiles[static_cast<size_t>(i)];
}

int ProfileIndex(const GpuModel& m, std::string_view name) {
  for (size_t i = 0; i < m.profiles.size(); ++i) {
    if (m.profiles[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace kubeon::mig
