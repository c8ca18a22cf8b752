// Who the kubeconfig's credentials are, and which cluster they reach, as the
// API server itself reports them: what `kubeon-gpu approve` records as the
// approver and what binds an audit log to one cluster.
//
// WhoAmI asks the API server (`kubectl auth whoami`): POST a SelfSubjectReview
// to authentication.k8s.io/v1 (Kubernetes 1.28+), falling back to v1beta1
// (1.27) when v1 is not served (404).  The answer is the authenticated user
// after impersonation and authentication webhooks, never a name the caller
// typed.
//
// ClusterIdOf names the cluster by the API server URL of the client's
// configuration and the metadata.uid of the kube-system namespace (which a
// rebuilt cluster behind the same URL does not share).  It returns a plain
// struct so that kube does not depend on audit; the CLI converts it to
// audit::ClusterIdentity.
//
// Contract: errors are values naming the request that failed and why (the
// client's ApiError text, which never contains the token); an answer without
// a username, or a kube-system namespace without a uid, is an error.
#pragma once

#include <string>
#include <vector>

#include "kube/client.h"
#include "model/status.h"

namespace kubeon::kube {

struct UserInfo {
  std::string username;  // e.g. "kubernetes-admin", "system:serviceaccount:ops:approver"
  std::string uid;       // may be empty
  std::vector<std::string> groups;
};

struct ClusterId {
  std::string server;           // RestConfig::server of the client
  std::string kube_system_uid;  // metadata.uid of namespace kube-system
};

// The identity the API server gives the client's credentials.
Result<UserInfo> WhoAmI(KubeClient& client);

// The cluster the client talks to.
Result<ClusterId> ClusterIdOf(KubeClient& client);

}  // namespace kubeon::kube
