"""Counting Polygons / Counting Stars: N objects of K vertices each, plus the digits N and K.

Every 128x128 image holds N objects (1-9) that share K vertices (polygons: 3-7; stars:
2-9 points with inner radius 0.1 r) and two more circles holding the digits N and K, in a
random order. All N + 2 circles are disjoint, with radius 0.07-0.155 of the side, from
:func:`sample_layout`. One colour per image, hsv(h, 1, 0.9), with h the least frequent hue
of the background (circularly Gaussian-smoothed hue histogram).

Rendering: each object's coverage mask is drawn at 4x (the 512 canvas of the paper) in a
patch around it and downsampled with bicubic filtering (see :func:`render_mask`), then
painted over the 128x128 background in exact integer arithmetic (:func:`composite`).
Patch margins are wider than the bicubic support, so an object's mask equals that of the
whole 512 canvas resized (up to the canvas edge, which is zero-padded); drawing only the
patches keeps the generator fast. Digits are the DejaVu Sans glyph outlines that ship
with matplotlib, drawn as polygons.

Classifier mode (``--mode classifier``, for training the evaluators): in half of the
images the digits are a random pair of 1-9 other than {N, K}, and in a quarter of the
images with N >= 2 one to N - 1 objects get another vertex count (``vertices`` keeps the
K the others share). Every label stays in the shard.
"""
from __future__ import annotations

import colorsys
import math
from functools import lru_cache
from typing import Any, ClassVar

import click
import numpy as np
from PIL import Image, ImageDraw

from srm_bench.errors import SrmBenchError
from srm_bench.generation import TaskGenerator
from srm_bench.seeding import item_rng

from . import backgrounds as bgs

SIDE = 128
SUPERSAMPLE = 4  # masks are drawn at 4 x 128 = 512 pixels, as in the paper
MARGIN = 4  # output pixels above and below each object's patch (bicubic support at 4x is 2)
MARGIN_X = 2  # output pixels left and right of each patch; the atlas adds 2 more at its ends
MAX_OBJECTS = 9
N_RANGE = (1, 9)
RADIUS_RANGE = (0.07, 0.155)
STAR_INNER = 0.1
HUE_BINS = 256
HUE_SIGMA = 4.0  # bins of the Gaussian smoothing the hue histogram
DIGIT_SIZE = 1.5  # font size in units of the circle radius (digit height ~1.1 r)
MODES = ("benchmark", "classifier")
SHAPES = {"polygons": (3, 7), "stars": (2, 9)}
MISMATCH_P = 0.5  # classifier mode: share of images whose digits break the rule
MIXED_P = 0.25  # classifier mode: share of images (N >= 2) with unequal vertex counts


# ---------------------------------------------------------------------------- layout

