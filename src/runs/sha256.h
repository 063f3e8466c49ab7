// SHA-256 (FIPS 180-4) of bytes, from OpenSSL's libcrypto (EVP, Debian's libssl-dev): the run
// registry keys a recorded file by the hash of its bytes, so that recording the same file twice
// under the same run is a no-op.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX (openssl/types.h): the .cc file includes <openssl/evp.h>

namespace paratune {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view bytes);
  // The digest; the object is spent afterwards.
  std::array<uint8_t, 32> Finish();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

// The digest of `bytes` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace paratune
