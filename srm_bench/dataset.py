"""Loading a generated dataset (a directory of shards, or one shard) into memory."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ChecksumError, SrmBenchError
from .shards import ContentHasher, item_digests, read_manifest, read_shard


@dataclass
class Dataset:
    """A whole dataset: the compact items concatenated over shards, shared arrays, images.

    ``images(idx)`` returns stored images where the shards hold them and renders them from
    the compact form otherwise (same bytes either way).
    """

    path: Path
    task: str
    split: str
    seed: int
    task_version: int
    config: dict[str, Any]
    content_sha256: str
    items: dict[str, np.ndarray]
    shared: dict[str, np.ndarray]
    stored_images: np.ndarray | None = None
    manifest: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return self.count

    @property
    def count(self) -> int:
        return int(next(iter(self.items.values())).shape[0])

    def subset_items(self, idx: np.ndarray | slice) -> dict[str, np.ndarray]:
        return {k: v[idx] for k, v in self.items.items()}

    def images(self, idx: np.ndarray | slice | None = None) -> np.ndarray:
        idx = slice(None) if idx is None else idx
        if self.stored_images is not None:
            return self.stored_images[idx]
        from .generation import get_generator

        gen = get_generator(self.task)
        return gen.render(self.config, self.shared, self.subset_items(idx))

    def source(self) -> dict[str, Any]:
        return dict(self.manifest.get("source") or {})


def _check_entry(f: Path, attrs: dict[str, Any], manifest: dict[str, Any], entry: dict[str, Any]) -> None:
    """A shard must be what the manifest says it is, field by field: an edited manifest
    (another task, split, seed, count, config, version or shard hash) fails here."""
    fields = (
        ("content_sha256", attrs["content_sha256"], entry["content_sha256"]),
        ("index_start", int(attrs["index_start"]), entry["index_start"]),
        ("count", int(attrs["count"]), entry["count"]),
        ("derived_sha256", attrs["derived_sha256"], entry.get("derived_sha256", attrs["derived_sha256"])),
        ("task", attrs["task"], manifest["task"]),
        ("split", attrs["split"], manifest["split"]),
        ("seed", int(attrs["seed"]), manifest["seed"]),
        ("task_version", int(attrs["task_version"]), manifest.get("task_version", int(attrs["task_version"]))),
        ("config", attrs["config"], manifest.get("config", attrs["config"])),
    )
    for name, got, want in fields:
        if got != want:
            raise ChecksumError(f"{f}: its {name} does not match the manifest's; the manifest or the file was "
                                "edited or replaced, regenerate the dataset")


def load_dataset(path: str | Path, *, verify: bool = False, images: bool = True) -> Dataset:
    """Load a dataset directory (with ``manifest.json``) or a single shard file.

    With ``verify`` every shard is re-hashed and the dataset hash is checked against the
    manifest.

    Raises:
        SrmBenchError: missing or damaged files, shards of mixed datasets.
        ChecksumError: with ``verify``, a hash mismatch.
    """
    path = Path(path)
    if not path.exists():
        raise SrmBenchError(f"{path}: no such file or directory")
    manifest: dict[str, Any] = {}
    if path.is_dir():
        manifest = read_manifest(path)
        files = [path / s["file"] for s in manifest["shards"]]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise SrmBenchError(f"{path}: {len(missing)} shard(s) listed in the manifest are missing ({shown}); "
                                "regenerate the dataset")
    else:
        files = [path]
    hasher = ContentHasher()
    parts: dict[str, list[np.ndarray]] = {}
    image_parts: list[np.ndarray] = []
    first = None
    for i, f in enumerate(files):
        shard = read_shard(f, verify=verify, derived=images)
        if manifest:
            _check_entry(f, shard.attrs, manifest, manifest["shards"][i])
        if first is None:
            first = shard.attrs
        elif (shard.attrs["task"], shard.attrs["split"], shard.attrs["seed"], shard.attrs["config"]) != (
            first["task"], first["split"], first["seed"], first["config"]):
            raise SrmBenchError(f"{f}: belongs to another dataset than {files[0].name}")
        hasher.update(shard.items, shard.shared)
        for k, v in shard.items.items():
            parts.setdefault(k, []).append(v)
        if "images" in shard.derived:
            image_parts.append(shard.derived["images"])
        shared = shard.shared
    assert first is not None
    digest = hasher.hexdigest()
    if manifest and hasher.count != manifest["count"]:
        raise ChecksumError(f"{path}: the shards hold {hasher.count} items, the manifest says {manifest['count']}; regenerate the dataset")
    if verify and manifest and "source" in manifest:
        from .generation import get_generator

        if manifest["source"] != get_generator(first["task"]).source_info(first["config"]):
            raise ChecksumError(f"{path}: the manifest's source does not match the shards' config; regenerate the dataset")
    if manifest and digest != manifest["content_sha256"]:
        raise ChecksumError(f"{path}: dataset hash {digest[:12]}... does not match the manifest's {manifest['content_sha256'][:12]}...; regenerate the dataset")
    stored = np.concatenate(image_parts) if image_parts and len(image_parts) == len(files) else None
    if verify and stored is not None and manifest.get("images_sha256"):
        got = hashlib.sha256(item_digests(stored)).hexdigest()
        if got != manifest["images_sha256"]:
            raise ChecksumError(f"{path}: images hash {got[:12]}... does not match the manifest's; regenerate the dataset")
    return Dataset(
        path=path, task=first["task"], split=first["split"], seed=int(first["seed"]),
        task_version=int(first["task_version"]), config=first["config"], content_sha256=digest,
        items={k: np.concatenate(v) for k, v in parts.items()}, shared=shared,
        stored_images=stored, manifest=manifest,
    )
