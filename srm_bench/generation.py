"""Generation driver shared by every task: sharding, workers, resume, manifest, progress.

A task plugs in by subclassing :class:`TaskGenerator`. Items are made in blocks
``[start, stop)``; each item's randomness must come only from ``(seed, split, index)``
(see :mod:`srm_bench.seeding`) so content never depends on workers or shard size.
"""
from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
import logging
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from . import __version__
from .errors import SrmBenchError
from .registry import get_task
from .shards import (
    MANIFEST, ContentHasher, item_digests, read_attrs, read_manifest, read_shard,
    write_json_atomic, write_shard,
)

log = logging.getLogger(__name__)


class TaskGenerator(ABC):
    """Base class of a task's generator. Subclasses fill in the class attributes and methods."""

    task: ClassVar[str]
    task_version: ClassVar[int]
    derived_name: ClassVar[str] = "images"
    #: Whether rendered images are byte-identical on every machine (pure numpy). Tasks that
    #: rasterise with Pillow set False: their pinned images hash is then checked as a warning.
    portable_images: ClassVar[bool] = True

    @abstractmethod
    def make_config(self, split: str, seed: int, **options: Any) -> dict[str, Any]:
        """A validated, JSON-able config; everything that changes content must be in it."""

    @abstractmethod
    def default_count(self, split: str) -> int:
        """Items of a split when ``-n`` is not given (500 for test splits)."""

    def images_by_default(self, split: str) -> bool:
        return split != "train"

    def default_shard_size(self, split: str) -> int:
        return 10_000

    def shared_arrays(self, config: dict[str, Any]) -> dict[str, np.ndarray]:
        """Per-dataset constants stored once per shard (e.g. a digit pool)."""
        return {}

    @abstractmethod
    def generate_items(self, config: dict[str, Any], shared: dict[str, np.ndarray], start: int, stop: int) -> dict[str, np.ndarray]:
        """The compact arrays of items ``start..stop-1``."""

    @abstractmethod
    def render(self, config: dict[str, Any], shared: dict[str, np.ndarray], items: dict[str, np.ndarray]) -> np.ndarray:
        """uint8 images (N, H, W, C) of the given compact items; same bytes as the stored ones."""

    def source_info(self, config: dict[str, Any]) -> dict[str, Any]:
        """Where the raw material came from (digit source, backgrounds); recorded in results."""
        return {}


def get_generator(task: str) -> TaskGenerator:
    spec = get_task(task)
    return spec.generator_module().GENERATOR


@dataclass(frozen=True)
class _Job:
    task: str
    config_json: str
    start: int
    stop: int
    path: str
    images: bool
    attrs_json: str


_WORKER_SHARED: dict[str, np.ndarray] = {}


def _init_worker(shared: dict[str, np.ndarray]) -> None:
    _WORKER_SHARED.clear()
    _WORKER_SHARED.update(shared)


def _run_job(job: _Job, shared: dict[str, np.ndarray] | None = None) -> tuple[dict[str, Any], bytes]:
    """Make and write one shard; returns its manifest entry and its per-item image digests."""
    gen = get_generator(job.task)
    config = json.loads(job.config_json)
    shared = _WORKER_SHARED if shared is None else shared
    items = gen.generate_items(config, shared, job.start, job.stop)
    derived = {gen.derived_name: gen.render(config, shared, items)} if job.images else {}
    attrs = json.loads(job.attrs_json)
    attrs["index_start"] = job.start
    entry = write_shard(Path(job.path), attrs=attrs, items=items, shared=shared, derived=derived)
    digests = entry.pop("item_digests")
    return entry, digests.get(gen.derived_name, b"")


