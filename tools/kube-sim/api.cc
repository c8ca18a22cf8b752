// See api.h.
#include "api.h"

#include <thread>

#include "discovery.h"
#include "openapi_endpoint.h"
#include "rest.h"
#include "route.h"
#include "table.h"

namespace kubeon::kubesim {

std::string ApiRequest::Param(const std::string& key) const {
  auto it = query.find(key);
  return it == query.end() ? std::string() : it->second;
}

std::string ApiRequest::Header(const std::string& key) const {
  auto it = headers.find(key);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

ApiError InjectedFailure(int code) {
  ApiError e;
  e.code = code;
  e.message = "injected failure (kube-sim fault)";
  switch (code) {
    case 429: e.reason = "TooManyRequests"; break;
    case 503: e.reason = "ServiceUnavailable"; break;
    case 504: e.reason = "Timeout"; break;
    case 409: e.reason = "Conflict"; break;
    default: e.reason = "InternalError";
  }
  if (e.code < 400) e.code = 500;
  return e;
}

bool IsWatch(const ApiRequest& req, const Route& r) {
  std::string w = req.Param("watch");
  return r.watch_prefix || (req.method == "GET" && (w == "true" || w == "1"));
}

ApiResponse Text(int status, const std::string& body) {
  ApiResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = body;
  return r;
}

}  // namespace

Api::Api(Simulator& sim, std::string token, std::string server_address)
    : sim_(sim), token_(std::move(token)), server_address_(std::move(server_address)) {}

ApiResponse Api::Handle(const ApiRequest& req) {
  const bool sim_path = req.path.rfind("/sim/", 0) == 0;
  if (!sim_path) {
    auto latency = sim_.faults().Latency(req.method, req.path);
    if (latency.count() > 0) std::this_thread::sleep_for(latency);
  }
  std::optional<UserInfo> user;
  if (req.client_cert_verified) {
    user = CertUser(req.client_cert_cn, req.client_cert_orgs);
  } else if (std::string auth = req.Header("authorization"); !auth.empty()) {
    user = TokenUser(auth, token_, {});
    if (!user) {
      std::lock_guard<std::mutex> lock(sim_.mutex());
      user = TokenUser(auth, "", sim_.settings().users);
    }
  }
  if (!user) return ErrorResponse(ApiError::Unauthorized());
  if (!sim_path) {
    if (auto code = sim_.faults().FailRequest(req.method, req.path)) return ErrorResponse(InjectedFailure(*code));
  }
  return Dispatch(req, *user);
}

ApiResponse Api::Dispatch(const ApiRequest& req, const UserInfo& user) {
  std::string path = req.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.rfind("/sim/", 0) == 0) return SimEndpoint(req);
  if (path == "/healthz" || path == "/livez" || path == "/readyz" || path.rfind("/healthz/", 0) == 0 ||
      path.rfind("/livez/", 0) == 0 || path.rfind("/readyz/", 0) == 0) {
    return Text(200, "ok");
  }
  const bool get = req.method == "GET";
  if (path == "/version") {
    std::lock_guard<std::mutex> lock(sim_.mutex());
    return get ? JsonResponse(200, VersionInfo(sim_.settings().server_version)) : ErrorResponse(ApiError::MethodNotAllowed("GET only"));
  }
  if (path == "/openapi/v2" || path == "/openapi/v3" || path.rfind("/openapi/v3/", 0) == 0) {
    std::string version;
    {
      std::lock_guard<std::mutex> lock(sim_.mutex());
      version = sim_.settings().server_version;
    }
    return ServeOpenApi(req, path, version, &sim_.custom_types());
  }
  if (path == "/api") return JsonResponse(200, ApiVersions(server_address_));
  const CustomTypes* custom = &sim_.custom_types();
  if (path == "/apis") return JsonResponse(200, ApiGroupList(custom));
  if (path == "/api/v1") return JsonResponse(200, *ApiResourceList("", "v1"));
  if (path.rfind("/apis/", 0) == 0) {
    std::string rest = path.substr(6);
    size_t slash = rest.find('/');
    if (slash == std::string::npos) {
      auto g = ApiGroup(rest, custom);
      return g ? JsonResponse(200, *g) : ErrorResponse(PathNotFound());
    }
    if (rest.find('/', slash + 1) == std::string::npos) {
      auto l = ApiResourceList(rest.substr(0, slash), rest.substr(slash + 1), custom);
      return l ? JsonResponse(200, *l) : ErrorResponse(PathNotFound());
    }
  }
  if (auto version = SelfSubjectReviewVersion(path)) {
    if (req.method != "POST") return ErrorResponse(ApiError::MethodNotAllowed("selfsubjectreviews: create only"));
    return JsonResponse(201, SelfSubjectReview(user, *version));
  }
  if (path.rfind("/api/", 0) != 0 && path.rfind("/apis/", 0) != 0) return ErrorResponse(PathNotFound());
  if (auto log = PodLog(req, path)) return *log;
  auto route = ParseRoute(path, custom);
  if (!route.ok()) return ErrorResponse(route.error());
  if (IsWatch(req, route.value())) return Watch(req, route.value());
  std::lock_guard<std::mutex> lock(sim_.mutex());
  return RestHandle(sim_, route.value(), req);
}

