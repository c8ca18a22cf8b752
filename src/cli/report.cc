// See report.h.
#include "cli/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "cli/terminal_text.h"
#include "model/json_writer.h"
#include "plan/schedule_json.h"
#include "plan/sizing.h"

namespace kubeon::cli {
namespace {

using nlohmann::json;

std::string Pad(const std::string& s, size_t width) {
  // Width in characters; our strings are ASCII except the arrow, counted as one.
  size_t visible = 0;
  for (unsigned char c : s) visible += (c & 0xC0) != 0x80;
  return visible >= width ? s : s + std::string(width - visible, ' ');
}

// USD rounded to cents.  Amounts of 1e15 or more have no cents left in a
// double (and times 100 could overflow to inf): kept as they are.  A
// non-finite amount cannot come from the inputs (prices are capped, see
// model/prices.h); it is written as 0, never as JSON null.
double Cents(double usd) {
  if (!std::isfinite(usd)) return 0;
  if (std::fabs(usd) >= 1e15) return usd;
  return std::round(usd * 100.0) / 100.0;
}

json OptionalInt(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

json WorkloadJson(const plan::WorkloadDecision& w) {
  json j = {{"namespace", w.ref.namespace_},
            {"kind", w.ref.kind},
            {"name", w.ref.name},
            {"pods", w.pods},
            {"gpus_per_pod", w.gpus_per_pod},
            {"gpu_model", w.gpu_model},
            {"peak_memory_mib", OptionalInt(w.peak_memory_mib)},
            {"peak_compute", w.peak_compute ? json(std::round(*w.peak_compute * 10000.0) / 10000.0) : json(nullptr)},
            {"compute_metric", w.compute_metric},
            {"history_hours", std::round(w.history_hours * 10.0) / 10.0},
            {"samples", w.samples},
            {"decision", plan::DecisionName(w.decision)},
            {"slice", w.slice.empty() ? json(nullptr) : json(w.slice)},
            {"reason", w.reason},
            {"isolation", w.isolation}};
  return j;
}

json NodeJson(const plan::NodePlan& n) {
  json gpus = json::array();
  for (const auto& g : n.gpus) {
    gpus.push_back({{"index", g.index},
                    {"mig_enabled", g.mig_enabled},
                    {"mig_devices", g.mig_devices},
                    {"whole", g.whole},
                    {"workloads", g.workloads}});
  }
  json disrupted = json::array();
  for (const auto& d : n.disrupted_pods) disrupted.push_back({{"pod", d.pod}, {"owner", d.owner}, {"why", d.why}});
  return {{"name", n.name},
          {"gpu_model", n.gpu_model},
          {"instance_type", n.instance_type},
          {"method", n.method},
          {"gpu_count", n.gpu_count},
          {"gpus_before", n.gpus_before},
          {"gpus_after", n.gpus_after},
          {"freed", n.freed},
          {"gpus", gpus},
          {"time_slicing_replicas", n.time_slicing_replicas ? json(*n.time_slicing_replicas) : json(nullptr)},
          {"labels", n.labels},
          {"isolation", n.isolation},
          {"hourly_price_usd", n.hourly_price_usd ? json(*n.hourly_price_usd) : json(nullptr)},
          {"price_source", n.price_source},
          {"monthly_savings_usd", Cents(n.monthly_savings_usd)},
          {"disrupted_pods", disrupted},
          {"notes", n.notes}};
}

std::string Layout(const plan::NodePlan& n) {
  // "2x[3g.20gb+2g.10gb+1g.5gb+1g.5gb] 1x[whole]" grouping equal GPUs.
  std::vector<std::pair<std::string, int>> groups;
  for (const auto& g : n.gpus) {
    std::string l;
    if (g.mig_enabled) {
      for (const auto& d : g.mig_devices) l += (l.empty() ? "" : "+") + d;
    } else if (g.whole) {
      l = "whole";
    } else {
      l = "shared x" + std::to_string(g.workloads.size());
    }
    if (!groups.empty() && groups.back().first == l) {
      ++groups.back().second;
    } else {
      groups.push_back({l, 1});
    }
  }
  std::string out;
  for (const auto& [l, c] : groups) out += (out.empty() ? "" : " ") + std::to_string(c) + "x[" + l + "]";
  return out.empty() ? "-" : out;
}

void EmitYaml(const json& j, int indent, std::ostringstream& out, bool in_list);

// True when `s` holds what YAML does not allow in a plain or literal block
// scalar: a control character other than '\n' (C0, DEL, C1) or invalid UTF-8.
bool HasControl(const std::string& s) { return EscapeControl(s, /*keep_newlines=*/true) != s; }

// `s` double-quoted with JSON's escapes, which YAML reads the same way; with
// controls, ASCII only (\uXXXX) and invalid UTF-8 as U+FFFD.
std::string Quoted(const std::string& s) {
  return json(s).dump(-1, ' ', /*ensure_ascii=*/HasControl(s), json::error_handler_t::replace);
}

bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* kSpecial[] = {"true", "false", "yes", "no", "on", "off", "null", "~", "True", "False", "Null",
                                   "NULL", "Yes", "No", "TRUE", "FALSE", "YES", "NO", "On", "Off", "ON", "OFF"};
  for (const char* k : kSpecial) {
    if (s == k) return true;
  }
  if (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+' || s[0] == '.') return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  if (HasControl(s)) return true;
  for (char c : s) {
    if (c == ':' || c == '#' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == '&' || c == '*' ||
        c == '!' || c == '|' || c == '>' || c == '\'' || c == '"' || c == '%' || c == '@' || c == '`' || c == '\t') {
      return true;
    }
  }
  return false;
}

std::string Scalar(const json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    return NeedsQuotes(s) ? Quoted(s) : s;
  }
  if (j.is_null()) return "null";
  return j.dump();
}

void EmitYaml(const json& j, int indent, std::ostringstream& out, bool in_list) {
  const std::string pad(indent, ' ');
  if (j.is_object()) {
    bool first = true;
    for (const auto& [k, v] : j.items()) {
      const std::string key = NeedsQuotes(k) ? Quoted(k) : k;
      out << (first && in_list ? "" : pad) << key << ":";
      first = false;
      if (v.is_string() && v.get<std::string>().find('\n') != std::string::npos && !HasControl(v.get<std::string>())) {
        out << " |\n";
        std::istringstream lines(v.get<std::string>());
        std::string line;
        while (std::getline(lines, line)) out << (line.empty() ? "" : pad + "  " + line) << "\n";
      } else if ((v.is_object() || v.is_array()) && !v.empty()) {
        out << "\n";
        EmitYaml(v, indent + 2, out, false);
      } else if (v.is_object()) {
        out << " {}\n";
      } else if (v.is_array()) {
        out << " []\n";
      } else {
        out << " " << Scalar(v) << "\n";
      }
    }
  } else if (j.is_array()) {
    for (const auto& v : j) {
      out << pad << "- ";
      if (v.is_object() && !v.empty()) {
        EmitYaml(v, indent + 2, out, true);
      } else if (v.is_array() && !v.empty()) {
        out << "\n";
        EmitYaml(v, indent + 2, out, false);
      } else {
        out << (v.is_object() ? "{}" : v.is_array() ? "[]" : Scalar(v)) << "\n";
      }
    }
  } else {
    out << pad << Scalar(j) << "\n";
  }
}

}  // namespace

std::string Money(double usd) {
  if (!std::isfinite(usd)) return "n/a";  // cannot come from capped inputs; never an abort
  std::string s(400, '\0');  // "%.2f" of the largest double: 309 digits, a sign and ".00"
  s.resize(static_cast<size_t>(std::snprintf(s.data(), s.size(), "%.2f", usd)));
  const size_t dot = s.find('.');
  std::string whole = s.substr(0, dot);
  std::string grouped;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0 && whole[i - 1] != '-') grouped += ',';
    grouped += whole[i];
  }
  return "$" + grouped + s.substr(dot);
}

