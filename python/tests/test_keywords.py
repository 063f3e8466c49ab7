# The keywords are one table (src/python/keywords.cc): every flag of the CLI's commands has its
# keyword, and the stubs (python/paratune/__init__.pyi) and the docstrings list exactly the table.
import ast
import re

import paratune
from paratune import _paratune
from conftest import SOURCE_DIR

SCENARIO, BUDGET, SEARCH, TRACES, MEGATRON, READING, SIMULATE, CLUSTER = 1, 2, 4, 8, 16, 32, 64, 128
# CLI options that are not keywords: output and terminal switches (plan --emit is Plan.emit()).
# simulate --ascii is the CLI's text chart; diagnose --list-rules is paratune.rules().
# cluster --series and --jobs-out are the result's series() and jobs(); its --trace-out has no
# keyword (analyze's and simulate's have: trace_out, in the TRACES and SIMULATE groups the stubs
# test checks).
NOT_KEYWORDS = {"help", "json", "quiet", "trace_out", "emit", "emit_out", "ascii", "list_rules", "series", "jobs_out"}


def cli_flags(cli, command):
    """The long options `paratune COMMAND --help` lists, as keyword names (no --no- twins)."""
    names = set()
    for line in cli.run(command, "--help").stdout.splitlines():
        m = re.match(r"^ {1,4}(\S+)", line)  # an option's line; descriptions are indented further
        if not m:
            continue
        for flag in re.findall(r"--([a-z0-9][a-z0-9-]*)", m.group(1)):
            if not flag.startswith("no-"):
                names.add(flag.replace("-", "_"))
    assert len(names) > 20, names
    return names - NOT_KEYWORDS


def stub_parameters(function, stub="__init__.pyi"):
    tree = ast.parse((SOURCE_DIR / "python/paratune" / stub).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return [a.arg for a in node.args.kwonlyargs]
    raise AssertionError(f"no stub for {function}")


def test_every_cli_flag_has_its_keyword(cli):
    for command, takes in (("estimate", SCENARIO | BUDGET | MEGATRON), ("plan", SCENARIO | BUDGET | SEARCH),
                           ("analyze", SCENARIO | TRACES | READING), ("diagnose", SCENARIO | READING),
                           ("simulate", SCENARIO | SIMULATE), ("cluster", CLUSTER)):
        missing = cli_flags(cli, command) - set(_paratune.keywords(takes))
        assert not missing, (command, sorted(missing))


def test_stubs_list_the_table():
    objects = ["cluster", "layout", "training"]  # paratune.Cluster, Layout, Training (model= takes a Model too)
    assert stub_parameters("estimate") == _paratune.keywords(SCENARIO | BUDGET | MEGATRON) + objects
    assert set(stub_parameters("plan")) == {"progress", *_paratune.keywords(SEARCH)}
    assert set(stub_parameters("analyze")) == {"progress", *_paratune.keywords(TRACES | READING)}
    assert set(stub_parameters("diagnose")) == {"progress", *_paratune.keywords(READING)}
    assert set(stub_parameters("simulate")) == set(_paratune.keywords(SIMULATE))
    assert set(stub_parameters("replay", "cluster.pyi")) == {"progress", *_paratune.keywords(CLUSTER)} - {"job_history"}


def test_docstrings_name_every_scenario_keyword():
    for f in (paratune.estimate, paratune.plan, paratune.analyze, paratune.emit):
        words = set(re.findall(r"[a-z][a-z0-9_]*", f.__doc__))
        missing = set(_paratune.keywords(SCENARIO)) - words
        assert not missing, (f.__name__, sorted(missing))
