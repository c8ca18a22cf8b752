// See reviewer_api.h.
#include "controller/reviewer_api.h"

#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "apply/change_json.h"
#include "apply/rfc3339.h"
#include "audit/change_id.h"
#include "audit/decision.h"
#include "controller/web_assets.h"
#include "mig/catalog.h"
#include "plan/schedule_json.h"

namespace kubeon::controller {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

// 'self' only; no inline script or style, nothing from another origin.
constexpr const char* kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

void SecurityHeaders(httplib::Response& res) {
  res.set_header("Content-Security-Policy", kCsp);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Frame-Options", "DENY");
}

void SendJson(httplib::Response& res, int status, const json& body) {
  SecurityHeaders(res);
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(), "application/json");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  SendJson(res, status, json{{"error", message}});
}

void SendAsset(const httplib::Request& req, httplib::Response& res, const WebAsset& a) {
  SecurityHeaders(res);
  res.set_header("ETag", std::string(a.etag));
  res.set_header("Cache-Control", "no-cache");
  if (req.get_header_value("If-None-Match") == a.etag) {
    res.status = 304;
    return;
  }
  res.status = 200;
  res.set_content(std::string(a.body), std::string(a.content_type).c_str());
}

std::string Rfc3339(Clock::time_point t) { return apply::FormatTime(std::chrono::floor<std::chrono::seconds>(t)); }

const mig::GpuModel* Model(const std::string& id) {
  return id.empty() ? nullptr : mig::MigCatalog::Builtin().FindModel(id);
}

// Replicas N of a time-slicing slice "1/N"; 0 when it is not one.
int Replicas(const std::string& slice) {
  if (slice.rfind("1/", 0) != 0) return 0;
  try {
    return std::max(0, std::stoi(slice.substr(2)));
  } catch (...) {
    return 0;
  }
}

// Memory a workload's pod gets on its slice (MiB), nullopt when unknown.
std::optional<int64_t> SliceMemory(const plan::WorkloadDecision& w) {
  const mig::GpuModel* m = Model(w.gpu_model);
  if (!m) return std::nullopt;
  if (w.decision == plan::Decision::kMig) {
    const mig::MigProfile* p = mig::FindProfile(*m, w.slice);
    if (p) return p->memory_mib;
    return std::nullopt;
  }
  if (w.decision == plan::Decision::kTimeSlicing) {
    const int n = Replicas(w.slice);
    if (n > 0) return m->memory_mib / n;
    return std::nullopt;
  }
  return m->memory_mib * std::max<int64_t>(1, w.gpus_per_pod);
}

json SummaryJson(const plan::Summary& s) {
  return {{"gpus_before", s.gpus_before},
          {"gpus_after", s.gpus_after},
          {"gpus_freed", s.gpus_freed},
          {"nodes_freed", s.nodes_freed},
          {"monthly_savings_usd", s.monthly_savings_usd},
          {"savings_realizable_usd", s.savings_realizable_usd},
          {"capacity_freed_usd", s.capacity_freed_usd},
          {"workloads", s.workloads},
          {"workloads_to_mig", s.workloads_to_mig},
          {"workloads_to_time_slicing", s.workloads_to_time_slicing},
          {"pods_disrupted", s.pods_disrupted},
          {"safety_cost_gpus", s.safety_cost_gpus},
          {"safety_cost_monthly_usd", s.safety_cost_monthly_usd}};
}

json OptionalJson(const auto& v) { return v ? json(*v) : json(nullptr); }

