#include "layout/megatron_args.h"

#include <cctype>
#include <climits>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "layout/pipeline_split.h"
#include "util/edit_distance.h"
#include "util/embedded_data.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

// The Megatron-LM flags paratune reads, by kind. Names and choices checked against
// megatron/training/arguments.py and the config dataclasses it turns into flags
// (docs/frameworks.md records the commit).
enum class Kind { kInt, kFloat, kChoice, kString, kSwitch, kWords };
struct FlagSpec {
  Kind kind;
  std::vector<std::string> choices;  // kChoice only
};

const std::map<std::string, FlagSpec>& KnownFlags() {
  static const std::map<std::string, FlagSpec> flags = [] {
    std::map<std::string, FlagSpec> f;
    for (const char* n : {"--num-layers",
                          "--hidden-size",
                          "--ffn-hidden-size",
                          "--num-attention-heads",
                          "--num-query-groups",
                          "--kv-channels",
                          "--padded-vocab-size",
                          "--vocab-size",
                          "--num-experts",
                          "--moe-router-topk",
                          "--moe-ffn-hidden-size",
                          "--moe-shared-expert-intermediate-size",
                          "--seq-length",
                          "--global-batch-size",
                          "--micro-batch-size",
                          "--tensor-model-parallel-size",
                          "--pipeline-model-parallel-size",
                          "--num-layers-per-virtual-pipeline-stage",
                          "--num-virtual-stages-per-pipeline-rank",
                          "--virtual-pipeline-model-parallel-size",
                          "--context-parallel-size",
                          "--expert-model-parallel-size",
                          "--expert-tensor-parallel-size",
                          "--recompute-num-layers",
                          "--max-position-embeddings",
                          "--q-lora-rank",
                          "--kv-lora-rank",
                          "--qk-head-dim",
                          "--qk-pos-emb-head-dim",
                          "--v-head-dim",
                          "--make-vocab-size-divisible-by",
                          "--rotary-base",
                          "--rotary-seq-len-interpolation-factor",
                          "--yarn-original-max-position-embeddings",
                          "--mtp-num-layers",
                          "--moe-router-num-groups",
                          "--moe-router-group-topk",
                          "--decoder-first-pipeline-num-layers",
                          "--decoder-last-pipeline-num-layers"})
      f[n] = {Kind::kInt, {}};
    for (const char* n : {"--attention-dropout", "--hidden-dropout", "--rotary-percent", "--rope-scaling-factor",
                          "--moe-router-topk-scaling-factor", "--rotary-scaling-factor", "--mscale", "--mscale-all-dim",
                          "--yarn-beta-fast", "--yarn-beta-slow"})
      f[n] = {Kind::kFloat, {}};
    f["--rope-type"] = {Kind::kChoice, {"rope", "yarn"}};
    f["--moe-router-score-function"] = {Kind::kChoice, {"softmax", "sigmoid"}};
    // megatron/training/arguments.py: nargs="+"; one value (every layer) is read.
    f["--cp-comm-type"] = {Kind::kChoice, {"p2p", "a2a", "allgather", "a2a+p2p"}};
    f["--recompute-granularity"] = {Kind::kChoice, {"full", "selective"}};
    f["--recompute-method"] = {Kind::kChoice, {"uniform", "block"}};
    f["--recompute-modules"] = {Kind::kWords, {}};  // nargs="*"
    f["--fp8-format"] = {Kind::kChoice, {"e4m3", "hybrid"}};
    f["--fp8-recipe"] = {Kind::kChoice, {"tensorwise", "delayed", "mxfp8", "blockwise", "custom"}};
    f["--fp4-format"] = {Kind::kChoice, {"e2m1"}};
    f["--fp4-recipe"] = {Kind::kChoice, {"nvfp4", "custom"}};
    f["--normalization"] = {Kind::kChoice, {"LayerNorm", "RMSNorm"}};
    f["--position-embedding-type"] = {Kind::kChoice, {"learned_absolute", "rope", "yarn", "mrope", "relative", "none"}};
    f["--data-parallel-sharding-strategy"] = {Kind::kChoice,
                                              {"no_shard", "optim", "optim_grads", "optim_grads_params"}};
    f["--moe-token-dispatcher-type"] = {Kind::kChoice, {"allgather", "alltoall", "flex"}};
    f["--attention-backend"] = {Kind::kChoice, {"flash", "fused", "unfused", "local", "auto"}};
    f["--ckpt-format"] = {Kind::kChoice, {"torch", "torch_dist", "torch_dcp", "fsdp_dtensor"}};
    f["--moe-layer-freq"] = {Kind::kString, {}};
    f["--moe-flex-dispatcher-backend"] = {Kind::kChoice, {"deepep", "hybridep"}};
    f["--cuda-graph-impl"] = {Kind::kChoice, {"none", "local", "transformer_engine", "full_iteration"}};
    f["--cuda-graph-scope"] = {Kind::kWords, {}};  // nargs="+"
    f["--pipeline-model-parallel-layout"] = {Kind::kString, {}};
    for (const char* n : {"--group-query-attention",
                          "--swiglu",
                          "--squared-relu",
                          "--untie-embeddings-and-output-weights",
                          "--disable-bias-linear",
                          "--add-qkv-bias",
                          "--qk-layernorm",
                          "--multi-latent-attention",
                          "--sequence-parallel",
                          "--use-distributed-optimizer",
                          "--use-megatron-fsdp",
                          "--use-torch-fsdp2",
                          "--recompute-activations",
                          "--bf16",
                          "--fp16",
                          "--grad-reduce-in-bf16",
                          "--use-precision-aware-optimizer",
                          "--accumulate-allreduce-grads-in-fp32",
                          "--overlap-grad-reduce",
                          "--overlap-param-gather",
                          "--tp-comm-overlap",
                          "--no-overlap-p2p-communication",
                          "--overlap-moe-expert-parallel-comm",
                          "--moe-grouped-gemm",
                          "--moe-permute-fusion",
                          "--moe-router-fusion",
                          "--cross-entropy-loss-fusion",
                          "--use-flash-attn",
                          "--moe-shared-expert-gate",
                          "--moe-router-enable-expert-bias",
                          "--use-rope-scaling",
                          "--use-rotary-position-embeddings",
                          "--no-position-embedding",
                          "--account-for-embedding-in-pipeline-split",
                          "--account-for-loss-in-pipeline-split"})
      f[n] = {Kind::kSwitch, {}};
    return f;
  }();
  return flags;
}

