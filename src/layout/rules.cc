#include "layout/rules.h"

#include <fmt/format.h>

namespace paratune {

std::vector<RuleViolation> CheckLayout(const ModelSpec& m, const ClusterSpec& c, const Training& t,
                                       Layout& l, const RuleOptions& o) {
  std::vector<RuleViolation> v;
  auto add = [&](const char* rule, std::string msg) { v.push_back({rule, std::move(msg)}); };

  // Sizes must be positive before anything can be divided by them.
  bool sizes_ok = true;
  auto positive = [&](long long x, const char* flag) {
    if (x <= 0) {
      add("positive-size", fmt::format("{} must be positive, got {}", flag, x));
      sizes_ok = false;
    }
  };
  positive(c.gpus, "--gpus/--nodes");
  positive(l.tp, "--tp");
  positive(l.pp, "--pp");
  positive(l.vp, "--vp");
  positive(l.cp, "--cp");
  positive(l.ep, "--ep");
  positive(l.expert_tp(), "--etp");
  positive(l.mbs, "--mbs");
  positive(t.seq, "--seq");
  positive(t.global_batch, "--global-batch");
  if (l.zero < 0 || l.zero > 3) add("zero-stage", fmt::format("--zero must be 0, 1, 2 or 3, got {}", l.zero));
  l.dp = 0;
  if (!sizes_ok) return v;

  const long long model_par = static_cast<long long>(l.tp) * l.pp * l.cp;
  if (c.gpus % model_par != 0) {
    add("world-divisible", fmt::format("world size {} is not divisible by tp*pp*cp = {}*{}*{} = {}",
                                       c.gpus, l.tp, l.pp, l.cp, model_par));
  } else {
    l.dp = static_cast<int>(c.gpus / model_par);
  }
  if (m.heads % l.tp != 0)
    add("tp-divides-heads", fmt::format("attention heads ({}) are not divisible by tp ({})", m.heads, l.tp));
  if (m.attention == AttentionKind::kGqa && m.kv_heads % l.tp != 0)
    add("tp-divides-kv-heads",
        fmt::format("KV heads ({}) are not divisible by tp ({})", m.kv_heads, l.tp));
  if (!l.pp_layout.empty()) {
    long long sum = 0;
    bool negative = false;
    for (int n : l.pp_layout) {
      sum += n;
      negative |= n < 0;
    }
    if (static_cast<long long>(l.pp_layout.size()) != static_cast<long long>(l.pp) * l.vp)
      add("pp-layout-size", fmt::format("--pp-layout has {} entries; pp*vp = {}*{} = {} chunks need one each",
                                        l.pp_layout.size(), l.pp, l.vp, l.pp * l.vp));
    else if (negative || sum != m.layers)
      add("pp-layout-sum", fmt::format("--pp-layout counts must be non-negative and add up to the {} layers, "
                                       "got {}", m.layers, sum));
  } else if (m.layers % (static_cast<long long>(l.pp) * l.vp) != 0) {
    add("pp-divides-layers", fmt::format("layers ({}) are not divisible by pp*vp = {}*{} = {} (give "
                                         "--pp-layout for uneven stages)",
                                         m.layers, l.pp, l.vp, l.pp * l.vp));
  }
  if (l.vp > 1 && l.pp < 2)
    add("vp-needs-pp", fmt::format("--vp {} needs pp > 1 (interleaving splits pipeline stages)", l.vp));
  if (l.ep > 1 && !m.is_moe())
    add("ep-needs-moe", fmt::format("--ep {} given but {} has no experts", l.ep, m.name));
  if (m.is_moe() && m.experts % l.ep != 0)
    add("ep-divides-experts", fmt::format("experts ({}) are not divisible by ep ({})", m.experts, l.ep));
  if (m.is_moe() && l.dp > 0) {
    const long long expert_group = static_cast<long long>(l.ep) * l.expert_tp();
    const long long dense_group = static_cast<long long>(l.tp) * l.cp * l.dp;
    if (dense_group % expert_group != 0)
      add("ep-fits-world", fmt::format("ep*etp = {}*{} = {} does not divide tp*cp*dp = {}", l.ep,
                                       l.expert_tp(), expert_group, dense_group));
  }
  if (l.dp > 0 && t.global_batch % (static_cast<long long>(l.dp) * l.mbs) != 0)
    add("batch-divisible", fmt::format("global batch ({}) is not divisible by dp*mbs = {}*{} = {}",
                                       t.global_batch, l.dp, l.mbs, static_cast<long long>(l.dp) * l.mbs));
  if (l.tp > c.gpu.nvlink_domain && !o.allow_cross_domain_tp)
    add("tp-in-nvlink-domain",
        fmt::format("tp ({}) exceeds the NVLink domain of {} ({} GPUs); pass "
                    "--allow-cross-domain-tp to model it anyway",
                    l.tp, c.gpu.name, c.gpu.nvlink_domain));
  if (l.cp > 1 && t.seq % (2LL * l.cp) != 0)
    add("cp-divides-seq", fmt::format("sequence ({}) is not divisible by 2*cp = {} (load-balanced "
                                      "context parallelism splits it in 2*cp chunks)",
                                      t.seq, 2 * l.cp));
  if (l.sequence_parallel() && (t.seq / l.cp) % l.tp != 0)
    add("tp-divides-seq", fmt::format("sequence per CP rank ({}) is not divisible by tp ({}) as "
                                      "sequence parallelism needs",
                                      t.seq / l.cp, l.tp));
  if (c.gpu.peak_flops(t.precision) <= 0)
    add("precision-supported", fmt::format("{} has no {} tensor cores", c.gpu.name,
                                           PrecisionName(t.precision)));
  return v;
}

std::string DescribeViolations(const std::vector<RuleViolation>& v) {
  std::string s = "invalid layout: ";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "; " : "") + v[i].message;
  return s;
}

}  // namespace paratune
