// See certs.h.
#include "certs.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace kubeon::kubesim {

void X509Free::operator()(X509* x) const { X509_free(x); }
void PkeyFree::operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }

namespace {

ApiError SslError(const std::string& what) {
  unsigned long code = ERR_get_error();
  char buf[256] = "unknown error";
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  return ApiError::Internal("certificate generation: " + what + ": " + buf);
}

bool AddExt(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

template <typename F>
std::string ToPem(F write) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return "";
  std::string out;
  if (write(bio) == 1) {
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    out.assign(data, static_cast<size_t>(len));
  }
  BIO_free(bio);
  return out;
}

}  // namespace

Outcome<CertKey> IssueCertificate(const CertRequest& req, const CertKey* issuer) {
  CertKey out;
  out.key.reset(EVP_EC_gen("P-256"));
  if (!out.key) return SslError("EC key");
  out.cert.reset(X509_new());
  X509* x = out.cert.get();
  if (x == nullptr) return SslError("X509_new");
  unsigned char serial_bytes[16];
  if (RAND_bytes(serial_bytes, sizeof(serial_bytes)) != 1) return SslError("serial");
  serial_bytes[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr);
  bool ok = bn != nullptr && X509_set_version(x, 2) == 1 && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != nullptr;
  BN_free(bn);
  if (!ok) return SslError("serial");
  if (X509_gmtime_adj(X509_getm_notBefore(x), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(x), req.valid_seconds) == nullptr) {
    return SslError("validity");
  }
  if (X509_set_pubkey(x, out.key.get()) != 1) return SslError("public key");
  X509_NAME* name = X509_get_subject_name(x);
  for (const auto& o : req.organizations) {
    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(o.c_str()), -1,
                                   -1, 0) != 1) {
      return SslError("subject O");
    }
  }
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(req.common_name.c_str()), -1, -1, 0) != 1) {
    return SslError("subject CN");
  }
  X509* issuer_cert = issuer != nullptr ? issuer->cert.get() : x;
  if (X509_set_issuer_name(x, X509_get_subject_name(issuer_cert)) != 1) return SslError("issuer");
  ok = AddExt(x, issuer_cert, NID_subject_key_identifier, "hash");
  if (req.is_ca) {
    ok = ok && AddExt(x, issuer_cert, NID_basic_constraints, "critical,CA:TRUE") &&
         AddExt(x, issuer_cert, NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign");
  } else {
    ok = ok && AddExt(x, issuer_cert, NID_basic_constraints, "critical,CA:FALSE") &&
         AddExt(x, issuer_cert, NID_key_usage, "critical,digitalSignature,keyEncipherment") &&
         AddExt(x, issuer_cert, NID_ext_key_usage, req.server ? "serverAuth" : "clientAuth");
    std::string sans;
    for (const auto& ip : req.ip_sans) sans += (sans.empty() ? "" : ",") + std::string("IP:") + ip;
    for (const auto& dns : req.dns_sans) sans += (sans.empty() ? "" : ",") + std::string("DNS:") + dns;
    if (!sans.empty()) ok = ok && AddExt(x, issuer_cert, NID_subject_alt_name, sans);
  }
  if (issuer != nullptr) ok = ok && AddExt(x, issuer_cert, NID_authority_key_identifier, "keyid:always");
  if (!ok) return SslError("extensions");
  EVP_PKEY* signer = issuer != nullptr ? issuer->key.get() : out.key.get();
  if (X509_sign(x, signer, EVP_sha256()) <= 0) return SslError("signing");
  out.cert_pem = ToPem([&](BIO* b) { return PEM_write_bio_X509(b, x); });
  out.key_pem = ToPem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, out.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  if (out.cert_pem.empty() || out.key_pem.empty()) return SslError("PEM encoding");
  return out;
}

Outcome<TlsBundle> GenerateTlsBundle() {
  TlsBundle b;
  auto ca = IssueCertificate({"kube-sim-ca", {}, true, false, {}, {}, 10L * 365 * 24 * 3600}, nullptr);
  if (!ca.ok()) return ca.error();
  b.ca = std::move(ca).value();
  auto server = IssueCertificate({"kube-sim", {}, false, true, {"127.0.0.1"}, {"localhost"}, 365L * 24 * 3600}, &b.ca);
  if (!server.ok()) return server.error();
  b.server = std::move(server).value();
  auto client = IssueCertificate({"kube-sim-admin", {"system:masters"}, false, false, {}, {}, 365L * 24 * 3600}, &b.ca);
  if (!client.ok()) return client.error();
  b.client = std::move(client).value();
  return b;
}

}  // namespace kubeon::kubesim