def sample_layout(rng: np.random.Generator, n: int, radius_range: tuple[float, float] = RADIUS_RANGE,
                  candidates: int = 64, attempts: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """``n`` disjoint circles inside the unit square: centres (n, 2) as (x, y) and radii (n,).

    Radii are drawn uniformly, then circles are placed largest first, each at the first of
    ``candidates`` uniform centres that clears the circles already placed; a layout that
    gets stuck is redrawn from scratch (so crowded layouts lean to smaller radii). Plain
    Python on purpose: for a dozen circles it is several times faster than numpy.

    Args:
        rng: the item's random generator.
        n: number of circles.
        radius_range: radius bounds as fractions of the side.
        candidates: candidate centres tried per circle.
        attempts: whole layouts to try before giving up.

    Raises:
        SrmBenchError: no layout found (only for impossible requests, e.g. n = 40).
    """
    lo, hi = radius_range
    for _ in range(attempts):
        radii = sorted(rng.uniform(lo, hi, n).tolist(), reverse=True)
        u = rng.random(2 * candidates * n).tolist()
        placed: list[tuple[float, float, float]] = []
        for i, r in enumerate(radii):
            span, base = 1.0 - 2.0 * r, 2 * candidates * i
            for t in range(candidates):
                x, y = r + span * u[base + 2 * t], r + span * u[base + 2 * t + 1]
                if all((x - px) ** 2 + (y - py) ** 2 >= (r + pr) ** 2 for px, py, pr in placed):
                    placed.append((x, y, r))
                    break
            else:
                break
        else:
            return np.array([p[:2] for p in placed]), np.array(radii)
    raise SrmBenchError(f"no layout of {n} disjoint circles with radii {lo}-{hi} found; use fewer objects")


# ---------------------------------------------------------------------------- shapes

def shape_outline(shape: str, k: int, cx: float, cy: float, radius: float, rotation: float) -> list[float]:
    """Flat ``[x0, y0, x1, y1, ...]`` outline of a regular k-gon or a k-pointed star at (cx, cy)."""
    if shape == "polygons":
        step, count, inner = 2 * math.pi / k, k, radius
    else:
        step, count, inner = math.pi / k, 2 * k, STAR_INNER * radius
    out: list[float] = []
    for m in range(count):
        a, r = rotation + m * step, radius if m % 2 == 0 else inner
        out += (cx + r * math.cos(a), cy + r * math.sin(a))
    return out


def shape_vertices(shape: str, k: int, radius: float, rotation: float) -> np.ndarray:
    """Vertices (m, 2) of a regular polygon with k corners or a star with k points, centred at 0."""
    return np.array(shape_outline(shape, k, 0.0, 0.0, radius, rotation)).reshape(-1, 2)


@lru_cache(maxsize=1)
def digit_outlines() -> dict[int, list[tuple[np.ndarray, bool]]]:
    """DejaVu Sans outlines of the digits 1-9 at font size 1, centred on their bounding box.

    Each digit is a list of ``(polygon (m, 2) in image axes, is_hole)``, largest first.
    """
    from matplotlib import get_data_path
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    prop = FontProperties(fname=f"{get_data_path()}/fonts/ttf/DejaVuSans.ttf")
    out: dict[int, list[tuple[np.ndarray, bool]]] = {}
    for d in range(1, 10):
        polys = [np.asarray(p, dtype=np.float64) for p in TextPath((0, 0), str(d), size=1.0, prop=prop).to_polygons()]
        allpts = np.concatenate(polys)
        centre = (allpts.min(0) + allpts.max(0)) / 2
        entries = []
        for p in polys:
            p = (p - centre) * np.array([1.0, -1.0])  # font y points up, image y down
            x, y = p[:, 0], p[:, 1]
            area = 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
            entries.append((abs(area), area, p))
        entries.sort(key=lambda e: -e[0])
        outer_sign = np.sign(entries[0][1])
        out[d] = [(p, bool(np.sign(a) != outer_sign)) for _, a, p in entries]
    return out


def object_polygons(shape: str, items: dict[str, np.ndarray], i: int) -> list[list[tuple[list[float], bool]]]:
    """Per object and digit of item ``i``: its ``(flat outline in 512-canvas pixels, is_hole)`` list."""
    scale = SIDE * SUPERSAMPLE
    xy, radius = items["object_xy"][i].tolist(), items["object_radius"][i].tolist()
    verts, rotation = items["object_vertices"][i].tolist(), items["object_rotation"][i].tolist()
    out = []
    for j in range(int(items["n_objects"][i])):
        outline = shape_outline(shape, verts[j], xy[j][0] * scale, xy[j][1] * scale, radius[j] * scale, rotation[j])
        out.append([(outline, False)])
    outlines = digit_outlines()
    for j in range(2):
        centre = items["number_xy"][i, j].astype(np.float64) * scale
        size = DIGIT_SIZE * float(items["number_radius"][i, j]) * scale
        out.append([((p * size + centre).ravel().tolist(), hole) for p, hole in outlines[int(items["numbers"][i, j])]])
    return out


def render_mask(shape: str, items: dict[str, np.ndarray], i: int) -> np.ndarray:
    """The uint8 128x128 coverage mask of item ``i`` (objects and digits).

    Each object is drawn at 4x in a patch spanning its bounding box plus a margin of zeros
    (MARGIN_X, MARGIN output pixels); the patches are set side by side in one atlas so that
    a single bicubic resize serves them all (the margins keep the patches from seeing each
    other), then each patch is maxed into the mask. The canvas is zero-padded beyond the
    image edges.
    """
    s = SUPERSAMPLE
    groups = object_polygons(shape, items, i)
    boxes = []
    for polygons in groups:
        xs = [x for flat, _ in polygons for x in flat[0::2]]
        ys = [y for flat, _ in polygons for y in flat[1::2]]
        x0, y0 = math.floor(min(xs)) // s - MARGIN_X, math.floor(min(ys)) // s - MARGIN
        x1, y1 = math.ceil(max(xs)) // s + 1 + MARGIN_X, math.ceil(max(ys)) // s + 1 + MARGIN
        boxes.append((x0, y0, x1 - x0, y1 - y0))
    # Side by side: Pillow resizes wide images horizontally first, as it does the square canvas
    # (tall ones vertically first, which rounds differently). Neighbours' drawn pixels are
    # 2 + 2 output pixels apart, beyond the filter's reach of either patch.
    width, height = sum(b[2] for b in boxes) + 2 * MARGIN_X, max(b[3] for b in boxes)
    atlas = Image.new("L", (width * s, height * s), 0)
    draw = ImageDraw.Draw(atlas)
    col = MARGIN_X
    for polygons, (x0, y0, w, _) in zip(groups, boxes):
        dx, dy = (x0 - col) * s, y0 * s
        for flat, hole in polygons:
            shifted = [v - dx if m % 2 == 0 else v - dy for m, v in enumerate(flat)]
            draw.polygon(shifted, fill=0 if hole else 255)
        col += w
    low = np.asarray(atlas.resize((width, height), Image.Resampling.BICUBIC))
    pad = MARGIN + 2
    mask = np.zeros((SIDE + 2 * pad, SIDE + 2 * pad), dtype=np.uint8)
    col = MARGIN_X
    for x0, y0, w, h in boxes:
        view = mask[y0 + pad:y0 + pad + h, x0 + pad:x0 + pad + w]
        np.maximum(view, low[:h, col:col + w], out=view)
        col += w
    return np.ascontiguousarray(mask[pad:pad + SIDE, pad:pad + SIDE])


# ---------------------------------------------------------------------------- colour

NUMBER_MARGIN_PX = 1.0  # pixels added around a number's disk when choosing the patches it touches


def number_patches(items: dict[str, np.ndarray], side: int = SIDE, patch: int = 8) -> np.ndarray:
    """(N, P) bool, True for each patch of the ``side // patch`` grid (row-major) that one of an
    item's two numbers touches: its disk (``number_radius`` plus NUMBER_MARGIN_PX, in pixels)
    around ``number_xy`` (fractions of the side, x first). A number at size 0 touches none.
    Everything the numbers draw lies in these patches (tested), which is what asking a model to
    write the numbers into an otherwise given image needs (the training gauge's "numbers" row,
    benchmarks/probe_write_count.py)."""
    n, grid = len(items["numbers"]), side // patch
    lo = np.arange(grid) * patch  # each patch's first pixel; it spans [lo, lo + patch)
    touched = np.zeros((n, grid, grid), dtype=bool)
    for i in range(n):
        for (x, y), r in zip(items["number_xy"][i] * side, items["number_radius"][i] * side):
            if r <= 0:
                continue
            dx = np.clip(x, lo, lo + patch) - x  # from the centre to each patch's nearest point, per axis
            dy = np.clip(y, lo, lo + patch) - y
            touched[i] |= dy[:, None] ** 2 + dx[None, :] ** 2 <= (r + NUMBER_MARGIN_PX) ** 2
    return touched.reshape(n, grid * grid)


def least_frequent_hue(rgb: np.ndarray, sigma: float = HUE_SIGMA) -> float:
    """The least frequent hue (in turns, 0-1) of a uint8 RGB image.

    The 256-bin histogram of PIL's 8-bit hue over every fourth pixel in each direction is
    smoothed circularly with a Gaussian of ``sigma`` bins (integer weights, so the argmin is
    exact on every machine); ties go to the lowest hue.
    """
    hue = np.asarray(Image.fromarray(np.ascontiguousarray(rgb[::4, ::4])).convert("HSV"))[..., 0]
    hist = np.bincount(hue.ravel(), minlength=HUE_BINS).astype(np.int64)
    radius = int(np.ceil(3 * sigma))
    offsets = np.arange(-radius, radius + 1)
    weights = np.rint(1000 * np.exp(-0.5 * (offsets / sigma) ** 2)).astype(np.int64)
    wrapped = np.concatenate([hist[-radius:], hist, hist[:radius]])
    smooth = np.convolve(wrapped, weights, mode="valid")
    return float(np.argmin(smooth)) / HUE_BINS


def object_colour(hue: float) -> np.ndarray:
    """The uint8 RGB of hsv(hue, 1.0, 0.9)."""
    return np.array([round(255 * c) for c in colorsys.hsv_to_rgb(hue, 1.0, 0.9)], dtype=np.uint8)


def composite(background: np.ndarray, mask: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Paint ``colour`` over ``background`` with coverage ``mask`` in exact integer arithmetic.

    Each channel is ``round((bg (255 - a) + c a) / 255)``; only covered pixels are touched.
    """
    out = np.array(background, dtype=np.uint8).reshape(-1, 3)
    covered = np.flatnonzero(mask)
    a = mask.reshape(-1)[covered].astype(np.uint16)[:, None]
    # x <= 255 * 255 + 127 fits uint16, and for such x (x + 1 + (x >> 8)) >> 8 == x // 255.
    x = out[covered].astype(np.uint16) * (255 - a) + colour.astype(np.uint16) * a + 127
    out[covered] = (x + 1 + (x >> 8)) >> 8
    return out.reshape(background.shape)


# ---------------------------------------------------------------------------- generator

class CountingGenerator(TaskGenerator):
    """Generator of one counting task (``shape`` = ``"polygons"`` or ``"stars"``)."""

    task_version: ClassVar[int] = 1
    portable_images: ClassVar[bool] = False  # Pillow rasterises the objects and digits

    def __init__(self, shape: str) -> None:
        self.shape = shape
        self.task = f"counting-{shape}"  # type: ignore[misc]
        self.vertex_range = SHAPES[shape]

    def make_config(self, split: str, seed: int, backgrounds: str | None = None, mode: str = "benchmark",
                    **options: Any) -> dict[str, Any]:
        """Config of a dataset.

        Args:
            split: ``train`` or ``test`` (selects the background sources/regions).
            seed: dataset seed.
            backgrounds: a folder of images to use instead of the embedded photos.
            mode: ``benchmark`` (digits follow the rule) or ``classifier`` (rule broken at times).

        Raises:
            SrmBenchError: unknown options or mode, or a bad background folder.
        """
        if options:
            raise SrmBenchError(f"unknown option(s) for {self.task}: {', '.join(sorted(options))}")
        if mode not in MODES:
            raise SrmBenchError(f"--mode must be one of {', '.join(MODES)} (got {mode!r})")
        bg = bgs.folder_config(backgrounds) if backgrounds else bgs.embedded_config()
        return {
            "shape": self.shape, "mode": mode, "split": split, "seed": int(seed), "n_range": list(N_RANGE),
            "vertex_range": list(self.vertex_range), "radius_range": list(RADIUS_RANGE),
            "star_inner": STAR_INNER, "supersample": SUPERSAMPLE, "hue_bins": HUE_BINS,
            "hue_sigma": HUE_SIGMA, "digit_size": DIGIT_SIZE, "backgrounds": bg,
        }

    def default_count(self, split: str) -> int:
        return 500 if split == "test" else 100_000

    def default_shard_size(self, split: str) -> int:
        return 5_000

    def source_info(self, config: dict[str, Any]) -> dict[str, Any]:
        return bgs.source_info(config["backgrounds"])

    def generate_items(self, config: dict[str, Any], shared: dict[str, np.ndarray], start: int, stop: int) -> dict[str, np.ndarray]:
        n = stop - start
        items = {
            "n_objects": np.zeros(n, np.int8), "vertices": np.zeros(n, np.int8),
            "numbers": np.zeros((n, 2), np.int8), "consistent": np.zeros(n, bool), "rule_ok": np.zeros(n, bool),
            "object_vertices": np.zeros((n, MAX_OBJECTS), np.int8),
            "object_xy": np.zeros((n, MAX_OBJECTS, 2), np.float32),
            "object_radius": np.zeros((n, MAX_OBJECTS), np.float32),
            "object_rotation": np.zeros((n, MAX_OBJECTS), np.float32),
            "number_xy": np.zeros((n, 2, 2), np.float32), "number_radius": np.zeros((n, 2), np.float32),
            "hue": np.zeros(n, np.float32), "colour": np.zeros((n, 3), np.uint8),
            "background": np.zeros((n, 5), np.int32),
        }
        kmin, kmax = config["vertex_range"]
        classifier = config["mode"] == "classifier"
        stream = f"{self.task}/{config['split']}/{config['mode']}"
        for i in range(n):
            rng = item_rng(int(config["seed"]), stream, start + i)
            count = int(rng.integers(N_RANGE[0], N_RANGE[1] + 1))
            k = int(rng.integers(kmin, kmax + 1))
            centres, radii = sample_layout(rng, count + 2, tuple(config["radius_range"]))
            order = rng.permutation(count + 2)
            objs, nums = order[:count], order[count:]
            verts = np.full(count, k)
            if classifier and count >= 2 and rng.random() < MIXED_P:
                others = [v for v in range(kmin, kmax + 1) if v != k]
                changed = rng.choice(count, size=int(rng.integers(1, count)), replace=False)
                verts[changed] = rng.choice(others, size=changed.size)
            numbers = [count, k]
            if classifier and rng.random() < MISMATCH_P:
                while sorted(numbers) == sorted([count, k]):
                    numbers = [int(v) for v in rng.integers(1, 10, size=2)]
            numbers = [numbers[j] for j in rng.permutation(2)]
            record = bgs.sample_background(config["backgrounds"], config["split"], rng)
            hue = least_frequent_hue(bgs.render_background(config["backgrounds"], record), config["hue_sigma"])
            items["n_objects"][i], items["vertices"][i] = count, k
            items["numbers"][i] = numbers
            items["consistent"][i] = bool((verts == verts[0]).all())
            items["rule_ok"][i] = items["consistent"][i] and sorted(numbers) == sorted([count, k])
            items["object_vertices"][i, :count] = verts
            items["object_xy"][i, :count] = centres[objs]
            items["object_radius"][i, :count] = radii[objs]
            items["object_rotation"][i, :count] = rng.uniform(0, 2 * np.pi, count)
            items["number_xy"][i] = centres[nums]
            items["number_radius"][i] = radii[nums]
            items["hue"][i] = hue
            items["colour"][i] = object_colour(hue)
            items["background"][i] = record
        return items

    def render(self, config: dict[str, Any], shared: dict[str, np.ndarray], items: dict[str, np.ndarray]) -> np.ndarray:
        n = items["n_objects"].shape[0]
        out = np.empty((n, SIDE, SIDE, 3), dtype=np.uint8)
        for i in range(n):
            background = bgs.render_background(config["backgrounds"], items["background"][i])
            out[i] = composite(background, render_mask(self.shape, items, i), items["colour"][i])
        return out


CLI_OPTIONS = [
    click.Option(["--backgrounds"], type=str, default=None, metavar="DIR",
                 help="Folder of background images (e.g. FFHQ thumbnails), split 95/5 by sorted name "
                      "[default: the photos embedded in scikit-image]."),
    click.Option(["--mode"], type=click.Choice(MODES), default="benchmark", show_default=True,
                 help="classifier: digits break the rule in 50% of images, vertex counts differ at times."),
]
POLYGONS = CountingGenerator("polygons")
STARS = CountingGenerator("stars")
