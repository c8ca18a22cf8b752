// Custom resources: the types kube-sim serves because a
// CustomResourceDefinition (apiextensions.k8s.io/v1) in the store defines
// them, beside the built-in types of resources.h.
//
// CustomTypes is the registry of one Simulator.  Sync() rebuilds it from
// the CRD objects in the store (the CRD controller, crd_controller.h, calls
// it after every CRD write; snapshot loading calls it after restoring a
// CRD).  A CRD defines a type once its names are valid (BuildCustomType);
// the type is served at every version with `served: true`, stored at the
// version with `storage: true` (versions[0]); serving another version only
// relabels apiVersion (conversion strategy None; webhooks are not run).
//
// Invariants:
//  - a ResourceType handed out stays valid for the registry's lifetime:
//    entries are never freed, a changed CRD gets a new entry and the old
//    one is retired, so routes and open watch streams may keep pointers;
//  - lookups are thread-safe (own mutex) and see the types as of the last
//    Sync(); Sync() REQUIRES the Simulator mutex (it reads the store).
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "resources.h"
#include "store.h"

namespace kubeon::kubesim {

// Store id of CustomResourceDefinitions.
inline constexpr const char* kCrds = "apiextensions.k8s.io/customresourcedefinitions";

struct PrinterColumn {
  std::string name;
  std::string type;  // integer | number | string | boolean | date
  std::string format;
  std::string description;
  int priority = 0;
  std::string json_path;  // ".spec.mode"
};

// What a custom type carries beyond ResourceType (ResourceType::custom).
struct CustomInfo {
  std::string crd_name;  // "<plural>.<group>"
  // Per served version: the openAPIV3Schema (null when absent) and the
  // printer columns (additionalPrinterColumns; none declared: Age).
  std::vector<std::string> versions;
  std::vector<json> schemas;
  std::vector<std::vector<PrinterColumn>> columns;
  const json& Schema(const std::string& version) const;
  const std::vector<PrinterColumn>& Columns(const std::string& version) const;
};

// Problems with a CRD that the API server rejects (422 Invalid causes,
// "spec.names.plural: Required value", ...); empty when it is acceptable.
std::vector<std::string> CrdProblems(const json& crd);

class CustomTypes {
 public:
  CustomTypes() = default;
  CustomTypes(const CustomTypes&) = delete;
  CustomTypes& operator=(const CustomTypes&) = delete;

  // Rebuilds the served set from the CRDs in `store`.  Returns the store
  // ids of the types that stopped being served (their CRD was deleted).
  // A CRD that is invalid (CrdProblems), serves no version, or names a
  // kind or plural that a built-in type or an earlier CRD (by name) has,
  // defines nothing.
  std::vector<std::string> Sync(const Store& store);
  // Whether the CRD named `crd_name` defines a served type.
  bool Serves(const std::string& crd_name) const;

  const ResourceType* Find(const std::string& group, const std::string& version, const std::string& plural) const;
  const ResourceType* FindByStoreId(const std::string& store_id) const;
  const ResourceType* FindByKind(const std::string& group, const std::string& kind) const;
  // The served custom types, ordered by CRD name.
  std::vector<const ResourceType*> All() const;

 private:
  struct Entry {
    json spec;  // the CRD's spec it was built from
    ResourceType type;
    CustomInfo info;
  };
  mutable std::mutex mu_;
  std::deque<Entry> entries_;          // every entry ever built, never freed
  std::vector<const Entry*> active_;   // the served ones, by CRD name
};

// Built-ins first, then the custom types (`custom` may be null).
std::vector<const ResourceType*> ServedResources(const CustomTypes* custom);
const ResourceType* FindServed(const CustomTypes* custom, const std::string& group, const std::string& version,
                               const std::string& plural);
const ResourceType* FindServedByStoreId(const CustomTypes* custom, const std::string& store_id);
const ResourceType* FindServedByKind(const CustomTypes* custom, const std::string& group, const std::string& kind);

}  // namespace kubeon::kubesim
