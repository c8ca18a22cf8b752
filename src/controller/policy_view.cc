#include "controller/policy_view.h"

namespace kubeon::controller {

void PolicyViews::Put(PolicyView view) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string name = view.name;
  views_[name] = std::move(view);
}

void PolicyViews::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  views_.erase(name);
}

std::optional<PolicyView> PolicyViews::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = views_.find(name);
  if (it == views_.end()) return std::nullopt;
  return it->second;
}

std::vector<PolicyView> PolicyViews::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PolicyView> out;
  out.reserve(views_.size());
  for (const auto& [name, v] : views_) out.push_back(v);
  return out;
}

bool PolicyViews::planned_once() const {
  std::lock_guard<std::mutex> lock(mu_);
  return planned_once_;
}

void PolicyViews::set_planned_once(bool v) {
  std::lock_guard<std::mutex> lock(mu_);
  planned_once_ = v;
}

}  // namespace kubeon::controller
