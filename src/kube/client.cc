// See client.h.
#include "kube/client.h"

#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_set>
#include <vector>

#include "kube/curl_transport.h"

namespace kubeon::kube {

using json = nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kMaxListRestarts = 2;

// Which resource a path names: /api/v1/[namespaces/NS/]RES[/NAME[/SUB]] or
// /apis/GROUP/VERSION/[namespaces/NS/]RES[/NAME[/SUB]].
struct ResourceRef {
  std::string resource;
  std::string name;
  std::string namespace_;
};

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string p = path.substr(0, path.find('?'));
  size_t start = 0;
  while (start < p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    if (end > start) parts.push_back(p.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

ResourceRef ParseResource(const std::string& path) {
  ResourceRef ref;
  std::vector<std::string> p = SplitPath(path);
  std::string group;
  size_t i = 0;
  if (p.size() >= 2 && p[0] == "api") {
    i = 2;
  } else if (p.size() >= 3 && p[0] == "apis") {
    group = p[1];
    i = 3;
  } else {
    ref.resource = path.substr(0, path.find('?'));
    return ref;
  }
  if (i + 1 < p.size() && p[i] == "namespaces" && i + 2 < p.size()) {
    ref.namespace_ = p[i + 1];
    i += 2;
  }
  if (i >= p.size()) {
    ref.resource = path.substr(0, path.find('?'));
    return ref;
  }
  ref.resource = p[i];
  if (!group.empty()) ref.resource += "." + group;
  if (i + 1 < p.size()) ref.name = p[i + 1];
  if (i + 2 < p.size()) {
    // "pods/eviction": the subresource goes after the plural, before the group.
    ref.resource = p[i] + "/" + p[i + 2] + (group.empty() ? "" : "." + group);
  }
  return ref;
}

std::string OneLine(std::string s, size_t max) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

// object[key] when it is a string (an integer for IntField), else the
// fallback: fields of the wrong type in an answer never throw.
std::string StringField(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}
int64_t IntField(const json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string NestingMessage(size_t max_depth) {
  return "the object is nested deeper than " + std::to_string(max_depth) + " levels";
}

// Server text (Status.message, names) may hold line breaks, escape
// sequences or NULs: every control character becomes a space, so an error
// stays one line and cannot drive the terminal.
std::string OneLineControls(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return s;
}

bool IsSuccess(int status) { return status >= 200 && status < 300; }

bool RetryableStatus(int status, bool retry_429) {
  return (status == 429 && retry_429) || (status >= 500 && status != 501);
}

// Retry-After in seconds, 0 when absent or not a number of seconds.
milliseconds RetryAfter(const HttpResponse& r) {
  std::string v = r.Header("Retry-After");
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 6) return milliseconds(0);
  return milliseconds(std::stoll(v) * 1000);
}

// Exponential backoff with jitter, bounded by a deadline.
class Backoff {
 public:
  Backoff(const ClientOptions& o, const std::atomic<bool>* cancel = nullptr)
      : initial_(o.initial_backoff), max_(o.max_backoff), window_(o.retry_deadline), cancel_(cancel) {
    Reset();
  }
  void Reset() {
    next_ = initial_;
    deadline_ = Clock::now() + window_;
  }
  // Sleeps before another attempt (at least `at_least`); false when that
  // would pass the deadline or the watch was cancelled.
  bool Wait(milliseconds at_least = milliseconds(0)) {
    static thread_local std::mt19937_64 rng(std::random_device{}());
    auto base = next_;
    next_ = std::min(next_ * 2, max_);
    std::uniform_int_distribution<int64_t> jitter(base.count() / 2, std::max<int64_t>(base.count(), 1));
    milliseconds delay = std::max(milliseconds(jitter(rng)), at_least);
    auto now = Clock::now();
    if (now >= deadline_) return false;
    auto remaining = std::chrono::duration_cast<milliseconds>(deadline_ - now);
    if (delay > remaining) delay = remaining;
    auto until = now + delay;
    while (Clock::now() < until) {
      if (cancel_ != nullptr && cancel_->load()) return false;
      std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), milliseconds(50)));
    }
    return true;
  }

