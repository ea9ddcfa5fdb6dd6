"""Canonical test sets: the default-option test splits whose content hashes are pinned.

``srm-bench generate TASK --split SPLIT`` with default options gives the same content on
every machine; the hashes in ``canonical.json`` are what ``verify`` and ``evaluate`` check.
"""
from __future__ import annotations

import json
import logging
from contextlib import contextmanager
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from .dataset import Dataset, load_dataset
from .errors import ChecksumError
from .paths import canonical_dir

log = logging.getLogger(__name__)
CANONICAL_SEED = 0


@lru_cache(maxsize=1)
def _pins() -> dict[str, dict[str, dict[str, Any]]]:
    return json.loads(resources.files("srm_bench").joinpath("canonical.json").read_text())


def pinned(task: str, split: str) -> dict[str, Any] | None:
    """The pinned entry ``{count, seed, content_sha256, images_sha256}`` or None."""
    return _pins().get(task, {}).get(split)


@contextmanager
def _waiting_lock(lock: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock``, waiting for whoever holds it (POSIX; elsewhere
    no lock, and concurrent regenerations are then refused by ``generate``'s own lock)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        try:
            import fcntl
        except ImportError:
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def canonical_dataset(task: str, split: str, *, progress: bool = False) -> Dataset:
    """Load the canonical test set from the cache, regenerating it there if needed."""
    from .generation import generate

    pin = pinned(task, split)
    if pin is None:
        raise KeyError(f"{task}/{split} has no canonical test set")
    path = canonical_dir(task, split)
    if not (path / "manifest.json").exists():
        # Several jobs started at once (samplers on several GPUs, a training run's evaluation)
        # may all find the set missing: the first regenerates it, the others wait for it.
        with _waiting_lock(path.parent / f".{split}.lock"):
            if not (path / "manifest.json").exists():
                log.info("regenerating the canonical %s/%s set into %s", task, split, path)
                generate(task, split, n=pin["count"], seed=pin["seed"], out=path, progress=progress)
    ds = load_dataset(path)
    if ds.content_sha256 != pin["content_sha256"]:
        raise ChecksumError(
            f"{path}: content hash {ds.content_sha256[:12]}... differs from the pinned canonical "
            f"{pin['content_sha256'][:12]}...; delete the folder to regenerate it"
        )
    return ds
