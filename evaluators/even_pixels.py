"""Even Pixels evaluator: the paper's hue-histogram metric and a strict variant.

Paper metric (appendix "Even Pixels Evaluation"), with the choices the paper leaves open
fixed as its research code fixes them (see docs/even-pixels.md):

1. Hue of every pixel as in the usual RGB->HSV formula; grey pixels (max == min) get hue 0.
   It is computed exactly from the uint8 channels: ``hue = num / (6 * (max - min))`` with
   an integer ``num``, so every bin is found by integer division (no float edge cases).
2. Histogram of 256 equal hue bins over ``[0, 1)`` turns; the peak ``c`` is the first
   bin with the highest count (ties go to the lowest bin).
3. ``count`` = pixels whose bin lies in the 128 bins ``c - 64 .. c + 63`` (circularly):
   the pixels closer, at bin resolution, to ``h_max = c / 256`` than to ``h_max + 180 deg``.
4. ``error = |count - 512|``; ``accuracy`` = the sample has ``error == 0``.

Strict metric (ours): a pixel is *on-palette* if its saturation is at least 0.9 and its
value within 0.1 of 0.7. The axis of the two clusters is the circular mean of the doubled
hues of on-palette pixels (doubling the angle maps a hue and its complement to the same
point). ``n_a`` / ``n_b`` count on-palette pixels within 10 deg of the axis / of the axis
+ 180 deg; ``strict_error = max(|n_a - 512|, |n_b - 512|)``, zero only for exactly two
complementary colours of 512 pixels each at S ~ 1.0, V ~ 0.7.
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task
from srm_bench.evaluation import MetricInfo, TaskEvaluator

SIZE = get_task("even-pixels").image_side  # 32: the registry holds the task's shape
PIXELS = SIZE * SIZE
HALF = PIXELS // 2
BINS = 256
WINDOW = BINS // 2  # bins closer to the peak than to its complement

STRICT_HUE_TOL_DEG = 10.0
STRICT_MIN_SATURATION = 0.9
STRICT_VALUE = 0.7
STRICT_VALUE_TOL = 0.1
# Folded histogram for the strict axis: 512 hue bins taken modulo 180 deg.
_FOLD_BINS = 256
_FOLD_ANGLE = 2.0 * np.pi * (np.arange(_FOLD_BINS) + 0.5) / _FOLD_BINS
_FOLD_COS = np.cos(_FOLD_ANGLE)
_FOLD_SIN = np.sin(_FOLD_ANGLE)
# _IN_WINDOW[c, b]: bin b lies in the 128 bins c-64 .. c+63 (circularly).
_IN_WINDOW = ((np.arange(BINS)[None, :] - np.arange(BINS)[:, None] + WINDOW // 2) % BINS) < WINDOW
_CHUNK = 128  # images per vectorised step: small enough to stay in cache


def check_images(images: np.ndarray) -> np.ndarray:
    """Return ``images`` as a C-contiguous uint8 ``(N, 32, 32, 3)`` array, or raise.

    Raises:
        SrmBenchError: wrong dtype, shape, or no images.
    """
    images = np.asarray(images)
    if images.dtype != np.uint8:
        raise SrmBenchError(f"even-pixels images must be uint8 (got {images.dtype}); convert or pass --range")
    if images.ndim != 4 or images.shape[1:] != (SIZE, SIZE, 3):
        raise SrmBenchError(f"even-pixels images must be (N, 32, 32, 3) RGB; got shape {images.shape}")
    if images.shape[0] == 0:
        raise SrmBenchError("no even-pixels images to score")
    return np.ascontiguousarray(images)


def hue_parts(images: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact HSV parts of every pixel: ``(num, delta, vmax)``, int16 ``(N, 1024)`` each.

    The hue in turns is ``num / (6 * delta)`` (0 where ``delta == 0``), saturation is
    ``delta / vmax`` and value ``vmax / 255``.
    """
    px = check_images(images).reshape(-1, PIXELS, 3)
    r, g, b = (px[..., k].astype(np.int16) for k in range(3))  # contiguous channels, small ints
    vmax = np.maximum(np.maximum(r, g), b)
    delta = vmax - np.minimum(np.minimum(r, g), b)
    # Sector formulas; where two channels tie for the maximum they give the same hue.
    num = np.where(r == vmax, g - b, np.where(g == vmax, 2 * delta + b - r, 4 * delta + r - g))
    num += np.where(num < 0, 6 * delta, 0).astype(np.int16)
    return num, delta, vmax


