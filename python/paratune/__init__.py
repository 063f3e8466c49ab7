"""paratune from Python: the same C++ library as the ``paratune`` command line.

    import paratune
    e = paratune.estimate(model="llama-3.1-70b", gpu="H100", nodes=8, tp=8, pp=2)
    print(e.throughput.step_time_s, e.memory.fits)
    p = paratune.plan(gpus=64)            # the default scenario otherwise, as `paratune plan`
    p.winner.layout.tp; p.to_frame()      # the ranking as a pandas table (pandas optional)
    print(paratune.emit("torchtitan", tp=8, pp=2, nodes=8))
    a = paratune.analyze("traces/")       # profiler traces, HTA's figures and more
    a.temporal_breakdown(); a.kernels()   # pandas tables

Keyword arguments are the CLI's flags with underscores (``global_batch`` for
``--global-batch``); one left out, or given as None, takes the CLI's default. Results are the
documents of ``--json`` (docs/json.md) as typed objects. Bad input raises InputError with the
message the CLI prints. docs/python.md.
"""

from ._paratune import InputError
from . import _paratune
from ._result import (Analysis, ClusterReplay, Diagnosis, Emitted, Estimate, Plan, Record, Result, RunList,
                      Simulation, Validation)
from . import cluster, runs
from ._inputs import Cluster, Layout, Model, Training
from ._inputs import expand as _expand
from ._renamed import take_renamed

__all__ = [
    "Model", "Cluster", "Layout", "Training",
    "estimate", "simulate", "plan", "analyze", "diagnose", "rules", "validate", "emit",
    "InputError", "Result", "Record", "Estimate", "Simulation", "Plan", "Analysis", "Diagnosis",
    "Validation", "ClusterReplay", "RunList", "Emitted", "cluster", "runs",
]

_SCENARIO_HELP = """
    Scenario keywords (the CLI's flags; each defaults to the CLI's default):
      model: catalog id or path to a Hugging Face config.json (default llama-3.1-70b), or a
        paratune.Model; model_config: a config.json's text; or an inline model: layers,
        hidden, ffn, heads, kv_heads, vocab, experts, topk, plain_mlp
      cluster=, layout=, training=: a paratune.Cluster, Layout, Training (their keywords)
      gpu (default B300), hardware (TOML file), fabric, nodes (default 4) or gpus
      seq, global_batch, precision
      tp, pp, vp, pp_layout, cp, ep, etp, sp, zero, mbs, recompute, recompute_modules,
      schedule, overlap_grad_reduce, overlap_param_gather, overlap_tp_comm,
      overlap_pp_comm, overlap_ep_comm, expert_imbalance, offload_layers,
      flash_attention, attention_kernel, optimizer_states, cp_comm
      stack, kernels, cuda_graphs, moe_dispatcher, grouped_gemm, fused_permute,
      fused_router, fused_grouped_mlp, fused_cross_entropy, fp8_attention,
      fp8_activation_cache, cached_wgrad_placeholders, grad_reduce_in_bf16,
      zero3_per_tensor, fp32_shards, allow_cross_domain_tp
"""


def estimate(**scenario):
    """Estimate one training step of a layout, as ``paratune estimate --json``.

    train_tokens (e.g. 15e12) and gpu_hour_price (USD) add ``time_to_train`` (days, GPU-hours,
    cost), as --train-tokens and --gpu-hour-price do. from_megatron (a Megatron-LM argument list,
    one str) gives the model, batch and layout instead of their keywords (``megatron_args`` in
    the result), as --from-megatron; ignore_unknown skips options Megatron-LM does not have.

    Returns an Estimate (schema paratune.estimate/1): ``e.throughput.step_time_s``,
    ``e.throughput.tokens_per_s_per_gpu``, ``e.memory.fits``, ``e.to_dict()``; for a layout
    that does not fit, ``e.fitting_change`` (the fastest one-knob change that fits, or None).
    Raises InputError for a bad scenario or a layout that breaks a rule, TypeError for an
    unknown keyword or a value of the wrong type.
    """
    return Estimate(_paratune.estimate(_expand(scenario)))


def simulate(*, timeline=False, trace_out=None, **scenario):
    """Simulate the pipeline schedule of one training step, as ``paratune simulate --json``.

    timeline: add every simulated event (``s.events()`` as a table), as --timeline.
    trace_out: a path: also write the step as Chrome-trace JSON there (Perfetto,
    chrome://tracing), as --trace-out (written atomically). The old name trace= still works, with
    a DeprecationWarning.

    Returns a Simulation (schema paratune.simulate/1): ``s.step_time_s`` (the estimate's step
    time, bit for bit), ``s.stages``, ``s.to_frame()`` (one row per stage).
    """
    trace_out = take_renamed("simulate", {"trace_out": trace_out, "trace": scenario.pop("trace", None)})["trace_out"]
    if trace_out is not None:
        import os

        trace_out = os.fsdecode(trace_out)
    return Simulation(_paratune.simulate(dict(_expand(scenario), timeline=timeline, trace_out=trace_out)))


