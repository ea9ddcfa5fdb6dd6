"""The HDF5 shard format (see docs/format.md).

A shard holds a contiguous range ``[index_start, index_start + count)`` of one dataset:

- ``items/<name>``: compact per-item arrays, first axis = item;
- ``shared/<name>``: per-dataset constants repeated in every shard (e.g. the digit pool);
- ``derived/<name>``: arrays computed from the compact form (images), optional.

The content SHA-256 covers ``items`` and ``shared`` (dtype, shape and bytes in C order),
never the HDF5 file bytes, so it is the same whatever h5py, compression or shard size.
A dataset is a directory of shards plus ``manifest.json``.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .errors import ChecksumError, SrmBenchError
from .io import atomic_output

FORMAT = "srm-bench-shard"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
REQUIRED_ATTRS = (
    "format", "format_version", "task", "task_version", "split", "seed", "config",
    "srm_bench_version", "index_start", "count", "content_sha256",
)


def _canonical(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return a


class ContentHasher:
    """Streams the content hash of a dataset over its shards, in index order.

    The per-name hashes see the concatenated bytes of all shards, so the final digest does
    not depend on where the shard boundaries fall.
    """

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}
        self._item_meta: dict[str, tuple[str, tuple[int, ...]]] = {}
        self._shared: dict[str, str] = {}
        self.count = 0

    def update(self, items: Mapping[str, np.ndarray], shared: Mapping[str, np.ndarray] | None = None) -> None:
        n = None
        for name, arr in items.items():
            arr = _canonical(arr)
            meta = (arr.dtype.str, tuple(arr.shape[1:]))
            if name not in self._items:
                if self.count:
                    raise SrmBenchError(f"item array {name!r} is missing from earlier shards")
                self._items[name] = hashlib.sha256()
                self._item_meta[name] = meta
            elif self._item_meta[name] != meta:
                raise SrmBenchError(f"item array {name!r} changes dtype/shape between shards")
            self._items[name].update(arr.tobytes())
            if n is None:
                n = arr.shape[0]
            elif arr.shape[0] != n:
                raise SrmBenchError(f"item arrays disagree on the item count ({name!r}: {arr.shape[0]} vs {n})")
        if set(items) != set(self._items):
            raise SrmBenchError("shards disagree on their item arrays")
        for name, arr in (shared or {}).items():
            h = _array_digest(arr)
            if self._shared.setdefault(name, h) != h:
                raise SrmBenchError(f"shared array {name!r} differs between shards")
        self.count += int(n or 0)

    def hexdigest(self) -> str:
        h = hashlib.sha256(b"srm-bench-content-v1\n")
        for name in sorted(self._items):
            dtype, tail = self._item_meta[name]
            h.update(f"items/{name}|{dtype}|{list(tail)}|{self._items[name].hexdigest()}\n".encode())
        for name in sorted(self._shared):
            h.update(f"shared/{name}|{self._shared[name]}\n".encode())
        h.update(f"count={self.count}\n".encode())
        return h.hexdigest()


def _array_digest(arr: np.ndarray) -> str:
    arr = _canonical(arr)
    h = hashlib.sha256(f"{arr.dtype.str}|{list(arr.shape)}|".encode())
    h.update(arr.tobytes())
    return h.hexdigest()


def content_hash(items: Mapping[str, np.ndarray], shared: Mapping[str, np.ndarray] | None = None) -> str:
    """SHA-256 of a block of items (and the shared arrays); equals the dataset hash for one shard."""
    hasher = ContentHasher()
    hasher.update(items, shared)
    return hasher.hexdigest()


def array_sha256(arr: np.ndarray) -> str:
    """SHA-256 of one array's dtype, shape and bytes (used for derived arrays such as images)."""
    return _array_digest(arr)


def _dataset_kwargs(arr: np.ndarray, chunk_items: int, fast: bool = False) -> dict[str, Any]:
    if arr.ndim == 0 or arr.size == 0:
        return {}
    chunks = (max(1, min(arr.shape[0], chunk_items)),) + tuple(arr.shape[1:])
    if fast:  # derived images: lzf is ~2x faster than gzip at a slightly lower ratio
        return {"chunks": chunks, "compression": "lzf"}
    return {"chunks": chunks, "compression": "gzip", "compression_opts": 1, "shuffle": arr.dtype.itemsize > 1}


def item_digests(arr: np.ndarray) -> bytes:
    """Concatenated SHA-256 digests of each item of ``arr`` (first axis).

    A dataset's images hash is the SHA-256 of these, so it is the same for any sharding.
    """
    arr = _canonical(arr)
    return b"".join(hashlib.sha256(row.tobytes()).digest() for row in arr)


