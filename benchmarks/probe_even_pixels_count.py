"""Does an Even Pixels SRM count? A progress signal that accuracy hides.

Accuracy needs a sample's two colour counts exactly equal (512 / 512); a model that has learned
to count only roughly scores near 0 for a long time. This probe asks the counting question
directly. It draws true images (exactly half of the pixels in each colour), puts k of the 64
patches back to pure noise (t = 1) and keeps the rest clean, and reads from the model's one-step
prediction x0-hat how much of colour A it puts into the noisy patches. The fraction they *must*
hold is fixed by the clean rest (the image holds 512 of each); a model that ignores the count
predicts ~0.5 whatever the context. The regression slope of predicted on required fraction is 1
for an exact counter and 0 for a count-blind one; r is their correlation. "px about the line" is the
spread of the predicted count about its regression line: small with a slope below 1 means the network
knows the count better than it shows it (a recalibration would help); as large as the error itself means
the count is noisy. (Twenty-seventh session, the SRMs at 204.8-213M images: with one noisy patch 0.33-0.38 px
about lines of slope 0.78-0.84, some of each; with 4 to 24 noisy patches 0.50-1.31 px, all of the error.)

Usage: python benchmarks/probe_even_pixels_count.py WEIGHTS... [-n 256] [--noisy 1 4 16] [--seed 0] [--device cpu] [--bf16]
(CPU, ~20 s a model at n = 256.) Prints one line per model and k.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.noise import NoisePath
from srm_bench.generators.even_pixels import palette

SIDE, PATCH = 32, 4
GRID = SIDE // PATCH  # 8 x 8 patches


def by_patch(a: np.ndarray) -> np.ndarray:
    """(n, 32, 32) -> (n, 64, 16): pixels grouped by 4 x 4 patch, patches row-major."""
    n = a.shape[0]
    return a.reshape(n, GRID, PATCH, GRID, PATCH).transpose(0, 1, 3, 2, 4).reshape(n, GRID * GRID, PATCH * PATCH)


@torch.no_grad()
def probe(model, n: int, k: int, rng: np.random.Generator, device: str = "cpu",
          bf16: bool = False) -> tuple[float, float, float, float]:
    """Slope and correlation of predicted on required colour-A fraction in k noisy patches, the
    mean absolute count error there in pixels, and the error left after a linear recalibration
    (the residual's standard deviation, in pixels; see :func:`calibration`). ``bf16``: the forward under bf16 autocast, as the
    sampler runs a bf16-trained model on CUDA (else in float32)."""
    colours = palette(rng.uniform(0, 0.5, n)).astype(np.float32) / 127.5 - 1.0  # (n, 2, 3) in [-1, 1]
    is_a = np.argsort(rng.random((n, SIDE * SIDE)), axis=1) < SIDE * SIDE // 2  # exactly 512 of colour A
    is_a = is_a.reshape(n, SIDE, SIDE)
    noisy = np.argsort(rng.random((n, GRID * GRID)), axis=1) < k  # k noisy patches per image
    required = (by_patch(is_a) * noisy[..., None]).sum((1, 2)) / (k * PATCH * PATCH)
    x = np.where(is_a[..., None], colours[:, None, None, 0], colours[:, None, None, 1]).transpose(0, 3, 1, 2)
    x_t = torch.from_numpy(np.ascontiguousarray(x)).to(device)
    t = torch.from_numpy(noisy.astype(np.float32)).to(device)
    path = NoisePath("rectified_flow", "velocity")
    levels = pixel_levels(t, (GRID, GRID), PATCH)
    z = path.noise(x_t, torch.from_numpy(rng.standard_normal(x.shape).astype(np.float32)).to(device), levels)
    with torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=bf16):
        u = model(z, t).mean.float()
    x0, _ = path.split(z, u, levels)
    a, b = (torch.from_numpy(colours[:, i])[:, :, None, None].to(device) for i in (0, 1))
    share = (((x0 - b) * (a - b)).sum(1) / ((a - b) ** 2).sum(1)).cpu().numpy()  # 1 = colour A, 0 = colour B
    predicted = (by_patch(share).mean(-1) * noisy).sum(1) / k
    slope, _, r, residual = calibration(required, predicted)
    px = k * PATCH * PATCH
    return slope, r, float(np.abs(predicted - required).mean() * px), residual * px


def calibration(required: np.ndarray, predicted: np.ndarray) -> tuple[float, float, float, float]:
    """Slope and intercept of the least-squares line of predicted on required, their correlation, and
    the standard deviation of predicted about that line. A network that knows the count but shows only
    part of it (predicted = s * required + c) has a small residual and a slope below 1; one that knows it
    only roughly has a large residual whatever its slope."""
    slope, intercept = np.polyfit(required, predicted, 1)
    residual = predicted - (slope * required + intercept)
    return float(slope), float(intercept), float(np.corrcoef(required, predicted)[0, 1]), float(residual.std())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("-n", type=int, default=256, help="images per probe")
    ap.add_argument("--noisy", type=int, nargs="+", default=[1, 4, 16], help="noisy patches per image")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="cpu or cuda (the draws are the same; the figures agree to float precision)")
    ap.add_argument("--bf16", action="store_true",
                    help="run the network under bf16 autocast, as `srm-bench sample` does on CUDA (default: float32)")
    a = ap.parse_args()
    for w in a.weights:
        model, cfg, state = load_denoiser(w, a.device)
        if cfg.task != "even-pixels" or cfg.baseline != "srm":
            raise SystemExit(f"{w}: a {cfg.baseline} on {cfg.task}; the probe needs an Even Pixels SRM")
        images = state.get("images")
        for k in a.noisy:
            slope, r, err, residual = probe(model, a.n, k, np.random.default_rng([a.seed, k]), a.device, a.bf16)
            print(f"{w}: {images / 1e6 if images else float('nan'):.1f}M images{', bf16' if a.bf16 else ''}, {k:2d} noisy patches: "
                  f"slope {slope:+.3f}, r {r:+.3f}, "
                  f"|count error| {err:.2f} px, {residual:.2f} px about the line", flush=True)


if __name__ == "__main__":
    main()
