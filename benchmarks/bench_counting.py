"""Throughput of the counting generators and evaluators; prints its figures.

Usage:
    python benchmarks/bench_counting.py [--n 8000] [--workers 2] [--eval-n 128] [--device cpu]

Figures (images/s, wall clock):
- ``render``: compact items + images in memory, ``--workers`` processes (the generator's cost);
- ``generate``: ``srm_bench.generate`` end to end, images stored in the shards (adds HDF5
  compression and hashing) and compact only (the train split's default);
- ``evaluate``: the classifier on ``--device`` (skipped when the weights are not shipped).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor


def _block(args: tuple[str, int, int]) -> int:
    shape, start, stop = args
    from srm_bench.generators.counting import POLYGONS, STARS

    gen = POLYGONS if shape == "polygons" else STARS
    config = gen.make_config("train", 0)
    return len(gen.render(config, {}, gen.generate_items(config, {}, start, stop)))


def bench_render(shape: str, n: int, workers: int, block: int = 500) -> float:
    jobs = [(shape, s, min(n, s + block)) for s in range(0, n, block)]
    with ProcessPoolExecutor(workers) as ex:
        list(ex.map(_block, [(shape, 0, 2 * workers)] * workers))  # start-up: imports, scaled photos
        t = time.perf_counter()
        done = sum(ex.map(_block, jobs))
    return done / (time.perf_counter() - t)


def bench_generate(task: str, n: int, workers: int, images: bool) -> float:
    import srm_bench

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        srm_bench.generate(task, "train", n=n, out=f"{tmp}/d", images=images, workers=workers,
                           shard_size=max(1, n // (4 * workers)), progress=False)
        return n / (time.perf_counter() - t)


def bench_evaluate(shape: str, n: int, device: str, batch_size: int) -> float | None:
    from srm_bench.evaluators import counting as ev
    from srm_bench.generators.counting import POLYGONS, STARS

    if not ev.weights_path(shape).exists():
        return None
    gen = POLYGONS if shape == "polygons" else STARS
    config = gen.make_config("test", 0)
    images = gen.render(config, {}, gen.generate_items(config, {}, 0, n))
    ev.classify(shape, images[:batch_size], device=device, batch_size=batch_size)  # warm-up
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    t = time.perf_counter()
    ev.classify(shape, images, device=device, batch_size=batch_size)
    return n / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8000, help="images per generation figure")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--eval-n", type=int, default=128, help="images per evaluation figure")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--skip-generate", action="store_true", help="only the render and evaluate figures")
    args = parser.parse_args()
    import os

    print(f"cores: {os.cpu_count()}, workers: {args.workers}, n: {args.n}")
    for shape in ("polygons", "stars"):
        task = f"counting-{shape}"
        print(f"{task:18s} render (items + images, in memory)   {bench_render(shape, args.n, args.workers):8.0f} images/s")
        if not args.skip_generate:
            print(f"{task:18s} generate, images stored in shards   {bench_generate(task, args.n, args.workers, True):8.0f} images/s")
            print(f"{task:18s} generate, compact items only        {bench_generate(task, args.n, args.workers, False):8.0f} items/s")
        rate = bench_evaluate(shape, args.eval_n, args.device, args.batch_size)
        shown = f"{rate:8.1f} images/s" if rate is not None else "    (no shipped weights)"
        print(f"{task:18s} evaluate on {args.device:5s} (batch {args.batch_size:4d})   {shown}")


if __name__ == "__main__":
    main()
