// KubeClient: the Kubernetes REST calls the optimizer makes, with the
// error handling and retries a careful kubectl user would apply.
//
// Paths are API paths relative to the server, e.g. "/api/v1/nodes",
// "/apis/apps/v1/namespaces/ml/deployments/train"; bodies and results are
// JSON objects exactly as the API serves them.
//
// Contract:
//  - Errors are values (ApiError), never exceptions: the HTTP status, the
//    Status.reason and Status.message from the body, and the verb and
//    resource that failed.  401 reads "unauthorized: <verb> <resource>: check
//    credentials"; 403 reads "forbidden: cannot <verb> <resource> in
//    namespace X: <Status.message>".
//  - 429 (except for evictions), 5xx and retryable transport failures
//    (refused/reset connections, timeouts) are retried with exponential
//    backoff and jitter, honouring Retry-After, until
//    ClientOptions::retry_deadline has passed since the call began; then the
//    last error is returned.  Other 4xx and TLS failures are returned at once.
//  - The bearer token is sent only in the Authorization header and never
//    appears in an ApiError or any other string this client produces.  With
//    RestConfig::token_file the token is re-read every
//    ClientOptions::token_refresh (bound service-account tokens rotate); an
//    unreadable or empty file keeps the previous token.
//  - Bounded: what the server sends is capped (the constants below, each a
//    ClientOptions field): bytes of one response (the transport stops
//    reading at the cap), bytes and pages of one whole list, and the nesting
//    depth of any object handed out.  Past a cap the call fails with an
//    ApiError naming the resource and the cap (reason "ResponseTooLarge" or
//    "BadResponse"); a server that repeats a continue token, or never stops
//    sending one, fails the list instead of looping.  A field of the wrong
//    JSON type in a list page is an error naming the field path.
//  - Thread-safe: calls may run concurrently (e.g. a Watch on one thread).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "kube/list_page.h"
#include "model/status.h"

namespace kubeon::kube {

// Caps on API answers (README "Limits").  Real objects are far inside them:
// etcd stores at most 1.5 MiB per object, a 500-item page of typical pods is
// a few MB, and objects nest about 15 levels.
// One HTTP response: a list page, a GET's object, one watch event.
inline constexpr size_t kMaxResponseBytes = size_t{256} << 20;  // 256 MiB
// All pages of one list together (a 10,000-node cluster's pods: < 1 GB).
inline constexpr uint64_t kMaxListBytes = uint64_t{4} << 30;  // 4 GiB
// Pages of one list: 10 million objects at the default 500 a page.
inline constexpr int kMaxListPages = 20000;
// Nesting levels of one object (the object itself is level 1).
inline constexpr size_t kMaxNestingDepth = 64;

struct ApiError {
  int http_status = 0;     // 0: no HTTP answer (see reason)
  std::string reason;      // Status.reason ("NotFound", "Conflict", ...), or for
                           // http_status 0: "ConnectionFailed", "Timeout",
                           // "TLSError", "Cancelled", "Aborted", "BadResponse"
  std::string message;     // Status.message from the body, or what went wrong
  std::string verb;        // get, list, watch, create, update, patch, delete
  std::string resource;    // "pods", "pods/eviction", "deployments.apps", or the path
  std::string name;        // object name, "" for a collection
  std::string namespace_;  // "" for cluster-scoped resources
  int attempts = 1;        // requests made, retries included

