// The kubeconfig kube-sim writes for its clients (YAML, as kubectl writes
// them): one cluster (server URL + certificate-authority-data), one user
// (a bearer token, or client-certificate-data + client-key-data), one
// context, current-context set.
#pragma once

#include <string>

namespace kubeon::kubesim {

struct KubeconfigSpec {
  std::string name = "kube-sim";
  std::string user;         // the kubeconfig's user entry; "" = "<name>-admin"
  std::string server;       // https://127.0.0.1:PORT
  std::string ca_pem;
  std::string token;        // used when non-empty
  std::string client_cert_pem;
  std::string client_key_pem;
};

std::string RenderKubeconfig(const KubeconfigSpec& spec);

}  // namespace kubeon::kubesim
