// See prometheus_http.h for the contract.
#include "metrics/prometheus_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "net/curl_easy.h"

namespace kubeon::metrics {
namespace {

bool IsTokenChar(char c) {
  // RFC 9110 tchar.
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return std::string(s.substr(b, e - b));
}

// Checks the URL's shape; returns "" when usable, else what is wrong.
std::string CheckUrl(const std::string& url) {
  size_t sep = url.find("://");
  if (sep == std::string::npos) return "must start with http:// or https://";
  std::string scheme = url.substr(0, sep);
  if (scheme != "http" && scheme != "https") return "must start with http:// or https://";
  size_t start = sep + 3;
  size_t slash = url.find('/', start);
  std::string authority = url.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
  if (authority.empty()) return "has no host";
  if (authority.find('@') != std::string::npos) {
    return "must not contain user info (use a token file or a header for credentials)";
  }
  if (url.find('?') != std::string::npos || url.find('#') != std::string::npos) {
    return "must not contain a query or fragment";
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20) return "must not contain blanks or control characters";
  }
  return "";
}

Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::Error("bearer token file " + path + ": cannot read: " + std::strerror(errno));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  std::string token = Trim(buf.str());
  if (token.empty()) return Status::Error("bearer token file " + path + ": empty");
  for (char c : token) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status::Error("bearer token file " + path +
                           ": holds control characters or several lines (expected one token)");
    }
  }
  return token;
}

// "Name: value" -> "Name: value" normalised; error names the position only
// (a header value may be a secret).
Result<std::string> CheckHeader(const std::string& line, size_t index) {
  std::string where = "header #" + std::to_string(index + 1);
  size_t colon = line.find(':');
  if (colon == std::string::npos || colon == 0) {
    return Status::Error(where + ": expected \"Name: value\" (the text is not repeated here)");
  }
  std::string name = line.substr(0, colon);
  for (char c : name) {
    if (!IsTokenChar(c)) {
      return Status::Error(where + ": the name before ':' is not a valid HTTP header name");
    }
  }
  std::string value = Trim(std::string_view(line).substr(colon + 1));
  for (char c : value) {
    if (c == '\r' || c == '\n' || c == '\0') {
      return Status::Error(where + " (" + name + "): the value contains a line break");
    }
  }
  return name + ": " + value;
}

bool SameNameIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

struct Sink {
  std::string* body;
  size_t limit;
  bool too_large = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* self) {
  auto* sink = static_cast<Sink*>(self);
  size_t bytes = size * n;
  if (sink->body->size() + bytes > sink->limit) {
    sink->too_large = true;
    return 0;  // libcurl stops with CURLE_WRITE_ERROR
  }
  sink->body->append(data, bytes);
  return bytes;
}

HttpErrorKind Classify(CURLcode code) {
  switch (net::ClassifyCurlCode(code)) {
    case net::CurlFailure::kConnection:
      return HttpErrorKind::kUnreachable;
    case net::CurlFailure::kTimeout:
      return HttpErrorKind::kTimeout;
    case net::CurlFailure::kTls:
      return HttpErrorKind::kTls;
    case net::CurlFailure::kStopped:  // only OnBody stops, and that is kTooLarge
    case net::CurlFailure::kOther:
      break;
  }
  return HttpErrorKind::kOther;
}

std::string Seconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

}  // namespace

Result<std::unique_ptr<PrometheusHttp>> PrometheusHttp::Create(const PrometheusHttpOptions& options) {
  net::CurlGlobalInit();
  std::string url = options.url;
  while (url.size() > 1 && url.back() == '/') url.pop_back();
  if (url.empty()) return Status::Error("Prometheus URL is empty");
  if (std::string problem = CheckUrl(url); !problem.empty()) {
    return Status::Error("Prometheus URL \"" + url + "\": " + problem);
  }
  if (options.timeout.count() <= 0 || options.connect_timeout.count() <= 0) {
    return Status::Error("Prometheus timeouts must be positive");
  }
  std::unique_ptr<PrometheusHttp> http(new PrometheusHttp());
  http->base_url_ = url;
  http->options_ = options;
  bool has_authorization = false;
  for (size_t i = 0; i < options.headers.size(); ++i) {
    Result<std::string> line = CheckHeader(options.headers[i], i);
    if (!line.ok()) return line.status();
    has_authorization |= SameNameIgnoringCase(line->substr(0, line->find(':')), "Authorization");
    http->header_lines_.push_back(std::move(line.value()));
  }
  if (!options.bearer_token_file.empty()) {
    if (has_authorization) {
      return Status::Error("both a bearer token file and an Authorization header were given; use one");
    }
    Result<std::string> token = ReadTokenFile(options.bearer_token_file);
    if (!token.ok()) return token.status();
    http->header_lines_.push_back("Authorization: Bearer " + token.value());
  }
  if (!options.ca_file.empty()) {
    std::ifstream in(options.ca_file);
    if (!in) return Status::Error("CA file " + options.ca_file + ": cannot read: " + std::strerror(errno));
    http->ca_file_ = options.ca_file;
  }
  http->curl_ = curl_easy_init();
  if (http->curl_ == nullptr) return Status::Error("libcurl: cannot create a handle");
  return http;
}