def write_shard(
    path: Path,
    *,
    attrs: Mapping[str, Any],
    items: Mapping[str, np.ndarray],
    shared: Mapping[str, np.ndarray] | None = None,
    derived: Mapping[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """Write one shard atomically; returns its manifest entry (file, index_start, count, hashes).

    ``attrs`` must hold task, task_version, split, seed, config (a dict), srm_bench_version
    and index_start; format, count and content_sha256 are filled in here. A derived array's
    hash is the SHA-256 of its per-item digests (:func:`item_digests`); the entry also
    carries those digests under ``item_digests`` (bytes, not for the manifest), from which the
    dataset's images hash is made without hashing the images twice.
    """
    import h5py

    path = Path(path)
    shared = dict(shared or {})
    derived = dict(derived or {})
    counts = {a.shape[0] for a in list(items.values()) + list(derived.values())}
    if len(counts) != 1:
        raise SrmBenchError(f"arrays of shard {path.name} disagree on the item count: {sorted(counts)}")
    count = counts.pop()
    sha = content_hash(items, shared)
    digests = {name: item_digests(arr) for name, arr in derived.items()}
    derived_sha = {name: hashlib.sha256(d).hexdigest() for name, d in digests.items()}
    full_attrs = dict(attrs)
    full_attrs.update(
        format=FORMAT, format_version=FORMAT_VERSION, count=int(count), content_sha256=sha,
        derived_sha256=json.dumps(derived_sha, sort_keys=True),
    )
    full_attrs["config"] = json.dumps(full_attrs["config"], sort_keys=True)
    missing = [k for k in REQUIRED_ATTRS if k not in full_attrs]
    if missing:
        raise ValueError(f"shard attrs missing {missing}")
    with atomic_output(path) as tmp, h5py.File(tmp, "w") as f:
        for key, value in full_attrs.items():
            f.attrs[key] = value
        for group, arrays, chunk in (("items", items, 4096), ("shared", shared, 1 << 30), ("derived", derived, 8)):
            g = f.create_group(group)
            for name, arr in arrays.items():
                arr = _canonical(np.asarray(arr))
                g.create_dataset(name, data=arr, **_dataset_kwargs(arr, chunk, fast=group == "derived"))
    return {
        "file": path.name, "index_start": int(full_attrs["index_start"]), "count": int(count),
        "content_sha256": sha, "derived_sha256": derived_sha, "item_digests": digests,
    }


@dataclass
class Shard:
    """One shard read into memory."""

    path: Path
    attrs: dict[str, Any]
    items: dict[str, np.ndarray]
    shared: dict[str, np.ndarray]
    derived: dict[str, np.ndarray]

    @property
    def config(self) -> dict[str, Any]:
        return self.attrs["config"]


def _open_h5(path: Path):
    import h5py

    path = Path(path)
    if not path.exists():
        raise SrmBenchError(f"{path}: no such file")
    if path.is_dir():
        raise SrmBenchError(f"{path}: is a directory, expected an HDF5 file")
    try:
        return h5py.File(path, "r")
    except OSError as exc:
        raise SrmBenchError(
            f"{path}: not a readable HDF5 file ({str(exc).splitlines()[0]}); is it truncated or of another format?"
        ) from None


def read_attrs(path: Path) -> dict[str, Any]:
    """The decoded root attributes of a shard, validated."""
    with _open_h5(path) as f:
        return _decode_attrs(path, f)


def _decode_attrs(path: Path, f) -> dict[str, Any]:
    attrs = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in f.attrs.items()}
    if attrs.get("format") != FORMAT:
        raise SrmBenchError(f"{path}: not an srm-bench shard (attr 'format' is {attrs.get('format')!r})")
    if int(attrs.get("format_version", -1)) > FORMAT_VERSION:
        raise SrmBenchError(
            f"{path}: shard format version {attrs['format_version']} is newer than this srm-bench "
            f"supports ({FORMAT_VERSION}); upgrade srm-bench"
        )
    missing = [k for k in REQUIRED_ATTRS if k not in attrs]
    if missing:
        raise SrmBenchError(f"{path}: shard lacks attrs {missing}; regenerate it with 'srm-bench generate'")
    try:
        attrs["config"] = json.loads(attrs["config"])
        attrs["derived_sha256"] = json.loads(attrs.get("derived_sha256", "{}"))
    except (TypeError, json.JSONDecodeError):
        raise SrmBenchError(f"{path}: shard attrs hold malformed JSON; regenerate it") from None
    return attrs


def read_shard(path: Path, *, verify: bool = False, derived: bool = True) -> Shard:
    """Read a whole shard, checking its structure (and, with ``verify``, its hashes).

    Raises:
        SrmBenchError: missing, truncated or foreign file, or inconsistent arrays.
        ChecksumError: with ``verify``, when the content does not match its recorded hash.
    """
    path = Path(path)
    with _open_h5(path) as f:
        attrs = _decode_attrs(path, f)
        try:
            items = {k: v[()] for k, v in f["items"].items()}
            shared = {k: v[()] for k, v in f["shared"].items()}
            der = {k: v[()] for k, v in f["derived"].items()} if derived and "derived" in f else {}
        except (KeyError, OSError) as exc:
            raise SrmBenchError(f"{path}: shard is damaged or truncated ({exc}); regenerate it") from None
    count = int(attrs["count"])
    for group in (items, der):
        for name, arr in group.items():
            if arr.shape[0] != count:
                raise SrmBenchError(f"{path}: array {name!r} holds {arr.shape[0]} items, attrs say {count}")
    if verify:
        got = content_hash(items, shared)
        if got != attrs["content_sha256"]:
            raise ChecksumError(f"{path}: content hash {got[:12]}... does not match the recorded {attrs['content_sha256'][:12]}...; the file was altered or damaged, regenerate it")
        for name, arr in der.items():
            want = attrs["derived_sha256"].get(name)
            if want and hashlib.sha256(item_digests(arr)).hexdigest() != want:
                raise ChecksumError(f"{path}: derived array {name!r} does not match its recorded hash; regenerate the file")
    return Shard(path=path, attrs=attrs, items=items, shared=shared, derived=der)


DATASET_FORMAT = "srm-bench-dataset"


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest of a dataset directory, checked for shape: every field of the right type,
    shards contiguous from 0 and adding up to ``count``, each shard a plain file name inside
    the directory (never a path that leads out of it).

    Raises:
        SrmBenchError: one line naming the first problem.
    """
    directory = Path(directory)
    path = directory / MANIFEST
    if not path.exists():
        raise SrmBenchError(f"{directory}: no {MANIFEST}; is this a dataset made by 'srm-bench generate'?")
    bad = f"{path}: {{}}; regenerate the dataset"
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise SrmBenchError(f"{path}: malformed JSON ({exc.msg} at line {exc.lineno})") from None
    except (OSError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        raise SrmBenchError(bad.format(f"unreadable manifest ({type(exc).__name__})")) from None
    if not isinstance(manifest, dict):
        raise SrmBenchError(bad.format("the manifest is not a JSON object"))
    for key in ("task", "split", "seed", "count", "content_sha256", "shards"):
        if key not in manifest:
            raise SrmBenchError(bad.format(f"manifest lacks {key!r}"))
    for key, ok in (("task", str), ("split", str), ("content_sha256", str), ("seed", int), ("count", int),
                    ("shards", list)):
        v = manifest[key]
        if not isinstance(v, ok) or isinstance(v, bool):
            raise SrmBenchError(bad.format(f"manifest field {key!r} has the wrong type ({type(v).__name__})"))
    if manifest.get("format", DATASET_FORMAT) != DATASET_FORMAT:
        raise SrmBenchError(bad.format(f"manifest format is {manifest.get('format')!r}, not {DATASET_FORMAT!r}"))
    version = manifest.get("format_version", 1)
    if not _int(version) or not 1 <= version <= FORMAT_VERSION:
        raise SrmBenchError(bad.format(f"manifest format_version {version!r} is not one this srm-bench reads ({FORMAT_VERSION})"))
    if not manifest["shards"]:
        raise SrmBenchError(bad.format("the manifest lists no shards"))
    expected = 0
    root = directory.resolve()
    for i, entry in enumerate(manifest["shards"]):
        if not isinstance(entry, dict) or not all(k in entry for k in ("file", "index_start", "count", "content_sha256")):
            raise SrmBenchError(bad.format(f"shard entry {i} lacks file, index_start, count or content_sha256"))
        file = entry["file"]
        if (not isinstance(file, str) or file in ("", ".", "..") or Path(file).name != file or "\\" in file
                or not (directory / file).resolve().parent == root):
            raise SrmBenchError(bad.format(f"shard entry {i} names {file!r}, which is not a file in the dataset directory"))
        if not (_int(entry["index_start"]) and _int(entry["count"])) or entry["index_start"] != expected or entry["count"] < 1:
            raise SrmBenchError(bad.format(f"shard entry {i} ({file}) does not continue at item {expected}"))
        expected += entry["count"]
    if expected != manifest["count"]:
        raise SrmBenchError(bad.format(f"the shards hold {expected} items, the manifest says {manifest['count']}"))
    return manifest
