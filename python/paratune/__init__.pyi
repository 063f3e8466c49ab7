# Type stubs for the package paratune (python/paratune/__init__.py; docs/python.md).
from typing import Any, Callable, Dict, Iterator, KeysView, List, Optional, Sequence, Union
import os
from . import cluster as cluster
from . import runs as runs

_Path = Union[str, os.PathLike[str]]

class InputError(ValueError): ...

class _Part:
    def keywords(self) -> dict[str, Any]: ...
    def __getattr__(self, name: str) -> Any: ...

class Model(_Part):
    def __init__(self, source: Union[_Path, dict[str, Any], None] = ..., *, layers: Optional[int] = ...,
                 hidden: Optional[int] = ..., ffn: Optional[int] = ..., heads: Optional[int] = ...,
                 kv_heads: Optional[int] = ..., vocab: Optional[int] = ..., experts: Optional[int] = ...,
                 topk: Optional[int] = ..., plain_mlp: Optional[bool] = ...) -> None: ...

class Cluster(_Part):
    def __init__(self, *, gpu: Optional[str] = ..., hardware: Optional[_Path] = ..., fabric: Optional[str] = ...,
                 nodes: Optional[int] = ..., gpus: Optional[int] = ...) -> None: ...

class Training(_Part):
    def __init__(self, *, seq: Optional[int] = ..., global_batch: Optional[int] = ...,
                 precision: Optional[str] = ...) -> None: ...

class Layout(_Part):
    def __init__(self, **layout: Any) -> None: ...  # the layout keywords of estimate()