ApiResponse Api::Watch(const ApiRequest& req, const Route& r) {
  const ResourceType& t = *r.type;
  if (req.method != "GET") return ErrorResponse(ApiError::MethodNotAllowed("watch needs GET"));
  auto ls = LabelSelector::Parse(req.Param("labelSelector"));
  if (!ls.ok()) return ErrorResponse(ls.error());
  std::string fields = req.Param("fieldSelector");
  if (!r.name.empty()) fields += (fields.empty() ? "" : ",") + std::string("metadata.name=") + r.name;
  auto fs = FieldSelector::Parse(fields, t.StoreId());
  if (!fs.ok()) return ErrorResponse(fs.error());
  WatchSpec spec{t.StoreId(), r.ns, ls.value(), fs.value()};
  std::optional<uint64_t> from;
  std::string rv = req.Param("resourceVersion");
  const bool initial = req.Param("sendInitialEvents") == "true";
  if (!rv.empty() && rv != "0" && !initial) {
    if (rv.find_first_not_of("0123456789") != std::string::npos) {
      return ErrorResponse(ApiError::BadRequest("invalid resource version \"" + rv + "\""));
    }
    from = std::strtoull(rv.c_str(), nullptr, 10);
  }
  int64_t timeout = 0;
  if (std::string ts = req.Param("timeoutSeconds"); !ts.empty()) timeout = std::atoll(ts.c_str());
  WatchOptions opts;
  opts.api_version = t.ApiVersion(r.version);
  opts.kind = t.kind;
  opts.bookmarks = req.Param("allowWatchBookmarks") == "true";
  opts.stopping = &stopping_;
  opts.drop_after = sim_.faults().WatchDropAfter(req.path);
  if (WantsTable(req.Header("accept"))) {
    Simulator* sim = &sim_;
    std::string include = req.Param("includeObject");
    const ResourceType* type = r.type;  // registry entries are never freed
    opts.transform = [sim, type, include](const json& obj) {
      json meta = {{"resourceVersion", Str(obj, {"metadata", "resourceVersion"})}};
      return RenderTable(*type, {&obj}, sim->Now(), meta, include);
    };
  }
  std::lock_guard<std::mutex> lock(sim_.mutex());
  Store& store = sim_.store();
  const Settings& settings = sim_.settings();
  opts.bookmark_interval = std::chrono::milliseconds(std::max<int64_t>(10, settings.bookmark_interval_ms));
  opts.deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(timeout > 0 ? timeout : settings.watch_max_seconds);
  opts.start_rv = store.ResourceVersion();
  opts.published_rv = [&store] { return store.PublishedRevision(); };
  if (initial) {
    opts.initial_events_bookmark = true;
    store.ForEach(t.StoreId(), r.ns, "", [&](const std::string&, const json& o) {
      if (spec.Matches(o)) ++opts.initial_events;
      return true;
    });
  }
  size_t max_queue = std::max<size_t>(10000, 2 * store.Count(t.StoreId()) + 1000);
  auto w = store.Watch(spec, from, max_queue);
  ApiResponse resp;
  resp.content_type = "application/json";
  if (!w.ok()) {
    json line = {{"type", "ERROR"}, {"object", w.error().ToStatus()}};
    resp.watch = std::make_shared<WatchStream>(nullptr, opts, line.dump() + "\n");
    return resp;
  }
  resp.watch = std::make_shared<WatchStream>(w.value(), opts);
  return resp;
}

