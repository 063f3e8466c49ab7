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
    doc = cli.json("cluster", "--job-history", trace, "--nodes", 1, "--gpu", "H100", "--policy", "topo,topo-preempt",
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
    assert r.to_dict() == cli.json("cluster", "--job-history", philly, "--nodes", 8, "--gpu", "H100", "--policy", "fifo",
                                   "--quiet")
    assert r.trace.jobs > 100


def test_bad_input_is_the_clis_line(cli, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    for kwargs, flags in (({}, []),
                          ({"nodes": 1, "topology": tmp_path / "c.toml"}, ["--nodes", 1, "--topology", tmp_path / "c.toml"]),
                          ({"nodes": 1, "policy": "fifo,fifo"}, ["--nodes", 1, "--policy", "fifo,fifo"]),
                          ({"nodes": 1, "model": "no-such-model"}, ["--nodes", 1, "--model", "no-such-model"]),
                          ({"nodes": 1, "locality": "sticky"}, ["--nodes", 1, "--locality", "sticky"])):
        with pytest.raises(paratune.InputError) as e:
            paratune.cluster.replay(trace, **kwargs)
        assert str(e.value) == cli.error("cluster", "--job-history", trace, *flags)
    with pytest.raises(TypeError, match="unexpected keyword argument 'tp'"):
        paratune.cluster.replay(trace, nodes=1, tp=2)


def test_old_keywords_trace_and_cluster_still_work_with_a_warning(tmp_path):
    # Renamed with the CLI's --trace and --cluster (issue 38): job_history= and topology=.
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    topology = tmp_path / "c.toml"
    topology.write_text('[[nodes]]\ncount = 2\ngpu = "H100"\n')
    new = paratune.cluster.replay(job_history=trace, topology=topology, policy="fifo,topo")
    with pytest.warns(DeprecationWarning) as caught:
        old = paratune.cluster.replay(trace=trace, cluster=topology, policy="fifo,topo")
    assert old.to_dict() == new.to_dict() and old.jobs_csv == new.jobs_csv
    assert sorted(str(w.message) for w in caught) == ["replay(): cluster= is deprecated; use topology=",
                                                        "replay(): trace= is deprecated; use job_history="]
    assert all(w.filename == __file__ for w in caught)  # the warning names the caller's line
    with pytest.raises(TypeError, match="got both job_history and its old name trace"):
        paratune.cluster.replay(trace, trace=trace, nodes=1)
    with pytest.raises(TypeError, match="got both topology and its old name cluster"):
        paratune.cluster.replay(trace, topology=topology, cluster=topology)
    with pytest.raises(TypeError, match="missing the job trace"):
        paratune.cluster.replay(nodes=1)


# The Slurm history with time limits of src/cli/cluster_cli_test.cc (SlurmConfAndItsWhatIfSideBySide):
# under its slurm.conf the replay gives the recorded waits (mean 756.25 s); without backfill 1,248.5 s.
SACCT = ("JobID|Partition|Submit|Eligible|Start|End|State|AllocTRES|Timelimit\n"
         "1|gpu|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:16:40|COMPLETED|gres/gpu=4|00:16:40\n"
         "2|gpu|2026-03-01T10:00:01|2026-03-01T10:00:01|2026-03-01T10:16:40|2026-03-01T10:33:20|COMPLETED|gres/gpu=8|00:16:40\n"
         "3|gpu|2026-03-01T10:00:02|2026-03-01T10:00:02|2026-03-01T10:33:20|2026-03-01T10:41:40|COMPLETED|gres/gpu=4|00:33:20\n"
         "4|gpu|2026-03-01T10:00:03|2026-03-01T10:00:03|2026-03-01T10:00:31|2026-03-01T10:08:51|COMPLETED|gres/gpu=4|00:15:00\n")


def test_slurm_qos_is_the_clis(cli, tmp_path):
    history, conf, qos = tmp_path / "sacct.txt", tmp_path / "slurm.conf", tmp_path / "qos.txt"
    history.write_text(SACCT)
    conf.write_text("PreemptType=preempt/qos\nPreemptMode=REQUEUE\nPartitionName=gpu Default=YES\n")
    qos.write_text("Name|Preempt|PreemptMode\nnormal||cluster\n")
    r = paratune.cluster.replay(history, nodes=1, gpu="H100", policy="slurm", slurm_conf=conf, slurm_qos=qos)
    assert r.to_dict() == cli.json("cluster", "--job-history", history, "--nodes", 1, "--gpu", "H100", "--policy",
                                   "slurm", "--slurm-conf", conf, "--slurm-qos", qos)
    qos.write_text("Name|Preempt|PreemptMode\nnormal||suspend\n")
    with pytest.raises(paratune.InputError, match="qos.txt:2: PreemptMode=suspend"):
        paratune.cluster.replay(history, nodes=1, policy="slurm", slurm_conf=conf, slurm_qos=qos)


def test_slurm_conf_and_what_if_are_the_clis(cli, tmp_path):
    history, conf = tmp_path / "sacct.txt", tmp_path / "slurm.conf"
    history.write_text(SACCT)
    conf.write_text("SchedulerParameters=bf_interval=30\nPartitionName=gpu Default=YES\n")
    r = paratune.cluster.replay(history, nodes=1, gpu="H100", policy="slurm", slurm_conf=conf,
                                slurm_what_if="SchedulerType=sched/builtin")
    assert r.to_dict() == cli.json("cluster", "--job-history", history, "--nodes", 1, "--gpu", "H100", "--policy",
                                   "slurm", "--slurm-conf", conf, "--slurm-what-if", "SchedulerType=sched/builtin")
    frame = r.to_frame()
    assert list(frame["policy"]) == ["slurm", "slurm[SchedulerType=sched/builtin]"]
    assert list(frame["queue_delay_s.mean"]) == [756.25, 1248.5]
    with pytest.raises(paratune.InputError, match="changes the jobs' priorities or partitions"):
        paratune.cluster.replay(history, nodes=1, policy="slurm", slurm_conf=conf,
                                slurm_what_if=["TopologyPlugin=topology/tree", "PriorityWeightAge=9"])
