"""Which Even Pixels network learns to count sooner? A race on the counting sub-task alone.

Each training image is a true Even Pixels image (512 / 512) with k of its 64 patches put back to
pure noise (t = 1, k uniform in 1..24) and the rest clean; the network learns the velocity in the
noisy patches (plain MSE, fp32, AdamW). That is the question the last patches of a sequential
sample pose, without the rest of the SRM objective. Every preset trains from the same seed on the
same draws for the same steps, then benchmarks/probe_even_pixels_count.py's probe reads how well
it counts (slope 1 and error 0 are exact counting). A cheap screen for an architecture change
before GPU time, not a substitute for the full objective.

Usage: python benchmarks/probe_even_pixels_capacity.py [--presets unet-s unet-s-gc] [--minutes 5]
       [--batch 32] [--lr 8e-4] [-n 512] [--noisy 1 4 16 24] [--seed 0] [--device cpu]
Prints per preset: steps, images, seconds, final loss, and the probe's line per k.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from probe_even_pixels_count import GRID, PATCH, probe
from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.presets import make_config
from srm_bench.baselines.streams import EvenPixelsStream
from srm_bench.baselines.train import build_model


def train(preset: str, minutes: float, batch: int, lr: float, seed: int, device: str, max_noisy: int = 24,
          max_steps: int | None = None) -> tuple[torch.nn.Module, int, float, float]:
    """(model, steps, seconds, last loss) after ``minutes`` (or ``max_steps``) on the sub-task."""
    cfg = make_config("even-pixels", "srm", preset)
    torch.manual_seed(seed)
    model = build_model(cfg.arch, cfg.model).to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.95, 0.999), weight_decay=1e-6)
    stream, path = EvenPixelsStream(device), NoisePath("rectified_flow", "velocity")
    gen = torch.Generator(device).manual_seed(seed)
    t0, step, loss_val = time.perf_counter(), 0, float("nan")
    while (max_steps is None or step < max_steps) and time.perf_counter() - t0 < 60 * minutes:
        torch.manual_seed(seed * 1_000_003 + step)  # the stream's draws: the same for every preset
        x = stream.draw(batch).x
        k = torch.randint(1, max_noisy + 1, (batch, 1), generator=gen, device=device)
        t = (torch.rand(batch, GRID * GRID, generator=gen, device=device).argsort(1) < k).float()
        eps = torch.randn(x.shape, generator=gen, device=device)
        levels = pixel_levels(t, (GRID, GRID), PATCH)
        z = path.noise(x, eps, levels)
        u = model(z, t).mean
        loss = (((u - (eps - x)) ** 2) * levels).sum() / (levels.sum() * x.shape[1])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for g in opt.param_groups:
            g["lr"] = lr * min(1.0, (step + 1) / 100)
        opt.step()
        step += 1
        loss_val = float(loss.detach())
    return model.eval(), step, time.perf_counter() - t0, loss_val


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", default=["unet-s", "unet-s-gc"])
    ap.add_argument("--minutes", type=float, default=5.0, help="training time a preset (the step count of the first "
                    "preset is then used for the others, so all see the same images)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=8e-4)
    ap.add_argument("-n", type=int, default=512, help="images per probe")
    ap.add_argument("--noisy", type=int, nargs="+", default=[1, 4, 16, 24])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    steps = None
    for preset in a.presets:
        model, done, secs, loss = train(preset, a.minutes if steps is None else 1e9, a.batch, a.lr, a.seed, a.device,
                                        max_steps=steps)
        steps = steps or done
        n_par = sum(p.numel() for p in model.parameters())
        print(f"{preset} ({n_par / 1e6:.2f}M): {done} steps, {done * a.batch:,} images, {secs:.0f} s, loss {loss:.4f}", flush=True)
        with torch.no_grad():
            for k in a.noisy:
                slope, r, err, _ = probe(model, a.n, k, np.random.default_rng([a.seed, k]), a.device)
                print(f"  {k:2d} noisy patches: slope {slope:+.3f}, r {r:+.3f}, |count error| {err:.2f} px", flush=True)


if __name__ == "__main__":
    main()