std::optional<ApiResponse> Api::PodLog(const ApiRequest& req, const std::string& path) {
  // /api/v1/namespaces/<ns>/pods/<name>/log
  const std::string prefix = "/api/v1/namespaces/";
  const std::string suffix = "/log";
  if (path.rfind(prefix, 0) != 0 || path.size() <= prefix.size() + suffix.size() ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return std::nullopt;
  }
  std::string middle = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  size_t slash = middle.find('/');
  if (slash == std::string::npos || middle.compare(slash, 6, "/pods/") != 0) return std::nullopt;
  std::string ns = middle.substr(0, slash), name = middle.substr(slash + 6);
  if (ns.empty() || name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  if (req.method != "GET") return ErrorResponse(ApiError::MethodNotAllowed("pods/log: GET only"));
  std::lock_guard<std::mutex> lock(sim_.mutex());
  const json* pod = sim_.store().Get(kPods, ns, name);
  if (pod == nullptr) return ErrorResponse(ApiError::NotFound("", "pods", name));
  std::string text = sim_.logs().Text(Uid(*pod));
  if (std::string tail = req.Param("tailLines"); !tail.empty() && tail.find_first_not_of("0123456789") == std::string::npos) {
    size_t keep = std::strtoull(tail.c_str(), nullptr, 10);
    std::vector<std::string> lines;
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find('\n', start);
      lines.push_back(text.substr(start, end - start + 1));
      start = end + 1;
    }
    text.clear();
    for (size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i) text += lines[i];
  }
  return Text(200, text);
}

ApiResponse Api::SimEndpoint(const ApiRequest& req) {
  std::string path = req.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const bool get = req.method == "GET", post = req.method == "POST";
  json body;
  if (post) {
    body = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
    if (body.is_discarded()) return ErrorResponse(ApiError::BadRequest("body is not valid JSON"));
  }
  if (path == "/sim/state" && get) {
    std::lock_guard<std::mutex> lock(sim_.mutex());
    return JsonResponse(200, sim_.State());
  }
  if (path == "/sim/faults" && (get || post)) {
    if (post) {
      auto ok = sim_.faults().Configure(body);
      if (!ok.ok()) return ErrorResponse(ok.error());
    }
    return JsonResponse(200, sim_.faults().State());
  }
  if (path == "/sim/settings" && (get || post)) {
    std::lock_guard<std::mutex> lock(sim_.mutex());
    if (post) {
      auto ok = sim_.UpdateSettings(body);
      if (!ok.ok()) return ErrorResponse(ok.error());
    }
    return JsonResponse(200, sim_.settings().ToJson());
  }
  if (path == "/sim/clock" && (get || post)) {
    std::lock_guard<std::mutex> lock(sim_.mutex());
    if (post) {
      auto it = body.find("advanceSeconds");
      if (!body.is_object() || it == body.end() || !it->is_number() || it->get<double>() < 0 ||
          it->get<double>() > 1e9) {
        return ErrorResponse(ApiError::BadRequest("clock: body must be {\"advanceSeconds\": N} with 0 <= N <= 1e9"));
      }
      sim_.AdvanceClock(std::chrono::milliseconds(static_cast<int64_t>(it->get<double>() * 1000.0)));
    }
    return JsonResponse(200, sim_.ClockState());
  }
  if (path == "/sim/devices" && get) {
    std::lock_guard<std::mutex> lock(sim_.mutex());
    return JsonResponse(200, sim_.gpus().View());
  }
  if (path == "/sim/reconcile" && post) {
    std::lock_guard<std::mutex> lock(sim_.mutex());
    sim_.AfterWrite();
    return JsonResponse(200, sim_.State());
  }
  return ErrorResponse(PathNotFound());
}

}  // namespace kubeon::kubesim
