# paratune.emit(): framework settings for one layout; help() and the stubs of the public names.
import json
import inspect
import pydoc
import re

import pytest

import paratune
from conftest import SOURCE_DIR


def test_megatron_arguments_of_the_default_layout():
    em = paratune.emit("megatron-lm")
    assert em.schema == "paratune.emit/1" and em.framework == "megatron-lm"
    assert "--tensor-model-parallel-size 4" in em.text
    assert "--pipeline-model-parallel-size 1" in em.text
    assert str(em) == em.text and isinstance(em.notes, list)


def test_torchtitan_and_deepspeed():
    tt = paratune.emit("torchtitan", model="llama-3.1-8b", gpu="H100", nodes=2, tp=2, pp=2)
    assert tt.framework == "torchtitan" and "tensor_parallel_degree = 2" in tt.text and "pipeline_parallel_degree = 2" in tt.text
    ds = paratune.emit("deepspeed", model="llama-3.1-8b", gpu="H100", nodes=1, tp=1, zero=2)
    assert ds.framework == "deepspeed" and json.loads(ds.text)["zero_optimization"]["stage"] == 2


def test_a_broken_layout_or_framework_is_an_input_error(cli):
    with pytest.raises(paratune.InputError) as e:
        paratune.emit("megatron-lm", tp=3)
    assert str(e.value) == cli.error("estimate", "--tp", 3)
    with pytest.raises(paratune.InputError, match="framework"):
        paratune.emit("caffe")


def test_help_reads_well():
    text = pydoc.render_doc(paratune.plan, renderer=pydoc.plaintext)
    assert "Search every valid layout" in text and "max_tp" in text and "progress" in text
    for f in (paratune.estimate, paratune.plan, paratune.emit):
        assert "global_batch" in f.__doc__


def test_every_public_name_has_a_stub_and_a_docstring():
    stub = (SOURCE_DIR / "python/paratune/__init__.pyi").read_text()
    for name in paratune.__all__:
        if inspect.ismodule(getattr(paratune, name)):  # a submodule: its own stub file
            assert re.search(rf"^from \. import {name} as {name}$", stub, re.M), name
            assert (SOURCE_DIR / f"python/paratune/{name}.pyi").is_file(), name
            for public in getattr(paratune, name).__all__:
                assert getattr(getattr(paratune, name), public).__doc__, (name, public)
        else:
            assert re.search(rf"^(def {name}\(|class {name}[(:])", stub, re.M), name
        assert getattr(paratune, name).__doc__, name
