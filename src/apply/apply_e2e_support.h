// Test and benchmark support (not part of the library): the bundled demo
// (examples/demo) made feasible with one spare H100 node, the `kubeon-gpu
// apply` command line that applies it, and the real binary run as a child
// process, for apply_crash_test and bench/apply_bench.
//
// DemoWithSpare(dir) returns DIR/cluster.json plus "spare-h100": a copy of
// node ip-10-5-42-245.ec2.internal (an H100 node) with its name and
// kubernetes.io/hostname label changed and no pods; unchanged if that node
// is missing.  RunGpu(binary, args, crash_after, dir) runs the binary with
// stdout and stderr in DIR/child.stdout and DIR/child.stderr, with
// KUBEON_CRASHPOINT_AFTER_WRITES=crash_after when crash_after > 0 (and
// without it otherwise; only the test-only kubeon-gpu-crashpoint reads it,
// src/cli/crashpoint_main.cc), waits for it and says how it ended; SpawnGpu
// and WaitGpu are its two halves (the controller tests run several at once).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

extern char **environ;

namespace kubeon::apply::testing {

// The demo cluster plus "spare-h100" and "spare-a10g": copies of an H100 and
// an A10G node, no pods (the demo's H100 and A10G pools are full: without
// them no migration order fits).
inline nlohmann::json DemoWithSpare(const std::string &demo_dir) {
  std::ifstream in(demo_dir + "cluster.json");
  nlohmann::json cluster = nlohmann::json::parse(in);
  const std::vector<std::pair<std::string, std::string>> spares = {
      {"ip-10-5-42-245.ec2.internal", "spare-h100"}, {"ip-10-20-245-63.ec2.internal", "spare-a10g"}};
  std::vector<nlohmann::json> added;
  for (const auto &item : cluster["items"]) {
    for (const auto &[of, name] : spares) {
      if (item["kind"] != "Node" || item["metadata"]["name"] != of) continue;
      nlohmann::json spare = item;
      spare["metadata"]["name"] = name;
      spare["metadata"]["labels"]["kubernetes.io/hostname"] = name;
      spare["metadata"].erase("uid");
      spare["metadata"].erase("resourceVersion");
      added.push_back(spare);
    }
  }
  for (auto &n : added) cluster["items"].push_back(std::move(n));
  return cluster;
}

struct ChildResult {
  bool signaled = false;
  int signal = 0;
  int exit_code = -1;
  std::string err;
};

// Starts kubeon-gpu with `args`, stdout and stderr in DIR/<name>.stdout and
// DIR/<name>.stderr; `crash_after` > 0 sets KUBEON_CRASHPOINT_AFTER_WRITES.
// Returns the pid, or -1.
inline pid_t SpawnGpu(const std::string &binary, const std::vector<std::string> &args, int crash_after,
                      const std::filesystem::path &dir, const std::string &name = "child") {
  std::vector<std::string> argv_s = {binary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (auto &a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char **e = environ; *e; ++e) {
    if (std::string(*e).rfind("KUBEON_CRASHPOINT_AFTER_WRITES=", 0) != 0) env_s.push_back(*e);
  }
  if (crash_after > 0) env_s.push_back("KUBEON_CRASHPOINT_AFTER_WRITES=" + std::to_string(crash_after));
  std::vector<char *> envp;
  for (auto &e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string out_file = (dir / (name + ".stdout")).string();
  const std::string err_file = (dir / (name + ".stderr")).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// How a child ended (waits for it); err = DIR/<name>.stderr.
inline ChildResult WaitGpu(pid_t pid, const std::filesystem::path &dir, const std::string &name = "child") {
  ChildResult r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.signaled = WIFSIGNALED(status);
  if (r.signaled) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  std::ifstream e(dir / (name + ".stderr"));
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

// Runs kubeon-gpu with `args`; `crash_after` > 0 sets
// KUBEON_CRASHPOINT_AFTER_WRITES.
inline ChildResult RunGpu(const std::string &binary, const std::vector<std::string> &args, int crash_after,
                          const std::filesystem::path &dir) {
  const pid_t pid = SpawnGpu(binary, args, crash_after, dir);
  if (pid < 0) {
    ChildResult r;
    r.err = "cannot start " + binary;
    return r;
  }
  return WaitGpu(pid, dir);
}

// `apply` of the demo in `mode` at `now`, no ConfigMap sync wait, JSON outcome.
inline std::vector<std::string> DemoApplyArgs(const std::string &demo_dir, const std::string &kubeconfig,
                                              const std::string &db, const std::string &mode, const std::string &now) {
  return {"apply",
          "--kubeconfig",
          kubeconfig,
          "--metrics",
          demo_dir + "history.om",
          "--policy",
          demo_dir + "policy.yaml",
          "--prices",
          demo_dir + "prices.yaml",
          "--audit-db",
          db,
          "--mode",
          mode,
          "--now",
          now,
          "--configmap-sync-seconds",
          "0",
          "-o",
          "json"};
}

}  // namespace kubeon::apply::testing
