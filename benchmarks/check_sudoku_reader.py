"""How well each Sudoku digit reader reads valid grids; prints one table per reader.

Usage:
    python benchmarks/check_sudoku_reader.py [--grids 500] [--readers mlp,cnn] [--seed 0]

Every figure is the accuracy (L1 == 0) of ``--grids`` valid Sudoku solutions rendered with
digits drawn from:

- ``pool``: the shipped digit pool (what the datasets are made of);
- ``held-out, confident``: held-out digits (the last 100 per class, never trained on by
  either reader) that the *other* reader reads correctly and confidently (MLP p >= 0.95,
  near its label-smoothing ceiling of 0.964; CNN calibrated p >= 0.99), i.e. plain
  handwriting chosen independently of the reader under test;
- ``held-out, all``: every held-out digit 1-9;
- pool grids degraded as a whole image: Gaussian blur 0.5 / 1 px, Gaussian noise (sd 25 of
  255), JPEG quality 90, strokes thinned / thickened (grey erosion / dilation 2x2), the
  image shifted right and down by 1 / 2 px;
- corrupted pool grids (should read 0.000): one cell replaced by another digit, a blank
  cell, a cell of uniform noise.

Then the per-digit accuracy on the held-out digits (the Sudoku reading rule: 1-9 only).
"""
from __future__ import annotations

import argparse
import io
import time

import numpy as np


def _jpeg(images: np.ndarray, quality: int) -> np.ndarray:
    from PIL import Image

    out = np.empty_like(images)
    for i, im in enumerate(images):
        buf = io.BytesIO()
        Image.fromarray(im).save(buf, format="JPEG", quality=quality)
        out[i] = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("L"))
    return out


def _shift(images: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros_like(images)
    out[:, k:, k:] = images[:, :-k, :-k]
    return out


def degradations(rng: np.random.Generator) -> dict:
    from scipy import ndimage

    def blur(s):
        return lambda x: np.stack([ndimage.gaussian_filter(im.astype(np.float32), s) for im in x]).round().clip(0, 255).astype(np.uint8)

    def grey(op):
        return lambda x: np.stack([op(im, size=(2, 2)) for im in x])

    return {
        "pool, blur 0.5 px": blur(0.5),
        "pool, blur 1 px": blur(1.0),
        "pool, noise sd 25": lambda x: (x + rng.normal(0, 25, x.shape)).round().clip(0, 255).astype(np.uint8),
        "pool, JPEG q90": lambda x: _jpeg(x, 90),
        "pool, strokes thinned": grey(ndimage.grey_erosion),
        "pool, strokes thickened": grey(ndimage.grey_dilation),
        "pool, shifted 1 px": lambda x: _shift(x, 1),
        "pool, shifted 2 px": lambda x: _shift(x, 2),
    }


def corrupt(images: np.ndarray, grids: np.ndarray, pool: np.ndarray, how: str, rng: np.random.Generator) -> np.ndarray:
    """One cell per grid replaced: by a pool digit other than its own, a blank, or uniform noise."""
    out = images.copy()
    for i in range(len(images)):
        r, c = rng.integers(0, 9, 2)
        if how == "swap":
            d = int(rng.choice([x for x in range(1, 10) if x != grids[i, r, c]]))
            tile = pool[d - 1][rng.integers(0, pool.shape[1])]
        elif how == "blank":
            tile = np.zeros((28, 28), np.uint8)
        else:
            tile = rng.integers(0, 256, (28, 28)).astype(np.uint8)
        out[i, 28 * r:28 * r + 28, 28 * c:28 * c + 28] = tile
    return out


CONFIDENT = {"mlp": 0.95, "cnn": 0.99}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grids", type=int, default=500, help="grids per figure")
    parser.add_argument("--readers", default="mlp,cnn")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from srm_bench.digits import embedded_digits, embedded_split, pool_for
    from srm_bench.evaluators.digit_cnn import grid_images, read_grids
    from srm_bench.evaluators.sudoku import READERS, sudoku_l1
    from srm_bench.generators.sudoku import random_solution

    readers = args.readers.split(",")
    ds = embedded_digits()
    _, held = embedded_split()
    hx, hy = ds.images[held], ds.labels[held]
    pool = pool_for(None).images
    grids = np.stack([random_solution(np.random.default_rng([args.seed, i])) for i in range(args.grids)])

    reading = {name: READERS[name].read(hx) for name in ("mlp", "cnn")}
    banks: dict[str, list[np.ndarray]] = {"pool": [pool[d - 1] for d in range(1, 10)],
                                          "held-out, all": [hx[hy == d] for d in range(1, 10)]}
    for name in readers:
        other = "cnn" if name == "mlp" else "mlp"
        d, c = reading[other]
        ok = (d == hy) & (c >= CONFIDENT[other])
        banks[f"held-out, confident ({name})"] = [hx[(hy == k) & ok] for k in range(1, 10)]

    def acc(name: str, images: np.ndarray) -> float:
        return float((sudoku_l1(read_grids(images, READERS[name].read)) == 0).mean())

    def render(bank: list[np.ndarray]) -> np.ndarray:
        return grid_images(grids, bank, np.random.default_rng(args.seed + 1))

    pool_images = render(banks["pool"])
    rows: list[tuple[str, dict[str, float]]] = []
    rows.append(("pool", {n: acc(n, pool_images) for n in readers}))
    rows.append(("held-out, confident (read confidently by the other reader)",
                 {n: acc(n, render(banks[f"held-out, confident ({n})"])) for n in readers}))
    rows.append(("held-out, all", {n: acc(n, render(banks["held-out, all"])) for n in readers}))
    for label, fn in degradations(np.random.default_rng(args.seed + 2)).items():
        img = fn(pool_images)
        rows.append((label, {n: acc(n, img) for n in readers}))
    for how in ("swap", "blank", "noise"):
        img = corrupt(pool_images, grids, pool, how, np.random.default_rng(args.seed + 3))
        rows.append((f"corrupted: one cell {'another digit' if how == 'swap' else how}", {n: acc(n, img) for n in readers}))
    names = {"mlp": "MLP", "cnn": "CNN"}
    print(f"valid grids read as valid ({args.grids} grids per row, seed {args.seed})\n")
    print("| digits | " + " | ".join(names[n] for n in readers) + " |")
    print("|---|" + "---|" * len(readers))
    for label, vals in rows:
        print(f"| {label} | " + " | ".join(f"{vals[n]:.3f}" for n in readers) + " |")
    print("\nheld-out digits read correctly (1-9, the Sudoku reading rule), per digit\n")
    print("| reader | " + " | ".join(str(d) for d in range(1, 10)) + " | all 1-9 | confident share |")
    print("|---|" + "---|" * 11)
    for n in readers:
        d, c = reading[n]
        nz = hy != 0
        per = [float((d[hy == k] == k).mean()) for k in range(1, 10)]
        share = sum(len(b) for b in banks[f"held-out, confident ({n})"]) / int(nz.sum())
        print(f"| {names[n]} | " + " | ".join(f"{p:.2f}" for p in per) + f" | {float((d[nz] == hy[nz]).mean()):.4f} | {share:.2f} |")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"\n({time.perf_counter() - t0:.0f} s)")
