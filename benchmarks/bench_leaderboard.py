"""Time ``srm-bench leaderboard`` over many synthetic result files (target: 10,000 in under 5 s).

Usage: python benchmarks/bench_leaderboard.py [--count 10000] [--format md]

Writes COUNT result JSONs (valid, distinct: several models, samplers, splits, seeds) into a
temporary folder, then times (1) loading + rendering in-process and (2) the whole CLI as a
fresh process, as a user would run it.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from srm_bench import __version__
from srm_bench.results import SCHEMA, SCHEMA_VERSION, mean_metric, rate_metric, validate_result

SAMPLERS = [{"name": "parallel", "eta": 1.0, "steps": 1000}] + [
    {"name": "sequential", "order": o, "overlap": ov, "eta": 1.0, "steps": 1000}
    for o in ("predicted", "random", "graph") for ov in (0.0, 0.5, 0.9)]


def synthetic_result(i: int, rng: np.random.Generator) -> dict:
    split = ("easy", "medium", "hard")[i % 3]
    acc = rng.random(500) < 0.5
    res = {
        "task": "sudoku", "split": split,
        "dataset": {"task_version": 1, "seed": 0, "count": 500, "content_sha256": f"{i % 3:064x}", "source": {}},
        "evaluator": {"name": "sudoku-mlp", "version": 1, "weights_sha256": None},
        "model": {"name": f"model-{i % 50}", "provenance": "user", "sampler": SAMPLERS[i % len(SAMPLERS)],
                  "training": {"steps": 1000 * (i % 7 + 1)}},
        "samples": {"path": f"s{i}.h5", "sha256": f"{i:064x}", "count": 500},
        "metrics": {"l1": mean_metric(rng.integers(0, 20, 500), False), "accuracy": rate_metric(acc)},
        "seed": i, "config": {}, "per_sample_file": None,
    }
    res.update(schema=SCHEMA, schema_version=SCHEMA_VERSION, srm_bench_version=__version__, git_revision=None,
               created=f"2026-01-01T00:00:{i % 60:02d}+00:00")
    return validate_result(res)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--format", default="md")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        for i in range(args.count):
            (d / f"r{i:05d}.json").write_text(json.dumps(synthetic_result(i, rng), indent=2))
        print(f"wrote {args.count} result files in {time.perf_counter() - t0:.2f} s")

        from srm_bench.leaderboard.store import default_dirs, load_frame
        from srm_bench.leaderboard.tables import render

        t0 = time.perf_counter()
        frame = load_frame(default_dirs([d]))
        t1 = time.perf_counter()
        text = render(frame, args.format)
        t2 = time.perf_counter()
        print(f"in-process: load {t1 - t0:.2f} s ({len(frame)} entries), render {args.format} {t2 - t1:.2f} s, "
              f"{len(text.splitlines())} lines")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "srm_bench.cli", "leaderboard", "--results", str(d),
                              "--format", args.format], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        status = "ok" if out.returncode == 0 else f"exit {out.returncode}: {out.stderr.strip()[-300:]}"
        print(f"CLI 'srm-bench leaderboard --results DIR --format {args.format}': {wall:.2f} s wall ({status}); "
              f"target < 5 s for 10,000 files")


if __name__ == "__main__":
    main()
