"""What resumable sampling costs: the time ``srm-bench sample`` spends keeping its finished batches
(``OUT.partial.npz``, written to a temporary file and renamed after every batch but the last) and
reading them back on a rerun, for the largest samples we score (Counting: 500 images of 128x128x3).

Usage:
    python benchmarks/bench_partial_save.py [--count 500] [--size 128] [--batch 125] [--repeat 5]

Prints one JSON line: the median save time after each batch and the median load time, in ms.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from srm_bench.baselines.inference import Partial


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--batch", type=int, default=125)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    images = np.random.default_rng(0).integers(0, 256, (args.count, args.size, args.size, 3), dtype=np.uint8)
    save_ms: dict[int, float] = {}
    load_ms = []
    with tempfile.TemporaryDirectory() as tmp:
        partial = Partial(Path(tmp) / "s.h5.partial.npz", {"bench": 1})
        for done in range(args.batch, args.count, args.batch):
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                partial.save(images, done)
                times.append(time.perf_counter() - t0)
            save_ms[done] = round(1000 * statistics.median(times), 1)
        out = np.empty_like(images)
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            partial.load(out)
            load_ms.append(time.perf_counter() - t0)
    print(json.dumps({"count": args.count, "size": args.size, "batch": args.batch, "save_ms_by_done": save_ms,
                      "load_ms": round(1000 * statistics.median(load_ms), 1)}))


if __name__ == "__main__":
    main()
