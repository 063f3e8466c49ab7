# paratune.analyze(): the same document as `paratune analyze --json`, its tables figure for figure,
# and HTA's temporal breakdown and overlap from Python (the reference outputs of HTA itself,
# ../shared/traces/hta_reference, the same cases as src/analysis/trace_analysis_test.cc).
import gzip
import json
import math
import os
import subprocess
import sys
import threading
import time
import _thread

import pytest

import paratune
from conftest import CLI_ENV, SANITIZER_BUILD, SOURCE_DIR, shared_or_skip

pandas = pytest.importorskip("pandas", reason="pandas (Debian python3-pandas) is not installed")

# reference under traces/hta_reference -> the trace files under traces/ it was computed from
HTA_CASES = {
    "hta/trace_filter/sampled_ranks_0_1.json": ["hta/trace_filter/sampled_rank-0.json.gz",
                                                "hta/trace_filter/sampled_rank-1.json.gz"],
    "hta/nccl_parser_config/nccl_data.json.gz.json": ["hta/nccl_parser_config/nccl_data.json.gz"],
    "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz.json":
        ["hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"],
    "kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz.json":
        ["kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz"],
}


def case(reference):
    ref = json.loads(shared_or_skip("traces/hta_reference/" + reference).read_text())
    return ref, [shared_or_skip("traces/" + t) for t in HTA_CASES[reference]]


@pytest.mark.parametrize("reference", sorted(HTA_CASES))
def test_temporal_breakdown_and_overlap_are_htas(reference):
    ref, traces = case(reference)
    a = paratune.analyze(traces)
    frame = a.temporal_breakdown()
    expected = ref["calls"]["get_temporal_breakdown(visualize=False)"]
    assert list(frame.columns) == expected["columns"]
    assert len(frame) == len(expected["records"])
    for got, want in zip(frame.to_dict("records"), expected["records"]):
        assert got["rank"] == want["rank"]
        for column in expected["columns"][1:5]:  # µs
            assert got[column] == pytest.approx(want[column], abs=1e-3), column
        for column in expected["columns"][5:]:  # %, rounded to 2 decimals as HTA does
            assert got[column] == want[column], column
    overlap = {r["rank"]: r["comp_comm_overlap_pctg"] for r in ref["calls"]["get_comm_comp_overlap(visualize=False)"]["records"]}
    for got in a.comm_comp_overlap().to_dict("records"):
        want = overlap[got["rank"]]
        if want is None:
            assert got["comp_comm_overlap_pctg"] is None or math.isnan(got["comp_comm_overlap_pctg"])
        else:
            assert got["comp_comm_overlap_pctg"] == want


def flat_equal(got, want):
    if want is None:
        return got is None or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, bool):
        return bool(got) == want
    return got == want


def test_document_and_tables_are_the_clis_figure_for_figure(cli):
    _, traces = case("hta/trace_filter/sampled_ranks_0_1.json")
    a = paratune.analyze(traces)
    doc = cli.json("analyze", "--quiet", *traces)
    assert a.to_dict() == doc
    assert a.schema == "paratune.analyze/1" and isinstance(a, paratune.Analysis)
    frame = a.to_pandas()
    assert list(frame["rank"]) == [r["rank"] for r in doc["ranks"]] == [0, 1]
    checked = 0
    for i, rank in enumerate(doc["ranks"]):
        want = {}
        stack = [("", rank)]
        while stack:
            prefix, obj = stack.pop()
            for k, v in obj.items():
                if isinstance(v, dict):
                    stack.append((prefix + k + ".", v))
                elif not isinstance(v, list):
                    want[prefix + k] = v
        assert set(frame.columns) == set(want)
        for column, value in want.items():
            assert flat_equal(frame.iloc[i][column], value), (column, frame.iloc[i][column], value)
            checked += 1
    assert checked > 40  # temporal, overlap, launch, step_time ... of both ranks
    kernels = a.kernels()
    assert len(kernels) == sum(len(r["top_kernels"]) for r in doc["ranks"])
    assert list(kernels["sum_s"]) == [k["sum_s"] for r in doc["ranks"] for k in r["top_kernels"]]
    assert set(kernels["rank"]) == {0, 1}
    idle = a.idle()
    assert list(idle["idle_s"]) == [x["idle_s"] for r in doc["ranks"] for x in r["idle"]]
    collectives = a.collectives()
    assert list(collectives["kind"]) == [c["kind"] for r in doc["ranks"] for c in r["collectives"]]
    iterations = a.iterations()
    assert list(iterations["step"]) == [s["step"] for r in doc["ranks"] for s in r["iterations"]]


