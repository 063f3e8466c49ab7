"""Keywords renamed with their CLI flags (issue 38): the old name still works, with a
DeprecationWarning, and the old and the new name together are a TypeError."""

import warnings

# Old keyword -> new, per function: the CLI's renamed flags (docs/python.md, "Deprecated keywords").
RENAMED = {
    "replay": {"trace": "job_history", "cluster": "topology"},
    "simulate": {"trace": "trace_out"},
    "record": {"cluster": "cluster_name"},
    "record_csv": {"cluster": "cluster_name"},
}


def take_renamed(function, given, stacklevel=3):
    """Moves each old keyword in ``given`` (a dict of the call's keywords, None meaning not
    given) to its new name, warning once per old name."""
    for old, new in RENAMED[function].items():
        if given.get(old) is None:
            given.pop(old, None)
            continue
        if given.get(new) is not None:
            raise TypeError(f"{function}() got both {new} and its old name {old}; give only {new}")
        warnings.warn(f"{function}(): {old}= is deprecated; use {new}=", DeprecationWarning, stacklevel=stacklevel)
        given[new] = given.pop(old)
    return given
