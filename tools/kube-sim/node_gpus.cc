// See node_gpus.h.
#include "node_gpus.h"

#include <algorithm>

#include "quantity.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kGpuShared = "nvidia.com/gpu.shared";
constexpr const char* kMigPrefix = "nvidia.com/mig-";
constexpr const char* kSharedSuffix = ".shared";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Hex(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) out.push_back(digits[(h >> (60 - 4 * i)) & 0xf]);
  return out.substr(0, 8) + "-" + out.substr(8, 4) + "-" + out.substr(12, 4);
}

std::string GpuUuid(const std::string& node, int index) { return "GPU-" + Hex(node + "/" + std::to_string(index)); }

std::string MigUuid(const std::string& node, int index, uint64_t generation, size_t ordinal) {
  return "MIG-" + Hex(node + "/" + std::to_string(index) + "/" + std::to_string(generation) + "/" +
                      std::to_string(ordinal));
}

void CreateMigDevices(const std::string& node, uint64_t generation, const GpuMigTarget& t, SimGpu* gpu) {
  gpu->mig_enabled = t.mig_enabled;
  gpu->mig.clear();
  if (!t.mig_enabled) return;
  for (const auto& [profile, n] : t.devices) {
    for (int i = 0; i < n; ++i) {
      gpu->mig.push_back({profile, MigUuid(node, gpu->index, generation, gpu->mig.size()), {}});
    }
  }
}

int64_t LabelInt(const json& node, const char* key, int64_t fallback) {
  std::string v = Str(node, {"metadata", "labels", key});
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return fallback;
  return std::atoll(v.c_str());
}

// A device slot a request can take: the holders list and its capacity.
struct Slot {
  std::vector<std::string>* holders;
  int replicas;
};

void Erase(std::vector<std::string>* v, const std::string& key) { v->erase(std::remove(v->begin(), v->end(), key), v->end()); }

}  // namespace

bool SimGpu::Busy() const {
  if (!holders.empty()) return true;
  for (const auto& d : mig) {
    if (!d.holders.empty()) return true;
  }
  return false;
}

GpuMigTarget SimGpu::Geometry() const {
  GpuMigTarget t;
  t.mig_enabled = mig_enabled;
  for (const auto& d : mig) ++t.devices[d.profile];
  return t;
}

NodeGpuState* NodeGpus::Find(const std::string& node) {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second;
}

const NodeGpuState* NodeGpus::Find(const std::string& node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second;
}

NodeGpuState& NodeGpus::Ensure(const json& node) {
  const std::string name = Name(node);
  auto it = nodes_.find(name);
  if (it != nodes_.end()) return it->second;
  NodeGpuState& st = nodes_[name];
  int64_t replicas = std::max<int64_t>(1, LabelInt(node, "nvidia.com/gpu.replicas", 1));
  int64_t full = 0;
  std::map<std::string, int64_t> mig;
  if (const json* cap = kubesim::Find(node, {"status", "capacity"}); cap != nullptr && cap->is_object()) {
    for (const auto& [res, q] : cap->items()) {
      auto v = QuantityOf(q);
      if (!v) continue;
      if (res == kGpu || res == kGpuShared) full += static_cast<int64_t>(*v);
      if (res.rfind(kMigPrefix, 0) == 0 && !EndsWith(res, kSharedSuffix)) {
        mig[res.substr(std::string(kMigPrefix).size())] = static_cast<int64_t>(*v);
      }
    }
  }
  full /= replicas;
  int64_t count = LabelInt(node, "nvidia.com/gpu.count", -1);
  if (count < 0) count = full + (mig.empty() ? 0 : 1);
  full = std::min(full, count);
  for (int i = 0; i < count; ++i) {
    SimGpu g;
    g.index = i;
    g.uuid = GpuUuid(name, i);
    g.mig_enabled = i >= full;
    st.gpus.push_back(std::move(g));
  }
  // Deal the advertised MIG instances across the MIG GPUs.
  size_t next = static_cast<size_t>(full);
  for (const auto& [profile, n] : mig) {
    for (int64_t i = 0; i < n && next < st.gpus.size(); ++i) {
      SimGpu& g = st.gpus[next];
      g.mig.push_back({profile, MigUuid(name, g.index, 0, g.mig.size()), {}});
      next = next + 1 < st.gpus.size() ? next + 1 : static_cast<size_t>(full);
    }
  }
  return st;
}

void NodeGpus::Reconfigure(const std::string& node, const std::vector<GpuMigTarget>& targets) {
  NodeGpuState* st = Find(node);
  if (st == nullptr) return;
  ++st->generation;
  for (size_t i = 0; i < st->gpus.size() && i < targets.size(); ++i) {
    SimGpu& g = st->gpus[i];
    if (g.Geometry() == targets[i]) continue;
    CreateMigDevices(node, st->generation, targets[i], &g);
  }
}

void NodeGpus::Reboot(const std::string& node, const std::vector<GpuMigTarget>& targets) {
  NodeGpuState* st = Find(node);
  if (st == nullptr) return;
  ++st->generation;
  for (size_t i = 0; i < st->gpus.size(); ++i) {
    SimGpu& g = st->gpus[i];
    for (const auto& k : g.holders) holder_uids_.erase(k), holder_node_.erase(k);
    for (const auto& d : g.mig) {
      for (const auto& k : d.holders) holder_uids_.erase(k), holder_node_.erase(k);
    }
    g.holders.clear();
    g.mig.clear();
    if (i < targets.size()) g.mig_enabled = targets[i].mig_enabled;
  }
}

