"""The training noise-level sampler (baselines/tsampling.py DeviceLevelSampler); prints its figures.

Usage:
    python benchmarks/bench_level_sampler.py [--device cpu] [--repeats 20] [--kind uniform_tbar] [--impl FILE]

``--impl FILE`` takes ``DeviceLevelSampler`` from another copy of baselines/tsampling.py, e.g. an
earlier version from git history, to compare the two on one machine:
    git show 8f0bb1b:baselines/tsampling.py > runs/tsampling_8f0bb1b.py

For each task at the batch its campaign trains with (per GPU), one ``sample`` call (Uniform t-bar
levels by the recursive allocation, and their loss weights):
- ``host ops``: aten operations the call issues (torch.profiler, CPU side). On a GPU each costs
  the host a few microseconds whatever the tensor size, so for small networks this, not the
  arithmetic, is what the sampler costs a step;
- ``ms/call``: wall time per call, synchronised (mean of ``--repeats`` after one warm-up call).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

from srm_bench.baselines.presets import TASK_SHAPES
from srm_bench.baselines.tsampling import DeviceLevelSampler, TSamplingConfig

# Per-GPU batch of each task's campaign (docs/baselines.md): Sudoku 512 (DDP on two GPUs),
# Even Pixels 2048, Counting 256.
BATCHES = {"sudoku": 512, "even-pixels": 2048, "counting-polygons": 256}


def host_ops(fn) -> int:  # type: ignore[no-untyped-def]
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return sum(e.count for e in prof.key_averages() if e.key.startswith("aten::"))


def sampler_from(impl: str | None) -> type[DeviceLevelSampler]:
    """``DeviceLevelSampler`` of baselines/tsampling.py, or of the copy ``impl`` (exits with one
    line if it cannot be loaded)."""
    if not impl:
        return DeviceLevelSampler
    if not os.path.isfile(impl):
        sys.exit(f"--impl {impl}: no such file (write one with git show REV:baselines/tsampling.py > FILE)")
    # Loaded as part of the package, so its relative imports resolve.
    spec = importlib.util.spec_from_file_location("srm_bench.baselines._bench_impl", impl)
    if spec is None or spec.loader is None:
        sys.exit(f"--impl {impl}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.DeviceLevelSampler  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--kind", default="uniform_tbar", choices=["uniform_tbar", "independent", "shared"])
    ap.add_argument("--impl", help="a copy of baselines/tsampling.py to take the sampler from")
    a = ap.parse_args()
    sampler_class = sampler_from(a.impl)
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    print(f"device {torch.cuda.get_device_name(dev) if dev.type == 'cuda' else 'cpu'}, kind {a.kind}, "
          f"sampler from {a.impl or 'baselines/tsampling.py'}")
    print(f"{'task':<18} {'patches':>7} {'batch':>6} {'host ops':>9} {'ms/call':>8}")
    for task, batch in BATCHES.items():
        side, _, patch = TASK_SHAPES[task]
        patches = (side // patch) ** 2
        sampler = sampler_class(TSamplingConfig(kind=a.kind), patches, dev)
        torch.manual_seed(0)
        sampler.sample(batch)
        sync()
        ops = host_ops(lambda s=sampler, b=batch: s.sample(b))
        t0 = time.perf_counter()
        for _ in range(a.repeats):
            sampler.sample(batch)
        sync()
        ms = (time.perf_counter() - t0) / a.repeats * 1e3
        print(f"{task:<18} {patches:>7} {batch:>6} {ops:>9} {ms:>8.2f}")


if __name__ == "__main__":
    main()
