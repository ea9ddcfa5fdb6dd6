"""Discrete oracle solvers for MNIST Sudoku (the grey rows of the paper's Table 1).

Each oracle fills the masked cells one at a time, never backtracking:

- ``random``: the next cell is a uniformly random empty cell;
- ``greedy``: the empty cell with the most already-filled neighbours (same row, column or
  box), the paper's words; ties broken at random;
- ``most-constrained``: the empty cell with the fewest legal digits; ties at random.

The digit is drawn uniformly among those that collide with no filled neighbour, or among
all nine if none is left. Randomness per puzzle comes from ``(seed, strategy/split, index)``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import numpy as np

from srm_bench.dataset import Dataset, load_dataset
from srm_bench.errors import SrmBenchError
from srm_bench.seeding import item_rng

from .sudoku import render

STRATEGIES = ("random", "greedy", "most-constrained")
_PEERS = []
for _c in range(81):
    _r, _q = divmod(_c, 9)
    _peers = {r * 9 + _q for r in range(9)} | {_r * 9 + q for q in range(9)}
    _peers |= {(3 * (_r // 3) + i) * 9 + 3 * (_q // 3) + j for i in range(3) for j in range(3)}
    _peers.discard(_c)
    _PEERS.append(tuple(sorted(_peers)))
_POP = [bin(m).count("1") for m in range(512)]
_BITS = [[d + 1 for d in range(9) if m >> d & 1] for m in range(512)]


def solve(givens: np.ndarray, mask: np.ndarray, strategy: str, rng: np.random.Generator) -> np.ndarray:
    """Complete one puzzle (digits (9, 9), mask (9, 9) True = given) with an oracle strategy."""
    if strategy not in STRATEGIES:
        raise SrmBenchError(f"unknown oracle strategy {strategy!r}; valid: {', '.join(STRATEGIES)}")
    grid = [int(d) if m else 0 for d, m in zip(givens.ravel(), mask.ravel())]
    used = [0] * 81  # bitmask of digits among each cell's filled neighbours
    filled_nb = [0] * 81
    for c in range(81):
        if grid[c]:
            for p in _PEERS[c]:
                used[p] |= 1 << (grid[c] - 1)
                filled_nb[p] += 1
    empty = [c for c in range(81) if not grid[c]]
    # Pre-drawn randomness keeps every strategy's draws aligned per step.
    tie = rng.random((len(empty) + 1, 81))
    pick = rng.random(len(empty) + 1)
    for step in range(len(empty)):
        if strategy == "random":
            key = [tie[step, c] for c in empty]
        elif strategy == "greedy":
            key = [-filled_nb[c] + 0.5 * tie[step, c] for c in empty]
        else:
            key = [_POP[0x1FF & ~used[c]] + 0.5 * tie[step, c] for c in empty]
        i = int(np.argmin(key))
        c = empty.pop(i)
        legal = _BITS[0x1FF & ~used[c]] or list(range(1, 10))
        d = legal[min(int(pick[step] * len(legal)), len(legal) - 1)]
        grid[c] = d
        for p in _PEERS[c]:
            used[p] |= 1 << (d - 1)
            filled_nb[p] += 1
    return np.array(grid, dtype=np.uint8).reshape(9, 9)


def run_oracle(ds: Dataset, strategy: str, seed: int = 0, progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Solutions (N, 9, 9) and rendered images (N, 252, 252, 1) for every puzzle of ``ds``."""
    from tqdm.auto import tqdm

    grids, masks = ds.items["grid"], ds.items["mask"]
    k = int(ds.config["digits"]["k"])
    out = np.empty_like(grids)
    instance = ds.items["instance"].copy()
    for i in tqdm(range(ds.count), desc=f"oracle {strategy}", unit="puzzle", disable=not progress):
        rng = item_rng(seed, f"sudoku-oracle/{strategy}/{ds.split}", i)
        out[i] = solve(grids[i] * masks[i], masks[i], strategy, rng)
        fresh = np.minimum((rng.random((9, 9)) * k).astype(np.int64), k - 1)
        # Given cells keep the puzzle's own digit images; filled cells get random pool instances.
        instance[i] = np.where(masks[i], instance[i], fresh)
    images = render(ds.shared["digit_pool"], out, instance)
    return out, images


@click.command("sudoku")
@click.option("--strategy", type=click.Choice(STRATEGIES), required=True, help="How the next cell is chosen.")
@click.option("--split", "-s", type=click.Choice(["easy", "medium", "hard"]), required=True)
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None,
              help="Samples HDF5 to write [default: oracle-STRATEGY-SPLIT.h5].")
@click.option("--reference", type=click.Path(path_type=Path), default=None,
              help="Puzzle set [default: the canonical test set of --split].")
@click.option("--seed", type=int, default=0, show_default=True)
@click.pass_obj
def oracle_command(obj: dict[str, Any] | None, strategy: str, split: str, out: Path | None, reference: Path | None,
                   seed: int) -> None:
    """Fill each puzzle's masked cells with a discrete oracle and render it with pool digits.

    \b
    Example:
      srm-bench oracle sudoku --strategy greedy --split hard -o greedy-hard.h5
      srm-bench evaluate greedy-hard.h5
    """
    from srm_bench.canonical import canonical_dataset
    from srm_bench.samples import write_samples

    progress = bool((obj or {}).get("progress", False))  # the root command's -q and terminal check
    out = out if out is not None else Path(f"oracle-{strategy}-{split}.h5")
    if out.exists():
        raise SrmBenchError(f"{out}: exists; choose another -o or delete it")
    ds = load_dataset(reference) if reference else canonical_dataset("sudoku", split, progress=progress)
    if ds.task != "sudoku" or ds.split != split:
        raise SrmBenchError(f"{reference}: is {ds.task}/{ds.split}, not sudoku/{split}")
    _, images = run_oracle(ds, strategy, seed, progress)
    write_samples(out, images, task="sudoku", split=split, dataset_sha256=ds.content_sha256,
                  index=np.arange(ds.count),
                  model={"name": f"oracle-{strategy}", "provenance": "oracle",
                         "sampler": {"name": strategy, "seed": seed, "backtracking": False}})
    click.echo(f"{out}: {ds.count} {strategy} oracle solutions of sudoku/{split}")