 private:
  milliseconds initial_, max_, window_;
  const std::atomic<bool>* cancel_;
  milliseconds next_{0};
  Clock::time_point deadline_;
};

std::string ReasonFor(TransportErrorKind kind) {
  switch (kind) {
    case TransportErrorKind::kConnection: return "ConnectionFailed";
    case TransportErrorKind::kTimeout: return "Timeout";
    case TransportErrorKind::kTls: return "TLSError";
    case TransportErrorKind::kCancelled: return "Cancelled";
    case TransportErrorKind::kTooLarge: return "ResponseTooLarge";
    case TransportErrorKind::kOther: return "RequestFailed";
  }
  return "RequestFailed";
}

std::string AddQuery(const std::string& path, const std::string& key, const std::string& value) {
  return path + (path.find('?') == std::string::npos ? "?" : "&") + key + "=" + QueryEscape(value);
}

// The status text for common codes, used when a body has no Status.
std::string StatusText(int status) {
  switch (status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "HTTP " + std::to_string(status);
  }
}

}  // namespace

std::string QueryEscape(const std::string& value) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string ApiError::ToString() const {
  std::string target = resource;
  if (!name.empty()) target += " \"" + name + "\"";
  std::string scope = namespace_.empty() ? "" : " in namespace " + namespace_;
  std::string tries = attempts > 1 ? " (after " + std::to_string(attempts) + " attempts)" : "";
  if (http_status == 401) {
    return OneLineControls("unauthorized: " + verb + " " + target + ": check credentials" + tries);
  }
  if (http_status == 403) {
    std::string where = namespace_.empty() ? " at cluster scope" : scope;
    return OneLineControls("forbidden: cannot " + verb + " " + target + where +
                           (message.empty() ? "" : ": " + message));
  }
  std::string out = verb + " " + target + scope + ": ";
  if (http_status != 0) out += std::to_string(http_status) + " " + reason + ": ";
  return OneLineControls(out + message + tries);
}

StatusCode ApiError::Code() const {
  if (http_status == 0) {
    if (reason == "Aborted" || reason == "Cancelled") return StatusCode::kAborted;
    if (reason == "ResponseTooLarge") return StatusCode::kTooLarge;
    return StatusCode::kUnavailable;  // ConnectionFailed, Timeout, TLSError, BadResponse
  }
  if (reason == "NotFound") return StatusCode::kNotFound;
  if (reason == "AlreadyExists") return StatusCode::kAlreadyExists;
  if (reason == "Conflict") return StatusCode::kConflict;
  if (reason == "Forbidden") return StatusCode::kForbidden;
  if (reason == "Unauthorized") return StatusCode::kUnauthorized;
  if (reason == "Invalid" || reason == "BadRequest") return StatusCode::kInvalid;
  if (reason == "Gone" || reason == "Expired") return StatusCode::kExpired;
  if (reason == "RequestEntityTooLarge") return StatusCode::kTooLarge;
  if (reason == "ServiceUnavailable" || reason == "InternalError" || reason == "Timeout" || reason == "ServerTimeout") {
    return StatusCode::kUnavailable;
  }
  switch (http_status) {
    case 400:
    case 422: return StatusCode::kInvalid;
    case 401: return StatusCode::kUnauthorized;
    case 403: return StatusCode::kForbidden;
    case 404: return StatusCode::kNotFound;
    case 409: return StatusCode::kConflict;
    case 410: return StatusCode::kExpired;
    case 413: return StatusCode::kTooLarge;
    case 429: return resource == "pods/eviction" ? StatusCode::kDisruptionBudget : StatusCode::kThrottled;
    default: return http_status >= 500 ? StatusCode::kUnavailable : StatusCode::kUnknown;
  }
}