int64_t ParsePositiveInt(const std::string& flag, const std::string& v) {
  int64_t x = 0;
  if (ParseInteger(v, &x) != NumberParse::kOk)
    throw InputError(fmt::format("--from-megatron: {} expects an integer, got '{}'", flag, v));
  if (x <= 0) throw InputError(fmt::format("--from-megatron: {} must be a positive integer, got {}", flag, x));
  if (x > INT_MAX) throw InputError(fmt::format("--from-megatron: {} is too large ({})", flag, x));
  return x;
}

double ParseNonNegativeFloat(const std::string& flag, const std::string& v) {
  double x = 0;
  if (ParseNumber(v, &x) != NumberParse::kOk)
    throw InputError(fmt::format("--from-megatron: {} expects a number, got '{}'", flag, v));
  if (x < 0) throw InputError(fmt::format("--from-megatron: {} must not be negative, got {}", flag, v));
  return x;
}

double ParsePositiveFloat(const std::string& flag, const std::string& v) {
  const double x = ParseNonNegativeFloat(flag, v);
  if (x <= 0) throw InputError(fmt::format("--from-megatron: {} must be positive, got {}", flag, v));
  return x;
}

// The flags of one command line as read: values (the last occurrence wins, as with argparse)
// and switches, with the accessors the readers below share.
struct GivenFlags {
  std::map<std::string, std::string> val;
  std::set<std::string> on;
  bool has(const char* f) const { return on.count(f) > 0; }
  bool given(const char* f) const { return val.count(f) > 0; }
  const std::string& at(const char* f) const { return val.at(f); }
  int64_t num(const char* f) const { return ParsePositiveInt(f, val.at(f)); }
  int64_t num_or(const char* f, int64_t d) const { return given(f) ? num(f) : d; }
  std::optional<int64_t> opt(const char* f) const { return given(f) ? std::optional<int64_t>(num(f)) : std::nullopt; }
  int64_t require(const char* f) const {
    if (!given(f)) throw InputError(fmt::format("--from-megatron: {} is required", f));
    return num(f);
  }
};

// Positions: --position-embedding-type (default learned_absolute), --max-position-embeddings
// and the rotary flags, with Megatron-LM's defaults (arguments.py _add_network_size_args,
// _add_mla_args; MLATransformerConfig in megatron/core/transformer/transformer_config.py;
// RotaryEmbedding._apply_scaling in megatron/core/models/common/embeddings/rotary_pos_embedding.py).
// A flag's positive (RealOr) or non-negative (NonNegOr) number, or the default when not given.
double RealOr(const GivenFlags& flags, const char* f, double d) {
  return flags.given(f) ? ParsePositiveFloat(f, flags.at(f)) : d;
}
double NonNegOr(const GivenFlags& flags, const char* f, double d) {
  return flags.given(f) ? ParseNonNegativeFloat(f, flags.at(f)) : d;
}

// MLA's rope type defaults to yarn (MLATransformerConfig.rope_type); its factor, mscale and
// mscale-all-dim come from the flags (defaults 1.0, 1.0, 0.0 in _add_mla_args), the original
// context and betas are MLATransformerConfig's 4096, 32, 1 (no flags).
void ReadMlaRope(RopeScaling& r, const GivenFlags& flags, std::vector<std::string>& notes) {
  const std::string type = flags.given("--rope-type") ? flags.at("--rope-type") : "yarn";
  if (type != "yarn") return;
  r.kind = RopeScalingKind::kYarn;
  r.factor = RealOr(flags, "--rotary-scaling-factor", 1.0);
  r.original_max_positions = 4096;
  r.beta_fast = 32;
  r.beta_slow = 1;
  r.mscale = NonNegOr(flags, "--mscale", 1.0);
  r.mscale_all_dim = NonNegOr(flags, "--mscale-all-dim", 0.0);
  if (!flags.given("--rope-type"))
    notes.push_back("--multi-latent-attention without --rope-type: Megatron's MLA default, yarn");
}

// A GQA model's RoPE scaling: YaRN (--position-embedding-type yarn), llama3 (--use-rope-scaling)
// or linear (--rotary-seq-len-interpolation-factor).
void ReadRopeScaling(RopeScaling& r, const std::string& pos, const GivenFlags& flags, std::vector<std::string>& notes) {
  if (flags.given("--rope-type") && flags.at("--rope-type") != "rope")
    throw InputError(
        "--from-megatron: --rope-type yarn needs --multi-latent-attention (use "
        "--position-embedding-type yarn)");
  if (pos == "yarn") {
    // argument_utils.py _apply_yarn_config_from_args: defaults 1.0, 4096, 32, 1, 1.0, 0.0.
    r.kind = RopeScalingKind::kYarn;
    r.factor = RealOr(flags, "--rotary-scaling-factor", 1.0);
    r.original_max_positions = flags.num_or("--yarn-original-max-position-embeddings", 4096);
    r.beta_fast = RealOr(flags, "--yarn-beta-fast", 32);
    r.beta_slow = RealOr(flags, "--yarn-beta-slow", 1);
    r.mscale = NonNegOr(flags, "--mscale", 1.0);
    r.mscale_all_dim = NonNegOr(flags, "--mscale-all-dim", 0.0);
    return;
  }
  const bool llama3 = flags.has("--use-rope-scaling");
  const bool linear = flags.given("--rotary-seq-len-interpolation-factor");
  if (llama3 && linear)
    notes.push_back(
        "--use-rope-scaling with --rotary-seq-len-interpolation-factor: Megatron applies both; "
        "paratune keeps the llama3 scaling only");
  if (llama3) {
    r.kind = RopeScalingKind::kLlama3;
    r.factor = RealOr(flags, "--rope-scaling-factor", 8.0);  // arguments.py: default 8.0
    r.low_freq_factor = 1;
    r.high_freq_factor = 4;
    r.original_max_positions = 8192;
  } else if (linear) {
    r.kind = RopeScalingKind::kLinear;
    r.factor = static_cast<double>(flags.num_or("--rotary-seq-len-interpolation-factor", 1));
  }
}