def _shard_is_complete(path: Path, attrs: dict[str, Any], start: int, count: int, images: bool, name: str) -> dict[str, Any] | None:
    """Manifest entry of an existing shard that already holds exactly this job, else None."""
    if not path.exists():
        return None
    try:
        got = read_attrs(path)
    except SrmBenchError:
        return None
    same = (
        got["config"] == attrs["config"] and got["task"] == attrs["task"] and got["split"] == attrs["split"]
        and int(got["seed"]) == int(attrs["seed"]) and int(got["index_start"]) == start
        and int(got["count"]) == count and int(got["task_version"]) == int(attrs["task_version"])
        and (name in got["derived_sha256"]) == images
    )
    if not same:
        return None
    return {"file": path.name, "index_start": start, "count": count,
            "content_sha256": got["content_sha256"], "derived_sha256": got["derived_sha256"]}


def generate(
    task: str,
    split: str,
    *,
    n: int | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    images: bool | None = None,
    workers: int = 1,
    shard_size: int | None = None,
    progress: bool = True,
    **options: Any,
) -> Path:
    """Generate ``n`` items of ``task``/``split`` into the directory ``out``; return ``out``.

    Finished shards that match are kept, so an interrupted run resumes where it stopped.

    Args:
        task: a registered task name, e.g. ``"sudoku"``.
        split: one of the task's splits, e.g. ``"hard"``.
        n: number of items (default: the task's default for the split, 500 for test splits).
        seed: the dataset seed; the canonical test sets use the default 0.
        out: output directory (default ``data/<task>/<split>``).
        images: store rendered images (default: yes for test splits, no for train).
        workers: processes to use; the content does not depend on it.
        shard_size: items per shard; the content hash does not depend on it.
        **options: task-specific options (e.g. ``mnist=DIR`` for Sudoku).

    Raises:
        SrmBenchError: unknown task/split, bad options, or an ``out`` that holds another dataset.

    Example:
        >>> import srm_bench
        >>> path = srm_bench.generate("sudoku", "hard", n=10, out="/tmp/hard10")  # doctest: +SKIP
    """
    spec = get_task(task)
    spec.check_split(split)
    gen = get_generator(task)
    # JSON round trip: the config compares equal to what shards and manifests store (tuples
    # become lists), so resuming recognises its own shards.
    config = json.loads(json.dumps(gen.make_config(split=split, seed=seed, **options)))
    n = gen.default_count(split) if n is None else int(n)
    if n < 1:
        raise SrmBenchError(f"-n must be at least 1 (got {n})")
    if workers < 1:
        raise SrmBenchError(f"--workers must be at least 1 (got {workers})")
    images = gen.images_by_default(split) if images is None else bool(images)
    shard_size = int(shard_size or gen.default_shard_size(split))
    if shard_size < 1:
        raise SrmBenchError(f"shard size must be at least 1 (got {shard_size})")
    out = Path(out) if out is not None else Path("data") / task / split
    _prepare_out(out, task, split, seed, config, n, images)

    shared = gen.shared_arrays(config)
    attrs = {
        "task": task, "task_version": gen.task_version, "split": split, "seed": int(seed),
        "config": config, "srm_bench_version": __version__,
    }
    attrs_json = json.dumps(attrs)
    config_json = json.dumps(config)
    width = max(5, len(str((n - 1) // shard_size)))
    jobs: list[_Job] = []
    entries: dict[int, tuple[dict[str, Any], bytes]] = {}
    for k, start in enumerate(range(0, n, shard_size)):
        stop = min(n, start + shard_size)
        path = out / f"{task}-{split}-{k:0{width}d}.h5"
        entry = _shard_is_complete(path, attrs, start, stop - start, images, gen.derived_name)
        if entry is not None:
            kept = read_shard(path, derived=images)
            entries[start] = (entry, item_digests(kept.derived[gen.derived_name]) if images else b"")
        else:
            jobs.append(_Job(task, config_json, start, stop, str(path), images, attrs_json))
    if entries:
        log.info("resuming: %d finished shard(s) kept in %s", len(entries), out)

    from tqdm.auto import tqdm

    bar = tqdm(total=n, initial=sum(e["count"] for e, _ in entries.values()), unit="item",
               desc=f"{task}/{split}", disable=not progress)
    try:
        if workers == 1 or len(jobs) <= 1:
            for job in jobs:
                entries[job.start] = _run_job(job, shared)
                bar.update(job.stop - job.start)
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(shared,)) as ex:
                futures = {ex.submit(_run_job, job): job for job in jobs}
                from concurrent.futures import as_completed

                for fut in as_completed(futures):
                    job = futures[fut]
                    entries[job.start] = fut.result()
                    bar.update(job.stop - job.start)
    finally:
        bar.close()

    ordered = [entries[s] for s in sorted(entries)]
    manifest = _manifest(out, task, gen, split, seed, config, [e for e, _ in ordered],
                         b"".join(d for _, d in ordered) if images else None)
    write_json_atomic(out / MANIFEST, manifest)
    return out


def _prepare_out(out: Path, task: str, split: str, seed: int, config: dict, n: int, images: bool) -> None:
    if out.exists() and not out.is_dir():
        raise SrmBenchError(f"{out}: exists and is not a directory; choose another -o")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SrmBenchError(f"{out}: cannot create the output directory ({exc.strerror}); choose another -o") from None
    if not os.access(out, os.W_OK):
        raise SrmBenchError(f"{out}: output directory is not writable; choose another -o")
    if (out / MANIFEST).exists():
        old = read_manifest(out)
        if (old["task"], old["split"], int(old["seed"]), old.get("config")) != (task, split, int(seed), config):
            raise SrmBenchError(
                f"{out}: holds another dataset ({old['task']}/{old['split']}, seed {old['seed']}); "
                "choose another -o or delete it"
            )
        (out / MANIFEST).unlink()  # rewritten at the end; shards are re-checked one by one
    for p in out.glob(f".{task}-{split}-*.tmp"):  # temp files of a run that was killed mid-write
        p.unlink()
    stale = [p for p in out.glob(f"{task}-{split}-*.h5")]
    for p in stale:
        try:
            a = read_attrs(p)
        except SrmBenchError:
            p.unlink()
            continue
        if a["config"] != config or int(a["seed"]) != int(seed):
            raise SrmBenchError(f"{out}: holds shards of another configuration ({p.name}); choose another -o or delete it")
    # Remove shards left over from a run with another -n or shard size: they are rewritten.
    for p in stale:
        if p.exists():
            a = read_attrs(p)
            if int(a["index_start"]) + int(a["count"]) > n:
                p.unlink()


def _manifest(out: Path, task: str, gen: TaskGenerator, split: str, seed: int, config: dict,
              shards: list[dict], image_digests: bytes | None) -> dict[str, Any]:
    hasher = ContentHasher()
    expected = 0
    for entry in shards:
        if entry["index_start"] != expected:
            raise SrmBenchError(f"{out}: shards leave a gap at item {expected}; delete the directory and regenerate")
        shard = read_shard(out / entry["file"], derived=False)
        hasher.update(shard.items, shard.shared)
        expected += entry["count"]
    # Remove shards that are not part of this dataset (e.g. from an older, larger -n).
    keep = {e["file"] for e in shards}
    for p in out.glob(f"{task}-{split}-*.h5"):
        if p.name not in keep:
            p.unlink()
    return {
        "format": "srm-bench-dataset",
        "format_version": 1,
        "task": task,
        "task_version": gen.task_version,
        "split": split,
        "seed": int(seed),
        "count": hasher.count,
        "config": config,
        "source": gen.source_info(config),
        "srm_bench_version": __version__,
        "content_sha256": hasher.hexdigest(),
        "images_sha256": hashlib.sha256(image_digests).hexdigest() if image_digests is not None else None,
        "shards": shards,
    }


__all__ = ["TaskGenerator", "generate", "get_generator"]
