// See snapshot_json.h.
//
// The List is read with simdjson's on-demand parser: one pass over the text,
// each item's fields copied straight into the model (no document tree, so
// memory is the text, simdjson's index of it and the Cluster).  simdjson
// reports malformed JSON and type mismatches as exceptions inside this file;
// they are turned into a Status naming the item and field (see FieldError).
#include "model/snapshot_json.h"
#include "model/snapshot_stream.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>

#include <simdjson.h>

#include "model/first_index.h"
#include "model/input_file.h"
#include "model/json_nesting.h"
#include "model/json_type_name.h"
#include "model/prices.h"
#include "model/projected_capacity.h"
#include "model/run_parts.h"

namespace kubeon::model {
// See snapshot_json.h.  Bytes of 0x80 and above pass unchanged (values were
// checked as UTF-8 by simdjson; a top-level key quoted by the stream reader
// may not be: the CLI's stderr filter escapes such bytes, net/printable.h).
std::string OneLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 0xf];
    }
  }
  return out;
}

namespace {

namespace od = simdjson::ondemand;

// The path of a field inside an item ("spec.containers[2].resources"),
// built only when an error is reported.
struct Path {
  const Path* parent = nullptr;
  std::string_view name;  // a field name, or "" for an array element
  size_t index = 0;       // the element's index when name is ""

  Path Field(std::string_view n) const { return Path{this, n, 0}; }
  Path Element(size_t i) const { return Path{this, {}, i}; }
  std::string Render() const {
    std::string out = parent ? parent->Render() : "";
    if (!name.empty()) {
      if (!out.empty()) out += '.';
      out.append(name);
    } else if (parent) {
      out += "[" + std::to_string(index) + "]";
    }
    return out;
  }
};
const Path kItem{};

// A field with a wrong JSON type or value; caught per item and reported with
// the item's prefix.
struct FieldError {
  std::string message;
};

[[noreturn]] void WrongType(const Path& path, const char* expected, od::json_type got) {
  throw FieldError{path.Render() + ": expected " + expected + ", got " + JsonTypeName(got)};
}

// The text of a scalar token as written (numbers: "3", "1e3").
std::string_view Token(od::value& v) {
  std::string_view t = v.raw_json_token();
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

od::json_type TypeOf(od::value& v) { return v.type(); }

// The value of an array element or field; malformed JSON throws.
od::value Unwrap(simdjson::simdjson_result<od::value> r) {
  od::value v;
  if (const simdjson::error_code e = std::move(r).get(v); e != simdjson::SUCCESS) throw simdjson::simdjson_error(e);
  return v;
}

// A string field; any other type reads as "" (as kubectl-shaped input never
// has one there, and a missing value is "").
std::string Str(od::value v) {
  switch (TypeOf(v)) {
    case od::json_type::string:
      return std::string(std::string_view(v.get_string()));
    case od::json_type::boolean:
      (void)bool(v.get_bool());  // throws on a malformed literal ("tru")
      return "";
    case od::json_type::null:
      if (!bool(v.is_null())) throw simdjson::simdjson_error(simdjson::N_ATOM_ERROR);
      return "";
    case od::json_type::number:
      (void)double(v.get_double());  // throws on a malformed number
      return "";
    default:
      return "";
  }
}

// Calls fn(key, value) for each member of an object value; null is an empty
// object, any other type is an error.
template <typename Fn>
void ForEachField(od::value v, const Path& path, Fn&& fn) {
  const od::json_type t = v.type();
  if (t == od::json_type::null) return;
  if (t != od::json_type::object) WrongType(path, "an object", t);
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    fn(key, field.value());
  }
}

// Calls fn(index, value) for each element of an array value; null is an
// empty array, any other type is an error.
template <typename Fn>
void ForEachElement(od::value v, const Path& path, Fn&& fn) {
  const od::json_type t = v.type();
  if (t == od::json_type::null) return;
  if (t != od::json_type::array) WrongType(path, "an array", t);
  size_t i = 0;
  for (auto element : v.get_array()) fn(i++, Unwrap(element));
}

// The buffers below are kept between items, except when one grew past this
// many elements (an item with a huge array or map): then it is released, so
// that a long-running reader (the controller) does not hold the largest item's
// worth of memory.
constexpr size_t kKeptBufferElements = 4096;

template <typename T>
void ReleaseIfLarge(std::vector<T>* buffer) {
  buffer->clear();
  if (buffer->capacity() > kKeptBufferElements) std::vector<T>().swap(*buffer);
}

// The object elements of an array value as T, each filled by
// fill(T*, key, value, element_path) per member; elements of other types are
// skipped.  They are collected in a buffer kept between calls and moved into
// a vector of the exact size: one allocation and no spare capacity per array
// (a pod's three tolerations took a vector of four).
// REQUIRES: fill does not read an array of the same T.
template <typename T, typename Fill>
std::vector<T> ObjectElements(od::value v, const Path& path, Fill&& fill) {
  thread_local std::vector<T> read;
  read.clear();
  ForEachElement(v, path, [&](size_t i, od::value e) {
    if (TypeOf(e) != od::json_type::object) return;
    const Path at = path.Element(i);
    T t;
    ForEachField(e, at, [&](std::string_view k, od::value x) { fill(&t, k, x, at); });
    read.push_back(std::move(t));
  });
  std::vector<T> out(std::make_move_iterator(read.begin()), std::make_move_iterator(read.end()));
  ReleaseIfLarge(&read);
  return out;
}

bool Bool(od::value v, const Path& path, bool absent) {
  const od::json_type t = v.type();
  if (t == od::json_type::null) return absent;
  if (t != od::json_type::boolean) WrongType(path, "a boolean", t);
  return v.get_bool();
}

// An integer in [lo, hi]; null reads as `absent`.
int64_t Int(od::value v, const Path& path, int64_t absent, int64_t lo, int64_t hi) {
  const od::json_type t = v.type();
  if (t == od::json_type::null) return absent;
  if (t != od::json_type::number) WrongType(path, "an integer", t);
  int64_t n = 0;
  if (v.get_int64().get(n) != simdjson::SUCCESS || n < lo || n > hi) {
    throw FieldError{path.Render() + ": " + std::string(Token(v)) + " is not an integer from " + std::to_string(lo) +
                     " to " + std::to_string(hi)};
  }
  return n;
}

constexpr int64_t kIntMax = 2147483647;

// (*m)[k] = value.  Keys that come in order (the API server and kubectl
// write maps sorted) go in at the end without a search from the root.
template <typename Map, typename V>
void SetField(Map* m, std::string_view k, V&& value) {
  if (m->empty() || std::string_view(std::prev(m->end())->first) < k) {
    m->emplace_hint(m->end(), std::string(k), std::forward<V>(value));
  } else {
    (*m)[std::string(k)] = std::forward<V>(value);
  }
}

// The views stay valid while the item's document lives (simdjson unescapes
// keys and strings into the parser's buffer); Labels::FromEntries copies them
// into two exactly sized arrays.
Labels StringMap(od::value v, const Path& path) {
  thread_local std::vector<std::pair<std::string_view, std::string_view>> entries;
  entries.clear();
  ForEachField(v, path, [&](std::string_view k, od::value x) {
    if (TypeOf(x) == od::json_type::string) {
      entries.emplace_back(k, std::string_view(x.get_string()));
    } else {
      Str(x);  // checks the literal
    }
  });
  Labels out = Labels::FromEntries(&entries);
  ReleaseIfLarge(&entries);
  return out;
}

std::vector<std::string> Strings(od::value v, const Path& path) {
  std::vector<std::string> out;
  ForEachElement(v, path, [&](size_t, od::value x) {
    if (TypeOf(x) == od::json_type::string) {
      out.emplace_back(std::string_view(x.get_string()));
    } else {
      Str(x);  // checks the literal
    }
  });
  return out;
}

// An int-or-string field (maxSurge, minAvailable): "" when null, else an
// integer from 0 to kIntMax or a whole percentage ("25%"), as the API server
// accepts them; anything else ("nan%", "1e400", -1) is an error naming the field.
std::string IntOrString(od::value v, const Path& path) {
  const od::json_type t = v.type();
  if (t == od::json_type::null) return "";
  if (t == od::json_type::number) return std::to_string(Int(v, path, 0, 0, kIntMax));
  if (t != od::json_type::string) WrongType(path, "an integer or a string", t);
  std::string text(std::string_view(v.get_string()));
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '%') digits.remove_suffix(1);
  int64_t n = 0;
  if (!ParseWholeQuantity(digits, &n) || n > kIntMax) {
    throw FieldError{path.Render() + ": \"" + text + "\" is not an integer from 0 to " + std::to_string(kIntMax) +
                     " or a percentage like \"25%\""};
  }
  return text;
}

