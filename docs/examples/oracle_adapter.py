"""An srm-bench adapter: the most-constrained oracle wrapped as a "model".

Run it from the repository root:

    srm-bench solve sudoku --split hard --model docs/examples/oracle_adapter.py:most_constrained

An adapter is any function that takes a ``srm_bench.solve.Batch`` and returns one answer per
puzzle. For Sudoku the batch carries ``mask`` (B, 9, 9, True on the given cells), ``digits``
(B, 9, 9, the given digits, 0 elsewhere) and ``images`` (B, 252, 252, the puzzle as the image
models see it); the answer is either digit grids (B, 9, 9) of 1-9, as here, or images
(B, 252, 252) uint8, as an image generator would return.
"""
from __future__ import annotations

import numpy as np

from srm_bench.generators.sudoku_oracle import solve
from srm_bench.seeding import item_rng


def most_constrained(batch):
    """Fill each puzzle cell by cell, always the empty cell with the fewest legal digits."""
    grids = np.empty((len(batch), 9, 9), dtype=np.uint8)
    for j, i in enumerate(batch.index):
        rng = item_rng(0, f"adapter-example/{batch.split}", int(i))
        grids[j] = solve(batch.digits[j], batch.mask[j], "most-constrained", rng)
    return grids


def first_row_only(batch):
    """A broken adapter for the tests: returns one row per puzzle instead of a grid."""
    return batch.digits[:, 0]
