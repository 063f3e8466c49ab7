# paratune.estimate(): the same document as `paratune estimate --json`, bit for bit.
import math

import pytest

import paratune


def test_default_step_time_is_bit_identical_to_the_cli_and_the_cpp_tests(cli, golden_step_time_s):
    e = paratune.estimate()
    from_cli = cli.json("estimate")["throughput"]["step_time_s"]
    assert e.throughput.step_time_s == from_cli
    assert e.step_time_s.hex() == golden_step_time_s.hex()
    assert math.isfinite(e.step_time_s) and e.step_time_s > 0


def test_default_document_is_the_clis(cli):
    assert paratune.estimate().to_dict() == cli.json("estimate")


def test_keywords_are_the_cli_flags(cli):
    e = paratune.estimate(model="llama-3.1-8b", gpu="H100", nodes=2, tp=2, pp=2, mbs=2, global_batch=128,
                          seq=4096, recompute="selective", stack="torchtitan")
    doc = cli.json("estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--nodes", 2, "--tp", 2, "--pp", 2,
                   "--mbs", 2, "--global-batch", 128, "--seq", 4096, "--recompute", "selective",
                   "--stack", "torchtitan")
    assert e.to_dict() == doc
    assert e.cluster.gpus == 16 and e.cluster.gpu == "H100"
    assert e.layout.tp == 2 and e.layout.pp == 2 and e.layout.dp == 4


def test_none_means_the_default():
    assert paratune.estimate(gpu=None, tp=None).to_dict() == paratune.estimate().to_dict()


def test_result_is_typed_and_reads_like_the_document():
    e = paratune.estimate()
    assert isinstance(e, paratune.Estimate) and isinstance(e, paratune.Result)
    assert e.schema == "paratune.estimate/1"
    assert e["throughput"]["step_time_s"] == e.throughput.step_time_s
    assert "throughput" in e and "throughput" in dir(e)
    d = e.to_dict()
    d["throughput"]["step_time_s"] = -1  # a copy: the result is unchanged
    assert e.throughput.step_time_s > 0
    assert "step" in str(e)


def test_time_to_train_is_the_clis(cli):
    e = paratune.estimate(train_tokens=15e12, gpu_hour_price=2.5)
    assert e.to_dict() == cli.json("estimate", "--train-tokens", "15e12", "--gpu-hour-price", "2.5")
    assert e.time_to_train is not None and e.time_to_train.to_dict()
    assert paratune.estimate(train_tokens="15e12").to_dict() == cli.json("estimate", "--train-tokens", "15e12")


def test_from_megatron_is_the_clis(cli):
    args = ("--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 "
            "--group-query-attention --num-query-groups 8 --seq-length 8192 --max-position-embeddings 8192 "
            "--swiglu --vocab-size 128256 --tensor-model-parallel-size 2 --micro-batch-size 1 --bf16")
    e = paratune.estimate(from_megatron=args, gpu="H100", gpus=16)
    assert e.to_dict() == cli.json("estimate", "--from-megatron", args, "--gpu", "H100", "--gpus", 16)
    assert e.layout.tp == 2 and e.layout.dp == 8 and e.megatron_args is not None
    with pytest.raises(paratune.InputError) as err:
        paratune.estimate(from_megatron=args, tp=4)
    assert str(err.value) == cli.error("estimate", "--from-megatron", args, "--tp", 4)
    with pytest.raises(paratune.InputError) as err:
        paratune.estimate(ignore_unknown=True)
    assert str(err.value) == cli.error("estimate", "--ignore-unknown") == "--ignore-unknown goes with --from-megatron"
    with pytest.raises(TypeError, match="unexpected keyword argument 'from_megatron'"):
        paratune.plan(from_megatron=args)


def test_grad_reduce_in_bf16_is_the_clis(cli):
    e = paratune.estimate(grad_reduce_in_bf16=True)
    assert e.to_dict() == cli.json("estimate", "--grad-reduce-in-bf16")
    assert e.layout.grad_reduce_in_fp32 is False


def test_a_layout_that_does_not_fit_names_the_fitting_change_as_the_cli(cli):
    # 8B on 8 B300s at micro-batch 8 of 8,192 tokens without recomputation needs 421.7 GB of
    # 288.4; micro-batch 4 fits (src/cli/hardening_test.cc EstimateThatDoesNotFitLeadsWithIt).
    kw = dict(model="llama-3.1-8b", gpu="B300", gpus=8, tp=1, pp=1, mbs=8, global_batch=64, seq=8192, recompute="none")
    e = paratune.estimate(**kw)
    doc = cli.json("estimate", *[x for k, v in kw.items() for x in ("--" + k.replace("_", "-"), v)])
    assert e.to_dict() == doc
    assert e.memory.fits is False and e.fitting_change.change == "mbs 4"
    assert abs(e.fitting_change.peak_memory_bytes - 243.1e9) < 0.05e9
    assert paratune.estimate(model="llama-3.1-70b", gpu="B300", gpus=8, tp=1, pp=1, zero=1, global_batch=64).fitting_change is None
    assert "fitting_change" not in paratune.estimate().to_dict()
