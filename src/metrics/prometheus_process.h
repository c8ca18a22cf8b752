// Test support (not part of the library): a real Prometheus (Debian's
// /usr/bin/prometheus) serving a history backfilled with promtool, for tests
// that compare the Prometheus path with the file path.
//
// Every process is started with PR_SET_PDEATHSIG (killed if the test dies),
// killed and reaped by an RAII guard, and every wait has a deadline.
// Backfill() keeps the blocks in the build directory keyed by the file's
// content, so that the test processes of one build share one promtool run.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kubeon::metrics::testing_support {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

inline constexpr const char* kPrometheus = "/usr/bin/prometheus";
inline constexpr const char* kPromtool = "/usr/bin/promtool";

// ---------------------------------------------------------------- processes

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

inline std::string Tail(const std::string& text, size_t n = 2000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

// Starts argv[0] with stdout and stderr to `log`; the child is killed if
// the test process dies.  Returns -1 on failure.
inline pid_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::close(fd);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

// Runs a command to completion within `deadline`; returns its exit status
// (-1 when killed at the deadline).
inline int RunCommand(const std::vector<std::string>& argv, const std::string& log, std::chrono::seconds deadline) {
  pid_t pid = Spawn(argv, log);
  if (pid < 0) return -1;
  auto end = Clock::now() + deadline;
  while (true) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (Clock::now() > end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

inline int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A temporary directory removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kubeon-prometheus-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A running Prometheus serving `data_dir`; SIGTERM (then SIGKILL) and reaped
// on destruction.  `config_yaml` (default: no scrape targets) is its
// prometheus.yml, e.g. a scrape job for a test's /metrics.
class PrometheusProcess {
 public:
  static std::unique_ptr<PrometheusProcess> Start(const std::string& data_dir, const std::string& work_dir,
                                                  const std::vector<std::string>& extra_flags, std::string* error,
                                                  const std::string& config_yaml = "") {
    std::string config = work_dir + "/prometheus.yml";
    std::ofstream(config) << (config_yaml.empty()
                                  ? "# No scrape targets: the data is backfilled.\nglobal:\n  scrape_interval: 1h\n"
                                  : config_yaml);
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::unique_ptr<PrometheusProcess> p(new PrometheusProcess());
      p->port_ = FreePort();
      p->log_ = work_dir + "/prometheus-" + std::to_string(p->port_) + ".log";
      std::vector<std::string> argv = {kPrometheus,
                                       "--storage.tsdb.path=" + data_dir,
                                       "--web.listen-address=127.0.0.1:" + std::to_string(p->port_),
                                       "--config.file=" + config,
                                       "--storage.tsdb.retention.time=3650d"};
      argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
      p->pid_ = Spawn(argv, p->log_);
      if (p->pid_ < 0) {
        *error = "cannot start " + std::string(kPrometheus);
        return nullptr;
      }
      if (p->WaitReady(std::chrono::seconds(60), error)) return p;
      // Exited (e.g. the port was taken in between): try another port.
    }
    return nullptr;
  }

  ~PrometheusProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    auto end = Clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > end) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  PrometheusProcess() = default;

  bool WaitReady(std::chrono::seconds deadline, std::string* error) {
    auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        *error = "prometheus exited before it was ready:\n" + Tail(ReadFile(log_));
        return false;
      }
      httplib::Client c("127.0.0.1", port_);
      c.set_connection_timeout(1, 0);
      c.set_read_timeout(2, 0);
      auto res = c.Get("/-/ready");
      if (res && res->status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    *error = "prometheus not ready within " + std::to_string(deadline.count()) + " s:\n" + Tail(ReadFile(log_));
    return false;
  }

  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_;
};

// Backfills the OpenMetrics file `om_path` (content `text`) into TSDB blocks
// under `build_dir`/prometheus-test-blocks/<hash of the content> unless done
// before; returns that directory, or "" with *error set.  `scratch` is a
// directory for promtool's output and log.
inline std::string Backfill(const std::string& om_path, const std::string& text, const std::string& build_dir,
                            const std::string& scratch, std::string* error) {
  char key[64];
  std::snprintf(key, sizeof(key), "%016zx-%zu", std::hash<std::string>()(text), text.size());
  const std::string data = build_dir + "/prometheus-test-blocks/" + key;
  if (fs::exists(data + "/complete")) return data;
  const std::string fresh = scratch + "/blocks";
  int rc = RunCommand({kPromtool, "tsdb", "create-blocks-from", "openmetrics", om_path, fresh}, scratch + "/promtool.log",
                      std::chrono::seconds(300));
  if (rc != 0) {
    *error = "promtool failed:\n" + Tail(ReadFile(scratch + "/promtool.log"));
    return "";
  }
  std::ofstream(fresh + "/complete") << "backfilled from " << om_path << "\n";
  std::error_code ec;
  fs::create_directories(fs::path(data).parent_path(), ec);
  const std::string staged = data + ".tmp-" + std::to_string(::getpid());
  fs::copy(fresh, staged, fs::copy_options::recursive, ec);
  if (ec) {
    *error = "copying the blocks: " + ec.message();
    return "";
  }
  fs::rename(staged, data, ec);  // loses harmlessly to a concurrent test
  if (ec) fs::remove_all(staged, ec);
  return data;
}

}  // namespace kubeon::metrics::testing_support
