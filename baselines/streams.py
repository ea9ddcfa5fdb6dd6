"""Training data made on the device, fresh on every draw (as the authors' code does).

A stream holds a few small tensors on the training device and composes each batch there,
so no image crosses the host bus:

- :class:`SudokuStream`: the train split's base grids (``base_grid(data_seed, c)`` of the
  generator, so the held-out guarantee of the train split carries over) and the digit pool.
  A draw picks a base grid, a uniformly random Sudoku symmetry (band, stack, row and column
  permutations, transposition, digit relabelling), a fresh pool instance per cell and a
  number of givens uniform in 0-80 with the given cells uniform: the distribution of
  ``srm-bench generate sudoku --split train``.
- :class:`EvenPixelsStream`: a hue offset U(0, 0.5) and a uniformly random half of the
  1024 pixels, coloured exactly as the generator colours them (same HSV formula, rint). Each
  patch's class is how many of its 16 pixels take the second hue (0-16, :data:`EVEN_PIXELS_CLASSES`).
- :class:`CountingStream` (Counting Polygons / Stars): the images are rendered on the CPU
  (Pillow), too slowly to make per step, so a bank of pre-rendered train-split images sits
  on the device and draws pick from it; worker processes render the next bank meanwhile.

Batches come from the global torch RNG, which the training loop seeds from
(seed, rank, step) before each draw: step k on rank r is the same whatever happened before.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import weakref
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task


@dataclass
class Batch:
    """Clean images in [-1, 1] (B, C, H, W), the given patches (B, P) bool or None, and the
    class of every patch (B, P) long (Sudoku: the cell's digit - 1) or None."""

    x: torch.Tensor
    known: torch.Tensor | None
    labels: torch.Tensor | None = None


def _perm(n: int, k: int, device: torch.device) -> torch.Tensor:
    """(n, k) uniformly random permutations of range(k)."""
    return torch.rand(n, k, device=device).argsort(1)


class SudokuStream:
    """Fresh MNIST Sudoku training puzzles composed on ``device``.

    Example:
        >>> s = SudokuStream("cpu", grid_classes=4)
        >>> b = s.draw(2); tuple(b.x.shape), tuple(b.known.shape)
        ((2, 1, 252, 252), (2, 81))
    """

    task = "sudoku"

    def __init__(self, device: str | torch.device, *, data_seed: int = 0, grid_classes: int | None = None,
                 mnist: str | None = None) -> None:
        from srm_bench.digits import pool_for

        gen = get_task("sudoku").generator_module()  # through the registry: no import across subsystems
        DEFAULT_GRID_CLASSES, base_grid = gen.DEFAULT_GRID_CLASSES, gen.base_grid

        self.device = torch.device(device)
        classes = DEFAULT_GRID_CLASSES if grid_classes is None else int(grid_classes)
        if classes < 1:
            raise SrmBenchError(f"grid_classes must be at least 1 (got {classes})")
        grids = np.stack([base_grid(int(data_seed), c) for c in range(classes)]).astype(np.int64) - 1
        self.grids = torch.from_numpy(grids).to(self.device)  # (G, 9, 9) digits 0-8
        pool = pool_for(mnist)
        self.pool = torch.from_numpy(np.ascontiguousarray(pool.images)).to(self.device)  # (9, k, 28, 28) uint8
        self.k = int(pool.k)
        self.source = {"grids": f"train base grids 0..{classes - 1} of seed {data_seed}", "digits": pool.source}

    def grids_of(self, n: int) -> torch.Tensor:
        """(n, 9, 9) solved grids, digits 0-8: a base grid under a uniformly random symmetry."""
        dev = self.device
        g = self.grids[torch.randint(0, self.grids.shape[0], (n,), device=dev)]
        rows = (_perm(n, 3, dev)[:, :, None] * 3 + _perm(n * 3, 3, dev).reshape(n, 3, 3)).reshape(n, 9)
        cols = (_perm(n, 3, dev)[:, :, None] * 3 + _perm(n * 3, 3, dev).reshape(n, 3, 3)).reshape(n, 9)
        ar = torch.arange(n, device=dev)[:, None, None]
        g = g[ar, rows[:, :, None], cols[:, None, :]]
        flip = torch.rand(n, device=dev) < 0.5
        g = torch.where(flip[:, None, None], g.transpose(1, 2), g)
        relabel = _perm(n, 9, dev)
        return relabel.gather(1, g.reshape(n, 81)).reshape(n, 9, 9)

    def templates(self) -> torch.Tensor:
        """(9, 1, 28, 28) float in [-1, 1]: the mean pool image of each digit (class d - 1)."""
        return (self.pool.float().mean(1) / 127.5 - 1.0)[:, None]

    def render(self, grids: torch.Tensor, instance: torch.Tensor) -> torch.Tensor:
        """(n, 1, 252, 252) float in [-1, 1]: cell (r, c) shows pool[grid, instance]."""
        n = grids.shape[0]
        tiles = self.pool[grids.reshape(n, 81), instance.reshape(n, 81)]  # (n, 81, 28, 28)
        img = tiles.reshape(n, 9, 9, 28, 28).permute(0, 1, 3, 2, 4).reshape(n, 1, 252, 252)
        return img.float() / 127.5 - 1.0

    def draw(self, n: int) -> Batch:
        dev = self.device
        grids = self.grids_of(n)
        instance = torch.randint(0, self.k, (n, 81), device=dev)
        n_given = torch.randint(0, 81, (n, 1), device=dev)  # 0..80 inclusive, as the train split
        rank = torch.rand(n, 81, device=dev).argsort(1).argsort(1)
        return Batch(self.render(grids, instance), rank < n_given, grids.reshape(n, 81))


def hsv_to_rgb8_torch(hue: torch.Tensor, saturation: float, value: float) -> torch.Tensor:
    """uint8 RGB (..., 3) of hues in turns: the generator's formula (float64, rint)."""
    h6 = torch.remainder(hue.double(), 1.0) * 6.0
    sector = torch.clamp(torch.floor(h6), max=5.0)
    f = h6 - sector
    v = torch.full_like(f, value)
    p = torch.full_like(f, value * (1.0 - saturation))
    q = value * (1.0 - saturation * f)
    t = value * (1.0 - saturation * (1.0 - f))
    table = torch.stack([torch.stack([v, t, p], -1), torch.stack([q, v, p], -1), torch.stack([p, v, t], -1),
                         torch.stack([p, q, v], -1), torch.stack([t, p, v], -1), torch.stack([v, p, q], -1)])
    idx = sector.long()[None, ..., None].expand(1, *sector.shape, 3)
    rgb = table.gather(0, idx)[0]
    return torch.round(rgb * 255.0).to(torch.uint8)


# Even Pixels' per-patch classes (presets unet-s-g16-gc-cnt / -cls): how many of a 4 x 4 patch's pixels take the
# second hue (offset + 0.5), 0-16. The 64 patches' classes of an image sum to 512.
EVEN_PIXELS_CLASSES = get_task("even-pixels").patch_size ** 2 + 1


class EvenPixelsStream:
    """Fresh Even Pixels images composed on ``device`` (exactly 512 pixels of each hue), each patch's
    class the count of its pixels of the second hue.

    Example:
        >>> b = EvenPixelsStream("cpu").draw(3); tuple(b.x.shape), tuple(b.labels.shape)
        ((3, 3, 32, 32), (3, 64))
        >>> b.labels.sum(1).tolist()
        [512, 512, 512]
    """

    task = "even-pixels"

    def __init__(self, device: str | torch.device) -> None:
        gen = get_task("even-pixels").generator_module()
        HALF, HUE_OFFSET_MAX, PIXELS = gen.HALF, gen.HUE_OFFSET_MAX, gen.PIXELS
        SATURATION, SIZE, VALUE = gen.SATURATION, gen.SIZE, gen.VALUE

        self.device = torch.device(device)
        self.size, self.pixels, self.half = SIZE, PIXELS, HALF
        self.saturation, self.value, self.offset_max = SATURATION, VALUE, HUE_OFFSET_MAX
        self.patch = gen.PATCH_SIZE
        self.source = {"generator": "even-pixels on the device"}

    def draw(self, n: int) -> Batch:
        dev = self.device
        hue = torch.rand(n, device=dev, dtype=torch.float64) * self.offset_max
        colours = hsv_to_rgb8_torch(torch.stack([hue, hue + 0.5], -1), self.saturation, self.value)  # (n, 2, 3)
        second = torch.rand(n, self.pixels, device=dev).argsort(1).argsort(1) >= self.half  # exactly half True
        img = colours.gather(1, second.long()[..., None].expand(n, self.pixels, 3))  # (n, 1024, 3)
        img = img.reshape(n, self.size, self.size, 3).permute(0, 3, 1, 2)
        g, k = self.size // self.patch, self.patch  # patches row-major, as the levels t are
        labels = second.reshape(n, g, k, g, k).sum((2, 4)).reshape(n, g * g)
        return Batch(img.float() / 127.5 - 1.0, None, labels)


# ---------------------------------------------------------------------------- counting

CHUNK = 64  # items per render job: small enough to spread a bank over the workers, large enough to amortise a job
# How often a rendered image is drawn while its bank is live, all ranks together: 300 draws of a
# 4096-image bank at the paper's batch of 56. The bank's number of draws follows the batch so
# that this stays the same (300 at 56, 66 at 256).
BANK_VIEWS = 300 * 56 / 4096


def bank_refresh(batch: int, bank_size: int = 4096) -> int:
    """Draws a bank serves so that each of its images is drawn ~:data:`BANK_VIEWS` times at
    ``batch`` images a draw (the global batch: every rank draws from the same bank)."""
    if batch < 1:
        raise SrmBenchError(f"batch must be at least 1 (got {batch})")
    return max(1, round(BANK_VIEWS * bank_size / batch))

# Per worker process: the generator, its config and shared arrays, and the bank file mapped in.
_WORKER: dict[str, Any] = {}


def _init_bank_worker(task: str, config_json: str, shared: dict[str, np.ndarray], path: str,
                      shape: tuple[int, ...], parent: int | None) -> None:
    """Render worker set-up: the generator's own (Ctrl-C is the parent's, die with the parent),
    then the bank file mapped once, so each job writes its images in place."""
    from srm_bench.generation import _init_worker, get_generator

    _init_worker(shared, parent)
    _WORKER.update(gen=get_generator(task), config=json.loads(config_json), shared=shared,
                   images=np.memmap(path, dtype=np.uint8, mode="r+", shape=shape),
                   side=shape[1] // get_task(task).patch_size)


def _render_chunk(first: int, offset: int, count: int) -> dict[str, np.ndarray]:
    """Make train items ``first .. first + count - 1``, write their images into rows
    ``offset ..`` of the bank file and return their compact fields (a few hundred bytes each)."""
    gen, config, shared = _WORKER["gen"], _WORKER["config"], _WORKER["shared"]
    items = gen.generate_items(config, shared, first, first + count)
    _WORKER["images"][offset:offset + count] = gen.render(config, shared, items)
    items["patch_classes"] = patch_classes(items, _WORKER["side"])  # here, in the background, not at the switch
    return items


def _shutdown(pool: ProcessPoolExecutor, folder: str) -> None:
    """End the workers (joined: no zombies) and delete the bank file. No reference to the
    stream, so it can run from a weakref finalizer or at interpreter exit."""
    pool.shutdown(wait=True, cancel_futures=True)
    shutil.rmtree(folder, ignore_errors=True)


# Counting's per-patch classes (preset small-s2-aux's auxiliary loss): what a patch holds, by its centre
PATCH_BACKGROUND, PATCH_OBJECT, PATCH_NUMBER = 0, 1, 2
PATCH_CLASSES = 3


def patch_classes(items: dict[str, np.ndarray], side: int) -> np.ndarray:
    """(n, side * side) uint8: the class of every patch of Counting items, row-major: ``PATCH_OBJECT`` where the
    patch's centre lies in one of the item's object circles, ``PATCH_NUMBER`` in one of its two number circles,
    else ``PATCH_BACKGROUND``. The circles are the layout's (``object_xy``, ``object_radius`` for the first
    ``n_objects``; ``number_xy``, ``number_radius``), in units of the image side, x to the right and y down.
    Circles are disjoint, so no centre lies in two. The smallest radius (0.07 of the side) spans more than two
    patches of a 16 x 16 grid, so every object and number holds a patch centre. The stream's render workers
    compute it beside the images (~0.025 s of one core for a bank of 4096 items: benchmarks/bench_counting_stream.py).

    Example:
        >>> items = {"object_xy": np.array([[[0.5, 0.5]]]), "object_radius": np.array([[0.2]]),
        ...          "n_objects": np.array([1]), "number_xy": np.array([[[0.1, 0.1], [0.9, 0.9]]]),
        ...          "number_radius": np.array([[0.05, 0.05]])}
        >>> patch_classes(items, 4).reshape(4, 4).tolist()  # the object covers the four middle centres
        [[2, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 2]]
    """
    c = ((np.arange(side) + 0.5) / side).astype(np.float32)
    cx, cy = np.tile(c, side), np.repeat(c, side)  # patch r * side + q has its centre at (c[q], c[r])

    def inside(xy: np.ndarray, radius: np.ndarray) -> np.ndarray:  # (n, k, 2), (n, k) -> (n, k, P)
        xy = np.asarray(xy, dtype=np.float32)
        r2 = np.asarray(radius, dtype=np.float32)[:, :, None] ** 2
        return (xy[:, :, 0, None] - cx) ** 2 + (xy[:, :, 1, None] - cy) ** 2 <= r2

    objects = inside(items["object_xy"], items["object_radius"])
    real = np.arange(objects.shape[1])[None, :] < np.asarray(items["n_objects"])[:, None]  # unused slots are 0s
    out = np.full((objects.shape[0], side * side), PATCH_BACKGROUND, dtype=np.uint8)
    out[(objects & real[:, :, None]).any(1)] = PATCH_OBJECT
    out[inside(items["number_xy"], items["number_radius"]).any(1)] = PATCH_NUMBER
    return out


class CountingStream:
    """Counting training images from a bank on ``device``, re-rendered in the background.

    Bank ``g`` holds items ``g * bank_size .. (g + 1) * bank_size - 1`` of the train split of
    ``data_seed`` (``srm-bench generate <task> --split train --seed data_seed``): every item's
    randomness comes from ``(seed, split, index)`` alone (srm_bench.seeding), so a bank is
    the same whatever the number of workers or the job size, bank 0 is the head of the
    generated train split, and banks never repeat an item. Draws ``g * refresh ..
    (g + 1) * refresh - 1`` pick uniformly (global torch RNG) from bank ``g`` while ``workers``
    processes render bank ``g + 1`` into a file in /dev/shm; at the switch the file is copied
    to the device (uint8) and bank ``g + 2`` starts. A draw that finds the next bank unfinished
    waits for it: ``wait_s`` (seconds, all waits, the first bank included) and ``draws`` (the
    index of the next draw) are there for logs and benchmarks.

    Resume: ``seek(k)`` makes the next draw the k-th (from 0) of an uninterrupted stream, so
    with the same torch seed it returns the same images. Every rank renders the same banks;
    their draws differ through the torch seed, so at a global batch of ``batch`` an image is
    drawn ``refresh * batch / bank_size`` times: by default ~4.1 whatever the batch
    (:func:`bank_refresh`).

    ``close()`` (or ``with``, or garbage collection, or interpreter exit) ends the workers.

    Example:
        >>> with CountingStream("cpu", bank_size=8, refresh=2, workers=1) as s:  # doctest: +SKIP
        ...     tuple(s.draw(3).x.shape)
        (3, 3, 128, 128)
    """

    task = "counting-polygons"

    def __init__(self, device: str | torch.device, *, data_seed: int = 0, bank_size: int = 4096,
                 refresh: int | None = None, batch: int = 56, workers: int | None = None,
                 start_method: str | None = None) -> None:
        """
        Args:
            device: where the bank sits and batches are made.
            data_seed: the train split's seed.
            bank_size: images per bank (4096 x 48 KiB = 192 MiB on the device, as much in /dev/shm).
            refresh: draws served by one bank [``bank_refresh(batch, bank_size)``: 300 at 56].
            batch: images a draw takes, all ranks together (sets the default ``refresh``).
            workers: render processes [min(4, CPUs available)].
            start_method: multiprocessing start method [forkserver on a CUDA device: forking a
                process that has started CUDA is unsafe; elsewhere the platform's default, fork on
                Linux, which starts fastest].

        Raises:
            SrmBenchError: a bank size, refresh or worker count below 1.
        """
        import multiprocessing

        from srm_bench.generation import get_generator

        if refresh is None and bank_size >= 1:
            refresh = bank_refresh(batch, bank_size)
        if bank_size < 1 or refresh is None or refresh < 1:
            raise SrmBenchError(f"bank_size and refresh must be at least 1 (got {bank_size}, {refresh})")
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        workers = min(4, cpus) if workers is None else int(workers)
        if workers < 1:
            raise SrmBenchError(f"workers must be at least 1 (got {workers})")
        self.device = torch.device(device)
        self.bank_size, self.refresh, self.workers, self.data_seed = int(bank_size), int(refresh), workers, int(data_seed)
        gen = get_generator(self.task)
        # JSON round trip, as generate() does: the workers get exactly the config a train split stores.
        config = json.loads(json.dumps(gen.make_config(split="train", seed=self.data_seed)))
        shared = gen.shared_arrays(config)
        spec = get_task(self.task)
        shape = (self.bank_size, *spec.image_shape)
        # tmpfs when there is one: the workers' writes and the parent's read stay in memory.
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self._folder = tempfile.mkdtemp(prefix="srm-bench-bank-", dir=base)
        path = os.path.join(self._folder, "bank.u8")
        self._file = np.memmap(path, dtype=np.uint8, mode="w+", shape=shape)
        if start_method is None and self.device.type == "cuda":
            start_method = "forkserver"
        ctx = multiprocessing.get_context(start_method)
        # Under forkserver / spawn a worker's parent is the server, not us: no parent check then
        # (the server ends with this process, and its workers with it).
        parent = os.getpid() if ctx.get_start_method() == "fork" else None
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_bank_worker,
                                         initargs=(self.task, json.dumps(config), shared, path, shape, parent))
        self._finalizer = weakref.finalize(self, _shutdown, self._pool, self._folder)
        self.source = {"generator": f"{self.task} train split of seed {self.data_seed}, rendered on the CPU",
                       "bank": f"{self.bank_size} images, {self.refresh} draws each, {workers} workers",
                       **gen.source_info(config)}
        self.bank: torch.Tensor | None = None  # (bank_size, 3, H, W) uint8 on the device
        self.items: dict[str, np.ndarray] = {}  # the compact fields of the bank's items (n_objects, vertices, ...)
        self.labels: torch.Tensor | None = None  # (bank_size, P) the class of every patch (patch_classes)
        self.bank_index = -1  # the bank on the device (-1: none yet)
        self.draws = 0  # the index of the next draw
        self.wait_s = 0.0  # seconds draws spent waiting for rendering
        self.upload_s = 0.0  # seconds spent copying banks to the device
        self.banks_served = 0
        self._pending = -1  # the bank being rendered in the background
        self._futures: list[Future[dict[str, np.ndarray]]] = []
        self._start(0)  # bank 0 at once: the first draw comes after the model is built

    # -- life cycle

    def close(self) -> None:
        """End the workers (waiting for the job in hand, a fraction of a second) and free the bank file."""
        self._futures = []
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self) -> CountingStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- banks

    def _start(self, g: int) -> None:
        """Render bank ``g`` in the background (dropping a pending render of another bank)."""
        if self.closed:
            raise SrmBenchError(f"the {self.task} stream is closed")
        if self._pending == g:
            return
        for f in self._futures:
            f.cancel()
        for f in self._futures:  # the jobs already running write into the file: let them end first
            if not f.cancelled():
                try:
                    f.result()
                except Exception:  # noqa: BLE001 -- that bank is dropped; its error does not matter
                    pass
        first = g * self.bank_size
        self._futures = [self._pool.submit(_render_chunk, first + a, a, min(CHUNK, self.bank_size - a))
                         for a in range(0, self.bank_size, CHUNK)]
        self._pending = g

    def wait_next(self) -> float:
        """Block until the background bank is rendered; the seconds waited (benchmarks)."""
        t0 = time.perf_counter()
        for f in self._futures:
            f.exception()
        return time.perf_counter() - t0

    def _switch(self, g: int) -> None:
        """Put bank ``g`` on the device (waiting for its rendering), then start bank ``g + 1``."""
        self._start(g)
        t0 = time.perf_counter()
        try:
            parts = [f.result() for f in self._futures]
        except BrokenProcessPool:
            raise SrmBenchError(f"a render worker of the {self.task} stream died (out of memory?)") from None
        t1 = time.perf_counter()
        # A copy (also on the CPU): the file is overwritten by the next bank right after.
        images = torch.from_numpy(np.asarray(self._file)).to(self.device, copy=True)
        self.bank = images.permute(0, 3, 1, 2).contiguous()  # NCHW once here, not at every draw
        self.upload_s += time.perf_counter() - t1
        self.wait_s += t1 - t0
        self.items = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        self.labels = torch.from_numpy(self.items["patch_classes"]).to(self.device).long()
        self.bank_index, self.banks_served = g, self.banks_served + 1
        self._pending, self._futures = -1, []
        self._start(g + 1)

    def seek(self, draw_index: int) -> None:
        """Make the next draw the ``draw_index``-th (from 0) of an uninterrupted stream; a
        resumed run calls ``seek(step)`` once (one draw per step). Starts rendering its bank.

        Raises:
            SrmBenchError: a negative index.
        """
        if draw_index < 0:
            raise SrmBenchError(f"seek needs a draw index >= 0 (got {draw_index})")
        self.draws = int(draw_index)
        g = self.draws // self.refresh
        if g != self.bank_index:
            self._start(g)

    def draw(self, n: int) -> Batch:
        g = self.draws // self.refresh
        if g != self.bank_index:
            self._switch(g)
        assert self.bank is not None
        idx = torch.randint(0, self.bank_size, (n,), device=self.device)
        self.draws += 1
        return Batch(self.bank[idx].float() / 127.5 - 1.0, None, None if self.labels is None else self.labels[idx])