  // One line for a person (see the contract above).
  std::string ToString() const;
  // The kind of error, from the Status reason (the HTTP status when the body
  // has none): 409 Conflict vs AlreadyExists, 429 on an eviction
  // (a PodDisruptionBudget) vs elsewhere (throttled), 410 Expired/Gone, no
  // answer or 5xx Unavailable, "Aborted" (an update function stopped it).
  StatusCode Code() const;
  Status ToStatus() const { return Status::Error(ToString(), Code()); }
};

// A T or an ApiError.
template <typename T>
class ApiResult {
 public:
  ApiResult(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  ApiResult(ApiError error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // REQUIRES: !ok()
  const ApiError& error() const { return std::get<ApiError>(v_); }
  // OK or the error as a Status.
  Status status() const { return ok() ? Status::Ok() : error().ToStatus(); }

 private:
  std::variant<T, ApiError> v_;
};

struct ClientOptions {
  std::chrono::milliseconds request_timeout{30000};  // one request
  std::chrono::milliseconds retry_deadline{30000};   // all retries of one call
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{5000};
  // How often RestConfig::token_file is re-read (client-go: one minute).
  std::chrono::milliseconds token_refresh{60000};
  // Caps (see the constants above); tests lower them.
  size_t max_response_bytes = kMaxResponseBytes;
  uint64_t max_list_bytes = kMaxListBytes;
  int max_list_pages = kMaxListPages;
  size_t max_depth = kMaxNestingDepth;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 500;  // page size; 0 = everything in one response
  // Called after each page with the number of items gathered so far.
  std::function<void(size_t items_so_far)> on_page;
};

struct ListResult {
  nlohmann::json items = nlohmann::json::array();  // every page's items, in order
  std::string resource_version;                    // of the list (first page)
  std::string kind;                                // e.g. "PodList"
  std::string api_version;                         // e.g. "v1"
  int pages = 0;
};

// What ListRaw reports about a whole list; the items went to the sink.
struct ListInfo {
  std::string resource_version;  // of the list (first page)
  std::string kind;              // e.g. "PodList"
  std::string api_version;       // e.g. "v1"
  int pages = 0;
  size_t items = 0;
  uint64_t bytes = 0;  // response bodies of all pages
};

// Receives a list's items as the server sent them (ListRaw).
struct ListSink {
  // Each item in order; a failed Status ends the list with that error
  // (ApiError reason "Aborted").
  std::function<Status(const ListPageItem& item)> on_item;
  // The list starts over (an expired continue token): forget every item
  // received so far.  May be empty when on_item keeps nothing.
  std::function<void()> on_restart;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kResync };

struct WatchEvent {
  WatchEventType type;
  // The object; for kResync (after 410 Gone the collection was listed again)
  // {"items": [...], "metadata": {"resourceVersion": RV}}: the caller should
  // replace its view with these items.
  nlohmann::json object;
};

// Return false to end the watch.
using WatchCallback = std::function<bool(const WatchEvent&)>;

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  int timeout_seconds = 300;                  // server-side length of one watch request
  const std::atomic<bool>* cancel = nullptr;  // set to true to end the watch
};

enum class PatchType { kMerge, kStrategicMerge, kJson };

enum class EvictionOutcome {
  kEvicted,      // the API accepted the eviction
  kBlocked,      // 429: a PodDisruptionBudget refuses for now; wait and retry
  kThrottled,    // 429 with Retry-After and no DisruptionBudget cause: API Priority
                 // and Fairness; retry after retry_after
  kPodNotFound,  // 404: the pod is already gone
};

struct EvictionResult {
  EvictionOutcome outcome = EvictionOutcome::kEvicted;
  std::string message;  // for kBlocked / kThrottled / kPodNotFound: the API's Status.message
  std::chrono::milliseconds retry_after{0};  // kThrottled: the server's Retry-After
};

struct EvictOptions {
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
};

// Changes an object in place before it is written back; a failed Status
// aborts the update (ApiError reason "Aborted").
using Mutation = std::function<Status(nlohmann::json& object)>;

class KubeClient {
 public:
  KubeClient(std::unique_ptr<HttpTransport> transport, RestConfig config, ClientOptions options = {});

  // A client over CurlTransport for `config`.
  static Result<std::unique_ptr<KubeClient>> Connect(const RestConfig& config, const ClientOptions& options = {});

  ApiResult<nlohmann::json> Get(const std::string& path);

