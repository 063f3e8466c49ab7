"""Typed results over paratune's JSON documents.

Each result holds the document the library builds for the CLI's ``--json`` (docs/json.md): its
fields are the document's members, read as attributes, so there is one definition of them, in
the library. Nested objects read the same way; ``to_dict()`` gives the document as plain Python.
"""

import copy
import html
import io
import json


class Record:
    """An object of a document: its members as attributes (and as ``record["name"]``)."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        try:
            return _wrap(self._data[name])
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r} (fields: {', '.join(self._data)})"
            ) from None

    def __getitem__(self, name):
        return _wrap(self._data[name])

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __contains__(self, name):
        return name in self._data

    def __dir__(self):
        return sorted(set(self._data) | set(super().__dir__()))

    def __eq__(self, other):
        return isinstance(other, Record) and self._data == other._data

    def keys(self):
        """The field names."""
        return self._data.keys()

    def to_dict(self):
        """The object as plain Python (a deep copy: dicts, lists, numbers, strings)."""
        return copy.deepcopy(self._data)

    def __repr__(self):
        return f"{type(self).__name__}({json.dumps(self._data)[:200]})"


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _flatten(data, prefix=""):
    """One row of a table: nested objects as dotted column names (layout.tp)."""
    row = {}
    for key, value in data.items():
        name = prefix + key
        if isinstance(value, dict):
            row.update(_flatten(value, name + "."))
        else:
            row[name] = value
    return row


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError(
            "to_frame()/to_pandas() need pandas, which is not installed "
            "(pip install pandas, or Debian's python3-pandas); to_dict() needs nothing"
        ) from e
    return pandas


class Result(Record):
    """A whole document: ``.schema`` names it (e.g. "paratune.estimate/1")."""

    __slots__ = ()

    def __init__(self, text_or_dict):
        data = json.loads(text_or_dict) if isinstance(text_or_dict, str) else text_or_dict
        super().__init__(data)

    def to_json(self, indent=2):
        """The document as JSON text."""
        return json.dumps(self._data, indent=indent)

    def report_html(self, title=None, label=None):
        """The self-contained HTML page ``paratune report`` writes for this document (its tables
        and SVG charts); ``label`` is the name the page shows for it (default: the schema).
        Raises InputError for a schema the report does not draw (validate, emit)."""
        from . import _paratune

        return _paratune.report(json.dumps(self._data), label or self._data.get("schema", "document"), title or "")

    def save_report(self, path, title=None):
        """Writes report_html() to ``path`` (atomically, as ``paratune report --out``)."""
        import os
        import tempfile

        path = os.fspath(path)
        text = self.report_html(title)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".paratune-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise

    def _repr_html_(self):
        """Jupyter's view: the report's page in an isolated frame (its styles and scripts apply
        to it alone); None (the plain repr) for documents the report does not draw."""
        from . import _paratune

        if self._data.get("schema") not in _paratune.report_schemas():
            return None
        page = html.escape(self.report_html(), quote=True)
        return f'<iframe srcdoc="{page}" style="width:100%;height:640px;border:0" title="paratune report"></iframe>'


class _Table(Result):
    """A document with one natural table: the list ``_table`` names (its member, and how a row
    is made of each item: nested objects dotted, ``_flatten``; or lists left out, ``_scalars``)."""

    __slots__ = ()
    _table = None

    def _table_rows(self):
        member, flat = self._table
        return [flat(item) for item in self._data[member]]

    def rows(self):
        """The table's rows as dicts (nested names dotted: ``layout.tp``)."""
        return self._table_rows()

    def to_frame(self):
        """The table as a pandas DataFrame, one row per item (needs pandas)."""
        return _pandas().DataFrame(self._table_rows())

    def to_pandas(self):
        """The same as to_frame()."""
        return self.to_frame()


