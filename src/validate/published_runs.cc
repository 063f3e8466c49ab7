#include "validate/published_runs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <regex>

#include "util/csv.h"
#include "util/error.h"

namespace paratune {
namespace {

const char* const kColumns[] = {
    "id", "source", "model", "arch", "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab",
    "seq_len", "num_experts", "topk", "gpu", "num_gpus", "gpus_per_node", "tp", "pp", "vp", "dp", "cp",
    "ep", "sp", "zero_stage_or_fsdp", "micro_batch", "global_batch", "recompute", "precision",
    "target_tokens_per_s_per_gpu", "confidence", "flags"};

// The numeric columns: every non-empty cell of these must parse, in every row, whether or not
// the row can be modelled.
const char* const kIntColumns[] = {"layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len",
                                   "num_experts", "topk", "num_gpus", "gpus_per_node", "tp", "pp", "vp", "cp",
                                   "ep", "micro_batch", "global_batch"};
const char* const kNumColumns[] = {"target_tokens_per_s_per_gpu"};

// Optional numeric columns: read (and checked like the others) where the file has them.
struct OptionalColumn {
  const char* name;
  double PublishedRun::*field;
  double scale;  // to SI: GiB to bytes
};
const OptionalColumn kOptionalColumns[] = {
    {"target_step_time_s", &PublishedRun::target_step_time_s, 1},
    {"measured_peak_mem_gib", &PublishedRun::measured_peak_memory_bytes, 1024.0 * 1024 * 1024},
    {"simumax_pred_mem_gib", &PublishedRun::simumax_peak_memory_bytes, 1024.0 * 1024 * 1024},
    {"simumax_pred_step_time_s", &PublishedRun::simumax_step_time_s, 1},
};

// A malformed cell: the file is broken (not just a row paratune cannot model).
struct CellError : InputError {
  using InputError::InputError;
};

// A cell's text for a message: at most 40 bytes, control bytes as '?' (keeps the error one line).
std::string Shown(const std::string& s) {
  std::string out = s.substr(0, 40);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return s.size() > 40 ? out + "..." : out;
}

// Typed access to the cells of one row; a malformed number is a CellError naming line and column.
class Cells {
 public:
  Cells(const std::map<std::string, size_t>& col, const CsvRow& row, const std::string& where)
      : col_(col), row_(row), where_(where) {}

  const std::string& Str(const char* name) const { return row_.fields[col_.at(name)]; }
  bool Has(const char* name) const { return col_.contains(name); }
  bool Empty(const char* name) const { return Str(name).empty(); }

  // A non-negative integer of at most kMaxInt: it fits every int it is stored in, and the
  // products the cost model forms from a row (GPUs per node, parallel degrees, batch x sequence)
  // stay within 64 bits.
  int64_t Int(const char* name) const {
    const std::string& s = Str(name);
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0 || v > kMaxInt)
      throw CellError(where_ + ":" + std::to_string(row_.line) + ": column '" + name +
                      "' must be a non-negative integer of at most " + std::to_string(kMaxInt) + ", got '" + Shown(s) + "'");
    return v;
  }
  // A finite non-negative number.
  double Num(const char* name) const {
    const std::string& s = Str(name);
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !(v >= 0) || !std::isfinite(v))
      throw CellError(where_ + ":" + std::to_string(row_.line) + ": column '" + name +
                      "' must be a finite non-negative number, got '" + Shown(s) + "'");
    return v;
  }
  static constexpr int64_t kMaxInt = int64_t{1} << 24;  // 16,777,216: far beyond any published run

 private:
  const std::map<std::string, size_t>& col_;
  const CsvRow& row_;
  const std::string& where_;
};

// GPU names as the dataset writes them, onto catalog entries.
std::string CatalogGpu(const std::string& g) {
  if (g == "H100-SXM") return "H100";
  return g;
}

// Runs published before FlashAttention reached Megatron-LM (2023) stored and recomputed the
// attention scores with Megatron's fused softmax: a fact of the software those runs used.
bool PredatesFlashAttention(const std::string& source) {
  return source == "Narayanan2021" || source == "Korthikanti2022" || source == "MegatronLM-README-2020";
}