json GpuJson(const plan::NodePlan& n, const plan::GpuAfter& g) {
  const mig::GpuModel* m = Model(n.gpu_model);
  json slices = json::array();
  auto workload = [&](size_t i) { return i < g.workloads.size() ? g.workloads[i] : std::string(); };
  if (g.mig_enabled) {
    for (size_t i = 0; i < g.mig_devices.size(); ++i) {
      const mig::MigProfile* p = m ? mig::FindProfile(*m, g.mig_devices[i]) : nullptr;
      const double fraction = p && m->memory_slices > 0 ? static_cast<double>(p->memory_slices) / m->memory_slices
                                                        : 1.0 / static_cast<double>(g.mig_devices.size());
      slices.push_back({{"profile", g.mig_devices[i]},
                        {"fraction", fraction},
                        {"memory_mib", p ? json(p->memory_mib) : json(nullptr)},
                        {"workload", workload(i)}});
    }
  } else if (g.whole || g.workloads.size() <= 1 || !n.time_slicing_replicas) {
    slices.push_back({{"profile", "whole"},
                      {"fraction", 1.0},
                      {"memory_mib", m ? json(m->memory_mib) : json(nullptr)},
                      {"workload", workload(0)}});
  } else {
    const int r = std::max(1, *n.time_slicing_replicas);
    for (size_t i = 0; i < g.workloads.size(); ++i) {
      slices.push_back({{"profile", "1/" + std::to_string(r)},
                        {"fraction", 1.0 / r},
                        {"memory_mib", m ? json(m->memory_mib / r) : json(nullptr)},
                        {"workload", g.workloads[i]}});
    }
  }
  return {{"index", g.index}, {"mig_enabled", g.mig_enabled}, {"whole", g.whole}, {"slices", slices}};
}

json NodeJson(const plan::NodePlan& n) {
  json gpus = json::array();
  for (const auto& g : n.gpus) gpus.push_back(GpuJson(n, g));
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
          {"time_slicing_replicas", OptionalJson(n.time_slicing_replicas)},
          {"isolation", n.isolation},
          {"hourly_price_usd", OptionalJson(n.hourly_price_usd)},
          {"monthly_savings_usd", n.monthly_savings_usd},
          {"notes", n.notes},
          {"disrupted_pods", disrupted},
          {"gpus", gpus}};
}

json WorkloadJson(const plan::WorkloadDecision& w, double headroom) {
  const std::optional<int64_t> slice_mib = SliceMemory(w);
  const mig::GpuModel* m = Model(w.gpu_model);
  json needed = nullptr;
  if (w.peak_memory_mib) needed = static_cast<int64_t>(std::ceil(static_cast<double>(*w.peak_memory_mib) * (1 + headroom)));
  return {{"namespace", w.ref.namespace_},
          {"kind", w.ref.kind},
          {"name", w.ref.name},
          {"pods", w.pods},
          {"gpus_per_pod", w.gpus_per_pod},
          {"gpu_model", w.gpu_model},
          {"peak_memory_mib", OptionalJson(w.peak_memory_mib)},
          {"peak_compute", OptionalJson(w.peak_compute)},
          {"history_hours", w.history_hours},
          {"samples", w.samples},
          {"decision", plan::DecisionName(w.decision)},
          {"slice", w.slice},
          {"slice_memory_mib", OptionalJson(slice_mib)},
          {"gpu_memory_mib", m ? json(m->memory_mib) : json(nullptr)},
          {"needed_mib", needed},  // peak x (1 + headroom): what the slice must hold
          {"reason", w.reason},
          {"isolation", w.isolation}};
}

double Headroom(const PolicyView& v) { return v.policy ? v.policy->headroom : 0.2; }

const plan::WorkloadDecision* FindWorkload(const PolicyView& v, const model::WorkloadRef& ref) {
  if (!v.plan) return nullptr;
  for (const auto& w : v.plan->workloads) {
    if (w.ref == ref) return &w;
  }
  return nullptr;
}

json PolicyListEntry(const PolicyView& v) {
  json e = {{"name", v.name},
            {"generation", v.generation},
            {"mode", v.policy ? json(std::string(policy::ModeName(v.policy->mode))) : json(nullptr)},
            {"planned_at", v.planned_at},
            {"error", v.error},
            {"window_open", v.window_open},
            {"conflicts", v.conflicts},
            {"summary", nullptr},
            {"steps", 0},
            {"feasible", nullptr}};
  if (v.plan) {
    e["summary"] = SummaryJson(v.plan->summary);
    e["steps"] = v.plan->schedule.steps.size();
    e["feasible"] = v.plan->schedule.feasible;
  }
  return e;
}