  // Lists a collection page by page (limit/continue) until done.  An expired
  // continue token (410) restarts the list from the beginning (twice at most).
  ApiResult<ListResult> List(const std::string& path, const ListOptions& options = {});

  // List without building a tree: each page is read with simdjson and every
  // item's text, as served, goes to sink.on_item (checked for nesting depth
  // first).  Same paging, restarts, caps and errors as List.
  ApiResult<ListInfo> ListRaw(const std::string& path, const ListOptions& options, const ListSink& sink);

  // Watches a collection from `resource_version` ("" = from now, with
  // synthetic ADDED events for existing objects), delivering events until the
  // callback returns false or options.cancel is set; returns the last
  // resourceVersion seen.  A dropped or ended watch is resumed from the last
  // resourceVersion seen (BOOKMARKs included).  On 410 Gone (HTTP 410 or an
  // ERROR event with code 410) the collection is listed again and a kResync
  // event delivers the items; the watch continues from the list's
  // resourceVersion.  Reconnection failures are retried with backoff until
  // retry_deadline passes without progress.
  ApiResult<std::string> Watch(const std::string& path, const std::string& resource_version,
                               const WatchOptions& options, const WatchCallback& callback);

  // POST to a collection.
  ApiResult<nlohmann::json> Create(const std::string& collection_path, const nlohmann::json& object);
  // PUT; the object's metadata.resourceVersion makes it conditional (409 on a stale copy).
  ApiResult<nlohmann::json> Update(const std::string& path, const nlohmann::json& object);
  // Read, mutate, PUT; on 409 Conflict reads again and reapplies the mutation,
  // up to max_attempts times in all.
  ApiResult<nlohmann::json> UpdateWithRetry(const std::string& path, const Mutation& mutate, int max_attempts = 5);
  // Like UpdateWithRetry for collection_path + "/" + name, but a missing
  // object is created from `skeleton` (mutated first); a create that loses a
  // race (409 AlreadyExists) turns into an update.
  ApiResult<nlohmann::json> Upsert(const std::string& collection_path, const std::string& name,
                                   const nlohmann::json& skeleton, const Mutation& mutate, int max_attempts = 5);
  ApiResult<nlohmann::json> Patch(const std::string& path, PatchType type, const nlohmann::json& patch);

  // POST /api/v1/namespaces/NS/pods/NAME/eviction (policy/v1 Eviction).  Not
  // retried on 429: the caller decides how long to wait for the budget.
  ApiResult<EvictionResult> Evict(const std::string& namespace_, const std::string& pod,
                                  const EvictOptions& options = {});

  ApiResult<nlohmann::json> Cordon(const std::string& node);    // spec.unschedulable = true
  ApiResult<nlohmann::json> Uncordon(const std::string& node);  // spec.unschedulable removed
  // Sets labels (value) and removes them (nullopt) with one merge patch.
  ApiResult<nlohmann::json> LabelNode(const std::string& node,
                                      const std::map<std::string, std::optional<std::string>>& labels);

  // The configuration as loaded (the token as first read).
  const RestConfig& config() const { return config_; }
  uint64_t requests() const { return requests_.load(); }  // HTTP requests sent, retries included

 private:
  struct Call;
  struct Sent;
  HttpRequest MakeRequest(const std::string& method, const std::string& path, std::string body,
                          const std::string& content_type);
  Sent Do(const HttpRequest& request, bool retry_429);
  ApiResult<nlohmann::json> JsonCall(const Call& call, const HttpRequest& request);
  std::string Token();

  std::unique_ptr<HttpTransport> transport_;
  RestConfig config_;
  ClientOptions options_;
  std::mutex token_mu_;
  std::string token_;  // current bearer token (guarded by token_mu_)
  std::chrono::steady_clock::time_point token_read_at_;
  std::atomic<uint64_t> requests_{0};
};

// Percent-encodes a query parameter value (everything but unreserved characters).
std::string QueryEscape(const std::string& value);

}  // namespace kubeon::kube
