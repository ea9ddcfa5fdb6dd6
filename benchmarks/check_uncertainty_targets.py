"""Which uncertainty target would order Sudoku cells by knowledge rather than by ink?

The SRM's uncertainty head learns E[err | context], err being the cell's squared velocity
error averaged over its pixels; at t = 1 that is the error of x0-hat. This script computes
what an *ideal* head would output for several targets, from the digit pool the training data
are drawn from and a trained model's knowledge of each noisy cell (its class head's
probabilities p(d), in the state of a predicted-order sampler: some cells given and clean, the
rest pure noise). With x0-hat = sum_d p(d) mu_d (the MSE-optimal mean) the expected error of a
target T is

    E[err_T] = sum_d p(d) (V_T(d) + |T(mu_d) - T(x0-hat)|^2)

with mu_d the pool's mean image of digit d and V_T(d) its within-digit variance under T. The
targets:

- ``pixels``: the paper's (T = identity; log of the pixel-mean squared error);
- ``blur4`` / ``blur7``: the error of the cell averaged over 4x4 / 7x7 pixel blocks first
  (stroke style is finer than a digit's shape);
- ``template``: the error against the mean image of the cell's digit (preset ``cell-aux-tpl``):
  ``pixels`` less its within-digit part, i.e. the part that knowing the digit would remove
  (sum_d p(d) |mu_d - x0-hat|^2); trainable with the digit labels;
- ``entropy``: the class head's entropy (the `--uncertainty entropy` variant).

With ``--knowledge candidates`` the model's class probabilities are replaced by an idealised
reasoner's: p(d) uniform over the digits no given peer shows (graded knowledge: a naked single
is known for certain, other cells narrowed to their candidates). ``--knowledge singles`` is an
all-or-nothing reasoner: naked singles known, every other cell uniform over 1-9. No network is
needed; WEIGHTS is then optional. This separates the target's own bias from the model's
calibration.

For each, the first cell predicted order would pick (lowest value among the noisy cells) is
scored as in check_reasoning.py: is it a naked single, is the class head right there, and how
often does it hold a 1 (the digit with the least ink).

Usage: python benchmarks/check_uncertainty_targets.py WEIGHTS.safetensors [--count 128] [--givens 20 25 35]
       python benchmarks/check_uncertainty_targets.py --knowledge candidates [--givens 17 20 25 30 35]
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
import torch.nn.functional as F

from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.streams import SudokuStream
from srm_bench.baselines.train import build_model, load_weights
from srm_bench.digits import embedded_digits

from check_reasoning import candidates, first_pick, sampler_states


def pool_stats(pool: torch.Tensor, block: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per digit: the mean of T(x) (9, D) and the within-digit variance of T(x), averaged over D (9,)."""
    x = pool.float() / 127.5 - 1.0  # (9, k, 28, 28)
    if block > 1:
        x = F.avg_pool2d(x.reshape(-1, 1, 28, 28), block, ceil_mode=True).reshape(9, x.shape[1], -1)
    else:
        x = x.reshape(9, x.shape[1], -1)
    mu = x.mean(1)
    var = ((x - mu[:, None]) ** 2).mean((1, 2))
    return mu, var