PrometheusHttp::~PrometheusHttp() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

std::string PrometheusHttp::EncodeForm(const FormFields& fields) {
  auto encode = [](const std::string& s) {
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size() * 3 / 2);
    for (unsigned char c : s) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '.' || c == '_' || c == '~') {
        out += static_cast<char>(c);
      } else {
        out += '%';
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    }
    return out;
  };
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += encode(name) + "=" + encode(value);
  }
  return out;
}

HttpExchange PrometheusHttp::PostForm(std::string_view path, const FormFields& form) {
  std::string body = EncodeForm(form);
  return Perform(base_url_ + std::string(path), &body);
}

HttpExchange PrometheusHttp::Get(std::string_view path, const FormFields& query) {
  std::string url = base_url_ + std::string(path);
  if (!query.empty()) url += "?" + EncodeForm(query);
  return Perform(url, nullptr);
}

HttpExchange PrometheusHttp::Perform(const std::string& url, const std::string* post_body) {
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);  // options only; the connection cache stays
  ++requests_;
  HttpExchange out;
  Sink sink{&out.body, options_.max_response_bytes};
  char errbuf[CURL_ERROR_SIZE] = {0};

  net::EasyOptions common;
  common.url = url;
  common.connect_timeout = options_.connect_timeout;
  common.timeout = options_.timeout;
  common.error_buffer = errbuf;
  common.ca_file = ca_file_;  // verification is never switched off
  net::SetCommonOptions(curl, common);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");
  for (const std::string& h : header_lines_) headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (post_body != nullptr) {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  } else {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);

  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  long os_errno = 0;
  curl_off_t connect_us = 0, tls_us = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us);
  curl_easy_getinfo(curl, CURLINFO_APPCONNECT_TIME_T, &tls_us);
  const bool https = url.rfind("https://", 0) == 0;
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(headers);
  bytes_received_ += out.body.size();

  if (code == CURLE_OK) {
    out.ok = true;
    out.status = static_cast<int>(status);
    return out;
  }
  out.body.clear();
  std::string detail = net::CurlErrorDetail(code, errbuf);
  out.error_kind = sink.too_large ? HttpErrorKind::kTooLarge : Classify(code);
  // A timeout before the connection (or its TLS handshake) was made is not a
  // slow answer: the server never saw the query, so no smaller window helps.
  // (libcurl's connect timeout covers both; it reports a TCP connect time
  // only once the whole connection, TLS included, is up.)
  if (out.error_kind == HttpErrorKind::kTimeout && (https ? tls_us == 0 : connect_us == 0)) {
    const std::string within = Seconds(std::min(options_.connect_timeout, options_.timeout));
    if (https && (connect_us > 0 || detail.find("SSL") != std::string::npos)) {
      out.error_kind = HttpErrorKind::kTls;
      out.error = "TLS with Prometheus at " + base_url_ + " failed: the TLS handshake did not complete within " +
                  within + " (the server accepted the connection but did not finish the handshake; " + detail + ")";
    } else {
      out.error_kind = HttpErrorKind::kUnreachable;
      out.error = "cannot reach Prometheus at " + base_url_ + ": no connection within " + within +
                  " (connect timeout; " + detail + ")";
    }
    return out;
  }
  switch (out.error_kind) {
    case HttpErrorKind::kUnreachable:
      out.error = "cannot reach Prometheus at " + base_url_ + ": " +
                  (os_errno == ECONNREFUSED ? "connection refused (" + detail + ")" : detail);
      break;
    case HttpErrorKind::kTimeout:
      out.error = "Prometheus at " + base_url_ + " did not answer within " + Seconds(options_.timeout) +
                  " (" + detail + ")";
      break;
    case HttpErrorKind::kTls:
      out.error = "TLS with Prometheus at " + base_url_ + " failed: " + detail +
                  (ca_file_.empty() ? "" : " (server certificate checked against " + ca_file_ + ")");
      break;
    case HttpErrorKind::kTooLarge:
      out.error = "the answer of Prometheus at " + base_url_ + " is larger than " +
                  std::to_string(options_.max_response_bytes >> 20) + " MiB";
      break;
    case HttpErrorKind::kOther:
      out.error = "request to Prometheus at " + base_url_ + " failed: " + detail;
      break;
  }
  return out;
}

}  // namespace kubeon::metrics
