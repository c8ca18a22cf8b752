// See sim.h.
#include "sim.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "crd_controller.h"
#include "daemonset_controller.h"
#include "deployment_controller.h"
#include "device_manager.h"
#include "device_plugin.h"
#include "disruption_controller.h"
#include "gpu_operator.h"
#include "kubelet.h"
#include "pod_terminator.h"
#include "mig_manager.h"
#include "replicaset_controller.h"
#include "resources.h"
#include "scheduler.h"
#include "snapshot.h"
#include "statefulset_controller.h"

namespace kubeon::kubesim {

namespace {

const std::vector<std::string> kSystemNamespaces = {"default", "kube-system", "kube-public", "kube-node-lease"};

// Adds namespace kube-system with `uid` when the store lacks it.
void EnsureKubeSystem(Store& store, const std::string& uid) {
  if (store.Get(kNamespaces, "", "kube-system") != nullptr) return;
  store.Restore(kNamespaces, {{"apiVersion", "v1"},
                              {"kind", "Namespace"},
                              {"metadata", {{"name", "kube-system"}, {"uid", uid},
                                            {"labels", {{"kubernetes.io/metadata.name", "kube-system"}}}}},
                              {"spec", {{"finalizers", json::array({"kubernetes"})}}},
                              {"status", {{"phase", "Active"}}}});
}

}  // namespace

std::string KubeSystemUid(const std::string& content) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(content.data(), content.size(), digest, &len, EVP_sha256(), nullptr);
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0f) | 0x50);  // version 5
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3f) | 0x80);  // RFC 4122 variant
  const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0x0f]);
  }
  return out;
}

Simulator::Simulator(Settings settings, Clock clock)
    : settings_(std::move(settings)),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::system_clock::now(); })) {
  anchor_real_ = anchor_sim_ = clock_();
  scale_ = settings_.time_scale;
  store_ = std::make_unique<Store>(static_cast<size_t>(settings_.history_limit), [this] { return Now(); },
                                   settings_.seed);
  controllers_.push_back(std::make_unique<CrdController>(custom_types_));
  controllers_.push_back(std::make_unique<DeploymentController>());
  controllers_.push_back(std::make_unique<ReplicaSetController>());
  controllers_.push_back(std::make_unique<StatefulSetController>());
  controllers_.push_back(std::make_unique<GpuOperator>());
  controllers_.push_back(std::make_unique<DaemonSetController>());
  controllers_.push_back(std::make_unique<Scheduler>());
  controllers_.push_back(std::make_unique<DeviceManager>());
  controllers_.push_back(std::make_unique<Kubelet>());
  controllers_.push_back(std::make_unique<PodTerminator>());
  controllers_.push_back(std::make_unique<MigManager>());
  controllers_.push_back(std::make_unique<DevicePlugin>());
  controllers_.push_back(std::make_unique<DisruptionController>());
  seen_.assign(controllers_.size(), ~0ULL);
}

Simulator::~Simulator() { StopTicker(); }

Outcome<bool> Simulator::UpdateSettings(const json& patch) {
  auto s = settings_.Merge(patch);
  if (!s.ok()) return s.error();
  settings_ = s.value();
  std::lock_guard<std::mutex> lock(clock_mu_);
  if (scale_ != settings_.time_scale) {  // re-anchor so that time does not jump
    TimePoint real = clock_();
    anchor_sim_ += std::chrono::duration_cast<TimePoint::duration>((real - anchor_real_) * scale_);
    anchor_real_ = real;
    scale_ = settings_.time_scale;
  }
  return true;
}

TimePoint Simulator::Now() const {
  std::lock_guard<std::mutex> lock(clock_mu_);
  return anchor_sim_ + std::chrono::duration_cast<TimePoint::duration>((clock_() - anchor_real_) * scale_);
}

void Simulator::AdvanceClock(std::chrono::milliseconds d) {
  {
    std::lock_guard<std::mutex> lock(clock_mu_);
    anchor_sim_ += d;
    advanced_ += d;
  }
  AfterWrite();
}

json Simulator::ClockState() const {
  TimePoint now = Now();
  std::lock_guard<std::mutex> lock(clock_mu_);
  return {{"now", Rfc3339(now)},
          {"unixMillis", std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count()},
          {"timeScale", scale_},
          {"advancedSeconds", static_cast<double>(advanced_.count()) / 1000.0}};
}

