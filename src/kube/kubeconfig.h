// Where the Kubernetes API is and how to authenticate to it, found the way
// kubectl finds it.
//
// Order (client-go's clientcmd rules):
//  1. LoadOptions::kubeconfig_path (the --kubeconfig flag): exactly that file,
//     which must exist.
//  2. else the KUBECONFIG value: a colon-separated list of files, missing ones
//     skipped, merged: the first file that sets a value wins; clusters, users
//     and contexts are merged by name (the first file defining a name wins the
//     whole entry); current-context comes from the first file that sets it.
//  3. else ~/.kube/config when it exists.
//  4. else, when no kubeconfig file was found at all and
//     KUBERNETES_SERVICE_HOST/PORT are set and <root>/var/run/secrets/
//     kubernetes.io/serviceaccount/{token,ca.crt} exist, the in-cluster
//     service account (namespace file optional, default "default").
// LoadOptions::context (the --context flag) overrides current-context.
//
// Relative file paths in a kubeconfig (certificate-authority,
// client-certificate, client-key, tokenFile) are resolved against the
// directory of the file that defined the entry, as kubectl does.
//
// Contract:
//  - Errors name the kubeconfig file(s) and the entry and field at fault:
//      kubeconfig /x/config: context "prod" not found
//      kubeconfig /x/config: user "admin": client-key-data is not valid base64
//  - exec and auth-provider users are refused with an error naming the user.
//  - TLS verification is on unless the selected cluster says
//    insecure-skip-tls-verify: true.
//  - The bearer token is never part of an error message or of Describe().
//  - Pure apart from reading files: the process environment is read only by
//    LoadOptions::FromEnvironment().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/status.h"

namespace kubeon::kube {

// Everything needed to open a connection and authenticate.
struct RestConfig {
  std::string server;               // "https://host:port" (no trailing slash)
  std::string ca_pem;               // PEM bundle; empty = the system trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;      // name to verify / send as SNI; "" = server's host
  std::string client_cert_pem;      // client certificate (PEM), "" = none
  std::string client_key_pem;       // its private key (PEM)
  std::string token;                // bearer token; SECRET: never printed
  std::string token_file;           // when set, the token is re-read from here
  std::string namespace_;           // the context's namespace, "default" when unset
  std::string context_name;         // "" for in-cluster
  std::string cluster_name;
  std::string user_name;
  std::string source;               // "kubeconfig /a:/b" or "in-cluster service account"

  // One line for logs: source, context, server, auth kind. Never the token.
  std::string Describe() const;
};

struct LoadOptions {
  std::string kubeconfig_path;                 // --kubeconfig; "" = not given
  std::string context;                         // --context; "" = current-context
  std::optional<std::string> kubeconfig_env;   // $KUBECONFIG; nullopt = unset
  std::string home;                            // $HOME; "" = no ~/.kube/config
  std::string service_host;                    // $KUBERNETES_SERVICE_HOST
  std::string service_port;                    // $KUBERNETES_SERVICE_PORT
  std::string in_cluster_root = "/";           // prefix of /var/run/secrets/...

  // Fills kubeconfig_env, home, service_host and service_port from the
  // process environment; the flags are left for the caller to set.
  static LoadOptions FromEnvironment();
};

Result<RestConfig> LoadRestConfig(const LoadOptions& options);

// Parses one kubeconfig document (for tests and tools that hold the text).
// `path` names the file in errors and anchors relative paths.
Result<RestConfig> ParseKubeconfig(const std::string& yaml_text, const std::string& path,
                                   const std::string& context_override);

// The in-cluster configuration alone (step 4 above), or an error saying what
// is missing.
Result<RestConfig> LoadInClusterConfig(const LoadOptions& options);

// Decodes standard base64 (RFC 4648, padding optional, whitespace ignored).
// Returns false on any other character or bad length.
bool DecodeBase64(const std::string& text, std::string* out);

}  // namespace kubeon::kube
