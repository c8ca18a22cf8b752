// The CRD controller: what kube-apiserver's apiextensions controllers do
// for CustomResourceDefinitions.
//
// On every run it syncs the Simulator's CustomTypes registry with the CRDs
// in the store (custom_resources.h), so a CRD's resources are served as soon
// as the write that created it returns, and it sets each CRD's status:
// conditions NamesAccepted and Established True (reason NoConflicts /
// InitialNamesAccepted, as the real server), acceptedNames (spec.names with
// singular and listKind defaulted) and storedVersions (the storage version
// added once).  A name already taken by another CRD or a built-in type
// (same group and plural or kind) gets NamesAccepted False, NameConflict,
// and the CRD is not served.  When a CRD is deleted, every object of its
// type is deleted too (the real server's customresourcecleanup finalizer,
// done at once here: the CRD leaves the store immediately).
#pragma once

#include "controller.h"
#include "custom_resources.h"

namespace kubeon::kubesim {

class CrdController : public Controller {
 public:
  explicit CrdController(CustomTypes& types) : types_(types) {}
  const char* name() const override { return "crd"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kCrds}; }

 private:
  CustomTypes& types_;
};

}  // namespace kubeon::kubesim