// metadata.ownerReferences: the one with controller true (which must have a
// kind and a name).
std::optional<OwnerRef> ControllerOf(od::value refs, const Path& path) {
  std::optional<OwnerRef> out;
  ForEachElement(refs, path, [&](size_t i, od::value ref) {
    const Path at = path.Element(i);
    OwnerRef r;
    ForEachField(ref, at, [&](std::string_view k, od::value x) {
      if (k == "apiVersion") r.api_version = Str(x);
      else if (k == "kind") r.kind = Str(x);
      else if (k == "name") r.name = Str(x);
      else if (k == "uid") r.uid = Str(x);
      else if (k == "controller") r.controller = Bool(x, at.Field("controller"), false);
    });
    if (!r.controller) return;
    // The API server requires both; without them the workload could not be named.
    if (r.kind.empty()) throw FieldError{at.Field("kind").Render() + " missing (the controller's kind)"};
    if (r.name.empty()) throw FieldError{at.Field("name").Render() + " missing (the controller's name)"};
    if (!out) out = std::move(r);
  });
  return out;
}

bool IsGpuResource(std::string_view name) { return name.substr(0, 11) == "nvidia.com/"; }

// "" when `text` is a whole number from 0 to `cap` (stored in *out), else why
// not: "\"500m\" is not a whole number", "\"2000000000\" is more than 64 <what>".
std::string QuantityProblem(std::string_view text, int64_t cap, const char* what, int64_t* out) {
  int64_t v = 0;
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (ParseWholeQuantity(text, &v) && v <= cap) {
    *out = v;
    return "";
  }
  if (!digits) return "\"" + std::string(text) + "\" is not a whole number";
  return "\"" + std::string(text) + "\" is more than " + std::to_string(cap) + " " + what + " (the cap)";
}

// Integer resources under "nvidia.com/" from a resource map, each at most
// kMaxGpuResourceQuantity; other values are reported through *bad.
std::map<std::string, int64_t> GpuQuantities(od::value v, const Path& path, std::string* bad) {
  std::map<std::string, int64_t> out;
  ForEachField(v, path, [&](std::string_view k, od::value x) {
    if (!IsGpuResource(k)) return;
    const od::json_type t = x.type();
    std::string text = t == od::json_type::string ? std::string(std::string_view(x.get_string()))
                       : t == od::json_type::number || t == od::json_type::boolean ? std::string(Token(x))
                       : t == od::json_type::null ? "null"
                       : t == od::json_type::array ? "[...]" : "{...}";
    int64_t n = 0;
    if (std::string why = QuantityProblem(text, kMaxGpuResourceQuantity, "of a GPU resource", &n); !why.empty()) {
      if (bad->empty()) *bad = std::string(k) + ": " + why;
      return;
    }
    SetField(&out, k, n);
  });
  return out;
}


std::string ItemPrefix(std::string_view source, size_t index, const std::string& kind, const std::string& name) {
  std::string p = std::string(source) + ": items[" + std::to_string(index) + "] (" + OneLine(kind);
  if (!name.empty()) p += " " + OneLine(name);
  return p + ")";
}

// The metadata fields every kind reads.
struct Metadata {
  std::string name, namespace_, uid;
  Labels labels, annotations;
  std::optional<OwnerRef> controller;
  std::vector<std::string> managers;  // managedFields[].manager, in order, no duplicates
};

void ParseMetadata(od::value v, bool managers, Metadata* md) {
  const Path path = kItem.Field("metadata");
  ForEachField(v, path, [&](std::string_view k, od::value x) {
    if (k == "name") md->name = Str(x);
    else if (k == "namespace") md->namespace_ = Str(x);
    else if (k == "uid") md->uid = Str(x);
    else if (k == "labels") md->labels = StringMap(x, path.Field(k));
    else if (k == "annotations") md->annotations = StringMap(x, path.Field(k));
    else if (k == "ownerReferences") md->controller = ControllerOf(x, path.Field(k));
    else if (k == "managedFields" && managers) {
      ForEachElement(x, path.Field(k), [&](size_t, od::value f) {
        if (TypeOf(f) != od::json_type::object) return;
        for (auto field : f.get_object()) {
          if (std::string_view(field.unescaped_key()) != "manager") continue;
          const std::string m = Str(field.value());
          if (!m.empty() && std::find(md->managers.begin(), md->managers.end(), m) == md->managers.end()) {
            md->managers.push_back(m);
          }
        }
      });
    }
  });
}

std::string OrDefault(std::string s) { return s.empty() ? "default" : s; }