void ReadPositions(ModelSpec& m, int64_t seq, const GivenFlags& flags, std::vector<std::string>& notes) {
  std::string pos =
      flags.given("--position-embedding-type") ? flags.at("--position-embedding-type") : "learned_absolute";
  if (flags.has("--use-rotary-position-embeddings")) pos = "rope";  // the legacy switch wins (validate_args)
  if (flags.has("--no-position-embedding") && pos != "rope")
    throw InputError(
        "--from-megatron: --no-position-embedding is deprecated and only accepted with rope; "
        "use --position-embedding-type none");
  // Megatron requires --max-position-embeddings (validate_args); absent, the sequence length.
  if (!flags.given("--max-position-embeddings"))
    notes.push_back(
        fmt::format("no --max-position-embeddings (Megatron requires it): paratune assumes the "
                    "sequence length {}",
                    seq));
  m.max_position_embeddings = flags.num_or("--max-position-embeddings", seq);
  m.rope_theta = 0;
  m.rotary_percent = 1.0;
  m.rope_scaling = {};
  if (pos == "learned_absolute") {
    m.positions = PositionKind::kLearned;
    m.learned_positions = m.max_position_embeddings;
    if (m.attention == AttentionKind::kMla)
      notes.push_back(
          "--multi-latent-attention with learned_absolute positions: Megatron adds a learned table "
          "beside MLA's own rotary embedding; paratune counts the table and not the rotary settings");
    return;
  }
  if (pos == "none" || pos == "relative") {
    m.positions = PositionKind::kNone;
    if (pos == "relative")
      notes.push_back("--position-embedding-type relative (T5 bucketed attention bias) is read as no positions");
    return;
  }
  // rope, yarn, mrope.
  m.positions = PositionKind::kRotary;
  if (pos == "mrope")
    notes.push_back("--position-embedding-type mrope is read as rope (its sections are not modelled)");
  m.rope_theta = static_cast<double>(flags.num_or("--rotary-base", 10000));  // arguments.py: default 10000
  m.rotary_percent = NonNegOr(flags, "--rotary-percent", 1.0);
  if (!(m.rotary_percent > 0 && m.rotary_percent <= 1))
    throw InputError(fmt::format("--from-megatron: --rotary-percent must be in (0, 1], got {}", m.rotary_percent));
  if (m.attention == AttentionKind::kMla)
    ReadMlaRope(m.rope_scaling, flags, notes);
  else
    ReadRopeScaling(m.rope_scaling, pos, flags, notes);
}

// Recursive-descent evaluator for the list pattern of --moe-layer-freq:
//   expr := term ('+' term)* ; term := atom ('*' int)* ; atom := '[' int (',' int)* ']' | '(' expr ')'
class PatternParser {
 public:
  explicit PatternParser(const std::string& s) : s_(s) {}
  std::vector<int> Run() {
    std::vector<int> v = Expr(0);
    Skip();
    if (i_ != s_.size()) Fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return v;
  }

