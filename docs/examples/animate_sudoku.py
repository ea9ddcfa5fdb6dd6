"""Animate a shipped Sudoku model solving one canonical puzzle (the README's GIF).

Usage: python docs/examples/animate_sudoku.py [--split hard] [--index 9] [--steps 1000] [--eta 1]
       [--uncertainty logvar] [--every 75] [-o docs/img/srm-sudoku.gif]

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
from srm_bench.registry import get_task


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="srm-sudoku")
    ap.add_argument("--split", default="hard")
    ap.add_argument("--index", type=int, default=9)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--uncertainty", choices=("logvar", "entropy"), default="logvar")
    ap.add_argument("--every", type=int, default=75)
    ap.add_argument("-o", "--out", default="docs/img/srm-sudoku.gif")
    a = ap.parse_args()
    model, cfg, _ = load_denoiser(pretrained_path(a.model), "cpu")
    ds = canonical_dataset("sudoku", a.split)
    idx = np.array([a.index])
    known = np.asarray(ds.items["mask"][idx], dtype=bool).reshape(1, -1)
    sampler = SamplerConfig(name="sequential", order="predicted", steps=a.steps, eta=a.eta, uncertainty=a.uncertainty)
    animator = Animator(a.out, a.every, a.steps)
    images = sample_images(model, cfg, sampler, idx, seed=0, device="cpu", given=ds.images(idx), known=known,
                           callback=animator)
    print(animator.save())
    evaluator = get_task("sudoku").evaluator_module().EVALUATOR
    solved = bool(evaluator.score(images, reference=ds, index=idx)["accuracy"][0])
    print(f"{a.split} puzzle {a.index}: {int(known.sum())} givens, {'solved' if solved else 'not solved'}")


if __name__ == "__main__":
    main()
