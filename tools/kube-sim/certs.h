// TLS material for the simulator, made with the OpenSSL 3 EVP/X509 APIs:
// a self-signed CA, a server certificate for 127.0.0.1/localhost and a
// client certificate (CN/O, i.e. user and groups), all ECDSA P-256/SHA-256.
//
// Invariants: every certificate is valid from one hour ago; the CA has
// basicConstraints CA:TRUE and keyCertSign; leaves carry CA:FALSE, the
// serverAuth or clientAuth extended key usage, and (server) the subject
// alternative names asked for.  Nothing is written to disk here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <openssl/types.h>

#include "api_error.h"

namespace kubeon::kubesim {

struct X509Free {
  void operator()(X509* x) const;
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const;
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

struct CertKey {
  X509Ptr cert;
  PkeyPtr key;
  std::string cert_pem;
  std::string key_pem;
};

struct CertRequest {
  std::string common_name;
  std::vector<std::string> organizations;  // one subject O each (Kubernetes groups)
  bool is_ca = false;
  bool server = false;                   // serverAuth, else clientAuth (leaves)
  std::vector<std::string> ip_sans;
  std::vector<std::string> dns_sans;
  long valid_seconds = 365L * 24 * 3600;  // from now; may be negative (expired)
};

// Signed by `issuer`, or self-signed when issuer is null.
Outcome<CertKey> IssueCertificate(const CertRequest& req, const CertKey* issuer);

struct TlsBundle {
  CertKey ca;
  CertKey server;
  CertKey client;  // CN kube-sim-admin, O system:masters
};
Outcome<TlsBundle> GenerateTlsBundle();

}  // namespace kubeon::kubesim
