// Test-only helpers to run programs with a timeout and to run kube-sim as a
// subprocess.  Every child is started here and killed here, by its pid.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kubeon::kubesim::testing {

struct RunResult {
  int exit_code = -1;  // -1: killed on timeout or signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs argv with a wall-clock limit, capturing stdout and stderr.
// `env` entries ("K=V") are added to the environment.
inline RunResult RunProcess(const std::vector<std::string>& argv, int timeout_sec, const std::vector<std::string>& env = {}) {
  RunResult res;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return res;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_sec);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      res.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? res.out : res.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!res.timed_out && WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  return res;
}

inline std::string MakeTempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* dir = mkdtemp(buf.data());
  return dir != nullptr ? dir : "";
}

inline bool FileExists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// kube-sim running as a child process; stopped with SIGTERM on destruction.
class SimProcess {
 public:
  // Starts `binary` with the contract flags plus `extra`; waits (up to 20 s)
  // for the kubeconfig and the "listening" line.
  SimProcess(const std::string& binary, const std::string& snapshot, const std::string& dir,
             const std::vector<std::string>& extra = {}) {
    kubeconfig_ = dir + "/kubeconfig.yaml";
    out_path_ = dir + "/kube-sim.out";
    err_path_ = dir + "/kube-sim.err";
    // A previous run in the same directory left these behind; without
    // removing them first, readiness would be read from the old process.
    std::remove(kubeconfig_.c_str());
    std::remove(out_path_.c_str());
    pid_ = fork();
    if (pid_ == 0) {
      int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<std::string> argv = {binary, "--listen", "127.0.0.1:0", "--snapshot", snapshot, "--kubeconfig-out", kubeconfig_};
      argv.insert(argv.end(), extra.begin(), extra.end());
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    for (int i = 0; i < 400; ++i) {
      if (FileExists(kubeconfig_) && ReadFile(out_path_).find("listening on") != std::string::npos) {
        ready_ = true;
        break;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~SimProcess() { Stop(); }
  // SIGTERM, then SIGKILL after 5 s; returns the exit status (-1 if killed).
  int Stop() {
    if (pid_ <= 0) return exit_code_;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return exit_code_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return -1;
  }
  bool ready() const { return ready_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  std::string Stdout() const { return ReadFile(out_path_); }
  std::string Stderr() const { return ReadFile(err_path_); }

 private:
  pid_t pid_ = -1;
  bool ready_ = false;
  int exit_code_ = -1;
  std::string kubeconfig_, out_path_, err_path_;
};

}  // namespace kubeon::kubesim::testing