def test_options_and_prediction_are_the_clis(cli):
    _, traces = case("hta/nccl_parser_config/nccl_data.json.gz.json")
    a = paratune.analyze(traces[0], exact_ns=True, top=3, model="llama-3.1-8b", gpu="H100", gpus=8, tp=8)
    doc = cli.json("analyze", "--quiet", "--exact-ns", "--top", 3, "--model", "llama-3.1-8b", "--gpu", "H100",
                   "--gpus", 8, "--tp", 8, traces[0])
    assert a.to_dict() == doc
    assert a.options.hta_rounding is False
    assert a.prediction is not None and a.prediction.predicted_step_time_s > 0
    assert a.link_ceiling is not None and a.link_ceiling.gpu == "H100"
    assert all(len(r.top_kernels) <= 3 * len(r.kernel_types) for r in a.ranks)


def test_bad_input_raises_the_clis_message(cli, tmp_path):
    broken = tmp_path / "rank0.json"
    broken.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": ')
    with pytest.raises(paratune.InputError) as e:
        paratune.analyze(broken)
    assert str(e.value) == cli.error("analyze", "--quiet", broken)
    assert str(broken) in str(e.value)
    with pytest.raises(paratune.InputError) as e:
        paratune.analyze(tmp_path / "missing.json")
    assert str(e.value) == cli.error("analyze", "--quiet", tmp_path / "missing.json")
    _, traces = case("hta/nccl_parser_config/nccl_data.json.gz.json")
    with pytest.raises(paratune.InputError) as e:
        paratune.analyze(traces, rank=7)
    assert str(e.value) == cli.error("analyze", "--quiet", "--rank", 7, *traces)
    with pytest.raises(paratune.InputError) as e:
        paratune.analyze(traces, top=0)
    assert str(e.value) == "--top 0: kernels listed per type must be 1 to 1000"
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_tp'"):
        paratune.analyze(traces, max_tp=2)  # a plan keyword


def test_progress_callback_sees_the_files_and_its_exception_stops_the_call():
    _, traces = case("hta/trace_filter/sampled_ranks_0_1.json")
    seen = []
    paratune.analyze(traces, threads=1, progress=lambda what, done, total: seen.append((what, done, total)))
    assert seen and seen[-1][1:] == (2, 2) and "trace" in seen[-1][0]

    class Stop(Exception):
        pass

    def stop(what, done, total):
        raise Stop(what)

    for threads in (1, 2):  # a report from a reading thread, too
        with pytest.raises(Stop):
            paratune.analyze(traces, threads=threads, progress=stop)


@pytest.fixture(scope="module")
def one_gb_trace(tmp_path_factory):
    """A 1 GB Kineto trace of one rank (rank 0 of 8, FSDP) from the project's trace generator
    (tools/gen_kineto_trace; CTest passes its path as PARATUNE_GEN_TRACE), deleted afterwards so
    that pytest's kept temporary directories do not hold it."""
    gen = os.environ.get("PARATUNE_GEN_TRACE")
    if not gen:
        pytest.skip("PARATUNE_GEN_TRACE is not set (CTest sets it where PARATUNE_BUILD_TOOLS is ON)")
    trace = tmp_path_factory.mktemp("large") / "rank0.json"
    subprocess.run([gen, "--out", str(trace), "--bytes", "1050M"], check=True, stdout=subprocess.DEVNULL,
                   timeout=300, env=CLI_ENV)
    assert trace.stat().st_size >= 1e9
    yield trace
    trace.unlink()


PEAK_RSS = """
import resource, sys
sys.path.insert(0, sys.argv[2])
import paratune
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
paratune.analyze(sys.argv[1], threads=1)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(before, after)
"""