struct KubeClient::Call {
  std::string verb;
  ResourceRef ref;

  Call(std::string v, const std::string& path) : verb(std::move(v)), ref(ParseResource(path)) {}

  ApiError Error(int status, std::string reason, std::string message, int attempts) const {
    return ApiError{status, std::move(reason), std::move(message), verb, ref.resource, ref.name, ref.namespace_,
                    attempts};
  }
  ApiError FromTransport(const TransportError& e, int attempts) const {
    return Error(0, ReasonFor(e.kind), e.message, attempts);
  }
  // An ApiError from a non-2xx response, using its Status body when present.
  ApiError FromResponse(const HttpResponse& r, int attempts) const {
    json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    std::string reason = StatusText(r.status);
    std::string message;
    if (body.is_object() && StringField(body, "kind") == "Status") {
      if (body.contains("reason") && body["reason"].is_string() && !body["reason"].get<std::string>().empty()) {
        reason = body["reason"].get<std::string>();
      }
      if (body.contains("message") && body["message"].is_string()) message = body["message"].get<std::string>();
    } else {
      message = OneLine(r.body, 200);
    }
    if (message.empty()) message = "(no message)";
    return Error(r.status, reason, message, attempts);
  }
};

struct KubeClient::Sent {
  HttpResult result;
  int attempts = 1;
};

KubeClient::KubeClient(std::unique_ptr<HttpTransport> transport, RestConfig config, ClientOptions options)
    : transport_(std::move(transport)),
      config_(std::move(config)),
      options_(options),
      token_(config_.token),
      token_read_at_(Clock::now()) {}

Result<std::unique_ptr<KubeClient>> KubeClient::Connect(const RestConfig& config, const ClientOptions& options) {
  auto transport = CurlTransport::Create(config);
  if (!transport.ok()) return transport.status();
  return std::make_unique<KubeClient>(std::move(transport).value(), config, options);
}

std::string KubeClient::Token() {
  std::lock_guard<std::mutex> lock(token_mu_);
  if (!config_.token_file.empty() && Clock::now() - token_read_at_ >= options_.token_refresh) {
    token_read_at_ = Clock::now();
    std::ifstream in(config_.token_file);
    std::stringstream buf;
    buf << in.rdbuf();
    std::string t = buf.str();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (!t.empty()) token_ = t;  // keep the old token when the file is unreadable or empty
  }
  return token_;
}

HttpRequest KubeClient::MakeRequest(const std::string& method, const std::string& path, std::string body,
                                    const std::string& content_type) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.body = std::move(body);
  r.timeout = options_.request_timeout;
  r.max_body_bytes = options_.max_response_bytes;
  r.headers.emplace_back("Accept", "application/json");
  if (!content_type.empty()) r.headers.emplace_back("Content-Type", content_type);
  std::string token = Token();
  if (!token.empty()) r.headers.emplace_back("Authorization", "Bearer " + token);
  return r;
}

KubeClient::Sent KubeClient::Do(const HttpRequest& request, bool retry_429) {
  Backoff backoff(options_);
  int attempts = 0;
  while (true) {
    ++attempts;
    ++requests_;
    HttpResult result = transport_->Send(request);
    milliseconds at_least(0);
    if (result.ok()) {
      if (!RetryableStatus(result.response().status, retry_429)) return Sent{std::move(result), attempts};
      at_least = RetryAfter(result.response());
    } else if (!result.error().retryable()) {
      return Sent{std::move(result), attempts};
    }
    if (!backoff.Wait(at_least)) return Sent{std::move(result), attempts};
  }
}

