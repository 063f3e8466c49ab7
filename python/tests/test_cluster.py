# paratune.cluster.replay(): the document of `paratune cluster --json`, the per-job and series
# CSVs of --jobs-out and --series, and their tables.
import pytest

import paratune
from conftest import shared_or_skip

pandas = pytest.importorskip("pandas", reason="pandas (Debian python3-pandas) is not installed")

# The hand-made native trace of src/cli/cluster_cli_test.cc: a production job preempts an
# experimental one on one 8-GPU node, then a 4-GPU job.
TRACE = ("name,submit_s,gpus,run_s,class,checkpoint_interval_s,restart_overhead_s\n"
         "exp,0,8,10000,experimental,1000,100\n"
         "prod,7500,8,2000,production,1000,100\n"
         "small,20000,4,100,experimental,,\n")


def test_replay_is_the_clis_with_its_tables(cli, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    r = paratune.cluster.replay(trace, nodes=1, gpu="H100", policy="topo,topo-preempt", min_run=3600)
    jobs_out, series_out = tmp_path / "jobs.csv", tmp_path / "series.csv"
    doc = cli.json("cluster", "--trace", trace, "--nodes", 1, "--gpu", "H100", "--policy", "topo,topo-preempt",
                   "--min-run", 3600, "--jobs-out", jobs_out, "--series", series_out)
    assert r.to_dict() == doc
    assert r.jobs_csv == jobs_out.read_text() and r.series_csv == series_out.read_text()
    assert isinstance(r, paratune.ClusterReplay) and r.schema == "paratune.cluster/1"
    frame = r.to_frame()
    assert list(frame["policy"]) == ["topo", "topo-preempt"]
    assert list(frame["preemptions"]) == [0, 1]  # the production job preempts under topo-preempt only
    assert frame["lost_gpu_hours"].iloc[1] == pytest.approx(4000.0 / 3600, rel=1e-12)
    assert list(frame["by_class.production.queue_delay_s.p99"]) == [2500, 0]  # prod waits for exp's node under topo
    jobs = r.jobs()
    assert len(jobs) == 6 and set(jobs["policy"]) == {"topo", "topo-preempt"}
    assert len(r.series()) > 0


def test_philly_trace_is_the_clis(cli):
    philly = shared_or_skip("cluster-traces/philly-pollux/philly.csv")
    r = paratune.cluster.replay(philly, nodes=8, gpu="H100", policy="fifo")
    assert r.to_dict() == cli.json("cluster", "--trace", philly, "--nodes", 8, "--gpu", "H100", "--policy", "fifo",
                                   "--quiet")
    assert r.trace.jobs > 100


def test_bad_input_is_the_clis_line(cli, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    for kwargs, flags in (({}, []),
                          ({"nodes": 1, "cluster": tmp_path / "c.toml"}, ["--nodes", 1, "--cluster", tmp_path / "c.toml"]),
                          ({"nodes": 1, "policy": "fifo,fifo"}, ["--nodes", 1, "--policy", "fifo,fifo"]),
                          ({"nodes": 1, "model": "no-such-model"}, ["--nodes", 1, "--model", "no-such-model"]),
                          ({"nodes": 1, "locality": "sticky"}, ["--nodes", 1, "--locality", "sticky"])):
        with pytest.raises(paratune.InputError) as e:
            paratune.cluster.replay(trace, **kwargs)
        assert str(e.value) == cli.error("cluster", "--trace", trace, *flags)
    with pytest.raises(TypeError, match="unexpected keyword argument 'tp'"):
        paratune.cluster.replay(trace, nodes=1, tp=2)
