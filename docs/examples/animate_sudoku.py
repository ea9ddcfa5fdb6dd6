"""Animate a shipped Sudoku model solving one canonical puzzle (the README's GIF).

Usage: python docs/examples/animate_sudoku.py [--split easy] [--index 12] [--steps 243] [--every 6] [-o docs/img/srm-sudoku.gif]

`srm-bench sample ... --animate out.gif` animates the first puzzle of a run; this script picks
any one puzzle by its index. Per-sample seeds are (seed, index), so the frames show exactly the
sample that `srm-bench sample` draws for that puzzle.
"""
from __future__ import annotations

import argparse

import numpy as np

from srm_bench.baselines.inference import Animator, load_denoiser, sample_images
from srm_bench.baselines.pretrained import pretrained_path
from srm_bench.baselines.schedules import SamplerConfig
from srm_bench.canonical import canonical_dataset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="srm-sudoku")
    ap.add_argument("--split", default="easy")
    ap.add_argument("--index", type=int, default=12)
    ap.add_argument("--steps", type=int, default=243)
    ap.add_argument("--every", type=int, default=6)
    ap.add_argument("-o", "--out", default="docs/img/srm-sudoku.gif")
    a = ap.parse_args()
    model, cfg, _ = load_denoiser(pretrained_path(a.model), "cpu")
    ds = canonical_dataset("sudoku", a.split)
    idx = np.array([a.index])
    known = np.asarray(ds.items["mask"][idx], dtype=bool).reshape(1, -1)
    sampler = SamplerConfig(name="sequential", order="predicted", steps=a.steps, eta=0.0)
    animator = Animator(a.out, a.every, a.steps)
    sample_images(model, cfg, sampler, idx, seed=0, device="cpu", given=ds.images(idx), known=known, callback=animator)
    print(animator.save())


if __name__ == "__main__":
    main()
