"""paratune from Python: the same C++ library as the ``paratune`` command line.

    import paratune
    e = paratune.estimate(model="llama-3.1-70b", gpu="H100", nodes=8, tp=8, pp=2)
    print(e.throughput.step_time_s, e.memory.fits)
    p = paratune.plan(gpus=64)            # the default scenario otherwise, as `paratune plan`
    p.winner.layout.tp; p.to_frame()      # the ranking as a pandas table (pandas optional)
    print(paratune.emit("torchtitan", tp=8, pp=2, nodes=8))

Keyword arguments are the CLI's flags with underscores (``global_batch`` for
``--global-batch``); one left out, or given as None, takes the CLI's default. Results are the
documents of ``--json`` (docs/json.md) as typed objects. Bad input raises InputError with the
message the CLI prints. docs/python.md.
"""

from ._paratune import InputError
from . import _paratune
from ._result import Emitted, Estimate, Plan, Record, Result

__all__ = ["estimate", "plan", "emit", "InputError", "Result", "Record", "Estimate", "Plan", "Emitted"]

_SCENARIO_HELP = """
    Scenario keywords (the CLI's flags; each defaults to the CLI's default):
      model: catalog id or path to a Hugging Face config.json (default llama-3.1-70b);
        or an inline model: layers, hidden, ffn, heads, kv_heads, vocab, experts, topk,
        plain_mlp
      gpu (default B300), hardware (TOML file), fabric, nodes (default 4) or gpus
      seq, global_batch, precision
      tp, pp, vp, pp_layout, cp, ep, etp, sp, zero, mbs, recompute, recompute_modules,
      schedule, overlap_grad_reduce, overlap_param_gather, overlap_tp_comm,
      overlap_pp_comm, overlap_ep_comm, expert_imbalance, offload_layers,
      flash_attention, attention_kernel, optimizer_states, cp_comm
      stack, kernels, cuda_graphs, moe_dispatcher, grouped_gemm, fused_permute,
      fused_router, fused_cross_entropy, zero3_per_tensor, fp32_shards
      allow_cross_domain_tp
"""


def estimate(**scenario):
    """Estimate one training step of a layout, as ``paratune estimate --json``.

    train_tokens (e.g. 15e12) and gpu_hour_price (USD) add ``time_to_train`` (days, GPU-hours,
    cost), as --train-tokens and --gpu-hour-price do.

    Returns an Estimate (schema paratune.estimate/1): ``e.throughput.step_time_s``,
    ``e.throughput.tokens_per_s_per_gpu``, ``e.memory.fits``, ``e.to_dict()``.
    Raises InputError for a bad scenario or a layout that breaks a rule, TypeError for an
    unknown keyword or a value of the wrong type.
    """
    return Estimate(_paratune.estimate(scenario))


def plan(*, progress=None, **options):
    """Search every valid layout and rank them, as ``paratune plan --json``.

    A layout keyword (tp, pp, vp, cp, ep, etp, zero, mbs, recompute) pins that dimension;
    the others are searched. Search keywords: max_tp, max_pp, max_vp, max_cp, max_ep,
    max_mbs (upper bounds, 0 = none), top (layouts listed, default 10), objective
    ("throughput" or "memory"), headroom (fraction of HBM kept free, default 0.05);
    precision="any" searches every precision the GPU supports. train_tokens and
    gpu_hour_price add ``time_to_train`` to every ranked layout, as in estimate().

    progress: an optional callable progress(what: str, done: int, total: int), called from
    the search (total 0: unknown); silent without one. The search releases the GIL, so other
    Python threads run meanwhile; Ctrl-C (KeyboardInterrupt) or an exception the callback
    raises stops it at the next report and is raised here.

    Returns a Plan (schema paratune.plan/1): ``p.ranked`` (best first), ``p.winner``,
    ``p.search``, ``p.to_frame()`` (pandas). Raises InputError for bad input.
    """
    return Plan(_paratune.plan(options, progress))


def emit(framework="megatron-lm", **scenario):
    """The settings of one layout for a framework: "megatron-lm" (Megatron-LM arguments),
    "torchtitan" (its TOML job file) or "deepspeed" (its JSON config).

    The layout is checked first (InputError listing every broken rule). Returns an Emitted
    (schema paratune.emit/1): ``.text`` (the file's contents; also ``str()``), ``.notes`` (what
    the framework cannot express), ``.framework``.
    """
    return Emitted(_paratune.emit(framework, scenario))


for _f in (estimate, plan, emit):
    _f.__doc__ += _SCENARIO_HELP
del _f
