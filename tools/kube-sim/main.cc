// kube-sim: a Kubernetes API server simulator on 127.0.0.1 over HTTPS.
//
//   kube-sim --listen 127.0.0.1:PORT --snapshot FILE --kubeconfig-out FILE
//            [--state-dir DIR] [--faults FILE|JSON] [--settings FILE|JSON]
//            [--token TOKEN] [--client-cert-kubeconfig-out FILE]
//            [--user-kubeconfig-dir DIR]
//            [--threads N] [--log-requests] [--log-controllers]
//            [--audit-log FILE]
//
// --audit-log appends one JSON line per API request (audit_log.h): user,
// groups, verb, apiGroup, resource, subresource, namespace, name, code.
//
// --user-kubeconfig-dir writes DIR/<name>.kubeconfig for every user of the
// `users` setting (identity.h): its token, or a client certificate with
// CN <name> and one O per group, signed by the CA.
//
// PORT 0 picks a free port.  The kubeconfig (server URL, the generated CA,
// the bearer token) is written only once the server listens; then one line
// "kube-sim listening on https://127.0.0.1:PORT" goes to stdout.  Runs
// until SIGTERM or SIGINT, then stops cleanly (exit 0).  Any startup error
// is one line on stderr and exit status 1; nothing is written then.
#include <pthread.h>
#include <signal.h>

#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <CLI/CLI.hpp>

#include "certs.h"
#include "kubeconfig.h"
#include "server.h"
#include "settings.h"
#include "sim.h"
#include "snapshot.h"

using namespace kubeon::kubesim;

namespace {

int Fail(const std::string& message) {
  std::cerr << "kube-sim: " << message << std::endl;
  return 1;
}

std::string RandomToken() {
  std::random_device rd;
  std::string out;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) out.push_back(hex[rd() % 16]);
  return out;
}