def plan(*, progress=None, **options):
    """Search every valid layout and rank them, as ``paratune plan --json``.

    A layout keyword (tp, pp, vp, cp, ep, etp, zero, mbs, recompute) pins that dimension;
    the others are searched. Search keywords: max_tp, max_pp, max_vp, max_cp, max_ep,
    max_mbs (upper bounds, 0 = none), top (layouts listed, default 10), objective
    ("throughput" or "memory"), headroom (fraction of HBM kept free, default 0.05), sweep
    (one knob, "tp", "pp", "mbs", "recompute" or "precision": also the best layout for each of
    its values, as ``p.sweep``);
    precision="any" searches every precision the GPU supports. train_tokens and
    gpu_hour_price add ``time_to_train`` to every ranked layout, as in estimate().

    progress: an optional callable progress(what: str, done: int, total: int), called from
    the search (total 0: unknown); silent without one. The search releases the GIL, so other
    Python threads run meanwhile; Ctrl-C (KeyboardInterrupt) or an exception the callback
    raises stops it at the next report and is raised here.

    Returns a Plan (schema paratune.plan/1): ``p.ranked`` (best first), ``p.winner``,
    ``p.search``, ``p.to_frame()`` (pandas), ``p.emit("torchtitan")`` (the winner's framework
    settings, as --emit). Raises InputError for bad input.
    """
    document, search = _paratune.plan(_expand(options), progress)
    return Plan(document, search)


def analyze(paths, *, progress=None, trace_out=None, **options):
    """Measure profiler traces, as ``paratune analyze --json``.

    paths: a trace file or directory, or a list of them (str or os.PathLike): Kineto JSON (plain
    or .gz, one file per rank) or Nsight Systems SQLite exports.

    Options (the CLI's flags): rank (shown in detail; must be in the traces), exact_ns (keep ns
    timestamps; HTA rounds to whole µs), include_last_step (HTA drops the last ProfilerStep),
    allow_partial (read a truncated trace as far as it goes), top (kernels listed per kernel
    type, default 10), threads (files read in parallel, default one per core); a trace diff
    (HTA's TraceDiff) with diff_against (the control run's traces), diff_steps and diff_ranks
    ("CONTROL:TEST", e.g. "1009:1010"; without diff_against, two selections of these traces),
    diff_device ("all", "cpu" or "gpu"), diff_short_names; HTA's frequent kernel sequences with
    kernel_sequences (an operator name or part of one, "aten::linear") and min_sequence_length
    (GPU events a sequence has at least, default 3); HTA's critical path with critical_path (the
    annotation bounding the window, "ProfilerStep"; "" for the whole trace),
    critical_path_instances ("N" or "A-B", default 0) and data_load_events (names or parts of
    names of data-loading events). Scenario keywords
    (model, gpu, nodes, tp, ...) set the cost model's prediction beside the measurement when a
    model is given, and each collective's link ceiling when a gpu is given.

    progress: as in plan(): progress(what, done, total) as files are read; Ctrl-C stops it.
    trace_out: a path: also write the reduced Chrome trace there (what the GPUs did, one track per
    stream, for Perfetto), as --trace-out (written atomically; an input file is refused).

    Returns an Analysis (schema paratune.analyze/1): ``a.ranks``, ``a.to_frame()`` (one row per
    rank), ``a.kernels()``, ``a.collectives()``, ``a.temporal_breakdown()`` (HTA's frame) ...
    Raises InputError for an unreadable or malformed trace (naming the file and line).
    """
    import os

    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    if trace_out is not None:
        options["trace_out"] = os.fsdecode(trace_out)
    return Analysis(_paratune.analyze([os.fsdecode(p) for p in paths], _expand(options), progress))


def diagnose(paths=(), *, progress=None, **options):
    """Find why a run is slow, as ``paratune diagnose --json``: rules over its files, ranked by
    the throughput each finding costs.

    paths: files or directories, any mix (each kind detected from its content): Kineto/Nsight
    traces or analyze JSON, Megatron-LM/torchtitan logs or a tokens/s CSV, nvidia-smi/dcgmi
    captures, nccl-tests output, ``nvidia-smi topo -m``, expert token counts. allow_partial and
    threads as for analyze(). Scenario keywords with the run's model and layout let the rules
    compare with what the cost model expects; a gpu (or nodes, gpus) alone gives the cluster.

    Returns a Diagnosis (schema paratune.diagnose/1): ``d.findings``, ``d.to_frame()`` (one row
    per finding), ``d.evidence()``, ``d.notes``. Raises InputError for bad input.
    """
    import os

    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    text, notes = _paratune.diagnose([os.fsdecode(p) for p in paths], _expand(options), progress)
    return Diagnosis(text, notes)


def validate(path, *, hardware=None, progress=None):
    """Predict the published runs of a CSV (the schema of published_runs_dev.csv) and measure the
    error, as ``paratune validate --json``. hardware: a TOML file adding or overriding GPU entries
    or calibration, as --hardware. progress: as in plan(), told the rows predicted; Ctrl-C stops it.

    Returns a Validation (schema paratune.validate/1): ``v.overall.mape`` (a fraction),
    ``v.rows``, ``v.to_frame()`` (one row per run), ``v.groups()``. Raises InputError for a bad
    file, naming the line and column, or when none of its rows can be modelled.
    """
    import os

    return Validation(
        _paratune.validate(os.fsdecode(path), "" if hardware is None else os.fsdecode(hardware), progress))


def rules():
    """Every rule of diagnose() as (name, summary) pairs, as ``paratune diagnose --list-rules``."""
    return _paratune.rules()


def emit(framework="megatron-lm", **scenario):
    """The settings of one layout for a framework: "megatron-lm" (Megatron-LM arguments),
    "torchtitan" (its TOML job file) or "deepspeed" (its JSON config).

    The layout is checked first (InputError listing every broken rule). Returns an Emitted
    (schema paratune.emit/1): ``.text`` (the file's contents; also ``str()``), ``.notes`` (what
    the framework cannot express), ``.framework``.
    """
    return Emitted(_paratune.emit(framework, _expand(scenario)))


for _f in (estimate, simulate, plan, analyze, diagnose, emit):
    _f.__doc__ += _SCENARIO_HELP
del _f
