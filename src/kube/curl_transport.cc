// See curl_transport.h.
#include "kube/curl_transport.h"

#include <curl/curl.h>

#include <cstring>
#include <mutex>

#include "net/curl_easy.h"

namespace kubeon::kube {
namespace {

struct ServerUrl {
  std::string scheme;  // "https" or "http"
  std::string host;    // without brackets
  std::string port;    // always set (defaults 443 / 80)
  std::string prefix;  // path after the authority, "" or "/k8s/clusters/x"
};

bool ParseServerUrl(const std::string& url, ServerUrl* out) {
  size_t sep = url.find("://");
  if (sep == std::string::npos) return false;
  out->scheme = url.substr(0, sep);
  if (out->scheme != "https" && out->scheme != "http") return false;
  size_t start = sep + 3;
  size_t path = url.find('/', start);
  std::string authority = url.substr(start, path == std::string::npos ? std::string::npos : path - start);
  out->prefix = path == std::string::npos ? "" : url.substr(path);
  if (authority.empty() || authority.find('@') != std::string::npos) return false;
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return false;
    out->host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return false;
      out->port = authority.substr(close + 2);
    }
  } else {
    size_t colon = authority.rfind(':');
    out->host = authority.substr(0, colon);
    if (colon != std::string::npos) out->port = authority.substr(colon + 1);
  }
  if (out->port.empty()) out->port = out->scheme == "https" ? "443" : "80";
  if (out->host.empty() || out->port.find_first_not_of("0123456789") != std::string::npos) return false;
  return true;
}

std::string Bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

TransportErrorKind Classify(CURLcode code) {
  switch (net::ClassifyCurlCode(code)) {
    case net::CurlFailure::kConnection:
      return TransportErrorKind::kConnection;
    case net::CurlFailure::kTimeout:
      return TransportErrorKind::kTimeout;
    case net::CurlFailure::kTls:
      return TransportErrorKind::kTls;
    case net::CurlFailure::kStopped:
      return TransportErrorKind::kCancelled;
    case net::CurlFailure::kOther:
      break;
  }
  return TransportErrorKind::kOther;
}

// With TLS 1.3 a server refusing the client certificate says so in an alert
// read after the handshake, which libcurl reports as a receive error.
TransportErrorKind ClassifyWithDetail(CURLcode code, const std::string& detail) {
  TransportErrorKind kind = Classify(code);
  if ((code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR) && detail.find(" alert ") != std::string::npos &&
      detail.find("SSL") != std::string::npos) {
    return TransportErrorKind::kTls;
  }
  return kind;
}

std::string PathWithoutQuery(const std::string& path) { return path.substr(0, path.find('?')); }

}  // namespace

// State of one exchange, reached from libcurl's callbacks.
struct CurlTransport::Exchange {
  HttpResponse response;
  const StreamHandler* handler = nullptr;  // null: buffer the body
  CURL* curl = nullptr;
  size_t max_body_bytes = 0;  // 0 = no cap (buffered bodies only)
  bool stopped_by_handler = false;
  bool too_large = false;  // the buffered body reached max_body_bytes

  static size_t OnHeader(char* data, size_t size, size_t n, void* self) {
    auto* ex = static_cast<Exchange*>(self);
    std::string line(data, size * n);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.rfind("HTTP/", 0) == 0) {
      ex->response.headers.clear();  // a new response (after 100 Continue or a redirect)
    } else if (size_t colon = line.find(':'); colon != std::string::npos) {
      size_t v = line.find_first_not_of(' ', colon + 1);
      ex->response.headers.emplace_back(line.substr(0, colon), v == std::string::npos ? "" : line.substr(v));
    }
    return size * n;
  }

  static size_t OnBody(char* data, size_t size, size_t n, void* self) {
    auto* ex = static_cast<Exchange*>(self);
    long status = 0;
    curl_easy_getinfo(ex->curl, CURLINFO_RESPONSE_CODE, &status);
    if (ex->handler != nullptr && status >= 200 && status < 300) {
      if (!ex->handler->on_data(std::string_view(data, size * n))) {
        ex->stopped_by_handler = true;
        return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
      }
      return size * n;
    }
    if (ex->max_body_bytes > 0 && size * n > ex->max_body_bytes - ex->response.body.size()) {
      ex->too_large = true;
      return 0;  // stop reading now: libcurl ends with CURLE_WRITE_ERROR
    }
    ex->response.body.append(data, size * n);
    return size * n;
  }

  static int OnProgress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* ex = static_cast<Exchange*>(self);
    if (ex->handler != nullptr && ex->handler->cancel != nullptr && ex->handler->cancel->load()) {
      ex->stopped_by_handler = true;
      return 1;
    }
    return 0;
  }
};

CurlTransport::CurlTransport(const RestConfig& config, const CurlTransportOptions& options)
    : display_url_(config.server),
      ca_pem_(config.ca_pem),
      cert_pem_(config.client_cert_pem),
      key_pem_(config.client_key_pem),
      insecure_(config.insecure_skip_tls_verify),
      options_(options) {}

