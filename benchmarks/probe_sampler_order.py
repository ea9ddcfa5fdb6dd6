"""In what order does an Even Pixels SRM's predicted-order sampler start its patches, against random order?

After the completion mix (`train --completion-mix`, lease 2026-11-29i) the shipped network's successor drew random
order + overlap 0.95 at 0.393 and predicted order at 0.357 (0.468 / 0.396 at overlap 0.9), where before they were
level. benchmarks/probe_mix_order.py reads the uncertainty head on training-shaped rows and finds it ranks untouched
patches almost at random; this probe reads the order the sampler itself takes in whole draws (unconditional, the
samples Table 2 scores), with the schedule's own levels passed to a callback (no extra evaluations), and prints for
each order:
  - positional consistency: the mean Spearman correlation between two samples' start ranks of the 64 patches (0 for
    an order that does not depend on where a patch is; 1 for a fixed order such as raster);
  - start rank by ring: the mean normalised start rank (0 first, 1 last) of the border ring of patches, the next ring
    and so on to the centre;
  - started neighbours: the mean share of a patch's 4-neighbours already started when it starts (a growing front
    reads high; random order reads about the share of patches started, ~0.5);
  - the run of the last patches: how often the last four started patches touch one another;
  - accuracy and mean count error of the samples (evaluators/even_pixels.py; n samples only, so rough), and the
    accuracy by the ring of the last patch started.

Usage: python benchmarks/probe_sampler_order.py WEIGHTS [-n 64] [--steps 1000] [--overlap 0.95] [--eta 1]
       [--seed 0] [--orders predicted random] [--device cpu]
(CPU: ~2 minutes an order at n = 64 and 1000 NFE for `unet-s-g16-gc`.)
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

from srm_bench.baselines.inference import load_denoiser, sample_images
from srm_bench.baselines.schedules import SamplerConfig
from srm_bench.evaluators.even_pixels import score_images


def start_steps(levels_after: list[np.ndarray]) -> np.ndarray:
    """(n, P) step at which each patch started: the first step whose new level (after the step) is below 1."""
    s = np.stack(levels_after, 1)  # (n, steps, P)
    begun = s < 1.0
    if not begun[:, -1].all():
        raise SystemExit("some patches never started: the schedule's last levels are not all below 1")
    return begun.argmax(1)


def ranks_of(start: np.ndarray, keys: np.random.Generator) -> np.ndarray:
    """(n, P) start ranks 0..P-1; patches started at the same step are ordered at random."""
    tie = keys.random(start.shape)
    return np.lexsort((tie, start), axis=1).argsort(1)


def neighbours(grid: int) -> list[list[int]]:
    out = []
    for i in range(grid * grid):
        r, c = divmod(i, grid)
        out.append([rr * grid + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    if 0 <= rr < grid and 0 <= cc < grid])
    return out


def ring_of(grid: int) -> np.ndarray:
    r, c = np.divmod(np.arange(grid * grid), grid)
    return np.minimum.reduce([r, c, grid - 1 - r, grid - 1 - c])


def order_figures(rank: np.ndarray, grid: int) -> dict[str, float | list[float]]:
    """The order's shape from (n, P) start ranks on a grid x grid patch grid (see the module's docstring)."""
    n, p = rank.shape
    nb = neighbours(grid)
    ring = ring_of(grid)
    norm = rank / (p - 1)
    share = np.array([[np.mean([rank[s, q] < rank[s, i] for q in nb[i]]) for i in range(p)] for s in range(n)])
    last4 = np.argsort(rank, 1)[:, -4:]
    return {
        "consistency": float(np.mean([spearmanr(rank[i], rank[j])[0] for i in range(n) for j in range(i + 1, n)])),
        "by_ring": [float(norm[:, ring == k].mean()) for k in range(ring.max() + 1)],
        "neighbours": float(share.mean()),
        "neighbours_first": float(share[norm < 0.5].mean()),
        "neighbours_second": float(share[norm >= 0.5].mean()),
        "last4_touching": float(np.mean([any(q in nb[a] for a in row for q in row if q != a) for row in last4])),
    }


def order_report(rank: np.ndarray, grid: int) -> list[str]:
    f = order_figures(rank, grid)
    return [f"  positional consistency (Spearman, sample pairs): {f['consistency']:+.3f}",
            "  start rank by ring (border -> centre): " + " / ".join(f"{v:.3f}" for v in f["by_ring"]),
            f"  started 4-neighbours when a patch starts: {f['neighbours']:.3f} (first half of the order "
            f"{f['neighbours_first']:.3f}, second half {f['neighbours_second']:.3f})",
            f"  the last four patches include two 4-neighbours in {f['last4_touching']:.3f} of samples"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights")
    ap.add_argument("-n", type=int, default=64, help="samples an order")
    ap.add_argument("--steps", type=int, default=1000, help="NFE")
    ap.add_argument("--overlap", type=float, default=0.95)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--orders", nargs="+", default=["predicted", "random"], choices=["predicted", "random", "raster"])
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    model, cfg, record = load_denoiser(args.weights, args.device)
    if cfg.task != "even-pixels" or cfg.baseline != "srm":
        raise SystemExit(f"{args.weights}: a {cfg.baseline} on {cfg.task}; the probe needs an Even Pixels SRM")
    grid = cfg.model["image_size"] // cfg.model["patch_size"]
    print(f"{args.weights}: {record.get('images', 0) / 1e6:.1f}M images; {args.steps} NFE, overlap {args.overlap}, "
          f"eta {args.eta}, n = {args.n}, seed {args.seed}")
    for order in args.orders:
        sampler = SamplerConfig(name="sequential", order=order, overlap=args.overlap, steps=args.steps, eta=args.eta)
        after: list[np.ndarray] = []
        t0 = time.time()
        out = sample_images(model, cfg, sampler, np.arange(args.n), seed=args.seed, device=args.device,
                            batch_size=args.n, callback=lambda state, acc=after: acc.append(state["s"].float().cpu().numpy()))
        rank = ranks_of(start_steps(after), np.random.default_rng(args.seed))
        scores = score_images(out)
        ok, err = scores["accuracy"], scores["error"]
        last_ring = ring_of(grid)[np.argmax(rank, 1)]
        print(f"{order} order ({time.time() - t0:.0f} s): accuracy {ok.mean():.3f}, mean count error {err.mean():.2f}")
        print("\n".join(order_report(rank, grid)))
        print("  accuracy by the ring of the last patch started: " + " / ".join(
            f"ring {k} {ok[last_ring == k].mean():.2f} (n {np.sum(last_ring == k)})"
            for k in range(ring_of(grid).max() + 1) if np.any(last_ring == k)))


if __name__ == "__main__":
    main()
