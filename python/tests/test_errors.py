# Bad input raises paratune.InputError with the message the CLI prints, and the interpreter goes on.
import pytest

import paratune

CASES = [
    ({"gpu": "NO-SUCH-GPU"}, ["--gpu", "NO-SUCH-GPU"]),
    ({"tp": 3}, ["--tp", 3]),
    ({"model": ""}, ["--model", ""]),
    ({"nodes": 0}, ["--nodes", 0]),
    ({"nodes": 2, "gpus": 16}, ["--nodes", 2, "--gpus", 16]),
    ({"precision": "fp7"}, ["--precision", "fp7"]),
    ({"stack": "nonsense"}, ["--stack", "nonsense"]),
    ({"gpu_hour_price": 2}, ["--gpu-hour-price", 2]),
    ({"train_tokens": -5}, ["--train-tokens", -5]),
]


@pytest.mark.parametrize("kwargs,flags", CASES)
def test_estimate_error_is_the_clis_line(cli, kwargs, flags):
    with pytest.raises(paratune.InputError) as e:
        paratune.estimate(**kwargs)
    assert str(e.value) == cli.error("estimate", *flags)


def test_plan_error_is_the_clis_line(cli):
    with pytest.raises(paratune.InputError) as e:
        paratune.plan(tp=8, max_tp=4)
    assert str(e.value) == cli.error("plan", "--tp", 8, "--max-tp", 4)
    with pytest.raises(paratune.InputError) as e:
        paratune.plan(objective="speed")
    assert str(e.value) == cli.error("plan", "--objective", "speed")


def test_input_error_is_a_value_error():
    assert issubclass(paratune.InputError, ValueError)
    with pytest.raises(ValueError):
        paratune.estimate(gpu="NO-SUCH-GPU")


def test_unknown_keyword_and_wrong_type_are_type_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'tpp'"):
        paratune.estimate(tpp=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'top'"):
        paratune.estimate(top=2)  # a plan keyword
    with pytest.raises(TypeError, match="tp: expected int, got str"):
        paratune.estimate(tp="2")
    with pytest.raises(TypeError, match="tp: expected int, got bool"):
        paratune.estimate(tp=True)
    with pytest.raises(TypeError, match="sp: expected bool"):
        paratune.estimate(sp=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'train_tokens'"):
        paratune.emit("megatron-lm", train_tokens=1e12)  # emit() has no time to train


def test_the_interpreter_survives_many_errors():
    for _ in range(50):
        with pytest.raises(paratune.InputError):
            paratune.estimate(tp=3)
    assert paratune.estimate().step_time_s > 0
