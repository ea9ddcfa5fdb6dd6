"""Where does an Even Pixels SRM's last patch go wrong: in the count it reads, or in drawing it?

The completion probe (probe_even_pixels_completion.py) finds the shipped SRM finishing an exact image
but for one patch (K = 1) exactly only about half of the time, nearly every miss one pixel off. Two
causes would look the same there: the network reads the count the patch must take only roughly, or
it reads it well and the sampler's path from noise to a patch loses it. This probe tells them apart on
the same images and the same missing patch: it takes the network's one-step estimate of the missing
patch's colour-A count from pure noise (as probe_even_pixels_count.py does, on the canonical test
images), then lets the sampler complete the patch (as the completion probe does), and compares both
with the count the patch must hold. If the draw lands on the estimate rounded, the count the network
reads is what limits it; if the estimate is good and the draw misses anyway, the path is.

With --trajectory it also follows the network's x0-hat count of the missing patch through the draw (a
callback of the sampler: no extra evaluations): at each level of the patch, how often that count rounds to the
required one, for the draws that end exact and for those that miss. A count that is right at t = 1 and drifts off
on the way says the path loses it; one that stays right while the pixels miss says the last steps do.

Usage: python benchmarks/probe_completion_origin.py WEIGHTS [-n 200] [--steps 100] [--eta 1] [--seed 0]
       [--device cpu] [--trajectory]
(CPU: ~5 minutes at n = 200 and 100 NFE.) Prints the accuracy, how near the estimate is, and how the
draw's outcome depends on it.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from probe_even_pixels_completion import missing_masks  # run as a script: benchmarks/ is on the path
from probe_even_pixels_count import PATCH, by_patch
from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser, sample_images
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.schedules import SamplerConfig
from srm_bench.canonical import canonical_dataset


def colour_a(images: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each exact image's two colours (n, 3) each, A the smaller as an RGB tuple, and where A lies (n, H, W)."""
    a, b = np.empty((len(images), 3), np.uint8), np.empty((len(images), 3), np.uint8)
    for i, img in enumerate(images):
        found = np.unique(img.reshape(-1, 3), axis=0)
        if len(found) != 2:
            raise SystemExit(f"test image {i} has {len(found)} colours, not 2")
        a[i], b[i] = found
    return a, b, (images == a[:, None, None]).all(-1)


def nearer_a(images: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, H, W) True where a pixel is nearer colour A than colour B (the drawn pixels are not exact colours)."""
    x = images.astype(np.float32)
    da = ((x - a[:, None, None].astype(np.float32)) ** 2).sum(-1)
    db = ((x - b[:, None, None].astype(np.float32)) ** 2).sum(-1)
    return da < db


@torch.no_grad()
def estimate(model, images: np.ndarray, a: np.ndarray, b: np.ndarray, missing: np.ndarray, seed: int,
             device: str) -> np.ndarray:
    """The network's one-step colour-A count in the missing patches, each drawn from pure noise (t = 1)."""
    x = torch.from_numpy(images.astype(np.float32) / 127.5 - 1.0).permute(0, 3, 1, 2).contiguous().to(device)
    grid = images.shape[1] // PATCH
    t = torch.from_numpy(missing.astype(np.float32)).to(device)
    path = NoisePath("rectified_flow", "velocity")
    levels = pixel_levels(t, (grid, grid), PATCH)
    eps = torch.from_numpy(np.random.default_rng([seed, 7]).standard_normal(x.shape).astype(np.float32)).to(device)
    z = path.noise(x, eps, levels)
    x0, _ = path.split(z, model(z, t).mean.float(), levels)
    return soft_count(x0, a, b, missing)


