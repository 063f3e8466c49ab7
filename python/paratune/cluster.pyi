# Type stubs for paratune.cluster (python/paratune/cluster.py).
from typing import Any, Callable, List, Optional, Union
import os

from . import ClusterReplay as ClusterReplay

def replay(
    job_history: Union[str, os.PathLike[str]],
    *,
    progress: Optional[Callable[[str, int, int], Any]] = ...,
    format: Optional[str] = ..., nodes: Optional[int] = ..., gpu: Optional[str] = ...,
    topology: Optional[Union[str, os.PathLike[str]]] = ..., policy: Optional[str] = ...,
    model: Optional[str] = ..., production_vc: Optional[str] = ...,
    checkpoint_interval: Optional[float] = ..., restart_overhead: Optional[float] = ...,
    locality: Optional[str] = ..., min_run: Optional[float] = ..., locality_wait: Optional[float] = ...,
    backfill_depth: Optional[int] = ..., series_interval: Optional[float] = ...,
    slurm_conf: Optional[Union[str, os.PathLike[str]]] = ..., slurm_what_if: Optional[Union[str, List[str]]] = ...,
    slurm_qos: Optional[Union[str, os.PathLike[str]]] = ...,
    kueue_config: Optional[Union[str, os.PathLike[str]]] = ...,
) -> ClusterReplay: ...
