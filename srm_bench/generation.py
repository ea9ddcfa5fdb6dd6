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
from .io import write_json_atomic
from .shards import MANIFEST, ContentHasher, item_digests, read_attrs, read_manifest, read_shard, write_shard

log = logging.getLogger(__name__)


class TaskGenerator(ABC):
    """Base class of a task's generator. Subclasses fill in the class attributes and methods."""

    task: ClassVar[str]
    task_version: ClassVar[int]
    #: Whether rendered images are byte-identical on every machine (pure numpy). Tasks that
    #: rasterise with Pillow set False: their pinned images hash is then checked as a warning.
    portable_images: ClassVar[bool] = True

    @abstractmethod
    def make_config(self, split: str, seed: int, **options: Any) -> dict[str, Any]:
        """A validated, JSON-able config; everything that changes content must be in it."""

    @abstractmethod
    def default_count(self, split: str) -> int:
        """Items of a split when ``-n`` is not given (500 for test splits)."""

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
LOCK = ".srm-bench.lock"
MAX_ITEMS = 10**9  # far beyond any split; a typo's 1e15 would build 1e11 jobs before writing anything
MAX_SHARDS = 10**6
IMAGES = "images"  # the name of the rendered images in a shard


def _init_worker(shared: dict[str, np.ndarray], parent: int | None = None) -> None:
    """Worker set-up: Ctrl-C is the parent's to handle (no traces from every worker), and a
    worker dies with its parent (Linux), so a killed run leaves no orphans writing files."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    _WORKER_SHARED.clear()
    _WORKER_SHARED.update(shared)


def _run_job(job: _Job, shared: dict[str, np.ndarray] | None = None) -> tuple[dict[str, Any], bytes]:
    """Make and write one shard; returns its manifest entry and its per-item image digests."""
    gen = get_generator(job.task)
    config = json.loads(job.config_json)
    shared = _WORKER_SHARED if shared is None else shared
    items = gen.generate_items(config, shared, job.start, job.stop)
    derived = {IMAGES: gen.render(config, shared, items)} if job.images else {}
    attrs = json.loads(job.attrs_json)
    attrs["index_start"] = job.start
    entry = write_shard(Path(job.path), attrs=attrs, items=items, shared=shared, derived=derived)
    digests = entry.pop("item_digests")
    return entry, digests.get(IMAGES, b"")


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
    overwrite: bool = False,
    **options: Any,
) -> Path:
    """Generate ``n`` items of ``task``/``split`` into the directory ``out``; return ``out``.

    Finished shards that match (re-hashed) are kept, so an interrupted run resumes where it
    stopped. A finished dataset is never shrunk or changed without ``overwrite``, and one
    output directory takes one run at a time (a lock file, released when the run ends).

    Args:
        task: a registered task name, e.g. ``"sudoku"``.
        split: one of the task's splits, e.g. ``"hard"``.
        n: number of items (default: the task's default for the split, 500 for test splits).
        seed: the dataset seed; the canonical test sets use the default 0.
        out: output directory (default ``data/<task>/<split>``).
        images: store rendered images (default: yes for test splits, no for train).
        workers: processes to use; the content does not depend on it.
        shard_size: items per shard; the content hash does not depend on it.
        overwrite: replace what ``out`` holds of this task and split (another count, seed,
            shard size or config) instead of refusing.
        **options: task-specific options (e.g. ``mnist=DIR`` for Sudoku).

    Raises:
        SrmBenchError: unknown task/split, bad options, an ``out`` that holds another dataset
            or is being written by another run, or a disk that is full.

    Example:
        >>> import srm_bench
        >>> path = srm_bench.generate("sudoku", "hard", n=10, out="/tmp/hard10")  # doctest: +SKIP
    """
    spec = get_task(task)
    spec.check_split(split)
    gen = get_generator(task)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**63:
        raise SrmBenchError(f"--seed must be a whole number in [0, 2^63 - 1] (got {seed})")
    # JSON round trip: the config compares equal to what shards and manifests store (tuples
    # become lists), so resuming recognises its own shards.
    config = json.loads(json.dumps(gen.make_config(split=split, seed=seed, **options)))
    n = gen.default_count(split) if n is None else int(n)
    if not 1 <= n <= MAX_ITEMS:
        raise SrmBenchError(f"-n must be in [1, {MAX_ITEMS:,}] (got {n:,})")
    if workers < 1:
        raise SrmBenchError(f"--workers must be at least 1 (got {workers})")
    images = split != "train" if images is None else bool(images)  # test splits store rendered images
    shard_size = int(shard_size if shard_size is not None else gen.default_shard_size(split))
    if shard_size < 1:
        raise SrmBenchError(f"--shard-size must be at least 1 (got {shard_size})")
    if -(-n // shard_size) > MAX_SHARDS:
        raise SrmBenchError(f"-n {n:,} in shards of {shard_size:,} makes more than {MAX_SHARDS:,} shards; raise --shard-size")
    out = Path(out) if out is not None else Path("data") / task / split
    lock = _lock(out)
    try:
        _prepare_out(out, task, split, seed, config, n, images, shard_size, overwrite)
        return _generate_into(out, task, split, gen, seed, config, n, images, workers, shard_size, progress)
    except OSError as exc:  # above all a full disk (ENOSPC), from h5py or the manifest
        reason = exc.strerror or str(exc).splitlines()[0]
        raise SrmBenchError(f"{out}: cannot write ({reason}); free space or choose another -o, then run the same "
                            "command again to resume") from None
    finally:
        lock.close()


def _lock(out: Path):
    """Hold ``out/.srm-bench.lock`` for the run: a second run into ``out`` fails at once."""
    if out.exists() and not out.is_dir():
        raise SrmBenchError(f"{out}: exists and is not a directory; choose another -o")
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / LOCK, "a")
    except OSError as exc:
        raise SrmBenchError(f"{out}: cannot create the output directory ({exc.strerror}); choose another -o") from None
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): one run per directory is then up to the user
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise SrmBenchError(f"{out}: another 'srm-bench generate' is writing into this directory; wait for it "
                            "to finish or choose another -o") from None
    return handle


def _generate_into(out: Path, task: str, split: str, gen: TaskGenerator, seed: int, config: dict[str, Any], n: int,
                   images: bool, workers: int, shard_size: int, progress: bool) -> Path:
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
    candidates = []
    for k, start in enumerate(range(0, n, shard_size)):
        stop = min(n, start + shard_size)
        path = out / f"{task}-{split}-{k:0{width}d}.h5"
        candidates.append((start, stop, path, _shard_is_complete(path, attrs, start, stop - start, images, IMAGES)))
    to_make = sum(stop - start for start, stop, _, entry in candidates if entry is None)
    if to_make:  # before any shard is read again or made
        check_resources(out, gen, config, shared, n, to_make, images, shard_size,
                        min(workers, sum(entry is None for *_, entry in candidates)))
    for start, stop, path, entry in candidates:
        if entry is not None:
            try:
                kept = read_shard(path, verify=True, derived=images)
            except SrmBenchError as exc:  # damaged after it was written: made again (same content)
                log.warning("%s; making it again", exc)
                entry = None
            else:
                entries[start] = (entry, item_digests(kept.derived[IMAGES]) if images else b"")
        if entry is None:
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
            ex = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(shared, os.getpid()))
            try:
                futures = {ex.submit(_run_job, job): job for job in jobs}
                from concurrent.futures import as_completed

                for fut in as_completed(futures):
                    job = futures[fut]
                    entries[job.start] = fut.result()
                    bar.update(job.stop - job.start)
            except BaseException:  # Ctrl-C, a full disk: stop the workers now, not after their shards
                procs = list((getattr(ex, "_processes", None) or {}).values())
                manager = getattr(ex, "_executor_manager_thread", None)
                for proc in procs:
                    proc.terminate()
                for proc in procs:
                    proc.join(timeout=10)
                ex.shutdown(wait=False, cancel_futures=True)
                if manager is not None:
                    # Let the pool's manager thread finish closing its wake-up pipe: interpreter exit
                    # writes to that pipe, and in Python < 3.12 the two can race ("Exception ignored
                    # ... Bad file descriptor" after the one-line message).
                    manager.join(timeout=10)
                for tmp in out.glob(f".{task}-{split}-*.tmp"):  # theirs, half-written (the lock says no one else's)
                    tmp.unlink(missing_ok=True)
                raise
            ex.shutdown()
    finally:
        bar.close()

    ordered = [entries[s] for s in sorted(entries)]
    manifest = _manifest(out, task, gen, split, seed, config, [e for e, _ in ordered],
                         b"".join(d for _, d in ordered) if images else None)
    write_json_atomic(out / MANIFEST, manifest)
    return out


def _size(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    raise AssertionError  # unreachable


def check_resources(out: Path, gen: TaskGenerator, config: dict[str, Any], shared: dict[str, np.ndarray], n: int,
                    to_make: int, images: bool, shard_size: int, concurrent: int) -> None:
    """Refuse a run that cannot fit the free disk of ``out`` or the memory available, before it starts.

    A probe of the first items (made in memory, as their shard will make them again) gives
    their size raw and zlib-compressed. Shards are stored gzip/lzf-compressed with HDF5
    overhead on top, so ``to_make`` x compressed size is an estimate from below: a run refused
    here could not have finished. Memory: each of ``concurrent`` shards in flight holds its
    raw arrays, and the parent keeps a 32-byte digest per image for the dataset's images hash.
    """
    import shutil
    import zlib

    from .samples import _available_memory

    k = min(n, 2)
    items = gen.generate_items(config, shared, 0, k)
    arrays = list(items.values()) + ([gen.render(config, shared, items)] if images else [])
    raw = sum(a.nbytes for a in arrays) / k
    packed = sum(len(zlib.compress(np.ascontiguousarray(a).tobytes(), 1)) for a in arrays) / k
    disk = packed * to_make
    try:
        free = shutil.disk_usage(out).free
    except OSError:
        free = None
    if free is not None and disk > free:
        raise SrmBenchError(f"{out}: -n {n:,} needs about {_size(disk)} of disk for the {to_make:,} items still to make, "
                            f"but {_size(free)} is free; free space, lower -n or choose another -o")
    memory = raw * min(shard_size, to_make) * max(1, concurrent) + (32 * n if images else 0)
    available = _available_memory()
    if available is not None and memory > available:
        raise SrmBenchError(f"-n {n:,} needs about {_size(memory)} of memory ({max(1, concurrent)} shard(s) of "
                            f"{shard_size:,} items at once), but {_size(available)} is available; lower -n, "
                            "--shard-size or --workers")


def _prepare_out(out: Path, task: str, split: str, seed: int, config: dict, n: int, images: bool,
                 shard_size: int, overwrite: bool) -> None:
    """Check ``out`` (locked by this run) and clear what this run will not keep.

    Without ``overwrite``, nothing valid is deleted: a finished dataset with another count,
    seed, config, shard size or images choice, and shards that this run would not keep
    (from a larger ``-n`` or another shard size) are refused with one line. Half-written
    temporary files and unreadable shards (a killed run) are always cleared.
    """
    if not os.access(out, os.W_OK):
        raise SrmBenchError(f"{out}: output directory is not writable; choose another -o")
    fix = "pass --overwrite to replace it, or choose another -o"
    if (out / MANIFEST).exists():
        old = read_manifest(out)
        if (old["task"], old["split"]) != (task, split):
            raise SrmBenchError(
                f"{out}: holds another dataset ({old['task']}/{old['split']}, seed {old['seed']}); "
                "choose another -o or delete it"
            )
        shards = old["shards"] if isinstance(old["shards"], list) else []
        old_size = shards[0].get("count") if shards and isinstance(shards[0], dict) else None
        same = (int(old["seed"]) == int(seed) and old.get("config") == config and old["count"] == n
                and (old.get("images_sha256") is not None) == images and (len(shards) <= 1 or old_size == shard_size))
        if not same and not overwrite:
            raise SrmBenchError(
                f"{out}: holds a finished {task}/{split} dataset ({old['count']} items, seed {old['seed']}) made with "
                f"other options; {fix}"
            )
        (out / MANIFEST).unlink()  # rewritten at the end; shards are re-checked one by one
    for p in out.glob(f".{task}-{split}-*.tmp"):  # temp files of a run that was killed mid-write
        p.unlink()
    for p in sorted(out.glob(f"{task}-{split}-*.h5")):
        try:
            a = read_attrs(p)
        except SrmBenchError:
            p.unlink()  # unreadable: a shard cut short by a kill
            continue
        start, count = int(a["index_start"]), int(a["count"])
        mine = a["config"] == config and int(a["seed"]) == int(seed)
        if mine and start % shard_size == 0 and start < n and start + count == min(n, start + shard_size):
            continue  # kept if its hashes check out
        if not overwrite:
            what = "shards of another configuration" if not mine else f"items {start}..{start + count - 1} in another sharding"
            raise SrmBenchError(f"{out}: holds {what} ({p.name}) that this run would delete; {fix}")
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