// Software facts a row's notes state (simumax_runs_dev.csv gives the stack: "TE 2.11.0", "TE
// release_v2.1"; its '_cef' cases run a fused cross-entropy). Transformer Engine caches its
// weight-gradient placeholders from 2.3 (Layout::cached_wgrad_placeholders); where no version is
// stated, the runs are taken to predate it (listed as an assumption).
void MapSoftware(const Cells& c, PublishedRun& r) {
  const std::string notes = c.Has("notes") ? c.Str("notes") : "";
  static const std::regex te(R"(\bTE (?:release_v)?(\d+)\.(\d+))");
  std::smatch v;
  if (std::regex_search(notes, v, te)) {
    const int major = std::stoi(v[1].str()), minor = std::stoi(v[2].str());
    r.layout.cached_wgrad_placeholders = major > 2 || (major == 2 && minor >= 3);
  } else {
    // The published runs up to mid-2025 (NeMo 24.07-25.04, dgxc 25.03, Megatron-LM's H100 table)
    // ran Transformer Engine before 2.3, or no TE at all.
    r.layout.cached_wgrad_placeholders = false;
    r.assumptions.push_back("Transformer Engine version not stated: weight-gradient placeholders per backward (TE < 2.3)");
  }
  const std::string section = c.Has("table_or_section") ? c.Str("table_or_section") : "";
  r.layout.fused_cross_entropy = section.find("_cef") != std::string::npos &&
                                 notes.find("cross-entropy loss fusion on") != std::string::npos;
}

void MapRow(const Cells& c, PublishedRun& r, const HardwareCatalog& hw) {
  auto need = [&](const char* col) {
    if (c.Empty(col)) throw std::string("column '") + col + "' is empty";
  };
  if (r.target_tokens_per_s_per_gpu <= 0) throw std::string("no target");
  // Model.
  need("layers");
  need("hidden");
  need("heads");
  ModelSpec& m = r.model;
  m.name = r.model_name;
  m.layers = c.Int("layers");
  m.hidden = c.Int("hidden");
  m.heads = c.Int("heads");
  m.kv_heads = c.Empty("kv_heads") ? m.heads : c.Int("kv_heads");
  if (m.heads <= 0 || m.hidden % m.heads != 0) throw std::string("hidden is not a multiple of heads");
  m.head_dim = m.hidden / m.heads;
  if (c.Empty("vocab")) {
    m.vocab = 51200;
    r.assumptions.push_back("vocab 51200 (Megatron's padded GPT-2 vocabulary)");
  } else {
    m.vocab = c.Int("vocab");
  }
  int64_t ffn = 0;
  if (c.Empty("ffn_hidden")) {
    ffn = 4 * m.hidden;
    r.assumptions.push_back("ffn 4h");
  } else {
    ffn = c.Int("ffn_hidden");
  }
  // An MLP of exactly 4h is the GPT/Nemotron/MPT two-GEMM MLP with LayerNorm and tied
  // embeddings; any other width is a gated (SwiGLU) Llama-style MLP with RMSNorm.
  const bool plain = ffn == 4 * m.hidden;
  m.mlp = plain ? MlpKind::kPlain : MlpKind::kGated;
  m.norm = plain ? NormKind::kLayerNorm : NormKind::kRmsNorm;
  m.tied_embeddings = plain;
  m.architecture = plain ? "GPT2LMHeadModel" : "LlamaForCausalLM";
  if (r.arch == "moe") {
    need("num_experts");
    need("topk");
    m.experts = c.Int("num_experts");
    m.topk = c.Int("topk");
    m.moe_ffn_hidden = ffn;
  } else {
    m.ffn_hidden = ffn;
  }
  ValidateModel(m, "row " + r.id);

  // Cluster.
  const std::string gpu = CatalogGpu(r.gpu_name);
  try {
    r.cluster = hw.Cluster(gpu, 0);
  } catch (const InputError&) {
    throw std::string("GPU '") + r.gpu_name + "' is not in the hardware catalog";
  }
  if (!c.Empty("gpus_per_node")) {
    // The cluster divides by it: 0 has no meaning (and would divide by zero).
    if (c.Int("gpus_per_node") == 0) throw std::string("column 'gpus_per_node' is 0");
    r.cluster.fabric.gpus_per_node = static_cast<int>(c.Int("gpus_per_node"));
  }
  need("num_gpus");
  r.cluster.gpus = r.num_gpus;

  // Training.
  need("seq_len");
  r.training.seq = c.Int("seq_len");
  if (c.Empty("global_batch")) throw std::string("global batch not given");
  r.training.global_batch = c.Int("global_batch");
  const std::string& p = c.Str("precision");
  if (p == "bf16") r.training.precision = Precision::kBf16;
  else if (p == "fp16") r.training.precision = Precision::kFp16;
  else if (p == "fp8" || p == "mxfp8") r.training.precision = Precision::kFp8;
  else if (p == "nvfp4") r.training.precision = Precision::kFp4;
  else throw std::string("unknown precision '") + p + "'";

  // Layout.
  Layout& l = r.layout;
  if (r.flags.find("parallel_degrees_missing") != std::string::npos &&
      (c.Empty("tp") || c.Empty("pp")) && c.Empty("dp"))
    throw std::string("parallel degrees not given");
  l.tp = c.Empty("tp") ? 1 : static_cast<int>(c.Int("tp"));
  l.pp = c.Empty("pp") ? 1 : static_cast<int>(c.Int("pp"));
  l.vp = c.Empty("vp") ? 1 : static_cast<int>(c.Int("vp"));
  l.cp = c.Empty("cp") ? 1 : static_cast<int>(c.Int("cp"));
  l.ep = c.Empty("ep") ? 1 : static_cast<int>(c.Int("ep"));
  l.sp = c.Str("sp") != "no";
  const std::string& z = c.Str("zero_stage_or_fsdp");
  if (z.empty() || z == "DDP") l.zero = 1;  // Megatron/NeMo distributed optimizer
  else if (z.find("ZeRO-3") != std::string::npos || z.find("FULL_SHARD") != std::string::npos || z == "FSDP") l.zero = 3;
  else if (z.find("SHARD_GRAD_OP") != std::string::npos || z.find("ZeRO-2") != std::string::npos) l.zero = 2;
  else if (z.find("ZeRO-1") != std::string::npos) l.zero = 1;
  else throw std::string("unknown sharding '") + z + "'";
  if (z.find("DeepSpeed") != std::string::npos && l.zero == 3) {
    // DeepSpeed stage 3 (2021): parameters fetched tensor by tensor when a module needs them,
    // gradients reduce-scattered tensor by tensor, neither hidden behind compute.
    l.zero3_per_tensor = true;
    l.overlap_param_gather = false;
    l.overlap_grad_reduce = false;
  }
  l.mbs = c.Empty("micro_batch") ? 1 : static_cast<int>(c.Int("micro_batch"));
  const std::string& rc = c.Str("recompute");
  if (rc.empty() || rc == "none") l.recompute = Recompute::kNone;
  else if (rc == "selective") l.recompute = Recompute::kSelective;
  else if (rc == "full") l.recompute = Recompute::kFull;
  else throw std::string("unknown recompute '") + rc + "'";
  l.flash_attention = !PredatesFlashAttention(r.source);
  MapSoftware(c, r);
  // Those Megatron-LM GPT runs also kept its default dropout of 0.1 (hidden and attention).
  m.dropout = PredatesFlashAttention(r.source);
  const long long chunks = static_cast<long long>(l.pp) * l.vp;
  if (chunks > 0 && m.layers % chunks != 0) {  // pp or vp 0: the layout rules reject it
    // Megatron-LM's --account-for-embedding-in-pipeline-split and --account-for-loss-in-
    // pipeline-split: the embedding and the loss each take a layer's slot in the first and last
    // chunk (the dataset flags such rows "layers+2_divides").
    if ((m.layers + 2) % chunks != 0)
      throw std::string("layers are not divisible by pp*vp, nor once embedding and loss count as layers");
    const int per = static_cast<int>((m.layers + 2) / chunks);
    l.pp_layout.assign(static_cast<size_t>(chunks), per);
    l.pp_layout.front() -= 1;
    l.pp_layout.back() -= 1;
    r.assumptions.push_back("embedding and loss counted as pipeline layers (uneven stages)");
  }
}

}  // namespace