// The node's facts from its labels and annotations.  An invalid price
// annotation is a warning (anyone who may write the node can set it; the
// node falls back to the prices file); invalid GPU labels are errors.
Status FinishNode(Node* node, std::vector<std::string>* warnings) {
  auto label = [&](const char* k) -> std::string {
    return std::string(node->labels.Get(k));
  };
  node->instance_type = label("node.kubernetes.io/instance-type");
  if (node->instance_type.empty()) node->instance_type = label("beta.kubernetes.io/instance-type");
  node->gpu_product = label("nvidia.com/gpu.product");
  node->mig_capable = label("nvidia.com/mig.capable") == "true";
  node->mig_strategy = label("nvidia.com/mig.strategy");
  int64_t v = 0;
  if (std::string c = label("nvidia.com/gpu.count"); !c.empty()) {
    if (std::string why = QuantityProblem(c, kMaxGpusPerNode, "GPUs per node", &v); !why.empty()) {
      return Status::Error("label nvidia.com/gpu.count: " + why);
    }
    node->gpu_count = static_cast<int>(v);
  } else if (auto it = node->capacity.find(kGpuResource); it != node->capacity.end()) {
    if (it->second > kMaxGpusPerNode) {
      return Status::Error("status.capacity.nvidia.com/gpu: " + std::to_string(it->second) + " is more than " +
                           std::to_string(kMaxGpusPerNode) +
                           " GPUs per node (the cap; the node has no nvidia.com/gpu.count label)");
    }
    node->gpu_count = static_cast<int>(it->second);
  }
  if (std::string m = label("nvidia.com/gpu.memory"); !m.empty()) {
    if (std::string why = QuantityProblem(m, kMaxGpuMemoryMib, "MiB per GPU", &v); !why.empty()) {
      return Status::Error("label nvidia.com/gpu.memory: " + why);
    }
    node->gpu_memory_mib = v;
  }
  if (auto it = node->annotations.find(kPriceAnnotation); it != node->annotations.end()) {
    double price = 0;
    if (ParseHourlyPriceUsd(it->second, &price)) {
      node->hourly_price_usd = price;
    } else {
      warnings->push_back(std::string("annotation ") + kPriceAnnotation + ": \"" + std::string(it->second) + "\" is not " +
                          HourlyPriceRule() + "; ignored (the node is priced from the prices file, if at all)");
    }
  }
  return Status::Ok();
}

// The fields of a Node other than metadata.
Status ParseNodeField(std::string_view k, od::value x, Node* node) {
  std::string bad;
  if (k == "spec") {
    const Path spec = kItem.Field("spec");
    ForEachField(x, spec, [&](std::string_view f, od::value y) {
      if (f == "unschedulable") {
        node->unschedulable = Bool(y, spec.Field(f), false);
      } else if (f == "taints") {
        ForEachElement(y, spec.Field(f), [&](size_t i, od::value t) {
          Taint taint;
          ForEachField(t, spec.Field(f).Element(i), [&](std::string_view g, od::value z) {
            if (g == "key") taint.key = Str(z);
            else if (g == "value") taint.value = Str(z);
            else if (g == "effect") taint.effect = Str(z);
          });
          node->taints.push_back(std::move(taint));
        });
      }
    });
  } else if (k == "status") {
    const Path status = kItem.Field("status");
    ForEachField(x, status, [&](std::string_view f, od::value y) {
      if (f == "conditions") {
        ForEachElement(y, status.Field(f), [&](size_t i, od::value c) {
          std::string type, value;
          ForEachField(c, status.Field(f).Element(i), [&](std::string_view g, od::value z) {
            if (g == "type") type = Str(z);
            else if (g == "status") value = Str(z);
          });
          if (type == "Ready") node->ready = value == "True";
        });
      } else if (f == "capacity") {
        node->capacity = GpuQuantities(y, status.Field(f), &bad);
      } else if (f == "allocatable") {
        node->allocatable = GpuQuantities(y, status.Field(f), &bad);
      }
    });
  }
  if (!bad.empty()) return Status::Error("status: " + bad);
  return Status::Ok();
}

Status ParseContainers(od::value list, const Path& path, bool init, Pod* pod) {
  Status s;
  ForEachElement(list, path, [&](size_t i, od::value c) {
    const Path at = path.Element(i);
    ContainerResources cr;
    cr.init = init;
    std::string bad;
    ForEachField(c, at, [&](std::string_view k, od::value x) {
      if (k == "name") {
        cr.name = Str(x);
      } else if (k == "resources") {
        ForEachField(x, at.Field(k), [&](std::string_view r, od::value y) {
          if (r == "requests") cr.requests = GpuQuantities(y, at.Field(k).Field(r), &bad);
          else if (r == "limits") cr.limits = GpuQuantities(y, at.Field(k).Field(r), &bad);
        });
      }
    });
    if (!bad.empty() && s.ok()) {
      s = Status::Error(std::string(init ? "initContainer " : "container ") + "\"" + cr.name + "\": " + bad);
    }
    pod->containers.push_back(std::move(cr));
  });
  return s;
}
// Effective amounts per GPU resource: max(sum of app containers, max of init
// containers).  Each container's amount is at most kMaxGpuResourceQuantity
// (GpuQuantities) and the sum is checked as it grows, so it cannot overflow;
// a pod over kMaxGpusPerPod whole GPUs or kMaxGpuResourceQuantity of another
// GPU resource is an error.
Status ComputePodGpus(Pod* pod) {
  std::map<std::string, int64_t> app, init;
  for (const auto& c : pod->containers) {
    std::map<std::string, int64_t> eff = c.limits;
    for (const auto& [k, v] : c.requests) eff[k] = v;  // request wins; limit alone implies request
    for (const auto& [k, v] : eff) {
      if (c.init) {
        init[k] = std::max(init[k], v);
      } else if ((app[k] += v) > kMaxGpuResourceQuantity) {
        return Status::Error(k + ": the containers request more than " + std::to_string(kMaxGpuResourceQuantity) +
                             " in all (the cap on a GPU resource per pod)");
      }
    }
  }
  for (const auto& [k, v] : init) app[k] = std::max(app[k], v);
  if (auto it = app.find(kGpuResource); it != app.end() && it->second > kMaxGpusPerPod) {
    return Status::Error(std::string(kGpuResource) + ": " + std::to_string(it->second) + " GPUs is more than " +
                         std::to_string(kMaxGpusPerPod) + " GPUs per pod (the cap)");
  }
  for (const auto& [k, v] : app) {
    if (v == 0) continue;
    if (k == kGpuResource) {
      pod->gpus = v;
    } else {
      pod->gpu_slices[k] = v;
    }
  }
  return Status::Ok();
}

std::vector<NodeSelectorRequirement> Requirements(od::value v, const Path& path) {
  return ObjectElements<NodeSelectorRequirement>(
      v, path, [](NodeSelectorRequirement* req, std::string_view k, od::value x, const Path& at) {
        if (k == "key") req->key = Str(x);
        else if (k == "operator") req->op = Str(x);
        else if (k == "values") req->values = Strings(x, at.Field(k));
      });
}

// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
std::vector<NodeSelectorTerm> RequiredNodeTerms(od::value affinity, const Path& path) {
  std::vector<NodeSelectorTerm> out;
  ForEachField(affinity, path, [&](std::string_view a, od::value na) {
    if (a != "nodeAffinity") return;
    const Path p1 = path.Field(a);
    ForEachField(na, p1, [&](std::string_view b, od::value req) {
      if (b != "requiredDuringSchedulingIgnoredDuringExecution") return;
      const Path p2 = p1.Field(b);
      ForEachField(req, p2, [&](std::string_view c, od::value terms) {
        if (c != "nodeSelectorTerms") return;
        const Path p3 = p2.Field(c);
        ForEachElement(terms, p3, [&](size_t i, od::value t) {
          if (TypeOf(t) != od::json_type::object) return;
          NodeSelectorTerm term;
          ForEachField(t, p3.Element(i), [&](std::string_view k, od::value x) {
            if (k == "matchExpressions") term.match_expressions = Requirements(x, p3.Element(i).Field(k));
            else if (k == "matchFields") term.match_fields = Requirements(x, p3.Element(i).Field(k));
          });
          out.push_back(std::move(term));
        });
      });
    });
  });
  return out;
}

std::vector<Toleration> Tolerations(od::value v, const Path& path) {
  std::vector<Toleration> out =
      ObjectElements<Toleration>(v, path, [](Toleration* tol, std::string_view k, od::value x, const Path&) {
        if (k == "key") tol->key = Str(x);
        else if (k == "operator") tol->op = Str(x);
        else if (k == "value") tol->value = Str(x);
        else if (k == "effect") tol->effect = Str(x);
      });
  for (auto& tol : out) {
    if (tol.op.empty()) tol.op = "Equal";
  }
  return out;
}

// A volume cluster-autoscaler may call local storage: hostPath, and emptyDir
// unless its medium is Memory.
struct VolumeFacts {
  std::string name;
  bool local = false;
};

std::vector<VolumeFacts> Volumes(od::value v, const Path& path) {
  return ObjectElements<VolumeFacts>(v, path, [](VolumeFacts* f, std::string_view k, od::value x, const Path& at) {
    if (k == "name") {
      f->name = Str(x);
    } else if (k == "hostPath") {
      f->local = true;
    } else if (k == "emptyDir") {
      std::string medium;
      if (TypeOf(x) == od::json_type::object) {
        ForEachField(x, at.Field(k), [&](std::string_view m, od::value y) {
          if (m == "medium") medium = Str(y);
        });
      }
      if (medium != "Memory") f->local = true;
    }
  });
}

// Local volumes less those the annotation
// cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes lists (comma separated).
std::vector<std::string> LocalVolumes(const std::vector<VolumeFacts>& volumes, const Labels& annotations) {
  std::set<std::string> allowed;
  if (auto a = annotations.find("cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"); a != annotations.end()) {
    size_t start = 0;
    while (start <= a->second.size()) {
      size_t comma = a->second.find(',', start);
      if (comma == std::string::npos) comma = a->second.size();
      std::string name(a->second.substr(start, comma - start));
      while (!name.empty() && name.front() == ' ') name.erase(0, 1);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!name.empty()) allowed.insert(name);
      start = comma + 1;
    }
  }
  std::vector<std::string> out;
  for (const auto& v : volumes) {
    if (v.local && !allowed.count(v.name)) out.push_back(v.name);
  }
  return out;
}

// One field of a pod spec or pod template spec that Placement holds; false
// when `k` is not one.
bool PlacementField(std::string_view k, od::value x, const Path& spec, Placement* p) {
  if (k == "nodeSelector") {
    p->node_selector = StringMap(x, spec.Field(k));
  } else if (k == "tolerations") {
    p->tolerations = Tolerations(x, spec.Field(k));
  } else if (k == "affinity") {
    p->required_node_terms = RequiredNodeTerms(x, spec.Field(k));
  } else {
    return false;
  }
  return true;
}

Status ParsePod(od::object item, Metadata* md, Pod* pod) {
  Placement placement;
  std::vector<VolumeFacts> volumes;
  Pod init_part;  // init containers, placed before the app containers
  Status containers_status, init_status;
  for (auto field : item) {
    std::string_view k = field.unescaped_key();
    if (k == "metadata") {
      ParseMetadata(field.value(), false, md);
    } else if (k == "spec") {
      const Path spec = kItem.Field("spec");
      ForEachField(field.value(), spec, [&](std::string_view f, od::value x) {
        if (PlacementField(f, x, spec, &placement)) return;
        if (f == "volumes") {
          volumes = Volumes(x, spec.Field(f));
        } else if (f == "terminationGracePeriodSeconds") {
          if (TypeOf(x) == od::json_type::number) {
            pod->termination_grace_period_seconds = Int(x, spec.Field(f), 30, 0, kIntMax);
          }
        } else if (f == "nodeName") {
          pod->node_name = Str(x);
        } else if (f == "initContainers") {
          init_status = ParseContainers(x, spec.Field(f), true, &init_part);
        } else if (f == "containers") {
          containers_status = ParseContainers(x, spec.Field(f), false, pod);
        }
      });
    } else if (k == "status") {
      ForEachField(field.value(), kItem.Field("status"), [&](std::string_view f, od::value x) {
        if (f == "phase") pod->phase = Str(x);
      });
    }
  }
  pod->namespace_ = OrDefault(md->namespace_);
  pod->name = md->name;
  pod->uid = md->uid;
  pod->labels = std::move(md->labels);
  if (auto a = md->annotations.find("cluster-autoscaler.kubernetes.io/safe-to-evict"); a != md->annotations.end()) {
    if (a->second == "true") pod->safe_to_evict = true;
    if (a->second == "false") pod->safe_to_evict = false;
  }
  pod->local_volumes = LocalVolumes(volumes, md->annotations);
  pod->required_node_terms = std::move(placement.required_node_terms);
  pod->node_selector = std::move(placement.node_selector);
  pod->tolerations = std::move(placement.tolerations);
  pod->controller = std::move(md->controller);
  pod->daemonset = pod->controller && pod->controller->kind == "DaemonSet";
  if (pod->phase.empty()) pod->phase = "Pending";
  if (!init_status.ok()) return init_status;
  if (!containers_status.ok()) return containers_status;
  pod->containers.insert(pod->containers.begin(), std::make_move_iterator(init_part.containers.begin()),
                         std::make_move_iterator(init_part.containers.end()));
  return ComputePodGpus(pod);
}

Status ParseNode(od::object item, Metadata* md, Node* node, std::vector<std::string>* warnings) {
  Status s;
  for (auto field : item) {
    std::string_view k = field.unescaped_key();
    if (k == "metadata") {
      ParseMetadata(field.value(), false, md);
    } else {
      Status f = ParseNodeField(k, field.value(), node);
      if (s.ok() && !f.ok()) s = f;
    }
  }
  node->name = md->name;
  node->labels = std::move(md->labels);
  node->annotations = std::move(md->annotations);
  if (!s.ok()) return s;
  return FinishNode(node, warnings);
}

