#!/usr/bin/env python3
"""A launcher's check before it starts a job: does this layout fit, and how fast is it?

    PYTHONPATH=build/release/python python3 examples/check_layout.py --gpus 64 --tp 8 --pp 2

Exits 0 and prints the Megatron-LM arguments when the layout fits in memory; exits 1 when it does
not (or, with --strict, when the planner finds a faster layout), naming the planner's best;
exits 2 on bad input, with paratune's one-line message.
"""

import argparse
import sys

import paratune


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--gpu", default=None)
    ap.add_argument("--gpus", type=int, default=None)
    for dim in ("tp", "pp", "mbs"):
        ap.add_argument(f"--{dim}", type=int, default=None)
    ap.add_argument("--strict", action="store_true", help="also fail when the planner finds a faster layout")
    args = ap.parse_args(argv)
    scenario = dict(model=args.model, gpu=args.gpu, gpus=args.gpus)
    layout = dict(tp=args.tp, pp=args.pp, mbs=args.mbs)
    try:
        e = paratune.estimate(**scenario, **layout)
        ranked = paratune.plan(**scenario, top=1).ranked
    except paratune.InputError as err:
        print(f"check_layout: {err}", file=sys.stderr)
        return 2
    t = e.throughput
    print(f"{e.model.name} on {e.cluster.gpus} {e.cluster.gpu}: step {t.step_time_s:.3f} s, "
          f"{t.tokens_per_s_per_gpu:.0f} tokens/s per GPU, peak {e.memory.peak_bytes / 1e9:.1f} GB")
    best = ranked[0] if ranked else None
    faster = best is not None and best.tokens_per_s_per_gpu > t.tokens_per_s_per_gpu
    if best is not None and (faster or not e.memory.fits):
        b = best.layout
        print(f"the planner's best: tp {b.tp} pp {b.pp} dp {b.dp} mbs {b.micro_batch}, "
              f"{best.tokens_per_s_per_gpu:.0f} tokens/s per GPU")
    if not e.memory.fits:
        print("does not fit in memory: not starting", file=sys.stderr)
        return 1
    if faster and args.strict:
        print("a faster layout exists (--strict): not starting", file=sys.stderr)
        return 1
    print(paratune.emit("megatron-lm", **scenario, **layout).text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
