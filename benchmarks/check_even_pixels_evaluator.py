"""How the Even Pixels metrics treat near-perfect and degraded images; prints a table.

Usage:
    python benchmarks/check_even_pixels_evaluator.py [--n 500]

On the canonical test images (correct by construction, so 1.0 is the right score unless the
degradation breaks the rule), it reports the paper's accuracy (hue-histogram count) and the
strict accuracy (two complementary on-palette clusters, 512 pixels each, within
``STRICT_HUE_TOL_DEG`` of their centres) after:

- quantisation of each channel to fewer levels and Gaussian pixel noise, as a sampler's
  rounding and residual noise would leave them (content unchanged: both should stay 1.0);
- JPEG at quality 95 / 90 / 75 (a format samples should not be stored in);
- a second colour that is not the complement: its hue moved by 1-30 degrees, so the pair is
  150-179 degrees apart (the rule is broken; the strict tolerance decides from where on it is
  caught). The last columns score the strict metric again at tighter hue tolerances.
"""
from __future__ import annotations

import argparse
import io

import numpy as np
from PIL import Image


def rows(images: np.ndarray, items: dict[str, np.ndarray]):
    """(name, images) for each degradation, fixed seed."""
    from srm_bench.generators.even_pixels import SATURATION, VALUE, hsv_to_rgb8, palette

    rng = np.random.default_rng(0)
    yield "canonical test images", images
    for bits in (6, 5, 4):
        step = 2 ** (8 - bits)
        yield f"channels quantised to {bits} bits", ((images // step) * step + step // 2).astype(np.uint8)
    for sd in (1, 2, 3, 4, 6, 8):
        noisy = images.astype(np.float32) + rng.normal(0.0, sd, images.shape)
        yield f"Gaussian noise, sd {sd}/255", noisy.clip(0, 255).round().astype(np.uint8)
    for q in (95, 90, 75):
        out = []
        for im in images:
            buf = io.BytesIO()
            Image.fromarray(im).save(buf, format="JPEG", quality=q)
            out.append(np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB")))
        yield f"JPEG, quality {q}", np.stack(out)
    second = palette(items["hue_offset"])[:, 1]  # (n, 3): the complement each image shows
    is_second = (images == second[:, None, None, :]).all(-1)
    for deg in (1, 2, 5, 10, 15, 30):
        moved = hsv_to_rgb8(items["hue_offset"] + 0.5 + deg / 360.0, SATURATION, VALUE)
        yield (f"second colour {180 - deg} deg from the first",
               np.where(is_second[..., None], moved[:, None, None, :], images))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="canonical test images (the split has 500)")
    args = parser.parse_args()
    from srm_bench.canonical import canonical_dataset
    from srm_bench.evaluators.even_pixels import STRICT_HUE_TOL_DEG, paper_scores, strict_scores

    ds = canonical_dataset("even-pixels", "test")
    idx = np.arange(min(args.n, len(ds)))
    images = ds.images(idx)
    items = {k: np.asarray(ds.items[k][idx]) for k in ("hue_offset",)}
    print(f"{len(idx)} canonical Even Pixels test images; strict hue tolerance {STRICT_HUE_TOL_DEG:g} deg")
    tighter = [5.0, 3.0]
    print("| images | paper accuracy | strict accuracy | mean strict error | "
          + " | ".join(f"strict at {t:g} deg" for t in tighter) + " |")
    print("|---|---|---|---|" + "---|" * len(tighter))
    for name, imgs in rows(images, items):
        paper = paper_scores(imgs)["error"] == 0
        strict = strict_scores(imgs)["strict_error"]
        other = [(strict_scores(imgs, hue_tol_deg=t)["strict_error"] == 0).mean() for t in tighter]
        print(f"| {name} | {paper.mean():.3f} | {(strict == 0).mean():.3f} | {strict.mean():.1f} | "
              + " | ".join(f"{v:.3f}" for v in other) + " |", flush=True)


if __name__ == "__main__":
    main()
