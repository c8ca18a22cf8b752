// Server-side printing: meta.k8s.io/v1 Table responses, which kubectl asks
// for (Accept: application/json;as=Table;v=v1;g=meta.k8s.io) when it prints
// for people.  Columns and cell text follow the kube-apiserver's printers
// for nodes, pods, deployments, replicasets, statefulsets, daemonsets,
// poddisruptionbudgets, namespaces, configmaps, events and jobs; other
// types get NAME and AGE.  Columns with priority 1 appear with -o wide.
// Each row carries the object's metadata (PartialObjectMetadata), the
// whole object with includeObject=Object, or nothing with None.
#pragma once

#include <string>
#include <vector>

#include "meta.h"
#include "resources.h"

namespace kubeon::kubesim {

// Whether an Accept header asks for a Table.
bool WantsTable(const std::string& accept);

json RenderTable(const ResourceType& type, const std::vector<const json*>& objects, TimePoint now,
                 const json& list_metadata, const std::string& include_object);

// apimachinery's duration.HumanDuration ("5m", "3h20m", "2d4h", "3y12d").
std::string HumanDuration(int64_t seconds);

}  // namespace kubeon::kubesim