class Record:
    def __getattr__(self, name: str) -> Any: ...
    def __getitem__(self, name: str) -> Any: ...
    def __contains__(self, name: str) -> bool: ...
    def keys(self) -> KeysView[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Result(Record):
    schema: str
    def __init__(self, text_or_dict: Union[str, dict[str, Any]]) -> None: ...
    def to_json(self, indent: int = ...) -> str: ...
    def report_html(self, title: Optional[str] = ..., label: Optional[str] = ...) -> str: ...
    def save_report(self, path: _Path, title: Optional[str] = ...) -> None: ...
    def _repr_html_(self) -> Optional[str]: ...

class _Table(Result):
    def rows(self) -> list[dict[str, Any]]: ...
    def to_frame(self) -> Any: ...
    def to_pandas(self) -> Any: ...

class Estimate(Result):
    @property
    def step_time_s(self) -> float: ...

class Plan(_Table):
    def __init__(self, text_or_dict: Union[str, dict], search: Any = ...) -> None: ...
    def emit(self, framework: str = ...) -> Emitted: ...

class Analysis(_Table):
    def kernels(self) -> Any: ...
    def categories(self) -> Any: ...
    def collectives(self) -> Any: ...
    def idle(self) -> Any: ...
    def iterations(self) -> Any: ...
    def temporal_breakdown(self) -> Any: ...
    def comm_comp_overlap(self) -> Any: ...
    def queue_length(self) -> Any: ...
    def memory_bandwidth(self) -> Any: ...
    def kernel_sequences(self) -> Any: ...
    def critical_path(self) -> Any: ...
    def memory(self) -> Any: ...
    def memory_peaks(self) -> Any: ...
    def trace_diff(self) -> Any: ...
    def ops_diff(self) -> Optional[Dict[str, List[str]]]: ...

class Simulation(_Table):
    def events(self) -> Any: ...

class Diagnosis(_Table):
    notes: list[str]
    def evidence(self) -> Any: ...

class Validation(_Table):
    @property
    def rows(self) -> list[Record]: ...  # type: ignore[override]  (the document's rows)
    def groups(self) -> Any: ...

class ClusterReplay(_Table):
    jobs_csv: str
    series_csv: str
    def jobs(self) -> Any: ...
    def series(self) -> Any: ...

class RunList(_Table): ...

class Emitted(Result):
    framework: str
    text: str
    notes: list[str]

def estimate(
    *,
    model: Union[_Path, Model, None] = ..., model_config: Optional[str] = ...,
    layers: Optional[int] = ..., hidden: Optional[int] = ...,
    ffn: Optional[int] = ..., heads: Optional[int] = ..., kv_heads: Optional[int] = ...,
    vocab: Optional[int] = ..., experts: Optional[int] = ..., topk: Optional[int] = ...,
    plain_mlp: Optional[bool] = ..., gpu: Optional[str] = ..., hardware: Optional[_Path] = ...,
    fabric: Optional[str] = ..., nodes: Optional[int] = ..., gpus: Optional[int] = ...,
    seq: Optional[int] = ..., global_batch: Optional[int] = ..., precision: Optional[str] = ...,
    tp: Optional[int] = ..., pp: Optional[int] = ..., vp: Optional[int] = ...,
    pp_layout: Optional[Sequence[int]] = ..., cp: Optional[int] = ..., ep: Optional[int] = ...,
    etp: Optional[int] = ..., sp: Optional[bool] = ..., zero: Optional[int] = ...,
    mbs: Optional[int] = ..., recompute: Optional[str] = ...,
    recompute_modules: Optional[str] = ..., schedule: Optional[str] = ...,
    overlap_grad_reduce: Optional[bool] = ..., overlap_param_gather: Optional[bool] = ...,
    overlap_tp_comm: Optional[bool] = ..., overlap_pp_comm: Optional[bool] = ...,
    overlap_ep_comm: Optional[bool] = ..., expert_imbalance: Optional[float] = ...,
    offload_layers: Optional[int] = ..., flash_attention: Optional[bool] = ...,
    fp8_attention: Optional[bool] = ..., fp8_activation_cache: Optional[bool] = ...,
    cached_wgrad_placeholders: Optional[bool] = ..., grad_reduce_in_bf16: Optional[bool] = ...,
    attention_kernel: Optional[str] = ..., optimizer_states: Optional[str] = ...,
    cp_comm: Optional[str] = ..., stack: Optional[str] = ..., kernels: Optional[str] = ...,
    cuda_graphs: Optional[str] = ..., moe_dispatcher: Optional[str] = ...,
    grouped_gemm: Optional[bool] = ..., fused_permute: Optional[bool] = ...,
    fused_router: Optional[bool] = ..., fused_grouped_mlp: Optional[bool] = ...,
    fused_cross_entropy: Optional[bool] = ..., zero3_per_tensor: Optional[bool] = ...,
    fp32_shards: Optional[bool] = ..., allow_cross_domain_tp: Optional[bool] = ...,
    train_tokens: Union[float, str, None] = ..., gpu_hour_price: Union[float, str, None] = ...,
    from_megatron: Optional[str] = ..., ignore_unknown: Optional[bool] = ...,
    cluster: Optional[Cluster] = ..., layout: Optional[Layout] = ..., training: Optional[Training] = ...,
) -> Estimate: ...

def plan(
    *,
    progress: Optional[Callable[[str, int, int], Any]] = ...,
    max_tp: Optional[int] = ..., max_pp: Optional[int] = ..., max_vp: Optional[int] = ...,
    max_cp: Optional[int] = ..., max_ep: Optional[int] = ..., max_mbs: Optional[int] = ...,
    top: Optional[int] = ..., objective: Optional[str] = ..., headroom: Optional[float] = ...,
    sweep: Optional[str] = ...,
    **scenario: Any,  # the keywords of estimate(), train_tokens and gpu_hour_price included
) -> Plan: ...

def simulate(
    *,
    timeline: bool = ..., trace_out: Optional[_Path] = ...,
    **scenario: Any,  # the scenario keywords of estimate()
) -> Simulation: ...

def diagnose(
    paths: Union[_Path, Sequence[_Path]] = ...,
    *,
    progress: Optional[Callable[[str, int, int], Any]] = ...,
    allow_partial: Optional[bool] = ..., threads: Optional[int] = ...,
    **scenario: Any,  # the scenario keywords of estimate(): the run's model and layout, or its cluster
) -> Diagnosis: ...

def rules() -> list[tuple[str, str]]: ...

def validate(
    path: _Path, *, hardware: Optional[_Path] = ..., progress: Optional[Callable[[str, int, int], Any]] = ...
) -> Validation: ...

def analyze(
    paths: Union[_Path, Sequence[_Path]],
    *,
    progress: Optional[Callable[[str, int, int], Any]] = ...,
    rank: Optional[int] = ..., exact_ns: Optional[bool] = ..., include_last_step: Optional[bool] = ...,
    allow_partial: Optional[bool] = ..., top: Optional[int] = ..., threads: Optional[int] = ...,
    trace_out: Optional[_Path] = ...,
    diff_against: Optional[Union[_Path, Sequence[_Path]]] = ..., diff_steps: Optional[Union[str, int]] = ...,
    diff_ranks: Optional[Union[str, int]] = ..., diff_device: Optional[str] = ...,
    diff_short_names: Optional[bool] = ...,
    kernel_sequences: Optional[str] = ..., min_sequence_length: Optional[int] = ...,
    critical_path: Optional[str] = ..., critical_path_instances: Optional[Union[str, int]] = ...,
    data_load_events: Optional[List[str]] = ...,
    **scenario: Any,  # the scenario keywords of estimate(): the prediction (model) and link ceilings (gpu)
) -> Analysis: ...

def emit(framework: str = ..., **scenario: Any) -> Emitted: ...  # the scenario keywords of estimate()