 private:
  static constexpr size_t kMaxLength = 1 << 20;
  static constexpr int kMaxDepth = 64;
  [[noreturn]] void Fail(const std::string& why) const {
    throw InputError(fmt::format("--from-megatron: --moe-layer-freq pattern '{}': {}", s_, why));
  }
  void Skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    Skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  int64_t Int() {
    Skip();
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    if (start == i_) Fail("expected an integer");
    if (i_ - start > 7) Fail("number too large");
    return std::stoll(s_.substr(start, i_ - start));
  }
  std::vector<int> Expr(int depth) {
    if (depth > kMaxDepth) Fail("nested too deeply");
    std::vector<int> v = Term(depth);
    while (Eat('+')) {
      std::vector<int> w = Term(depth);
      if (v.size() + w.size() > kMaxLength) Fail("pattern too long");
      v.insert(v.end(), w.begin(), w.end());
    }
    return v;
  }
  std::vector<int> Term(int depth) {
    std::vector<int> v = Atom(depth);
    while (Eat('*')) {
      const int64_t n = Int();
      if (n != 0 && v.size() * static_cast<size_t>(n) > kMaxLength) Fail("pattern too long");
      std::vector<int> r;
      r.reserve(v.size() * static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) r.insert(r.end(), v.begin(), v.end());
      v = std::move(r);
    }
    return v;
  }
  std::vector<int> Atom(int depth) {
    if (Eat('(')) {
      std::vector<int> v = Expr(depth + 1);
      if (!Eat(')')) Fail("missing ')'");
      return v;
    }
    if (!Eat('[')) Fail("expected '[' or '('");
    std::vector<int> v;
    do {
      const int64_t x = Int();
      if (x != 0 && x != 1) Fail("entries must be 0 or 1");
      v.push_back(static_cast<int>(x));
    } while (Eat(','));
    if (!Eat(']')) Fail("missing ']'");
    return v;
  }
  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace

std::vector<std::string> SplitShellWords(const std::string& line) {
  // POSIX shell word splitting and quote removal (IEEE Std 1003.1, XCU 2.2 "Quoting").
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(cur), cur.clear(), in_word = false;
    } else if (c == '\'') {
      const size_t close = line.find('\'', i + 1);
      if (close == std::string::npos) throw InputError("--from-megatron: unterminated single quote");
      cur.append(line, i + 1, close - i - 1);
      i = close;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() &&
            (line[j + 1] == '"' || line[j + 1] == '\\' || line[j + 1] == '$' || line[j + 1] == '`'))
          ++j;
        cur += line[j];
      }
      if (j >= line.size()) throw InputError("--from-megatron: unterminated double quote");
      i = j;
      in_word = true;
    } else if (c == '\\') {
      // Backslash-newline is a line continuation and joins nothing; any other escaped character
      // is taken literally.
      if (i + 1 < line.size() && line[i + 1] == '\n') {
        ++i;
      } else {
        if (i + 1 < line.size()) cur += line[++i];
        in_word = true;
      }
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::vector<int> EvalMoeLayerPattern(const std::string& pattern) { return PatternParser(pattern).Run(); }

namespace {

// Megatron's layout string (megatron/core/transformer/pipeline_parallel_layer_layout.py
// parse_str_to_list and validate_layer_layout): "(...)*n" and "x*n" repeat, commas are cosmetic,
// '|' separates the pp*vp chunks; E must open the first, L close the last; m (MTP) layers follow
// the decoder layers. Returns the decoder layers of each chunk.
// The count N of a "*N" whose digits start at s[from]; `end` receives the index after them.
int64_t RepeatCount(const std::string& s, size_t from, size_t* end, const std::string& where) {
  *end = from;
  while (*end < s.size() && std::isdigit(static_cast<unsigned char>(s[*end]))) ++*end;
  if (*end == from) throw InputError(where + ": *N needs a count");
  int64_t n = 0;
  if (ParseInteger(std::string_view(s).substr(from, *end - from), &n) != NumberParse::kOk)
    throw InputError(where + ": repeats too large");
  return n;
}

std::vector<int> ParseLayoutString(const std::string& text) {
  const std::string where = "--from-megatron: --pipeline-model-parallel-layout '" + text + "'";
  std::string s;
  for (char c : text)
    if (c != ',') s += c;
  // Innermost parentheses first, then single characters.
  for (size_t guard = 0;; ++guard) {
    const size_t close = s.find(')');
    if (close == std::string::npos) break;
    const size_t open = s.rfind('(', close);
    if (open == std::string::npos || close + 1 >= s.size() || s[close + 1] != '*' || guard > 1000)
      throw InputError(where + ": a parenthesis must close and be followed by *N");
    size_t end = 0;
    const int64_t n = RepeatCount(s, close + 2, &end, where);
    const std::string body = s.substr(open + 1, close - open - 1);
    if (n > 100000 || static_cast<double>(body.size()) * static_cast<double>(n) > 1e7)
      throw InputError(where + ": repeats too large");
    std::string rep;
    for (int64_t i = 0; i < n; ++i) rep += body;
    s = s.substr(0, open) + rep + s.substr(end);
  }
  std::string flat;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '*') throw InputError(where + ": '*' must follow a layer character or a parenthesis");
    if (i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = 0;
      const int64_t n = RepeatCount(s, i + 2, &end, where);
      if (n > 10000000 || flat.size() + static_cast<size_t>(n) > 10000000)
        throw InputError(where + ": repeats too large");
      flat.append(static_cast<size_t>(n), s[i]);
      i = end - 1;
    } else {
      flat += s[i];
    }
  }
  std::vector<int> chunks(1, 0);
  int embeddings = 0, losses = 0;
  for (size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    if (c == '|') {
      chunks.push_back(0);
    } else if (c == 't') {
      ++chunks.back();
    } else if (c == 'E') {
      if (i != 0) throw InputError(where + ": the embedding E must be the first layer");
      ++embeddings;
    } else if (c == 'L') {
      if (i + 1 != flat.size()) throw InputError(where + ": the loss L must be the last layer");
      ++losses;
    } else if (c != 'm') {
      throw InputError(fmt::format("{}: unknown layer character '{}' (expected E, L, t or m)", where, c));
    }
  }
  if (embeddings != 1 || losses != 1) throw InputError(where + ": needs one E first and one L last");
  return chunks;
}

// The pipeline split flags into vp and pp_layout (layout/pipeline_split.h), with Megatron's
// own checks (arguments.py validate_args, transformer_config.py __post_init__).
void ReadPipelineSplit(const ModelSpec& m, Layout& l, bool account_embedding, bool account_loss,
                       const std::optional<int64_t>& per_virtual, const std::optional<int64_t>& virtual_stages,
                       const std::optional<int64_t>& first, const std::optional<int64_t>& last,
                       const std::optional<std::string>& layout) {
  const std::string w = "--from-megatron: ";
  l.vp = 1;
  l.pp_layout.clear();
  if (layout) {
    if (account_embedding || account_loss || first || last || per_virtual || virtual_stages)
      throw InputError(w +
                       "--pipeline-model-parallel-layout cannot be combined with the other pipeline split or "
                       "virtual pipeline flags (Megatron rejects it)");
    const std::vector<int> chunks = ParseLayoutString(*layout);
    if (static_cast<int64_t>(chunks.size()) % l.pp != 0)
      throw InputError(
          fmt::format("{}--pipeline-model-parallel-layout has {} stages, not a multiple of "
                      "--pipeline-model-parallel-size ({})",
                      w, chunks.size(), l.pp));
    l.vp = static_cast<int>(static_cast<int64_t>(chunks.size()) / l.pp);
    l.pp_layout = chunks;
  } else {
    const int64_t extra = (account_embedding ? 1 : 0) + (account_loss ? 1 : 0);
    if ((account_embedding || account_loss) && (first || last))
      throw InputError(w +
                       "--decoder-first/last-pipeline-num-layers cannot be combined with the "
                       "--account-for-*-in-pipeline-split flags (Megatron rejects it)");
    if (per_virtual) {
      if (first || last)
        throw InputError(w +
                         "uneven first/last stages need --num-virtual-stages-per-pipeline-rank, not "
                         "--num-layers-per-virtual-pipeline-stage (Megatron rejects it)");
      if (*per_virtual <= 0 || (m.layers + extra) % (*per_virtual * l.pp) != 0)
        throw InputError(
            fmt::format("{}--num-layers-per-virtual-pipeline-stage ({}) times "
                        "--pipeline-model-parallel-size ({}) does not divide --num-layers ({}{})",
                        w, *per_virtual, l.pp, m.layers, extra ? fmt::format(" + {}", extra) : ""));
      l.vp = static_cast<int>((m.layers + extra) / (*per_virtual * l.pp));
    } else if (virtual_stages) {
      l.vp = static_cast<int>(*virtual_stages);
    }
    if (first || last) {
      l.pp_layout =
          FirstLastSplit(m.layers, l.pp, l.vp, static_cast<int>(first.value_or(0)), static_cast<int>(last.value_or(0)));
      if (l.pp_layout.empty())
        throw InputError(
            fmt::format("{}--decoder-first-pipeline-num-layers {} / --decoder-last-pipeline-num-layers "
                        "{} do not split {} layers over pp {} x vp {} as Megatron requires (each a "
                        "multiple of vp, the rest divisible by the middle stages)",
                        w, first.value_or(0), last.value_or(0), m.layers, l.pp, l.vp));
    } else if (account_embedding || account_loss) {
      l.pp_layout = AccountForSplit(m.layers, l.pp, l.vp, account_embedding, account_loss);
      if (l.pp_layout.empty())
        throw InputError(
            fmt::format("{}{} layers + {} (account-for flags) are not divisible by pp {} x vp {}, or a "
                        "chunk would hold no layer",
                        w, m.layers, extra, l.pp, l.vp));
    }
  }
  if (DescribeSplit(m.layers, l.pp, l.vp, l.pp_layout).kind == SplitKind::kEven) l.pp_layout.clear();
}

}  // namespace