Status ParseSelector(od::value sel, const Path& path, LabelSelector* out) {
  Status s;
  ForEachField(sel, path, [&](std::string_view k, od::value x) {
    if (k == "matchLabels") {
      out->match_labels = StringMap(x, path.Field(k));
    } else if (k == "matchExpressions") {
      ForEachElement(x, path.Field(k), [&](size_t i, od::value e) {
        LabelSelectorRequirement r;
        ForEachField(e, path.Field(k).Element(i), [&](std::string_view f, od::value y) {
          if (f == "key") r.key = Str(y);
          else if (f == "operator") r.op = Str(y);
          else if (f == "values") r.values = Strings(y, path.Field(k).Element(i).Field(f));
        });
        if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist" && s.ok()) {
          s = Status::Error("spec.selector.matchExpressions: operator \"" + r.op +
                            "\" is not In, NotIn, Exists or DoesNotExist");
        }
        out->match_expressions.push_back(std::move(r));
      });
    }
  });
  return s;
}

Status ParsePdb(od::object item, Metadata* md, PodDisruptionBudget* pdb) {
  Status s;
  // policy/v1: a null (or absent) selector selects no pods; an empty one selects all.
  pdb->selector.empty_selects_all = false;
  for (auto field : item) {
    std::string_view k = field.unescaped_key();
    if (k == "metadata") {
      ParseMetadata(field.value(), false, md);
    } else if (k == "spec") {
      const Path spec = kItem.Field("spec");
      ForEachField(field.value(), spec, [&](std::string_view f, od::value x) {
        if (f == "selector") {
          if (TypeOf(x) == od::json_type::object) {
            pdb->selector.empty_selects_all = true;
            s = ParseSelector(x, spec.Field(f), &pdb->selector);
          }
        } else if (f == "minAvailable") {
          pdb->min_available = IntOrString(x, spec.Field(f));
        } else if (f == "maxUnavailable") {
          pdb->max_unavailable = IntOrString(x, spec.Field(f));
        }
      });
    } else if (k == "status") {
      const Path status = kItem.Field("status");
      ForEachField(field.value(), status, [&](std::string_view f, od::value x) {
        if (f == "disruptionsAllowed") pdb->disruptions_allowed = static_cast<int>(Int(x, status.Field(f), 0, 0, kIntMax));
        else if (f == "expectedPods") pdb->expected_pods = static_cast<int>(Int(x, status.Field(f), 0, 0, kIntMax));
      });
    }
  }
  pdb->namespace_ = OrDefault(md->namespace_);
  pdb->name = md->name;
  return s;
}

void ParseController(od::object item, const std::string& kind, Metadata* md, Controller* c) {
  c->kind = kind;
  c->replicas = 1;
  const char* strategy_field = kind == "StatefulSet" ? "updateStrategy" : "strategy";
  for (auto field : item) {
    std::string_view k = field.unescaped_key();
    if (k == "metadata") {
      ParseMetadata(field.value(), true, md);
    } else if (k == "spec") {
      const Path spec = kItem.Field("spec");
      ForEachField(field.value(), spec, [&](std::string_view f, od::value x) {
        if (f == "replicas") {
          c->replicas = static_cast<int>(Int(x, spec.Field(f), 1, 0, kIntMax));
        } else if (f == strategy_field) {
          const Path sp = spec.Field(f);
          ForEachField(x, sp, [&](std::string_view g, od::value y) {
            if (g == "type") {
              c->strategy = Str(y);
            } else if (g == "rollingUpdate") {
              ForEachField(y, sp.Field(g), [&](std::string_view h, od::value z) {
                if (h == "maxSurge") c->max_surge = IntOrString(z, sp.Field(g).Field(h));
                else if (h == "maxUnavailable") c->max_unavailable = IntOrString(z, sp.Field(g).Field(h));
                else if (h == "partition" && TypeOf(z) == od::json_type::number) {
                  c->partition = static_cast<int>(Int(z, sp.Field(g).Field(h), 0, 0, kIntMax));
                }
              });
            }
          });
        } else if (f == "template") {
          const Path tp = spec.Field(f);
          ForEachField(x, tp, [&](std::string_view g, od::value y) {
            if (g != "spec") return;
            ForEachField(y, tp.Field(g), [&](std::string_view h, od::value z) {
              PlacementField(h, z, tp.Field(g), &c->pod_template);
            });
          });
        }
      });
    }
  }
  c->namespace_ = OrDefault(md->namespace_);
  c->name = md->name;
  c->uid = md->uid;
  c->owner = std::move(md->controller);
  c->labels = std::move(md->labels);
  c->annotations = std::move(md->annotations);
  c->managers = std::move(md->managers);
  if (c->strategy.empty() && kind != "ReplicaSet") c->strategy = "RollingUpdate";
}

// Reads {"config": {"name": ..., "default": ...}} members of a ClusterPolicy component.
void ConfigRef(od::value v, const Path& path, std::string* name, std::string* def) {
  ForEachField(v, path, [&](std::string_view k, od::value x) {
    if (k == "name") *name = Str(x);
    else if (k == "default") *def = Str(x);
  });
}

// nvidia.com/v1 ClusterPolicy: the fields the plan's artifacts depend on.
void ParseClusterPolicy(od::object item, Metadata* md, GpuOperatorPolicy* p) {
  for (auto field : item) {
    std::string_view k = field.unescaped_key();
    if (k == "metadata") {
      ParseMetadata(field.value(), false, md);
    } else if (k == "status") {
      ForEachField(field.value(), kItem.Field(k), [&](std::string_view f, od::value x) {
        if (f == "namespace") p->namespace_ = Str(x);
      });
    } else if (k == "spec") {
      const Path spec = kItem.Field(k);
      ForEachField(field.value(), spec, [&](std::string_view f, od::value x) {
        if (f == "mig") {
          ForEachField(x, spec.Field(f), [&](std::string_view g, od::value y) {
            if (g == "strategy") p->mig_strategy = Str(y);
          });
        } else if (f == "migManager") {
          ForEachField(x, spec.Field(f), [&](std::string_view g, od::value y) {
            if (g == "config") {
              ConfigRef(y, spec.Field(f).Field(g), &p->mig_config_name, &p->mig_config_default);
            } else if (g == "env") {
              ForEachElement(y, spec.Field(f).Field(g), [&](size_t, od::value e) {
                if (TypeOf(e) != od::json_type::object) return;
                std::string name, value;
                for (auto ef : e.get_object()) {
                  std::string_view ek = ef.unescaped_key();
                  if (ek == "name") name = Str(ef.value());
                  else if (ek == "value") value = Str(ef.value());
                }
                if (name == "WITH_REBOOT") p->with_reboot = value == "true";
              });
            }
          });
        } else if (f == "devicePlugin") {
          ForEachField(x, spec.Field(f), [&](std::string_view g, od::value y) {
            if (g == "config") {
              ConfigRef(y, spec.Field(f).Field(g), &p->device_plugin_config_name, &p->device_plugin_config_default);
            }
          });
        }
      });
    }
  }
  p->name = md->name;
}

