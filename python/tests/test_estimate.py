# paratune.estimate(): the same document as `paratune estimate --json`, bit for bit.
import math

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