ApiResult<json> KubeClient::JsonCall(const Call& call, const HttpRequest& request) {
  Sent sent = Do(request, /*retry_429=*/true);
  if (!sent.result.ok()) return call.FromTransport(sent.result.error(), sent.attempts);
  const HttpResponse& r = sent.result.response();
  if (!IsSuccess(r.status)) return call.FromResponse(r, sent.attempts);
  if (FindNestingBeyond(r.body, options_.max_depth) != std::string_view::npos) {
    return call.Error(r.status, "BadResponse", NestingMessage(options_.max_depth), sent.attempts);
  }
  json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return call.Error(r.status, "BadResponse", "response is not JSON: " + OneLine(r.body, 120), sent.attempts);
  }
  return body;
}

ApiResult<json> KubeClient::Get(const std::string& path) {
  return JsonCall(Call("get", path), MakeRequest("GET", path, "", ""));
}

ApiResult<ListResult> KubeClient::List(const std::string& path, const ListOptions& options) {
  ListResult out;
  ListSink sink;
  sink.on_item = [&](const ListPageItem& item) {
    // Depth-checked by ListRaw, so the tree is safe to copy and print.
    json object = json::parse(item.json, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) return Status::Error("items[" + std::to_string(item.index) + "]: not a JSON object");
    out.items.push_back(std::move(object));
    return Status::Ok();
  };
  sink.on_restart = [&] { out.items = json::array(); };
  ApiResult<ListInfo> info = ListRaw(path, options, sink);
  if (!info.ok()) return info.error();
  out.resource_version = std::move(info->resource_version);
  out.kind = std::move(info->kind);
  out.api_version = std::move(info->api_version);
  out.pages = info->pages;
  return out;
}

ApiResult<ListInfo> KubeClient::ListRaw(const std::string& path, const ListOptions& options, const ListSink& sink) {
  const Call call("list", path);
  std::string base = path;
  if (!options.label_selector.empty()) base = AddQuery(base, "labelSelector", options.label_selector);
  if (!options.field_selector.empty()) base = AddQuery(base, "fieldSelector", options.field_selector);
  if (options.limit > 0) base = AddQuery(base, "limit", std::to_string(options.limit));
  int restarts = 0;
  ListInfo out;
  std::string cont;
  std::unordered_set<std::string> tokens_seen;  // a repeated token would loop forever
  while (true) {
    std::string page_path = cont.empty() ? base : AddQuery(base, "continue", cont);
    Sent sent = Do(MakeRequest("GET", page_path, "", ""), /*retry_429=*/true);
    if (!sent.result.ok()) return call.FromTransport(sent.result.error(), sent.attempts);
    HttpResponse& r = sent.result.response();
    if (r.status == 410 && !cont.empty() && restarts < kMaxListRestarts) {
      ++restarts;  // the continue token expired: start over
      out = ListInfo{};
      cont.clear();
      tokens_seen.clear();
      if (sink.on_restart) sink.on_restart();
      continue;
    }
    if (!IsSuccess(r.status)) return call.FromResponse(r, sent.attempts);
    const std::string page_name = "page " + std::to_string(out.pages + 1) + ": ";
    out.bytes += r.body.size();
    if (out.bytes > options_.max_list_bytes) {
      return call.Error(r.status, "ResponseTooLarge",
                        page_name + "the list is larger than " + std::to_string(options_.max_list_bytes) +
                            " bytes in all; stopped listing",
                        sent.attempts);
    }
    Status item_error = Status::Ok();
    auto on_item = [&](const ListPageItem& item) {
      item_error = sink.on_item(item);
      return item_error;
    };
    Result<ListPage> page = ParseListPage(r.body, options_.max_depth, on_item);
    if (!item_error.ok()) return call.Error(0, "Aborted", page_name + item_error.message(), sent.attempts);
    if (!page.ok()) {
      return call.Error(r.status, "BadResponse", page_name + OneLine(page.status().message(), 300), sent.attempts);
    }
    if (out.pages == 0) {
      out.kind = page->kind;
      out.api_version = page->api_version;
      out.resource_version = page->resource_version;
    }
    ++out.pages;
    out.items += page->items;
    if (options.on_page) options.on_page(out.items);
    cont = std::move(page->continue_token);
    if (cont.empty()) return out;
    if (out.pages >= options_.max_list_pages) {
      return call.Error(r.status, "BadResponse",
                        "the server still sends a continue token after " + std::to_string(out.pages) +
                            " pages; stopped listing",
                        sent.attempts);
    }
    if (!tokens_seen.insert(cont).second) {
      return call.Error(r.status, "BadResponse",
                        page_name + "the server sent the same continue token again (\"" + OneLine(cont, 40) +
                            "\"); stopped listing",
                        sent.attempts);
    }
  }
}