namespace {

// Every option Megatron-LM's parser accepts (data/megatron_flags.txt: its commit and how the list
// was read off the parser).
const std::set<std::string, std::less<>>& MegatronOptionNames() {
  static const std::set<std::string, std::less<>> names = [] {
    std::set<std::string, std::less<>> out;
    const std::string_view text = FindEmbeddedFile("megatron_flags.txt").value_or("");
    for (size_t p = 0; p < text.size();) {
      size_t e = text.find('\n', p);
      if (e == std::string_view::npos) e = text.size();
      const std::string_view l = text.substr(p, e - p);
      if (l.starts_with("--")) out.emplace(l);
      p = e + 1;
    }
    return out;
  }();
  return names;
}

// The option Megatron-LM has nearest to `word` ("" when none is close).
std::string NearestMegatronOption(std::string_view word) {
  // Bounded work whatever the word: no option is longer than 64 characters, and only names
  // within the misspelling bound (util/edit_distance.h) are measured, in a band that wide.
  if (word.size() > 64) return "";
  std::string best;
  size_t best_d = std::string::npos;
  for (const std::string& n : MegatronOptionNames()) {
    const size_t limit = std::max<size_t>(2, std::max(word.size(), n.size()) / 12);
    const size_t d = EditDistanceWithin(word, n, limit);
    if (d <= limit && d < best_d) best_d = d, best = n;
  }
  return best;
}

}  // namespace

// The stack features Megatron-LM's flags set (layout/stack.h): the fused cross-entropy, the MoE
// grouped GEMM (without it Megatron-Core runs SequentialMLP), permutation and router fusions, the
// token dispatcher (flex with DeepEP or HybridEP), and CUDA graphs (--cuda-graph-impl
// transformer_engine or local per layer: the static parts; local with --cuda-graph-scope
// full_iteration, or full_iteration: the whole step).
void ReadStackFlags(const ModelSpec& m, const GivenFlags& f, Layout& l) {
  StackFeatures& st = l.stack;
  st.framework = Framework::kMegatronLm;
  l.fused_cross_entropy = f.has("--cross-entropy-loss-fusion");
  if (m.is_moe()) st.grouped_gemm = f.has("--moe-grouped-gemm");
  st.fused_permute = f.has("--moe-permute-fusion");
  st.fused_router = f.has("--moe-router-fusion");
  if (f.given("--moe-token-dispatcher-type") && f.at("--moe-token-dispatcher-type") == "flex")
    st.moe_dispatcher = f.given("--moe-flex-dispatcher-backend") && f.at("--moe-flex-dispatcher-backend") == "hybridep"
                            ? MoeDispatcher::kHybridEp
                            : MoeDispatcher::kDeepEp;
  if (f.given("--cuda-graph-impl") && f.at("--cuda-graph-impl") != "none") {
    const bool full =
        f.at("--cuda-graph-impl") == "full_iteration" ||
        (f.given("--cuda-graph-scope") && f.at("--cuda-graph-scope").find("full_iteration") != std::string::npos);
    st.cuda_graphs = full ? CudaGraphs::kFull : CudaGraphs::kStatic;
  }
}

// A flag's value: inline (--flag=v), the words up to the next flag (kWords), or the next word;
// `i` moves past what it took. Checked against the flag's kind.
std::string FlagValue(const std::vector<std::string>& words, size_t& i, const std::string& w, const FlagSpec& spec,
                      const std::optional<std::string>& inline_value) {
  std::string v;
  if (inline_value) {
    v = *inline_value;
  } else if (spec.kind == Kind::kWords) {  // the words up to the next flag
    while (i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) v += (v.empty() ? "" : " ") + words[++i];
    if (v.empty()) throw InputError(fmt::format("--from-megatron: {} is missing its values", w));
  } else {
    if (i + 1 >= words.size() || words[i + 1].rfind("--", 0) == 0)
      throw InputError(fmt::format("--from-megatron: {} is missing its value", w));
    v = words[++i];
  }
  if (spec.kind == Kind::kInt) ParsePositiveInt(w, v);
  if (spec.kind == Kind::kFloat) ParseNonNegativeFloat(w, v);
  if (spec.kind == Kind::kChoice) {
    bool ok = false;
    for (const std::string& c : spec.choices) ok = ok || c == v;
    if (!ok) {
      std::string list;
      for (const std::string& c : spec.choices) list += (list.empty() ? "" : ", ") + c;
      throw InputError(fmt::format("--from-megatron: {} must be one of {}, got '{}'", w, list, v));
    }
  }
  return v;
}

