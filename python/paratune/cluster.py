"""paratune.cluster: shared-cluster scheduling replay, as ``paratune cluster``.

    import paratune
    r = paratune.cluster.replay("philly.csv", nodes=64, gpu="H100", policy="fifo,topo-preempt")
    r.to_frame()      # one row per policy: utilisation, queue delay, JCT, preemptions ...
    r.jobs()          # one row per job and policy (placement, slowdown, losses)
"""

import io
import os

from . import _paratune
from ._renamed import take_renamed
from ._result import ClusterReplay

__all__ = ["replay", "ClusterReplay"]


def replay(job_history=None, *, progress=None, **options):
    """Replay a job trace on a shared GPU cluster under scheduling policies, as
    ``paratune cluster --json``.

    job_history: the job trace (Philly-derived CSV, Alibaba v2023 pod list, or native CSV; .gz
    too), as --job-history. The cluster: nodes (of gpu's reference system, default B300) or
    topology (a cluster TOML or an Alibaba v2023 node list), as --topology. Options (the CLI's
    flags): format, policy (comma-separated: fifo, topo, topo-preempt, topo-defrag, slurm; default
    "fifo,topo,topo-preempt"), model (for jobs that give none: their placements are priced by
    the cost model), production_vc, checkpoint_interval, restart_overhead, locality ("soft" or
    "hard"), min_run, locality_wait, backfill_depth, series_interval (seconds), slurm_conf (the
    cluster's slurm.conf, which policy "slurm" follows), slurm_what_if (a slurm.conf line, or a
    list of them, each replayed as policy "slurm[LINE]"), slurm_qos (the QOS table as
    ``sacctmgr -P show qos`` prints it, which PreemptType=preempt/qos follows), kueue_config (the cluster's Kueue
    ClusterQueues as kubectl prints them, which policy "kueue" follows). The old names
    trace= and cluster= still work, with a DeprecationWarning.

    progress: as in paratune.plan(); Ctrl-C stops the replay at the next report.

    Returns a ClusterReplay (schema paratune.cluster/1): ``r.policies``, ``r.to_frame()`` (one
    row per policy), ``r.jobs()`` and ``r.series()`` (the CSVs of --jobs-out and --series as
    tables), ``r.jobs_csv``, ``r.series_csv``. Raises InputError for bad input.
    """
    options = take_renamed("replay", dict(options, job_history=job_history))
    if options["job_history"] is None:
        raise TypeError("replay() missing the job trace (job_history=PATH)")
    options["job_history"] = os.fsdecode(options["job_history"])
    text, jobs, series = _paratune.cluster_replay(options, progress)
    return ClusterReplay(text, jobs, series)
