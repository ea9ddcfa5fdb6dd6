"""Counting Polygons / Stars evaluator: a multi-head ResNet classifier per object type.

Heads (one shared trunk):

- ``pair``: the unordered pair of digits shown, 45 classes {a <= b} of 1-9, and in an open-set
  model (evaluator version 3) a 46th, "no pair": one number or both not drawn;
- ``objects``: the number of objects, 1-9, and in an open-set model a class for none;
- ``vertices``: which vertex counts occur among the objects (multi-label, one sigmoid per
  count in the task's range: polygons 3-7, stars 2-9).

A closed-set model (version 2) must name a pair and a count for every image, so a sample that
draws the objects and no numbers is still read as some pair, and scored accurate when the guess
fits (benchmarks/check_counting_evaluator.py, "the numbers left out": 12.4% on polygons). An
open-set model reads such a sample as "no pair" (digits 0, 0 in the per-sample file) and an
image with no object as 0 objects; neither can meet the rule. Which one a weights file holds is
told by its head sizes and recorded in its pin (``open_set``).

Per image, both readings side by side (as Even Pixels reports the paper's and a strict metric):

- ``accuracy`` (the paper's rule): {digit a, digit b} == {#objects, #vertices} as read by the
  heads, #vertices being the vertex count the vertex head is most sure of (what a
  single-answer head such as the paper's reads);
- ``strict_accuracy``: the same and ``consistency`` (the objects share one vertex count), so
  an image whose objects mix vertex counts is never accurate (version 1's ``accuracy``);
- ``consistency``: exactly one vertex count is present.

The trunk is torchvision's ResNet-50 layout (Bottleneck blocks [3, 4, 6, 3]) at a reduced
width: the paper uses a full ResNet-50, whose fp16 weights (~51 MB per model) would not
fit the repository's size budget. Trained from scratch with ``srm-bench train-evaluator
counting-polygons|counting-stars`` on classifier-mode images (see the generator and
train_counting.py, which holds the training); the shipped fp16 weights are SHA-256 checked
at load.
"""
from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from srm_bench.dataset import Dataset
from srm_bench.errors import ChecksumError, SrmBenchError
from srm_bench.evaluation import MetricInfo, TaskEvaluator

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).parent / "weights"
PINS_FILE = WEIGHTS_DIR / "counting-weights.json"
VERTEX_RANGES = {"polygons": (3, 7), "stars": (2, 9)}
# The counts the objects head reads: 1-9, as the benchmark's images have (each count a ninth of them;
# generators/counting.py N_RANGE, which this subsystem may not import: tests/test_layers.py)
COUNTS = np.arange(1, 10)
WIDTH = 24  # channels of the stem; the ResNet-50 stages have 4 x (1, 2, 4, 8) x WIDTH outputs
LAYERS = (3, 4, 6, 3)
PAIRS = [(a, b) for a in range(1, 10) for b in range(a, 10)]
PAIR_INDEX = {p: i for i, p in enumerate(PAIRS)}
NO_PAIR = len(PAIRS)  # the open-set pair head's class for "one number or both not drawn", read as digits (0, 0)
MEAN, STD = 0.5, 0.25