std::string Table(const std::vector<std::vector<std::string>>& raw_rows) {
  // Cells come from the cluster (names, labels, reasons): escaped before measuring.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(raw_rows.size());
  for (const auto& r : raw_rows) {
    std::vector<std::string>& cells = rows.emplace_back();
    for (const auto& c : r) cells.push_back(EscapeControl(c));
  }
  std::vector<size_t> width;
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      size_t visible = 0;
      for (unsigned char c : r[i]) visible += (c & 0xC0) != 0x80;
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], visible);
    }
  }
  std::ostringstream out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) line += (i + 1 < r.size() ? Pad(r[i], width[i] + 2) : r[i]);
    out << line << "\n";
  }
  return out.str();
}

std::string JsonToYaml(const json& j) {
  std::ostringstream out;
  EmitYaml(j, 0, out, false);
  return out.str();
}

namespace {

// "3 pods", "1 GPU": a count and its noun, plural with an "s".
std::string Count(size_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

// The "Migration order" section: one row per step, its flags below; when no
// order fits, the spare GPUs it needs.
void MigrationOrder(const plan::Schedule& s, std::ostringstream& out) {
  if (s.steps.empty() && s.feasible && s.left_out.empty()) return;
  out << "Migration order (at most " << Count(static_cast<size_t>(s.max_nodes_per_pool), "node")
      << " per GPU model at once):\n";
  if (!s.feasible) {
    std::string need;
    for (const auto& [model, n] : s.spare_gpus_needed) {
      need += (need.empty() ? "" : ", ") + std::to_string(n) + " " + model;
    }
    for (const auto& [pool, why] : s.blocked_pools) {
      out << "  pool " << pool << ": no order fits (" << why << "); its nodes stay as they are.\n";
    }
    if (!need.empty()) out << "  spare whole GPUs needed: " << need << ".\n";
    out << (s.steps.empty() ? "  Nothing will be started.\n" : "  The other pools' order:\n");
  }
  if (!s.steps.empty()) {
    std::vector<std::vector<std::string>> rows = {{"STEP", "ID", "NODES", "EVICTS", "MOVES", "FREES", "EST", "FLAGS"}};
    for (const auto& st : s.steps) {
      std::string nodes, moves;
      for (const auto& n : st.nodes) nodes += (nodes.empty() ? "" : ",") + n;
      for (const auto& o : st.owners) moves += (moves.empty() ? "" : ",") + o.owner.Display();
      std::string frees = Count(static_cast<size_t>(std::max(0, st.gpus_freed)), "GPU");
      if (!st.nodes_freed.empty()) frees += " (" + Count(st.nodes_freed.size(), "node") + ")";
      rows.push_back({std::to_string(st.index), st.id, nodes, Count(st.evictions.size(), "pod"),
                      moves.empty() ? "-" : moves, frees, std::to_string((st.estimated_seconds + 59) / 60) + "m",
                      st.flags.empty() ? "-" : std::to_string(st.flags.size())});
    }
    out << Table(rows);
    for (const auto& st : s.steps) {
      for (const auto& f : st.flags) out << "  step " << st.index << " (" << st.id << ") flagged: " << f << "\n";
    }
  }
  for (const auto& l : s.left_out) out << "  left out: " << l << "\n";
  out << "\n";
}

}  // namespace

json PlanToJson(const plan::Plan& p) {
  json workloads = json::array();
  for (const auto& w : p.workloads) workloads.push_back(WorkloadJson(w));
  json nodes = json::array();
  for (const auto& n : p.nodes) nodes.push_back(NodeJson(n));
  json patches = json::array();
  for (const auto& wp : p.artifacts.workload_patches) {
    patches.push_back({{"namespace", wp.namespace_},
                       {"kind", wp.kind},
                       {"name", wp.name},
                       {"patch_type", wp.patch_type},
                       {"patch", json::parse(wp.patch_json)}});
  }
  const auto& s = p.summary;
  return {{"policy", {{"name", p.policy_name}, {"mode", p.policy_mode}, {"window", p.window}}},
          {"summary",
           {{"gpus_before", s.gpus_before},
            {"gpus_after", s.gpus_after},
            {"gpus_freed", s.gpus_freed},
            {"nodes_freed", s.nodes_freed},
            {"monthly_savings_usd", Cents(s.monthly_savings_usd)},
            {"savings_realizable_usd", Cents(s.savings_realizable_usd)},
            {"capacity_freed_usd", Cents(s.capacity_freed_usd)},
            {"workloads", s.workloads},
            {"workloads_to_mig", s.workloads_to_mig},
            {"workloads_to_time_slicing", s.workloads_to_time_slicing},
            {"moved_gpus_after", s.moved_gpus_after},
            {"gpus_lower_bound", s.gpus_lower_bound},
            {"gpus_lower_bound_gap", s.moved_gpus_after - s.gpus_lower_bound},
            {"pods_disrupted", s.pods_disrupted},
            {"safety_cost", {{"gpus", s.safety_cost_gpus}, {"monthly_usd", Cents(s.safety_cost_monthly_usd)}}}}},
          {"workloads", workloads},
          {"nodes", nodes},
          {"artifacts",
           {{"mig_parted_config", p.artifacts.mig_parted_config},
            {"mig_parted_configmap", p.artifacts.mig_parted_configmap},
            {"device_plugin_configs", p.artifacts.device_plugin_configs},
            {"device_plugin_config", p.artifacts.device_plugin_configmap},
            {"workload_patches", patches}}},
          {"schedule", plan::ScheduleToJson(p.schedule)},
          {"warnings", p.warnings}};
}

namespace {

using model::JsonWriter;

// WritePlanJson streams the document PlanToJson builds, member by member in
// the key order nlohmann's dump prints (sorted), so that RenderJson's text is
// byte-identical to PlanToJson(p).dump(2) without the tree (report_test
// compares the two on the demo and a generated cluster).
// The value, or null when absent.
template <typename T>
void WriteOptional(JsonWriter& w, std::string_view key, const std::optional<T>& v) {
  if (v) {
    w.Field(key, *v);
  } else {
    w.Key(key);
    w.Null();
  }
}

void WriteWorkload(JsonWriter& w, const plan::WorkloadDecision& d) {
  w.BeginObject();
  w.Field("compute_metric", d.compute_metric);
  w.Field("decision", plan::DecisionName(d.decision));
  w.Field("gpu_model", d.gpu_model);
  w.Field("gpus_per_pod", d.gpus_per_pod);
  w.Field("history_hours", std::round(d.history_hours * 10.0) / 10.0);
  w.Field("isolation", d.isolation);
  w.Field("kind", d.ref.kind);
  w.Field("name", d.ref.name);
  w.Field("namespace", d.ref.namespace_);
  WriteOptional(w, "peak_compute",
                d.peak_compute ? std::optional<double>(std::round(*d.peak_compute * 10000.0) / 10000.0) : std::nullopt);
  WriteOptional(w, "peak_memory_mib", d.peak_memory_mib);
  w.Field("pods", d.pods);
  w.Field("reason", d.reason);
  w.Field("samples", static_cast<uint64_t>(d.samples));
  w.Key("slice");
  if (d.slice.empty()) {
    w.Null();
  } else {
    w.String(d.slice);
  }
  w.EndObject();
}

void WriteNode(JsonWriter& w, const plan::NodePlan& n) {
  w.BeginObject();
  w.Key("disrupted_pods");
  w.BeginArray();
  for (const auto& d : n.disrupted_pods) {
    w.BeginObject();
    w.Field("owner", d.owner);
    w.Field("pod", d.pod);
    w.Field("why", d.why);
    w.EndObject();
  }
  w.EndArray();
  w.Field("freed", n.freed);
  w.Field("gpu_count", n.gpu_count);
  w.Field("gpu_model", n.gpu_model);
  w.Key("gpus");
  w.BeginArray();
  for (const auto& g : n.gpus) {
    w.BeginObject();
    w.Field("index", g.index);
    w.Field("mig_devices", g.mig_devices);
    w.Field("mig_enabled", g.mig_enabled);
    w.Field("whole", g.whole);
    w.Field("workloads", g.workloads);
    w.EndObject();
  }
  w.EndArray();
  w.Field("gpus_after", n.gpus_after);
  w.Field("gpus_before", n.gpus_before);
  WriteOptional(w, "hourly_price_usd", n.hourly_price_usd);
  w.Field("instance_type", n.instance_type);
  w.Field("isolation", n.isolation);
  w.Key("labels");
  w.BeginObject();
  for (const auto& [k, v] : n.labels) w.Field(k, v);
  w.EndObject();
  w.Field("method", n.method);
  w.Field("monthly_savings_usd", Cents(n.monthly_savings_usd));
  w.Field("name", n.name);
  w.Field("notes", n.notes);
  w.Field("price_source", n.price_source);
  WriteOptional(w, "time_slicing_replicas", n.time_slicing_replicas);
  w.EndObject();
}

// Hands the text written so far to a sink once it holds kRenderChunkBytes.
// REQUIRES: *text is the writer's output string.
class Chunks {
 public:
  Chunks(std::string* text, const std::function<void(std::string_view)>& sink) : text_(text), sink_(sink) {}
  void MaybeFlush() {
    if (text_->size() >= kRenderChunkBytes) Flush();
  }
  void Flush() {
    if (!text_->empty()) sink_(*text_);
    text_->clear();
  }

