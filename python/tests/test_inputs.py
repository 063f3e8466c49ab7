# Model, Cluster, Layout, Training: the scenario as objects gives the documents of the same
# keywords (and so of the CLI's flags); a config.json as a dict is the same model as its file.
import json

import pytest

import paratune
from conftest import SOURCE_DIR


def test_objects_are_their_keywords(cli):
    m = paratune.Model("llama-3.1-8b")
    c = paratune.Cluster(gpu="H100", nodes=2)
    layout = paratune.Layout(tp=2, pp=2, recompute="selective")
    t = paratune.Training(seq=4096, global_batch=128)
    e = paratune.estimate(model=m, cluster=c, layout=layout, training=t)
    assert e.to_dict() == paratune.estimate(model="llama-3.1-8b", gpu="H100", nodes=2, tp=2, pp=2, recompute="selective",
                                            seq=4096, global_batch=128).to_dict()
    assert e.to_dict() == cli.json("estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--nodes", 2, "--tp", 2,
                                   "--pp", 2, "--recompute", "selective", "--seq", 4096, "--global-batch", 128)
    p = paratune.plan(model=m, cluster=c, training=t, top=2)
    assert p.to_dict() == paratune.plan(model="llama-3.1-8b", gpu="H100", nodes=2, seq=4096, global_batch=128,
                                        top=2).to_dict()
    assert paratune.emit("torchtitan", model=m, cluster=c, layout=layout).text == \
        paratune.emit("torchtitan", model="llama-3.1-8b", gpu="H100", nodes=2, tp=2, pp=2, recompute="selective").text
    assert layout.tp == 2 and layout == paratune.Layout(tp=2, pp=2, recompute="selective")
    assert "tp=2" in repr(layout)


def test_config_dict_is_the_config_file(tmp_path):
    config = json.loads((SOURCE_DIR / "data/models/llama-3.1-8b.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    from_dict = paratune.estimate(model=paratune.Model(config), gpus=8, tp=1).to_dict()
    from_file = paratune.estimate(model=paratune.Model(path), gpus=8, tp=1).to_dict()
    assert from_dict["throughput"] == from_file["throughput"] and from_dict["memory"] == from_file["memory"]
    named = dict(config, _name_or_path="acme/llama-like")
    assert paratune.estimate(model=paratune.Model(named), gpus=8, tp=1).model.name == "acme/llama-like"


def test_inline_model_object_is_the_inline_keywords():
    dims = dict(layers=16, hidden=2048, ffn=8192, heads=16, kv_heads=8, vocab=32000)
    assert paratune.estimate(model=paratune.Model(**dims), gpus=8, tp=1).to_dict() == \
        paratune.estimate(**dims, gpus=8, tp=1).to_dict()


def test_mistakes_are_type_or_input_errors():
    with pytest.raises(TypeError, match="Layout.. got an unexpected keyword argument 'gpu'"):
        paratune.Layout(gpu="H100")
    with pytest.raises(TypeError, match="Cluster.. got an unexpected keyword argument 'tp'"):
        paratune.Cluster(tp=2)
    with pytest.raises(TypeError, match="tp is given twice"):
        paratune.estimate(tp=2, layout=paratune.Layout(tp=4))
    with pytest.raises(TypeError, match="goes as cluster="):
        paratune.estimate(layout=paratune.Cluster(gpu="H100"))
    with pytest.raises(TypeError, match="takes a paratune.Layout"):
        paratune.estimate(layout={"tp": 2})
    with pytest.raises(TypeError, match="expected a name, a path or a config.json dict"):
        paratune.Model(42)
    with pytest.raises(paratune.InputError, match="--model-config"):
        paratune.estimate(model=paratune.Model({"architectures": ["LlamaForCausalLM"]}))
    with pytest.raises(paratune.InputError, match="excludes --model"):
        paratune.estimate(model_config="{}", model="llama-3.1-8b")
