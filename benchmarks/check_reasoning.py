"""Does a Sudoku model reason? Probes a trained denoiser's per-cell outputs on fresh solved
grids with some cells given (clean, t = 0) and the rest pure noise (t = 1): the state of a
predicted-order sampler when it picks its next cell.

For every noisy cell it counts the candidates left by the given digits of its row, column
and box, then reports:
- ``acc``: class-head accuracy on the noisy cells (a model with ``classes`` > 0);
- ``in_cand``: how often the class head's choice is still a candidate;
- ``single_acc``: accuracy on the naked singles (one candidate left: the answer is forced);
- ``logvar single/other``: the mean predicted uncertainty of naked singles against the
  other noisy cells. Predicted order needs the singles to look more certain.
- ``first pick``: the cell predicted order would denoise first (the lowest uncertainty among
  the noisy cells) by the log-variance head and, for a class head, by the class entropy
  (``--uncertainty entropy``): how often it is a naked single, and how often the class head
  is right there. A wrong first pick is a mistake the sampler cannot undo.
- ``--by-digit``: also the mean log-variance of the noisy cells per true digit, the digits
  at the head's first picks, and the rank correlation (Spearman) of the log-variance with the
  class entropy over the noisy cells: does the head measure knowledge, or ink?

A model that only reads its own cell scores ~1/9 on ``acc`` and ``single_acc`` and has
equal uncertainties.

Usage: python benchmarks/check_reasoning.py WEIGHTS.safetensors [...] [--count 64] [--givens 20 35 50 70] [--by-digit]
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator

import torch

from srm_bench.baselines.diffusion import DenoiserOutput, pixel_levels
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.streams import Batch, SudokuStream
from srm_bench.baselines.train import build_model, load_weights


def peer_matrix() -> torch.Tensor:
    """(81, 81) bool: same row, column or box, not the cell itself."""
    i = torch.arange(81)
    r, c = i // 9, i % 9
    b = (r // 3) * 3 + c // 3
    same = (r[:, None] == r) | (c[:, None] == c) | (b[:, None] == b)
    return same & ~torch.eye(81, dtype=torch.bool)


def candidates(labels: torch.Tensor, known: torch.Tensor) -> torch.Tensor:
    """(n, 81, 9) bool: digits that no given peer shows."""
    shown = torch.nn.functional.one_hot(labels, 9).float() * known[..., None]  # (n, 81, 9)
    seen = torch.einsum("pq,nqd->npd", peer_matrix().float(), shown) > 0
    return ~seen


def spearman(a: torch.Tensor, b: torch.Tensor) -> float:
    """Rank correlation of two 1-D tensors (ties broken by position)."""
    ra, rb = a.argsort().argsort().double(), b.argsort().argsort().double()
    return float(torch.corrcoef(torch.stack([ra, rb]))[0, 1])


def sampler_states(model: torch.nn.Module, noise: NoisePath, count: int, givens: list[int],
                   seed: int) -> Iterator[tuple[int, Batch, torch.Tensor, DenoiserOutput]]:
    """For each number of givens k: ``count`` fresh solved grids (the same grids for every k)
    with k cells given and clean (t = 0) and the rest pure noise (t = 1), and the model's
    output there. Yields (k, batch, known (count, 81) bool, output)."""
    torch.manual_seed(seed)
    batch = SudokuStream("cpu").draw(count)
    for k in givens:
        known = torch.rand(count, 81).argsort(1).argsort(1) < k
        t = torch.where(known, 0.0, 1.0)
        z = noise.noise(batch.x, torch.randn_like(batch.x), pixel_levels(t, (9, 9), 28))
        with torch.no_grad():
            out = model(z, t)
        yield k, batch, known, out


def first_pick(score: torch.Tensor, known: torch.Tensor) -> torch.Tensor:
    """(count,) the noisy cell predicted order starts first: the lowest ``score`` (B, 81)."""
    return score.float().masked_fill(known, float("inf")).argmin(1)


def probe(path: str, count: int, givens: list[int], seed: int, by_digit: bool = False) -> None:
    state, cfg, record = load_weights(path)
    model = build_model(cfg.arch, cfg.model)
    model.load_state_dict(state)
    model.eval()
    noise = NoisePath(cfg.noise_path, cfg.target)
    print(f"{path}: preset {cfg.preset}, {record.get('images', 0):,} training images")
    for k, batch, known, out in sampler_states(model, noise, count, givens, seed):
        cand = candidates(batch.labels, known)
        unknown = ~known
        single = unknown & (cand.sum(-1) == 1)
        other = unknown & (cand.sum(-1) > 1)
        line = f"  {k:2d} givens: mean candidates {cand.sum(-1)[unknown].float().mean():.2f}, singles {int(single.sum())}"
        if out.logits is not None:
            pred = out.logits.argmax(-1)
            right = pred == batch.labels
            in_cand = cand.gather(2, pred[..., None])[..., 0]
            line += (f" | acc {right[unknown].float().mean():.3f} in_cand {in_cand[unknown].float().mean():.3f}"
                     f" single_acc {right[single].float().mean():.3f}")
        line += f" | logvar single {out.logvar[single].mean():.3f} other {out.logvar[other].mean():.3f}"
        rows = torch.arange(count)
        picks = {"logvar": first_pick(out.logvar, known)}
        if out.logits is not None:
            logp = out.logits.float().log_softmax(-1)
            entropy = -(logp.exp() * logp).sum(-1)
            picks["entropy"] = first_pick(entropy, known)
        for name, pick in picks.items():
            line += f" | first pick by {name}: single {single[rows, pick].float().mean():.2f}"
            if out.logits is not None:
                line += f" right {right[rows, pick].float().mean():.2f}"
        print(line, flush=True)
        if by_digit:
            lv = out.logvar.float()
            means = " ".join(f"{d + 1}:{lv[unknown & (batch.labels == d)].mean():.2f}" for d in range(9))
            at_pick = torch.bincount(batch.labels[rows, picks["logvar"]], minlength=9).tolist()
            extra = f"      logvar by digit {means} | digits at the head's first picks (1-9) {at_pick}"
            if out.logits is not None:
                rho = spearman(lv[unknown], entropy[unknown])
                within = " ".join(f"{d + 1}:{spearman(lv[unknown & (batch.labels == d)], entropy[unknown & (batch.labels == d)]):.2f}"
                                  for d in range(9))
                extra += f" | Spearman(logvar, entropy) {rho:.2f}, within digits {within}"
            print(extra, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--givens", type=int, nargs="+", default=[20, 35, 50, 70])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--by-digit", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(2)
    for w in a.weights:
        probe(w, a.count, a.givens, a.seed, a.by_digit)


if __name__ == "__main__":
    main()
