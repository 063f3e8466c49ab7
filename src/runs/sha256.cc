#include "runs/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace paratune {

void Sha256::Free::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

// A failure here is the library out of memory or broken, not bad input.
Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("libcrypto: SHA-256 could not be initialised");
}

Sha256::~Sha256() = default;

void Sha256::Update(std::string_view bytes) {
  if (EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) != 1)
    throw std::runtime_error("libcrypto: SHA-256 update failed");
}

std::array<uint8_t, 32> Sha256::Finish() {
  std::array<uint8_t, 32> digest{};
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), digest.data(), &n) != 1 || n != digest.size())
    throw std::runtime_error("libcrypto: SHA-256 final failed");
  return digest;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 s;
  s.Update(bytes);
  std::string hex;
  hex.reserve(64);
  for (uint8_t b : s.Finish()) {
    hex += "0123456789abcdef"[b >> 4];
    hex += "0123456789abcdef"[b & 15];
  }
  return hex;
}

}  // namespace paratune