Outcome<bool> NodeGpus::Assign(const std::string& node, const std::string& pod_key, const std::string& pod_uid,
                               const std::vector<DeviceRequest>& requests, bool all_or_nothing) {
  if (Holds(pod_key)) return true;
  NodeGpuState* st = Find(node);
  if (st == nullptr) {
    if (!all_or_nothing) return true;
    for (const auto& r : requests) {
      if (r.count > 0) {
        return ApiError::BadRequest("Allocate failed due to requested number of devices unavailable for " +
                                    r.resource + ". Requested: " + std::to_string(r.count) +
                                    ", Available: 0, which is unexpected");
      }
    }
    return true;
  }
  std::vector<std::pair<std::vector<std::string>*, int64_t>> picks;  // holders list, how many units
  for (const auto& r : requests) {
    if (r.count <= 0) continue;
    std::vector<Slot> slots;
    const bool whole = r.resource == kGpu || r.resource == kGpuShared;
    std::string profile;
    if (!whole) {
      profile = r.resource.substr(std::string(kMigPrefix).size());
      if (EndsWith(profile, kSharedSuffix)) profile.resize(profile.size() - std::string(kSharedSuffix).size());
    }
    for (auto& g : st->gpus) {
      if (whole && !g.mig_enabled) slots.push_back({&g.holders, r.replicas});
      if (!whole && g.mig_enabled) {
        for (auto& d : g.mig) {
          if (d.profile == profile) slots.push_back({&d.holders, r.replicas});
        }
      }
    }
    int64_t left = r.count, available = 0;
    for (const auto& s : slots) available += std::max<int64_t>(0, s.replicas - static_cast<int64_t>(s.holders->size()));
    if (available < r.count && all_or_nothing) {
      return ApiError::BadRequest("Allocate failed due to requested number of devices unavailable for " + r.resource +
                                  ". Requested: " + std::to_string(r.count) + ", Available: " +
                                  std::to_string(available) + ", which is unexpected");
    }
    for (const auto& s : slots) {
      int64_t free = s.replicas - static_cast<int64_t>(s.holders->size());
      if (free <= 0 || left <= 0) continue;
      // Time-sliced replicas of one device count once per pod.
      picks.push_back({s.holders, 1});
      left -= std::min(free, left);
    }
  }
  if (picks.empty()) return true;
  for (auto& [holders, n] : picks) {
    (void)n;
    holders->push_back(pod_key);
  }
  holder_uids_[pod_key] = pod_uid;
  holder_node_[pod_key] = node;
  return true;
}

bool NodeGpus::Release(const std::string& pod_key) {
  auto it = holder_node_.find(pod_key);
  if (it == holder_node_.end()) return false;
  if (NodeGpuState* st = Find(it->second)) {
    for (auto& g : st->gpus) {
      Erase(&g.holders, pod_key);
      for (auto& d : g.mig) Erase(&d.holders, pod_key);
    }
  }
  holder_node_.erase(it);
  holder_uids_.erase(pod_key);
  return true;
}

json NodeGpus::View() const {
  json nodes = json::object();
  for (const auto& [name, st] : nodes_) {
    json gpus = json::array();
    for (const auto& g : st.gpus) {
      json mig = json::array();
      for (const auto& d : g.mig) mig.push_back({{"profile", d.profile}, {"uuid", d.uuid}, {"pods", d.holders}});
      gpus.push_back({{"index", g.index}, {"uuid", g.uuid}, {"migEnabled", g.mig_enabled}, {"pods", g.holders},
                      {"migDevices", mig}});
    }
    nodes[name] = {{"gpus", gpus}};
  }
  return {{"nodes", nodes}};
}

json NodeGpus::ToJson() const {
  json j = View();
  for (const auto& [name, st] : nodes_) j["nodes"][name]["generation"] = st.generation;
  j["podUids"] = holder_uids_;
  return j;
}

Outcome<bool> NodeGpus::FromJson(const json& j) {
  auto bad = [](const std::string& why) { return ApiError::BadRequest("kubeSim.nodeGpus: " + why); };
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_object()) return bad("no \"nodes\" object");
  std::map<std::string, NodeGpuState> nodes;
  std::map<std::string, std::string> node_of;
  try {
    for (const auto& [name, n] : j["nodes"].items()) {
      NodeGpuState st;
      st.generation = n.value("generation", uint64_t{0});
      for (const auto& g : n.at("gpus")) {
        SimGpu gpu;
        gpu.index = g.at("index").get<int>();
        gpu.uuid = g.at("uuid").get<std::string>();
        gpu.mig_enabled = g.at("migEnabled").get<bool>();
        gpu.holders = g.at("pods").get<std::vector<std::string>>();
        for (const auto& k : gpu.holders) node_of[k] = name;
        for (const auto& d : g.at("migDevices")) {
          SimMigDevice dev{d.at("profile").get<std::string>(), d.at("uuid").get<std::string>(),
                           d.at("pods").get<std::vector<std::string>>()};
          for (const auto& k : dev.holders) node_of[k] = name;
          gpu.mig.push_back(std::move(dev));
        }
        if (gpu.index != static_cast<int>(st.gpus.size())) return bad(name + ": GPU indexes must be 0, 1, ...");
        st.gpus.push_back(std::move(gpu));
      }
      nodes[name] = std::move(st);
    }
    holder_uids_ = j.value("podUids", json::object()).get<std::map<std::string, std::string>>();
  } catch (const json::exception& e) {
    return bad(e.what());
  }
  nodes_ = std::move(nodes);
  holder_node_ = std::move(node_of);
  return true;
}

}  // namespace kubeon::kubesim
