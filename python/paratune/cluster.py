"""paratune.cluster: shared-cluster scheduling replay, as ``paratune cluster``.

    import paratune
    r = paratune.cluster.replay("philly.csv", nodes=64, gpu="H100", policy="fifo,topo-preempt")
    r.to_frame()      # one row per policy: utilisation, queue delay, JCT, preemptions ...
    r.jobs()          # one row per job and policy (placement, slowdown, losses)
"""

import io
import os

from . import _paratune
from ._result import ClusterReplay

__all__ = ["replay", "ClusterReplay"]


def replay(trace, *, progress=None, **options):
    """Replay a job trace on a shared GPU cluster under scheduling policies, as
    ``paratune cluster --json``.

    trace: the job trace (Philly-derived CSV, Alibaba v2023 pod list, or native CSV; .gz too).
    The cluster: nodes (of gpu's reference system, default B300) or cluster (a cluster TOML or
    an Alibaba v2023 node list). Options (the CLI's flags): format, policy (comma-separated:
    fifo, topo, topo-preempt, topo-defrag; default "fifo,topo,topo-preempt"), model (for jobs
    that give none: their placements are priced by the cost model), production_vc,
    checkpoint_interval, restart_overhead, locality ("soft" or "hard"), min_run, locality_wait,
    backfill_depth, series_interval (seconds).

    progress: as in paratune.plan(); Ctrl-C stops the replay at the next report.

    Returns a ClusterReplay (schema paratune.cluster/1): ``r.policies``, ``r.to_frame()`` (one
    row per policy), ``r.jobs()`` and ``r.series()`` (the CSVs of --jobs-out and --series as
    tables), ``r.jobs_csv``, ``r.series_csv``. Raises InputError for bad input.
    """
    text, jobs, series = _paratune.cluster_replay(dict(options, trace=os.fsdecode(trace)), progress)
    return ClusterReplay(text, jobs, series)
