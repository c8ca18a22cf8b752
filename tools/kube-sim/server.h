// The HTTPS front end: cpp-httplib's SSLServer on a host/port, handing
// every request to Api (api.h).  This is the only file that includes
// httplib.h.
//
// TLS: the server certificate from the bundle; client certificates are
// requested (not required) and, when they verify against the bundle's CA,
// authenticate the request.  Watch responses are streamed as chunked
// application/json without compression; a dropped watch closes the
// connection without the last chunk.
#pragma once

#include <memory>
#include <string>

#include "api_error.h"
#include "certs.h"
#include "sim.h"

namespace kubeon::kubesim {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;           // 0 = any free port
  std::string token;      // bearer token accepted ("" = client certs only)
  size_t threads = 64;    // concurrent connections (each watch holds one)
  bool log_requests = false;
  std::string audit_log;  // "" = none; else one JSON line per request (audit_log.h)
};

class Server {
 public:
  Server(Simulator& sim, ServerOptions options, const TlsBundle& tls);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; returns the port.
  Outcome<int> Bind();
  // Accepts connections on a background thread until Stop().
  // REQUIRES: Bind() succeeded.
  void Start();
  // Blocks until the accept loop runs (or `timeout_ms` passes).
  bool WaitRunning(int timeout_ms) const;
  void Stop();
  int port() const;
  std::string url() const;  // https://127.0.0.1:PORT

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubeon::kubesim
