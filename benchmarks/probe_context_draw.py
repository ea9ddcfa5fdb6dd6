"""Does a denoiser lose a patch's count in the middle of its draw when it must compute the count itself?

The shipped Even Pixels SRM holds the count its last patch must take for 88% of test images a quarter of the way
into the patch's draw, and lands an exact patch for 51% (probe_completion_origin.py --trajectory). A toy denoiser
*told* the count draws exact 0.98-0.99 of the time (probe_patch_draw.py). This toy sits between them: a small image
(SIDE x SIDE, one channel, colour A = +1, B = -1, exactly half its pixels A) with one noisy 4 x 4 patch and the rest
clean, so the count the patch must hold is half the image less the A pixels of the clean rest, which the denoiser
has to compute. Three denoisers of the same blocks race at equal steps:
  told      convolutions, told the patch's count as an input channel (the control: nothing to compute)
  ctx       convolutions alone, which must count the clean pixels through their receptive field
  ctx+mean  the same, each block adding a linear map of its features' mean over the clean pixels (as the SRM's
            global-context branch does)
Each draws the patch from pure noise (100 NFE, eta 0 and 1, the SRM sampler's step; the clean rest held), and the
x0-hat count of the patch is followed through the draw: how often it rounds to the required count when the patch's
level first reaches 1.0, 0.75, 0.5 and 0.25, and at the end.

Usage: python benchmarks/probe_context_draw.py [--side 8] [--steps 3000] [--batch 256] [--width 64] [--nfe 100]
       [--seed 0] [--variants told ctx ctx+mean]
(CPU: ~5 minutes a variant at side 8 and the defaults.)
"""
from __future__ import annotations

import argparse
import time

import torch
import torch.nn as nn

from probe_patch_draw import common_args, fit, srm_step  # run as a script: benchmarks/ is on the path

PATCH = 4
TRACK_T = (1.0, 0.75, 0.5, 0.25)