Result<std::unique_ptr<CurlTransport>> CurlTransport::Create(const RestConfig& config,
                                                              const CurlTransportOptions& options) {
  net::CurlGlobalInit();
  ServerUrl url;
  if (!ParseServerUrl(config.server, &url)) {
    return Status::Error("server \"" + config.server + "\" is not a valid http(s) URL");
  }
  std::unique_ptr<CurlTransport> t(new CurlTransport(config, options));
  t->base_url_ = config.server;
  if (!config.tls_server_name.empty() && !config.insecure_skip_tls_verify) {
    // Connect to the configured address but verify (and send SNI for) the
    // tls-server-name: put that name in the URL and route it with CONNECT_TO.
    t->base_url_ = url.scheme + "://" + Bracketed(config.tls_server_name) + ":" + url.port + url.prefix;
    t->connect_to_ = Bracketed(config.tls_server_name) + ":" + url.port + ":" + Bracketed(url.host) + ":" + url.port;
    t->host_header_ = "Host: " + Bracketed(url.host) + ":" + url.port;
  }
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  if ((info->features & CURL_VERSION_HTTP2) == 0) t->options_.http2 = false;
  return t;
}

CurlTransport::~CurlTransport() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* CurlTransport::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      curl_easy_reset(static_cast<CURL*>(h));  // keeps the handle's live connections
      return h;
    }
  }
  return curl_easy_init();
}

void CurlTransport::Release(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(handle);
}

HttpResult CurlTransport::Send(const HttpRequest& request) { return Perform(request, nullptr); }

HttpResult CurlTransport::Stream(const HttpRequest& request, const StreamHandler& handler) {
  return Perform(request, &handler);
}

HttpResult CurlTransport::Perform(const HttpRequest& request, const StreamHandler* handler) {
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) return TransportError{TransportErrorKind::kOther, "libcurl: cannot create a handle"};
  ++requests_;
  Exchange ex;
  ex.handler = handler;
  ex.curl = curl;
  ex.max_body_bytes = handler == nullptr ? request.max_body_bytes : 0;
  char errbuf[CURL_ERROR_SIZE] = {0};

  net::EasyOptions common;
  common.url = base_url_ + request.path;
  common.user_agent = options_.user_agent;
  common.connect_timeout = options_.connect_timeout;
  common.timeout = request.timeout;
  common.error_buffer = errbuf;
  common.verify_tls = !insecure_;
  common.ca_pem = ca_pem_;  // blob: the kubeconfig's CA never touches the disk
  net::SetCommonOptions(curl, common);
  if (handler == nullptr) {
    // gzip, as kubectl (Go) asks for and the API server offers for large
    // responses.  Not for streams: a compressing server may hold watch
    // events back until its compressor flushes.
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "gzip");
    // A Content-Length past the cap is refused before any body is read.
    if (request.max_body_bytes > 0) {
      curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_body_bytes));
    }
  }
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION,
                   options_.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);

  // TLS beyond the common verification and CA.  No session resumption:
  // pooled connections stay open anyway, and some servers (OpenSSL ones
  // verifying client certificates without a session id context) answer a
  // resumed handshake with an internal error.
  curl_easy_setopt(curl, CURLOPT_SSL_SESSIONID_CACHE, 0L);
  curl_blob cert{const_cast<char*>(cert_pem_.data()), cert_pem_.size(), CURL_BLOB_NOCOPY};
  curl_blob key{const_cast<char*>(key_pem_.data()), key_pem_.size(), CURL_BLOB_NOCOPY};
  if (!cert_pem_.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  }
  curl_slist* connect_to = nullptr;
  if (!connect_to_.empty()) {
    connect_to = curl_slist_append(connect_to, connect_to_.c_str());
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect_to);
  }

  // Request line, headers, body.
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  if (!host_header_.empty()) headers = curl_slist_append(headers, host_header_.c_str());
  for (const auto& [k, v] : request.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method != "DELETE") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
  }

  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &Exchange::OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &ex);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Exchange::OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &ex);
  if (handler != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &Exchange::OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &ex);
  }

  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  long new_connections = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &new_connections);
  connections_ += static_cast<uint64_t>(new_connections);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_CONNECT_TO, nullptr);
  curl_slist_free_all(headers);
  curl_slist_free_all(connect_to);
  Release(curl);

  if (code == CURLE_OK) {
    ex.response.status = static_cast<int>(status);
    return std::move(ex.response);
  }
  TransportError err;
  std::string detail = net::CurlErrorDetail(code, errbuf);
  const bool too_large = ex.too_large || code == CURLE_FILESIZE_EXCEEDED;
  err.kind = too_large                ? TransportErrorKind::kTooLarge
             : ex.stopped_by_handler ? TransportErrorKind::kCancelled
                                     : ClassifyWithDetail(code, detail);
  std::string what = request.method + " " + display_url_ + PathWithoutQuery(request.path);
  switch (err.kind) {
    case TransportErrorKind::kTooLarge:
      err.message = what + ": the response is larger than " + std::to_string(request.max_body_bytes) +
                    " bytes; stopped reading it";
      break;
    case TransportErrorKind::kTls:
      err.message = "TLS handshake with " + display_url_ + " failed: " + detail;
      if (code == CURLE_PEER_FAILED_VERIFICATION) {
        err.message += " (the server certificate is not trusted by the kubeconfig's certificate authority)";
      } else if (detail.find("certificate required") != std::string::npos ||
                 detail.find("bad certificate") != std::string::npos) {
        err.message += " (the server refused the client certificate, or none was given)";
      }
      break;
    case TransportErrorKind::kConnection:
      err.message = "cannot reach " + display_url_ + ": " + detail;
      break;
    case TransportErrorKind::kTimeout:
      err.message = what + ": timed out: " + detail;
      break;
    case TransportErrorKind::kCancelled:
      err.message = what + ": cancelled";
      break;
    case TransportErrorKind::kOther:
      err.message = what + ": " + detail;
      break;
  }
  return err;
}

}  // namespace kubeon::kube
