"""Throughput of the MNIST Sudoku generator and evaluator on this machine.

Usage: python benchmarks/bench_sudoku.py [--train-n 200000] [--workers 2]

Prints one line per figure. Targets (issue 2, 2-core machine): the three canonical test
splits with images in under 5 s in all; train split, compact form, >= 20,000 puzzles/s;
rendering >= 5,000 images/s; evaluation >= 1,000 samples/s.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train-n", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    import srm_bench
    from srm_bench.evaluation import get_evaluator
    from srm_bench.generation import get_generator

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # 1. The three canonical test splits through the CLI, as a user runs them.
        t = time.perf_counter()
        for split in ("easy", "medium", "hard"):
            subprocess.run([sys.executable, "-m", "srm_bench.cli", "-q", "generate", "sudoku", "--split", split,
                            "-o", str(tmp / split)], check=True, capture_output=True)
        print(f"canonical easy+medium+hard with images (3 CLI calls): {time.perf_counter() - t:.2f} s")

        # 2. Train split, compact form.
        srm_bench.generate("sudoku", "train", n=2000, out=tmp / "warm", progress=False)  # digit cache, imports
        t = time.perf_counter()
        srm_bench.generate("sudoku", "train", n=args.train_n, out=tmp / "train", workers=args.workers,
                           shard_size=args.train_n // (4 * args.workers), progress=False)
        dt = time.perf_counter() - t
        print(f"train compact, n={args.train_n}, workers={args.workers}: {args.train_n / dt:,.0f} puzzles/s ({dt:.2f} s)")

        # 3. Rendering images from the compact form, in batches as a data loader asks for them
        # (one 20,000-image array is 1.3 GB, and then page faults dominate).
        ds = srm_bench.load_dataset(tmp / "train")
        gen = get_generator("sudoku")
        for batch in (64, 512, 20_000):
            t = time.perf_counter()
            for s in range(0, 20_000, batch):
                images = gen.render(ds.config, ds.shared, ds.subset_items(slice(s, s + batch)))
            dt = time.perf_counter() - t
            print(f"render from compact, batches of {batch}: {20_000 / dt:,.0f} images/s")

        # 4. Evaluation: scoring only, then the whole evaluate() call with file I/O.
        hard = srm_bench.load_dataset(tmp / "hard")
        ev = get_evaluator("sudoku")
        ev.score(hard.images()[:64], reference=hard, index=np.arange(64))  # load weights
        n = 2000
        index = np.arange(n) % hard.count
        imgs = hard.images(index)
        t = time.perf_counter()
        ev.score(imgs, reference=hard, index=index)
        dt = time.perf_counter() - t
        print(f"evaluation, scoring {n} samples: {n / dt:,.0f} samples/s")
        t = time.perf_counter()
        srm_bench.evaluate(tmp / "hard", out=tmp / "results")
        print(f"evaluate() of the 500 hard solutions incl. reading and writing results: {time.perf_counter() - t:.2f} s")
        del images


if __name__ == "__main__":
    main()
