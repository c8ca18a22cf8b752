// See kubeconfig.h.  Values are base64 or simple tokens and user names
// (identity.h restricts their characters), so they need no YAML quoting
// beyond the double quotes used for the server, the user and the token.
#include "kubeconfig.h"

#include "base64.h"

namespace kubeon::kubesim {

std::string RenderKubeconfig(const KubeconfigSpec& spec) {
  std::string user = "\"" + (spec.user.empty() ? spec.name + "-admin" : spec.user) + "\"";
  std::string out;
  out += "apiVersion: v1\n";
  out += "kind: Config\n";
  out += "clusters:\n";
  out += "- name: " + spec.name + "\n";
  out += "  cluster:\n";
  out += "    server: \"" + spec.server + "\"\n";
  out += "    certificate-authority-data: " + Base64Encode(spec.ca_pem) + "\n";
  out += "users:\n";
  out += "- name: " + user + "\n";
  out += "  user:\n";
  if (!spec.token.empty()) {
    out += "    token: \"" + spec.token + "\"\n";
  } else {
    out += "    client-certificate-data: " + Base64Encode(spec.client_cert_pem) + "\n";
    out += "    client-key-data: " + Base64Encode(spec.client_key_pem) + "\n";
  }
  out += "contexts:\n";
  out += "- name: " + spec.name + "\n";
  out += "  context:\n";
  out += "    cluster: " + spec.name + "\n";
  out += "    user: " + user + "\n";
  out += "current-context: " + spec.name + "\n";
  out += "preferences: {}\n";
  return out;
}

}  // namespace kubeon::kubesim
