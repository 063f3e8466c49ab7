"""paratune.runs: the run registry (a SQLite file or a PostgreSQL database), as ``paratune runs``.

    import paratune
    with paratune.runs.open("runs.db") as reg:
        reg.record(["analyze.json", "train.log"], name="llama-70b-tp8", tags={"team": "a"})
        reg.list(model="llama-3.1-70b").to_frame()
        reg.compare("llama-70b-tp8")          # against its baseline, with the term that moved

Every method returns the document ``paratune runs ... --json`` prints (docs/json.md) as a typed
result. A Registry is for one thread at a time (calls from several threads take turns).
"""

import os
import warnings

from . import _paratune
from ._paratune import InputError
from ._renamed import take_renamed
from ._result import Result, RunList

__all__ = ["open", "Registry", "RunList"]


class Registry:
    """One open run registry; ``close()`` (or a ``with`` block) releases it."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def where(self):
        """The store, as messages name it (a URL's password hidden)."""
        return self._handle.where()

    def record(self, files, *, name=None, tags=None, software=None, cluster_name=None, model=None, baseline=False,
               cluster=None):
        """Record the files of one run, as ``runs record --json``: analyze, diagnose, estimate,
        plan or cluster JSON, or training logs. ``tags``: a dict; files under one name add to
        that run. One transaction: all of it or nothing. Files that seem to describe different
        runs are recorded anyway, with a warning (``warnings.warn``). ``cluster_name``: the
        cluster's label, as --cluster-name (the old name cluster= still works, with a
        DeprecationWarning). Returns the paratune.runs.record/1 document: ``name``,
        ``created``, ``files_added`` ..."""
        cluster_name = take_renamed("record", {"cluster_name": cluster_name, "cluster": cluster})["cluster_name"]
        if isinstance(files, (str, bytes, os.PathLike)):
            files = [files]
        tag_list = [(str(k), str(v)) for k, v in (tags or {}).items()]
        text, notes = self._handle.record([os.fsdecode(f) for f in files], name or "", tag_list, software or "",
                                          cluster_name or "", model or "", bool(baseline))
        for n in notes:
            warnings.warn(n, stacklevel=2)
        return Result(text)

    def record_csv(self, path, *, hardware=None, cluster_name=None, software=None, tags=None, cluster=None):
        """Record every usable row of a CSV in published_runs_dev.csv's schema as a measured run
        of its own (named by its id, with its scenario and the cost model's prediction: what
        ``calibrate --from-runs`` fits), in one transaction, as ``runs record --csv --json``.
        ``cluster_name`` as in record(). Returns the paratune.runs.import/1 document: ``runs``
        and ``skipped`` (with why)."""
        cluster_name = take_renamed("record_csv", {"cluster_name": cluster_name, "cluster": cluster})["cluster_name"]
        tag_list = [(str(k), str(v)) for k, v in (tags or {}).items()]
        return Result(self._handle.record_csv(os.fsdecode(path), "" if hardware is None else os.fsdecode(hardware),
                                              cluster_name or "", software or "", tag_list))

    def list(self, *, limit=50, **filters):
        """The recorded runs, newest first, as ``runs list --json``: filters model, cluster, gpu,
        since (YYYY-MM-DD), name (a glob) and tag (``"K=V"`` or a list of them), all of which must
        match. Returns a RunList (``to_frame()``: one row per run)."""
        texts = []
        for key, value in filters.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            texts += [f"{key}={v}" for v in values if v is not None]
        return RunList(self._handle.list(texts, limit))

    def show(self, name):
        """One run: its figures, findings, series and sources (paratune.runs.show/1)."""
        return Result(self._handle.show(name))

    def compare(self, a, b=None):
        """Two runs side by side, or ``a`` against its baseline, with the term that moved
        (paratune.runs.compare/1)."""
        return Result(self._handle.compare(a, b))

    def set_baseline(self, name, scope=None):
        """Make a run the baseline of its cluster and model (or of ``scope``); returns the
        baselines (paratune.runs.baselines/1)."""
        return Result(self._handle.set_baseline(name, scope or ""))

    def baselines(self):
        """The baselines runs are compared against (paratune.runs.baselines/1)."""
        return Result(self._handle.baselines())

    def export_csv(self):
        """Every run as CSV text, one row each, oldest first (``runs export --csv``)."""
        return self._handle.export_csv()

    def close(self):
        """Release the store; later calls raise InputError."""
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"paratune.runs.Registry({self.where!r})"


def open(db=None, *, create=True):  # noqa: A001 (the registry's verb, as paratune.runs.open)
    """Open a run registry: ``db`` a SQLite file path or a postgresql:// URL (default
    $PARATUNE_DB, else $XDG_DATA_HOME/paratune/runs.db), as ``runs --db``. ``create=False``
    refuses a store that does not exist yet (as the reading subcommands do). Applies pending
    schema migrations. Raises InputError for a bad location or store."""
    if db is not None and os.fsdecode(db) == "":
        raise InputError("--db: empty location (a SQLite file path or a postgresql:// URL)")
    return Registry(_paratune.RegistryHandle("" if db is None else os.fsdecode(db), create))
