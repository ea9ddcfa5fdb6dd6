"""The robust Sudoku digit reader: an ensemble of small CNNs with a "no digit" class.

Why a second reader beside the paper's MLP: the MLP reads 98.0% of never-seen MNIST digits,
so only about 0.98^81 = 19% of valid grids drawn with new handwriting pass. Every
generative model draws new handwriting; this reader is trained to generalise.

- Input contract as the MLP's: uint8 tiles (N, 28, 28) in [0, 255], white digit on black;
  the model scales to [0, 1] itself.
- Output: 11 logits, the digits 0-9 and class 10, "no digit" (a blank or noise cell). A
  cell read as "no digit" reads as 0, which counts in no Sudoku unit, so the grid fails.
- Ensemble: the members' logits are averaged, then divided by one temperature fitted on
  the held-out digits (so per-cell confidence is calibrated; training uses no label
  smoothing, so there is no ceiling below 1).
- Training data: the embedded digits minus the last 100 per class (the held-out fold the
  MLP also never saw), with augmentation: affine, elastic, stroke width, blur, contrast,
  noise; plus synthetic blank and noise tiles for the "no digit" class.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from srm_bench.errors import SrmBenchError
from srm_bench.io import check_pinned_file

WEIGHTS_FILE = "digit_cnn.safetensors"
INFO_FILE = "digit_cnn.json"
NO_DIGIT = 10
NUM_CLASSES = 11
CHANNELS = (32, 64, 96)
MEMBERS = 3
#: A cell is "unsure" when the calibrated probability of the digit read is below this.
UNSURE_BELOW = 0.9


def build_cnn(channels: tuple[int, int, int] = CHANNELS):
    """One member: uint8 (N, 28, 28) in, 11 logits out; scaling to [0, 1] is inside."""
    import torch
    from torch import nn

    def block(a: int, b: int) -> list[nn.Module]:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]

    c1, c2, c3 = channels

    class DigitCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(
                *block(1, c1), *block(c1, c1), nn.MaxPool2d(2),
                *block(c1, c2), *block(c2, c2), nn.MaxPool2d(2),
                *block(c2, c3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(c3, NUM_CLASSES),
            )

        def forward(self, tiles: torch.Tensor) -> torch.Tensor:
            if tiles.dtype != torch.uint8:
                raise TypeError(f"the digit CNN takes uint8 tiles in [0, 255], got {tiles.dtype}")
            return self.net(tiles.reshape(tiles.shape[0], 1, 28, 28).float() / 255.0)

    return DigitCNN()


class Ensemble:
    """Members whose logits are averaged and divided by a fitted temperature."""

    def __init__(self, members: list, temperature: float = 1.0) -> None:
        self.members = members
        self.temperature = float(temperature)

    def logits(self, tiles) -> Any:
        return sum(m(tiles) for m in self.members) / len(self.members)

    def __call__(self, tiles) -> Any:
        return self.logits(tiles) / self.temperature


def raw_logits(tiles: np.ndarray, ensemble: Ensemble, batch_size: int = 4096) -> np.ndarray:
    """Averaged member logits (N, 11) before the temperature."""
    import torch

    if tiles.dtype != np.uint8 or tiles.ndim != 3 or tiles.shape[1:] != (28, 28):
        raise ValueError(f"the digit CNN takes uint8 tiles (N, 28, 28); got {tiles.dtype} {tiles.shape}")
    out = np.empty((tiles.shape[0], NUM_CLASSES), dtype=np.float32)
    with torch.inference_mode():
        for s in range(0, tiles.shape[0], batch_size):
            block = np.ascontiguousarray(tiles[s:s + batch_size])
            out[s:s + batch_size] = ensemble.logits(torch.from_numpy(block if block.flags.writeable else block.copy())).numpy()
    return out


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def classify(tiles: np.ndarray, ensemble: Ensemble | None = None) -> np.ndarray:
    """Calibrated probabilities (N, 11) of uint8 tiles (N, 28, 28)."""
    ensemble = ensemble or load_reader()
    return softmax(raw_logits(tiles, ensemble), ensemble.temperature)


def read_cells(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Digits (0 = no digit) and the probability of what was read, from (..., 11) probabilities.

    As in the paper, an MNIST zero is never read: the best of 1-9 and "no digit" is taken.
    """
    legal = np.concatenate([probs[..., 1:10], probs[..., 10:11]], -1)  # digits 1-9, then no digit
    k = legal.argmax(-1)
    digits = np.where(k == 9, 0, k + 1).astype(np.uint8)
    conf = np.take_along_axis(legal, k[..., None], -1)[..., 0]
    return digits, conf


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature minimising the negative log-likelihood (golden-section search on log T)."""
    def nll(log_t: float) -> float:
        p = softmax(logits.astype(np.float64), math.exp(log_t))
        return float(-np.log(p[np.arange(len(labels)), labels] + 1e-300).mean())

    lo, hi = math.log(0.05), math.log(20.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(a), nll(b)
    for _ in range(80):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(b)
    return float(math.exp((lo + hi) / 2))


def expected_calibration_error(conf: np.ndarray, correct: np.ndarray, bins: int = 10) -> float:
    """ECE over equal-width confidence bins."""
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(conf, edges[1:-1]), 0, bins - 1)
    err = 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            err += m.mean() * abs(float(conf[m].mean()) - float(correct[m].mean()))
    return float(err)


# ----------------------------------------------------------------------------- loading

def weights_path() -> Path:
    return Path(str(resources.files("srm_bench.evaluators").joinpath("weights", WEIGHTS_FILE)))


def weights_info() -> dict:
    """Metadata of the shipped weights (SHA-256, temperature, accuracies, training command)."""
    return json.loads(resources.files("srm_bench.evaluators").joinpath("weights", INFO_FILE).read_text())


def _members_from(state: dict) -> list:
    members = []
    k = 0
    while any(key.startswith(f"m{k}.") for key in state):
        model = build_cnn()
        model.load_state_dict({key[len(f"m{k}."):]: v.float() for key, v in state.items() if key.startswith(f"m{k}.")})
        model.eval()
        for prm in model.parameters():
            prm.requires_grad_(False)
        members.append(model)
        k += 1
    if not members:
        raise SrmBenchError("the digit CNN weights hold no ensemble member (keys m0., m1., ...)")
    return members


@lru_cache(maxsize=2)
def load_reader(path: str | None = None, temperature: float | None = None) -> Ensemble:
    """The CNN ensemble in eval mode with the shipped (or given) weights, SHA-256 checked.

    Raises:
        SrmBenchError: the weights file is missing.
        ChecksumError: the shipped weights do not match their pinned SHA-256.
    """
    from safetensors.torch import load_file

    p = Path(path) if path else weights_path()
    if not p.exists():
        raise SrmBenchError(f"{p}: digit CNN weights missing; run 'srm-bench train-evaluator sudoku --reader cnn' or reinstall srm-bench")
    if path is None:
        info = weights_info()
        check_pinned_file(p, info["sha256"])
        temperature = info["temperature"] if temperature is None else temperature
    return Ensemble(_members_from(load_file(str(p))), 1.0 if temperature is None else temperature)


# ----------------------------------------------------------------------------- training

def _blur(x, sigma: float):
    import torch
    import torch.nn.functional as F

    r = max(1, int(math.ceil(2.5 * sigma)))
    t = torch.arange(-r, r + 1, dtype=torch.float32)
    k = torch.exp(-0.5 * (t / sigma) ** 2)
    k = k / k.sum()
    x = F.conv2d(F.pad(x, (r, r, 0, 0), mode="constant"), k.view(1, 1, 1, -1))
    return F.conv2d(F.pad(x, (0, 0, r, r), mode="constant"), k.view(1, 1, -1, 1))


def augment(x, gen):
    """Random affine + elastic warp, stroke width, blur, contrast and noise for uint8 tiles (N, 28, 28)."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    xf = x.float()[:, None] / 255.0

    def uni(*shape):
        return torch.rand(*shape, generator=gen) * 2 - 1

    # stroke width first, on the clean digit
    k = torch.rand(n, 1, 1, 1, generator=gen)
    thick3 = F.max_pool2d(xf, 3, 1, 1)
    thick2 = F.max_pool2d(F.pad(xf, (0, 1, 0, 1)), 2, 1)
    thin2 = -F.max_pool2d(F.pad(-xf, (0, 1, 0, 1), value=-1.0), 2, 1)
    xf = torch.where(k < 0.12, thick3, torch.where(k < 0.3, thick2, torch.where(k > 0.82, thin2, xf)))
    # affine + elastic in one resampling
    ang, scale, shear = uni(n) * math.radians(15), 1 + uni(n) * 0.15, uni(n) * 0.2
    aspect = 1 + uni(n) * 0.12
    shift = uni(n, 2) * (3.0 / 14)
    cos, sin = torch.cos(ang), torch.sin(ang)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = cos / (scale * aspect), -sin / scale + shear
    theta[:, 1, 0], theta[:, 1, 1] = sin / (scale * aspect), cos / scale
    theta[:, :, 2] = shift
    grid = F.affine_grid(theta, [n, 1, 28, 28], align_corners=False)
    alpha = torch.rand(n, 1, 1, 1, generator=gen) * 0.12
    field = F.interpolate(torch.randn(n, 2, 5, 5, generator=gen), size=(28, 28), mode="bicubic", align_corners=False)
    grid = grid + (alpha * field).permute(0, 2, 3, 1)
    out = F.grid_sample(xf, grid, align_corners=False, padding_mode="zeros")
    # blur: none, 0.5, 0.8 or 1.2 px
    b = torch.rand(n, 1, 1, 1, generator=gen)
    out = torch.where(b < 0.15, _blur(out, 0.5), torch.where(b < 0.27, _blur(out, 0.8), torch.where(b < 0.35, _blur(out, 1.2), out)))
    # contrast: gain, gamma, a background offset
    gain = 0.55 + 0.55 * torch.rand(n, 1, 1, 1, generator=gen)
    gamma = torch.exp(uni(n, 1, 1, 1) * 0.4)
    out = out.clamp(0, 1) ** gamma * gain
    offset = (torch.rand(n, 1, 1, 1, generator=gen) < 0.2).float() * torch.rand(n, 1, 1, 1, generator=gen) * 0.15
    out = offset + (1 - offset) * out
    sigma = (torch.rand(n, 1, 1, 1, generator=gen) < 0.5).float() * torch.rand(n, 1, 1, 1, generator=gen) * 0.12
    out = out + sigma * torch.randn(out.shape, generator=gen)
    return (out.clamp(0, 1) * 255).round().to(torch.uint8)[:, 0]