bool SplitHostPort(const std::string& listen, std::string* host, int* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  *host = listen.substr(0, colon);
  std::string p = listen.substr(colon + 1);
  if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos || p.size() > 5) return false;
  *port = std::atoi(p.c_str());
  return *port <= 65535;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kube-sim: a Kubernetes API server simulator"};
  std::string listen = "127.0.0.1:0", snapshot, kubeconfig_out, state_dir, faults_arg, settings_arg, token;
  std::string cert_kubeconfig_out, user_kubeconfig_dir, audit_log;
  size_t threads = 64;
  bool log_requests = false;
  bool log_controllers = false;
  app.add_option("--listen", listen, "host:port to listen on (port 0 = any free port)");
  app.add_option("--snapshot", snapshot, "cluster snapshot: a kubectl get -o json List");
  app.add_option("--kubeconfig-out", kubeconfig_out, "where to write the kubeconfig (token user)")->required();
  app.add_option("--client-cert-kubeconfig-out", cert_kubeconfig_out, "also write a client-certificate kubeconfig");
  app.add_option("--user-kubeconfig-dir", user_kubeconfig_dir,
                 "write DIR/<name>.kubeconfig for each user of the users setting");
  app.add_option("--state-dir", state_dir, "persist the cluster in DIR/state.json and reload it on start");
  app.add_option("--faults", faults_arg, "fault injection: a JSON file or inline JSON");
  app.add_option("--settings", settings_arg, "simulator settings: a JSON file or inline JSON");
  app.add_option("--token", token, "bearer token clients must send (default: random)");
  app.add_option("--threads", threads, "connection threads (each open watch holds one)");
  app.add_option("--audit-log", audit_log, "append one JSON line per API request to FILE");
  app.add_flag("--log-requests", log_requests, "log every request to stderr");
  app.add_flag("--log-controllers", log_controllers, "log every controller run and its duration to stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  std::string host;
  int port = 0;
  if (!SplitHostPort(listen, &host, &port)) return Fail("--listen " + listen + ": expected HOST:PORT");

  // Signals are taken synchronously by main; every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  Settings settings;
  if (!settings_arg.empty()) {
    auto j = ReadJsonArg(settings_arg, "--settings");
    if (!j.ok()) return Fail(j.error().message);
    auto s = settings.Merge(j.value());
    if (!s.ok()) return Fail("--settings: " + s.error().message);
    settings = s.value();
  }
  Simulator sim(settings);
  sim.set_trace(log_controllers);
  if (!faults_arg.empty()) {
    auto j = ReadJsonArg(faults_arg, "--faults");
    if (!j.ok()) return Fail(j.error().message);
    auto ok = sim.faults().Configure(j.value());
    if (!ok.ok()) return Fail("--faults: " + ok.error().message);
  }
  {
    std::lock_guard<std::mutex> lock(sim.mutex());
    bool loaded = false;
    if (!state_dir.empty()) {
      auto r = sim.UsePersistence(state_dir);
      if (!r.ok()) return Fail(r.error().message);
      loaded = r.value();
    }
    if (!loaded) {  // without --snapshot: an empty cluster (its namespaces only)
      auto j = snapshot.empty() ? Outcome<json>(json{{"kind", "List"}, {"items", json::array()}})
                                : ReadJsonArg(snapshot, "--snapshot");
      if (!j.ok()) return Fail(j.error().message);
      auto n = sim.LoadSnapshot(j.value(), snapshot.empty() ? "(empty)" : snapshot);
      if (!n.ok()) return Fail(n.error().message);
    }
  }
  if (token.empty()) token = RandomToken();
  auto tls = GenerateTlsBundle();
  if (!tls.ok()) return Fail(tls.error().message);

  ServerOptions opts;
  opts.host = host;
  opts.port = port;
  opts.token = token;
  opts.threads = threads;
  opts.log_requests = log_requests;
  opts.audit_log = audit_log;
  Server server(sim, opts, tls.value());
  auto bound = server.Bind();
  if (!bound.ok()) return Fail(bound.error().message);
  server.Start();
  if (!server.WaitRunning(10000)) return Fail("server did not start listening");

  KubeconfigSpec kc;
  kc.user = kAdminUser;
  kc.server = server.url();
  kc.ca_pem = tls.value().ca.cert_pem;
  kc.token = token;
  if (!user_kubeconfig_dir.empty()) {
    for (const SimUser& u : settings.users) {
      KubeconfigSpec uc = kc;
      uc.user = u.name;
      uc.token = u.token;
      if (u.token.empty()) {
        auto cert = IssueCertificate({u.name, u.groups, false, false, {}, {}, 365L * 24 * 3600}, &tls.value().ca);
        if (!cert.ok()) return Fail("--user-kubeconfig-dir: " + cert.error().message);
        uc.client_cert_pem = cert.value().cert_pem;
        uc.client_key_pem = cert.value().key_pem;
      }
      auto w = WriteFileAtomic(user_kubeconfig_dir + "/" + u.name + ".kubeconfig", RenderKubeconfig(uc));
      if (!w.ok()) return Fail("--user-kubeconfig-dir: " + w.error().message);
    }
  }
  auto wrote = WriteFileAtomic(kubeconfig_out, RenderKubeconfig(kc));
  if (!wrote.ok()) return Fail("--kubeconfig-out: " + wrote.error().message);
  if (!cert_kubeconfig_out.empty()) {
    KubeconfigSpec cc = kc;
    cc.token.clear();
    cc.client_cert_pem = tls.value().client.cert_pem;
    cc.client_key_pem = tls.value().client.key_pem;
    auto w = WriteFileAtomic(cert_kubeconfig_out, RenderKubeconfig(cc));
    if (!w.ok()) return Fail("--client-cert-kubeconfig-out: " + w.error().message);
  }
  sim.StartTicker();
  std::cout << "kube-sim listening on " << server.url() << std::endl;

  int sig = 0;
  sigwait(&signals, &sig);
  server.Stop();
  sim.StopTicker();
  {
    std::lock_guard<std::mutex> lock(sim.mutex());
    sim.AfterWrite();
  }
  return 0;
}