def soft_count(x0: torch.Tensor, a: np.ndarray, b: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """The colour-A count of x0 (n, 3, H, W) in [-1, 1] over the missing patches, each pixel's share of A read
    along the line from colour B (0) to colour A (1)."""
    ca, cb = (torch.from_numpy(c.astype(np.float32) / 127.5 - 1.0)[:, :, None, None].to(x0.device) for c in (a, b))
    share = (((x0.float() - cb) * (ca - cb)).sum(1) / ((ca - cb) ** 2).sum(1)).cpu().numpy()  # 1 = colour A, 0 = B
    return (by_patch(share) * missing[..., None]).sum((1, 2))


TRACK_T = (1.0, 0.9, 0.75, 0.5, 0.25, 0.1, 0.05, 0.02)


def trajectory_report(levels: np.ndarray, counts: np.ndarray, required: np.ndarray, drawn: np.ndarray) -> list[str]:
    """Lines on how the network's x0-hat count of the missing patch (``counts``, steps x n) moves while the patch
    is drawn (its level ``levels``, steps x n): at the first step at or below each level of TRACK_T, how often
    it rounds to the required count, for the draws that end exact and for those that miss."""
    exact = drawn == required
    lines = [f"  x0-hat count of the missing patch while it is drawn (exact draws {exact.sum()}, misses "
             f"{(~exact).sum()}): rounded = required / mean |count - required|"]
    cols = np.arange(levels.shape[1])
    for lv in TRACK_T:
        below = levels <= lv + 1e-6
        if not below.any(0).all():
            continue
        at = counts[below.argmax(0), cols]
        right = np.round(at) == required
        parts = [f"all {right.mean():.3f} / {np.abs(at - required).mean():.2f} px"]
        for label, sel in (("exact draws", exact), ("misses", ~exact)):
            if sel.any():
                parts.append(f"{label} {right[sel].mean():.3f}")
        lines.append(f"    t <= {lv:<4}: " + "; ".join(parts))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights")
    ap.add_argument("-n", type=int, default=200, help="test images")
    ap.add_argument("--steps", type=int, default=100, help="NFE for the missing patch")
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--trajectory", action="store_true",
                    help="also follow the network's x0-hat count of the missing patch through its draw")
    args = ap.parse_args()
    images = canonical_dataset("even-pixels", "test").images(slice(0, args.n))
    model, cfg, record = load_denoiser(args.weights, args.device)
    if cfg.task != "even-pixels" or cfg.baseline != "srm":
        raise SystemExit(f"{args.weights}: a {cfg.baseline} on {cfg.task}; the probe needs an Even Pixels SRM")
    grid = images.shape[1] // cfg.model["patch_size"]
    known = missing_masks(len(images), grid * grid, 1, args.seed)
    missing = ~known
    a, b, is_a = colour_a(images)
    required = (by_patch(is_a) * missing[..., None]).sum((1, 2))
    guess = estimate(model, images, a, b, missing, args.seed, args.device)
    sampler = SamplerConfig(name="sequential", order="predicted", overlap=0.95, steps=args.steps, eta=args.eta)
    track_t: list[np.ndarray] = []
    track_count: list[np.ndarray] = []

    def track(state: dict) -> None:  # the missing patch's level and the network's x0-hat count of it, a step
        track_t.append((state["t"].float().cpu().numpy() * missing).sum(1))
        track_count.append(soft_count(state["x0_hat"], a, b, missing))

    out = sample_images(model, cfg, sampler, np.arange(len(images)), seed=args.seed, device=args.device,
                        batch_size=len(images), given=images, known=known,
                        callback=track if args.trajectory else None)
    drawn = (by_patch(nearer_a(out, a, b)) * missing[..., None]).sum((1, 2))
    off, miss = guess - required, drawn - required
    near = np.abs(off) < 0.5
    print(f"{args.weights}: {record.get('images', 0) / 1e6:.1f}M images; K = 1, {args.steps} NFE, eta {args.eta}, "
          f"n = {len(images)}")
    print(f"  drawn patch exact: {np.mean(miss == 0):.3f}; one pixel off: {np.mean(np.abs(miss) == 1):.3f}")
    print(f"  estimate: mean |estimate - required| {np.abs(off).mean():.2f} px; within 0.5 px in {near.mean():.3f}")
    print(f"  the estimate rounded is the required count in {np.mean(np.round(guess) == required):.3f}; "
          f"the draw equals the estimate rounded in {np.mean(drawn == np.round(guess)):.3f}")
    for label, sel in (("estimate within 0.5 px", near), ("estimate 0.5 px or more off", ~near)):
        if sel.any():
            print(f"  {label} ({sel.sum()}): drawn exact {np.mean(miss[sel] == 0):.3f}")
    if args.trajectory:
        print("\n".join(trajectory_report(np.stack(track_t), np.stack(track_count), required, drawn)))
    wrong = miss != 0
    if wrong.any():
        same = np.mean(np.sign(miss[wrong]) == np.sign(off[wrong]))
        print(f"  misses on the side the estimate errs: {same:.3f} of {wrong.sum()}; corr(draw error, estimate error) "
              f"{np.corrcoef(miss, off)[0, 1]:+.3f}")


if __name__ == "__main__":
    main()
