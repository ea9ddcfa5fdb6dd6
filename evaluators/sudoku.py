"""MNIST Sudoku evaluator: read each cell with a digit reader, then check the Sudoku rules.

Two readers (``evaluate --reader``), each its own evaluator so results never mix:

- ``mlp`` (``sudoku-digit-mlp``, the default): the paper's reader, an MLP.
- ``cnn`` (``sudoku-digit-cnn``): an ensemble of small CNNs trained to read new
  handwriting, with a "no digit" class and a calibrated confidence (see digit_cnn.py).

Metrics per sample (aggregated by the core with 95% intervals):

- ``l1``: the paper's L1, the sum over the 27 units (rows, columns, boxes) of the L1
  distance of the unit's digit histogram to the all-ones vector; 0 iff valid, at most 432.
- ``accuracy``: L1 == 0 (the paper's Acc).
- ``givens_kept``: every given cell still reads as its given digit (the paper never checks).
- ``solved``: valid and givens kept.
- ``min_confidence``: the classifier's lowest per-cell probability for the digit it read.
- ``unsure_cells`` (CNN reader only): the fraction of the 81 cells whose calibrated
  probability for the digit read is below 0.9.
"""
from __future__ import annotations

import numpy as np

from srm_bench.dataset import Dataset
from srm_bench.digits import classify, load_classifier, weights_info
from srm_bench.errors import SrmBenchError
from srm_bench.evaluation import MetricInfo, TaskEvaluator

TILE = 28
MAX_L1 = 432


def tiles_of(images: np.ndarray) -> np.ndarray:
    """Cut uint8 images (N, 252, 252[, 1]) into tiles (N, 81, 28, 28), row-major cells."""
    n = images.shape[0]
    x = images.reshape(n, 9, TILE, 9, TILE)
    return np.ascontiguousarray(x.transpose(0, 1, 3, 2, 4)).reshape(n, 81, TILE, TILE)