struct RevertRequest {
  std::string by, at;
};

// `kubeon-gpu changes -o json`'s record (apply/change_json.h) plus the
// pending revert request of a done change.
json ChangeJson(const audit::ChangeRecord& r, Clock::time_point now, const std::optional<RevertRequest>& revert) {
  json out = apply::ChangeToJson(r, now);
  out["revert_requested"] = nullptr;
  if (revert && r.state == audit::ChangeState::kDone) out["revert_requested"] = {{"by", revert->by}, {"at", revert->at}};
  return out;
}

json EntryJson(const audit::LogEntry& e) {
  json data = json::parse(e.data_json, nullptr, /*allow_exceptions=*/false);
  if (data.is_discarded()) data = e.data_json;
  return {{"seq", e.seq},     {"time", e.time},       {"change", e.change_id}, {"action", e.action},
          {"outcome", e.outcome}, {"detail", e.detail}, {"data", data}};
}

// The bearer token of the Authorization header, "" when absent or malformed.
std::string BearerToken(const httplib::Request& req) {
  const std::string h = req.get_header_value("Authorization");
  constexpr std::string_view kPrefix = "Bearer ";
  if (h.size() <= kPrefix.size() || h.compare(0, kPrefix.size(), kPrefix) != 0) return "";
  std::string token = h.substr(kPrefix.size());
  for (char c : token) {
    if (c <= ' ' || c == 0x7f) return "";
  }
  return token;
}

}  // namespace

json PlanViewJson(const PolicyView& v) {
  json out = {{"name", v.name},
              {"generation", v.generation},
              {"planned_at", v.planned_at},
              {"error", v.error},
              {"conflicts", v.conflicts},
              {"window_open", v.window_open},
              {"policy", nullptr},
              {"plan", nullptr}};
  if (v.policy) {
    out["policy"] = {{"mode", std::string(policy::ModeName(v.policy->mode))},
                     {"headroom", v.policy->headroom},
                     {"headroom_text", v.policy->headroom_text},
                     {"window", v.plan ? json(v.plan->window) : json(nullptr)}};
  }
  if (!v.plan) return out;
  const plan::Plan& p = *v.plan;
  const double headroom = Headroom(v);
  json workloads = json::array();
  for (const auto& w : p.workloads) workloads.push_back(WorkloadJson(w, headroom));
  json nodes = json::array();
  for (const auto& n : p.nodes) nodes.push_back(NodeJson(n));
  out["plan"] = {{"summary", SummaryJson(p.summary)},
                 {"warnings", p.warnings},
                 {"window", p.window},
                 {"workloads", workloads},
                 {"nodes", nodes},
                 {"schedule", plan::ScheduleToJson(p.schedule)}};
  return out;
}

ReviewerApi::ReviewerApi(PolicyViews& views, AuditStoreFactory stores, HistorySource& history, Authenticator& auth,
                         ReviewerOptions options)
    : views_(views), stores_(std::move(stores)), history_(history), auth_(auth), options_(std::move(options)) {
  if (!options_.now) options_.now = [] { return Clock::now(); };
}