void ParseConfigMap(od::object item, Metadata* md, ConfigMap* c) {
  for (auto field : item) {
    std::string_view k = field.unescaped_key();
    if (k == "metadata") ParseMetadata(field.value(), false, md);
    else if (k == "data") {
      for (const auto& [key, value] : StringMap(field.value(), kItem.Field(k))) c->data.emplace(key, value);
    }
  }
  c->namespace_ = OrDefault(md->namespace_);
  c->name = md->name;
}

// The warning about Running or Pending GPU pods bound to nodes the snapshot
// lacks (a partial snapshot, or nodes deleted between the two lists): the
// planner leaves them out, so the plan must say so.  "" when there are none.
// Reads no Pod::workload.
std::string MissingNodesWarning(const Cluster& cluster) {
  std::unordered_set<std::string_view> nodes;
  for (const auto& n : cluster.nodes) nodes.insert(n.name);
  size_t missing = 0;
  std::string first;
  for (const auto& p : cluster.pods) {
    if (!p.Active() || p.node_name.empty() || (p.gpus <= 0 && p.gpu_slices.empty())) continue;
    if (nodes.count(p.node_name)) continue;
    if (++missing <= 3) first += (first.empty() ? "" : ", ") + p.namespace_ + "/" + p.name + " on " + p.node_name;
  }
  if (missing == 0) return "";
  return std::to_string(missing) + " GPU pod" + (missing == 1 ? " is" : "s are") +
         " bound to nodes missing from the snapshot and left out of the plan (" + OneLine(first) +
         (missing > 3 ? ", ..." : "") + ")";
}

// The controllers by (namespace, kind, name): open addressing over their
// indices (a power of two of slots, at most half full, probed linearly from
// the key's hash), so that building it allocates once.  Of two controllers
// with one key the later is found (a parsed List has no such pair).
// REQUIRES: the controllers outlive the table and do not change meanwhile;
// Find may be called from several threads at once.
class ControllerTable {
 public:
  explicit ControllerTable(const std::vector<Controller>& controllers) : controllers_(controllers) {
    size_t size = 16;
    while (size < 2 * controllers.size()) size *= 2;
    slots_.assign(size, 0);
    mask_ = size - 1;
    for (size_t i = 0; i < controllers.size(); ++i) {
      const Controller& c = controllers[i];
      slots_[Slot(c.namespace_, c.kind, c.name)] = i + 1;
    }
  }
  const Controller* Find(std::string_view namespace_, std::string_view kind, std::string_view name) const {
    const size_t at = slots_[Slot(namespace_, kind, name)];
    return at == 0 ? nullptr : &controllers_[at - 1];
  }

 private:
  // The slot holding the key, else the empty slot where it would go.
  size_t Slot(std::string_view namespace_, std::string_view kind, std::string_view name) const {
    size_t s = HashWorkloadKey(namespace_, kind, name) & mask_;
    while (slots_[s] != 0) {
      const Controller& c = controllers_[slots_[s] - 1];
      if (c.name == name && c.namespace_ == namespace_ && c.kind == kind) break;
      s = (s + 1) & mask_;
    }
    return s;
  }

  const std::vector<Controller>& controllers_;
  std::vector<size_t> slots_;  // 1 + a controller's index; 0: empty
  size_t mask_ = 0;
};

// Fills Pod::workload for pods [begin, end).
void ResolvePods(Pod* begin, Pod* end, const ControllerTable& controllers) {
  // Pods of one controller are mostly listed one after another (kubectl
  // sorts by name; two thirds of a generated 60,000-pod List): a pod whose
  // namespace and controller are the previous controlled pod's gets the
  // same workload without the climb (the table does not change meanwhile).
  const Pod* previous = nullptr;
  for (Pod* p = begin; p != end; ++p) {
    Pod& pod = *p;
    if (!pod.controller) {
      pod.workload = {pod.namespace_, "Pod", pod.name};
      continue;
    }
    if (previous != nullptr && previous->controller->name == pod.controller->name &&
        previous->controller->kind == pod.controller->kind && previous->namespace_ == pod.namespace_) {
      pod.workload = previous->workload;
      continue;
    }
    previous = &pod;
    std::string_view kind = pod.controller->kind;
    std::string_view name = pod.controller->name;
    // Climb at most a few levels: ReplicaSet -> Deployment, Job -> CronJob.
    for (int depth = 0; depth < 4; ++depth) {
      const Controller* c = controllers.Find(pod.namespace_, kind, name);
      if (c == nullptr || !c->owner) break;
      kind = c->owner->kind;
      name = c->owner->name;
    }
    pod.workload = {pod.namespace_, std::string(kind), std::string(name)};
  }
}

// Pods resolved by one thread at least (fewer are not worth starting one).
constexpr size_t kMinPodsPerThread = 4096;

// The last pass over a whole List, after its items: resolves every pod's
// workload (the pods cut into up to `threads` ranges, one thread each) and
// warns about GPU pods on missing nodes (on the calling thread meanwhile:
// it reads no workload).
void ResolveWorkloads(Cluster* cluster, int threads = 1) {
  const ControllerTable controllers(cluster->controllers);
  Pod* pods = cluster->pods.data();
  const size_t n = cluster->pods.size();
  const size_t ranges =
      std::max<size_t>(1, std::min<size_t>(threads > 1 ? static_cast<size_t>(threads) : 1, n / kMinPodsPerThread));
  std::string warning;
  RunParts(ranges, [&](size_t k) {
    if (k == 0) warning = MissingNodesWarning(*cluster);
    ResolvePods(pods + n / ranges * k, k + 1 == ranges ? pods + n : pods + n / ranges * (k + 1), controllers);
  });
  if (!warning.empty()) cluster->warnings.push_back(std::move(warning));
}

const std::set<std::string_view> kKnownKinds = {"Node",       "Pod", "PodDisruptionBudget", "Deployment",
                                                "StatefulSet", "ReplicaSet", "Job",     "CronJob",
                                                "DaemonSet",  "ClusterPolicy", "ConfigMap"};

// Where the item being read sits in its List's byte stream, and where the
// first item of each kind read into a vector started: how those vectors are
// grown (ProjectedCapacity).  Unknown (total 0) for a List parsed whole.
struct ItemSpans {
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t item_start = 0;
  size_t item_end = 0;
  size_t total = 0;  // the stream's length; 0: unknown, vectors double
  size_t first_node = kNone, first_pod = kNone, first_controller = kNone;