def hue_bins(num: np.ndarray, delta: np.ndarray, bins: int) -> np.ndarray:
    """``floor(bins * hue)`` of every pixel, by exact integer arithmetic (grey pixels: 0)."""
    return (num.astype(np.int32) * bins) // np.maximum(6 * delta.astype(np.int32), 1)


def paper_scores(images: np.ndarray) -> dict[str, np.ndarray]:
    """The paper's metric per image: ``error``, ``count`` and ``peak_bin``.

    Args:
        images: uint8 ``(N, 32, 32, 3)``.

    Raises:
        SrmBenchError: images of the wrong dtype or shape.

    Example:
        >>> from srm_bench.generators.even_pixels import hsv_to_rgb8
        >>> two = hsv_to_rgb8(np.repeat([0.1, 0.6], 512), 1.0, 0.7).reshape(1, 32, 32, 3)
        >>> int(paper_scores(two)["error"][0])
        0
    """
    num, delta, _ = hue_parts(images)
    return _paper(hue_bins(num, delta, BINS))


def _paper(bins: np.ndarray) -> dict[str, np.ndarray]:
    n = bins.shape[0]
    rows = np.arange(n, dtype=np.int64)[:, None] * BINS
    hist = np.bincount((bins + rows).ravel(), minlength=n * BINS).reshape(n, BINS)
    peak = hist.argmax(axis=1)
    count = (hist * _IN_WINDOW[peak]).sum(axis=1)
    return {"error": np.abs(count - HALF), "count": count, "peak_bin": peak}


def strict_scores(images: np.ndarray, *, hue_tol_deg: float = STRICT_HUE_TOL_DEG,
                  min_saturation: float = STRICT_MIN_SATURATION, value: float = STRICT_VALUE,
                  value_tol: float = STRICT_VALUE_TOL) -> dict[str, np.ndarray]:
    """The strict metric per image: ``strict_error``, ``n_a``, ``n_b``, ``axis_deg``.

    Args:
        images: uint8 ``(N, 32, 32, 3)``.
        hue_tol_deg: largest hue distance of a pixel from its cluster's centre.
        min_saturation: smallest saturation of an on-palette pixel.
        value, value_tol: on-palette pixels have ``|V - value| <= value_tol``.

    Raises:
        SrmBenchError: images of the wrong dtype or shape.
    """
    num, delta, vmax = hue_parts(images)
    return _strict(num, delta, vmax, hue_bins(num, delta, 2 * _FOLD_BINS) % _FOLD_BINS,
                   hue_tol_deg, min_saturation, value, value_tol)


def _on_palette_table(min_saturation: float, value: float, value_tol: float) -> np.ndarray:
    """Smallest ``delta`` of an on-palette pixel for each ``vmax`` (0..255); 4096 = never.

    Saturation ``delta / vmax >= s`` becomes ``delta >= ceil(s * vmax)`` (with 1e-9 of slack
    against float noise); the value bounds are rounded to uint8 levels (0.6, 0.8 -> 153, 204).
    """
    vmax = np.arange(256)
    v_lo, v_hi = np.rint(255.0 * (value - value_tol)), np.rint(255.0 * (value + value_tol))
    need = np.maximum(np.ceil(min_saturation * vmax - 1e-9), 1).astype(np.int16)
    return np.where((vmax >= v_lo) & (vmax <= v_hi), need, np.int16(4096)).astype(np.int16)