def no_digit_tiles(n: int, gen):
    """Tiles that hold no digit: blank (dark, possibly noisy) and noise of any amplitude."""
    import torch

    kind = torch.rand(n, 1, 1, generator=gen)
    level = torch.rand(n, 1, 1, generator=gen) * 0.25
    amp = 0.15 + 0.85 * torch.rand(n, 1, 1, generator=gen)
    noise_sd = torch.rand(n, 1, 1, generator=gen) * 0.08
    blank = level + noise_sd * torch.randn(n, 28, 28, generator=gen)
    uniform = amp * torch.rand(n, 28, 28, generator=gen)
    gauss = level + amp * torch.randn(n, 28, 28, generator=gen).abs()
    out = torch.where(kind < 0.4, blank, torch.where(kind < 0.75, uniform, gauss))
    return (out.clamp(0, 1) * 255).round().to(torch.uint8)


def train_member(images: np.ndarray, labels: np.ndarray, *, epochs: int, seed: int, batch_size: int = 128,
                 lr: float = 3e-3, no_digit_fraction: float = 0.06, emphasis: np.ndarray | None = None,
                 emphasis_per_batch: int = 16, progress: bool = True, desc: str = "digit-cnn"):
    """Train one member from scratch with augmentation; returns it in eval mode.

    ``emphasis``: indices into ``images`` (the pool digits of the training fold) of which
    ``emphasis_per_batch`` more, drawn at random and not augmented, join every batch, so the
    member reads the digits the generators draw exactly as they are drawn.
    """
    import torch
    import torch.nn.functional as F

    from srm_bench.digits import fit_classifier

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(np.array(images))  # a copy: the embedded digits are read-only
    y = torch.from_numpy(labels.astype(np.int64))
    model = build_cnn()
    n_neg = max(1, int(round(batch_size * no_digit_fraction)))
    extra = torch.from_numpy(np.asarray(emphasis, dtype=np.int64)) if emphasis is not None and len(emphasis) else None

    def batch_loss(idx):
        xs, ys = [augment(x[idx], gen), no_digit_tiles(n_neg, gen)], [y[idx], torch.full((n_neg,), NO_DIGIT, dtype=torch.int64)]
        if extra is not None and emphasis_per_batch:
            pick = extra[torch.randint(0, len(extra), (emphasis_per_batch,), generator=gen)]
            xs.append(x[pick])
            ys.append(y[pick])
        return F.cross_entropy(model(torch.cat(xs)), torch.cat(ys))

    return fit_classifier(model, len(x), batch_loss, gen=gen, epochs=epochs, batch_size=batch_size, lr=lr,
                          weight_decay=5e-4, pct_start=0.2, desc=desc, progress=progress)


