"""Does a denoiser's uncertainty head rank the noisy patches by their true error?

Predicted-order sampling starts next the noisy patches whose predicted uncertainty is lowest.
That helps only if the ranking follows the real one-step error. This probe builds the same
states as benchmarks/probe_clean_context.py: the task's canonical test images, a fraction f of
the open patches clean (t = 0) and the others at one level t. Given cells (Sudoku clues) are
always clean, and only the blank cells are open. For each (t, f) it scores the noisy patches of
each image with the predicted-order sampler's own score, ``RampSchedule._scores`` (the model's
per-patch ``logvar`` plus the sampler's 1e-6 tie-break keys; clean patches count as started and
are never picked). It then compares that score with the true error, the mean squared error of
x0-hat against the true image over the patch's pixels:
- Spearman: the rank correlation between score and true error over the noisy patches of an
  image, mean over images (with its standard error). Above 0 means a high score goes with a high
  error, as it should; 0 is chance.
- top-k ratio: the mean true error of the k noisy patches the sampler would pick first (k = 10%
  of the noisy patches, rounded, at least 1) over the mean true error of all noisy patches, per
  image, mean over images. Below 1 means the head picks the easier patches; 1 is chance.
- best: the same ratio for the k patches of lowest true error, the floor the head could reach.
The noise and the choice of clean patches are the same for every (t, f), as in probe_clean_context.
Only the uncertainty head is probed (the sampler's default ``--uncertainty logvar``, not the
class-entropy variant).

Usage: python benchmarks/probe_uncertainty_rank.py WEIGHTS... [-n 32] [--levels 0.3 0.6 0.9]
       [--fractions 0.05 0.25 0.5 0.75] [--split SPLIT] [--seed 0] [--device cpu]
SRM weights only. Tasks without given cells (Even Pixels, Counting) and Sudoku (default split:
the task's last test split, hard). 2-core CPU at n = 32, default levels and fractions: about 20 s
an Even Pixels U-Net-S model, about 30 s the Sudoku cellnet model (loading included).
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import torch
from probe_clean_context import probe_state  # run as a script: benchmarks/ is on the path
from scipy.stats import spearmanr

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser, sample_seed
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.schedules import SamplerConfig, make_schedule
from srm_bench.canonical import canonical_dataset
from srm_bench.registry import get_task


def patch_errors(x0: torch.Tensor, x: torch.Tensor, patch: int) -> torch.Tensor:
    """(B, P) mean squared error of ``x0`` against ``x`` (B, C, H, W) over each patch's pixels (row-major)."""
    b, c, h, w = x.shape
    sq = ((x0 - x) ** 2).reshape(b, c, h // patch, patch, w // patch, patch)
    return sq.mean(dim=(1, 3, 5)).reshape(b, -1)


@torch.no_grad()
def rank_stats(model: torch.nn.Module, path: NoisePath, x: torch.Tensor, known: torch.Tensor, patch: int,
               levels: list[float], fractions: list[float], seed: int) -> dict[tuple[float, float], dict[str, float]]:
    """{(t, f): statistics} for clean images ``x`` (B, C, H, W) in [-1, 1] and given patches ``known`` (B, P).

    Statistics: mean noisy patches per image, mean k, Spearman (mean over images and its standard
    error), top-k ratio and the best possible top-k ratio (means over images).
    """
    grid, eps, key = probe_state(x, patch, seed)
    b, p = key.shape
    # The predicted-order sampler's schedule; its keys (the tie-breaks) drawn per image as in sampling.
    schedule = make_schedule(SamplerConfig(name="sequential", order="predicted", steps=p), p)
    out: dict[tuple[float, float], dict[str, float]] = {}
    for t in levels:
        for f in fractions:
            clean = known | (key < f)
            tt = torch.where(clean, torch.zeros(b, p, device=x.device), torch.full((b, p), t, device=x.device))
            tp = pixel_levels(tt, grid, patch)
            z = path.noise(x, eps, tp)
            pred = model(z, tt)
            x0, _ = path.split(z, pred.mean.float(), tp)
            err = patch_errors(x0, x, patch).cpu().numpy()
            schedule.reset(clean, [torch.Generator(device=x.device).manual_seed(sample_seed(seed, i)) for i in range(b)])
            # Exactly what RampSchedule.advance ranks by: started (here: clean) patches never picked.
            scores = schedule._scores(pred.logvar).masked_fill(schedule.started, float("inf")).cpu().numpy()
            noisy = (~clean).cpu().numpy()
            rho, ratio, best, counts, ks = [], [], [], [], []
            for i in range(b):
                e, s = err[i][noisy[i]], scores[i][noisy[i]]
                m = len(e)
                if m < 2:
                    continue
                k = max(1, int(round(0.1 * m)))
                rho.append(float(spearmanr(s, e).statistic))
                ratio.append(float(e[np.argsort(s, kind="stable")[:k]].mean() / e.mean()))
                best.append(float(np.sort(e)[:k].mean() / e.mean()))
                counts.append(m)
                ks.append(k)
            r = np.asarray(rho)
            out[(t, f)] = {"images": len(r), "noisy": float(np.mean(counts)), "k": float(np.mean(ks)),
                           "spearman": float(np.nanmean(r)),
                           "se": float(np.nanstd(r, ddof=1) / math.sqrt(max(1, int(np.isfinite(r).sum())))),
                           "ratio": float(np.mean(ratio)), "best": float(np.mean(best))}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("weights", nargs="+")
    parser.add_argument("-n", type=int, default=32, help="test images")
    parser.add_argument("--levels", type=float, nargs="+", default=[0.3, 0.6, 0.9])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.05, 0.25, 0.5, 0.75])
    parser.add_argument("--split", default=None, help="canonical split (default: the task's last test split)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    for w in args.weights:
        model, cfg, state = load_denoiser(w, args.device)
        if cfg.baseline != "srm":
            raise SystemExit(f"{w}: a {cfg.baseline} model has no per-patch levels to rank; SRM weights only")
        spec = get_task(cfg.task)
        split = args.split or (spec.test_splits[-1] if spec.test_splits else "test")
        data = canonical_dataset(cfg.task, split)
        idx = np.arange(min(args.n, data.count))
        x = torch.from_numpy(np.asarray(data.images(idx))).to(args.device)
        x = x.permute(0, 3, 1, 2).float() / 127.5 - 1.0
        patch = cfg.model["patch_size"]
        p = (x.shape[2] // patch) * (x.shape[3] // patch)
        if spec.conditional:  # given cells: always clean, never ranked
            known = torch.from_numpy(np.asarray(data.items["mask"][idx], dtype=bool).reshape(len(idx), p))
        else:
            known = torch.zeros(len(idx), p, dtype=torch.bool)
        stats = rank_stats(model, NoisePath(cfg.noise_path, cfg.target), x, known.to(args.device), patch,
                           args.levels, args.fractions, args.seed)
        images = int(state.get("images", 0))
        open_note = f", {float((~known).sum(1).float().mean()):.1f} open of {p} patches" if spec.conditional else ""
        print(f"{w}: {cfg.baseline} {cfg.task}/{split} {cfg.preset}, {images / 1e6:.2f}M images; n = {len(idx)}, "
              f"{p} patches{open_note}")
        print("  uncertainty = the predicted-order sampler's score (logvar); error = x0-hat MSE per noisy patch")
        print(f"  {'t':>4} {'f':>5} {'noisy':>6} {'k':>5} {'spearman':>9} {'± se':>6} {'top-k ratio':>12} {'best':>6}")
        for t in args.levels:
            for f in args.fractions:
                s = stats[(t, f)]
                print(f"  {t:4g} {f:5g} {s['noisy']:6.1f} {s['k']:5.1f} {s['spearman']:9.3f} {s['se']:6.3f} "
                      f"{s['ratio']:12.3f} {s['best']:6.3f}")


if __name__ == "__main__":
    main()
