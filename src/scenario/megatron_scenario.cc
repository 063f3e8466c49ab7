#include "scenario/megatron_scenario.h"

#include <fmt/format.h>

#include "util/error.h"

namespace paratune {

std::optional<MegatronArgs> ApplyMegatronArgs(const std::optional<std::string>& line, bool ignore_unknown,
                                              const ScenarioRequest& given, Scenario& s) {
  if (!line) {
    if (ignore_unknown) throw InputError("--ignore-unknown goes with --from-megatron");
    return std::nullopt;
  }
  for (const char* flag :
       {"--model", "--layers",    "--hidden", "--ffn",          "--heads",     "--kv-heads",  "--vocab", "--experts",
        "--topk",  "--plain-mlp", "--seq",    "--global-batch", "--precision", "--tp",        "--pp",    "--vp",
        "--cp",    "--ep",        "--etp",    "--no-sp",        "--zero",      "--recompute", "--mbs"})
    if (given.Given(flag))
      throw InputError(fmt::format("{} and --from-megatron exclude each other: the Megatron arguments give it", flag));
  MegatronArgs a = ParseMegatronArgs(*line, ignore_unknown);
  const Layout& l = a.layout;
  const long long model_par = static_cast<long long>(l.tp) * l.pp * l.cp;
  if (s.cluster.gpus % model_par != 0)
    throw InputError(
        fmt::format("--from-megatron: the world size {} (--gpu/--nodes/--gpus) is not dp*tp*pp*cp "
                    "for any dp: tp*pp*cp = {}*{}*{} = {} does not divide it",
                    s.cluster.gpus, l.tp, l.pp, l.cp, model_par));
  if (!a.global_batch_given) {
    // Megatron's default global batch is micro-batch * data-parallel size.
    a.training.global_batch = static_cast<int64_t>(l.mbs) * (s.cluster.gpus / model_par);
    a.notes.push_back(
        fmt::format("no --global-batch-size: Megatron's default micro-batch * dp = {}", a.training.global_batch));
  }
  s.model = a.model;
  s.training = a.training;
  s.layout = a.layout;
  return a;
}

}  // namespace paratune
