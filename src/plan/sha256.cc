// See sha256.h.
#include "plan/sha256.h"

#include <openssl/evp.h>

namespace kubeon::plan {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest only fails on allocation failure, which the rest of the
  // program does not survive either; an all-zero digest would be caught by
  // every test.
  // Fetched once: with OpenSSL 3, EVP_sha256() makes every EVP_Digest fetch
  // the implementation again, which costs more than hashing a short text.
  static const EVP_MD* const kSha256 = [] {
    const EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return md != nullptr ? md : EVP_sha256();
  }();
  EVP_Digest(data.data(), data.size(), digest, &length, kSha256, nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string ContentName(std::string_view body) { return "kubeon-" + Sha256Hex(body).substr(0, 10); }

}  // namespace kubeon::plan