def _strict(num: np.ndarray, delta: np.ndarray, vmax: np.ndarray, folded: np.ndarray, hue_tol_deg: float,
            min_saturation: float, value: float, value_tol: float) -> dict[str, np.ndarray]:
    n = num.shape[0]
    on = delta >= _on_palette_table(min_saturation, value, value_tol)[vmax]
    # Axis from the folded histogram of on-palette pixels (off-palette ones go to a spare bin).
    rows = np.arange(n, dtype=np.int64)[:, None] * _FOLD_BINS
    slots = np.where(on, folded + rows, n * _FOLD_BINS)
    hist = np.bincount(slots.ravel(), minlength=n * _FOLD_BINS + 1)[:-1].reshape(n, _FOLD_BINS).astype(np.float64)
    doubled = np.arctan2(hist @ _FOLD_SIN, hist @ _FOLD_COS)
    axis = np.mod(doubled / (4.0 * np.pi), 0.5)  # turns in [0, 0.5)
    dist = num / np.maximum(6.0 * delta, 1.0)  # hue in turns
    dist -= axis[:, None]
    dist -= np.rint(dist)
    np.abs(dist, out=dist)  # circular distance to the axis, in [0, 0.5]
    tol = hue_tol_deg / 360.0
    n_a = (on & (dist <= tol)).sum(axis=1)
    n_b = (on & (dist >= 0.5 - tol)).sum(axis=1)
    error = np.maximum(np.abs(n_a - HALF), np.abs(n_b - HALF))
    return {"strict_error": error, "n_a": n_a, "n_b": n_b, "axis_deg": axis * 360.0}


def score_images(images: np.ndarray, *, batch_size: int = _CHUNK, progress: bool = False) -> dict[str, np.ndarray]:
    """Both metrics per image, in the evaluator's column layout.

    Columns: ``error``, ``accuracy``, ``strict_error``, ``strict_accuracy`` (the declared
    metrics) and ``count``, ``peak_hue_deg``, ``strict_n_a``, ``strict_n_b``,
    ``strict_axis_deg``.

    Raises:
        SrmBenchError: images of the wrong dtype or shape.
    """
    from tqdm.auto import tqdm

    images = check_images(images)
    step = max(1, int(batch_size))
    parts: list[dict[str, np.ndarray]] = []
    for lo in tqdm(range(0, images.shape[0], step), desc="even-pixels", unit="batch", disable=not progress):
        num, delta, vmax = hue_parts(images[lo:lo + step])
        bins512 = hue_bins(num, delta, 2 * BINS)
        paper = _paper(bins512 >> 1)  # floor(256 h) == floor(floor(512 h) / 2)
        strict = _strict(num, delta, vmax, bins512 % _FOLD_BINS, STRICT_HUE_TOL_DEG, STRICT_MIN_SATURATION,
                         STRICT_VALUE, STRICT_VALUE_TOL)
        parts.append({
            "error": paper["error"].astype(np.int64),
            "accuracy": paper["error"] == 0,
            "strict_error": strict["strict_error"].astype(np.int64),
            "strict_accuracy": strict["strict_error"] == 0,
            "count": paper["count"].astype(np.int64),
            "peak_hue_deg": paper["peak_bin"] * (360.0 / BINS),
            "strict_n_a": strict["n_a"].astype(np.int64),
            "strict_n_b": strict["n_b"].astype(np.int64),
            "strict_axis_deg": strict["axis_deg"],
        })
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


class EvenPixelsEvaluator(TaskEvaluator):
    """Hue-histogram evaluator of Even Pixels (paper metric plus a strict variant)."""

    task: ClassVar[str] = "even-pixels"
    name: ClassVar[str] = "even-pixels-hue-histogram"
    version: ClassVar[int] = 1
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "error": MetricInfo("mean", False, "paper: |#pixels nearer the peak hue than its complement - 512|"),
        "accuracy": MetricInfo("rate", True, "paper: fraction of samples with error 0"),
        "strict_error": MetricInfo("mean", False, "max |cluster size - 512| over two complementary hue clusters"),
        "strict_accuracy": MetricInfo("rate", True, "exactly two complementary colours (S~1, V~0.7), 512 pixels each"),
    }

    def score(self, images: np.ndarray, *, reference: Any = None, index: np.ndarray | None = None,
              device: str = "cpu", batch_size: int = 256, progress: bool = False) -> dict[str, np.ndarray]:
        """Score uint8 NHWC images (unconditional: ``reference`` and ``index`` are not used).

        Pure NumPy on the CPU: ``device`` is ignored and ``batch_size`` too (the images are
        processed in cache-sized steps of 128; results do not depend on it).

        Raises:
            SrmBenchError: images of the wrong dtype or shape.
        """
        return score_images(images, progress=progress)


EVALUATOR = EvenPixelsEvaluator()