ApiResult<std::string> KubeClient::Watch(const std::string& path, const std::string& resource_version,
                                         const WatchOptions& options, const WatchCallback& callback) {
  const Call call("watch", path);
  std::string rv = resource_version;
  Backoff backoff(options_, options.cancel);
  int attempts = 0;
  auto cancelled = [&] { return options.cancel != nullptr && options.cancel->load(); };

  while (!cancelled()) {
    std::string p = AddQuery(path, "watch", "1");
    if (!rv.empty()) p = AddQuery(p, "resourceVersion", rv);
    p = AddQuery(p, "allowWatchBookmarks", "true");
    p = AddQuery(p, "timeoutSeconds", std::to_string(options.timeout_seconds));
    if (!options.label_selector.empty()) p = AddQuery(p, "labelSelector", options.label_selector);
    if (!options.field_selector.empty()) p = AddQuery(p, "fieldSelector", options.field_selector);
    HttpRequest req = MakeRequest("GET", p, "", "");
    req.timeout = std::chrono::seconds(options.timeout_seconds + 30);

    bool gone = false;         // 410: re-list
    bool stop = false;         // the callback said stop
    bool progress = false;     // at least one event arrived
    std::optional<ApiError> event_error;
    std::string buffer;
    StreamHandler handler;
    handler.cancel = options.cancel;
    handler.on_data = [&](std::string_view chunk) {
      buffer.append(chunk);
      size_t start = 0;
      for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(buffer.data() + start, nl - start);
        if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
        // The event is the object nested one level down.
        if (FindNestingBeyond(line, options_.max_depth + 1) != std::string_view::npos) {
          event_error = call.Error(200, "BadResponse", "watch event: " + NestingMessage(options_.max_depth),
                                   attempts);
          return false;
        }
        json ev = json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (!ev.is_object() || !ev.contains("type") || !ev["type"].is_string()) {
          event_error = call.Error(200, "BadResponse", "watch event is not JSON: " + OneLine(std::string(line), 120),
                                   attempts);
          return false;
        }
        const std::string type = ev["type"].get<std::string>();
        json object = ev.contains("object") ? std::move(ev["object"]) : json::object();
        if (type == "ERROR") {
          const int64_t code = IntField(object, "code");
          if (code == 410) {
            gone = true;
          } else {
            HttpResponse fake{code > 0 && code <= 999 ? static_cast<int>(code) : 0, {}, object.dump()};
            event_error = call.FromResponse(fake, attempts);
          }
          return false;
        }
        WatchEventType t;
        if (type == "ADDED") t = WatchEventType::kAdded;
        else if (type == "MODIFIED") t = WatchEventType::kModified;
        else if (type == "DELETED") t = WatchEventType::kDeleted;
        else if (type == "BOOKMARK") t = WatchEventType::kBookmark;
        else continue;  // unknown event types are skipped, as client-go does
        if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
          std::string v = StringField(object["metadata"], "resourceVersion");
          if (!v.empty()) rv = v;
        }
        progress = true;
        if (!callback(WatchEvent{t, std::move(object)})) {
          stop = true;
          return false;
        }
      }
      buffer.erase(0, start);
      if (buffer.size() > options_.max_response_bytes) {
        event_error = call.Error(200, "ResponseTooLarge",
                                 "a watch event is larger than " + std::to_string(options_.max_response_bytes) +
                                     " bytes; stopped reading",
                                 attempts);
        return false;
      }
      return true;
    };

    ++attempts;
    ++requests_;
    const auto stream_start = Clock::now();
    HttpResult result = transport_->Stream(req, handler);
    if (stop || cancelled()) return rv;
    if (progress) {
      backoff.Reset();
      attempts = 0;
    }

    bool retry = false;
    milliseconds at_least(0);
    if (gone) {
      // handled below
    } else if (event_error) {
      if (!RetryableStatus(event_error->http_status, true)) return *event_error;
      retry = true;
    } else if (!result.ok()) {
      if (!result.error().retryable()) return call.FromTransport(result.error(), attempts);
      retry = true;  // dropped: resume from rv
    } else if (result.response().status == 410) {
      gone = true;
    } else if (!IsSuccess(result.response().status)) {
      if (!RetryableStatus(result.response().status, true)) return call.FromResponse(result.response(), attempts);
      at_least = RetryAfter(result.response());
      retry = true;
    } else if (!progress) {
      // A quiet watch the server ends after holding it open (timeoutSeconds)
      // is normal; one that ends at once must not make us spin.
      if (Clock::now() - stream_start < std::chrono::seconds(1)) {
        retry = true;
      } else {
        backoff.Reset();
        attempts = 0;
      }
    }

    if (gone) {
      ListOptions lo;
      lo.label_selector = options.label_selector;
      lo.field_selector = options.field_selector;
      auto list = List(path, lo);
      if (!list.ok()) {
        ApiError e = list.error();
        e.verb = "watch";
        return e;
      }
      rv = list->resource_version;
      json snapshot = {{"items", std::move(list->items)}, {"metadata", {{"resourceVersion", rv}}}};
      if (!callback(WatchEvent{WatchEventType::kResync, std::move(snapshot)})) return rv;
      backoff.Reset();
      attempts = 0;
      continue;
    }
    if (retry && !backoff.Wait(at_least)) {
      if (cancelled()) return rv;
      if (event_error) return *event_error;
      if (!result.ok()) return call.FromTransport(result.error(), attempts);
      if (!IsSuccess(result.response().status)) return call.FromResponse(result.response(), attempts);
      return call.Error(0, "ConnectionFailed", "watch keeps ending without events", attempts);
    }
  }
  return rv;
}

