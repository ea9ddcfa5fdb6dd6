"""How well does a denoiser predict the clean image when few or no patches are clean?

An SRM trained with the authors' zero-patch rule (in every training row a ~U(0, 1) fraction of
the patches is clean) almost never sees a row in which no patch is clean: with P patches that
happens in about 1 row of P. Yet parallel sampling spends its whole run in such rows (every
patch at the same level), and every sequential sampler starts in them. This probe measures the
one-step prediction error there: it takes the task's canonical test images, sets a fraction f
of the patches clean (t = 0) and the others to one level t, and prints the mean squared error of
x0-hat against the true image over the noisy patches, for each (t, f). A DDPM (one shared level)
is probed at f = 0 only, the state it is trained on.

Sudoku (a task with given cells, --split) probes the states a sequential sampler visits: the givens
clean, a fraction f of the other cells clean (their true digits) and the rest at level t; beside the
error it prints how often the class head (preset cell-aux and its kin) reads the right digit in the
noisy cells, the digit a sampler would be led to draw there. For a model with both heads it also
prints how often the one noisy cell that predicted order would start next (the lowest score) reads
right, ranked by the uncertainty head's log-variance (the paper's predicted order) and by the class
head's entropy (`--uncertainty entropy`): a sequential sampler draws one such pick after another.

Usage: python benchmarks/probe_clean_context.py WEIGHTS... [-n 32] [--levels 0.1 0.5 0.9]
       [--fractions 0 0.01 0.05 0.2 0.5] [--split hard] [--seed 0] [--device cpu]
CPU: ~1 minute a Counting model at n = 32.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import class_entropy, load_denoiser
from srm_bench.baselines.noise import NoisePath
from srm_bench.canonical import canonical_dataset

from check_reasoning import first_pick


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
                   fractions: list[float], seed: int, known: torch.Tensor | None = None,
                   digits: torch.Tensor | None = None) -> dict[tuple[float, float], tuple[float, float, float, float]]:
    """{(t, f): (MSE of x0-hat over the noisy patches, the share of noisy patches whose class the class
    head reads right, that share for the one noisy patch of lowest log-variance, and for the one of
    lowest class entropy)} for clean images ``x`` (B, C, H, W) in [-1, 1]; the shares are NaN without
    ``digits`` (B, P: the patches' classes, 1-based) or a class head, the log-variance pick also
    without an uncertainty head.

    The same noise and the same choice of clean patches (the first f of a fixed random key per
    patch) for every (t, f), so rows and columns differ only in t and f. ``known`` (B, P) bool: patches
    clean in every state (Sudoku's givens); f then counts among the others.
    """
    grid, eps, key = probe_state(x, patch, seed)
    b, p = key.shape
    out = {}
    for t in levels:
        for f in fractions:
            clean = key < f if known is None else known | (key < f)
            tt = torch.where(clean, torch.zeros(b, p, device=x.device), torch.full((b, p), t, device=x.device))
            tp = pixel_levels(tt, grid, patch)
            z = path.noise(x, eps, tp)
            res = model(z, tt)
            x0, _ = path.split(z, res.mean.float(), tp)
            noisy = (tp > 0).expand_as(x)
            right = pick_logvar = pick_entropy = float("nan")
            if digits is not None and getattr(res, "logits", None) is not None:
                hit = res.logits.argmax(-1) + 1 == digits
                right = float(hit[~clean].float().mean())
                pick_entropy = pick_right(class_entropy(res.logits), clean, hit)
                if res.logvar is not None:
                    pick_logvar = pick_right(res.logvar, clean, hit)
            out[(t, f)] = (float(((x0 - x) ** 2)[noisy].mean()), right, pick_logvar, pick_entropy)
    return out


def pick_right(score: torch.Tensor, clean: torch.Tensor, hit: torch.Tensor) -> float:
    """The share of rows whose next patch in predicted order (the lowest ``score`` among the noisy ones,
    ``clean`` False: check_reasoning's first_pick) is one the class head reads right (``hit``); rows
    without a noisy patch are left out (NaN if none is left)."""
    some = (~clean).any(1)
    if not bool(some.any()):
        return float("nan")
    return float(hit.gather(1, first_pick(score, clean)[:, None])[some].float().mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="+")
    parser.add_argument("-n", type=int, default=32, help="test images")
    parser.add_argument("--levels", type=float, nargs="+", default=[0.1, 0.5, 0.9])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.0, 0.01, 0.05, 0.2, 0.5])
    parser.add_argument("--split", default="hard", help="Sudoku's split [hard]; other tasks probe their test set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    for w in args.weights:
        model, cfg, state = load_denoiser(w, args.device)
        sudoku = cfg.task == "sudoku"
        if sudoku and cfg.baseline != "srm":
            raise SystemExit(f"{w}: the Sudoku DDPM reads its givens by concatenation; this probe takes Sudoku SRMs")
        data = canonical_dataset(cfg.task, args.split if sudoku else "test")
        idx = np.arange(min(args.n, data.count))
        x = torch.from_numpy(np.asarray(data.images(idx))).to(args.device)
        x = x.permute(0, 3, 1, 2).float() / 127.5 - 1.0
        known = digits = None
        if sudoku:
            known = torch.from_numpy(np.asarray(data.items["mask"][idx], dtype=bool).reshape(len(idx), -1)).to(args.device)
            digits = torch.from_numpy(np.asarray(data.items["grid"][idx]).reshape(len(idx), -1)).to(args.device)
        fractions = args.fractions if cfg.baseline == "srm" else [0.0]
        errs = context_errors(model, NoisePath(cfg.noise_path, cfg.target), x, cfg.model["patch_size"],
                              args.levels, fractions, args.seed, known, digits)
        images = int(state.get("images", 0))
        where = f"{args.split}, givens clean, f among the other cells" if sudoku else "test"
        print(f"{w}: {cfg.baseline} {cfg.task} {cfg.preset}, {images / 1e6:.2f}M images; x0 MSE on the noisy "
              f"patches, n = {len(idx)} ({where})")
        print("  t \\ clean fraction " + "".join(f"{f:>9g}" for f in fractions))
        for t in args.levels:
            print(f"  {t:<19g}" + "".join(f"{errs[(t, f)][0]:9.4f}" for f in fractions))
        if digits is not None and not np.isnan(errs[(args.levels[0], fractions[0])][1]):
            print("  class head's digit right in the noisy cells")
            for t in args.levels:
                print(f"  {t:<19g}" + "".join(f"{errs[(t, f)][1]:9.3f}" for f in fractions))
            for i, by in ((2, "the uncertainty head's log-variance"), (3, "the class head's entropy")):
                if np.isnan(errs[(args.levels[0], fractions[0])][i]):
                    continue
                print(f"  the next cell by {by}: its digit right")
                for t in args.levels:
                    print(f"  {t:<19g}" + "".join(f"{errs[(t, f)][i]:9.3f}" for f in fractions))


if __name__ == "__main__":
    main()