// A flag paratune does not read: one Megatron-LM accepts is ignored and listed; any other is an
// error, as Megatron's argparse would say (a misspelt --tensor-model-paralel-size gave a tp 1
// estimate), unless `ignore_unknown`. Skips the value that follows it, if any (a word not
// starting with --).
void SkipUnreadFlag(const std::vector<std::string>& words, size_t& i, const std::string& w, bool has_inline_value,
                    bool check, std::vector<std::string>& ignored) {
  if (check && !MegatronOptionNames().contains(w)) {
    const std::string near = NearestMegatronOption(w);
    throw InputError(
        fmt::format("--from-megatron: unrecognized option {} (Megatron-LM's parser refuses it{}); "
                    "--ignore-unknown reads on without it",
                    w, near.empty() ? "" : "; did you mean " + near + "?"));
  }
  ignored.push_back(w);
  if (!has_inline_value && i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) ++i;
}

// The flags of a command line; the words that are not flags (the program and launcher words:
// torchrun, pretrain_gpt.py, ...) and the flags skipped go to `ignored`.
GivenFlags ReadFlagWords(const std::vector<std::string>& words, bool ignore_unknown,
                         std::vector<std::string>& ignored) {
  const auto& known = KnownFlags();
  // A launcher's words (torchrun --nproc_per_node 8 ... pretrain_gpt.py) end at the script.
  size_t first_megatron = 0;
  for (size_t i = 0; i < words.size(); ++i)
    if (words[i].ends_with(".py")) {
      first_megatron = i + 1;
      break;
    }
  GivenFlags f;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    if (w.rfind("--", 0) != 0 || w.size() == 2) {
      ignored.push_back(w);
      continue;
    }
    std::optional<std::string> inline_value;
    if (const size_t eq = w.find('='); eq != std::string::npos) {
      inline_value = w.substr(eq + 1);
      w = w.substr(0, eq);
    }
    const auto it = known.find(w);
    if (it == known.end()) {
      SkipUnreadFlag(words, i, w, inline_value.has_value(), !ignore_unknown && i >= first_megatron, ignored);
    } else if (it->second.kind == Kind::kSwitch) {
      if (inline_value) throw InputError(fmt::format("--from-megatron: {} takes no value", w));
      f.on.insert(w);
    } else {
      f.val[w] = FlagValue(words, i, w, it->second, inline_value);
    }
  }
  return f;
}

// Attention: multi-latent (_add_mla_args defaults: kv-lora-rank 32, qk-head-dim 128,
// qk-pos-emb-head-dim 64, v-head-dim 128, no q compression) or multi-head / grouped-query.
void ReadAttentionFlags(const GivenFlags& f, ModelSpec& m, std::vector<std::string>& notes) {
  if (f.has("--multi-latent-attention")) {
    m.attention = AttentionKind::kMla;
    m.q_lora_rank = f.num_or("--q-lora-rank", 0);
    m.kv_lora_rank = f.num_or("--kv-lora-rank", 32);
    m.qk_nope_head_dim = f.num_or("--qk-head-dim", 128);
    m.qk_rope_head_dim = f.num_or("--qk-pos-emb-head-dim", 64);
    m.v_head_dim = f.num_or("--v-head-dim", 128);
    m.kv_heads = m.heads;
    m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
    return;
  }
  if (!f.given("--kv-channels") && m.hidden % m.heads != 0)
    throw InputError(
        fmt::format("--from-megatron: --hidden-size ({}) is not divisible by "
                    "--num-attention-heads ({}); give --kv-channels",
                    m.hidden, m.heads));
  m.head_dim = f.num_or("--kv-channels", m.hidden / m.heads);
  m.kv_heads = m.heads;
  if (f.has("--group-query-attention")) {
    m.kv_heads = f.num_or("--num-query-groups", m.heads);
  } else if (f.given("--num-query-groups")) {
    notes.push_back(
        "--num-query-groups has no effect without --group-query-attention (Megatron "
        "uses one group per head)");
  }
}

// Model (megatron/training/arguments.py _add_network_size_args; TransformerConfig defaults).
void ReadModelFlags(const GivenFlags& f, MegatronArgs& r) {
  ModelSpec& m = r.model;
  m.name = "megatron-args";
  m.architecture = "MegatronGPTModel";
  m.layers = f.require("--num-layers");
  m.hidden = f.require("--hidden-size");
  m.heads = f.require("--num-attention-heads");
  if (f.given("--padded-vocab-size"))
    m.vocab = f.num("--padded-vocab-size");
  else if (f.given("--vocab-size"))
    m.vocab = f.num("--vocab-size");
  else
    throw InputError(
        "--from-megatron: --vocab-size or --padded-vocab-size is required (paratune "
        "cannot read a tokenizer)");
  ReadAttentionFlags(f, m, r.notes);
  m.mlp = f.has("--swiglu") ? MlpKind::kGated : MlpKind::kPlain;
  if (f.given("--ffn-hidden-size")) {
    m.ffn_hidden = f.num("--ffn-hidden-size");
  } else {
    // arguments.py: SwiGLU defaults to int(4h * 2/3 / 64) * 64, otherwise 4h. (Noted below,
    // unless no layer is dense.)
    m.ffn_hidden = f.has("--swiglu") ? static_cast<int64_t>(4.0 * m.hidden * 2 / 3 / 64) * 64 : 4 * m.hidden;
  }
  m.norm =
      f.given("--normalization") && f.at("--normalization") == "RMSNorm" ? NormKind::kRmsNorm : NormKind::kLayerNorm;
  m.tied_embeddings = !f.has("--untie-embeddings-and-output-weights");
  m.linear_bias = !f.has("--disable-bias-linear");
  m.qkv_bias = f.has("--add-qkv-bias") && !m.linear_bias;
  m.qk_norm = f.has("--qk-layernorm");
  // TransformerConfig: hidden_dropout and attention_dropout default to 0.1.
  const double hd =
      f.given("--hidden-dropout") ? ParseNonNegativeFloat("--hidden-dropout", f.at("--hidden-dropout")) : 0.1;
  const double ad =
      f.given("--attention-dropout") ? ParseNonNegativeFloat("--attention-dropout", f.at("--attention-dropout")) : 0.1;
  m.dropout = hd > 0 || ad > 0;
}

