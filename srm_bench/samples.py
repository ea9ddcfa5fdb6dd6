"""Reading and writing samples files: the inputs that evaluators score.

Accepted inputs (see docs/format.md):

- our samples HDF5: dataset ``samples`` (uint8, or float with a declared ``range`` attr),
  optional ``index`` into the puzzle set, root attrs naming ``task``, ``split`` and
  ``dataset_sha256`` (and optionally ``model`` as JSON);
- ``.npz`` with ``arr_0`` (uint8 NHWC, as guided-diffusion and DiT write it);
- a folder of PNGs named by index (``0.png``, ``1.png`` ... or ``000123.png``).

Everything is normalised to uint8 ``(N, H, W, C)``.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import SrmBenchError
from .registry import TaskSpec
from .io import atomic_output

RANGES = {"0,1": (0.0, 1.0), "-1,1": (-1.0, 1.0), "0,255": (0.0, 255.0)}
SAMPLES_FORMAT = "srm-bench-samples"


@dataclass
class Samples:
    """Samples read from disk, normalised to uint8 NHWC."""

    images: np.ndarray
    index: np.ndarray | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


def parse_range(value: str | tuple[float, float] | None) -> tuple[float, float] | None:
    if value is None or isinstance(value, tuple):
        return value
    key = value.replace(" ", "")
    if key not in RANGES:
        raise SrmBenchError(f"unknown value range {value!r}; use one of {', '.join(RANGES)}")
    return RANGES[key]


def to_uint8(arr: np.ndarray, value_range: tuple[float, float] | None, where: str) -> np.ndarray:
    """Convert samples to uint8, refusing floats without a declared range and NaN/inf."""
    if arr.dtype == np.uint8:
        return arr
    check_values(arr, value_range, where)
    if np.issubdtype(arr.dtype, np.integer):
        return arr.astype(np.uint8)
    lo, hi = value_range  # type: ignore[misc]
    scaled = (arr.astype(np.float64) - lo) / (hi - lo) * 255.0
    return np.clip(np.rint(scaled), 0, 255).astype(np.uint8)


def check_values(arr: np.ndarray, value_range: tuple[float, float] | None, where: str) -> None:
    """Refuse what :func:`to_uint8` cannot turn into pixels: other dtypes, integers outside
    [0, 255], floats without a declared range, NaN/inf, floats outside their range."""
    if arr.dtype == np.uint8:
        return
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise SrmBenchError(f"{where}: samples have dtype {arr.dtype}; give uint8 in [0, 255] or floats with --range")
    if np.issubdtype(arr.dtype, np.integer):
        if arr.min(initial=0) < 0 or arr.max(initial=0) > 255:
            raise SrmBenchError(f"{where}: integer samples must lie in [0, 255] (found {arr.min()}..{arr.max()})")
        return
    if value_range is None:
        raise SrmBenchError(f"{where}: float samples need a declared value range; pass --range 0,1 or --range -1,1")
    if not np.isfinite(arr).all():
        bad = int((~np.isfinite(arr)).any(axis=tuple(range(1, arr.ndim))).sum())
        raise SrmBenchError(f"{where}: {bad} sample(s) contain NaN or inf; fix the sampler or drop them")
    lo, hi = value_range
    if arr.size and lo < 0 and arr.min() >= 0:  # black is -1 in [-1, 1]: no image of these tasks lacks it
        raise SrmBenchError(f"{where}: float samples lie in [{arr.min():.3g}, {arr.max():.3g}] with nothing below 0, "
                            "so they are not in the declared range -1,1; pass --range 0,1")
    slack = 0.01 * (hi - lo)
    if arr.min() < lo - slack or arr.max() > hi + slack:
        raise SrmBenchError(
            f"{where}: float samples span [{arr.min():.3g}, {arr.max():.3g}], outside the declared range "
            f"[{lo:g}, {hi:g}]; pass the right --range"
        )


def to_nhwc(arr: np.ndarray, spec: TaskSpec, where: str) -> np.ndarray:
    """Bring (N,H,W), (N,H,W,C) or (N,C,H,W) to (N,H,W,C) and check it against the task."""
    if arr.ndim == 3:
        arr = arr[..., None]
    out = np.moveaxis(arr, 1, -1) if channels_first(arr.shape, spec, where) else arr
    return np.ascontiguousarray(out)


def channels_first(shape: tuple[int, ...], spec: TaskSpec, where: str) -> bool:
    """Check a samples shape against the task; True when it is (N,C,H,W)."""
    h, w, c = spec.image_shape
    if len(shape) == 3:
        shape = (*shape, 1)
    if len(shape) != 4:
        raise SrmBenchError(f"{where}: samples must be (N,H,W), (N,H,W,C) or (N,C,H,W); got shape {shape}")
    if shape[1:] not in ((h, w, c), (c, h, w)):
        raise SrmBenchError(
            f"{where}: {spec.name} samples must be {h}x{w} with {c} channel(s); got shape {shape[1:]}"
        )
    if shape[0] == 0:
        raise SrmBenchError(f"{where}: holds no samples")
    return shape[1:] != (h, w, c)


def read_samples(path: str | Path, spec_for: Callable[[dict[str, Any]], TaskSpec],
                 value_range: str | None = None) -> Samples:
    """Read a samples file of any accepted kind.

    ``spec_for`` maps the attrs found (``{}`` for a PNG folder, read before it has any) to the
    TaskSpec to check against; this lets HDF5 inputs name their own task.
    """
    path = Path(path)
    if not path.exists():
        raise SrmBenchError(f"{path}: no such file or directory")
    if path.is_dir() and (path / "manifest.json").exists():
        raw, attrs, index = _read_dataset(path)
    elif path.is_dir():
        raw, attrs, index = _read_png_dir(path, spec_for({}).image_shape[2]), {}, None
    elif path.suffix == ".npz":
        raw, attrs, index = _read_npz(path)
    else:
        raw, attrs, index = _read_h5(path)
    for key in ("task", "split", "range", "dataset_sha256"):
        if attrs.get(key) is not None and not isinstance(attrs[key], str):
            raise SrmBenchError(f"{path}: attr {key!r} must be a string (got {attrs[key]!r}); fix the attr or drop it")
    spec = spec_for(attrs)
    if raw.ndim == 0 or raw.shape[0] == 0:
        raise SrmBenchError(f"{path}: holds no samples")
    rng = parse_range(value_range) if value_range is not None else parse_range(attrs.get("range"))
    images = to_nhwc(to_uint8(raw, rng, str(path)), spec, str(path))
    if index is not None:
        index = np.asarray(index)
        if index.shape != (images.shape[0],) or not np.issubdtype(index.dtype, np.integer):
            raise SrmBenchError(f"{path}: 'index' must be an integer vector with one entry per sample ({images.shape[0]}); got {index.dtype} {index.shape}")
    return Samples(images=images, index=index, attrs=attrs, path=path)


def _read_dataset(path: Path) -> tuple[np.ndarray, dict[str, Any], np.ndarray]:
    """A generated dataset scored as samples: its own solution images (a sanity check)."""
    from .dataset import load_dataset

    ds = load_dataset(path)
    # provenance "user": the leaderboard shows "oracle" only for committed results (docs/results.md)
    attrs = {"task": ds.task, "split": ds.split, "dataset_sha256": ds.content_sha256,
             "model": {"name": "ground-truth", "provenance": "user", "sampler": {"name": "dataset solutions"}}}
    return ds.images(), attrs, np.arange(ds.count)


def _read_h5(path: Path) -> tuple[np.ndarray, dict[str, Any], np.ndarray | None]:
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise SrmBenchError(f"{path}: not a readable HDF5 file ({str(exc).splitlines()[0]}); is it truncated, or an .npz/PNG folder?") from None
    with f:
        key = "samples" if "samples" in f else ("images" if "images" in f else None)
        if key is None:
            raise SrmBenchError(f"{path}: no 'samples' dataset; an srm-bench dataset directory is scored with its own solutions via 'srm-bench evaluate DIR --reference DIR'")
        for name in (key, "index"):
            if name in f and not isinstance(f[name], h5py.Dataset):
                raise SrmBenchError(f"{path}: '{name}' is an HDF5 group, not an array; store the samples as a dataset")
        check_fits_in_memory(f[key].shape, f[key].dtype, path)
        try:
            raw = f[key][()]
            index = f["index"][()] if "index" in f else None
        except (OSError, TypeError, ValueError) as exc:
            raise SrmBenchError(f"{path}: damaged, truncated or of an unreadable type ({str(exc).splitlines()[0]})") from None
        try:
            attrs = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in f.attrs.items()}
        except (OSError, TypeError, ValueError) as exc:
            raise SrmBenchError(f"{path}: attrs cannot be read ({str(exc).splitlines()[0]})") from None
    for k, v in list(attrs.items()):
        if isinstance(v, bytes):
            try:
                attrs[k] = v.decode()
            except UnicodeDecodeError:
                raise SrmBenchError(f"{path}: attr {k!r} is not UTF-8 text") from None
    for k in ("model", "source"):
        if isinstance(attrs.get(k), str):
            try:
                attrs[k] = json.loads(attrs[k])
            except (json.JSONDecodeError, RecursionError):
                raise SrmBenchError(f"{path}: attr {k!r} is not valid JSON") from None
        if attrs.get(k) is not None and not isinstance(attrs[k], dict):
            raise SrmBenchError(f"{path}: attr {k!r} must be a JSON object (got {type(attrs[k]).__name__})")
    return raw, attrs, index


def check_fits_in_memory(shape: tuple[int, ...], dtype: Any, where: str | Path) -> None:
    """Refuse to read an array whose declared size exceeds half the memory available now
    (a 6 KB file can declare terabytes of samples)."""
    nbytes = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    available = _available_memory()
    if available is not None and nbytes > available // 2:
        raise SrmBenchError(f"{where}: declares samples of shape {tuple(shape)} ({nbytes / 2**30:.1f} GiB), more than this "
                            f"machine can hold ({available / 2**30:.1f} GiB available); score them in smaller files")


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _read_npz(path: Path) -> tuple[np.ndarray, dict[str, Any], np.ndarray | None]:
    import zipfile

    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise SrmBenchError(f"{path}: not a readable .npz ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise SrmBenchError(f"{path}: is a .npy array, not an .npz archive; save it with np.savez(path, arr_0=samples)")
    try:
        with z:
            if "arr_0" not in z:
                raise SrmBenchError(f"{path}: .npz must hold the samples as 'arr_0' (found {', '.join(z.files) or 'nothing'})")
            _check_npz_member_size(z, "arr_0", path)
            raw = z["arr_0"]
            index = z["index"] if "index" in z else None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise SrmBenchError(f"{path}: not a readable .npz ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    return raw, {}, index


def _check_npz_member_size(z: Any, name: str, path: Path) -> None:
    """Read the shape an .npz member declares in its header, before numpy allocates it."""
    member = f"{name}.npy" if f"{name}.npy" in z.zip.namelist() else name
    with z.zip.open(member) as f:
        version = np.lib.format.read_magic(f)
        read = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read is None:  # a newer header layout: numpy checks it when loading
            return
        shape, _, dtype = read(f)
    check_fits_in_memory(shape, dtype, path)


_PNG_NAME = re.compile(r"^(\d+)\.png$", re.IGNORECASE)


def _read_png_dir(path: Path, channels: int) -> np.ndarray:
    """The PNGs as one array; palette and 1-bit images are expanded to their colours
    (their raw values are palette indices, not pixels)."""
    from PIL import Image

    files = sorted(((int(m.group(1)), p) for p in path.iterdir() if (m := _PNG_NAME.match(p.name))))
    if not files:
        raise SrmBenchError(f"{path}: holds no PNG files named by index (0.png, 1.png, ...)")
    idx = [i for i, _ in files]
    if idx != list(range(len(idx))):
        raise SrmBenchError(f"{path}: PNG names must be 0..{len(idx) - 1} without gaps (found {idx[0]}..{idx[-1]}, {len(idx)} files)")
    arrays = []
    for _, p in files:
        try:
            with Image.open(p) as im:
                arrays.append(np.asarray(im.convert("L" if channels == 1 else "RGB") if im.mode in ("P", "PA", "1") else im))
        except OSError as exc:
            raise SrmBenchError(f"{p}: not a readable PNG ({exc})") from None
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise SrmBenchError(f"{path}: PNGs differ in size or mode ({sorted(shapes)[:3]}...)")
    return np.stack(arrays)


def write_samples(
    path: str | Path,
    samples: np.ndarray,
    *,
    task: str,
    split: str,
    dataset_sha256: str | None,
    index: np.ndarray | None = None,
    model: dict[str, Any] | None = None,
    value_range: str | None = None,
    extra: dict[str, np.ndarray] | None = None,
    overwrite: bool = False,
) -> Path:
    """Write a samples HDF5 atomically, with the attrs that let ``srm-bench evaluate`` score it alone.

    What ``evaluate`` would refuse is refused here, with one line (SrmBenchError): an unknown
    task or split, a shape that is not the task's image size, no samples, a dtype other than
    uint8/integers in [0, 255]/floats, floats without ``value_range`` or outside it, NaN/inf,
    an ``index`` that is not one non-negative integer per sample.
    """
    from .registry import get_task

    path = Path(path)
    samples = np.asarray(samples)
    where = f"{path} (not written)"
    spec = get_task(task)
    spec.check_split(split)
    channels_first(samples.shape, spec, where)
    check_values(samples, parse_range(value_range) if value_range is not None else None, where)
    if index is not None:
        index = np.asarray(index)
        if index.shape != (samples.shape[0],) or not np.issubdtype(index.dtype, np.integer) or (index.size and index.min() < 0):
            raise SrmBenchError(f"{where}: 'index' must be one non-negative integer per sample ({samples.shape[0]}); "
                                f"got {index.dtype} {index.shape}")
    return _write_unchecked(path, samples, task=task, split=split, dataset_sha256=dataset_sha256, index=index,
                            model=model, value_range=value_range, extra=extra, overwrite=overwrite)


def _write_unchecked(
    path: str | Path,
    samples: np.ndarray,
    *,
    task: str,
    split: str,
    dataset_sha256: str | None,
    index: np.ndarray | None = None,
    model: dict[str, Any] | None = None,
    value_range: str | None = None,
    extra: dict[str, np.ndarray] | None = None,
    overwrite: bool = False,
) -> Path:
    """:func:`write_samples` without its checks: tests use it to write the bad files ``evaluate`` must refuse."""
    import h5py

    path = Path(path)
    if path.exists() and not overwrite:
        raise SrmBenchError(f"{path}: exists; choose another -o or delete it")
    if path.parent and not path.parent.exists():
        try:
            path.parent.mkdir(parents=True)
        except OSError as exc:
            raise SrmBenchError(f"{path.parent}: cannot create ({exc.strerror})") from None
    try:
        with atomic_output(path) as tmp, h5py.File(tmp, "w") as f:
            f.attrs["format"] = SAMPLES_FORMAT
            f.attrs["task"] = task
            f.attrs["split"] = split
            if dataset_sha256:
                f.attrs["dataset_sha256"] = dataset_sha256
            if value_range:
                f.attrs["range"] = value_range
            if model:
                f.attrs["model"] = json.dumps(model, sort_keys=True)
            chunks = (1,) + tuple(samples.shape[1:])
            f.create_dataset("samples", data=samples, chunks=chunks, compression="gzip", compression_opts=1)
            if index is not None:
                f.create_dataset("index", data=np.asarray(index, dtype=np.int64))
            for name, arr in (extra or {}).items():
                f.create_dataset(name, data=arr, compression="gzip", compression_opts=1)
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot write ({exc})") from None
    return path
