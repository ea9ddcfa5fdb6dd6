"""Where a training step's GPU time goes: torch.profiler over a few forward + backward
passes of a preset's network (bf16 autocast), top kernels by CUDA time.

Usage: python benchmarks/profile_step.py --task sudoku --preset cell-lite --batch 256
"""
from __future__ import annotations

import argparse
import time

import torch

from srm_bench.baselines.presets import make_config
from srm_bench.baselines.train import build_model


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="sudoku")
    ap.add_argument("--preset", default="cell-lite")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--channels-last", action="store_true")
    args = ap.parse_args()
    cfg = make_config(args.task, "srm", args.preset)
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    model = build_model(cfg.arch, cfg.model).to(dev)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    size, ch, patch = cfg.model["image_size"], cfg.model["in_channels"], cfg.model["patch_size"]
    x = torch.randn(args.batch, ch, size, size, device=dev)
    t = torch.rand(args.batch, (size // patch) ** 2, device=dev)

    def step() -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x, t)
        (out.mean.float().square().mean() + out.v.float().square().mean() + out.logvar.mean()).backward()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) / 5 * 1000
    print(f"{args.preset} batch {args.batch} channels_last={args.channels_last}: {ms:.1f} ms/step, "
          f"{args.batch / ms * 1000:.0f} images/s, peak {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=60))


if __name__ == "__main__":
    main()