def expected_error(p: torch.Tensor, mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """E[err] per cell for class probabilities p (..., 9)."""
    xhat = p @ mu  # (..., D)
    between = ((mu[None, None] - xhat[..., None, :]) ** 2).mean(-1)  # (..., 9)
    return (p * (var + between)).sum(-1)


def ideal_reasoner(count: int, givens: list[int], seed: int, graded: bool, all_digits: bool = False) -> None:
    """The targets' first picks for a reasoner whose p(d) is uniform over each cell's candidates
    (``graded``) or one-hot on naked singles and uniform over 1-9 elsewhere."""
    torch.manual_seed(seed)
    stream = SudokuStream("cpu")
    batch = stream.draw(count)
    pool = stream.pool
    if all_digits:
        digits = embedded_digits()
        k = min(int((digits.labels == d).sum()) for d in range(1, 10))
        pool = torch.from_numpy(np.stack([digits.images[digits.labels == d][:k] for d in range(1, 10)]))
    stats = {name: pool_stats(pool, block) for name, block in (("pixels", 1), ("blur7", 7))}
    rows = torch.arange(count)
    print("| givens | grids with a naked single | target | first pick: naked single | p(right) there | holds a 1 |")
    print("|---|---|---|---|---|---|")
    for k in givens:
        known = torch.rand(count, 81).argsort(1).argsort(1) < k
        cand = candidates(batch.labels, known).float()
        single = ~known & (cand.sum(-1) == 1)
        if not graded:
            cand = torch.where(single[..., None], cand, torch.ones_like(cand))
        p = cand / cand.sum(-1, keepdim=True)
        scores = {name: expected_error(p, mu, var) for name, (mu, var) in stats.items()}
        scores["template"] = expected_error(p, stats["pixels"][0], torch.zeros(9))
        scores["entropy"] = -(p * p.clamp_min(1e-12).log()).sum(-1)
        for name, sc in scores.items():
            pick = first_pick(sc, known)
            print(f"| {k} | {single.any(1).float().mean():.2f} | {name} | {single[rows, pick].float().mean():.2f} "
                  f"| {p[rows, pick, batch.labels[rows, pick]].mean():.2f} "
                  f"| {int((batch.labels[rows, pick] == 0).sum())} of {count} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="?")
    ap.add_argument("--knowledge", choices=["model", "candidates", "singles"], default="model",
                    help="class probabilities from the model's class head, uniform over each cell's candidates, "
                         "or known for naked singles and uniform over 1-9 elsewhere")
    ap.add_argument("--count", type=int, default=128)
    ap.add_argument("--givens", type=int, nargs="+", default=[20, 25, 35])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all-digits", action="store_true",
                    help="with --knowledge candidates|singles: digit statistics from all 5,000 embedded digits, "
                         "not the top-250-per-digit pool the data are drawn from")
    a = ap.parse_args()
    torch.set_num_threads(2)
    if a.knowledge != "model":
        return ideal_reasoner(a.count, a.givens, a.seed, graded=a.knowledge == "candidates", all_digits=a.all_digits)
    if a.weights is None:
        raise SystemExit("give WEIGHTS (or --knowledge candidates)")
    state, cfg, record = load_weights(a.weights)
    if not cfg.model.get("classes"):
        raise SystemExit(f"{a.weights}: needs a model with a class head (preset cell-aux)")
    model = build_model(cfg.arch, cfg.model)
    model.load_state_dict(state)
    model.eval()
    noise = NoisePath(cfg.noise_path, cfg.target)
    stats = {name: pool_stats(SudokuStream("cpu").pool, block) for name, block in (("pixels", 1), ("blur4", 4), ("blur7", 7))}
    rows = torch.arange(a.count)
    print(f"{a.weights}: preset {cfg.preset}, {record.get('images', 0):,} training images; "
          f"within-digit pixel variance by digit 1-9: " + " ".join(f"{v:.3f}" for v in stats["pixels"][1]))
    print("| givens | target | first pick: naked single | class head right | holds a 1 |")
    print("|---|---|---|---|---|")
    for k, batch, known, out in sampler_states(model, noise, a.count, a.givens, a.seed):
        p = out.logits.float().softmax(-1)
        right = out.logits.argmax(-1) == batch.labels
        single = ~known & (candidates(batch.labels, known).sum(-1) == 1)
        scores = {name: expected_error(p, mu, var) for name, (mu, var) in stats.items()}
        scores["template"] = expected_error(p, stats["pixels"][0], torch.zeros(9))
        scores["entropy"] = -(p * p.clamp_min(1e-12).log()).sum(-1)
        scores["head (trained)"] = out.logvar.float()
        for name, sc in scores.items():
            pick = first_pick(sc, known)
            print(f"| {k} | {name} | {single[rows, pick].float().mean():.2f} | {right[rows, pick].float().mean():.2f} "
                  f"| {int((batch.labels[rows, pick] == 0).sum())} of {a.count} |", flush=True)


if __name__ == "__main__":
    main()