class Estimate(Result):
    """One training step of a layout (schema paratune.estimate/1): ``throughput.step_time_s``,
    ``throughput.tokens_per_s_per_gpu``, ``memory.fits``, ``time`` ... as in docs/json.md."""

    __slots__ = ()

    @property
    def step_time_s(self):
        """The step time in seconds (``throughput.step_time_s``)."""
        return self._data["throughput"]["step_time_s"]

    def __str__(self):
        t = self._data["throughput"]
        return (
            f"paratune estimate: {self._data['model']['name']} on {self._data['cluster']['gpus']} "
            f"{self._data['cluster']['gpu']}: step {t['step_time_s']:.3f} s, "
            f"{t['tokens_per_s_per_gpu']:.0f} tokens/s per GPU, fits: {self._data['memory']['fits']}"
        )


class Plan(_Table):
    """A layout search (schema paratune.plan/1): ``ranked`` (best first), ``winner``, ``search``,
    ``rules`` ... as in docs/json.md. ``to_frame()`` gives the ranking as a table."""

    __slots__ = ("_search",)
    _table = ("ranked", _flatten)

    def __init__(self, text_or_dict, search=None):
        super().__init__(text_or_dict)
        object.__setattr__(self, "_search", search)  # the C++ search, for emit(); None when read from JSON

    def emit(self, framework="megatron-lm"):
        """The winner's settings for a framework ("megatron-lm", "torchtitan", "deepspeed"), as
        ``paratune plan --emit``: the fastest ranked layout the framework runs (``winner_rank`` 1
        unless it refuses a faster one, which the first note names). Returns an Emitted."""
        if self._search is None:
            raise ValueError("emit() needs the plan returned by paratune.plan(), not one read from JSON")
        return Emitted(self._search.emit(framework))

    def __str__(self):
        lines = [
            f"paratune plan: {self._data['model']['name']} on {self._data['cluster']['gpus']} "
            f"{self._data['cluster']['gpu']}, {len(self._data['ranked'])} layouts ranked"
        ]
        for r in self._data["ranked"]:
            l = r["layout"]
            lines.append(
                f"  #{r['rank']:<3} tp {l['tp']} pp {l['pp']} vp {l['vp']} dp {l['dp']} cp {l['cp']} ep {l['ep']} zero {l['zero']} "
                f"mbs {l['micro_batch']} recompute {l['recompute']}  {r['tokens_per_s_per_gpu']:8.0f} tokens/s/GPU  step {r['step_time_s']:.3f} s"
            )
        return "\n".join(lines)


def _scalars(data):
    """The members of an object that are not lists, nested objects flattened (temporal.idle_s)."""
    return {k: v for k, v in _flatten(data).items() if not isinstance(v, list)}


# HTA's names for the temporal breakdown (hta/analyzers/breakdown_analysis.py,
# get_temporal_breakdown): its frame's columns, from the rank's `temporal` object.
_HTA_TEMPORAL = (
    ("idle_time(us)", "idle_s"),
    ("compute_time(us)", "compute_s"),
    ("non_compute_time(us)", "non_compute_s"),
    ("kernel_time(us)", "kernel_time_s"),
)
_HTA_TEMPORAL_PCT = (
    ("idle_time_pctg", "idle_pct"),
    ("compute_time_pctg", "compute_pct"),
    ("non_compute_time_pctg", "non_compute_pct"),
)