def read_digits(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Digits 1-9 and their probabilities from (..., 10) class probabilities.

    Only 1-9 are legal in a Sudoku: where the top class is 0 the second best is taken.
    """
    digits = probs[..., 1:].argmax(-1) + 1
    conf = np.take_along_axis(probs, digits[..., None], -1)[..., 0]
    return digits.astype(np.uint8), conf


def unit_counts(grids: np.ndarray) -> np.ndarray:
    """Digit histograms (N, 27, 9) of the 9 rows, 9 columns and 9 boxes of grids (N, 9, 9)."""
    n = grids.shape[0]
    onehot = np.eye(10, dtype=np.int16)[grids.astype(np.intp)][..., 1:]  # (N, 9, 9, 9): digit 0 counts nowhere
    rows = onehot.sum(2)
    cols = onehot.sum(1)
    boxes = onehot.reshape(n, 3, 3, 3, 3, 9).sum((2, 4)).reshape(n, 9, 9)
    return np.concatenate([rows, cols, boxes], axis=1)


def sudoku_l1(grids: np.ndarray) -> np.ndarray:
    """The paper's L1 per grid: sum over units of |histogram - 1|; 0 iff the grid is valid.

    Example:
        >>> g = (np.add.outer(np.arange(9) * 3 + np.arange(9) // 3, np.arange(9)) % 9 + 1)[None]
        >>> int(sudoku_l1(g)[0])
        0
    """
    return np.abs(unit_counts(grids) - 1).sum((1, 2)).astype(np.int64)


def bad_cells(grids: np.ndarray, givens: np.ndarray | None = None, mask: np.ndarray | None = None) -> np.ndarray:
    """Cells (N, 9, 9) whose digit repeats in its row, column or box, that hold no digit (0), or
    that changed a given."""
    n = grids.shape[0]
    idx = np.maximum(grids.astype(np.intp) - 1, 0)
    counts = unit_counts(grids)  # (N, 27, 9)
    r = np.arange(9)
    row_u = np.broadcast_to(r[:, None], (9, 9))
    col_u = 9 + np.broadcast_to(r[None, :], (9, 9))
    box_u = 18 + (r[:, None] // 3) * 3 + r[None, :] // 3
    nn = np.arange(n)[:, None, None]
    bad = (counts[nn, row_u, idx] > 1) | (counts[nn, col_u, idx] > 1) | (counts[nn, box_u, idx] > 1)
    bad = np.where(grids == 0, True, bad)
    if givens is not None and mask is not None:
        bad |= mask & (grids != givens)
    return bad


class SudokuEvaluator(TaskEvaluator):
    task = "sudoku"
    name = "sudoku-digit-mlp"
    version = 1
    metrics = {
        "l1": MetricInfo("mean", False, "sum over rows, columns and boxes of |digit histogram - 1| (paper's L1)"),
        "accuracy": MetricInfo("rate", True, "valid Sudoku (L1 == 0), the paper's Acc"),
        "givens_kept": MetricInfo("rate", True, "every given cell reads as its given digit"),
        "solved": MetricInfo("rate", True, "valid and givens kept"),
        "min_confidence": MetricInfo("mean", True, "lowest per-cell classifier probability"),
    }

    def weights_sha256(self) -> str | None:
        return weights_info()["sha256"]

    def read(self, tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Digits 1-9 (the CNN: 0 for no digit) and their probabilities for uint8 tiles (N, 28, 28)."""
        return read_digits(classify(tiles, load_classifier()))

    def extra_metrics(self, conf: np.ndarray) -> dict[str, np.ndarray]:
        return {}

    def score(self, images: np.ndarray, *, reference: Dataset | None, index: np.ndarray | None,
              device: str = "cpu", batch_size: int = 256, progress: bool = False) -> dict[str, np.ndarray]:
        if reference is None or index is None:
            raise SrmBenchError("Sudoku samples are scored against their puzzles; pass --reference DIR")
        from tqdm.auto import tqdm

        n = images.shape[0]
        digits = np.empty((n, 81), dtype=np.uint8)
        conf = np.empty((n, 81), dtype=np.float32)
        self.read(np.zeros((1, TILE, TILE), np.uint8))  # load (and hash-check) the weights before the loop
        step = max(1, int(batch_size))
        for s in tqdm(range(0, n, step), desc="sudoku", unit="batch", disable=not progress):
            tiles = tiles_of(images[s:s + step]).reshape(-1, TILE, TILE)
            d, c = self.read(tiles)
            digits[s:s + step] = d.reshape(-1, 81)
            conf[s:s + step] = c.reshape(-1, 81)
        grids = digits.reshape(n, 9, 9)
        givens = reference.items["grid"][index]
        mask = reference.items["mask"][index]
        l1 = sudoku_l1(grids)
        kept = ((grids == givens) | ~mask).all((1, 2))
        bad = bad_cells(grids, givens, mask).reshape(n, 81)
        return {
            "l1": l1,
            "accuracy": l1 == 0,
            "givens_kept": kept,
            "solved": (l1 == 0) & kept,
            "min_confidence": conf.min(1),
            **self.extra_metrics(conf),
            "digits": np.array(["".join(map(str, row)) for row in digits]),
            "bad_cells": np.array(["".join("1" if b else "0" for b in row) for row in bad]),
        }


class SudokuCnnEvaluator(SudokuEvaluator):
    name = "sudoku-digit-cnn"
    version = 1
    metrics = {
        **SudokuEvaluator.metrics,
        "min_confidence": MetricInfo("mean", True, "lowest per-cell calibrated probability of the digit read"),
        "unsure_cells": MetricInfo("mean", False, "fraction of cells read with calibrated probability below 0.9"),
    }

    def weights_sha256(self) -> str | None:
        from .digit_cnn import weights_info as cnn_info

        return cnn_info()["sha256"]

    def read(self, tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from .digit_cnn import classify as cnn_classify, read_cells

        return read_cells(cnn_classify(tiles))

    def extra_metrics(self, conf: np.ndarray) -> dict[str, np.ndarray]:
        from .digit_cnn import UNSURE_BELOW

        return {"unsure_cells": (conf < UNSURE_BELOW).mean(1)}


EVALUATOR = SudokuEvaluator()
READERS: dict[str, SudokuEvaluator] = {"mlp": EVALUATOR, "cnn": SudokuCnnEvaluator()}
