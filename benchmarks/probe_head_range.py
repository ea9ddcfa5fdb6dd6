"""Where a Sudoku SRM's uncertainty head puts its log-variance, in the states a sequential sampler visits.

The head's loss term is 0.5 (logvar + err e^-logvar): its optimum is logvar = log E[err], and a
target that is exactly 0 on some cells (the class target's cross-entropy on a cell the class head
is sure of, without `LossWeights.nll_floor`) has no optimum there, so the head's output on such
cells runs down for as long as training lasts. This probe prints the quantiles of the head's
log-variance over the clean cells and over the noisy ones, in probe_clean_context's states: the
givens and a fraction f of the other cells clean (their true digits), the rest at one level t.
A floored head (floor 1e-4) should stay above about log 1e-4 = -9.2.

Usage: python benchmarks/probe_head_range.py WEIGHTS... [-n 64] [--levels 1 0.5 0.1]
       [--fractions 0 0.5 0.9] [--split hard] [--seed 0]
CPU: ~15 s a model at n = 64.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.noise import NoisePath
from srm_bench.canonical import canonical_dataset

from probe_clean_context import probe_state

QUANTILES = (0.0, 0.1, 0.5, 0.9, 1.0)


@torch.no_grad()
def head_quantiles(model: torch.nn.Module, path: NoisePath, x: torch.Tensor, known: torch.Tensor, patch: int,
                   levels: list[float], fractions: list[float],
                   seed: int) -> dict[tuple[float, float], tuple[list[float], list[float]]]:
    """{(t, f): (QUANTILES of the head's log-variance over the clean cells, over the noisy cells)} for clean
    images ``x`` (B, C, H, W) in [-1, 1] whose cells ``known`` (B, P) are clean in every state (the givens)."""
    grid, eps, key = probe_state(x, patch, seed)
    q = torch.tensor(QUANTILES)
    out = {}
    for f in fractions:
        clean = known | (key < f)
        for t in levels:
            tt = torch.where(clean, torch.zeros_like(key), torch.full_like(key, t))
            z = path.noise(x, eps, pixel_levels(tt, grid, patch))
            lv = model(z, tt).logvar.float()
            out[(t, f)] = (torch.quantile(lv[clean], q).tolist(), torch.quantile(lv[~clean], q).tolist())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="+")
    parser.add_argument("-n", type=int, default=64, help="puzzles")
    parser.add_argument("--levels", type=float, nargs="+", default=[1.0, 0.5, 0.1])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.0, 0.5, 0.9])
    parser.add_argument("--split", default="hard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data = canonical_dataset("sudoku", args.split)
    idx = np.arange(min(args.n, data.count))
    x = torch.from_numpy(np.asarray(data.images(idx))).permute(0, 3, 1, 2).float() / 127.5 - 1.0
    known = torch.from_numpy(np.asarray(data.items["mask"][idx], dtype=bool).reshape(len(idx), -1))
    for w in args.weights:
        model, cfg, state = load_denoiser(w, "cpu")
        if cfg.task != "sudoku" or cfg.baseline != "srm":
            raise SystemExit(f"{w}: a {cfg.baseline} of {cfg.task}; this probe takes Sudoku SRMs")
        res = head_quantiles(model, NoisePath(cfg.noise_path, cfg.target), x, known, cfg.model["patch_size"],
                             args.levels, args.fractions, args.seed)
        print(f"{w}: {cfg.preset}, step {int(state.get('step', 0))}; log-variance quantiles "
              f"{' / '.join(f'{q:g}' for q in QUANTILES)}, n = {len(idx)} {args.split} puzzles")
        for (t, f), (c, nz) in res.items():
            print(f"  f = {f:<4g} t = {t:<4g} clean cells {' '.join(f'{v:7.2f}' for v in c)} | "
                  f"noisy cells {' '.join(f'{v:7.2f}' for v in nz)}")


if __name__ == "__main__":
    main()
