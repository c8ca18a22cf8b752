// See server.h.
#include "server.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <iostream>
#include <thread>

#include <httplib.h>

#include "api.h"

namespace kubeon::kubesim {

struct Server::Impl {
  Impl(Simulator& sim, ServerOptions o, const TlsBundle& tls)
      : options(std::move(o)),
        server([&tls](SSL_CTX& ctx) {
          SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
          if (SSL_CTX_use_certificate(&ctx, tls.server.cert.get()) != 1) return false;
          if (SSL_CTX_use_PrivateKey(&ctx, tls.server.key.get()) != 1) return false;
          X509_STORE* store = X509_STORE_new();
          if (store == nullptr || X509_STORE_add_cert(store, tls.ca.cert.get()) != 1) return false;
          SSL_CTX_set_cert_store(&ctx, store);  // takes ownership
          SSL_CTX_add_client_CA(&ctx, tls.ca.cert.get());
          // Ask for a client certificate but never fail the handshake over
          // it: like kube-apiserver, a certificate that does not verify
          // (unknown CA, expired) just does not authenticate; the request
          // then needs a token.  ClientCertVerified() reads the result.
          SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
          return true;
        }),
        api(sim, options.token, "") {}

  ServerOptions options;
  httplib::SSLServer server;
  Api api;
  std::thread thread;
  int port = 0;
};

namespace {

bool ClientCertVerified(const httplib::Request& req) {
  if (req.ssl == nullptr) return false;
  if (SSL_get0_peer_certificate(req.ssl) == nullptr) return false;
  return SSL_get_verify_result(req.ssl) == X509_V_OK;
}

// The subject's NID entries (CN, O) of the peer certificate.
std::vector<std::string> SubjectEntries(X509* cert, int nid) {
  std::vector<std::string> out;
  X509_NAME* name = X509_get_subject_name(cert);
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0; i = X509_NAME_get_index_by_NID(name, nid, i)) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, data);
    if (n < 0) continue;
    out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
    OPENSSL_free(utf8);
  }
  return out;
}

ApiRequest ToApiRequest(const httplib::Request& req) {
  ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query.emplace(k, v);
  for (const auto& [k, v] : req.headers) {
    std::string key = k;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[key] = v;
  }
  r.body = req.body;
  r.client_cert_verified = ClientCertVerified(req);
  if (r.client_cert_verified) {
    X509* cert = SSL_get0_peer_certificate(req.ssl);
    std::vector<std::string> cn = SubjectEntries(cert, NID_commonName);
    r.client_cert_cn = cn.empty() ? "" : cn.front();
    r.client_cert_orgs = SubjectEntries(cert, NID_organizationName);
  }
  return r;
}

// httplib picks the response encoding from the request's Accept-Encoding
// after the handler returns, preferring brotli at its slowest quality
// (minutes for a 40,000-pod list).  Offer it only gzip, which is what
// kube-apiserver speaks.  The Request object is httplib's own mutable
// per-request value, handed to handlers as const.
void DropBrotli(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  auto range = headers.equal_range("Accept-Encoding");  // case-insensitive map
  for (auto it = range.first; it != range.second; ++it) {
    std::string& value = it->second;
    std::string kept;
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      std::string token = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      size_t b = token.find_first_not_of(' ');
      std::string name = b == std::string::npos ? "" : token.substr(b, token.find_first_of(" ;", b) - b);
      if (!name.empty() && name != "br") kept += (kept.empty() ? "" : ", ") + token.substr(b);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    value = kept;
  }
}

void Respond(Api& api, const httplib::Request& req, httplib::Response& res) {
  DropBrotli(req);
  ApiResponse out = api.Handle(ToApiRequest(req));
  res.status = out.status;
  for (const auto& [name, value] : out.headers) res.headers.emplace(name, value);
  if (!out.watch) {
    res.set_content(out.body, out.content_type.c_str());
    return;
  }
  // "application/json;stream=watch" parses to application/json for clients
  // and keeps httplib from gzip-buffering the stream.
  std::shared_ptr<WatchStream> stream = out.watch;
  res.set_chunked_content_provider("application/json;stream=watch", [stream](size_t, httplib::DataSink& sink) {
    std::string chunk;
    WatchStream::Step step = stream->Next(&chunk, std::chrono::milliseconds(250));
    if (!chunk.empty() && !sink.write(chunk.data(), chunk.size())) return false;
    if (step == WatchStream::Step::kMore) return true;
    if (step == WatchStream::Step::kEnd) {
      sink.done();
      return true;
    }
    return false;  // dropped: no terminating chunk
  });
}

}  // namespace

Server::Server(Simulator& sim, ServerOptions options, const TlsBundle& tls)
    : impl_(std::make_unique<Impl>(sim, std::move(options), tls)) {
  httplib::SSLServer& svr = impl_->server;
  size_t threads = impl_->options.threads;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_keep_alive_max_count(10000);
  svr.set_keep_alive_timeout(30);
  svr.set_read_timeout(30, 0);
  svr.set_write_timeout(30, 0);
  Api* api = &impl_->api;
  auto handler = [api](const httplib::Request& req, httplib::Response& res) { Respond(*api, req, res); };
  svr.Get(".*", handler);
  svr.Post(".*", handler);
  svr.Put(".*", handler);
  svr.Patch(".*", handler);
  svr.Delete(".*", handler);
  if (impl_->options.log_requests) {
    svr.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::cerr << "kube-sim: " << req.method << " " << req.target << " -> " << res.status << std::endl;
    });
  }
}

Server::~Server() { Stop(); }

Outcome<int> Server::Bind() {
  if (!impl_->server.is_valid()) return ApiError::Internal("TLS setup failed");
  if (!impl_->options.audit_log.empty()) {
    auto log = AuditLog::Open(impl_->options.audit_log);
    if (!log.ok()) return log.error();
    impl_->api.SetAuditLog(std::move(log).value());
  }
  int port = impl_->options.port;
  if (port == 0) {
    port = impl_->server.bind_to_any_port(impl_->options.host);
    if (port <= 0) return ApiError::Internal("cannot bind " + impl_->options.host + ":0");
  } else if (!impl_->server.bind_to_port(impl_->options.host, port)) {
    return ApiError::Internal("cannot bind " + impl_->options.host + ":" + std::to_string(port));
  }
  impl_->port = port;
  impl_->api.SetServerAddress(impl_->options.host + ":" + std::to_string(port));
  return port;
}

void Server::Start() {
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
}

bool Server::WaitRunning(int timeout_ms) const {
  for (int waited = 0; waited < timeout_ms; waited += 5) {
    if (impl_->server.is_running()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return impl_->server.is_running();
}

void Server::Stop() {
  if (!impl_) return;
  impl_->api.StopWatches();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int Server::port() const { return impl_->port; }

std::string Server::url() const { return "https://" + impl_->options.host + ":" + std::to_string(impl_->port); }

}  // namespace kubeon::kubesim