// --moe-layer-freq: N (every N-th layer) or a Python list pattern ([0]*3+[1]*57).
void ReadMoeLayerFreq(const GivenFlags& f, ModelSpec& m, std::vector<std::string>& notes) {
  const std::string& freq = f.at("--moe-layer-freq");
  if (freq.find('[') == std::string::npos) {
    m.moe_layer_freq = ParsePositiveInt("--moe-layer-freq", freq);
    if (m.moe_layer_freq > 1)
      notes.push_back(
          "--moe-layer-freq N: paratune places the MoE layer last in each group of N "
          "(Megatron: first); the count differs when N does not divide --num-layers");
    return;
  }
  const std::vector<int> p = EvalMoeLayerPattern(freq);
  if (static_cast<int64_t>(p.size()) != m.layers)
    throw InputError(
        fmt::format("--from-megatron: --moe-layer-freq pattern has {} entries, "
                    "--num-layers is {}",
                    p.size(), m.layers));
  // paratune's placement (ModelSpec::is_moe_layer): first_dense_layers dense, then the last
  // of every moe_layer_freq layers MoE. The first two MoE layers give both.
  std::vector<int64_t> ones;
  for (size_t j = 0; j < p.size() && ones.size() < 2; ++j)
    if (p[j] == 1) ones.push_back(static_cast<int64_t>(j));
  if (ones.empty()) throw InputError("--from-megatron: --moe-layer-freq pattern has no MoE layer");
  m.moe_layer_freq = ones.size() == 2 ? ones[1] - ones[0] : 1;
  m.first_dense_layers = ones[0] - (m.moe_layer_freq - 1);
  bool fits = m.first_dense_layers >= 0;
  for (size_t j = 0; fits && j < p.size(); ++j) fits = (p[j] == 1) == m.is_moe_layer(static_cast<int64_t>(j));
  if (!fits)
    throw InputError(
        "--from-megatron: --moe-layer-freq pattern must be leading dense layers followed by "
        "one MoE layer in every N, the last of each group (paratune's model of layer placement)");
}

// Mixture of experts (megatron/training/arguments.py _add_moe_args; TransformerConfig defaults).
void ReadMoeFlags(const GivenFlags& f, MegatronArgs& r) {
  ModelSpec& m = r.model;
  if (!f.given("--num-experts")) {
    if (f.given("--moe-router-topk") || f.given("--moe-ffn-hidden-size"))
      r.notes.push_back("MoE flags given without --num-experts: the model is dense");
    return;
  }
  m.experts = f.num("--num-experts");
  m.topk = f.num_or("--moe-router-topk", 2);  // TransformerConfig.moe_router_topk default 2
  m.moe_ffn_hidden = f.num_or("--moe-ffn-hidden-size", m.ffn_hidden);
  m.routing_groups = f.num_or("--moe-router-num-groups", 0);
  m.routing_group_topk = f.num_or("--moe-router-group-topk", 0);
  m.router_sigmoid = f.given("--moe-router-score-function") && f.at("--moe-router-score-function") == "sigmoid";
  m.router_expert_bias = f.has("--moe-router-enable-expert-bias");
  if (f.given("--moe-router-topk-scaling-factor"))
    m.router_topk_scaling =
        ParseNonNegativeFloat("--moe-router-topk-scaling-factor", f.at("--moe-router-topk-scaling-factor"));
  if (f.given("--moe-shared-expert-intermediate-size")) {
    m.shared_experts = 1;
    m.shared_ffn_hidden = f.num("--moe-shared-expert-intermediate-size");
    m.shared_expert_gate = f.has("--moe-shared-expert-gate");
  }
  if (f.given("--moe-layer-freq")) ReadMoeLayerFreq(f, m, r.notes);
  // Megatron's MoE-layer width defaults to --ffn-hidden-size; without dense layers no layer
  // uses the dense width, and paratune keeps it 0 (as for Mixtral's config).
  if (!f.given("--ffn-hidden-size") && m.dense_layers() == 0) m.ffn_hidden = 0;
}

// Recomputation: --recompute-granularity (or the legacy --recompute-activations) and the
// modules of selective recomputation.
void ReadRecomputeFlags(const GivenFlags& f, Layout& l, std::vector<std::string>& notes) {
  l.recompute = Recompute::kNone;
  if (f.given("--recompute-granularity"))
    l.recompute = f.at("--recompute-granularity") == "full" ? Recompute::kFull : Recompute::kSelective;
  else if (f.has("--recompute-activations"))
    l.recompute = Recompute::kSelective;
  if (f.given("--recompute-modules")) {
    if (l.recompute == Recompute::kSelective)
      l.recompute_modules = ParseRecomputeModules(f.at("--recompute-modules"), "--from-megatron: --recompute-modules");
    else
      notes.push_back("--recompute-modules applies with --recompute-granularity selective only: ignored");
  }
  if (l.recompute == Recompute::kFull && f.given("--recompute-num-layers"))
    notes.push_back("--recompute-num-layers: paratune recomputes every layer under full recomputation");
}

