"""Throughput of the Even Pixels generator and evaluator (prints images/s).

Targets (issue 3): generation >= 50,000 images/s on 2 cores (compact items plus rendered
images), evaluation >= 10,000 images/s on the CPU.

Usage:
    python benchmarks/bench_even_pixels.py [--n 200000] [--workers 2] [--eval-n 50000]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from srm_bench.evaluators.even_pixels import score_images
from srm_bench.generation import generate
from srm_bench.generators.even_pixels import GENERATOR

BLOCK = 10_000  # items per call, as in one generation shard


def _make(start: int, stop: int) -> int:
    """Compact items plus rendered images of ``start..stop-1``, in shard-sized blocks."""
    config = GENERATOR.make_config(split="train", seed=0)
    for lo in range(start, stop, BLOCK):
        items = GENERATOR.generate_items(config, {}, lo, min(stop, lo + BLOCK))
        GENERATOR.render(config, {}, items)
    return stop - start


def bench_generation(n: int, workers: int) -> tuple[float, float, float]:
    """Compact + render: images per wall second and per CPU second on one process, and
    images per wall second on ``workers`` processes."""
    _make(0, BLOCK)  # warm up imports and caches
    t0, c0 = time.perf_counter(), time.process_time()
    _make(0, n)
    single, single_cpu = n / (time.perf_counter() - t0), n / (time.process_time() - c0)
    bounds = np.linspace(0, n, workers + 1).astype(int)
    with ProcessPoolExecutor(workers) as ex:
        list(ex.map(_make, [0] * workers, [BLOCK] * workers))  # start the workers first
        t0 = time.perf_counter()
        list(ex.map(_make, bounds[:-1], bounds[1:]))
        parallel = n / (time.perf_counter() - t0)
    return single, single_cpu, parallel


def bench_generate_to_disk(n: int, workers: int) -> float:
    """images/s of the full ``srm_bench.generate`` (HDF5 shards, hashes, manifest) with images."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        generate("even-pixels", "train", n=n, out=os.path.join(tmp, "d"), images=True, workers=workers,
                 shard_size=BLOCK, progress=False)
        return n / (time.perf_counter() - t0)


def bench_evaluation(n: int) -> tuple[float, float]:
    """Images per wall second and per CPU second of both metrics (valid images and noise)."""
    config = GENERATOR.make_config(split="test", seed=0)
    clean = GENERATOR.render(config, {}, GENERATOR.generate_items(config, {}, 0, n // 2))
    noise = np.random.default_rng(0).integers(0, 256, (n - n // 2, 32, 32, 3), dtype=np.uint8)
    images = np.concatenate([clean, noise])
    score_images(images[:1000])
    t0, c0 = time.perf_counter(), time.process_time()
    score_images(images)
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000, help="images to generate")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--eval-n", type=int, default=50_000, help="images to score")
    args = parser.parse_args()
    # Other jobs may share the machine: CPU-second rates show what one free core does.
    print(f"cpus={os.cpu_count()} load average (1, 5, 15 min)={os.getloadavg()}")
    single, single_cpu, parallel = bench_generation(args.n, args.workers)
    print(f"generation (compact + render), 1 process:   {single:9,.0f} images/s wall, "
          f"{single_cpu:9,.0f} per CPU-second")
    print(f"generation (compact + render), {args.workers} processes: {parallel:9,.0f} images/s wall (target 50,000)")
    disk = bench_generate_to_disk(args.n, args.workers)
    print(f"srm_bench.generate to HDF5 with images, {args.workers} workers: {disk:9,.0f} images/s wall")
    ev_wall, ev_cpu = bench_evaluation(args.eval_n)
    print(f"evaluation (paper + strict), 1 process:    {ev_wall:9,.0f} images/s wall, {ev_cpu:9,.0f} per CPU-second"
          " (target 10,000)")
    print(f"load average after={os.getloadavg()}")

if __name__ == "__main__":
    main()
