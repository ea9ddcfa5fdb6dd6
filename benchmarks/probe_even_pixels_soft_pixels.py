"""Are the Even Pixels samples that miss by one pixel a wrong colour, or an undecided one?

A sample one pixel off 512 either holds a pixel of the wrong colour drawn as cleanly as the rest (the count itself was
wrong where the last patches closed it), or a pixel left between the two colours that the hue histogram puts on one side
(the sampler's end, not the count). This probe reads every pixel of a samples file: its hue distance to the nearer of
the two colours the evaluator found (the peak bin and its complement), its saturation and value, and calls a pixel
*soft* when it is more than --hue-tol degrees from both colours, or off the palette (saturation < 0.9 or value not
within 0.1 of 0.7: the strict metric's palette, read by its own table). It prints, for the exact samples and for those 1, 2 and 3+ pixels off,
how many images hold any soft pixel and the mean number a image.

Usage: python benchmarks/probe_even_pixels_soft_pixels.py SAMPLES.h5 [--hue-tol 20]
"""
from __future__ import annotations

import argparse

import numpy as np

from srm_bench.evaluators.even_pixels import (BINS, STRICT_MIN_SATURATION, STRICT_VALUE, STRICT_VALUE_TOL,
                                              _on_palette_table, hue_parts, paper_scores)
from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task
from srm_bench.samples import read_samples


def soft_pixels(images: np.ndarray, hue_tol_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """(N,) the paper's error and (N,) the number of soft pixels of each image."""
    num, delta, vmax = hue_parts(images)
    d = np.maximum(delta, 1).astype(np.float64)
    hue = np.where(delta > 0, num / (6.0 * d), 0.0)  # turns
    on_palette = delta >= _on_palette_table(STRICT_MIN_SATURATION, STRICT_VALUE, STRICT_VALUE_TOL)[vmax]
    scores = paper_scores(images)
    centre = (scores["peak_bin"][:, None] + 0.5) / BINS  # the peak bin's centre, in turns
    off = np.abs(((hue - centre) + 0.5) % 1.0 - 0.5)  # 0 .. 0.5 turns from the peak's hue
    near = np.minimum(off, 0.5 - off) * 360.0  # degrees from the nearer of the two colours
    soft = (near > hue_tol_deg) | ~on_palette
    return scores["error"], soft.sum(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("samples")
    ap.add_argument("--hue-tol", type=float, default=20.0, help="degrees from both colours that make a pixel soft [20]")
    args = ap.parse_args()
    try:
        s = read_samples(args.samples, lambda attrs: get_task(attrs.get("task", "even-pixels")))
    except SrmBenchError as exc:
        raise SystemExit(str(exc)) from None
    if s.attrs.get("task", "even-pixels") != "even-pixels":
        raise SystemExit(f"{args.samples}: not Even Pixels samples (task {s.attrs.get('task')!r})")
    images = np.asarray(s.images)
    err, soft = soft_pixels(images, args.hue_tol)
    print(f"{args.samples}: {len(err)} samples, accuracy {np.mean(err == 0):.3f}; soft = more than {args.hue_tol:g} deg "
          "from both colours, or off the palette")
    print("samples | n | with a soft pixel | soft pixels an image")
    for name, pick in (("exact", err == 0), ("off 1", err == 1), ("off 2", err == 2), ("off 3+", err >= 3)):
        n = int(pick.sum())
        if n:
            print(f"{name} | {n} | {np.mean(soft[pick] > 0):.3f} | {soft[pick].mean():.2f}")


if __name__ == "__main__":
    main()