// Layout (megatron/core/model_parallel_config.py and arguments.py _add_distributed_args).
void ReadLayoutFlags(const GivenFlags& f, MegatronArgs& r) {
  Layout& l = r.layout;
  l.tp = static_cast<int>(f.num_or("--tensor-model-parallel-size", 1));
  l.pp = static_cast<int>(f.num_or("--pipeline-model-parallel-size", 1));
  l.cp = static_cast<int>(f.num_or("--context-parallel-size", 1));
  // --cp-comm-type (megatron/training/arguments.py, default p2p; one value for every layer).
  if (f.given("--cp-comm-type")) {
    const std::string& cp_comm = f.at("--cp-comm-type");
    l.cp_comm = cp_comm == "a2a" ? CpComm::kA2a : CpComm::kP2p;
    if (cp_comm != "a2a" && cp_comm != "p2p")
      r.notes.push_back(fmt::format("--cp-comm-type {}: estimated as the p2p ring", cp_comm));
  }
  l.ep = static_cast<int>(f.num_or("--expert-model-parallel-size", 1));
  l.etp = static_cast<int>(f.num_or("--expert-tensor-parallel-size", 0));
  const std::optional<std::string> layout = f.given("--pipeline-model-parallel-layout")
                                                ? std::optional<std::string>(f.at("--pipeline-model-parallel-layout"))
                                                : std::nullopt;
  ReadPipelineSplit(r.model, l, f.has("--account-for-embedding-in-pipeline-split"),
                    f.has("--account-for-loss-in-pipeline-split"), f.opt("--num-layers-per-virtual-pipeline-stage"),
                    f.given("--num-virtual-stages-per-pipeline-rank") ? f.opt("--num-virtual-stages-per-pipeline-rank")
                                                                      : f.opt("--virtual-pipeline-model-parallel-size"),
                    f.opt("--decoder-first-pipeline-num-layers"), f.opt("--decoder-last-pipeline-num-layers"), layout);
  l.sp = f.has("--sequence-parallel");
  l.dp = 0;
  if (f.has("--use-megatron-fsdp") || f.has("--use-torch-fsdp2")) {
    const std::string s =
        f.given("--data-parallel-sharding-strategy") ? f.at("--data-parallel-sharding-strategy") : "optim_grads_params";
    l.zero = f.has("--use-torch-fsdp2") ? 3 : s == "no_shard" ? 0 : s == "optim" ? 1 : s == "optim_grads" ? 2 : 3;
  } else {
    l.zero = f.has("--use-distributed-optimizer") ? 1 : 0;
  }
  ReadRecomputeFlags(f, l, r.notes);
  l.mbs = static_cast<int>(f.num_or("--micro-batch-size", 1));
}

// Precision, optimizer states and the overlap switches.
void ReadPrecisionFlags(const GivenFlags& f, MegatronArgs& r) {
  Training& t = r.training;
  Layout& l = r.layout;
  if (f.given("--fp4-format"))
    t.precision = Precision::kFp4;
  else if (f.given("--fp8-format"))
    t.precision = Precision::kFp8;
  else if (f.has("--fp16"))
    t.precision = Precision::kFp16;  // 16-bit floats with dynamic loss scaling
  else
    t.precision = Precision::kBf16;
  if (!f.has("--bf16") && !f.has("--fp16"))
    r.notes.push_back(
        "no --bf16/--fp16: Megatron would keep FP32 weights and activations; paratune "
        "estimates BF16 mixed precision");
  // FP32 gradients unless --grad-reduce-in-bf16 (megatron/training/arguments.py validate_args,
  // which forces accumulate_allreduce_grads_in_fp32 on for BF16 otherwise).
  l.grad_reduce_in_fp32 = !f.has("--grad-reduce-in-bf16");
  // --use-precision-aware-optimizer keeps the FP32 master as 16-bit remainders
  // (megatron/core/optimizer/optimizer_config.py: store_param_remainders defaults to True). Its
  // --exp-avg-dtype/--exp-avg-sq-dtype are not read: the moments are taken as FP32.
  l.optimizer_states =
      f.has("--use-precision-aware-optimizer") ? OptimizerStates::kFp32Remainders : OptimizerStates::kFp32;
  l.overlap_grad_reduce = f.has("--overlap-grad-reduce");
  l.overlap_param_gather = f.has("--overlap-param-gather");
  l.overlap_tp_comm = f.has("--tp-comm-overlap");
  l.overlap_pp_comm = !f.has("--no-overlap-p2p-communication");
  l.overlap_ep_comm = f.has("--overlap-moe-expert-parallel-comm");
}

MegatronArgs ParseMegatronArgs(const std::string& line, bool ignore_unknown) {
  MegatronArgs r;
  const GivenFlags f = ReadFlagWords(SplitShellWords(line), ignore_unknown, r.ignored);
  ReadModelFlags(f, r);
  Training& t = r.training;
  r.seq_given = f.given("--seq-length");
  t.seq = f.num_or("--seq-length", t.seq);
  if (!r.seq_given) r.notes.push_back(fmt::format("no --seq-length: paratune assumes {}", t.seq));
  ReadPositions(r.model, t.seq, f, r.notes);
  r.model.mtp_layers = f.num_or("--mtp-num-layers", 0);
  ReadMoeFlags(f, r);
  if (!f.given("--ffn-hidden-size") && r.model.ffn_hidden > 0)
    r.notes.push_back(fmt::format("no --ffn-hidden-size: Megatron's default {}", r.model.ffn_hidden));
  ValidateModel(r.model, "--from-megatron");
  ReadLayoutFlags(f, r);
  r.global_batch_given = f.given("--global-batch-size");
  if (r.global_batch_given) t.global_batch = f.num("--global-batch-size");
  ReadPrecisionFlags(f, r);
  ReadStackFlags(r.model, f, r.layout);
  Layout& l = r.layout;
  l.flash_attention = !(f.given("--attention-backend") &&
                        (f.at("--attention-backend") == "unfused" || f.at("--attention-backend") == "local"));
  return r;
}

nlohmann::json MegatronArgsJson(const MegatronArgs& a) { return {{"ignored", a.ignored}, {"notes", a.notes}}; }

}  // namespace paratune
