"""Does an Even Pixels SRM hold a patch's colour count while the patch denoises, and how much of its error is the count?

The count probe (probe_even_pixels_count.py) reads the network at t = 1 only. A sample is lost later: in the
completion probe's trajectories the last patch's x0-hat count is right at t <= 0.5 and wrong by t <= 0.25 in a
quarter of the images (origin probe, thirty-second lease), when each pixel's colour becomes readable from its noisy
value and the patch must commit exactly k of its 16 pixels. This probe asks that question of correctly noised states:
a true image (512 / 512) with k patches at level t and the rest clean. With k = 1 the patch's count is fixed by the
clean rest, so an exact network's x0-hat holds it at every t; with k > 1 only the k patches' sum is.

For the noisy patches it prints, per t:
  - mse: the velocity MSE (per pixel and channel), the loss's own term;
  - pmse / mse: the patch-mean term of ``LossWeights.patch_mse`` over the MSE. 1 is a residual white over the patch
    (no count in it); 0 is a residual with nothing left in the patch means;
  - |count error|: the x0-hat count of each noisy patch (its mean colour read on the image's two-colour axis, times
    16) against the patch's true count, in pixels, and for k > 1 the error of the k patches' sum;
  - exact share: patches (k > 1: sums) within half a pixel.

Usage: python benchmarks/probe_patch_mean_error.py WEIGHTS... [-n 256] [--noisy 1 4] [--levels 1 0.75 0.5 0.25 0.1]
       [--seed 0] [--device cpu]
(CPU: ~2 s a forward of 256 images; the default grid takes ~30 s a model.)
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
import torch.nn.functional as F

from probe_even_pixels_count import GRID, PATCH, SIDE, by_patch
from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.noise import NoisePath
from srm_bench.generators.even_pixels import palette


def states(n: int, k: int, level: float, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` true images in [-1, 1] (n, 3, 32, 32), their two colours (n, 2, 3), colour A per pixel (n, 32, 32),
    ``k`` noisy patches per image (n, 64) as a mask, the noise (n, 3, 32, 32)."""
    colours = palette(rng.uniform(0, 0.5, n)).astype(np.float32) / 127.5 - 1.0
    is_a = (np.argsort(rng.random((n, SIDE * SIDE)), axis=1) < SIDE * SIDE // 2).reshape(n, SIDE, SIDE)
    noisy = np.argsort(rng.random((n, GRID * GRID)), axis=1) < k
    x = np.where(is_a[..., None], colours[:, None, None, 0], colours[:, None, None, 1]).transpose(0, 3, 1, 2)
    return {"x": np.ascontiguousarray(x), "colours": colours, "is_a": is_a, "noisy": noisy,
            "eps": rng.standard_normal(x.shape).astype(np.float32), "level": np.float32(level)}


def patch_counts(x: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """(n, 64) colour-A count of every patch read from its mean colour on the two-colour axis (exact for a clean
    patch, a real number for x0-hat)."""
    a, b = colours[:, 0], colours[:, 1]  # (n, 3)
    mean = F.avg_pool2d(torch.from_numpy(x), PATCH).flatten(2).numpy()  # (n, 3, 64)
    axis = a - b
    share = np.einsum("ncp,nc->np", mean - b[:, :, None], axis) / (axis * axis).sum(1, keepdims=True)
    return share * PATCH * PATCH


@torch.no_grad()
def measure(model: torch.nn.Module, s: dict[str, np.ndarray], device: str) -> dict[str, float]:
    path = NoisePath("rectified_flow", "velocity")
    t = torch.from_numpy(s["noisy"].astype(np.float32) * s["level"]).to(device)
    x, eps = torch.from_numpy(s["x"]).to(device), torch.from_numpy(s["eps"]).to(device)
    t_pix = pixel_levels(t, (GRID, GRID), PATCH)
    z = path.noise(x, eps, t_pix)
    u = model(z, t).mean.float()
    res = u - path.target_of(x, eps, t_pix)
    x0_hat = path.split(z, u, t_pix)[0]
    noisy = s["noisy"]
    mse = F.avg_pool2d((res ** 2).mean(1, keepdim=True), PATCH).flatten(1).cpu().numpy()[noisy]
    pmse = ((F.avg_pool2d(res, PATCH) ** 2).mean(1) * PATCH * PATCH).flatten(1).cpu().numpy()[noisy]
    true = by_patch(s["is_a"]).sum(-1)  # (n, 64)
    err = patch_counts(x0_hat.cpu().numpy(), s["colours"]) - true
    k = int(noisy[0].sum())
    sums = np.where(noisy, err, 0.0).sum(1)
    ratio = float(pmse.mean() / mse.mean()) if mse.mean() > 0 else float("nan")  # nan: no residual at all
    return {"mse": float(mse.mean()), "ratio": ratio, "count": float(np.abs(err[noisy]).mean()),
            "exact": float((np.abs(err[noisy]) < 0.5).mean()), "sum": float(np.abs(sums).mean()),
            "sum_exact": float((np.abs(sums) < 0.5).mean()), "k": k}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("-n", type=int, default=256)
    ap.add_argument("--noisy", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--levels", type=float, nargs="+", default=[1.0, 0.75, 0.5, 0.25, 0.1])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    for w in a.weights:
        model, cfg, _ = load_denoiser(w, a.device)
        print(f"{w}: {cfg.baseline} {cfg.preset}; n = {a.n} images a row, k noisy patches at level t, the rest clean")
        for k in a.noisy:
            for level in a.levels:
                m = measure(model, states(a.n, k, level, np.random.default_rng([a.seed, k, int(level * 1000)])), a.device)
                extra = f"; sum of the {k}: |error| {m['sum']:.2f} px, exact {m['sum_exact']:.3f}" if k > 1 else ""
                print(f"  k = {k:2d}, t = {level:.2f}: mse {m['mse']:.4f}, pmse / mse {m['ratio']:.3f}, "
                      f"|count error| {m['count']:.2f} px, exact {m['exact']:.3f}{extra}", flush=True)


if __name__ == "__main__":
    main()
