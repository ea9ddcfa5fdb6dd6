"""CPU check of one design question of the Sudoku races: does drawing each cell with a
local skip path (CellNet's per-subpatch MLP decoder, ``decoder="mlp"``) lower the denoising
loss faster than the cell-token DiT's linear token-to-pixels head? Both at toy width, the
same transformer size, data drawn fresh each step, the same seeds.

Usage: python benchmarks/check_decoders.py [--steps 600] [--seeds 0 1]
Prints the velocity MSE (mean of the last 100 steps' logged values) per model and seed.
"""
from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import torch

from srm_bench.baselines.configs import DiTConfig
from srm_bench.baselines.presets import _cellnet, make_config, with_overrides
from srm_bench.baselines.train import build_model, train

MODELS = {
    "cellnet-mlp": ("cellnet", _cellnet("sudoku", "srm", channels=(8,), hidden=64, depth=2, heads=4, groups=4,
                                        emb_channels=32, time_channels=32, encoder="linear", decoder="mlp",
                                        dec_hidden=32)),
    "dit-cell": ("dit", DiTConfig(image_size=252, in_channels=1, patch_size=28, token_patch=28, hidden=64, depth=2,
                                  heads=4, time_channels=32).to_dict()),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = ap.parse_args()
    torch.set_num_threads(1)
    base = make_config("sudoku", "srm", "tiny")
    for name, (arch, model) in MODELS.items():
        params = sum(p.numel() for p in build_model(arch, model).parameters())
        for seed in args.seeds:
            cfg = with_overrides(base, arch=arch, model=model, steps=args.steps, batch_size=8, lr=1e-3, warmup_steps=20,
                                 log_every=10, ckpt_every=10**9, ema_decay=0.99, seed=seed)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                train(cfg, None, tmp, device="cpu", resume=False, progress=False)
                rows = list(csv.DictReader(open(Path(tmp) / "log.csv")))
            tail = [float(r["mse"]) for r in rows if int(r["step"]) > args.steps - 100]
            print(f"{name:12s} params {params:7d} seed {seed}: mse(last 100 steps) {sum(tail) / len(tail):.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