@pytest.mark.skipif(SANITIZER_BUILD, reason="ASan's shadow memory and quarantine distort peak RSS; the release run asserts it")
def test_a_1_gb_trace_costs_no_more_memory_from_python_than_from_the_cli(cli, one_gb_trace):
    trace = one_gb_trace
    package = os.path.dirname(os.path.dirname(paratune.__file__))
    out = subprocess.run([sys.executable, "-c", PEAK_RSS, str(trace), package], capture_output=True, text=True,
                         timeout=600, check=True).stdout.split()
    before_kib, after_kib = int(out[0]), int(out[1])
    python_kib = after_kib - before_kib  # what analyze() added to the interpreter's peak
    r = subprocess.run([sys.executable, "-c",
                        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
                        "stdout=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
                        cli.binary, "analyze", "--quiet", "--threads", "1", "--json", str(trace)],
                       # glibc's malloc defaults, as the interpreter has them: the command line would
                       # otherwise start itself again with its large-heap tunables (util/malloc_tuning.h)
                       capture_output=True, text=True, timeout=600, check=True, env={**CLI_ENV, "GLIBC_TUNABLES": ""})
    cli_kib = int(r.stdout.strip())
    assert python_kib > 0 and cli_kib > 0
    assert python_kib <= cli_kib * 1.05, (python_kib, cli_kib)


def test_ctrl_c_stops_reading_a_large_file_within_a_second(one_gb_trace):
    # The reader reports every 4 MB (trace_set.cc ReadingProgress), where Ctrl-C is seen: the
    # 1 GB file takes 2 s from Python in the release build (more under the sanitizers).
    seen = []
    timer = threading.Timer(0.3, _thread.interrupt_main)  # what Ctrl-C does
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            paratune.analyze(one_gb_trace, threads=1, progress=lambda what, done, total: seen.append((what, done, total)))
    finally:
        timer.cancel()
    stopped_s = time.monotonic() - start - 0.3
    assert stopped_s < 1.0, stopped_s
    # Stopped while reading the one file: megabytes reported, the file never finished.
    assert seen and all(what == "reading traces, MB" for what, _, _ in seen), seen[-3:]
    total_mb = one_gb_trace.stat().st_size >> 20
    assert all(total == total_mb for _, _, total in seen) and seen[-1][1] < total_mb, seen[-1]


def test_trace_out_writes_the_clis_reduced_trace(cli, tmp_path):
    traces = sorted(str(p) for p in (SOURCE_DIR / "testdata/traces/hta/trace_filter").glob("*.json.gz"))
    assert len(traces) == 2
    a = paratune.analyze(traces, trace_out=tmp_path / "py.json")
    r = cli.run("analyze", "--quiet", "--json", "--trace-out", tmp_path / "cli.json", *traces)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert a.to_dict() == json.loads(r.stdout)
    reduced = json.loads((tmp_path / "py.json").read_text())
    assert {e["pid"] for e in reduced["traceEvents"] if e.get("ph") == "X"} == {0, 1}  # one process per rank
    # An input is never overwritten; "-" is the CLI's standard output.
    with pytest.raises(paratune.InputError) as e:
        paratune.analyze(traces, trace_out=traces[0])
    assert str(e.value) == cli.error("analyze", "--quiet", "--trace-out", traces[0], *traces)
    with pytest.raises(paratune.InputError, match="--trace-out: give a file path"):
        paratune.analyze(traces, trace_out="-")


# HTA's TraceDiff test (tests/test_trace_diff.py at f4d0062) on its fixtures in testdata/: the same
# document as the CLI's, and HTA's ops_diff for the CPU operators of ProfilerStep#1010.
def test_trace_diff_is_the_clis_and_htas(cli):
    compare = SOURCE_DIR / "testdata" / "traces" / "hta" / "trace_compare"
    a = paratune.analyze(compare / "test", diff_against=compare / "base", diff_steps=1010, diff_device="cpu")
    doc = cli.json("analyze", "--quiet", compare / "test", "--diff-against", compare / "base", "--diff-steps", 1010,
                   "--diff-device", "cpu")
    assert a.to_dict() == doc
    assert a.ops_diff() == {
        "added": ["AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"],
        "deleted": ["nccl:all_reduce"],
        "increased": [],
        "decreased": [],
        "unchanged": ["ProfilerStep#1010", "aten::as_strided", "aten::empty", "cudaEventQuery", "cudaLaunchKernel"],
    }
    frame = a.trace_diff().set_index("name")
    assert frame.loc["nccl:all_reduce", "control_total_s"] == pytest.approx(67e-6)
    assert paratune.analyze(compare / "base").trace_diff() is None
    with pytest.raises(paratune.InputError) as e:
        paratune.analyze(compare / "base", diff_steps="1009:1011")
    assert str(e.value) == cli.error("analyze", "--quiet", compare / "base", "--diff-steps", "1009:1011")


