#!/usr/bin/env python3
"""A notebook's look at a profiler trace set, cell by cell: where does GPU time go?

    PYTHONPATH=build/release/python python3 examples/trace_breakdown.py testdata/traces/hta/trace_filter

What a Holistic Trace Analysis notebook computes (temporal breakdown, overlap, kernel types, idle
time), from paratune's C++ analyzer with the same definitions, as pandas tables; then the
slowest ranks and kernels grouped with pandas, and the cost model's prediction beside the
measurement when the run's model is given (--model, --gpu, --gpus, --tp ...). Exits 2 on bad
input with paratune's one-line message.
"""

import argparse
import sys

import pandas as pd

import paratune


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+", help="trace files or directories (one Kineto JSON per rank)")
    ap.add_argument("--model", default=None)
    ap.add_argument("--gpu", default=None)
    ap.add_argument("--gpus", type=int, default=None)
    ap.add_argument("--tp", type=int, default=None)
    args = ap.parse_args(argv)
    try:
        a = paratune.analyze(args.traces, model=args.model, gpu=args.gpu, gpus=args.gpus, tp=args.tp)
    except paratune.InputError as err:
        print(f"trace_breakdown: {err}", file=sys.stderr)
        return 2
    pd.set_option("display.width", 160)

    # [1] HTA's temporal breakdown: TraceAnalysis(trace_dir).get_temporal_breakdown()
    print("temporal breakdown (HTA get_temporal_breakdown):")
    print(a.temporal_breakdown().to_string(index=False))

    # [2] HTA's get_comm_comp_overlap()
    print("\ncommunication overlapped by compute (HTA get_comm_comp_overlap):")
    print(a.comm_comp_overlap().to_string(index=False))

    # [3] GPU time by category over all ranks, largest first (a pandas group-by)
    categories = a.categories().groupby("category")["sum_s"].sum().sort_values(ascending=False)
    share = (100 * categories / categories.sum()).round(1)
    print("\nGPU time by kernel category, all ranks:")
    print(pd.DataFrame({"sum_s": categories, "share_pct": share}).to_string())

    # [4] The kernels that cost most on any rank
    kernels = a.kernels().sort_values("sum_s", ascending=False).head(5)
    kernels["name"] = kernels["name"].str.slice(0, 60)
    print("\nlongest kernels (any rank):")
    print(kernels[["rank", "category", "name", "count", "sum_s", "mean_s"]].to_string(index=False))

    # [5] Idle time by cause (HTA get_idle_time_breakdown)
    idle = a.idle().groupby(["rank", "category"])["idle_s"].sum().unstack(fill_value=0.0)
    print("\nidle time by cause, s:")
    print(idle.to_string())

    # [6] The slowest rank by GPU idle share, and the prediction when the model was given
    ranks = a.to_frame().set_index("rank")
    worst = ranks["temporal.idle_pct"].idxmax()
    print(f"\nmost idle rank: {worst} ({ranks.loc[worst, 'temporal.idle_pct']:.1f}% idle)")
    if a.prediction is not None:
        p = a.prediction
        print(f"predicted step {p.predicted_step_time_s:.3f} s vs measured {p.measured_step_time_s:.3f} s "
              f"({100 * p.step_time_error:+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