Outcome<size_t> Simulator::LoadSnapshot(const json& list, const std::string& source) {
  auto n = LoadList(*store_, list, source, /*keep_versions=*/false, &custom_types_);
  if (!n.ok()) return n.error();
  EnsureKubeSystem(*store_, settings_.kube_system_uid.empty() ? KubeSystemUid(list.dump()) : settings_.kube_system_uid);
  std::vector<std::string> namespaces = kSystemNamespaces;
  namespaces.push_back(settings_.operator_namespace);
  EnsureNamespaces(*store_, namespaces, &custom_types_);
  SynthesizeDaemonSets(*store_);
  Reconcile();
  store_->Compact();
  Persist();
  return n;
}

Outcome<bool> Simulator::UsePersistence(const std::string& dir) {
  ::mkdir(dir.c_str(), 0755);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return ApiError::BadRequest("--state-dir " + dir + ": not a directory");
  }
  state_dir_ = dir;
  std::string path = dir + "/state.json";
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  json state = json::parse(ss.str(), nullptr, false);
  if (state.is_discarded()) return ApiError::BadRequest(path + ": invalid JSON");
  auto loaded = LoadState(*store_, state, path, &custom_types_);
  if (!loaded.ok()) return loaded.error();
  if (const json* g = Find(state, {"kubeSim", "nodeGpus"}); g != nullptr) {
    auto ok = gpus_.FromJson(*g);
    if (!ok.ok()) return ApiError::BadRequest(path + ": " + ok.error().message);
  }
  EnsureKubeSystem(*store_, settings_.kube_system_uid.empty() ? KubeSystemUid(state.dump()) : settings_.kube_system_uid);
  std::vector<std::string> namespaces = kSystemNamespaces;
  namespaces.push_back(settings_.operator_namespace);
  EnsureNamespaces(*store_, namespaces, &custom_types_);
  Reconcile();
  store_->Compact();
  persisted_writes_ = store_->WriteCount();
  return true;
}

uint64_t Simulator::InputSignature(const Controller& c) const {
  uint64_t sum = 0;  // write counters only grow, so any input write changes the sum
  for (const auto& id : c.Inputs()) sum += store_->WriteCount(id);
  return sum;
}

void Simulator::Reconcile() {
  ControllerContext ctx{*store_, settings_, faults_, Now(), gpus_, logs_};
  for (int pass = 0; pass < 20; ++pass) {
    bool wrote = false;
    for (size_t i = 0; i < controllers_.size(); ++i) {
      Controller& c = *controllers_[i];
      const uint64_t signature = InputSignature(c);
      if (signature == seen_[i] && !c.WaitingOnClock()) continue;
      seen_[i] = signature;  // before the run: its own writes make it run again
      auto start = std::chrono::steady_clock::now();
      bool w = c.Reconcile(ctx);
      wrote |= w;
      if (trace_) {
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
        std::cerr << "kube-sim: controller " << c.name() << " pass " << pass << ": " << us.count() / 1000.0
                  << " ms" << (w ? " (wrote)" : "") << std::endl;
      }
    }
    if (!wrote) break;
  }
  reconciled_writes_ = store_->WriteCount();
}

void Simulator::AfterWrite() {
  Reconcile();
  Persist();
}

void Simulator::Persist() {
  if (state_dir_.empty() || store_->WriteCount() == persisted_writes_) return;
  json state = DumpState(*store_);
  state["kubeSim"] = {{"nodeGpus", gpus_.ToJson()}};
  auto ok = WriteFileAtomic(state_dir_ + "/state.json", state.dump());
  if (!ok.ok()) {
    std::cerr << "kube-sim: persisting state: " << ok.error().message << std::endl;
    return;
  }
  persisted_writes_ = store_->WriteCount();
}

json Simulator::State() const {
  json counts = json::object();
  for (const auto& id : store_->StoreIds()) counts[id] = store_->Count(id);
  return {{"resourceVersion", std::to_string(store_->ResourceVersion())},
          {"compactedRevision", std::to_string(store_->CompactedRevision())},
          {"objects", counts},
          {"settings", settings_.ToJson()},
          {"faults", faults_.State()}};
}

void Simulator::StartTicker() {
  ticker_ = std::thread([this] {
    for (;;) {
      int64_t tick_ms;
      {
        std::lock_guard<std::mutex> lock(mu_);
        bool waiting = false;
        for (const auto& c : controllers_) waiting = waiting || c->WaitingOnClock();
        if (waiting || store_->WriteCount() != reconciled_writes_) AfterWrite();
        tick_ms = settings_.tick_ms;
      }
      std::unique_lock<std::mutex> lock(ticker_mu_);
      if (ticker_cv_.wait_for(lock, std::chrono::milliseconds(tick_ms), [this] { return ticker_stop_; })) return;
    }
  });
}

void Simulator::StopTicker() {
  {
    std::lock_guard<std::mutex> lock(ticker_mu_);
    ticker_stop_ = true;
  }
  ticker_cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

}  // namespace kubeon::kubesim
