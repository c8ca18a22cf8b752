// HttpServer: the controller's one HTTP listener (cpp-httplib) for
// /healthz, /readyz and /metrics, and for the reviewer page's routes
// (reviewer_api.h registers them through server() before Start()).
//
//  - /healthz: 200 "ok" while health() is empty, else 500 with its text
//    (the controller: its loop has not moved for too long).
//  - /readyz: 200 "ok" while ready() is empty, else 503 with its text (not
//    planned once yet, or the API server unreachable).
//  - /metrics: metrics.Render() as text/plain; version=0.0.4.
// Start() binds "ADDR:PORT" (port 0 picks a free one; port() tells which) and
// serves on a background thread until Stop() or destruction.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "controller/metrics.h"
#include "model/status.h"

namespace httplib {
class Server;
}

namespace kubeon::controller {

struct HttpHandlers {
  std::function<std::string()> health;  // "" = healthy
  std::function<std::string()> ready;   // "" = ready
  const Metrics* metrics = nullptr;
};

class HttpServer {
 public:
  explicit HttpServer(HttpHandlers handlers);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // For other routes (the reviewer page); REQUIRES: before Start().
  httplib::Server& server() { return *server_; }

  // REQUIRES: listen is "HOST:PORT" (IPv6 hosts in brackets).
  Status Start(const std::string& listen);
  void Stop();
  int port() const { return port_; }

 private:
  HttpHandlers handlers_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace kubeon::controller
