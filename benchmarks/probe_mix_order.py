"""Is the order `train --sequential-order predicted` gives the mix's states informative?

The predicted-order mix hands a mix row's noisy levels to its patches in the order of the
uncertainty the EMA network predicts for them at pure noise (baselines/train.py, BatchMaker). That
order only matters if the network's uncertainty there tells patches apart for a reason other than
the noise drawn. This probe draws mix rows (every row a mix row; the zero-patch rule and any completion
mix the weights trained with off) of the Even Pixels stream through the real BatchMaker with the
trained network as its ranker and prints:
  - spread: the mean over rows of the standard deviation of the log-variance over a row's noisy
    patches (in units of the log-variance; 0 would make every order a tie);
  - consistency: the mean Spearman correlation, over a row's noisy patches, of the log-variances
    read with two independent noise draws (same image, same clean patches): near 0 means the order
    is the noise's, near 1 the image's and its clean context's;
  - neighbours: the mean Spearman correlation of the log-variance with the number of clean 4-neighbours
    of the patch (negative: the network is surer next to clean patches);
  - in flight beside clean: the share of in-flight patches (0 < t < 1) with a clean 4-neighbour, in
    predicted and in random order (the same rows otherwise).

(benchmarks/probe_uncertainty_rank.py asks the other question of the same head: does its ranking follow the
patches' true one-step error, at one level for all noisy patches.)

Usage: python benchmarks/probe_mix_order.py WEIGHTS [-n 64] [--overlap 0.95] [--step 1] [--device cpu]
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
import torch.nn.functional as F
from scipy.stats import spearmanr

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.presets import with_overrides
from srm_bench.baselines.streams import make_stream
from srm_bench.baselines.train import BatchMaker


def spearman_rows(a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor) -> float:
    """Mean over rows of the Spearman correlation of a and b over the row's masked entries (rows
    with fewer than 3 of them, or a constant side, left out)."""
    rho = [spearmanr(x, y).statistic for x, y in ((ra[m].numpy(), rb[m].numpy()) for ra, rb, m in zip(a, b, mask))
           if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0]
    return float(np.mean(rho)) if rho else float("nan")


def clean_neighbours(clean: torch.Tensor, side: int) -> torch.Tensor:
    """(B, P) the number of clean 4-neighbours of every patch of a side x side grid."""
    grid = clean.float().view(-1, 1, side, side)
    kernel = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]).view(1, 1, 3, 3)
    return F.conv2d(grid, kernel.to(grid), padding=1).flatten(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("-n", type=int, default=64)
    ap.add_argument("--overlap", type=float, default=0.95)
    ap.add_argument("--step", type=int, default=1, help="the batch's step (its seed with the run's)")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    dev = torch.device(args.device)
    model, cfg, _ = load_denoiser(args.weights, args.device)
    if cfg.task != "even-pixels" or cfg.baseline != "srm":
        raise SystemExit(f"{args.weights}: an Even Pixels SRM is needed (got {cfg.baseline} for {cfg.task})")
    levels = {**cfg.tsampling, "sequential_mix": 1.0, "sequential_overlap": args.overlap, "zero_patch_prob": 0.0,
              "completion_mix": 0.0}
    plain = with_overrides(cfg, tsampling={**levels, "sequential_order": "random"})
    pred = with_overrides(cfg, tsampling={**levels, "sequential_order": "predicted"})
    read = []

    def ranker(z: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            lv = model(z, t, None).logvar.float()
        read.append((z, t, lv))
        return lv

    stream = make_stream("even-pixels", dev)
    a = BatchMaker(plain, dev, rank=0, local_batch=args.n, stream=stream)(args.step)
    maker = BatchMaker(pred, dev, rank=0, local_batch=args.n, stream=stream, ranker=ranker)
    b = maker(args.step)
    _, probe, lv = read[0]
    noisy = probe > 0
    spread = torch.stack([row[m].std() for row, m in zip(lv, noisy) if int(m.sum()) > 1]).mean().item()
    eps2 = torch.randn(b.x.shape, generator=torch.Generator(device=dev).manual_seed(12345), device=dev)
    with torch.no_grad():
        z2 = maker.path.noise(b.x, eps2, pixel_levels(probe, maker.grid, maker.patch))
        lv2 = model(z2, probe, None).logvar.float()
    side = maker.grid[0]
    near = clean_neighbours(~noisy, side)
    flight_b = (b.t > 0) & (b.t < 1)
    flight_a = (a.t > 0) & (a.t < 1)

    def beside(flight: torch.Tensor) -> float:  # the share of in-flight patches with a clean 4-neighbour
        return ((near > 0) & flight).sum().item() / max(1, flight.sum().item())

    print(f"{args.weights}: {args.n} mix rows of overlap {args.overlap}, step {args.step}, {args.device}")
    print(f"  spread of the log-variance over a row's noisy patches: {spread:.3f}")
    print(f"  consistency across two noise draws (Spearman): {spearman_rows(lv, lv2, noisy):+.3f}")
    print(f"  against the number of clean 4-neighbours (Spearman): {spearman_rows(lv, near, noisy):+.3f}")
    print(f"  in-flight patches with a clean 4-neighbour: predicted order {beside(flight_b):.3f}, "
          f"random order {beside(flight_a):.3f}")


if __name__ == "__main__":
    main()