void ReviewerApi::Register(httplib::Server& server) {
  server.set_payload_max_length(options_.max_body_bytes);

  server.Get("/", [](const httplib::Request& req, httplib::Response& res) {
    const WebAsset* a = FindWebAsset("/");
    if (a) SendAsset(req, res, *a);
  });
  server.Get(R"(/static/([A-Za-z0-9._-]+))", [](const httplib::Request& req, httplib::Response& res) {
    const WebAsset* a = FindWebAsset("/static/" + req.matches[1].str());
    if (!a) return SendError(res, 404, "no such file");
    SendAsset(req, res, *a);
  });

  server.Get("/api/policies", [this](const httplib::Request&, httplib::Response& res) {
    json all = json::array();
    for (const auto& v : views_.All()) all.push_back(PolicyListEntry(v));
    SendJson(res, 200, json{{"policies", all}});
  });
  server.Get(R"(/api/policies/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto v = views_.Get(req.matches[1].str());
    if (!v) return SendError(res, 404, "no policy \"" + req.matches[1].str() + "\"");
    SendJson(res, 200, PlanViewJson(*v));
  });
  server.Get(R"(/api/policies/([^/]+)/history)", [this](const httplib::Request& req, httplib::Response& res) {
    auto v = views_.Get(req.matches[1].str());
    if (!v) return SendError(res, 404, "no policy \"" + req.matches[1].str() + "\"");
    model::WorkloadRef ref{req.get_param_value("namespace"), req.get_param_value("kind"),
                           req.get_param_value("name")};
    const plan::WorkloadDecision* w = FindWorkload(*v, ref);
    if (!w) {
      return SendError(res, 404, "policy \"" + v->name + "\" has no workload " + ref.kind + " " + ref.Display());
    }
    int points = 200;
    if (req.has_param("points")) {
      try {
        points = std::stoi(req.get_param_value("points"));
      } catch (...) {
        return SendError(res, 400, "points: not a number");
      }
    }
    points = std::clamp(points, 2, 1000);
    auto series = history_.MemoryMiB(ref, points);
    if (!series.ok()) return SendError(res, 502, "history: " + series.status().message());
    json pts = json::array();
    for (const auto& p : *series) pts.push_back(json::array({p.unix_seconds, p.value}));
    SendJson(res, 200,
             json{{"workload", {{"namespace", ref.namespace_}, {"kind", ref.kind}, {"name", ref.name}}},
                  {"points", pts},
                  {"peak_memory_mib", OptionalJson(w->peak_memory_mib)},
                  {"slice", w->slice},
                  {"decision", plan::DecisionName(w->decision)},
                  {"slice_memory_mib", OptionalJson(SliceMemory(*w))},
                  {"headroom", Headroom(*v)}});
  });

  server.Get("/api/changes", [this](const httplib::Request&, httplib::Response& res) {
    auto store = stores_();
    if (!store.ok()) return SendError(res, 503, store.status().message());
    auto list = (*store)->ListChanges();
    if (!list.ok()) return SendError(res, 503, list.status().message());
    auto log = (*store)->Log("");
    if (!log.ok()) return SendError(res, 503, log.status().message());
    std::map<std::string, RevertRequest> reverts;  // change -> latest request
    for (const auto& e : *log) {
      if (e.action != audit::kRevertRequestAction) continue;
      json data = json::parse(e.data_json, nullptr, false);
      reverts[e.change_id] = {data.is_object() ? data.value("user", "") : "", e.time};
    }
    const Clock::time_point now = options_.now();
    json all = json::array();
    for (const auto& r : *list) {
      auto it = reverts.find(r.id);
      all.push_back(ChangeJson(r, now, it == reverts.end() ? std::nullopt : std::optional(it->second)));
    }
    SendJson(res, 200, json{{"changes", all}});
  });
  server.Get(R"(/api/changes/([^/]+)/log)", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1].str();
    if (Status bad = audit::CheckChangeId(id); !bad.ok()) return SendError(res, 400, bad.message());
    auto store = stores_();
    if (!store.ok()) return SendError(res, 503, store.status().message());
    auto found = (*store)->GetChange(id);
    if (!found.ok()) return SendError(res, 503, found.status().message());
    if (!found->has_value()) return SendError(res, 404, "no change " + id);
    auto log = (*store)->Log(id);
    if (!log.ok()) return SendError(res, 503, log.status().message());
    json entries = json::array();
    for (const auto& e : *log) entries.push_back(EntryJson(e));
    SendJson(res, 200, json{{"entries", entries}});
  });

  auto write = [this](audit::DecisionRequest::Kind kind) {
    return [this, kind](const httplib::Request& req, httplib::Response& res) {
      const std::string id = req.matches[1].str();
      if (req.body.size() > options_.max_body_bytes) {
        return SendError(res, 413, "request body over " + std::to_string(options_.max_body_bytes) + " bytes");
      }
      if (Status bad = audit::CheckChangeId(id); !bad.ok()) return SendError(res, 400, bad.message());
      json body = json::object();
      if (!req.body.empty()) {
        body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
        if (!body.is_object()) return SendError(res, 400, "the body is not a JSON object");
      }
      const std::string token = BearerToken(req);
      if (token.empty()) {
        res.set_header("WWW-Authenticate", "Bearer");
        return SendError(res, 401, "a Kubernetes bearer token is required (Authorization: Bearer <token>)");
      }
      const char* verb = kind == audit::DecisionRequest::Kind::kRevertRequest ? kRevertVerb : kApproveVerb;
      const AuthDecision who = auth_.Check(token, verb, id);
      switch (who.code) {
        case AuthCode::kOk:
          break;
        case AuthCode::kUnauthenticated:
          res.set_header("WWW-Authenticate", "Bearer");
          return SendError(res, 401, who.message);
        case AuthCode::kForbidden:
          return SendError(res, 403, who.message);
        case AuthCode::kUnavailable:
          return SendError(res, 503, who.message);
      }
      audit::DecisionRequest d;
      d.kind = kind;
      d.username = who.username;
      d.groups = who.groups;
      const Clock::time_point now = options_.now();
      d.at = Rfc3339(now);
      d.expires_at = Rfc3339(now + options_.approval_ttl);
      if (kind == audit::DecisionRequest::Kind::kApprove) {
        if (!body.contains("hash") || !body["hash"].is_string() || body["hash"].get<std::string>().empty()) {
          return SendError(res, 400, "approve needs {\"hash\": the change's content hash as reviewed}");
        }
        d.hash = body["hash"].get<std::string>();
      }
      if (kind == audit::DecisionRequest::Kind::kReject && body.contains("reason")) {
        if (!body["reason"].is_string()) return SendError(res, 400, "reason: not a string");
        d.reason = body["reason"].get<std::string>();
      }
      auto store = stores_();
      if (!store.ok()) return SendError(res, 503, store.status().message());
      auto found = (*store)->GetChange(id);
      if (!found.ok()) return SendError(res, 503, found.status().message());
      if (!found->has_value()) return SendError(res, 404, "no change " + id);
      audit::ChangeRecord r = **found;
      auto entry = audit::DecideChange(r, d);
      if (!entry.ok()) return SendError(res, 409, entry.status().message());
      if (kind != audit::DecisionRequest::Kind::kRevertRequest) {
        Status put = (*store)->PutChange(r, r.revision);
        if (!put.ok()) return SendError(res, put.code() == StatusCode::kConflict ? 409 : 503, put.message());
      }
      auto seq = (*store)->Append(*entry);
      if (!seq.ok()) return SendError(res, 503, seq.status().message());
      std::optional<RevertRequest> rr;
      if (kind == audit::DecisionRequest::Kind::kRevertRequest) rr = RevertRequest{who.username, d.at};
      SendJson(res, kind == audit::DecisionRequest::Kind::kRevertRequest ? 202 : 200,
               json{{"change", ChangeJson(r, now, rr)}, {"detail", entry->detail}, {"user", who.username}});
    };
  };
  server.Post(R"(/api/changes/([^/]+)/approve)", write(audit::DecisionRequest::Kind::kApprove));
  server.Post(R"(/api/changes/([^/]+)/reject)", write(audit::DecisionRequest::Kind::kReject));
  server.Post(R"(/api/changes/([^/]+)/revert)", write(audit::DecisionRequest::Kind::kRevertRequest));
}

const WebAsset* FindWebAsset(std::string_view url) {
  for (const auto& a : WebAssets()) {
    if (a.url == url) return &a;
  }
  return nullptr;
}

}  // namespace kubeon::controller