class Analysis(_Table):
    """Measured profiler traces (schema paratune.analyze/1): ``ranks`` (one per rank:
    ``temporal``, ``comm_overlap_pct``, ``top_kernels``, ``idle``, ``iterations``,
    ``collectives`` ...), ``cross_rank``, ``stragglers``, ``prediction`` ... as in docs/json.md.

    ``to_frame()`` is one row per rank (every figure that is not a list, nested names dotted);
    ``kernels()``, ``collectives()``, ``idle()``, ``iterations()``, ``categories()`` are the per-rank
    lists as one table with a ``rank`` column; ``temporal_breakdown()`` and
    ``comm_comp_overlap()`` are HTA's frames of the same names; ``trace_diff()`` and ``ops_diff()``
    HTA's TraceDiff when a diff was asked for; ``memory()`` and ``memory_peaks()`` the GPU memory
    timeline where the traces have memory events."""

    __slots__ = ()
    _table = ("ranks", _scalars)

    def _per_rank(self, field):
        rows = []
        for r in self._data["ranks"]:
            for item in r.get(field, ()):  # a list that joined the schema later: absent from older documents
                rows.append({"rank": r["rank"], **_scalars(item)})
        return _pandas().DataFrame(rows)

    def kernels(self):
        """The top kernels of every rank (``ranks[].top_kernels``), with a ``rank`` column."""
        return self._per_rank("top_kernels")

    def categories(self):
        """GPU time by kernel category per rank (``ranks[].categories``)."""
        return self._per_rank("categories")

    def collectives(self):
        """The collectives of every rank by kind (``ranks[].collectives``, groups left out)."""
        return self._per_rank("collectives")

    def idle(self):
        """Idle time per rank, stream and category (``ranks[].idle``, HTA's idle breakdown)."""
        return self._per_rank("idle")

    def iterations(self):
        """Every profiler step of every rank (``ranks[].iterations``)."""
        return self._per_rank("iterations")

    def queue_length(self):
        """HTA's ``get_queue_length_summary()``: per rank and stream the launch queue's points
        (``count``, ``mean``, ``stddev``, ``min``, ``p25``, ``p50``, ``p75``, ``max``) and
        ``time_weighted_mean`` (``ranks[].queue_length``)."""
        return self._per_rank("queue_length")

    def kernel_sequences(self):
        """HTA's ``get_frequent_cuda_kernel_sequences()`` (asked for with ``kernel_sequences=``):
        per rank the patterns, by count, of the GPU work the outermost operators of that name
        launch: ``pattern`` (the operator and the GPU events, "|"-joined as HTA writes it),
        ``count``, ``gpu_time_s``, ``cpu_time_s`` (``ranks[].kernel_sequences``)."""
        rows = []
        for r in self._data["ranks"]:
            for q in r.get("kernel_sequences", ()):
                rows.append({"rank": r["rank"], "pattern": "|".join(q["pattern"]), "count": q["count"],
                             "gpu_time_s": q["gpu_time_s"], "cpu_time_s": q["cpu_time_s"]})
        return _pandas().DataFrame(rows)

    def critical_path(self):
        """HTA's ``critical_path_analysis()`` + ``summary()`` (asked for with ``critical_path=``, the
        annotation, "" for the whole trace, and ``critical_path_instances``): per rank and bound
        (HTA's ``bound_by``: cpu_bound, gpu_compute_bound, gpu_communication_bound, ...) the
        ``time_s`` and ``pct`` of the path, with the path's ``length_s`` and, beyond HTA, the
        ``collective_wait_s`` of its collectives spent waiting for the last rank to arrive
        (``ranks[].critical_path``)."""
        rows = []
        for r in self._data["ranks"]:
            c = r.get("critical_path")
            if not c:
                continue
            for b in c["bound_by"]:
                rows.append({"rank": r["rank"], "bound": b["bound"], "time_s": b["time_s"], "pct": b["pct"],
                             "length_s": c["length_s"], "collective_wait_s": c["collective_wait_s"]})
        return _pandas().DataFrame(rows)

    def memory_bandwidth(self):
        """HTA's ``get_memory_bw_summary()``: per rank and kind of copy (``Memcpy HtoD``, ...,
        ``Memset``) the GB/s in flight while any copy runs: ``count``, ``mean_gbps``,
        ``stddev_gbps``, ``min_gbps``, ``p25_gbps``, ``p50_gbps``, ``p75_gbps``, ``max_gbps``
        (``ranks[].memory_bandwidth``)."""
        return self._per_rank("memory_bandwidth")

    def memory(self):
        """GPU memory over time from the profiler's memory events (``ranks[].memory.samples``): one
        row per sample, ``rank``, ``t_s``, ``allocated_bytes``, ``reserved_bytes`` (-1: unknown).
        Empty where the traces have no memory events (``torch.profiler(profile_memory=True)``)."""
        rows = []
        for r in self._data["ranks"]:
            m = r.get("memory")
            for sample in (m or {}).get("samples", []):
                rows.append({"rank": r["rank"], **sample})
        return _pandas().DataFrame(rows, columns=["rank", "t_s", "allocated_bytes", "reserved_bytes"])

    def memory_peaks(self):
        """The peak allocated memory of each rank over the trace (``step`` -1) and per ProfilerStep
        (``ranks[].memory.peak`` and ``.steps``): ``rank``, ``step``, ``allocated_bytes``,
        ``reserved_bytes``, ``at_s``, ``running`` (the operators running then, outermost first)."""
        rows = []
        for r in self._data["ranks"]:
            m = r.get("memory")
            if m:
                for p in [m["peak"], *m["steps"]]:
                    rows.append({"rank": r["rank"], **p})
        return _pandas().DataFrame(rows, columns=["rank", "step", "allocated_bytes", "reserved_bytes", "at_s", "running"])

    def trace_diff(self):
        """The trace diff (``analyze(..., diff_against=...)`` or ``diff_steps=...``): one row per
        operator or kernel name, ``name``, ``change``, ``control_count``, ``test_count``,
        ``control_total_s``, ``test_total_s``, ``diff_count``, ``diff_total_s`` (HTA's
        ``TraceDiff.compare_traces``, times in seconds). None without a diff."""
        d = self._data.get("trace_diff")
        return None if d is None else _pandas().DataFrame(d["ops"])

    def ops_diff(self):
        """HTA's ``TraceDiff.ops_diff``: the names by change, {"added": [...], "deleted": [...],
        "increased": [...], "decreased": [...], "unchanged": [...]}. None without a diff."""
        d = self._data.get("trace_diff")
        if d is None:
            return None
        out = {change: [] for change in d["counts"]}
        for op in d["ops"]:
            out[op["change"]].append(op["name"])
        return out

    def temporal_breakdown(self):
        """HTA's ``get_temporal_breakdown()`` frame: one row per rank, times in µs, shares in %
        rounded to 2 decimals as HTA rounds them (from ``ranks[].temporal``)."""
        rows = []
        for r in self._data["ranks"]:
            t = r["temporal"]
            row = {"rank": r["rank"]}
            row.update({hta: round(t[ours] * 1e6, 3) for hta, ours in _HTA_TEMPORAL})
            row.update({hta: round(t[ours], 2) for hta, ours in _HTA_TEMPORAL_PCT})
            rows.append(row)
        return _pandas().DataFrame(rows)

    def comm_comp_overlap(self):
        """HTA's ``get_comm_comp_overlap()`` frame: ``rank``, ``comp_comm_overlap_pctg`` (None
        where a rank has no communication)."""
        rows = []
        for r in self._data["ranks"]:
            v = r["comm_overlap_pct"]
            rows.append({"rank": r["rank"], "comp_comm_overlap_pctg": None if v is None else round(v, 2)})
        return _pandas().DataFrame(rows)

    def __str__(self):
        lines = [f"paratune analyze: {len(self._data['ranks'])} ranks, {self._data['events']} events"]
        for r in self._data["ranks"]:
            t = r["temporal"]
            lines.append(
                f"  rank {r['rank']:<4} compute {t['compute_pct']:5.1f}%  non-compute {t['non_compute_pct']:5.1f}%  "
                f"idle {t['idle_pct']:5.1f}%  kernel time {t['kernel_time_s']:.6f} s"
            )
        return "\n".join(lines)


