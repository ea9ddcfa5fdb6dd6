"""How well does a denoiser predict the clean image when few or no patches are clean?

An SRM trained with the authors' zero-patch rule (in every training row a ~U(0, 1) fraction of
the patches is clean) almost never sees a row in which no patch is clean: with P patches that
happens in about 1 row of P. Yet parallel sampling spends its whole run in such rows (every
patch at the same level), and every sequential sampler starts in them. This probe measures the
one-step prediction error there: it takes the task's canonical test images, sets a fraction f
of the patches clean (t = 0) and the others to one level t, and prints the mean squared error of
x0-hat against the true image over the noisy patches, for each (t, f). A DDPM (one shared level)
is probed at f = 0 only, the state it is trained on.

Usage: python benchmarks/probe_clean_context.py WEIGHTS... [-n 32] [--levels 0.1 0.5 0.9]
       [--fractions 0 0.01 0.05 0.2 0.5] [--seed 0] [--device cpu]
Even Pixels and Counting (tasks without given cells). CPU: ~1 minute a Counting model at n = 32.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.noise import NoisePath
from srm_bench.canonical import canonical_dataset


def probe_state(x: torch.Tensor, patch: int, seed: int) -> tuple[tuple[int, int], torch.Tensor, torch.Tensor]:
    """The probes' fixed draws for clean images ``x`` (B, C, H, W): the patch grid, the noise and a
    random key per patch (B, P); a probe sets a patch clean at fraction f when its key is below f."""
    b, _, h, w = x.shape
    grid = (h // patch, w // patch)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    eps = torch.randn(x.shape, generator=gen).to(x.device)
    key = torch.rand(b, grid[0] * grid[1], generator=gen).to(x.device)
    return grid, eps, key


@torch.no_grad()
def context_errors(model: torch.nn.Module, path: NoisePath, x: torch.Tensor, patch: int, levels: list[float],
                   fractions: list[float], seed: int) -> dict[tuple[float, float], float]:
    """{(t, f): MSE of x0-hat over the noisy patches} for clean images ``x`` (B, C, H, W) in [-1, 1].

    The same noise and the same choice of clean patches (the first f of a fixed random key per
    patch) for every (t, f), so rows and columns differ only in t and f.
    """
    grid, eps, key = probe_state(x, patch, seed)
    b, p = key.shape
    out = {}
    for t in levels:
        for f in fractions:
            tt = torch.where(key < f, torch.zeros(b, p, device=x.device), torch.full((b, p), t, device=x.device))
            tp = pixel_levels(tt, grid, patch)
            z = path.noise(x, eps, tp)
            x0, _ = path.split(z, model(z, tt).mean.float(), tp)
            noisy = (tp > 0).expand_as(x)
            out[(t, f)] = float(((x0 - x) ** 2)[noisy].mean())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="+")
    parser.add_argument("-n", type=int, default=32, help="test images")
    parser.add_argument("--levels", type=float, nargs="+", default=[0.1, 0.5, 0.9])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.0, 0.01, 0.05, 0.2, 0.5])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    for w in args.weights:
        model, cfg, state = load_denoiser(w, args.device)
        data = canonical_dataset(cfg.task, "test")
        x = torch.from_numpy(np.asarray(data.images(np.arange(args.n)))).to(args.device)
        x = x.permute(0, 3, 1, 2).float() / 127.5 - 1.0
        fractions = args.fractions if cfg.baseline == "srm" else [0.0]
        errs = context_errors(model, NoisePath(cfg.noise_path, cfg.target), x, cfg.model["patch_size"],
                              args.levels, fractions, args.seed)
        images = int(state.get("images", 0))
        print(f"{w}: {cfg.baseline} {cfg.task} {cfg.preset}, {images / 1e6:.2f}M images; x0 MSE on the noisy "
              f"patches, n = {args.n}")
        print("  t \\ clean fraction " + "".join(f"{f:>9g}" for f in fractions))
        for t in args.levels:
            print(f"  {t:<19g}" + "".join(f"{errs[(t, f)]:9.4f}" for f in fractions))


if __name__ == "__main__":
    main()