ApiResult<json> KubeClient::Create(const std::string& collection_path, const json& object) {
  return JsonCall(Call("create", collection_path), MakeRequest("POST", collection_path, object.dump(), "application/json"));
}

ApiResult<json> KubeClient::Update(const std::string& path, const json& object) {
  return JsonCall(Call("update", path), MakeRequest("PUT", path, object.dump(), "application/json"));
}

ApiResult<json> KubeClient::UpdateWithRetry(const std::string& path, const Mutation& mutate, int max_attempts) {
  const Call call("update", path);
  ApiError last = call.Error(409, "Conflict", "no attempt made", 0);
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    auto current = Get(path);
    if (!current.ok()) return current.error();
    json object = std::move(current).value();
    Status s = mutate(object);
    if (!s.ok()) return call.Error(0, "Aborted", s.message(), attempt);
    auto put = Update(path, object);
    if (put.ok() || put.error().http_status != 409) return put;
    last = put.error();
    last.attempts = attempt;
  }
  last.message += " (gave up after " + std::to_string(max_attempts) + " conflicting updates)";
  return last;
}

ApiResult<json> KubeClient::Upsert(const std::string& collection_path, const std::string& name, const json& skeleton,
                                   const Mutation& mutate, int max_attempts) {
  const std::string path = collection_path + "/" + name;
  const Call call("update", path);
  ApiError last = call.Error(409, "Conflict", "no attempt made", 0);
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    auto current = Get(path);
    const bool missing = !current.ok() && current.error().http_status == 404;
    if (!current.ok() && !missing) return current.error();
    json object = missing ? skeleton : std::move(current).value();
    if (missing) object["metadata"]["name"] = name;
    Status s = mutate(object);
    if (!s.ok()) return call.Error(0, "Aborted", s.message(), attempt);
    auto written = missing ? Create(collection_path, object) : Update(path, object);
    if (written.ok() || written.error().http_status != 409) return written;
    last = written.error();
    last.attempts = attempt;
  }
  last.message += " (gave up after " + std::to_string(max_attempts) + " conflicting writes)";
  return last;
}