 private:
  std::string* text_;
  const std::function<void(std::string_view)>& sink_;
};

void WritePlanJson(JsonWriter& w, const plan::Plan& p, Chunks& chunks) {
  w.BeginObject();
  w.Key("artifacts");
  w.BeginObject();
  w.Field("device_plugin_config", p.artifacts.device_plugin_configmap);
  w.Key("device_plugin_configs");
  w.BeginObject();
  for (const auto& [k, v] : p.artifacts.device_plugin_configs) w.Field(k, v);
  w.EndObject();
  w.Field("mig_parted_config", p.artifacts.mig_parted_config);
  w.Field("mig_parted_configmap", p.artifacts.mig_parted_configmap);
  w.Key("workload_patches");
  w.BeginArray();
  for (const auto& wp : p.artifacts.workload_patches) {
    chunks.MaybeFlush();
    w.BeginObject();
    w.Field("kind", wp.kind);
    w.Field("name", wp.name);
    w.Field("namespace", wp.namespace_);
    w.Key("patch");
    w.CompactValue(wp.patch_json);  // dump()'s text (plan.h): re-indented, not parsed
    w.Field("patch_type", wp.patch_type);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("nodes");
  w.BeginArray();
  for (const auto& n : p.nodes) {
    chunks.MaybeFlush();
    WriteNode(w, n);
  }
  w.EndArray();
  w.Key("policy");
  w.BeginObject();
  w.Field("mode", p.policy_mode);
  w.Field("name", p.policy_name);
  w.Field("window", p.window);
  w.EndObject();
  w.Key("schedule");
  plan::WriteSchedule(w, p.schedule);
  const auto& s = p.summary;
  w.Key("summary");
  w.BeginObject();
  w.Field("capacity_freed_usd", Cents(s.capacity_freed_usd));
  w.Field("gpus_after", s.gpus_after);
  w.Field("gpus_before", s.gpus_before);
  w.Field("gpus_freed", s.gpus_freed);
  w.Field("gpus_lower_bound", s.gpus_lower_bound);
  w.Field("gpus_lower_bound_gap", s.moved_gpus_after - s.gpus_lower_bound);
  w.Field("monthly_savings_usd", Cents(s.monthly_savings_usd));
  w.Field("moved_gpus_after", s.moved_gpus_after);
  w.Field("nodes_freed", s.nodes_freed);
  w.Field("pods_disrupted", s.pods_disrupted);
  w.Key("safety_cost");
  w.BeginObject();
  w.Field("gpus", s.safety_cost_gpus);
  w.Field("monthly_usd", Cents(s.safety_cost_monthly_usd));
  w.EndObject();
  w.Field("savings_realizable_usd", Cents(s.savings_realizable_usd));
  w.Field("workloads", s.workloads);
  w.Field("workloads_to_mig", s.workloads_to_mig);
  w.Field("workloads_to_time_slicing", s.workloads_to_time_slicing);
  w.EndObject();
  w.Field("warnings", p.warnings);
  w.Key("workloads");
  w.BeginArray();
  for (const auto& d : p.workloads) {
    chunks.MaybeFlush();
    WriteWorkload(w, d);
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

void RenderJson(const std::vector<plan::Plan>& plans, const std::function<void(std::string_view)>& sink) {
  std::string text;
  text.reserve(kRenderChunkBytes + (kRenderChunkBytes >> 2));
  JsonWriter w(&text, 2);
  Chunks chunks(&text, sink);
  if (plans.size() == 1) {
    WritePlanJson(w, plans[0], chunks);
  } else {
    w.BeginObject();
    w.Key("plans");
    w.BeginArray();
    for (const auto& p : plans) WritePlanJson(w, p, chunks);
    w.EndArray();
    w.EndObject();
  }
  text += "\n";
  chunks.Flush();
}

std::string RenderJson(const std::vector<plan::Plan>& plans) {
  std::string out;
  RenderJson(plans, [&out](std::string_view piece) { out += piece; });
  return out;
}

std::string RenderYaml(const std::vector<plan::Plan>& plans) {
  if (plans.size() == 1) return JsonToYaml(PlanToJson(plans[0]));
  json all = json::array();
  for (const auto& p : plans) all.push_back(PlanToJson(p));
  return JsonToYaml(json{{"plans", all}});
}

std::string RenderTable(const std::vector<plan::Plan>& plans) {
  std::ostringstream out;
  for (const auto& p : plans) {
    out << "Policy " << p.policy_name << " (mode " << p.policy_mode
        << (p.window.empty() ? "" : ", window " + p.window) << ")\n\n";
    std::vector<std::vector<std::string>> rows = {{"NODE", "MODEL", "GPUS", "BEFORE", "AFTER", "METHOD", "LAYOUT AFTER", "SAVED/MONTH"}};
    for (const auto& n : p.nodes) {
      rows.push_back({n.name + (n.freed ? " (freed)" : ""), n.gpu_model, std::to_string(n.gpu_count),
                      std::to_string(n.gpus_before), std::to_string(n.gpus_after), n.method, Layout(n),
                      n.monthly_savings_usd > 0 ? Money(n.monthly_savings_usd)
                      : n.gpus_before > n.gpus_after ? "no price" : "-"});
    }
    out << Table(rows) << "\n";
    rows = {{"WORKLOAD", "KIND", "PODS", "PEAK MEM", "PEAK COMPUTE", "HISTORY", "DECISION", "SLICE", "REASON"}};
    for (const auto& w : p.workloads) {
      char hist[32];
      std::snprintf(hist, sizeof(hist), "%.0fh", w.history_hours);
      rows.push_back({w.ref.Display(), w.ref.kind, std::to_string(w.pods.size()),
                      w.peak_memory_mib ? plan::FormatMiB(*w.peak_memory_mib) : "-",
                      w.peak_compute ? plan::FormatPercent(*w.peak_compute) : "-", w.samples ? hist : "-",
                      plan::DecisionName(w.decision), w.slice.empty() ? "-" : w.slice, w.reason});
    }
    out << Table(rows) << "\n";
    bool any = false;
    for (const auto& n : p.nodes) {
      if (n.method == "none" && n.notes.empty()) continue;
      if (!any) out << "Per node:\n";
      any = true;
      out << "  " << n.name << ":";
      if (!n.labels.empty()) {
        for (const auto& [k, v] : n.labels) out << " " << k << "=" << v;
      }
      out << "\n";
      if (n.method != "none") out << "    isolation: " << n.isolation << "\n";
      for (const auto& d : n.disrupted_pods) out << "    disrupts: " << d.pod << " (" << d.owner << "): " << d.why << "\n";
      for (const auto& note : n.notes) out << "    note: " << note << "\n";
    }
    if (any) out << "\n";
    MigrationOrder(p.schedule, out);
    for (const auto& w : p.warnings) out << "warning: " << w << "\n";
    const auto& s = p.summary;
    out << "Total: GPUs in use " << s.gpus_before << " -> " << s.gpus_after << " (" << s.gpus_freed << " freed), "
        << s.nodes_freed << " nodes freed; " << Money(s.savings_realizable_usd)
        << "/month realizable (the freed nodes' price, once they are removed), " << Money(s.capacity_freed_usd)
        << "/month of capacity freed on nodes that stay (money only when it absorbs work that would add a node); "
        << s.workloads_to_mig
        << " workloads to MIG, " << s.workloads_to_time_slicing << " to time-slicing, "
        << (s.workloads - s.workloads_to_mig - s.workloads_to_time_slicing) << " unchanged; " << s.pods_disrupted
        << (s.pods_disrupted == 1 ? " staying pod" : " staying pods") << " disrupted.\n";
    if (s.safety_cost_gpus > 0 || s.safety_cost_monthly_usd >= 0.005) {
      out << "Safety cost: disrupting every staying pod (policy spec.disruption.stayingPods: Any) would free "
          << s.safety_cost_gpus << " more GPUs and " << Money(s.safety_cost_monthly_usd) << "/month more.\n";
    }
    if (p.policy_mode == "Proposal") out << "Proposal only: nothing was changed in the cluster.\n";
    if (&p != &plans.back()) out << "\n";
  }
  return EscapeControl(out.str(), /*keep_newlines=*/true);
}

}  // namespace kubeon::cli
