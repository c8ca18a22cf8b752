#include "apply/lease.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <random>

#include "apply/rfc3339.h"

namespace kubeon::apply {
namespace {

using SysClock = std::chrono::system_clock;

// The instant a Lease stops protecting its holder; nullopt when it never
// says (no renewTime or duration): such a Lease counts as expired.
std::optional<SysClock::time_point> ExpiresAt(const nlohmann::json& lease) {
  const nlohmann::json spec = lease.value("spec", nlohmann::json::object());
  if (!spec.is_object()) return std::nullopt;
  const auto renew = spec.find("renewTime");
  const auto duration = spec.find("leaseDurationSeconds");
  if (renew == spec.end() || !renew->is_string() || duration == spec.end() || !duration->is_number_integer()) {
    return std::nullopt;
  }
  const auto renewed = ParseTimePoint(renew->get<std::string>());
  if (!renewed) return std::nullopt;
  return *renewed + std::chrono::seconds(duration->get<int64_t>());
}

std::string Holder(const nlohmann::json& lease) {
  const nlohmann::json spec = lease.value("spec", nlohmann::json::object());
  if (!spec.is_object()) return "";
  const auto h = spec.find("holderIdentity");
  return h != spec.end() && h->is_string() ? h->get<std::string>() : "";
}

std::string Rv(const nlohmann::json& object) {
  const auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  const auto rv = m->find("resourceVersion");
  return rv != m->end() && rv->is_string() ? rv->get<std::string>() : "";
}

}  // namespace

std::string MakeHolderIdentity(const std::string& program) {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "unknown-host");
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%08x", static_cast<unsigned>(rd()));
  return program + "/" + host + "/" + std::to_string(getpid()) + "/" + suffix;
}

std::string LeaseName(const std::string& policy) {
  std::string name = "kubeon-gpu-";
  for (char c : policy) {
    const unsigned char u = static_cast<unsigned char>(c);
    name += (std::isalnum(u) || c == '-' || c == '.') ? static_cast<char>(std::tolower(u)) : '-';
  }
  if (name.size() > 253) name.resize(253);
  while (!name.empty() && !std::isalnum(static_cast<unsigned char>(name.back()))) name.pop_back();
  return name;
}

PolicyLease::PolicyLease(kube::KubeClient& client, LeaseOptions options)
    : client_(client), options_(std::move(options)) {
  if (options_.holder.empty()) options_.holder = MakeHolderIdentity("kubeon-gpu");
}

std::string PolicyLease::Name() const { return options_.name.empty() ? LeaseName(options_.policy) : options_.name; }

std::string PolicyLease::Subject() const {
  return options_.subject.empty() ? "policy " + options_.policy : options_.subject;
}

std::string PolicyLease::Path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + options_.namespace_ + "/leases/" + Name();
}

std::string PolicyLease::Describe() const { return options_.namespace_ + "/" + Name(); }

nlohmann::json PolicyLease::Spec(bool transition, const nlohmann::json& previous) const {
  const std::string now = FormatMicroTime(options_.now());
  nlohmann::json spec = {{"holderIdentity", options_.holder},
                         {"leaseDurationSeconds", options_.duration.count()},
                         {"renewTime", now}};
  const nlohmann::json old = previous.is_object() ? previous.value("spec", nlohmann::json::object())
                                                  : nlohmann::json::object();
  int64_t transitions = old.is_object() ? old.value("leaseTransitions", int64_t{0}) : 0;
  if (transition) {
    spec["acquireTime"] = now;
    if (!previous.is_null()) ++transitions;
  } else if (old.is_object() && old.contains("acquireTime")) {
    spec["acquireTime"] = old["acquireTime"];
  }
  spec["leaseTransitions"] = transitions;
  return spec;
}