  // The span for a vector of one kind, whose first item's start is *first
  // (set to this item's when it is the first).
  StreamSpan For(size_t* first) {
    if (*first == kNone) *first = item_start;
    return {*first, item_end, total};
  }
};

// A default element appended to *v for the parser to fill in place (no
// move of a ~600-byte object per item); removed again when the parse fails
// or throws, unless Keep() was called.  A full vector grows to the capacity
// projected from `span` (projected_capacity.h), not to twice its size.
template <typename T>
class Appended {
 public:
  Appended(std::vector<T>* v, const StreamSpan& span) : v_(v) {
    if (v_->size() == v_->capacity()) v_->reserve(ProjectedCapacity(v_->size(), span));
    v_->emplace_back();
  }
  ~Appended() {
    if (!kept_) v_->pop_back();
  }
  Appended(const Appended&) = delete;
  Appended& operator=(const Appended&) = delete;
  T* get() { return &v_->back(); }
  void Keep() { kept_ = true; }

 private:
  std::vector<T>* v_;
  bool kept_ = false;
};

// Per object read so far, the index of the item that listed it
// (kind \0 namespace \0 name -> item index): how a repeat is found.
struct SeenObjects {
  FirstIndex first;
  std::string key;  // the key being built (reused: no allocation per item)
};

// Reads one item into the cluster (items of other kinds are skipped).
// Malformed JSON throws simdjson_error (handled by the caller).
//
// An object listed twice (same kind, namespace and name) is an error naming
// both items, not a warning with one copy kept: a List from the API server
// never repeats an object, so a repeat means files were concatenated or
// merged, and which copy is current (they may differ in node, GPUs or
// phase) cannot be known; counting both would plan the same GPUs twice.
//
// REQUIRES: `seen` is the same map for every item of one List (the caller
// owns it; a reader of single items without it cannot find repeats), and so
// is `spans`, its item fields set to this item's (nullptr: vectors double).
Status ParseItem(od::object item, size_t index, std::string_view source, const std::string& implied_kind,
                 Cluster* cluster, SeenObjects* seen = nullptr, ItemSpans* spans = nullptr) {
  ItemSpans unknown;
  if (spans == nullptr) spans = &unknown;
  std::string kind;
  {
    od::value k;
    const simdjson::error_code e = item.find_field_unordered("kind").get(k);
    if (e == simdjson::SUCCESS) {
      kind = Str(k);
    } else if (e != simdjson::NO_SUCH_FIELD) {
      throw simdjson::simdjson_error(e);
    }
    item.reset();
  }
  if (kind.empty()) kind = implied_kind;
  Metadata md;
  Status s;
  std::vector<std::string> warnings;
  try {
    if (kind.empty()) {
      od::value m;
      if (item.find_field_unordered("metadata").get(m) == simdjson::SUCCESS) ParseMetadata(m, false, &md);
      return Status::Error(ItemPrefix(source, index, "?", md.name) + ": kind missing");
    }
    if (!kKnownKinds.count(kind)) return Status::Ok();
    if (kind == "Node") {
      Appended<Node> n(&cluster->nodes, spans->For(&spans->first_node));
      s = ParseNode(item, &md, n.get(), &warnings);
      if (s.ok() && !md.name.empty()) n.Keep();
    } else if (kind == "Pod") {
      Appended<Pod> p(&cluster->pods, spans->For(&spans->first_pod));
      s = ParsePod(item, &md, p.get());
      if (s.ok() && !md.name.empty()) p.Keep();
    } else if (kind == "ClusterPolicy") {
      GpuOperatorPolicy p;
      ParseClusterPolicy(item, &md, &p);
      if (md.name.empty()) {
        // reported below
      } else if (cluster->gpu_operator) {
        warnings.push_back("a second ClusterPolicy; the GPU Operator uses only one, the first (" +
                           cluster->gpu_operator->name + ") is read");
      } else {
        cluster->gpu_operator = std::move(p);
      }
    } else if (kind == "ConfigMap") {
      ConfigMap c;
      ParseConfigMap(item, &md, &c);
      if (!md.name.empty()) cluster->config_maps.push_back(std::move(c));
    } else if (kind == "PodDisruptionBudget") {
      PodDisruptionBudget p;
      s = ParsePdb(item, &md, &p);
      if (s.ok() && !md.name.empty()) cluster->pdbs.push_back(std::move(p));
    } else {
      Appended<Controller> c(&cluster->controllers, spans->For(&spans->first_controller));
      ParseController(item, kind, &md, c.get());
      if (!md.name.empty()) c.Keep();
    }
  } catch (const FieldError& e) {
    s = Status::Error(e.message);
  }
  // The item's name in messages, built only when there is one.
  auto prefix = [&] { return ItemPrefix(source, index, kind, md.name); };
  if (!s.ok()) return Status::Error(prefix() + ": " + OneLine(s.message()));
  if (md.name.empty()) return Status::Error(prefix() + ": metadata.name missing");
  for (auto& w : warnings) cluster->warnings.push_back(prefix() + ": " + OneLine(w));
  if (seen != nullptr && kind != "ClusterPolicy") {  // a second ClusterPolicy is the warning above
    const bool namespaced = kind != "Node";
    const std::string_view ns = !namespaced                ? std::string_view()
                                : md.namespace_.empty() ? std::string_view("default")  // as OrDefault
                                                        : std::string_view(md.namespace_);
    std::string& key = seen->key;
    key.assign(kind).append(1, '\0').append(ns).append(1, '\0').append(md.name);
    if (const std::optional<size_t> first = seen->first.FindOrAdd(key, index)) {
      return Status::Error(prefix() + ": the same " + kind + " as items[" + std::to_string(*first) +
                           "]; a snapshot lists each object once (were two files joined?)");
    }
  }
  return Status::Ok();
}