def pair_index(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Class index of the unordered digit pairs {a, b} (arrays of digits 1-9)."""
    lo, hi = np.minimum(a, b).astype(np.int64), np.maximum(a, b).astype(np.int64)
    # Row lo (1-based) of the upper triangle starts after sum_{j<lo} (10 - j) entries.
    return (lo - 1) * 9 - (lo - 1) * (lo - 2) // 2 + (hi - lo)


# ---------------------------------------------------------------------------- model

def build_model(n_vertex_classes: int, width: int = WIDTH, layers: tuple[int, ...] = LAYERS, open_set: bool = False):
    """The classifier: a ResNet-50-layout trunk of torchvision Bottleneck blocks and three heads.

    The stem is one 3x3 stride-2 convolution (no max-pool): the inputs are only 128 pixels
    wide and the stars' spikes are about one pixel thin. ``open_set`` adds the "no pair" class
    to the pair head and a class for no object (its first) to the objects head.
    """
    import torch
    from torch import nn
    from torchvision.models.resnet import Bottleneck

    class CountingNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(3, width, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True))
            stages, inplanes = [], width
            for i, blocks in enumerate(layers):
                planes, stride = width * 2 ** i, 1 if i == 0 else 2
                down = nn.Sequential(nn.Conv2d(inplanes, planes * 4, 1, stride=stride, bias=False), nn.BatchNorm2d(planes * 4))
                stage = [Bottleneck(inplanes, planes, stride=stride, downsample=down)]
                inplanes = planes * 4
                stage += [Bottleneck(inplanes, planes) for _ in range(blocks - 1)]
                stages.append(nn.Sequential(*stage))
            self.stages = nn.Sequential(*stages)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.pair = nn.Linear(inplanes, len(PAIRS) + int(open_set))
            self.objects = nn.Linear(inplanes, len(COUNTS) + int(open_set))
            self.vertices = nn.Linear(inplanes, n_vertex_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, Bottleneck):
                    nn.init.zeros_(m.bn3.weight)  # each residual branch starts as identity

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
            h = self.pool(self.stages(self.stem(x))).flatten(1)
            return {"pair": self.pair(h), "objects": self.objects(h), "vertices": self.vertices(h)}

    return CountingNet()


def is_open_set(n_pair_classes: int) -> bool:
    """Whether a pair head of ``n_pair_classes`` classes (a state dict's ``pair.weight`` rows, or
    the logits' columns) is an open-set model's, which has the "no pair" class."""
    if n_pair_classes not in (len(PAIRS), len(PAIRS) + 1):
        raise SrmBenchError(f"a pair head of {n_pair_classes} classes: not a counting classifier (45, or 46 with 'no pair')")
    return n_pair_classes == len(PAIRS) + 1


def to_unit(images, device: str):
    """uint8 NHWC images (numpy or tensor) -> float32 NCHW in [0, 1] (channels-last) on ``device``."""
    import torch

    x = torch.as_tensor(images).to(device, non_blocking=True)
    # permute gives an NCHW view whose strides are already channels-last
    return x.permute(0, 3, 1, 2).float() / 255.0


def to_input(images, device: str):
    """uint8 NHWC images (numpy or tensor) -> normalised float32 NCHW (channels-last) on ``device``."""
    return (to_unit(images, device) - MEAN) / STD


def decode(outputs: dict[str, Any], vmin: int) -> dict[str, np.ndarray]:
    """Per-image readings from the heads' logits: digits, objects, vertex set, metrics.

    An open-set model's "no pair" reads as digits (0, 0) and its "no object" as 0 objects; either
    fails the rule (the digits are 1-9, and a count of 0 never equals a digit).
    """
    open_set = is_open_set(outputs["pair"].shape[1])
    pair = outputs["pair"].argmax(1).cpu().numpy()
    pairs = np.array(PAIRS + [(0, 0)])[pair]
    objects = outputs["objects"].argmax(1).cpu().numpy() + (0 if open_set else 1)
    present = (outputs["vertices"] > 0).cpu().numpy()
    consistent = present.sum(1) == 1
    top = outputs["vertices"].argmax(1).cpu().numpy() + vmin  # the head's single best vertex count
    vertices = np.where(consistent, present.argmax(1) + vmin, 0)
    accurate = (np.minimum(pairs[:, 0], pairs[:, 1]) == np.minimum(objects, top)) & (
        np.maximum(pairs[:, 0], pairs[:, 1]) == np.maximum(objects, top)) & (pair != NO_PAIR) & (objects > 0)
    bits = (present * (1 << np.arange(present.shape[1]))).sum(1)
    return {"accuracy": accurate, "strict_accuracy": accurate & consistent, "consistency": consistent,
            "digit_a": pairs[:, 0], "digit_b": pairs[:, 1],
            "objects": objects, "vertices": vertices, "vertex_set": bits << vmin}


COLLAPSE_SHARE = 0.5  # diagnose: one object count in at least this share of the samples


def object_count_shares(objects: np.ndarray) -> np.ndarray:
    """The share of images per object count 1-9 (the ``objects`` column as read)."""
    objects = np.asarray(objects)
    return np.array([(objects == n).mean() for n in COUNTS]) if objects.size else np.zeros(len(COUNTS))


# Object counts pooled into groups with enough samples each; a group's weight in the standard is its share of the
# data's counts (N uniform on 1-9), so the standard is "what the consistency would be at the data's object counts".
OBJECT_GROUPS: tuple[tuple[int, ...], ...] = ((1,), (2,), (3,), (4, 5), (6, 7, 8, 9))


def consistency_by_objects(objects: np.ndarray, consistent: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Consistency per object-count group (OBJECT_GROUPS, as the ``objects`` head reads them), the images per group,
    and the consistency standardised to the data's uniform 1-9 object counts (NaN when a group holds no image).

    More objects are harder to keep at one vertex count, so a sampler that draws fewer objects gains consistency
    without drawing better; the standardised figure compares samplers at the same object counts. Images read as
    holding no object are left out of both."""
    objects, consistent = np.asarray(objects), np.asarray(consistent, bool)
    if objects.shape != consistent.shape:
        raise SrmBenchError(f"objects {objects.shape} and consistency {consistent.shape} differ in shape: give one reading of each per sample")
    masks = [np.isin(objects, g) for g in OBJECT_GROUPS]
    counts = np.array([m.sum() for m in masks])
    means = np.array([consistent[m].mean() if m.any() else np.nan for m in masks])
    weights = np.array([len(g) for g in OBJECT_GROUPS]) / len(COUNTS)
    return means, counts, float((weights * means).sum())


SPREAD_TV = 0.25  # describe: object counts this far (total variation) from the data's uniform 1-9


def spread_note(objects: np.ndarray, consistent: np.ndarray) -> str | None:
    """One line when the object counts read in the samples are at least SPREAD_TV (total variation) from the
    data's uniform 1-9, giving the consistency as drawn beside the one standardised to the data's counts
    (``consistency_by_objects``), or saying that it cannot be standardised (a group holds no image); else None."""
    objects = np.asarray(objects)
    drawn = objects[objects > 0]  # "no object" readings are left out of both figures
    if not drawn.size:
        return None
    tv = 0.5 * float(np.abs(object_count_shares(drawn) - 1 / len(COUNTS)).sum())
    if tv < SPREAD_TV:
        return None
    means, counts, std = consistency_by_objects(objects, consistent)
    raw = float(np.asarray(consistent, bool)[objects > 0].mean())
    head = (f"the samples' object counts are far from the data's uniform 1-9 (total variation {tv:.2f}, mean "
            f"{drawn.mean():.1f} objects against the data's 5.0) and consistency depends on the count: {raw:.3f} on the "
            "images read as holding objects")
    groups = ["/".join(map(str, g)) if len(g) < 3 else f"{g[0]}-{g[-1]}" for g in OBJECT_GROUPS]
    if np.isnan(std):
        empty = ", ".join(g for g, c in zip(groups, counts, strict=True) if c == 0)
        return f"{head}, not comparable at the data's counts (no image read as {empty} objects)"
    return (f"{head}, {std:.3f} at the data's object counts (per group "
            + ", ".join(f"{g}: {m:.2f}" for g, m in zip(groups, means, strict=True))
            + "; its interval: benchmarks/check_counting_objects.py in the srm-bench repository)")


def collapse_note(objects: np.ndarray, accuracy: np.ndarray) -> str | None:
    """One line when the evaluator reads one object count in at least COLLAPSE_SHARE of the samples
    (a model that always draws one polygon, a "1" and the polygon's vertex count meets the paper's
    rule every time), saying how much of the accuracy those images carry; else None. The count is
    the objects head's reading, which on samples far from the task's images is a guess: the note
    says to look at them."""
    shares = object_count_shares(objects)
    top = int(shares.argmax())
    if shares[top] < COLLAPSE_SHARE:
        return None
    n, objects, accuracy = int(COUNTS[top]), np.asarray(objects), np.asarray(accuracy, bool)
    return (f"the evaluator reads {n} object{'s' if n > 1 else ''} in {shares[top]:.0%} of the samples (the benchmark's "
            f"images have 1-9, a ninth each); {int(accuracy[objects == n].sum())} of the {int(accuracy.sum())} accurate "
            "samples are among them, so accuracy here measures few-object readings, not counting across the range; "
            "look at the images: on samples unlike the task's (blobs, fragments, no legible digits) the count is "
            "the classifier's best guess (per-sample counts in the CSV's 'objects' column)")


# ---------------------------------------------------------------------------- weights

def weights_path(shape: str) -> Path:
    return WEIGHTS_DIR / f"counting-{shape}.safetensors"


def _pins() -> dict[str, Any]:
    try:
        return json.loads(PINS_FILE.read_text())
    except (OSError, ValueError):
        return {}


@lru_cache(maxsize=4)
def load_model(shape: str, device: str = "cpu"):
    """The trained classifier of ``shape`` in eval mode on ``device``, its file SHA-256 checked.

    Raises:
        SrmBenchError: the weights are not shipped.
        ChecksumError: the weights file differs from its pinned SHA-256.
    """
    import torch
    from safetensors.torch import load

    path, pin = weights_path(shape), _pins().get(f"counting-{shape}.safetensors")
    if not path.exists() or pin is None:
        raise SrmBenchError(f"no weights for the counting-{shape} classifier in {WEIGHTS_DIR}; "
                            f"train them with: srm-bench train-evaluator counting-{shape}")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != pin["sha256"]:
        raise ChecksumError(f"{path}: SHA-256 {digest[:12]}... differs from the pinned {pin['sha256'][:12]}...; "
                            "reinstall srm-bench")
    vmin, vmax = VERTEX_RANGES[shape]
    state = {k: v.float() for k, v in load(data).items()}
    open_set = is_open_set(state["pair.weight"].shape[0])
    if open_set != bool(pin.get("open_set", False)):
        raise SrmBenchError(f"{path}: its heads are {'open' if open_set else 'closed'}-set but its pin in {PINS_FILE.name} "
                            f"says otherwise; pin the file with the command that trained it")
    model = build_model(vmax - vmin + 1, width=int(pin.get("width", WIDTH)), open_set=open_set)
    model.load_state_dict(state)
    model.eval().requires_grad_(False)
    return model.to(device, memory_format=torch.channels_last)


def classify(shape: str, images: np.ndarray, *, device: str = "cpu", batch_size: int = 256,
             progress: bool = False, model: Any = None) -> dict[str, np.ndarray]:
    """Read digits, objects and vertex counts of uint8 (N, 128, 128, 3) images.

    Args:
        shape: ``"polygons"`` or ``"stars"``.
        images: uint8 NHWC images.
        device: torch device.
        batch_size: images per forward pass.
        progress: show a progress bar.
        model: a model to use instead of the shipped one (training uses this).

    Raises:
        SrmBenchError: wrong image shape or dtype, or missing weights.
    """
    import torch
    from tqdm.auto import tqdm

    images = np.asarray(images)
    if images.ndim != 4 or images.shape[1:] != (128, 128, 3) or images.dtype != np.uint8:
        raise SrmBenchError(f"counting-{shape} expects uint8 images of shape (N, 128, 128, 3), got {images.dtype} {images.shape}")
    model = load_model(shape, device) if model is None else model
    vmin = VERTEX_RANGES[shape][0]
    parts: list[dict[str, np.ndarray]] = []
    with torch.inference_mode():
        for s in tqdm(range(0, len(images), batch_size), disable=not progress, desc=f"counting-{shape}", unit="batch"):
            parts.append(decode(model(to_input(images[s:s + batch_size], device)), vmin))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


class CountingEvaluator(TaskEvaluator):
    """Scores samples of one counting task with its classifier."""

    # 2: accuracy is the paper's rule, strict_accuracy is version 1's accuracy; 3: the same with open-set
    # weights (``open_set`` in the pin), which read "no pair" and "no object" (the version property)
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "accuracy": MetricInfo("rate", True, "{digit a, digit b} == {#objects, #vertices} as read (the paper's rule)"),
        "strict_accuracy": MetricInfo("rate", True, "accuracy and all objects share one vertex count"),
        "consistency": MetricInfo("rate", True, "all objects have the same vertex count"),
    }

    def __init__(self, shape: str) -> None:
        self.shape = shape
        self.task = f"counting-{shape}"  # type: ignore[misc]
        self.name = f"counting-{shape}-resnet"  # type: ignore[misc]

    @property
    def version(self) -> int:  # type: ignore[override]
        pin = _pins().get(f"counting-{self.shape}.safetensors") or {}
        return 3 if pin.get("open_set") else 2

    def weights_sha256(self) -> str | None:
        pin = _pins().get(f"counting-{self.shape}.safetensors")
        return pin["sha256"] if pin and weights_path(self.shape).exists() else None

    def score(self, images: np.ndarray, *, reference: Dataset | None, index: np.ndarray | None,
              device: str = "cpu", batch_size: int = 256, progress: bool = False) -> dict[str, np.ndarray]:
        return classify(self.shape, images, device=device, batch_size=batch_size, progress=progress)

    def diagnose(self, per_sample: dict[str, np.ndarray]) -> list[str]:
        note = collapse_note(per_sample["objects"], per_sample["accuracy"])
        return [note] if note else []

    def describe(self, per_sample: dict[str, np.ndarray]) -> list[str]:
        note = spread_note(per_sample["objects"], per_sample["consistency"])
        return [note] if note else []


POLYGONS = CountingEvaluator("polygons")
STARS = CountingEvaluator("stars")
