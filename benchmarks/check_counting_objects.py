"""How many objects the evaluator reads in a Counting model's samples, and where its correct images come from; prints it.

Usage:
    python benchmarks/check_counting_objects.py RESULT.json [RESULT.json ...]

The benchmark images have N = 1-9 objects, N uniform (``generators/counting.py``), so a model that
covers the task draws each N about a ninth of the time. The paper's accuracy does not look at that:
a model that always draws one polygon, a "1" and the polygon's vertex count is right every time.
For each result (its per-sample file, plain or gzip, is read beside it and checked as the
leaderboard checks it) this prints the share of
images per object count read by the evaluator's ``objects`` head, the total-variation distance of
that distribution from uniform on 1-9 (0: the data's spread; 8/9: one count only), the accuracy
(paper rule) per object count, the share of the correct images that have one object, and the
consistency on the images with two objects or more (an image of one object cannot mix vertex
counts: it is consistent whenever its object is read as a shape at all, so a model that draws fewer
objects can gain consistency without drawing better), then the consistency per object-count group and
standardised to the data's uniform counts (``consistency_by_objects``) with a bootstrap 95% percentile
interval (scipy, 2,000 resamples, seed 0; "-" where a group holds no image).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy.stats import bootstrap

from srm_bench.evaluators.counting import COUNTS, OBJECT_GROUPS, consistency_by_objects, object_count_shares
from srm_bench.errors import SrmBenchError
from srm_bench.leaderboard.store import check_per_sample
from srm_bench.results import load_result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path, help="Counting result JSONs (srm-bench evaluate)")
    args = parser.parse_args()
    for path in args.results:
        result = load_result(path)
        if not str(result["task"]).startswith("counting-"):
            raise SystemExit(f"{path}: a result of {result['task']}, not of a Counting task")
        rows = check_per_sample(result, str(path), path)  # the per-sample CSV, its hash and figures checked
        if rows is None:
            raise SystemExit(f"{path}: the result was written without a per-sample file")
        objects = rows["objects"].to_numpy()
        correct, consistent = rows["accuracy"].to_numpy(bool), rows["consistency"].to_numpy(bool)
        share = object_count_shares(objects)
        tv = 0.5 * np.abs(share - 1 / len(COUNTS)).sum()
        per = ["-" if not (objects == n).any() else f"{correct[objects == n].mean():.2f}" for n in COUNTS]
        model = result["model"]
        name = model.get("name", "?") if isinstance(model, dict) else str(model)
        sampler = model.get("sampler", {}) if isinstance(model, dict) else {}
        order = sampler.get("order") or sampler.get("name", "?")
        ov = f"+ov{sampler['overlap']}" if sampler.get("overlap") else ""
        print(f"{path.name}: {name}, {order}{ov}, eta {sampler.get('eta')}, {sampler.get('steps')} NFE, "
              f"n={len(rows)}")
        print("  objects         " + " ".join(f"{n:>5d}" for n in COUNTS))
        print("  share           " + " ".join(f"{s:5.2f}" for s in share) + f"   TV from uniform {tv:.3f}")
        print("  accuracy        " + " ".join(f"{a:>5s}" for a in per))
        no_pair = rows["digit_a"].to_numpy() == 0
        if (objects == 0).any() or no_pair.any():  # an open-set evaluator (version 3)
            print(f"  read as no object {(objects == 0).mean():.3f}; as no pair of numbers {no_pair.mean():.3f}")
        one = correct[objects == 1].sum()
        print(f"  accuracy {correct.mean():.3f}; correct images with one object: {one} of {correct.sum()}")
        many = objects >= 2  # one object cannot mix vertex counts
        con_many = f"{consistent[many].mean():.3f} on {many.sum()}" if many.any() else "- (none)"
        print(f"  consistency {consistent.mean():.3f}; on the images with two objects or more {con_many}")
        means, counts, std = consistency_by_objects(objects, consistent)
        groups = [str(g[0]) if len(g) == 1 else f"{g[0]}-{g[-1]}" for g in OBJECT_GROUPS]
        print("  objects (group) " + " ".join(f"{g:>10s}" for g in groups))
        print("  consistency     " + " ".join(
            f"{'-':>10s}" if c == 0 else f"{m:5.3f} {f'({c})':>4s}" for m, c in zip(means, counts, strict=True)))
        if np.isnan(std):
            print("  consistency at the data's object counts: - (a group holds no image)")
        else:
            ci = bootstrap((objects, consistent), lambda o, c: consistency_by_objects(o, c)[2], paired=True,
                           vectorized=False, n_resamples=2000, method="percentile",
                           random_state=np.random.default_rng(0)).confidence_interval
            band = "[-: a resample left a group empty]" if np.isnan([ci.low, ci.high]).any() else \
                f"[{ci.low:.3f}, {ci.high:.3f}]"
            print(f"  consistency at the data's object counts {std:.3f} {band}")


if __name__ == "__main__":
    try:
        main()
    except SrmBenchError as exc:
        raise SystemExit(str(exc)) from None
