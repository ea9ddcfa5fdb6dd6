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
  1024 pixels, coloured exactly as the generator colours them (same HSV formula, rint).

Batches come from the global torch RNG, which the training loop seeds from
(seed, rank, step) before each draw: step k on rank r is the same whatever happened before.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from srm_bench.errors import SrmBenchError


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
        from srm_bench.registry import get_task

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


class EvenPixelsStream:
    """Fresh Even Pixels images composed on ``device`` (exactly 512 pixels of each hue).

    Example:
        >>> b = EvenPixelsStream("cpu").draw(3); tuple(b.x.shape)
        (3, 3, 32, 32)
    """

    task = "even-pixels"

    def __init__(self, device: str | torch.device) -> None:
        from srm_bench.registry import get_task

        gen = get_task("even-pixels").generator_module()
        HALF, HUE_OFFSET_MAX, PIXELS = gen.HALF, gen.HUE_OFFSET_MAX, gen.PIXELS
        SATURATION, SIZE, VALUE = gen.SATURATION, gen.SIZE, gen.VALUE

        self.device = torch.device(device)
        self.size, self.pixels, self.half = SIZE, PIXELS, HALF
        self.saturation, self.value, self.offset_max = SATURATION, VALUE, HUE_OFFSET_MAX
        self.source = {"generator": "even-pixels on the device"}

    def draw(self, n: int) -> Batch:
        dev = self.device
        hue = torch.rand(n, device=dev, dtype=torch.float64) * self.offset_max
        colours = hsv_to_rgb8_torch(torch.stack([hue, hue + 0.5], -1), self.saturation, self.value)  # (n, 2, 3)
        second = torch.rand(n, self.pixels, device=dev).argsort(1).argsort(1) >= self.half  # exactly half True
        img = colours.gather(1, second.long()[..., None].expand(n, self.pixels, 3))  # (n, 1024, 3)
        img = img.reshape(n, self.size, self.size, 3).permute(0, 3, 1, 2)
        return Batch(img.float() / 127.5 - 1.0, None)


STREAMS = {"sudoku": SudokuStream, "even-pixels": EvenPixelsStream}


def make_stream(task: str, device: str | torch.device) -> SudokuStream | EvenPixelsStream:
    """The device stream of a task.

    Raises:
        SrmBenchError: the task has no device stream (Counting: train on a generated split with --data).
    """
    if task not in STREAMS:
        raise SrmBenchError(f"{task} has no on-device data stream; generate a train split and pass --data DIR")
    return STREAMS[task](device)