// "line L, column C" of a byte offset.
std::string LineColumn(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// " at line L, column C" for the parser's position, "" when unknown.
std::string Where(od::document& doc, simdjson::padded_string_view text) {
  const char* at = nullptr;
  if (doc.current_location().get(at) != simdjson::SUCCESS || at < text.data() || at > text.data() + text.size()) {
    return "";
  }
  return " at " + LineColumn(text, static_cast<size_t>(at - text.data()));
}

Result<Cluster> ParsePadded(simdjson::padded_string_view text, std::string_view source_name) {
  const std::string source(source_name);
  if (const size_t at = FindNestingBeyond(text, kMaxSnapshotNestingDepth); at != std::string_view::npos) {
    return Status::Error(source + ": " + TooDeepMessage("at " + LineColumn(text, at)));
  }
  od::parser parser;
  od::document doc;
  if (const simdjson::error_code e = parser.iterate(text).get(doc); e != simdjson::SUCCESS) {
    return Status::Error(source + ": not valid JSON: " + simdjson::error_message(e));
  }
  Cluster cluster;
  SeenObjects seen;
  try {
    od::json_type top_type;
    if (doc.type().get(top_type) != simdjson::SUCCESS || top_type != od::json_type::object) {
      return Status::Error(source + ": expected a JSON object (a List with items)");
    }
    od::object top = doc.get_object();
    // A list call's body (e.g. /api/v1/pods) has kind PodList and items without kind.
    bool has_kind = false;
    std::string list_kind;
    {
      od::value k;
      const simdjson::error_code e = top.find_field_unordered("kind").get(k);
      if (e == simdjson::SUCCESS) {
        has_kind = true;
        list_kind = Str(k);
      } else if (e != simdjson::NO_SUCH_FIELD) {
        throw simdjson::simdjson_error(e);
      }
      top.reset();
    }
    std::string implied_kind;
    if (list_kind.size() > 4 && list_kind.substr(list_kind.size() - 4) == "List") {
      implied_kind = list_kind.substr(0, list_kind.size() - 4);
    }
    bool has_items = false;
    for (auto field : top) {
      if (std::string_view(field.unescaped_key()) != "items") continue;
      od::value items = field.value();
      if (has_items || TypeOf(items) != od::json_type::array) {
        return Status::Error(source + (has_items ? ": \"items\" twice" : ": \"items\" is not an array"));
      }
      has_items = true;
      size_t index = 0;
      for (auto element : items.get_array()) {
        od::value v = Unwrap(element);
        if (TypeOf(v) != od::json_type::object) {
          return Status::Error(ItemPrefix(source, index, "?", "") + ": not an object");
        }
        Status s = ParseItem(v.get_object(), index++, source, implied_kind, &cluster, &seen);
        if (!s.ok()) return s;
      }
    }
    const char* after = nullptr;
    if (has_items && doc.current_location().get(after) == simdjson::SUCCESS) {
      return Status::Error(source + ": not valid JSON" + Where(doc, text) + ": text after the top-level object");
    }
    if (has_items) {
    } else if (!has_kind) {
      return Status::Error(source + ": neither a List (\"items\") nor a Kubernetes object (\"kind\")");
    } else {
      top.reset();
      Status s = ParseItem(top, 0, source, implied_kind, &cluster, &seen);
      if (!s.ok()) return s;
    }
  } catch (const simdjson::simdjson_error& e) {
    return Status::Error(source + ": not valid JSON" + Where(doc, text) + ": " + e.what());
  }
  ResolveWorkloads(&cluster);
  return cluster;
}

}  // namespace

bool ParseWholeQuantity(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < 0) return false;
  *out = v;
  return true;
}

Result<Cluster> ParseClusterJson(std::string_view json_text, std::string_view source_name) {
  const simdjson::padded_string padded(json_text);
  return ParsePadded(padded, source_name);
}

struct SnapshotItemReader::Impl {
  od::parser parser;  // reused: its buffers grow to the largest item once
  SeenObjects seen;   // every object read so far: a repeat is an error naming both items
  ItemSpans spans;    // where the next item sits (Locate) and each kind's first
};
static_assert(SnapshotItemReader::kPadding >= simdjson::SIMDJSON_PADDING);

SnapshotItemReader::SnapshotItemReader() : impl_(std::make_unique<Impl>()) {}
SnapshotItemReader::~SnapshotItemReader() = default;

void SnapshotItemReader::ForgetObjects() {
  impl_->seen.first.Clear();
  impl_->spans = ItemSpans{};
}

void SnapshotItemReader::Locate(size_t offset, size_t total) {
  impl_->spans.item_start = offset;
  impl_->spans.total = total;
}

Status SnapshotItemReader::Read(std::string_view text, size_t index, std::string_view source,
                                const std::string& implied_kind, Cluster* cluster, Diagnostics* diagnostics,
                                bool nesting_checked) {
  *diagnostics = Diagnostics{};
  // One item of a List sits 2 levels deep.
  if (const size_t at = nesting_checked ? std::string_view::npos : FindNestingBeyond(text, kMaxSnapshotNestingDepth, 2);
      at != std::string_view::npos) {
    diagnostics->too_deep = true;
    diagnostics->offset = at;
    return Status::Error("too deep");
  }
  const simdjson::padded_string_view view(text.data(), text.size(), text.size() + kPadding);
  od::document doc;
  if (const simdjson::error_code e = impl_->parser.iterate(view).get(doc); e != simdjson::SUCCESS) {
    diagnostics->malformed = true;
    return Status::Error(std::string("not valid JSON: ") + simdjson::error_message(e));
  }
  try {
    od::json_type t;
    if (doc.type().get(t) != simdjson::SUCCESS || t != od::json_type::object) {
      return Status::Error(ItemPrefix(source, index, "?", "") + ": not an object");
    }
    ItemSpans& spans = impl_->spans;
    spans.item_end = spans.item_start + text.size();
    Status s = ParseItem(doc.get_object(), index, source, implied_kind, cluster, &impl_->seen, &spans);
    diagnostics->kind_missing = !s.ok() && implied_kind.empty() &&
                                s.message().size() >= 14 && s.message().ends_with(": kind missing");
    return s;
  } catch (const simdjson::simdjson_error& e) {
    diagnostics->malformed = true;
    const char* at = nullptr;
    if (doc.current_location().get(at) == simdjson::SUCCESS && at >= text.data() && at <= text.data() + text.size()) {
      diagnostics->offset = static_cast<size_t>(at - text.data());
    }
    return Status::Error(std::string("not valid JSON: ") + e.what());
  }
}

bool SnapshotItemReader::AddObjectsOf(const SnapshotItemReader& later) {
  return impl_->seen.first.AddAll(later.impl_->seen.first);
}

void ResolveClusterWorkloads(Cluster* cluster, int threads) { ResolveWorkloads(cluster, threads); }

std::string TooDeepMessage(const std::string& where) {
  return "arrays and objects nested deeper than " + std::to_string(kMaxSnapshotNestingDepth) + " levels " + where +
         " (the cap; Kubernetes objects nest about 15)";
}

// A regular file is read item by item (snapshot_stream.h); a pipe
// (`--cluster <(kubectl get ...)`) is read whole and parsed; a directory or
// device is an error (input_file.h).
Result<Cluster> LoadClusterFile(const std::string& path, int threads) {
  constexpr std::string_view kWhat = "cluster snapshot";
  Result<InputFile> in = OpenableInput(path, kWhat);
  if (!in.ok()) return in.status();
  if (in->regular) return ReadClusterFile(path, threads);
  Result<std::string> text = ReadInputFile(path, kWhat);
  if (!text.ok()) return text.status();
  return ParseClusterJson(*text, path);
}

}  // namespace kubeon::model
