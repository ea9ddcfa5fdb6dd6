"""Can a trained Even Pixels model finish an image that is exact but for K patches?

Sampling ends with a few patches still noisy and every other pixel fixed; the image is exact
only if those last patches take exactly the colour counts the rest leaves them. This probe asks
the trained SRM to do that last part alone: it takes the canonical test images (exactly 512 /
512 pixels), keeps all but K patches as given (clean, t = 0, clamped as Sudoku's clues are),
draws the K patches again with the model's own sampler (`sample_images` with ``given`` and
``known``, the order, overlap, NFE and eta as asked), and scores the completed images with the
task's evaluator. K = 1 is the last patch of a sequential sample; larger K is the state that
overlap 0.95 decides in (~20 patches in flight). The missing patches are a random K of the 64,
drawn per image from --seed. A model that counts exactly completes every image.

Usage: python benchmarks/probe_even_pixels_completion.py WEIGHTS... [-n 100] [--missing 1 4 16]
       [--order predicted] [--overlap 0.95] [--steps 100] [--eta 1] [--seed 0] [--device cpu]
Prints per K: accuracy (the paper's metric), mean |count - 512|, and the share of images whose
error is 1. CPU: ~2 minutes a K at n = 100, 100 NFE.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from srm_bench.baselines.inference import load_denoiser, sample_images
from srm_bench.baselines.presets import TrainConfig
from srm_bench.baselines.schedules import SamplerConfig
from srm_bench.canonical import canonical_dataset
from srm_bench.evaluators.even_pixels import score_images


def missing_masks(n: int, patches: int, k: int, seed: int) -> np.ndarray:
    """(n, patches) bool, True where a patch is given: all but a random k per image."""
    rng = np.random.default_rng([seed, k])
    known = np.ones((n, patches), dtype=bool)
    for i in range(n):
        known[i, rng.choice(patches, size=k, replace=False)] = False
    return known


def complete(model: torch.nn.Module, cfg: TrainConfig, images: np.ndarray, known: np.ndarray, sampler: SamplerConfig,
             *, seed: int, device: str) -> np.ndarray:
    """``images`` (N, H, W, C) uint8 with the patches not ``known`` (N, P) drawn again by ``model``."""
    return sample_images(model, cfg, sampler, np.arange(len(images)), seed=seed, device=device,
                         batch_size=len(images), given=images, known=known)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("-n", type=int, default=100, help="test images")
    ap.add_argument("--missing", type=int, nargs="+", default=[1, 4, 16], help="patches drawn again (K)")
    ap.add_argument("--order", default="predicted", choices=["predicted", "random"])
    ap.add_argument("--overlap", type=float, default=0.95)
    ap.add_argument("--steps", type=int, default=100, help="NFE for the K patches")
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    images = canonical_dataset("even-pixels", "test").images(slice(0, args.n))
    n, side = len(images), images.shape[1]
    sampler = SamplerConfig(name="sequential", order=args.order, overlap=args.overlap, steps=args.steps, eta=args.eta)
    for w in args.weights:
        model, cfg, record = load_denoiser(w, args.device)
        patches = (side // cfg.model["patch_size"]) ** 2
        print(f"{w}: {cfg.baseline} {cfg.preset}, {record.get('images', 0) / 1e6:.1f}M images; {args.order} order, "
              f"overlap {args.overlap}, {args.steps} NFE, eta {args.eta}, n = {n}")
        for k in args.missing:
            known = missing_masks(n, patches, k, args.seed)
            t0 = time.perf_counter()
            out = complete(model, cfg, images, known, sampler, seed=args.seed, device=args.device)
            errors = np.asarray(score_images(out)["error"])
            print(f"  K = {k:2d} patches drawn again: accuracy {np.mean(errors == 0):.3f}, mean |count - 512| "
                  f"{errors.mean():.2f}, error 1 in {np.mean(errors == 1):.3f}  ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