class CountingPolygonsStream(CountingStream):
    """:class:`CountingStream` of Counting Polygons."""

    task = "counting-polygons"


class CountingStarsStream(CountingStream):
    """:class:`CountingStream` of Counting Stars."""

    task = "counting-stars"


Stream = SudokuStream | EvenPixelsStream | CountingStream
STREAMS: dict[str, type[Stream]] = {"sudoku": SudokuStream, "even-pixels": EvenPixelsStream,
                                    "counting-polygons": CountingPolygonsStream, "counting-stars": CountingStarsStream}


def make_stream(task: str, device: str | torch.device, *, batch: int | None = None,
                workers: int | None = None) -> Stream:
    """The device stream of a task (a counting stream starts its render workers at once;
    ``batch``, the global batch, sets how many draws its banks serve: :func:`bank_refresh`;
    ``workers``, its render processes [min(4, CPUs)]; the images do not depend on it).

    Raises:
        SrmBenchError: the task has no device stream (train on a generated split with --data),
            or ``workers`` for a task whose stream renders nothing on the CPU.
    """
    if task not in STREAMS:
        raise SrmBenchError(f"{task} has no on-device data stream; generate a train split and pass --data DIR")
    cls = STREAMS[task]
    if not issubclass(cls, CountingStream):
        if workers is not None:
            raise SrmBenchError(f"--render-workers applies to the Counting tasks, whose images are rendered on the "
                                f"CPU; {task}'s are drawn on the device")
        return cls(device)
    kw: dict[str, Any] = {k: v for k, v in (("batch", batch), ("workers", workers)) if v is not None}
    return cls(device, **kw)
