"""How precisely can a global-context branch count? A toy that isolates the branch.

Even Pixels needs a count exact to one pixel in 1,024. Our SRMs' counting probe
(`probe_even_pixels_count.py`) reads the count out of the whole network with one noisy patch at slope
~0.8 and ~0.35 px about the line: the network's own estimate is noisy by ~1 px. This probe asks whether
the global-context branch (`baselines.unet.GlobalContext`: image-wide fp32 means of pointwise
features of the clean pixels, then an MLP) can count more precisely than that when trained for nothing
else. It trains the branch plus a linear readout to output the clean region's colour-count difference
(pixels of the first colour minus pixels of the second) on fresh Even Pixels images with k ~ U{1..24} of
the 64 patches pure noise (weight 0), and reports the test error in pixels. Variants:

- ``mean``: the branch as the SRMs have it (pointwise SiLU MLP, means, learnt centre and gain, MLP);
- ``tanh``: the pointwise features squashed by tanh before the means, so that a feature can saturate
  to +-1 on both colours and their means become exact counts whatever the colours' offset;
- ``ratio``: ``mean`` plus, per feature, sum(clean * f) / sum(clean * |f|) times the clean fraction:
  exact when f takes opposite values on the two colours.

A branch that cannot get under ~0.5 px here cannot give the UNet an exact count.

Usage: python benchmarks/probe_count_precision.py [--variants mean tanh ratio] [--steps 3000]
       [--batch 256] [--width 32] [--seed 0]
(CPU: ~1-3 minutes a variant at the defaults.)
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.unet import GlobalContext
from srm_bench.generators.even_pixels import palette

SIDE, PATCH, GRID = 32, 4, 8


def batch(n: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Images (n, 3, 32, 32) in [-1, 1] with k ~ U{1..24} patches replaced by noise, their clean map
    (n, 1, 32, 32) and the clean region's count difference, first colour minus second (n,). The hue offset is
    drawn from [0.05, 0.45], not the task's [0, 0.5): which colour is "first" flips where the offset wraps, a
    label no smooth function of the colours can follow (the UNet needs none: it paints the colours it sees)."""
    colours = palette(rng.uniform(0.05, 0.45, n)).astype(np.float32) / 127.5 - 1.0
    n_a = rng.integers(512 - 48, 512 + 49, n)  # around the balance the task lives at
    is_a = np.argsort(rng.random((n, SIDE * SIDE)), axis=1) < n_a[:, None]
    is_a = is_a.reshape(n, SIDE, SIDE)
    k = rng.integers(1, 25, n)
    noisy = np.argsort(rng.random((n, GRID * GRID)), axis=1) < k[:, None]
    clean = 1.0 - pixel_levels(torch.from_numpy(noisy.astype(np.float32)), (GRID, GRID), PATCH)
    x = np.where(is_a[..., None], colours[:, None, None, 0], colours[:, None, None, 1]).transpose(0, 3, 1, 2)
    x = torch.from_numpy(np.ascontiguousarray(x))
    x = x * clean + torch.from_numpy(rng.standard_normal(x.shape).astype(np.float32)) * (1 - clean)
    c = clean[:, 0].numpy() > 0.5
    target = (is_a & c).sum((1, 2)) - (~is_a & c).sum((1, 2))
    return x, clean, torch.from_numpy(target.astype(np.float32))


class Branch(nn.Module):
    """The branch and a linear readout: ``mean`` and ``tanh`` are ``GlobalContext`` itself, unsquashed and
    squashed; ``ratio`` adds its per-feature ratios to the first layer of the branch's MLP."""

    def __init__(self, variant: str, width: int, out: int = 64) -> None:
        super().__init__()
        self.variant = variant
        self.gc = GlobalContext(3, width, out, squash=variant == "tanh")
        if variant == "ratio":
            self.ratio = nn.Linear(width, out)
        self.read = nn.Linear(out, 1)

    def forward(self, x: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        gc = self.gc
        if self.variant != "ratio":
            h = gc(x, clean)
        else:
            f = gc.point(torch.cat([x, clean], dim=1))
            n = clean.shape[-1] * clean.shape[-2]
            frac = clean.sum(dim=(2, 3)) / n
            scaled = ((f * clean).sum(dim=(2, 3)) / n - gc.centre) * gc.log_gain.exp()
            r = (f * clean).sum(dim=(2, 3)) / ((f.abs() * clean).sum(dim=(2, 3)) + 1e-6) * frac
            h = gc.mlp[1:](gc.mlp[0](torch.cat([scaled, frac], dim=1)) + self.ratio(r * gc.log_gain.exp()))
        return self.read(h).squeeze(1) * 64.0  # in pixels; the target's sd is ~47 px


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", nargs="+", default=["mean", "tanh", "ratio"], choices=["mean", "tanh", "ratio"])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    test = batch(2048, np.random.default_rng([args.seed, 1]))
    for v in args.variants:
        torch.manual_seed(args.seed)
        rng = np.random.default_rng([args.seed, 0])
        model = Branch(v, args.width)
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.steps, pct_start=0.05)
        t0 = time.perf_counter()
        for _ in range(args.steps):
            x, c, y = batch(args.batch, rng)
            loss = ((model(x, c) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        with torch.no_grad():
            err = (model(test[0], test[1]) - test[2]).abs()
        print(f"{v:5s}: |error| {err.mean():.3f} px, {(err < 0.5).float().mean():.3f} within 0.5 px, "
              f"max {err.max():.2f} px  ({args.steps} steps of {args.batch}, {time.perf_counter() - t0:.0f} s)",
              flush=True)


if __name__ == "__main__":
    main()
