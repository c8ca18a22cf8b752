// Resource operations behind the REST paths (everything but watch), run
// with the Simulator mutex held.  See api.h for the surface; semantics:
//
//  LIST     labelSelector, fieldSelector, limit + continue (opaque token
//           holding the list's resourceVersion and the last key; 410
//           Expired once that version is compacted).  Items carry no
//           kind/apiVersion, as from a real server.
//  GET      the object at the requested version (policy/v1beta1 PDBs are
//           the stored policy/v1 objects relabelled).
//  POST     create (apps/v1 workloads defaulted, apps_defaults.h): generateName, namespace defaulting and checks, 404 for
//           a missing namespace, status reset (pods start Pending), 409
//           AlreadyExists, validation.h rules; 201.
//  PUT      update with optimistic concurrency (409 Conflict on a stale
//           metadata.resourceVersion); the main resource keeps the stored
//           status, /status keeps the stored spec and metadata.
//  PATCH    merge / strategic merge (not for custom resources: 415) / JSON
//           patch (Content-Type), then as PUT; apply-patch (server-side
//           apply) creates or merges, managedFields operation Apply.
//  custom resources (custom_resources.h): validated, pruned and defaulted
//           by their CRD's schema (structural_schema.h); CRDs validated.
//  DELETE   immediate removal (pods: graceful, pod_deletion.h, with
//           gracePeriodSeconds from the query or DeleteOptions), dependents
//           (ownerReferences) deleted in the background (pods gracefully)
//           or orphaned (propagationPolicy Orphan); deleting a
//           namespace deletes its contents; preconditions honoured.
//  scale    autoscaling/v1 Scale for deployments, replicasets, statefulsets.
//  eviction eviction.h.
//  dryRun=All on writes validates and answers without writing.
//  fieldValidation on POST, PUT and PATCH (main resource and status):
//           unknown fields are pruned, warned about or rejected
//           (field_validation.h); warnings become Warning headers.
#pragma once

#include "api.h"
#include "route.h"

namespace kubeon::kubesim {

// REQUIRES: sim.mutex() held; route.type non-null; not a watch.
ApiResponse RestHandle(Simulator& sim, const Route& route, const ApiRequest& req);

ApiResponse ErrorResponse(const ApiError& e);
ApiResponse JsonResponse(int status, const json& body);

// The object as served at `version` (apiVersion and kind set).
json ServedObject(json obj, const ResourceType& type, const std::string& version);

}  // namespace kubeon::kubesim
