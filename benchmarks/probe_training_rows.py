"""How many training rows are completion states: a few noisy patches on a clean rest?

A sequential sampler ends on such states (its last patches drawn while every other patch is clean), and
the draw of a pinned patch is learnt from them. This probe draws a preset's training levels (its Uniform
t-bar, zero-patch rule and row mixes, with any ``--set`` overrides) and prints, for each K up to ``--most``,
the share of rows with 1 to K noisy patches, the share with such a row's noisiest patch above t = 0.5,
and the levels' quartiles in those rows. No network: the level sampler alone, on the CPU, in seconds.
For tasks without given cells (Even Pixels, Counting): Sudoku's given cells are not drawn here.

Usage: python benchmarks/probe_training_rows.py [--task even-pixels] [--preset unet-s-g16-gc]
       [--set sequential_mix=0.5 --set sequential_overlap=0.95 --set completion_mix=0.25] [-n 200000]
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from srm_bench.baselines.presets import make_config
from srm_bench.baselines.tsampling import NoiseLevelSampler, TSamplingConfig
from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task


def parse_sets(items: list[str], fields: dict) -> dict:
    """``key=value`` pairs as TSamplingConfig fields, each value cast to its field's type."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in fields:
            raise SrmBenchError(f"--set takes FIELD=VALUE with FIELD one of {', '.join(fields)} (got {item!r})")
        kind = type(fields[key])
        try:
            out[key] = value if kind is str else kind(value)
        except ValueError:
            what = {int: "a whole number", float: "a number"}.get(kind, kind.__name__)
            raise SrmBenchError(f"--set {key} takes {what} (got {value!r})") from None
    return out


def row_states(t: np.ndarray, most: int) -> list[tuple[int, float, float, np.ndarray]]:
    """Per K in 1..most: (K, share of rows with 1..K noisy patches, share of those with a level above 0.5,
    the quartiles of those rows' noisy levels)."""
    k = (t > 0).sum(1)
    out = []
    for top in range(1, most + 1):
        few = (k >= 1) & (k <= top)
        levels = t[few][t[few] > 0]
        q = np.percentile(levels, [25, 50, 75]) if levels.size else np.full(3, np.nan)
        out.append((top, float(few.mean()), float((few & (t.max(1) > 0.5)).mean()), q))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", default="even-pixels")
    ap.add_argument("--preset", default="unet-s-g16-gc")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="FIELD=VALUE",
                    help="a training-level option over the preset's (a TSamplingConfig field), e.g. completion_mix=0.25")
    ap.add_argument("-n", type=int, default=200_000, help="rows drawn")
    ap.add_argument("--most", type=int, default=4, help="the largest K reported")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        if args.n < 1 or args.most < 1:
            raise SrmBenchError("-n and --most must be >= 1")
        cfg = make_config(args.task, "srm", args.preset)
        fields = TSamplingConfig().to_dict()
        ts = TSamplingConfig(**{**cfg.tsampling, **parse_sets(args.sets, fields)})
        ts.validate()
        task = get_task(args.task)
        patches = (task.image_side // task.patch_size) ** 2
        t, _ = NoiseLevelSampler(ts, patches).sample(args.n, np.random.default_rng(args.seed))
    except SrmBenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    changed = {k: v for k, v in ts.to_dict().items() if v != fields[k]}
    print(f"{args.task} {args.preset}, {patches} patches, {args.n} rows; levels: {changed}")
    for top, share, high, q in row_states(t, args.most):
        print(f"  1-{top} noisy patches: {share:.3f} of rows; with one above t = 0.5: {high:.3f}; "
              f"levels' quartiles {q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
