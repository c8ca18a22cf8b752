// See metrics.h.
#include "controller/metrics.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kubeon::controller {
namespace {

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Prometheus' float format: integers without a fraction, +Inf/-Inf/NaN spelled out.
std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string Labels(const std::vector<std::string>& names, const std::vector<std::string>& values,
                   const std::string& extra_name = "", const std::string& extra_value = "") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (out.empty() ? "" : ",") + names[i] + "=\"" + Escape(values[i]) + "\"";
  }
  if (!extra_name.empty()) out += (out.empty() ? "" : ",") + extra_name + "=\"" + extra_value + "\"";
  return out.empty() ? "" : "{" + out + "}";
}

const char* TypeName(Metrics::Type t) {
  switch (t) {
    case Metrics::Type::kCounter: return "counter";
    case Metrics::Type::kGauge: return "gauge";
    case Metrics::Type::kHistogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

void Metrics::Declare(const std::string& name, const std::string& help, Type type,
                      std::vector<std::string> label_names, std::vector<double> buckets) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& f = families_[name];
  f.help = help;
  f.type = type;
  f.label_names = std::move(label_names);
  f.buckets = std::move(buckets);
  if (f.label_names.empty() && type != Type::kHistogram) f.series[{}];  // an unlabelled series exists from the start
}

Metrics::Series& Metrics::SeriesOf(const std::string& name, const std::vector<std::string>& label_values, Type type) {
  Family& f = families_.at(name);
  assert(f.type == type && f.label_names.size() == label_values.size());
  (void)type;
  Series& s = f.series[label_values];
  if (f.type == Type::kHistogram && s.counts.empty()) s.counts.assign(f.buckets.size(), 0);
  return s;
}

void Metrics::Add(const std::string& name, const std::vector<std::string>& label_values, double delta) {
  std::lock_guard<std::mutex> lock(mu_);
  SeriesOf(name, label_values, Type::kCounter).value += delta;
}

void Metrics::Set(const std::string& name, const std::vector<std::string>& label_values, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  SeriesOf(name, label_values, Type::kGauge).value = value;
}

void Metrics::Observe(const std::string& name, const std::vector<std::string>& label_values, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  const Family& f = families_.at(name);
  Series& s = SeriesOf(name, label_values, Type::kHistogram);
  for (size_t i = 0; i < f.buckets.size(); ++i) {
    if (value <= f.buckets[i]) {
      ++s.counts[i];
      break;
    }
  }
  ++s.count;
  s.sum += value;
}

void Metrics::Forget(const std::string& name, const std::string& label, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  auto fit = families_.find(name);
  if (fit == families_.end()) return;
  Family& f = fit->second;
  size_t index = f.label_names.size();
  for (size_t i = 0; i < f.label_names.size(); ++i) {
    if (f.label_names[i] == label) index = i;
  }
  if (index == f.label_names.size()) return;
  for (auto it = f.series.begin(); it != f.series.end();) {
    it = it->first[index] == value ? f.series.erase(it) : std::next(it);
  }
}

double Metrics::Value(const std::string& name, const std::vector<std::string>& label_values) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto fit = families_.find(name);
  if (fit == families_.end()) return 0;
  auto sit = fit->second.series.find(label_values);
  return sit == fit->second.series.end() ? 0 : sit->second.value;
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream out;
  for (const auto& [name, f] : families_) {
    out << "# HELP " << name << " " << f.help << "\n# TYPE " << name << " " << TypeName(f.type) << "\n";
    for (const auto& [values, s] : f.series) {
      if (f.type != Type::kHistogram) {
        out << name << Labels(f.label_names, values) << " " << Number(s.value) << "\n";
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += s.counts[i];
        out << name << "_bucket" << Labels(f.label_names, values, "le", Number(f.buckets[i])) << " " << cumulative
            << "\n";
      }
      out << name << "_bucket" << Labels(f.label_names, values, "le", "+Inf") << " " << s.count << "\n";
      out << name << "_sum" << Labels(f.label_names, values) << " " << Number(s.sum) << "\n";
      out << name << "_count" << Labels(f.label_names, values) << " " << s.count << "\n";
    }
  }
  return out.str();
}

void DeclareControllerMetrics(Metrics& m) {
  using T = Metrics::Type;
  m.Declare("kubeon_gpu_plans_total", "Plans made, per policy.", T::kCounter, {"policy"});
  m.Declare("kubeon_gpu_gpus_freed", "GPUs the policy's last plan frees.", T::kGauge, {"policy"});
  m.Declare("kubeon_gpu_monthly_savings_usd",
            "US dollars per month that leave the bill once the nodes the policy's last plan frees are removed "
            "(nodes freed x their price).",
            T::kGauge, {"policy"});
  m.Declare("kubeon_gpu_capacity_freed_usd",
            "US dollars per month of GPU capacity the policy's last plan frees on nodes that stay (their price per "
            "GPU): money only when it absorbs work that would otherwise add a node.",
            T::kGauge, {"policy"});
  m.Declare("kubeon_gpu_plan_duration_seconds",
            "Seconds the last planning of the policy took (planner and its invariant check; the cluster and history "
            "reads are not counted).",
            T::kGauge, {"policy"});
  m.Declare("kubeon_gpu_changes_total", "Executor steps finished, per policy and outcome.", T::kCounter,
            {"policy", "outcome"});
  m.Declare("kubeon_gpu_api_errors_total", "Kubernetes API calls that failed, per verb and HTTP status (0: no answer).",
            T::kCounter, {"verb", "code"});
  m.Declare("kubeon_gpu_step_duration_seconds", "Wall time of one executor step, rollback included.", T::kHistogram,
            {"policy"}, {10, 30, 60, 120, 300, 600, 1200, 1800, 3600});
  m.Declare("kubeon_gpu_leader", "1 while this replica holds the controller's leader Lease, else 0.", T::kGauge, {});
}

}  // namespace kubeon::controller