def draw_images(n: int, side: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(n, 1, side, side) images of +-1 with exactly half their pixels +1, a noisy patch mask (n, 1, side, side)
    at a uniform patch, and that patch's count of +1 pixels (n,)."""
    pix = side * side
    order = torch.rand(n, pix, generator=gen).argsort(1).argsort(1)
    x = torch.where(order < pix // 2, 1.0, -1.0).view(n, 1, side, side)
    grid = side // PATCH
    p = torch.randint(0, grid * grid, (n,), generator=gen)
    mask = torch.zeros(n, 1, grid, grid)
    mask.view(n, -1)[torch.arange(n), p] = 1.0
    mask = mask.repeat_interleave(PATCH, 2).repeat_interleave(PATCH, 3)
    k = ((x > 0).float() * mask).sum((1, 2, 3))
    return x, mask, k


class Block(nn.Module):
    def __init__(self, width: int, mean: bool) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(width, width, 3, padding=1)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1)
        self.mean = nn.Linear(width, width) if mean else None

    def forward(self, h: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        r = self.conv1(torch.nn.functional.silu(h))
        if self.mean is not None:  # the features' mean over the clean pixels
            m = (r * clean).sum((2, 3)) / clean.sum((2, 3)).clamp_min(1.0)
            r = r + self.mean(m)[:, :, None, None]
        return h + self.conv2(torch.nn.functional.silu(r))


class Denoiser(nn.Module):
    """Input: the image (the patch noisy), the patch mask, t on the patch, and for ``told`` the count / 16."""

    def __init__(self, variant: str, width: int) -> None:
        super().__init__()
        self.told = variant == "told"
        self.inp = nn.Conv2d(4 if self.told else 3, width, 3, padding=1)
        self.blocks = nn.ModuleList(Block(width, variant == "ctx+mean") for _ in range(3))
        self.out = nn.Conv2d(width, 1, 3, padding=1)

    def forward(self, z: torch.Tensor, mask: torch.Tensor, t: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        chans = [z, mask, t[:, None, None, None] * mask]
        if self.told:
            chans.append((k / (PATCH * PATCH))[:, None, None, None].expand_as(z))
        h = self.inp(torch.cat(chans, 1))
        for b in self.blocks:
            h = b(h, 1.0 - mask)
        return self.out(torch.nn.functional.silu(h))


def train(model: Denoiser, steps: int, batch: int, side: int, lr: float, gen: torch.Generator) -> None:
    """``fit`` on batches of images with one noisy patch at t ~ U(0, 1), the patch's velocity the target."""
    def batch_loss() -> torch.Tensor:
        x, mask, k = draw_images(batch, side, gen)
        t = torch.rand(batch, generator=gen)
        eps = torch.randn(x.shape, generator=gen)
        tm = t[:, None, None, None] * mask
        z = (1 - tm) * x + tm * eps
        err = (model(z, mask, t, k) - (eps - x)) ** 2
        return (err * mask).sum() / mask.sum()  # the velocity of the noisy patch only

    fit(model, steps, lr, batch_loss)


@torch.no_grad()
def sample(model: Denoiser, x: torch.Tensor, mask: torch.Tensor, k: torch.Tensor, nfe: int, eta: float,
           gen: torch.Generator) -> tuple[torch.Tensor, list[torch.Tensor], list[float]]:
    """The patch drawn from pure noise with the clean rest held; returns the image, and the x0-hat count of the
    patch (n,) with its level at every step."""
    z = torch.where(mask > 0, torch.randn(x.shape, generator=gen), x)
    ts = torch.linspace(1, 0, nfe + 1)
    counts, levels = [], []
    for t, s in zip(ts[:-1], ts[1:]):
        u = model(z, mask, torch.full((len(x),), float(t)), k)
        x0, eps = z - t * u * mask, z + (1 - t) * u * mask
        counts.append((((x0 + 1) / 2) * mask).sum((1, 2, 3)))
        levels.append(float(t))
        if s == 0:
            z = torch.where(mask > 0, x0, x)
            break
        z = torch.where(mask > 0, srm_step(x0, eps, t, s, eta, gen), x)
    return z, counts, levels


def trajectory(counts: list[torch.Tensor], levels: list[float], k: torch.Tensor) -> str:
    """How often the x0-hat count rounds to k at the first step at or below each level of TRACK_T."""
    parts = []
    for lv in TRACK_T:
        i = next(j for j, t in enumerate(levels) if t <= lv + 1e-6)
        parts.append(f"t {lv}: {(counts[i].round() == k).float().mean():.3f}")
    return ", ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", type=int, default=8, help="image side, a multiple of 4")
    common_args(ap)
    ap.add_argument("--variants", nargs="+", default=["told", "ctx", "ctx+mean"], choices=["told", "ctx", "ctx+mean"])
    args = ap.parse_args()
    if args.steps < 40:  # the one-cycle schedule needs a warm-up of at least two steps
        raise SystemExit("--steps: at least 40")
    if args.side % PATCH or args.side < 2 * PATCH:
        raise SystemExit(f"--side {args.side}: a multiple of {PATCH}, at least {2 * PATCH}")
    x, mask, k = draw_images(2048, args.side, torch.Generator().manual_seed(10_000 + args.seed))
    for variant in args.variants:
        torch.manual_seed(args.seed)
        model = Denoiser(variant, args.width)
        t0 = time.perf_counter()
        train(model, args.steps, args.batch, args.side, args.lr, torch.Generator().manual_seed(args.seed))
        line = []
        for eta in (0.0, 1.0):
            z, counts, levels = sample(model, x, mask, k, args.nfe, eta, torch.Generator().manual_seed(args.seed + 1))
            drawn = ((z > 0).float() * mask).sum((1, 2, 3))
            line.append(f"eta {eta:.0f}: exact {(drawn == k).float().mean():.3f} (x0-hat count right at "
                        f"{trajectory(counts, levels, k)})")
        params = sum(p.numel() for p in model.parameters())
        print(f"{variant:8s} ({params / 1e3:.0f}k params, side {args.side}, {args.steps} steps of {args.batch}, "
              f"{args.nfe} NFE): {'; '.join(line)}  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
