// Reading Megatron-LM argument lists: model dims, layout and training shape, Megatron's
// defaults, ignored flags, and one clear InputError naming the flag for broken input.
#include "layout/megatron_args.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

const char* kLlama70B =
    "torchrun --nproc-per-node 8 pretrain_gpt.py --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 "
    "--num-attention-heads 64 --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm "
    "--untie-embeddings-and-output-weights --disable-bias-linear --position-embedding-type rope "
    "--attention-dropout 0.0 --hidden-dropout 0.0 --vocab-size 128256 --seq-length 8192 "
    "--micro-batch-size 1 --global-batch-size 256 --tensor-model-parallel-size 4 "
    "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 10 --sequence-parallel "
    "--use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather --bf16 --lr 3e-4 --train-iters 1000";

std::string ErrorOf(const std::string& line) {
  try {
    ParseMegatronArgs(line);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(MegatronArgs, ReadsModelLayoutAndTraining) {
  const MegatronArgs a = ParseMegatronArgs(kLlama70B);
  EXPECT_EQ(a.model.layers, 80);
  EXPECT_EQ(a.model.hidden, 8192);
  EXPECT_EQ(a.model.ffn_hidden, 28672);
  EXPECT_EQ(a.model.heads, 64);
  EXPECT_EQ(a.model.kv_heads, 8);
  EXPECT_EQ(a.model.head_dim, 128);
  EXPECT_EQ(a.model.vocab, 128256);
  EXPECT_EQ(a.model.mlp, MlpKind::kGated);
  EXPECT_EQ(a.model.norm, NormKind::kRmsNorm);
  EXPECT_FALSE(a.model.tied_embeddings);
  EXPECT_FALSE(a.model.linear_bias);
  EXPECT_FALSE(a.model.dropout);
  EXPECT_EQ(a.model.learned_positions, 0);
  EXPECT_EQ(a.layout.tp, 4);
  EXPECT_EQ(a.layout.pp, 2);
  EXPECT_EQ(a.layout.vp, 4);  // 80 / (2 * 10)
  EXPECT_TRUE(a.layout.sp);
  EXPECT_EQ(a.layout.zero, 1);
  EXPECT_TRUE(a.layout.overlap_grad_reduce);
  EXPECT_TRUE(a.layout.overlap_param_gather);
  EXPECT_FALSE(a.layout.overlap_tp_comm);
  EXPECT_TRUE(a.layout.grad_reduce_in_fp32);  // Megatron's FP32 gradient buffer under --bf16
  EXPECT_EQ(a.training.seq, 8192);
  EXPECT_EQ(a.training.global_batch, 256);
  EXPECT_EQ(a.training.precision, Precision::kBf16);
  // Launcher words and flags paratune does not use are listed, with their values skipped.
  EXPECT_EQ(a.ignored,
            (std::vector<std::string>{"torchrun", "--nproc-per-node", "pretrain_gpt.py", "--lr", "--train-iters"}));
}

// Issue 32: a misspelt option gave a tp 1 estimate and exit 0. An option Megatron-LM's parser
// does not have (data/megatron_flags.txt) is refused with the nearest it has; one it has but
// paratune does not read is ignored and listed; a launcher's options before the script are its own.
TEST(MegatronArgs, UnknownOptionsAreRefusedAsMegatronWould) {
  const std::string base = "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --vocab-size 1000 ";
  EXPECT_EQ(
      ErrorOf(base + "--tensor-model-paralel-size 8"),
      "--from-megatron: unrecognized option --tensor-model-paralel-size (Megatron-LM's parser refuses it; did you mean "
      "--tensor-model-parallel-size?); --ignore-unknown reads on without it");
  EXPECT_CONTAINS(ErrorOf(base + "--colour blue"), "unrecognized option --colour (Megatron-LM's parser refuses it)");
  const MegatronArgs a = ParseMegatronArgs(base + "--tensor-model-paralel-size 8 --lr 1e-4", true);
  EXPECT_EQ(a.layout.tp, 1);
  EXPECT_EQ(a.ignored, (std::vector<std::string>{"--tensor-model-paralel-size", "--lr"}));
  EXPECT_EQ(
      ParseMegatronArgs("torchrun --nnodes 2 --master-port 6000 pretrain_gpt.py " + base + "--log-interval 10").ignored,
      (std::vector<std::string>{"torchrun", "--nnodes", "--master-port", "pretrain_gpt.py", "--log-interval"}));
}

TEST(MegatronArgs, MegatronDefaults) {
  const MegatronArgs a =
      ParseMegatronArgs("--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --vocab-size 50257");
  EXPECT_EQ(a.model.ffn_hidden, 4 * 2048);  // no --swiglu: 4h
  EXPECT_EQ(a.model.mlp, MlpKind::kPlain);
  EXPECT_EQ(a.model.norm, NormKind::kLayerNorm);
  EXPECT_TRUE(a.model.tied_embeddings);
  EXPECT_TRUE(a.model.linear_bias);
  EXPECT_TRUE(a.model.dropout);
  EXPECT_EQ(a.model.learned_positions, a.training.seq);  // learned_absolute, max = seq
  EXPECT_EQ(a.layout.tp, 1);
  EXPECT_EQ(a.layout.zero, 0);
  EXPECT_FALSE(a.layout.overlap_grad_reduce);
  EXPECT_FALSE(a.global_batch_given);
  const MegatronArgs s =
      ParseMegatronArgs("--num-layers 2 --hidden-size 4096 --num-attention-heads 32 --vocab-size 8 --swiglu");
  EXPECT_EQ(s.model.ffn_hidden, 10880);  // int(4*4096*2/3/64)*64
}

TEST(MegatronArgs, MoeMlaFsdpFp8AndEqualsSyntax) {
  const MegatronArgs a = ParseMegatronArgs(
      "--num-layers=61 --hidden-size 7168 --ffn-hidden-size 18432 --num-attention-heads 128 "
      "--multi-latent-attention --q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 --qk-pos-emb-head-dim 64 "
      "--v-head-dim 128 --num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size 2048 "
      "--moe-shared-expert-intermediate-size 2048 --moe-layer-freq '([0]*3+[1]*58)' --padded-vocab-size 129280 "
      "--expert-model-parallel-size 64 --expert-tensor-parallel-size 1 --use-megatron-fsdp "
      "--data-parallel-sharding-strategy optim_grads --recompute-granularity full --recompute-method uniform "
      "--recompute-num-layers 1 --bf16 --fp8-format hybrid --tp-comm-overlap --no-overlap-p2p-communication "
      "--grad-reduce-in-bf16");
  EXPECT_EQ(a.model.attention, AttentionKind::kMla);
  EXPECT_EQ(a.model.q_lora_rank, 1536);
  EXPECT_EQ(a.model.experts, 256);
  EXPECT_EQ(a.model.topk, 8);
  EXPECT_EQ(a.model.first_dense_layers, 3);
  EXPECT_EQ(a.model.moe_layers(), 58);
  EXPECT_EQ(a.model.shared_experts * a.model.shared_ffn_hidden, 2048);
  EXPECT_EQ(a.model.vocab, 129280);
  EXPECT_EQ(a.layout.ep, 64);
  EXPECT_EQ(a.layout.expert_tp(), 1);
  EXPECT_EQ(a.layout.zero, 2);
  EXPECT_EQ(a.layout.recompute, Recompute::kFull);
  EXPECT_EQ(a.training.precision, Precision::kFp8);
  EXPECT_TRUE(a.layout.overlap_tp_comm);
  EXPECT_FALSE(a.layout.overlap_pp_comm);
  EXPECT_FALSE(a.layout.grad_reduce_in_fp32);
}

// --cp-comm-type: a2a is all-to-all CP; p2p (the default) the ring; allgather and a2a+p2p are
// estimated as the ring, with a note; anything else is an error naming the flag.
TEST(MegatronArgs, CpCommType) {
  const std::string base =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 "
      "--context-parallel-size 2 ";
  EXPECT_EQ(ParseMegatronArgs(base).layout.cp_comm, CpComm::kP2p);
  EXPECT_EQ(ParseMegatronArgs(base + "--cp-comm-type a2a").layout.cp_comm, CpComm::kA2a);
  const MegatronArgs hier = ParseMegatronArgs(base + "--cp-comm-type a2a+p2p");
  EXPECT_EQ(hier.layout.cp_comm, CpComm::kP2p);
  EXPECT_NE(std::find(hier.notes.begin(), hier.notes.end(), "--cp-comm-type a2a+p2p: estimated as the p2p ring"),
            hier.notes.end());
  EXPECT_NE(ErrorOf(base + "--cp-comm-type ring").find("--cp-comm-type must be one of"), std::string::npos);
}

TEST(MegatronArgs, BrokenInputNamesTheFlag) {
  const std::string base = "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 ";
  EXPECT_NE(ErrorOf(base + "--tensor-model-parallel-size").find("--tensor-model-parallel-size is missing its value"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--micro-batch-size --bf16").find("--micro-batch-size is missing its value"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(base + "--pipeline-model-parallel-size two").find("--pipeline-model-parallel-size expects an integer"),
      std::string::npos);
  EXPECT_NE(ErrorOf(base + "--seq-length 4k").find("--seq-length expects an integer, got '4k'"), std::string::npos);
  EXPECT_NE(ErrorOf(base + "--context-parallel-size -2").find("--context-parallel-size must be a positive integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--global-batch-size 0").find("--global-batch-size must be a positive"), std::string::npos);
  EXPECT_NE(ErrorOf(base + "--hidden-dropout -0.1").find("--hidden-dropout must not be negative"), std::string::npos);
  EXPECT_NE(
      ErrorOf(base + "--recompute-granularity some").find("--recompute-granularity must be one of full, selective"),
      std::string::npos);
  EXPECT_NE(ErrorOf(base + "--moe-layer-freq '([0]*3").find("unterminated single quote"), std::string::npos);
  EXPECT_NE(ErrorOf(base + "--bf16=yes").find("--bf16 takes no value"), std::string::npos);
  EXPECT_NE(ErrorOf("--num-layers 2 --hidden-size 64 --num-attention-heads 4").find("--vocab-size"), std::string::npos);
  EXPECT_NE(ErrorOf("--hidden-size 64 --num-attention-heads 4 --vocab-size 10").find("--num-layers is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--tensor-model-parallel-size 99999999999").find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf(base + "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 3")
                .find("--num-layers-per-virtual-pipeline-stage"),
            std::string::npos);
}

TEST(MegatronArgs, ShellWords) {
  EXPECT_EQ(SplitShellWords("a  'b c' \"d \\\" e\" f\\ g \\\n h"),
            (std::vector<std::string>{"a", "b c", "d \" e", "f g", "h"}));
  EXPECT_THROW(SplitShellWords("--x 'abc"), InputError);
  EXPECT_THROW(SplitShellWords("--x \"abc"), InputError);
  EXPECT_TRUE(SplitShellWords("   ").empty());
}

TEST(MegatronArgs, MoeLayerPattern) {
  EXPECT_EQ(EvalMoeLayerPattern("([0]*2+[1]*3)"), (std::vector<int>{0, 0, 1, 1, 1}));
  EXPECT_EQ(EvalMoeLayerPattern("([1]*2+[0])*2"), (std::vector<int>{1, 1, 0, 1, 1, 0}));
  EXPECT_THROW(EvalMoeLayerPattern("[2]"), InputError);
  EXPECT_THROW(EvalMoeLayerPattern("[1]*99999999"), InputError);
  EXPECT_THROW(EvalMoeLayerPattern("(((("), InputError);
  EXPECT_THROW(EvalMoeLayerPattern("[0,1"), InputError);
}

// Positions: Megatron's defaults (learned_absolute, rotary base 10000, no scaling) and the rope flags.
TEST(MegatronArgs, PositionsAndRope) {
  const std::string base =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 --seq-length 1024 ";
  const MegatronArgs d = ParseMegatronArgs(base);
  EXPECT_EQ(d.model.positions, PositionKind::kLearned);
  EXPECT_EQ(d.model.max_position_embeddings, 1024);  // absent: the sequence, with a note
  EXPECT_EQ(d.model.learned_positions, 1024);
  EXPECT_EQ(d.model.rope_theta, 0.0);
  bool noted = false;
  for (const std::string& n : d.notes) noted = noted || n.find("no --max-position-embeddings") != std::string::npos;
  EXPECT_TRUE(noted);

  const MegatronArgs rope = ParseMegatronArgs(base + "--position-embedding-type rope --max-position-embeddings 4096");
  EXPECT_EQ(rope.model.positions, PositionKind::kRotary);
  EXPECT_EQ(rope.model.learned_positions, 0);
  EXPECT_EQ(rope.model.max_position_embeddings, 4096);
  EXPECT_EQ(rope.model.rope_theta, 10000.0);  // --rotary-base default
  EXPECT_EQ(rope.model.rotary_percent, 1.0);
  EXPECT_EQ(rope.model.rope_scaling.kind, RopeScalingKind::kNone);

  // Llama-3.1: --use-rope-scaling with Megatron's fixed 1 / 4 / 8192 and factor default 8.
  const MegatronArgs l31 = ParseMegatronArgs(base +
                                             "--position-embedding-type rope --rotary-base 500000 "
                                             "--use-rope-scaling --rotary-percent 0.5");
  EXPECT_EQ(l31.model.rope_theta, 500000.0);
  EXPECT_EQ(l31.model.rotary_percent, 0.5);
  EXPECT_EQ(l31.model.rope_scaling, (RopeScaling{RopeScalingKind::kLlama3, 8.0, 8192, 1.0, 4.0}));
  EXPECT_EQ(ParseMegatronArgs(base + "--use-rotary-position-embeddings --use-rope-scaling --rope-scaling-factor 32")
                .model.rope_scaling.factor,
            32.0);
  EXPECT_EQ(ParseMegatronArgs(base + "--position-embedding-type rope --rotary-seq-len-interpolation-factor 4")
                .model.rope_scaling,
            (RopeScaling{RopeScalingKind::kLinear, 4.0}));

  // YaRN without MLA: argument_utils.py defaults 1.0, 4096, 32, 1, 1.0, 0.0.
  const MegatronArgs y = ParseMegatronArgs(base +
                                           "--position-embedding-type yarn --rotary-scaling-factor 4 "
                                           "--yarn-beta-fast 16");
  EXPECT_EQ(y.model.positions, PositionKind::kRotary);
  EXPECT_EQ(y.model.rope_scaling, (RopeScaling{RopeScalingKind::kYarn, 4.0, 4096, 0, 0, 16.0, 1.0, 1.0, 0.0, 0}));

  // MLA: yarn by default (MLATransformerConfig.rope_type), --rope-type rope turns it off.
  const std::string mla = base + "--multi-latent-attention --kv-lora-rank 16 --position-embedding-type rope ";
  EXPECT_EQ(ParseMegatronArgs(mla + "--rotary-scaling-factor 40 --mscale-all-dim 1.0").model.rope_scaling,
            (RopeScaling{RopeScalingKind::kYarn, 40.0, 4096, 0, 0, 32.0, 1.0, 1.0, 1.0, 0}));
  EXPECT_EQ(ParseMegatronArgs(mla + "--rope-type rope").model.rope_scaling.kind, RopeScalingKind::kNone);

  // none / relative: no positions; MTP layers.
  EXPECT_EQ(ParseMegatronArgs(base + "--position-embedding-type none").model.positions, PositionKind::kNone);
  EXPECT_EQ(ParseMegatronArgs(base + "--position-embedding-type relative").model.positions, PositionKind::kNone);
  EXPECT_EQ(ParseMegatronArgs(base + "--position-embedding-type rope --mtp-num-layers 2").model.mtp_layers, 2);
}

TEST(MegatronArgs, BrokenRopeFlagsNameTheFlag) {
  const std::string base = "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 ";
  EXPECT_NE(
      ErrorOf(base + "--position-embedding-type rope --rotary-percent 1.5").find("--rotary-percent must be in (0, 1]"),
      std::string::npos);
  EXPECT_NE(ErrorOf(base + "--position-embedding-type rope --rotary-base 1e4").find("--rotary-base expects an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--position-embedding-type rope --use-rope-scaling --rope-scaling-factor 0")
                .find("--rope-scaling-factor must be positive"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--position-embedding-type rope --rope-type yarn")
                .find("--rope-type yarn needs --multi-latent-attention"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--rope-type ntk").find("--rope-type must be one of rope, yarn"), std::string::npos);
  EXPECT_NE(ErrorOf(base + "--no-position-embedding").find("--no-position-embedding"), std::string::npos);
}

// --moe-layer-freq list patterns of paratune's placement: leading dense layers, then the last of
// every N layers MoE; anything else is an error.
TEST(MegatronArgs, MoeLayerFreqPatternWithPeriod) {
  const std::string base =
      "--num-layers 9 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 "
      "--num-experts 4 --moe-router-topk 2 --ffn-hidden-size 128 ";
  const MegatronArgs a = ParseMegatronArgs(base + "--moe-layer-freq '([0]*3+([0]*1+[1])*3)'");
  EXPECT_EQ(a.model.first_dense_layers, 3);
  EXPECT_EQ(a.model.moe_layer_freq, 2);
  EXPECT_EQ(a.model.moe_layers(), 3);
  EXPECT_NE(ErrorOf(base + "--moe-layer-freq '([1]+[0]*8)'").find("--moe-layer-freq pattern must be"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "--moe-layer-freq '([0]*9)'").find("no MoE layer"), std::string::npos);
  // Every layer MoE and no --ffn-hidden-size: no dense width (0), as in Mixtral's config.
  const MegatronArgs all = ParseMegatronArgs(
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 "
      "--vocab-size 100 --num-experts 4 --moe-ffn-hidden-size 96");
  EXPECT_EQ(all.model.ffn_hidden, 0);
  EXPECT_EQ(all.model.moe_ffn_hidden, 96);
}

}  // namespace
}  // namespace paratune
