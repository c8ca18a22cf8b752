// See custom_resources.h.
#include "custom_resources.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace kubeon::kubesim {

namespace {

// The boolean `key` of `obj`; false when absent or not a boolean.
bool BoolAt(const json& obj, const char* key) {
  const json* v = obj.is_object() && obj.contains(key) ? &obj[key] : nullptr;
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

const std::vector<std::string> kCustomVerbs = {"delete", "deletecollection", "get", "list",
                                               "patch",  "create",           "update", "watch"};
const std::vector<std::string> kStatusVerbs = {"get", "patch", "update"};

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return false;
    }
  }
  return s.front() != '-' && s.back() != '-';
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> Strings(const json* list) {
  std::vector<std::string> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& v : *list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<PrinterColumn> ColumnsOf(const json& version) {
  std::vector<PrinterColumn> out;
  const json* cols = Find(version, {"additionalPrinterColumns"});
  if (cols == nullptr || !cols->is_array()) {
    return {{"Age", "date", "", "", 0, ".metadata.creationTimestamp"}};
  }
  for (const auto& c : *cols) {
    if (!c.is_object()) continue;
    PrinterColumn p;
    p.name = Str(c, {"name"});
    p.type = Str(c, {"type"});
    p.format = Str(c, {"format"});
    p.description = Str(c, {"description"});
    p.priority = c.contains("priority") && c["priority"].is_number_integer() ? c["priority"].get<int>() : 0;
    p.json_path = Str(c, {"jsonPath"});
    out.push_back(p);
  }
  return out;
}

}  // namespace

const json& CustomInfo::Schema(const std::string& version) const {
  static const json kNull;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i] == version) return schemas[i];
  }
  return kNull;
}

const std::vector<PrinterColumn>& CustomInfo::Columns(const std::string& version) const {
  static const std::vector<PrinterColumn> kNone;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i] == version) return columns[i];
  }
  return kNone;
}