Status PolicyLease::Acquire() {
  kube::ApiResult<nlohmann::json> current = client_.Get(Path());
  if (!current.ok() && current.error().http_status != 404) {
    return Status::Error("cannot read Lease " + Describe() + ": " + current.error().ToString());
  }
  if (!current.ok()) {
    nlohmann::json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                            {"kind", "Lease"},
                            {"metadata",
                             {{"name", Name()},
                              {"namespace", options_.namespace_},
                              {"labels", {{"app.kubernetes.io/managed-by", "kubeon-gpu"}}}}},
                            {"spec", Spec(true, nlohmann::json())}};
    kube::ApiResult<nlohmann::json> created =
        client_.Create("/apis/coordination.k8s.io/v1/namespaces/" + options_.namespace_ + "/leases", lease);
    if (!created.ok()) {
      if (created.error().http_status == 409) return Acquire();  // someone created it first: judge it
      return Status::Error("cannot create Lease " + Describe() + ": " + created.error().ToString());
    }
    held_ = true;
    resource_version_ = Rv(*created);
    return Status::Ok();
  }
  const std::string holder = Holder(*current);
  const auto expires = ExpiresAt(*current);
  const auto now = options_.now();
  const bool ours = holder == options_.holder;
  if (!ours && !holder.empty() && expires && *expires > now) {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(*expires - now).count();
    return Status::Error(Subject() + " is being changed by " + holder + " (Lease " + Describe() +
                         " expires in " + std::to_string(left) + "s unless renewed); try again later");
  }
  nlohmann::json lease = *current;
  lease["spec"] = Spec(!ours, *current);
  kube::ApiResult<nlohmann::json> updated = client_.Update(Path(), lease);
  if (!updated.ok()) {
    if (updated.error().http_status == 409) {
      return Status::Error(Subject() + ": another executor took Lease " + Describe() +
                           " at the same moment; try again later");
    }
    return Status::Error("cannot take Lease " + Describe() + ": " + updated.error().ToString());
  }
  held_ = true;
  resource_version_ = Rv(*updated);
  return Status::Ok();
}

Status PolicyLease::Renew() {
  if (!held_) return Status::Error("Lease " + Describe() + " is not held");
  kube::ApiResult<nlohmann::json> current = client_.Get(Path());
  if (!current.ok()) return Status::Error("cannot renew Lease " + Describe() + ": " + current.error().ToString());
  if (Rv(*current) != resource_version_ || Holder(*current) != options_.holder) {
    held_ = false;
    return Status::Error("lost Lease " + Describe() + ": now held by " +
                         (Holder(*current).empty() ? std::string("nobody") : Holder(*current)) +
                         "; stopping before any further write");
  }
  nlohmann::json lease = *current;
  lease["spec"] = Spec(false, *current);
  kube::ApiResult<nlohmann::json> updated = client_.Update(Path(), lease);
  if (!updated.ok()) {
    held_ = false;
    return Status::Error("lost Lease " + Describe() + ": " + updated.error().ToString());
  }
  resource_version_ = Rv(*updated);
  return Status::Ok();
}

Status PolicyLease::Release() {
  if (!held_) return Status::Ok();
  held_ = false;
  kube::ApiResult<nlohmann::json> current = client_.Get(Path());
  if (!current.ok()) return Status::Error("cannot release Lease " + Describe() + ": " + current.error().ToString());
  if (Holder(*current) != options_.holder) return Status::Ok();  // taken over: nothing of ours to give up
  nlohmann::json lease = *current;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = FormatMicroTime(options_.now());
  kube::ApiResult<nlohmann::json> updated = client_.Update(Path(), lease);
  if (!updated.ok() && updated.error().http_status != 409) {
    return Status::Error("cannot release Lease " + Describe() + ": " + updated.error().ToString());
  }
  return Status::Ok();
}

LeaseKeeper::LeaseKeeper(PolicyLease& lease, std::chrono::milliseconds every) : lease_(lease) {
  thread_ = std::thread([this, every] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
      lock.unlock();
      Status s = lease_.Renew();
      lock.lock();
      if (!s.ok()) {
        error_ = s.message();
        return;
      }
      renewed_ = std::chrono::steady_clock::now();
    }
  });
}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool LeaseKeeper::lost() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !error_.empty();
}

std::string LeaseKeeper::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

Status LeaseKeeper::Fresh(std::chrono::milliseconds renew_deadline) const {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string what = "lost the Lease " + lease_.Describe();
  if (!error_.empty()) return Status::Error(what + ": " + error_, StatusCode::kAborted);
  const auto since = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - renewed_);
  if (since > renew_deadline) {
    return Status::Error(what + ": not renewed for " + std::to_string(since.count()) + " s (renew deadline " +
                             std::to_string(renew_deadline.count() / 1000) + " s)",
                         StatusCode::kAborted);
  }
  return Status::Ok();
}

}  // namespace kubeon::apply