ApiResult<json> KubeClient::Patch(const std::string& path, PatchType type, const json& patch) {
  const char* content_type = type == PatchType::kMerge            ? "application/merge-patch+json"
                             : type == PatchType::kStrategicMerge ? "application/strategic-merge-patch+json"
                                                                  : "application/json-patch+json";
  return JsonCall(Call("patch", path), MakeRequest("PATCH", path, patch.dump(), content_type));
}

ApiResult<EvictionResult> KubeClient::Evict(const std::string& namespace_, const std::string& pod,
                                            const EvictOptions& options) {
  const std::string path = "/api/v1/namespaces/" + namespace_ + "/pods/" + pod + "/eviction";
  const Call call("create", path);
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", namespace_}}}};
  if (options.grace_period_seconds) eviction["deleteOptions"]["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (options.dry_run) eviction["deleteOptions"]["dryRun"] = json::array({"All"});
  Sent sent = Do(MakeRequest("POST", path, eviction.dump(), "application/json"), /*retry_429=*/false);
  if (!sent.result.ok()) return call.FromTransport(sent.result.error(), sent.attempts);
  const HttpResponse& r = sent.result.response();
  if (IsSuccess(r.status)) return EvictionResult{EvictionOutcome::kEvicted, ""};
  ApiError e = call.FromResponse(r, sent.attempts);
  if (r.status == 429) {
    // The budget's own words are in details.causes (reason DisruptionBudget).
    // API Priority and Fairness answers 429 too, with a Retry-After and no
    // such cause: that one is throttling, to be retried when the server says.
    json body = json::parse(r.body, nullptr, false);
    std::string message = e.message;
    bool budget = false;
    if (body.is_object() && body.contains("details") && body["details"].is_object() &&
        body["details"].contains("causes") && body["details"]["causes"].is_array()) {
      for (const auto& cause : body["details"]["causes"]) {
        if (StringField(cause, "reason") == "DisruptionBudget") {
          message += " (" + StringField(cause, "message") + ")";
          budget = true;
        }
      }
    }
    const milliseconds retry_after = RetryAfter(r);
    if (!budget && retry_after.count() > 0) return EvictionResult{EvictionOutcome::kThrottled, message, retry_after};
    return EvictionResult{EvictionOutcome::kBlocked, message};
  }
  if (r.status == 404) return EvictionResult{EvictionOutcome::kPodNotFound, e.message};
  return e;
}

ApiResult<json> KubeClient::Cordon(const std::string& node) {
  return Patch("/api/v1/nodes/" + node, PatchType::kMerge, {{"spec", {{"unschedulable", true}}}});
}

ApiResult<json> KubeClient::Uncordon(const std::string& node) {
  return Patch("/api/v1/nodes/" + node, PatchType::kMerge, {{"spec", {{"unschedulable", nullptr}}}});
}

ApiResult<json> KubeClient::LabelNode(const std::string& node,
                                      const std::map<std::string, std::optional<std::string>>& labels) {
  json patch_labels = json::object();
  for (const auto& [k, v] : labels) patch_labels[k] = v ? json(*v) : json(nullptr);
  return Patch("/api/v1/nodes/" + node, PatchType::kMerge, {{"metadata", {{"labels", patch_labels}}}});
}

}  // namespace kubeon::kube