class Simulation(_Table):
    """One simulated step (schema paratune.simulate/1): ``step_time_s``, ``pipeline_time_s``,
    ``stages`` (per pipeline rank: pass times, the simulated breakdown, in-flight micro-batches),
    ``time``, and with ``timeline=True`` every simulated event (``timeline``)."""

    __slots__ = ()
    _table = ("stages", _scalars)

    def events(self):
        """Every simulated event as a pandas DataFrame (stage, stream, phase, micro_batch, start_s,
        end_s); needs ``simulate(timeline=True)``."""
        t = self._data.get("timeline")
        if t is None:
            raise ValueError("no timeline: call paratune.simulate(timeline=True, ...)")
        return _pandas().DataFrame(t["events"], columns=t["columns"])

    def __str__(self):
        d = self._data
        return (f"paratune simulate: {d['model']} on {d['gpus']} {d['gpu']}, schedule {d['schedule']}, "
                f"{d['micro_batches']} micro-batches: step {d['step_time_s']:.3f} s")


class Diagnosis(_Table):
    """Findings about a run (schema paratune.diagnose/1): ``inputs`` (each file and its kind),
    ``rules``, ``findings`` ranked by the throughput they cost (``rule``, ``severity``,
    ``title``, ``message``, ``loss_fraction``, ``fix``, ``evidence``, ``where``). ``notes``: the
    lines about the inputs that the CLI prints on standard error."""

    __slots__ = ("notes",)
    _table = ("findings", _scalars)

    def __init__(self, text_or_dict, notes=()):
        super().__init__(text_or_dict)
        object.__setattr__(self, "notes", list(notes))

    def evidence(self):
        """Every finding's evidence as one table with a ``rule`` column."""
        rows = []
        for f in self._data["findings"]:
            for e in f["evidence"]:
                rows.append({"rule": f["rule"], **_scalars(e)})
        return _pandas().DataFrame(rows)

    def __str__(self):
        lines = [f"paratune diagnose: {len(self._data['findings'])} findings from {len(self._data['inputs'])} inputs"]
        for f in self._data["findings"]:
            loss = f.get("loss_fraction")
            cost = "" if loss is None else f" (~{100 * loss:.1f}% of throughput)"
            lines.append(f"  [{f['severity']}] {f['rule']}: {f['title']}{cost}")
        return "\n".join(lines)


