#include "layout/stack_catalog.h"

#include <gtest/gtest.h>

#include <string>

#include "util/error.h"

namespace paratune {
namespace {

std::string StackErrorOf(const std::string& text) {
  try {
    ParseStack(text, "--stack");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Stack, ParsesNamesAliasesReleasesAndCompile) {
  EXPECT_EQ(ParseStack("torchtitan+compile", "x").framework, Framework::kTorchtitan);
  EXPECT_TRUE(ParseStack("torchtitan+compile", "x").compiled);
  const StackSpec nemo = ParseStack("NeMo@26.04.01", "x");
  EXPECT_EQ(nemo.framework, Framework::kMegatronBridge);
  EXPECT_EQ(nemo.release, "26.04.01");
  EXPECT_EQ(ParseStack("megatron", "x").framework, Framework::kMegatronLm);
  EXPECT_EQ(StackText(ParseStack("megatron-bridge@26.06", "x")), "megatron-bridge@26.06");
}

TEST(Stack, BadTextsSayWhatIsWrong) {
  EXPECT_NE(StackErrorOf("pax").find("--stack: unknown stack 'pax' (expected megatron-lm, megatron-bridge"),
            std::string::npos);
  EXPECT_NE(StackErrorOf("megatron-lm@26.04").find("has no releases paratune tells apart"), std::string::npos);
  EXPECT_NE(StackErrorOf("megatron-bridge@24.07").find("predates the first one described (25.11)"), std::string::npos);
  EXPECT_NE(StackErrorOf("megatron-bridge@26.13").find("is not YY.MM or YY.MM.PP"), std::string::npos);
  // sscanf's %d took these (a tail after the month, a sign, 2^32 wrapping); util/text.h's rule does not.
  for (const char* r : {"26.4abc", "+26.04", "26.04.", "26..04", "26.04.01.02", "4294967322.04"})
    EXPECT_NE(StackErrorOf(std::string("megatron-bridge@") + r).find("is not YY.MM or YY.MM.PP"), std::string::npos)
        << r;
  EXPECT_NE(StackErrorOf("megatron-lm+compile").find("'+compile' applies to torchtitan and deepspeed"),
            std::string::npos);
}

TEST(Stack, TorchtitanRunsEagerOrCompiledWithSdpaAndFp32Shards) {
  Layout l;
  std::vector<std::string> notes;
  ApplyStack(ParseStack("torchtitan", "x"), l, &notes);
  EXPECT_EQ(l.stack.kernels, Kernels::kEager);
  EXPECT_EQ(l.attention_kernel, AttentionKernel::kSdpa);
  EXPECT_TRUE(l.fp32_shards);
  EXPECT_FALSE(l.fused_cross_entropy);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "torchtitan: eager PyTorch kernels, SDPA attention, FSDP2 with FP32 shards");
  ApplyStack(ParseStack("torchtitan+compile", "x"), l);
  EXPECT_EQ(l.stack.kernels, Kernels::kCompiled);
}

TEST(Stack, MegatronBridgeReleasesDifferInTheirMoeFeatures) {
  Layout old_release, later;
  ApplyStack(ParseStack("megatron-bridge@25.11", "x"), old_release);
  ApplyStack(ParseStack("megatron-bridge@26.04.01", "x"), later);
  EXPECT_EQ(old_release.stack.cuda_graphs, CudaGraphs::kNone);
  EXPECT_EQ(old_release.stack.moe_dispatcher, MoeDispatcher::kAllToAll);
  EXPECT_FALSE(old_release.stack.fused_router);
  EXPECT_EQ(later.stack.cuda_graphs, CudaGraphs::kStatic);
  EXPECT_EQ(later.stack.moe_dispatcher, MoeDispatcher::kDeepEp);
  EXPECT_TRUE(later.stack.fused_router);
  EXPECT_TRUE(later.fused_cross_entropy);
  EXPECT_EQ(StackReleases(Framework::kMegatronBridge).front(), "25.11");
  EXPECT_TRUE(StackReleases(Framework::kTorchtitan).empty());
}

}  // namespace
}  // namespace paratune
