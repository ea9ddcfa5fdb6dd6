"""Draw the README's pictures of each task from the canonical generators.

Usage: python docs/make_pictures.py  (writes docs/img/<task>.png)
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

import srm_bench
from srm_bench.registry import TASKS

HERE = Path(__file__).resolve().parent / "img"


def montage(images: np.ndarray, height: int = 192, gap: int = 6) -> Image.Image:
    tiles = []
    for im in images:
        pic = Image.fromarray(im[..., 0] if im.shape[-1] == 1 else im)
        scale = height / pic.height
        tiles.append(pic.convert("RGB").resize((round(pic.width * scale), height), Image.NEAREST if scale >= 2 else Image.BICUBIC))
    out = Image.new("RGB", (sum(t.width for t in tiles) + gap * (len(tiles) - 1), height), "white")
    x = 0
    for t in tiles:
        out.paste(t, (x, 0))
        x += t.width + gap
    return out


def main() -> None:
    HERE.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for task in TASKS.names():
            spec = TASKS.get(task)
            split = spec.test_splits[-1]
            ds = srm_bench.load_dataset(srm_bench.generate(task, split, n=4, out=Path(tmp) / task, progress=False))
            images = ds.images()
            if task == "sudoku":  # puzzle (givens only) beside its solution
                mask = np.kron(ds.items["mask"], np.ones((28, 28), dtype=bool))[..., None]
                images = np.concatenate([np.where(mask, images, 0)[:2], images[:2]])[[0, 2, 1, 3]]
            montage(images).save(HERE / f"{task}.png")
            print(HERE / f"{task}.png")


if __name__ == "__main__":
    main()
