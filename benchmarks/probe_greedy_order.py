"""Does a Sudoku SRM's ranking, with its class head's reading, solve the hard puzzles without the denoiser's draws?

Predicted order, one cell at a time, with the drawing replaced by the class head: in every state the
givens and the cells decided so far are clean and the open cells pure noise (t = 1); the open cell
that the ranking (the uncertainty head's log-variance, or the class head's entropy) finds surest is
decided as the class head's most likely digit, and shown clean from then on, as an image of that digit
taken from the same puzzle's rendered solution (each digit appears there nine times). A puzzle counts
as solved when the 81 decided digits form a valid grid (givens kept by construction). The step at which
a decided digit first repeats one of its row, column or box peers is the first conflict.

It separates the two halves of a sequential draw: if two models differ here as they do in the sampled
rows, the gap is in the ordering and the class head's knowledge; if not, it is in the pixels the
denoiser draws (which this probe never uses).

Usage: python benchmarks/probe_greedy_order.py WEIGHTS... [-n 128] [--split hard] [--seed 0]
       [--rankings logvar entropy random]
CPU: ~1 s a step of 128 puzzles; ~70 steps a ranking.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.losses import patches_to_image
from srm_bench.baselines.noise import NoisePath
from srm_bench.canonical import canonical_dataset
from srm_bench.evaluators.sudoku import sudoku_l1

from check_reasoning import first_pick, peer_matrix

CELL = 28


def valid(grid: torch.Tensor) -> torch.Tensor:
    """(B,) bool: the (B, 81) digits 1-9 form a valid grid (the evaluator's L1 is 0)."""
    return torch.from_numpy(sudoku_l1(grid.reshape(-1, 9, 9).numpy()) == 0)


def digit_cells(solution: torch.Tensor) -> torch.Tensor:
    """(B, 10) index of one cell holding each digit 1-9 in each (B, 81) solution (column 0 unused)."""
    out = torch.zeros(solution.shape[0], 10, dtype=torch.long)
    for d in range(1, 10):
        out[:, d] = (solution == d).float().argmax(-1)
    return out


def cell_view(x: torch.Tensor) -> torch.Tensor:
    """(B, 81, C, 28, 28) cells of a (B, C, 252, 252) grid image, row-major (the inverse of
    losses.patches_to_image)."""
    b, ch = x.shape[:2]
    return x.reshape(b, ch, 9, CELL, 9, CELL).permute(0, 2, 4, 1, 3, 5).reshape(b, 81, ch, CELL, CELL)


@torch.no_grad()
def greedy(model: torch.nn.Module, path: NoisePath, x: torch.Tensor, known: torch.Tensor, solution: torch.Tensor,
           rank: str, patch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(solved (B,) bool, first conflict step (B,) long, -1 if none, decided digits (B, 81)) of the class-head
    draw in the order of ``rank`` ("logvar", "entropy" or "random") for clean solution images ``x`` (B, C, 252, 252) in
    [-1, 1], givens ``known`` (B, 81) and ``solution`` digits (B, 81)."""
    b = x.shape[0]
    grid = (x.shape[-2] // patch, x.shape[-1] // patch)
    if grid != (9, 9):
        raise SystemExit(f"a model with one patch a cell is needed (patch {patch} gives a {grid} grid)")
    eps = torch.randn(x.shape, generator=torch.Generator().manual_seed(seed))
    cells = cell_view(x).clone()
    source = cell_view(x)
    where = digit_cells(solution)
    decided = torch.where(known, solution, torch.zeros_like(solution))
    clean = known.clone()
    conflict = torch.full((b,), -1, dtype=torch.long)
    near = peer_matrix()
    order_key = torch.rand(b, 81, generator=torch.Generator().manual_seed(seed + 1))
    rows = torch.arange(b)
    for step in range(81):
        open_ = ~clean
        if not open_.any():
            break
        tt = torch.where(clean, torch.zeros(b, 81), torch.ones(b, 81))
        z = path.noise(patches_to_image(cells, grid), eps, pixel_levels(tt, grid, patch))
        out = model(z, tt)
        p = out.logits.float().softmax(-1)
        if rank == "logvar":
            score = out.logvar.float()
        elif rank == "entropy":
            score = -(p * p.clamp_min(1e-12).log()).sum(-1)
        else:  # random: a fixed draw per cell, the same in every state
            score = order_key
        pick = first_pick(score, clean)
        live = open_.any(-1)
        digit = p[rows, pick].argmax(-1) + 1
        clash = ((decided == digit[:, None]) & near[pick]).any(-1) & live & (conflict < 0)
        conflict[clash] = step
        decided[rows[live], pick[live]] = digit[live]
        clean[rows[live], pick[live]] = True
        cells[rows[live], pick[live]] = source[rows[live], where[rows[live], digit[live]]]
    return valid(decided), conflict, decided


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="+")
    parser.add_argument("-n", type=int, default=128, help="puzzles (the first n of the split)")
    parser.add_argument("--split", default="hard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rankings", nargs="+", choices=["logvar", "entropy", "random"], default=["logvar", "entropy"],
                        help="orders to try (random: a fixed random order per puzzle, the control)")
    args = parser.parse_args()
    data = canonical_dataset("sudoku", args.split)
    idx = np.arange(min(args.n, data.count))
    x = torch.from_numpy(np.asarray(data.images(idx))).permute(0, 3, 1, 2).float() / 127.5 - 1.0
    known = torch.from_numpy(np.asarray(data.items["mask"][idx], dtype=bool).reshape(len(idx), -1))
    solution = torch.from_numpy(np.asarray(data.items["grid"][idx], dtype=np.int64).reshape(len(idx), -1))
    print(f"{len(idx)} {args.split} puzzles, givens {int(known.sum(-1).min())}-{int(known.sum(-1).max())} "
          f"(mean {known.sum(-1).float().mean():.1f})")
    print("| weights | ranking | solved | first conflict by step 10 / 20 / 40 | matches the stored solution |")
    print("|---|---|---|---|---|")
    for w in args.weights:
        model, cfg, _ = load_denoiser(w, "cpu")
        if cfg.task != "sudoku" or cfg.baseline != "srm" or not cfg.model.get("classes"):
            raise SystemExit(f"{w}: a Sudoku SRM with a class head is needed (preset cell-aux*)")
        path = NoisePath(cfg.noise_path, cfg.target)
        for rank in args.rankings:
            ok, first, decided = greedy(model, path, x, known, solution, rank, cfg.model["patch_size"], args.seed)
            by = " / ".join(f"{((first >= 0) & (first < s)).float().mean():.2f}" for s in (10, 20, 40))
            same = (decided == solution).all(-1).float().mean()
            print(f"| {w} | {rank} | {ok.float().mean():.3f} ({int(ok.sum())} of {len(idx)}) | {by} | {same:.3f} |",
                  flush=True)


if __name__ == "__main__":
    main()
