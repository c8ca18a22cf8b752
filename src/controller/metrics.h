// Metrics: the controller's counters, gauges and histograms, rendered in the
// Prometheus text exposition format 0.0.4 for /metrics.
//
// Families are declared once (name, help, type, label names; histograms with
// their bucket bounds) and updated by label values.  Render() writes, per
// family sorted by name: "# HELP", "# TYPE", then one line per label set
// (sorted), histograms as cumulative _bucket{le=...} lines ending with
// le="+Inf", then _sum and _count.  Label values are escaped (\\, \", \n).
//
// Invariants: a family's label values always match its label names in
// number (REQUIRES on every update); a counter never decreases; a histogram's
// bucket counts are cumulative and its +Inf bucket equals _count.
// Thread-safe: updates come from the loop, Render from HTTP threads.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kubeon::controller {

class Metrics {
 public:
  enum class Type { kCounter, kGauge, kHistogram };

  // REQUIRES: name not declared yet; buckets sorted ascending (histograms).
  void Declare(const std::string& name, const std::string& help, Type type, std::vector<std::string> label_names,
               std::vector<double> buckets = {});

  // REQUIRES: name declared as a counter (Add) / gauge (Set) / histogram
  // (Observe); label_values.size() == its label names; Add: delta >= 0.
  void Add(const std::string& name, const std::vector<std::string>& label_values, double delta = 1);
  void Set(const std::string& name, const std::vector<std::string>& label_values, double value);
  void Observe(const std::string& name, const std::vector<std::string>& label_values, double value);
  // Drops every series of `name` whose label `label` equals `value` (a deleted policy).
  void Forget(const std::string& name, const std::string& label, const std::string& value);

  // The current value of a counter or gauge series (0 when absent); for tests.
  double Value(const std::string& name, const std::vector<std::string>& label_values) const;

  std::string Render() const;

 private:
  struct Series {
    double value = 0;             // counter, gauge
    std::vector<uint64_t> counts;  // histogram: per bucket (not cumulative)
    uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    std::string help;
    Type type = Type::kCounter;
    std::vector<std::string> label_names;
    std::vector<double> buckets;
    std::map<std::vector<std::string>, Series> series;
  };
  Series& SeriesOf(const std::string& name, const std::vector<std::string>& label_values, Type type);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
};

// The controller's metric families, declared on `m`:
//   kubeon_gpu_plans_total{policy}               counter
//   kubeon_gpu_gpus_freed{policy}                gauge (last plan)
//   kubeon_gpu_monthly_savings_usd{policy}       gauge (last plan)
//   kubeon_gpu_changes_total{policy,outcome}     counter (done, rolled-back, rollback-failed, ...)
//   kubeon_gpu_api_errors_total{verb,code}       counter
//   kubeon_gpu_step_duration_seconds{policy}     histogram
//   kubeon_gpu_leader                            gauge (1 while this replica leads)
void DeclareControllerMetrics(Metrics& m);

}  // namespace kubeon::controller
