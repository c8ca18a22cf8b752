// The DCGM history of a SyntheticCluster: as OpenMetrics text (history.om)
// and as the metrics::History a reader would make of that text.
//
// The text is what `promtool tsdb create-blocks-from openmetrics` (2.42)
// accepts: per metric family a `# HELP` and a `# TYPE <name> gauge` line and
// then all of its samples, `<name>{labels} <value> <unix seconds>`, each
// series' samples in time order; `# EOF` ends it.  Families, in this order:
// DCGM_FI_DEV_FB_USED (MiB), DCGM_FI_DEV_FB_FREE (MiB),
// DCGM_FI_PROF_GR_ENGINE_ACTIVE (ratio), DCGM_FI_DEV_GPU_UTIL (percent).
// Within a family, series follow SyntheticCluster::pods order and GPU ordinal.
// One series per (pod with history, GPU of the pod); idle GPUs have none.
// Labels follow the node's DcgmStyle (spec.h): gpu, UUID, device, modelName,
// Hostname (older exporter), or gpu, UUID, pci_bus_id, device, modelName,
// hostname, DCGM_FI_DRIVER_VERSION (newer), and the pod
// mapping container/namespace/pod, or behind a ServiceMonitor the exporter's
// container/namespace/pod plus exported_container/exported_namespace/
// exported_pod, instance and job.  NaN marks the samples SeriesSampler flags
// bad (promtool stores NaN; kubeon's reader rejects it as unparseable).
//
// BuildHistory fills the same per-pod summaries and counts the reader would
// (peaks, histograms, time spans, sample and bad-sample counts, last-seen
// labels, IngestStats line counts); it leaves IngestStats'
// first_bad_line_numbers/first_bad_reasons empty.
#pragma once

#include <functional>
#include <string_view>

#include "metrics/history.h"
#include "model/status.h"
#include "gen-cluster/spec.h"

namespace kubeon::gencluster {

// Writes history.om to `sink` in pieces of about 1 MiB; a sink returning
// false stops the writing with an error.
Status WriteHistory(const SyntheticCluster& cluster, const std::function<bool(std::string_view)>& sink);

// The History a reader would build from WriteHistory's text.
metrics::History BuildHistory(const SyntheticCluster& cluster);

}  // namespace kubeon::gencluster