# The memory timeline from the profiler's memory events (hta/df_index_resolver: 26,770 events on
# CUDA device 1; the figures of src/analysis/memory_timeline_test.cc, from the raw JSON).
def test_memory_timeline_frames(cli):
    trace = shared_or_skip("traces/hta/df_index_resolver/df_index_resolver.json.gz")
    a = paratune.analyze(trace)
    assert a.to_dict() == cli.json("analyze", "--quiet", trace)
    peaks = a.memory_peaks()
    assert list(peaks["step"]) == [-1, 2, 3, 4, 5, 6]
    assert (peaks["allocated_bytes"] == 6629508096).all()
    assert peaks["running"][0][-1] == "aten::empty"
    samples = a.memory()
    assert 0 < len(samples) <= 512
    assert samples["allocated_bytes"].max() == 6629508096
    assert samples["reserved_bytes"].max() == 12782141440


# HTA's launch queue per stream on hta/negative_queue_length_values_check (the figures of
# src/analysis/queue_length_test.cc): 6 streams, none negative, stream 7 up to 946 waiting.
def test_queue_length_frame():
    a = paratune.analyze(shared_or_skip("traces/hta/negative_queue_length_values_check/rank0.json.gz"))
    q = a.queue_length().set_index("stream")
    assert len(q) == 6
    assert (q["min"] >= 0).all()
    assert q.loc[7, "max"] == 946 and q.loc[7, "count"] == 9680
    bw = a.memory_bandwidth()
    assert list(bw["kind"]) == ["Memcpy DtoD", "Memcpy DtoH", "Memcpy HtoD", "Memset"]  # HTA's test: 4 kinds
    assert bw["count"].tolist() == [912, 24, 64, 200]


# A document written before queue_length and memory_bandwidth joined the schema (from the run
# registry, say): their frames are empty, not a KeyError.
def test_older_documents_have_empty_new_frames():
    a = paratune.analyze(SOURCE_DIR / "testdata" / "traces" / "hta" / "trace_compare" / "base")
    doc = a.to_dict()
    for r in doc["ranks"]:
        del r["queue_length"], r["memory_bandwidth"]
    old = paratune.Analysis(doc)
    assert old.queue_length().empty and old.memory_bandwidth().empty
    assert not a.queue_length().empty


# HTA's frequent kernel sequences on df_index_resolver (src/analysis/kernel_sequences_test.cc):
# none for aten::clone (HTA's own test); the five optimizer steps launch one pattern, five times.
def test_kernel_sequences_frame():
    path = shared_or_skip("traces/hta/df_index_resolver/df_index_resolver.json.gz")
    assert paratune.analyze(path, kernel_sequences="aten::clone").kernel_sequences().empty
    q = paratune.analyze(path, kernel_sequences="Optimizer.step").kernel_sequences()
    assert len(q) == 1 and q["count"][0] == 5
    assert q["pattern"][0].startswith("Optimizer.step#SGD.step|")
    with pytest.raises(paratune.InputError, match="min-sequence-length 0"):
        paratune.analyze(path, kernel_sequences="x", min_sequence_length=0)


# HTA's critical path of simple_add's second forward (src/analysis/critical_path_test.cc: 159
# events on it, as HTA's test): nearly all of it CPU-bound; a bad instance range is an InputError.
def test_critical_path_frame():
    path = SOURCE_DIR / "testdata" / "traces" / "hta" / "critical_path" / "simple_add.json.gz"
    a = paratune.analyze(path, critical_path="[param|pytorch.model.alex_net|0|0|0|measure|forward]",
                         critical_path_instances=1)
    c = a.critical_path()
    assert set(c["bound"]) >= {"cpu_bound", "gpu_compute_bound"}
    assert abs(c["pct"].sum() - 100) < 1e-6
    assert a.to_dict()["ranks"][0]["critical_path"]["path_events"] == 159
    assert paratune.analyze(path).critical_path().empty
    with pytest.raises(paratune.InputError, match="critical-path-instances 2-1"):
        paratune.analyze(path, critical_path="", critical_path_instances="2-1")
