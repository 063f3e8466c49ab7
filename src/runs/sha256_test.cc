// SHA-256 against the test vectors of FIPS 180-4's examples (NIST CSRC "Examples with
// Intermediate Values", SHA256.pdf: "abc", the 448-bit two-block message) and the NESSIE /
// FIPS 180-2 appendix B.3 one million 'a' vector, plus the empty message.
#include "runs/sha256.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesMatchOneShot) {
  // Splits across the 64-byte block and the 56-byte padding boundary.
  const std::string msg(200, 'x');
  for (size_t cut : {0, 1, 55, 56, 63, 64, 65, 128, 199}) {
    Sha256 s;
    s.Update(std::string_view(msg).substr(0, cut));
    s.Update(std::string_view(msg).substr(cut));
    std::string hex;
    for (uint8_t b : s.Finish()) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
    EXPECT_EQ(hex, Sha256Hex(msg)) << "cut at " << cut;
  }
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

}  // namespace
}  // namespace paratune
