"""Given every object, can a Counting model write the count? The numbers drawn again on test images.

A Counting image is right when its two numbers name the objects' count and vertex count. Our SRMs'
parallel samples draw polygons and no numbers (docs/baselines.md, the capacity race), which leaves
two explanations: the network cannot draw legible digits at all (what a 2x2-unshuffled first stage
may fail at: the digits' strokes are 1-2 pixels), or it can, and only the sampler's whole-image
draw loses them. This probe asks for the numbers alone, with the answer's whole context given: it
takes the canonical test images, keeps every 8x8 patch as given (clean, t = 0, clamped as Sudoku's
clues are) except the patches that a number's disk touches, draws those again with the model's own
sampler (`sample_images` with ``given`` and ``known``), and scores the images with the shipped
(open-set) classifiers: accuracy is then "wrote the right two numbers", and "no pair" says that at
least one number is not legible. Two references on the same images: the true images (the
classifiers' ceiling, 1.000) and the same images with the numbers erased (drawn at size 0: the
floor, 0.000 with open-set classifiers).

Usage: python benchmarks/probe_write_count.py WEIGHTS... [-n 32] [--sampler parallel|predicted|random]
       [--steps 100] [--eta 1] [--seed 0] [--device cpu] [--png DIR]
Prints per model: accuracy [95% interval], the share read as "no pair", the share whose two numbers
are read but wrong, and how many patches were drawn per image. --png DIR writes, per model, the first
eight images side by side: true, numbers erased, numbers drawn by the model (a row each). On the 2-core
CPU beside another job (fifty-eighth session, n = 32, 100 NFE): 362-390 s for `small-s2` (1.9M),
1,227 s for `half-s2` (19.7M).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from srm_bench.baselines.inference import load_denoiser, sample_images
from srm_bench.baselines.schedules import SamplerConfig
from srm_bench.canonical import canonical_dataset
from srm_bench.evaluators import counting as ev
from srm_bench.generators.counting import POLYGONS, STARS, number_patches
from srm_bench.stats import wilson_interval

from check_counting_evaluator import without_numbers  # run as a script: benchmarks/ is on the path


def read(shape: str, images: np.ndarray, device: str) -> dict[str, float]:
    """Accuracy, its interval, and the shares read as "no pair" and as a wrong pair."""
    r = ev.classify(shape, images, device=device)
    acc = np.asarray(r["accuracy"], bool)
    no_pair = (np.asarray(r["digit_a"]) == 0) & (np.asarray(r["digit_b"]) == 0)
    lo, hi = wilson_interval(int(acc.sum()), len(acc))
    return {"accuracy": float(acc.mean()), "lo": lo, "hi": hi, "no_pair": float(no_pair.mean()),
            "wrong_pair": float((~acc & ~no_pair).mean())}


def save_grid(path: Path, rows: list[np.ndarray]) -> None:
    """Image i of every array side by side, one row per image (the first eight), 2-pixel white gaps."""
    from PIL import Image

    n, side = min(8, len(rows[0])), rows[0].shape[1]
    grid = np.full((n * (side + 2), len(rows) * (side + 2), 3), 255, np.uint8)
    for i in range(n):
        for j, images in enumerate(rows):
            grid[i * (side + 2):i * (side + 2) + side, j * (side + 2):j * (side + 2) + side] = images[i]
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(grid).save(path)


def line(name: str, r: dict[str, float]) -> str:
    return (f"  {name:<34} accuracy {r['accuracy']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]  no pair {r['no_pair']:.3f}  "
            f"wrong pair {r['wrong_pair']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("-n", type=int, default=32, help="test images")
    ap.add_argument("--sampler", default="parallel", choices=["parallel", "predicted", "random"])
    ap.add_argument("--steps", type=int, default=100, help="NFE for the numbers' patches")
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--png", type=Path, help="folder for a PNG per model: true, erased and drawn images")
    args = ap.parse_args()
    if not ev.STARS.version == ev.POLYGONS.version == 3:
        raise SystemExit("the probe needs the open-set classifiers (evaluator version 3): 'no pair' is its floor")
    sampler = (SamplerConfig(name="parallel", steps=args.steps, eta=args.eta) if args.sampler == "parallel" else
               SamplerConfig(name="sequential", order=args.sampler, steps=args.steps, eta=args.eta))
    referenced: set[str] = set()
    for w in args.weights:
        model, cfg, record = load_denoiser(w, args.device)
        if not cfg.task.startswith("counting-"):
            raise SystemExit(f"{w}: trained on {cfg.task}; the probe asks Counting models to write their numbers")
        shape = cfg.task.removeprefix("counting-")
        data = canonical_dataset(cfg.task, "test")
        images = data.images(slice(0, args.n))
        items = {k: v[: len(images)] for k, v in data.items.items()}
        patch = cfg.model["patch_size"]
        known = ~number_patches(items, images.shape[1], patch)  # given: every patch no number touches
        print(f"{w}: {cfg.baseline} {cfg.preset} on {cfg.task}, {record.get('images', 0) / 1e6:.2f}M images; "
              f"{args.sampler}, {args.steps} NFE, eta {args.eta}, n = {len(images)}; "
              f"{(~known).sum(1).mean():.1f} of {known.shape[1]} patches drawn per image")
        gen = POLYGONS if shape == "polygons" else STARS  # the task's renderer
        erased = gen.render(data.config, {}, without_numbers(items))
        if cfg.task not in referenced:  # the references, once a task
            print(line("the true images", read(shape, images, args.device)))
            print(line("numbers erased (size 0)", read(shape, erased, args.device)))
            referenced.add(cfg.task)
        t0 = time.perf_counter()
        out = sample_images(model, cfg, sampler, np.arange(len(images)), seed=args.seed, device=args.device,
                            batch_size=len(images), given=images, known=known)
        print(line("numbers drawn by the model", read(shape, out, args.device)) + f"  ({time.perf_counter() - t0:.0f} s)")
        if args.png:
            save_grid(args.png / f"{Path(w).stem}-{args.sampler}.png", [images, erased, out])


if __name__ == "__main__":
    main()
