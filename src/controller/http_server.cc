// See http_server.h.
#include "controller/http_server.h"

#include <charconv>

#include <httplib.h>

namespace kubeon::controller {

HttpServer::HttpServer(HttpHandlers handlers)
    : handlers_(std::move(handlers)), server_(std::make_unique<httplib::Server>()) {
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    const std::string why = handlers_.health ? handlers_.health() : "";
    res.status = why.empty() ? 200 : 500;
    res.set_content(why.empty() ? "ok\n" : why + "\n", "text/plain; charset=utf-8");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const std::string why = handlers_.ready ? handlers_.ready() : "";
    res.status = why.empty() ? 200 : 503;
    res.set_content(why.empty() ? "ok\n" : why + "\n", "text/plain; charset=utf-8");
  });
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.metrics ? handlers_.metrics->Render() : "", "text/plain; version=0.0.4; charset=utf-8");
  });
}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Status::Error("--listen: \"" + listen + "\" is not HOST:PORT");
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = -1;
  const std::string p = listen.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (ec != std::errc() || ptr != p.data() + p.size() || port < 0 || port > 65535) {
    return Status::Error("--listen: \"" + listen + "\" has no port number 0..65535");
  }
  if (host.empty()) host = "0.0.0.0";
  if (port == 0) {
    port_ = server_->bind_to_any_port(host);
    if (port_ < 0) return Status::Error("cannot listen on " + listen);
  } else {
    if (!server_->bind_to_port(host, port)) return Status::Error("cannot listen on " + listen);
    port_ = port;
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::Ok();
}

void HttpServer::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace kubeon::controller
