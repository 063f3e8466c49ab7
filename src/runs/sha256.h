// SHA-256 (FIPS 180-4, "Secure Hash Standard", section 6.2), a clean-room implementation from the
// standard's text: the run registry keys a recorded file by the hash of its bytes, so that
// recording the same file twice under the same run is a no-op.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace paratune {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The digest; the object is spent afterwards.
  std::array<uint8_t, 32> Finish();

 private:
  void Block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_bytes_ = 0;
};

// The digest of `bytes` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace paratune
