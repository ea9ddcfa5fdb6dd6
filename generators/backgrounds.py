"""Photographic backgrounds for the counting tasks: embedded photos or a folder of images.

Two sources, chosen per dataset and recorded in its config and manifest:

- ``embedded`` (default): the colour photographs that ship inside scikit-image (PNG files
  read straight from its data folder, never downloaded). Each background is a random
  128x128 window of one photo resized (bicubic) to one of six scales, so the window spans
  15-25% of the photo's shorter side, flipped left-right half of the time. The scaled
  photos are made once per process, so a background costs a slice, not a resize.
  Every photo is cut across its longer side: windows of the train split lie in the first
  75%, windows of the test split in the rest, 8 pixels apart, so the splits share no
  source pixel.
- ``folder``: any folder of images (e.g. FFHQ 128x128 thumbnails), split 95/5 into
  train/test by sorted file name; every image is used whole, resized to 128x128.

Backgrounds are addressed by a small integer record ``(source, scale, y0, x0, flip)`` that
the shards keep, so every image can be re-rendered from its compact form.
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from srm_bench.errors import SrmBenchError

SIDE = 128
EMBEDDED_PHOTOS = ("astronaut", "chelsea", "coffee", "ihc", "motorcycle_left")
TRAIN_FRACTION = 0.75  # of each photo's longer side, for the embedded source
SCALES = (0.15, 0.17, 0.19, 0.21, 0.23, 0.25)  # window side as a fraction of the photo's shorter side
CUT_GAP = 8  # pixels between the train and test regions of a scaled photo
FOLDER_TEST_FRACTION = 0.05
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff")


def _skimage_data_dir() -> Path:
    import skimage.data

    return Path(skimage.data.__file__).parent


@lru_cache(maxsize=None)
def embedded_photo(name: str) -> Image.Image:
    """One embedded photo as an RGB PIL image (read from scikit-image's data folder).

    Raises:
        SrmBenchError: the photo is missing from the installed scikit-image.
    """
    path = _skimage_data_dir() / f"{name}.png"
    try:
        with Image.open(path) as im:
            return im.convert("RGB")
    except OSError:
        raise SrmBenchError(f"{path}: embedded background photo missing; reinstall scikit-image (>=0.22)") from None


def embedded_config() -> dict[str, Any]:
    """The background part of a config for the embedded photos."""
    return {"kind": "embedded", "photos": list(EMBEDDED_PHOTOS), "train_fraction": TRAIN_FRACTION,
            "scales": list(SCALES)}


def folder_config(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The background part of a config for a folder of images, after checking the folder.

    Args:
        directory: a folder holding only image files (hidden files are ignored).

    Raises:
        SrmBenchError: the folder is missing, unreadable, empty, holds fewer than 2 images,
            or holds a file that is not a readable image.
    """
    path = Path(directory).expanduser().resolve()
    if not path.is_dir():
        raise SrmBenchError(f"--backgrounds {directory}: not a directory; pass a folder of images")
    try:
        names = sorted(p.name for p in path.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        raise SrmBenchError(f"--backgrounds {directory}: cannot list the folder ({exc.strerror}); check its permissions") from None
    if len(names) < 2:
        raise SrmBenchError(f"--backgrounds {directory}: needs at least 2 image files, found {len(names)}")
    listing = hashlib.sha256()
    for name in names:
        file = path / name
        if not file.is_file() or file.suffix.lower() not in IMAGE_SUFFIXES:
            raise SrmBenchError(
                f"--backgrounds {directory}: {name} is not an image file ({', '.join(IMAGE_SUFFIXES)}); "
                "keep only images in the folder")
        try:
            with Image.open(file) as im:
                im.verify()
        except (OSError, SyntaxError, ValueError):
            raise SrmBenchError(f"--backgrounds {directory}: {name} is not a readable image; remove or replace it") from None
        listing.update(f"{name}\t{file.stat().st_size}\n".encode())
    return {"kind": "folder", "path": str(path), "count": len(names), "listing_sha256": listing.hexdigest()}


@lru_cache(maxsize=4)
def _folder_names(path: str, count: int) -> tuple[str, ...]:
    names = tuple(sorted(p.name for p in Path(path).iterdir() if not p.name.startswith(".")))
    if len(names) != count:
        raise SrmBenchError(f"{path}: the background folder now holds {len(names)} files, not {count}; "
                            "restore it or regenerate the dataset")
    return names


def folder_range(config: dict[str, Any], split: str) -> tuple[int, int]:
    """Indices ``[lo, hi)`` of the sorted folder files used by ``split`` (95/5 train/test)."""
    count = int(config["count"])
    n_test = max(1, int(round(FOLDER_TEST_FRACTION * count)))
    return (count - n_test, count) if split == "test" else (0, count - n_test)


@lru_cache(maxsize=None)
def scaled_photo(name: str, scale: float) -> np.ndarray:
    """An embedded photo resized (bicubic) so that a 128-pixel window covers ``scale`` of its shorter side."""
    photo = embedded_photo(name)
    factor = SIDE / (scale * min(photo.size))
    size = (int(round(photo.size[0] * factor)), int(round(photo.size[1] * factor)))
    return np.asarray(photo.resize(size, Image.Resampling.BICUBIC))


def _region(length: int, split: str, train_fraction: float) -> tuple[int, int]:
    """Range ``[lo, hi)`` of window starts along the cut axis for ``split``."""
    cut = min(int(train_fraction * length), length - SIDE)
    # Windows of the two splits keep CUT_GAP pixels apart, more than the bicubic support.
    return (cut, length - SIDE + 1) if split == "test" else (0, cut - CUT_GAP - SIDE + 1)


def sample_background(config: dict[str, Any], split: str, rng: np.random.Generator) -> np.ndarray:
    """Draw one background record ``(source, scale index, y0, x0, flip)`` as int32.

    Args:
        config: the background part of a config (``embedded_config`` or ``folder_config``).
        split: ``"test"`` draws from the held-out sources/regions, anything else from the train ones.
        rng: the item's random generator.
    """
    if config["kind"] == "folder":
        lo, hi = folder_range(config, split)
        return np.array([rng.integers(lo, hi), 0, 0, 0, 0], dtype=np.int32)
    photos, scales = config["photos"], config["scales"]
    k, s = int(rng.integers(len(photos))), int(rng.integers(len(scales)))
    h, w, _ = scaled_photo(photos[k], scales[s]).shape
    # The cut runs across the longer side (x for landscape and square photos, y for portrait).
    along_len, across_len = (w, h) if w >= h else (h, w)
    lo, hi = _region(along_len, split, config["train_fraction"])
    along, across = int(rng.integers(lo, hi)), int(rng.integers(0, across_len - SIDE + 1))
    x0, y0 = (along, across) if w >= h else (across, along)
    return np.array([k, s, y0, x0, rng.integers(2)], dtype=np.int32)


def render_background(config: dict[str, Any], record: np.ndarray) -> np.ndarray:
    """The uint8 (128, 128, 3) background of one record (a read-only view for embedded photos).

    Raises:
        SrmBenchError: a folder image is missing or unreadable.
    """
    source, s, y0, x0, flip = (int(v) for v in record)
    if config["kind"] == "folder":
        name = _folder_names(config["path"], int(config["count"]))[source]
        file = Path(config["path"]) / name
        try:
            with Image.open(file) as im:
                img = im.convert("RGB")
        except OSError:
            raise SrmBenchError(f"{file}: background image missing or unreadable; restore it or regenerate") from None
        if img.size != (SIDE, SIDE):
            img = img.resize((SIDE, SIDE), Image.Resampling.BICUBIC)
        return np.asarray(img)
    window = scaled_photo(config["photos"][source], config["scales"][s])[y0:y0 + SIDE, x0:x0 + SIDE]
    return window[:, ::-1] if flip else window


def source_info(config: dict[str, Any]) -> dict[str, Any]:
    """What results must record about the backgrounds so that different sources never mix."""
    if config["kind"] == "folder":
        return {"backgrounds": "folder", "listing_sha256": config["listing_sha256"], "count": config["count"]}
    digests = {}
    for name in config["photos"]:
        digests[name] = hashlib.sha256(np.asarray(embedded_photo(name)).tobytes()).hexdigest()
    return {"backgrounds": "embedded-skimage-photos", "photos_sha256": digests}