# ----------------------------------------------------------------------------- reader checks

def grid_images(grids: np.ndarray, bank: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """Render grids (N, 9, 9) of digits 1-9 as uint8 images (N, 252, 252), each cell a random
    tile of ``bank[d - 1]`` (tiles (k, 28, 28) of digit d)."""
    n = grids.shape[0]
    out = np.empty((n, 9, 9, 28, 28), dtype=np.uint8)
    for d in range(1, 10):
        where = grids == d
        out[where] = bank[d - 1][rng.integers(0, len(bank[d - 1]), int(where.sum()))]
    return out.transpose(0, 1, 3, 2, 4).reshape(n, 252, 252)


def read_grids(images: np.ndarray, read) -> np.ndarray:
    """Grids (N, 9, 9) read from uint8 images (N, 252, 252) by ``read(tiles) -> (digits, conf)``."""
    n = images.shape[0]
    tiles = images.reshape(n, 9, 28, 9, 28).transpose(0, 1, 3, 2, 4).reshape(-1, 28, 28)
    return read(np.ascontiguousarray(tiles))[0].reshape(n, 9, 9)


def train_reader(xtr: np.ndarray, ytr: np.ndarray, xcal: np.ndarray, ycal: np.ndarray, out: Path, *,
                 members: int = MEMBERS, epochs: int = 60, seed: int = 0, emphasis: np.ndarray | None = None,
                 emphasis_per_batch: int = 16, progress: bool = True) -> dict[str, Any]:
    """Train the ensemble, fit its temperature on (xcal, ycal), write fp16 safetensors to ``out``.

    Member k trains with seed ``seed + k``; ``emphasis`` (indices into ``xtr``) as in
    :func:`train_member`. Returns the facts for the JSON beside the weights.
    """
    import torch
    from safetensors.torch import load_file, save_file

    from srm_bench.io import atomic_output

    models = [train_member(xtr, ytr, epochs=epochs, seed=seed + k, emphasis=emphasis, emphasis_per_batch=emphasis_per_batch,
                           progress=progress, desc=f"digit-cnn {k + 1}/{members}")
              for k in range(members)]
    state = {f"m{k}.{name}": v.detach().to(torch.float16).contiguous()
             for k, m in enumerate(models) for name, v in m.state_dict().items() if v.dtype.is_floating_point}
    state.update({f"m{k}.{name}": v.contiguous() for k, m in enumerate(models)
                  for name, v in m.state_dict().items() if not v.dtype.is_floating_point})
    with atomic_output(out) as tmp:
        save_file(state, str(tmp))
    # reload what was written (fp16), so the temperature and accuracies describe the shipped file
    ensemble = Ensemble(_members_from(load_file(str(out))))
    cal = raw_logits(xcal, ensemble)
    temperature = fit_temperature(cal, ycal.astype(np.intp))
    ensemble.temperature = temperature
    probs = softmax(cal, temperature)
    nz = ycal != 0
    digits, conf = read_cells(probs[nz])
    return {
        "members": members, "temperature": temperature,
        "heldout_accuracy": float((probs[:, :10].argmax(1) == ycal).mean()),
        "heldout_accuracy_1_9": float((digits == ycal[nz]).mean()),
        "heldout_ece": expected_calibration_error(conf, digits == ycal[nz]),
        "train_accuracy": float((classify(xtr, ensemble)[:, :10].argmax(1) == ytr).mean()),
    }
