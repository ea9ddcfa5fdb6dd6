"""The in-training gauge (the rows `srm-bench train --eval-every` writes to eval.csv) of saved weights.

Runs the same code on the weights' EMA network: ``count`` test items, seed 0, parallel and predicted order (with the
task's gauge overlap, the ``overlap`` column) at ``--budget`` NFE and ``--eta`` (train's defaults for a lease: 64,
256, 0). So a run whose eval.csv lacks a column
(Counting's ``consistency`` and ``top_objects`` came after the capacity race's control was trained) can be gauged
again from its kept weights, at the steps the campaign store holds, and set beside a newer run's rows at equal images.

Usage:
    python benchmarks/gauge_weights.py runs/o-cr2.safetensors [more.safetensors ...] [--count 64] [--budget 256]
        [--eta 0] [--device cpu]
Prints one CSV row per weights file and sampler: the eval.csv columns, with the file's sha256 prefix.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time

import torch

from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.train import default_eval_splits, evaluate_model
from srm_bench.errors import SrmBenchError
from srm_bench.io import file_sha256

FIELDS = ["weights", "sha256", "step", "images", "split", "sampler", "count", "nfe", "eta", "overlap", "accuracy",
          "consistency", "top_objects", "seconds"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("weights", nargs="+")
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--budget", type=int, default=256, help="NFE per sample (train's EVAL_BUDGET in the leases)")
    ap.add_argument("--eta", type=float, default=0.0)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--batch-size", type=int, default=64)
    a = ap.parse_args()
    out = csv.DictWriter(sys.stdout, FIELDS)
    out.writeheader()
    for path in a.weights:
        model, cfg, record = load_denoiser(path, a.device)  # a missing or foreign file: one line (SrmBenchError)
        digest = file_sha256(path)[:12]
        t0 = time.perf_counter()
        rows = evaluate_model(model, cfg, a.device, count=a.count, splits=default_eval_splits(cfg.task),
                              budget=a.budget, eta=a.eta, batch_size=a.batch_size)
        seconds = time.perf_counter() - t0
        for row in rows:
            out.writerow({"weights": path, "sha256": digest, "step": record.get("step", ""),
                          "images": record.get("images", ""), "seconds": f"{seconds:.0f}",
                          **{k: (f"{row[k]:.4f}" if isinstance(row.get(k), float) else row.get(k, ""))
                             for k in FIELDS if k in row}})
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except SrmBenchError as exc:
        raise SystemExit(str(exc)) from None