class Validation(_Table):
    """Predicted against measured published runs (schema paratune.validate/1): ``rows`` (one per
    run: ``id``, ``measured_tokens_per_s_per_gpu``, ``predicted_tokens_per_s_per_gpu``, ``ape``,
    ``assumptions`` ...), ``overall``, ``groups``, ``ranking``, ``memory``, ``step_time``."""

    __slots__ = ()
    _table = ("rows", _flatten)

    @property
    def rows(self):
        """The document's ``rows`` (one per run), as its other members read."""
        return _wrap(self._data["rows"])

    def groups(self):
        """The error statistics by group (``dimension``, ``value``, then ``stats.*``)."""
        return _pandas().DataFrame([_flatten(g) for g in self._data["groups"]])

    def __str__(self):
        o = self._data["overall"]
        modelled = sum(1 for r in self._data["rows"] if r["predicted"])
        return (f"paratune validate: {self._data['file']}: {modelled} of {len(self._data['rows'])} rows modelled, "
                f"MAPE {100 * o['mape']:.1f}%, P90 {100 * o['p90_ape']:.1f}%")


class ClusterReplay(_Table):
    """A job trace replayed under scheduling policies (schema paratune.cluster/1): ``cluster``,
    ``trace``, ``policies`` (one per policy: utilisation, queue delay and JCT percentiles,
    preemptions, fragmentation, ``by_class`` ...). ``jobs_csv`` and ``series_csv``: the texts of
    ``--jobs-out`` and ``--series``."""

    __slots__ = ("jobs_csv", "series_csv")
    _table = ("policies", _scalars)

    def __init__(self, text_or_dict, jobs_csv="", series_csv=""):
        super().__init__(text_or_dict)
        object.__setattr__(self, "jobs_csv", jobs_csv)
        object.__setattr__(self, "series_csv", series_csv)

    def jobs(self):
        """One row per job and policy, as ``--jobs-out`` writes them (needs pandas)."""
        return _pandas().read_csv(io.StringIO(self.jobs_csv))

    def series(self):
        """The sampled time series per policy (utilisation, queue, fragmentation), as
        ``--series`` writes them (needs pandas)."""
        return _pandas().read_csv(io.StringIO(self.series_csv))

    def __str__(self):
        lines = [f"paratune cluster: {self._data['trace']['jobs']} jobs on {self._data['cluster']['gpus']} GPUs"]
        for p in self._data["policies"]:
            lines.append(f"  {p['policy']:<14} utilisation {100 * p['utilization']:5.1f}%  "
                         f"queue p99 {p['queue_delay_s']['p99']:.0f} s  preemptions {p['preemptions']}")
        return "\n".join(lines)


class RunList(_Table):
    """Recorded runs, newest first (schema paratune.runs.list/1): ``runs``, ``total``."""

    __slots__ = ()
    _table = ("runs", _flatten)


class Emitted(Result):
    """Framework settings for a layout (schema paratune.emit/1): ``framework``, ``text`` (the
    file's contents) and ``notes`` (what the framework cannot express)."""

    __slots__ = ()

    def __str__(self):
        return self._data["text"]