std::vector<PublishedRun> ReadPublishedRuns(std::string_view text, const std::string& where,
                                            const HardwareCatalog& hw) {
  const std::vector<CsvRow> rows = ParseCsv(text, where);
  if (rows.empty()) throw InputError(where + ": empty file (expected a header row)");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].fields.size(); ++i) col[rows[0].fields[i]] = i;
  for (const char* name : kColumns)
    if (!col.contains(name)) throw InputError(where + ":1: missing column '" + std::string(name) + "'");
  if (rows.size() == 1) throw InputError(where + ": no data rows (only the header)");
  std::vector<PublishedRun> out;
  for (size_t i = 1; i < rows.size(); ++i) {
    const Cells c(col, rows[i], where);
    // Every numeric cell parses, or the file is an error (before the row's mapping may stop early).
    for (const char* name : kIntColumns)
      if (!c.Empty(name)) c.Int(name);
    for (const char* name : kNumColumns)
      if (!c.Empty(name)) c.Num(name);
    PublishedRun r;
    r.line = rows[i].line;
    r.id = c.Str("id");
    r.source = c.Str("source");
    r.model_name = c.Str("model");
    r.arch = c.Str("arch");
    r.gpu_name = c.Str("gpu");
    r.precision_raw = c.Str("precision");
    r.confidence = c.Str("confidence");
    r.flags = c.Str("flags");
    r.num_gpus = c.Empty("num_gpus") ? 0 : static_cast<int>(c.Int("num_gpus"));
    r.target_tokens_per_s_per_gpu = c.Empty("target_tokens_per_s_per_gpu") ? 0 : c.Num("target_tokens_per_s_per_gpu");
    for (const OptionalColumn& o : kOptionalColumns)
      if (col.contains(o.name) && !c.Empty(o.name)) r.*o.field = o.scale * c.Num(o.name);
    try {
      MapRow(c, r, hw);
      r.modelable = true;
    } catch (const std::string& why) {
      r.reason = why;
    } catch (const CellError&) {
      throw;
    } catch (const InputError& e) {
      r.reason = e.what();
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace paratune
