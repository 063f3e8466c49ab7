# paratune.plan(): the ranking of `paratune plan --json`, the GIL released while it searches.
import _thread
import json
import threading
import time

import pytest

import paratune
from paratune import _paratune


def test_default_plan_is_the_clis(cli):
    p = paratune.plan()
    doc = cli.json("plan", "--quiet")
    assert p.to_dict() == doc
    assert [r.layout.to_dict() for r in p.ranked] == [r["layout"] for r in doc["ranked"]]
    assert p.schema == "paratune.plan/1" and len(p.ranked) == 10


def test_pinned_and_bounded_plan_is_the_clis(cli):
    p = paratune.plan(model="llama-3.1-8b", gpu="H100", gpus=16, pp=1, max_tp=4, top=5, objective="memory")
    doc = cli.json("plan", "--quiet", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", 16, "--pp", 1,
                   "--max-tp", 4, "--top", 5, "--objective", "memory")
    assert p.to_dict() == doc
    assert all(r.layout.pp == 1 and r.layout.tp <= 4 for r in p.ranked)


def test_plan_with_a_training_budget_is_the_clis(cli):
    p = paratune.plan(top=3, train_tokens=1e12, gpu_hour_price=3)
    assert p.to_dict() == cli.json("plan", "--quiet", "--top", 3, "--train-tokens", "1e12", "--gpu-hour-price", 3)


def test_sweep_is_the_clis(cli):
    p = paratune.plan(model="llama-3.1-8b", gpu="H100", gpus=16, top=2, sweep="tp")
    doc = cli.json("plan", "--quiet", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", 16, "--top", 2,
                   "--sweep", "tp")
    assert p.to_dict() == doc
    assert p.sweep is not None and len(p.sweep.points) >= 3
    with pytest.raises(paratune.InputError) as e:
        paratune.plan(top=1, sweep="nonsense")
    assert str(e.value) == cli.error("plan", "--quiet", "--top", 1, "--sweep", "nonsense")


def test_rows_flatten_the_ranking():
    rows = paratune.plan(top=3).rows()
    assert len(rows) == 3 and [r["rank"] for r in rows] == [1, 2, 3]
    assert "layout.tp" in rows[0] and "step_time_s" in rows[0]


def test_to_frame_needs_pandas():
    p = paratune.plan(top=2)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            p.to_frame()
        return
    frame = p.to_pandas()
    assert list(frame["rank"]) == [1, 2]


def test_progress_callback_is_called():
    calls = []
    paratune.plan(progress=lambda what, done, total: calls.append((what, done, total)))
    assert calls and all(isinstance(w, str) and d >= 0 for w, d, _ in calls)


def test_progress_callback_exception_stops_the_search_and_is_raised():
    calls = []

    def fail(what, done, total):
        calls.append((what, done))
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        paratune.plan(progress=fail)
    # The search stopped at the first report: the first branch's layouts, before any estimate.
    assert len(calls) == 1 and calls[0][0] == "planning, layouts considered" and calls[0][1] > 0, calls
    assert len(paratune.plan(top=2).ranked) == 2  # and the next one runs


LONG_PLAN = {"model": "deepseek-v3", "gpus": 2048, "precision": "any"}  # about 2,000 layouts, 1-2 s


def test_ctrl_c_stops_the_search():
    full = paratune.plan(**LONG_PLAN).search.estimated
    seen = []
    timer = threading.Timer(0.05, _thread.interrupt_main)  # what Ctrl-C does
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            paratune.plan(progress=lambda what, done, total: seen.append(what), **LONG_PLAN)
    finally:
        timer.cancel()
    # Raised by plan() while it searched (at its next report), not after it finished: most often
    # while it enumerated the layouts (a report per branch), before any estimate.
    estimated = seen.count("planning, layouts estimated")
    assert estimated < full / 2, (estimated, full)
    assert set(seen) <= {"planning, layouts considered", "planning, layouts estimated"}, set(seen)


def test_another_thread_runs_while_plan_searches():
    stamps = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            stamps.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    try:
        time.sleep(0.05)
        t0 = time.monotonic()
        # The C++ call alone (about 0.7 s): with the GIL held no stamp could fall inside it.
        _paratune.plan({"model": "qwen3-30b-a3b", "gpus": 256, "precision": "any"})
        t1 = time.monotonic()
    finally:
        done.set()
        t.join()
    inside = [s for s in stamps if t0 < s < t1]
    assert t1 - t0 > 0.01, "the plan was too fast to tell"
    assert len(inside) >= 3, (len(inside), t1 - t0)


def test_emit_writes_what_plan_emit_writes(cli, tmp_path):
    p = paratune.plan(model="llama-3.1-8b", gpu="H100", nodes=2)
    em = p.emit("torchtitan")
    out = tmp_path / "job.toml"
    r = cli.run("plan", "--model", "llama-3.1-8b", "--gpu", "H100", "--nodes", 2, "--emit", "torchtitan", "--emit-out", out)
    assert r.returncode == 0, r.stderr
    assert em.schema == "paratune.emit/1" and em.framework == "torchtitan" and em.winner_rank == 1
    assert em.text == out.read_text()
    assert "tensor_parallel_degree = %d" % p.winner.layout.tp in em.text
    with pytest.raises(ValueError, match="paratune.plan()"):
        paratune.Plan(p.to_json()).emit()  # a plan read back from JSON has no search to emit from


def test_emit_names_the_faster_layout_the_framework_refuses(cli, tmp_path):
    # DeepSpeed's pipeline engine refuses ZeRO-2/3 with pp > 1 (emit/emit.cc): the two fastest
    # layouts of 405B on 128 B300 at pp 2 are ZeRO-3, the third ZeRO-1.
    args = ("--model", "llama-3.1-405b", "--gpu", "B300", "--nodes", 16, "--pp", 2)
    p = paratune.plan(model="llama-3.1-405b", gpu="B300", nodes=16, pp=2)
    assert [r.layout.zero for r in p.ranked[:3]] == [3, 3, 1]
    em = p.emit("deepspeed")
    out = tmp_path / "ds.json"
    r = cli.run("plan", *args, "--emit", "deepspeed", "--emit-out", out)
    assert r.returncode == 0, r.stderr
    assert em.winner_rank == 3 and em.text == out.read_text()
    assert json.loads(em.text)["zero_optimization"]["stage"] == 1
    cli_notes = [l[len("paratune: note: "):] for l in r.stderr.splitlines() if l.startswith("paratune: note: ")]
    assert em.notes == cli_notes and em.notes[0].startswith("layout #1 cannot be emitted for deepspeed (DeepSpeed's pipeline")
    with pytest.raises(paratune.InputError) as e:
        p.emit("llm-foundry")
    assert str(e.value) == cli.error("plan", *args, "--emit", "llm-foundry", "--emit-out", tmp_path / "x.yaml")
