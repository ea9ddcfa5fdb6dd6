"""How heavy-tailed is each class-based uncertainty target in a Sudoku SRM's training states?

The uncertainty head learns log E[err] for its target err (the optimum of 0.5 (logvar + err e^-logvar)), and it
learns it from one draw of err per cell and step. A target whose mean is set by rare large values is noisy to fit.
This probe draws training batches as `srm-bench train` does, runs a trained network with a class head, and for the
noisy cells (those the loss weighs) prints, for the class head's cross-entropy at the cell's digit (preset
cell-aux-cls) and for 1 - p(digit) (preset cell-aux-miss): mean, median, 99th percentile, the share of the sum that
the largest 1% of the cells carry, and the coefficient of variation (std / mean), each floored as the presets floor
it (1e-4).

Usage: python benchmarks/probe_class_targets.py WEIGHTS [--batches 8] [--batch 64] [--floor 1e-4]
CPU: ~1 minute at the defaults.
"""
from __future__ import annotations

import argparse

import torch

from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.losses import class_error
from srm_bench.baselines.streams import SudokuStream
from srm_bench.baselines.train import BatchMaker


def tail_stats(err: torch.Tensor) -> dict[str, float]:
    """mean, median, p99, top1 (share of the sum in the largest 1% of values) and cv (std / mean) of a 1-D tensor."""
    v = err.double().sort().values
    k = max(1, len(v) // 100)
    return {"mean": float(v.mean()), "median": float(v.median()), "p99": float(torch.quantile(v, 0.99)),
            "top1": float(v[-k:].sum() / v.sum()), "cv": float(v.std() / v.mean())}


@torch.no_grad()
def targets(model: torch.nn.Module, make_batch: BatchMaker, batches: int, floor: float) -> dict[str, torch.Tensor]:
    """The two targets over the weighted cells of ``batches`` training batches."""
    ce, miss = [], []
    for step in range(batches):
        z, t, cond, _x, _eps, w, labels = make_batch(step).astuple()
        logits = model(z, t, cond).logits
        ce.append(class_error(logits, labels, "class")[w > 0])
        miss.append(class_error(logits, labels, "miss")[w > 0])
    return {"cross-entropy": torch.cat(ce).clamp_min(floor), "1 - p": torch.cat(miss).clamp_min(floor)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("--batches", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--floor", type=float, default=1e-4)
    a = ap.parse_args()
    model, cfg, _state = load_denoiser(a.weights, "cpu")
    if not cfg.model.get("classes"):
        raise SystemExit(f"{a.weights}: preset {cfg.preset} has no class head")
    torch.manual_seed(0)
    make_batch = BatchMaker(cfg, torch.device("cpu"), rank=0, local_batch=a.batch, stream=SudokuStream("cpu"))
    res = targets(model, make_batch, a.batches, a.floor)
    n = len(next(iter(res.values())))
    print(f"{a.weights}: {cfg.preset}; {n} weighted cells of {a.batches} training batches of {a.batch}, "
          f"targets floored at {a.floor:g}")
    print(f"  {'target':<14}{'mean':>9}{'median':>10}{'p99':>9}{'top 1% share':>14}{'std/mean':>10}")
    for name, err in res.items():
        s = tail_stats(err)
        print(f"  {name:<14}{s['mean']:9.4f}{s['median']:10.5f}{s['p99']:9.3f}{s['top1']:14.3f}{s['cv']:10.2f}")


if __name__ == "__main__":
    main()
