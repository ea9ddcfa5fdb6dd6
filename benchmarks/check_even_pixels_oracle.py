"""How far can the samplers go on Even Pixels with a perfect denoiser? An oracle ceiling.

The oracle knows each sample's two colours (drawn as the generator draws them) and returns the
exact posterior mean of the clean image given the noisy one under the task's rule (exactly 512
pixels of each colour): each pixel's likelihood of either colour from its noisy value under
z = (1 - t) x + t eps, then the count rule by dynamic programming over the 1,024 pixels (the
count distributions of the pixels before and after each one). Its velocity goes through the
same schedule and reverse step as a trained model's (baselines/samplers.py), and the samples
are scored by the Even Pixels evaluator. What a sampler loses with the oracle, it loses with any
model: the ceiling a trained network can reach. Predicted order ranks patches by the oracle's
posterior variance; the noise scale is the small one (v = -1) unless --v says otherwise.

Usage: python benchmarks/check_even_pixels_oracle.py [-n 32] [--samplers parallel random@0.95 ...]
       [--steps 1000] [--eta 1] [--v -1] [--seed 0]
Prints per sampler: accuracy (the paper's metric), strict accuracy, mean |count - 512|, seconds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from srm_bench.baselines.diffusion import DenoiserOutput, pixel_levels
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.samplers import sample
from srm_bench.baselines.schedules import SamplerConfig, make_schedule
from srm_bench.evaluators.even_pixels import score_images
from srm_bench.generators.even_pixels import HALF, palette
from srm_bench.registry import get_task

TASK = get_task("even-pixels")
SIDE, PATCH = TASK.image_side, TASK.patch_size
GRID = SIDE // PATCH


def count_table(p_a: np.ndarray) -> np.ndarray:
    """(B, N + 1, HALF + 1): row i is the distribution (rescaled) of the colour-A count over
    pixels 0..i-1, truncated at HALF (a prefix with more can never end at exactly HALF)."""
    b, n = p_a.shape
    table = np.zeros((b, n + 1, HALF + 1))
    table[:, 0, 0] = 1.0
    for i in range(n):
        row = table[:, i] * (1.0 - p_a[:, i:i + 1])
        row[:, 1:] += table[:, i, :-1] * p_a[:, i:i + 1]
        table[:, i + 1] = row / row.sum(1, keepdims=True)
    return table


def posterior_a(p_a: np.ndarray) -> np.ndarray:
    """P(pixel i is colour A | every pixel's own evidence p_a, exactly HALF pixels are A), (B, N)."""
    fwd = count_table(p_a)[:, :-1]  # pixels before i
    bwd = count_table(p_a[:, ::-1])[:, ::-1][:, 1:]  # pixels after i
    # rest = HALF - 1 (pixel i is A) or HALF (pixel i is B) among the others: sum_c fwd[c] bwd[rest - c]
    with_a = np.einsum("bic,bic->bi", fwd[:, :, :HALF], bwd[:, :, HALF - 1::-1])
    with_b = np.einsum("bic,bic->bi", fwd, bwd[:, :, ::-1])
    num = p_a * with_a
    return num / np.maximum(num + (1.0 - p_a) * with_b, 1e-300)


class Oracle:
    """``oracle(z, t, cond) -> DenoiserOutput``: the exact posterior-mean velocity for images whose
    colours are ``colours`` (B, 2, 3) in [-1, 1]."""

    def __init__(self, colours: np.ndarray, v: float) -> None:
        self.colours, self.v = colours.astype(np.float64), v

    def __call__(self, z: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None = None) -> DenoiserOutput:
        b = z.shape[0]
        lv = pixel_levels(t.float(), (GRID, GRID), PATCH)  # (B, 1, H, W)
        zz = z.double().numpy().transpose(0, 2, 3, 1).reshape(b, -1, 3)
        tt = lv.double().numpy().reshape(b, -1, 1)
        ca, cb = self.colours[:, None, 0], self.colours[:, None, 1]
        scale = np.maximum(tt, 1e-4) ** 2  # t = 0: the pixel is its own colour, decided by the nearest
        logit = -(((zz - (1 - tt) * ca) ** 2).sum(-1) - ((zz - (1 - tt) * cb) ** 2).sum(-1)) / (2 * scale[..., 0])
        p_a = 1.0 / (1.0 + np.exp(-np.clip(logit, -60, 60)))
        post = posterior_a(p_a)[..., None]
        x0 = post * ca + (1 - post) * cb  # (B, N, 3)
        var = (post * (1 - post))[..., 0] * ((ca - cb) ** 2).sum(-1)  # (B, N)
        x0_t = torch.from_numpy(x0.reshape(b, SIDE, SIDE, 3).transpose(0, 3, 1, 2).copy()).float()
        u = (z - x0_t) / lv.clamp_min(1e-8)  # x0 = z - t u under the velocity target
        patch_var = var.reshape(b, GRID, PATCH, GRID, PATCH).mean((2, 4)).reshape(b, -1)
        logvar = torch.from_numpy(np.log(patch_var + 1e-12)).float()
        return DenoiserOutput(u, torch.full_like(z, self.v), logvar)


def parse(spec: str, steps: int, eta: float) -> SamplerConfig:
    """``parallel``, ``random@0.95``, ``predicted@0.95``, ``random`` (overlap 0)."""
    if spec == "parallel":
        return SamplerConfig(name="parallel", steps=steps, eta=eta)
    order, _, overlap = spec.partition("@")
    return SamplerConfig(name="sequential", order=order, overlap=float(overlap or 0), steps=steps, eta=eta)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=32, help="samples per sampler")
    ap.add_argument("--samplers", nargs="+", default=["parallel", "random@0.95", "predicted@0.95", "random"])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--v", type=float, default=-1.0, help="noise-scale interpolation: -1 small, 1 large")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    colours = palette(rng.uniform(0, 0.5, a.n)).astype(np.float64) / 127.5 - 1.0  # (n, 2, 3)
    oracle = Oracle(colours, a.v)
    path = NoisePath("rectified_flow", "velocity")
    for spec in a.samplers:
        cfg = parse(spec, a.steps, a.eta)
        cfg.validate(GRID * GRID)
        gens = [torch.Generator().manual_seed(a.seed * 100_003 + i) for i in range(a.n)]
        x = torch.stack([torch.randn((3, SIDE, SIDE), generator=g) for g in gens])
        t0 = time.perf_counter()
        with torch.inference_mode():
            res = sample(oracle, x, make_schedule(cfg, GRID * GRID), path=path, generators=gens, patch_size=PATCH,
                         eta=a.eta)
        images = ((res + 1.0) * 127.5).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()
        sc = score_images(images)
        print(f"{spec:16s} eta {a.eta:g} v {a.v:+g} {a.steps} NFE: accuracy {sc['accuracy'].mean():.3f}, strict "
              f"{sc['strict_accuracy'].mean():.3f}, mean error {sc['error'].mean():.2f} px, "
              f"strict error {sc['strict_error'].mean():.2f} px ({a.n} samples, {time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
