"""Model, Cluster, Layout, Training: a scenario as four objects, for the functions that take a
scenario (estimate, simulate, plan, analyze, diagnose, emit) as ``model=``, ``cluster=``,
``layout=``, ``training=``. Each holds keywords of the one table (src/python/keywords.cc): the
four small lists below say which scenario keyword belongs to which object, and Layout takes the
rest, so the table stays the one list of names and defaults."""

import json
import os

from . import _paratune

_MODEL = ("model", "model_config", "layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "experts", "topk",
          "plain_mlp")
_CLUSTER = ("gpu", "hardware", "fabric", "nodes", "gpus")
_TRAINING = ("seq", "global_batch", "precision")


def _layout_names():
    taken = set(_MODEL) | set(_CLUSTER) | set(_TRAINING)
    return tuple(n for n in _paratune.keywords(1) if n not in taken)


class _Part:
    """Keywords of one part of a scenario; None means the CLI's default."""

    __slots__ = ("_keywords",)
    _what = "part"

    def __init__(self, allowed, keywords):
        for name in keywords:
            if name not in allowed:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument '{name}' "
                                f"(a {self._what} takes: {', '.join(allowed)})")
        object.__setattr__(self, "_keywords", {k: v for k, v in keywords.items() if v is not None})

    def keywords(self):
        """The scenario keywords this object stands for."""
        return dict(self._keywords)

    def __getattr__(self, name):
        try:
            return self._keywords[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other):
        return type(self) is type(other) and self._keywords == other._keywords

    def __hash__(self):
        return hash((type(self).__name__, json.dumps(self._keywords, sort_keys=True, default=str)))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._keywords.items())
        return f"{type(self).__name__}({args})"


class Model(_Part):
    """The model: a catalog name or a config.json path (``Model("llama-3.1-70b")``), a
    config.json as a dict (``Model(json.load(f))``, named by its ``_name_or_path``), or inline
    dimensions (``Model(layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, vocab=128256)``)."""

    __slots__ = ()
    _what = "model"

    def __init__(self, source=None, **dimensions):
        keywords = dict(dimensions)
        if isinstance(source, dict):
            keywords["model_config"] = json.dumps(source)
        elif isinstance(source, (str, bytes, os.PathLike)):
            keywords["model"] = os.fsdecode(source)
        elif source is not None:
            raise TypeError(f"Model: expected a name, a path or a config.json dict, got {type(source).__name__}")
        super().__init__(_MODEL[2:], dimensions)
        object.__setattr__(self, "_keywords", {k: v for k, v in keywords.items() if v is not None})


class Cluster(_Part):
    """The cluster: ``Cluster(gpu="H100", nodes=8)`` or ``gpus=64``; ``fabric``, ``hardware`` (a
    TOML file) as the CLI's flags."""

    __slots__ = ()
    _what = "cluster"

    def __init__(self, **keywords):
        super().__init__(_CLUSTER, keywords)


class Training(_Part):
    """The training shape: ``Training(seq=8192, global_batch=256, precision="bf16")``."""

    __slots__ = ()
    _what = "training shape"

    def __init__(self, **keywords):
        super().__init__(_TRAINING, keywords)


class Layout(_Part):
    """The parallel layout and the software stack: ``Layout(tp=8, pp=2, mbs=1, recompute="selective",
    stack="megatron-lm")``; every scenario keyword that is not the model's, the cluster's or the
    training shape's."""

    __slots__ = ()
    _what = "layout"

    def __init__(self, **keywords):
        super().__init__(_layout_names(), keywords)


_OBJECTS = {"model": Model, "cluster": Cluster, "layout": Layout, "training": Training}


def expand(keywords):
    """The keywords with Model, Cluster, Layout and Training objects replaced by theirs; a
    keyword given both ways is a TypeError."""
    out = {k: v for k, v in keywords.items() if not isinstance(v, _Part)}
    for key, part in keywords.items():
        if not isinstance(part, _Part):
            if key in ("cluster", "layout", "training") and part is not None:
                raise TypeError(f"{key}= takes a paratune.{_OBJECTS[key].__name__}, got {type(part).__name__}")
            continue
        wanted = _OBJECTS.get(key)
        if wanted is None or not isinstance(part, wanted):
            raise TypeError(f"a {type(part).__name__} goes as {type(part).__name__.lower()}=, not {key}=")
        out.pop(key, None)
        for name, value in part.keywords().items():
            if out.get(name) is not None:
                raise TypeError(f"{name} is given twice: as {name}= and in {key}=")
            out[name] = value
    for key in ("cluster", "layout", "training"):
        if out.get(key, 0) is None:
            del out[key]
    return out