std::vector<std::string> CrdProblems(const json& crd) {
  std::vector<std::string> out;
  const std::string group = Str(crd, {"spec", "group"});
  const std::string plural = Str(crd, {"spec", "names", "plural"});
  const std::string kind = Str(crd, {"spec", "names", "kind"});
  const std::string scope = Str(crd, {"spec", "scope"});
  if (group.empty()) out.push_back("spec.group: Required value");
  else if (group.find('.') == std::string::npos) {
    out.push_back("spec.group: Invalid value: \"" + group + "\": should be a domain with at least one dot");
  }
  if (plural.empty()) out.push_back("spec.names.plural: Required value");
  else if (!IsDnsLabel(plural)) {
    out.push_back("spec.names.plural: Invalid value: \"" + plural +
                  "\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'");
  }
  if (kind.empty()) out.push_back("spec.names.kind: Required value");
  if (scope != "Cluster" && scope != "Namespaced") {
    out.push_back("spec.scope: Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"");
  }
  if (!group.empty() && !plural.empty() && Name(crd) != plural + "." + group) {
    out.push_back("metadata.name: Invalid value: \"" + Name(crd) + "\": must be spec.names.plural+\".\"+spec.group");
  }
  const json* versions = Find(crd, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array() || versions->empty()) {
    out.push_back("spec.versions: Invalid value: null: must have exactly one version marked as storage version");
    return out;
  }
  int storage = 0;
  for (size_t i = 0; i < versions->size(); ++i) {
    const json& v = (*versions)[i];
    std::string name = Str(v, {"name"});
    if (!IsDnsLabel(name)) {
      out.push_back("spec.versions[" + std::to_string(i) + "].name: Invalid value: \"" + name +
                    "\": a DNS-1035 label must consist of lower case alphanumeric characters or '-'");
    }
    if (BoolAt(v, "storage")) ++storage;
  }
  if (storage != 1) {
    out.push_back("spec.versions: Invalid value: " + versions->dump() +
                  ": must have exactly one version marked as storage version");
  }
  return out;
}

std::vector<std::string> CustomTypes::Sync(const Store& store) {
  std::vector<const Entry*> next;
  std::lock_guard<std::mutex> lock(mu_);
  store.ForEach(kCrds, "", "", [&](const std::string&, const json& crd) {
    if (!CrdProblems(crd).empty() || !crd.contains("spec")) return true;
    const json& spec = crd["spec"];
    for (const Entry* e : active_) {
      if (e->info.crd_name == Name(crd) && e->spec == spec) {
        next.push_back(e);
        return true;
      }
    }
    Entry e;
    e.spec = spec;
    e.info.crd_name = Name(crd);
    ResourceType& t = e.type;
    t.group = Str(crd, {"spec", "group"});
    t.plural = Str(crd, {"spec", "names", "plural"});
    t.kind = Str(crd, {"spec", "names", "kind"});
    t.singular = Str(crd, {"spec", "names", "singular"});
    if (t.singular.empty()) t.singular = Lower(t.kind);
    t.namespaced = Str(crd, {"spec", "scope"}) == "Namespaced";
    t.short_names = Strings(::kubeon::kubesim::Find(crd, {"spec", "names", "shortNames"}));
    t.categories = Strings(::kubeon::kubesim::Find(crd, {"spec", "names", "categories"}));
    t.verbs = kCustomVerbs;
    // The storage version first (it is what the store holds), then the
    // other served versions in the CRD's order.
    std::vector<const json*> order;
    for (const auto& v : spec["versions"]) {
      if (BoolAt(v, "storage")) order.insert(order.begin(), &v);
      else order.push_back(&v);
    }
    for (const json* v : order) {
      if (!BoolAt(*v, "served")) continue;
      t.versions.push_back(Str(*v, {"name"}));
      e.info.versions.push_back(t.versions.back());
      const json* schema = ::kubeon::kubesim::Find(*v, {"schema", "openAPIV3Schema"});
      e.info.schemas.push_back(schema != nullptr ? *schema : json());
      e.info.columns.push_back(ColumnsOf(*v));
      if (t.subresources.empty() && ::kubeon::kubesim::Find(*v, {"subresources", "status"}) != nullptr) {
        t.subresources.push_back({"status", "", "", "", kStatusVerbs});
      }
    }
    if (t.versions.empty() || ::kubeon::kubesim::FindByKind(t.group, t.kind) != nullptr ||
        ::kubeon::kubesim::FindByStoreId(t.StoreId()) != nullptr) {  // the built-ins
      return true;
    }
    for (const Entry* other : next) {
      if (other->type.group == t.group && other->type.kind == t.kind) return true;
    }
    entries_.push_back(std::move(e));
    Entry& added = entries_.back();
    added.type.custom = &added.info;
    next.push_back(&added);
    return true;
  });
  std::vector<std::string> gone;
  for (const Entry* old : active_) {
    bool kept = std::any_of(next.begin(), next.end(), [&](const Entry* e) {
      return e->type.StoreId() == old->type.StoreId();
    });
    if (!kept) gone.push_back(old->type.StoreId());
  }
  active_ = std::move(next);
  return gone;
}

bool CustomTypes::Serves(const std::string& crd_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(active_.begin(), active_.end(), [&](const Entry* e) { return e->info.crd_name == crd_name; });
}

const ResourceType* CustomTypes::Find(const std::string& group, const std::string& version,
                                      const std::string& plural) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry* e : active_) {
    if (e->type.group == group && e->type.plural == plural && e->type.Serves(version)) return &e->type;
  }
  return nullptr;
}

const ResourceType* CustomTypes::FindByStoreId(const std::string& store_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry* e : active_) {
    if (e->type.StoreId() == store_id) return &e->type;
  }
  return nullptr;
}

const ResourceType* CustomTypes::FindByKind(const std::string& group, const std::string& kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry* e : active_) {
    if (e->type.group == group && e->type.kind == kind) return &e->type;
  }
  return nullptr;
}

std::vector<const ResourceType*> CustomTypes::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const ResourceType*> out;
  for (const Entry* e : active_) out.push_back(&e->type);
  return out;
}

std::vector<const ResourceType*> ServedResources(const CustomTypes* custom) {
  std::vector<const ResourceType*> out;
  for (const auto& r : AllResources()) out.push_back(&r);
  if (custom != nullptr) {
    for (const ResourceType* r : custom->All()) out.push_back(r);
  }
  return out;
}

const ResourceType* FindServed(const CustomTypes* custom, const std::string& group, const std::string& version,
                               const std::string& plural) {
  const ResourceType* t = FindResource(group, version, plural);
  return t != nullptr || custom == nullptr ? t : custom->Find(group, version, plural);
}

const ResourceType* FindServedByStoreId(const CustomTypes* custom, const std::string& store_id) {
  const ResourceType* t = FindByStoreId(store_id);
  return t != nullptr || custom == nullptr ? t : custom->FindByStoreId(store_id);
}

const ResourceType* FindServedByKind(const CustomTypes* custom, const std::string& group, const std::string& kind) {
  const ResourceType* t = FindByKind(group, kind);
  return t != nullptr || custom == nullptr ? t : custom->FindByKind(group, kind);
}

}  // namespace kubeon::kubesim
