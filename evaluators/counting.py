"""Counting Polygons / Stars evaluator: a multi-head ResNet classifier per object type.

Heads (one shared trunk):

- ``pair``: the unordered pair of digits shown, 45 classes {a <= b} of 1-9;
- ``objects``: the number of objects, 1-9;
- ``vertices``: which vertex counts occur among the objects (multi-label, one sigmoid per
  count in the task's range: polygons 3-7, stars 2-9).

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
counting-polygons|counting-stars`` on classifier-mode images (see the generator); the
shipped fp16 weights are SHA-256 checked at load.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import click
import numpy as np

from srm_bench.dataset import Dataset
from srm_bench.errors import ChecksumError, SrmBenchError
from srm_bench.evaluation import MetricInfo, TaskEvaluator

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).parent / "weights"
PINS_FILE = WEIGHTS_DIR / "counting-weights.json"
VERTEX_RANGES = {"polygons": (3, 7), "stars": (2, 9)}
WIDTH = 24  # channels of the stem; the ResNet-50 stages have 4 x (1, 2, 4, 8) x WIDTH outputs
LAYERS = (3, 4, 6, 3)
PAIRS = [(a, b) for a in range(1, 10) for b in range(a, 10)]
PAIR_INDEX = {p: i for i, p in enumerate(PAIRS)}
MEAN, STD = 0.5, 0.25


def pair_index(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Class index of the unordered digit pairs {a, b} (arrays of digits 1-9)."""
    lo, hi = np.minimum(a, b).astype(np.int64), np.maximum(a, b).astype(np.int64)
    # Row lo (1-based) of the upper triangle starts after sum_{j<lo} (10 - j) entries.
    return (lo - 1) * 9 - (lo - 1) * (lo - 2) // 2 + (hi - lo)


# ---------------------------------------------------------------------------- model

def build_model(n_vertex_classes: int, width: int = WIDTH, layers: tuple[int, ...] = LAYERS):
    """The classifier: a ResNet-50-layout trunk of torchvision Bottleneck blocks and three heads.

    The stem is one 3x3 stride-2 convolution (no max-pool): the inputs are only 128 pixels
    wide and the stars' spikes are about one pixel thin.
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
            self.pair = nn.Linear(inplanes, len(PAIRS))
            self.objects = nn.Linear(inplanes, 9)
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


def to_unit(images, device: str):
    """uint8 NHWC images (numpy or tensor) -> float32 NCHW in [0, 1] (channels-last) on ``device``."""
    import torch

    x = torch.as_tensor(images).to(device, non_blocking=True)
    # permute gives an NCHW view whose strides are already channels-last
    return x.permute(0, 3, 1, 2).float() / 255.0


def to_input(images, device: str):
    """uint8 NHWC images (numpy or tensor) -> normalised float32 NCHW (channels-last) on ``device``."""
    return (to_unit(images, device) - MEAN) / STD


# Training-time degradations (``--augment``), mild enough that a person still reads every
# count: JPEG re-encoding of some training images (made once, on the CPU), and per batch a
# Gaussian blur and Gaussian pixel noise on random subsets (on the device).
AUGMENT = {"jpeg_p": 0.25, "jpeg_quality": (70, 95), "blur_p": 0.3, "blur_sigma": (0.3, 0.9),
           "noise_p": 0.4, "noise_sd": (0.0, 10.0 / 255)}


def jpeg_some(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Re-encode a random ``AUGMENT['jpeg_p']`` share of uint8 NHWC ``images`` as JPEG (in place)."""
    import io

    from PIL import Image

    lo, hi = AUGMENT["jpeg_quality"]
    pick = rng.random(len(images)) < AUGMENT["jpeg_p"]
    quality = rng.integers(lo, hi + 1, len(images))
    for i in np.flatnonzero(pick):
        buf = io.BytesIO()
        Image.fromarray(images[i]).save(buf, format="JPEG", quality=int(quality[i]))
        images[i] = np.asarray(Image.open(buf).convert("RGB"))
    return images


def degrade_batch(x, gen):
    """Blur and noise random subsets of a float NCHW batch in [0, 1], drawing from ``gen``."""
    import torch
    import torch.nn.functional as F

    b, c, h, w = x.shape
    u = torch.rand(b, 4, device=x.device, generator=gen)
    slo, shi = AUGMENT["blur_sigma"]
    sigma = torch.where(u[:, 0] < AUGMENT["blur_p"], slo + (shi - slo) * u[:, 1], 0.0)
    taps = torch.arange(-2, 3, device=x.device, dtype=x.dtype)
    kernel = torch.exp(-taps ** 2 / (2 * sigma.clamp_min(1e-3)[:, None] ** 2))  # sigma 0 -> a delta
    kernel = (kernel / kernel.sum(1, keepdim=True)).repeat_interleave(c, 0)  # (b * c, 5)
    y = x.reshape(1, b * c, h, w)
    y = F.conv2d(F.pad(y, (2, 2, 0, 0), mode="reflect"), kernel[:, None, None, :], groups=b * c)
    y = F.conv2d(F.pad(y, (0, 0, 2, 2), mode="reflect"), kernel[:, None, :, None], groups=b * c)
    nlo, nhi = AUGMENT["noise_sd"]
    sd = torch.where(u[:, 2] < AUGMENT["noise_p"], nlo + (nhi - nlo) * u[:, 3], 0.0)
    noise = torch.randn(y.shape, device=x.device, generator=gen, dtype=x.dtype).reshape(b, c, h, w)
    return (y.reshape(b, c, h, w) + sd[:, None, None, None] * noise).clamp(0.0, 1.0)


def decode(outputs: dict[str, Any], vmin: int) -> dict[str, np.ndarray]:
    """Per-image readings from the heads' logits: digits, objects, vertex set, metrics."""
    pair = outputs["pair"].argmax(1).cpu().numpy()
    pairs = np.array(PAIRS)[pair]
    objects = outputs["objects"].argmax(1).cpu().numpy() + 1
    present = (outputs["vertices"] > 0).cpu().numpy()
    consistent = present.sum(1) == 1
    top = outputs["vertices"].argmax(1).cpu().numpy() + vmin  # the head's single best vertex count
    vertices = np.where(consistent, present.argmax(1) + vmin, 0)
    accurate = (np.minimum(pairs[:, 0], pairs[:, 1]) == np.minimum(objects, top)) & (
        np.maximum(pairs[:, 0], pairs[:, 1]) == np.maximum(objects, top))
    bits = (present * (1 << np.arange(present.shape[1]))).sum(1)
    return {"accuracy": accurate, "strict_accuracy": accurate & consistent, "consistency": consistent,
            "digit_a": pairs[:, 0], "digit_b": pairs[:, 1],
            "objects": objects, "vertices": vertices, "vertex_set": bits << vmin}


# ---------------------------------------------------------------------------- weights

def weights_path(shape: str) -> Path:
    return WEIGHTS_DIR / f"counting-{shape}.safetensors"


def _pins() -> dict[str, Any]:
    try:
        return json.loads(PINS_FILE.read_text())
    except (OSError, ValueError):
        return {}


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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
    model = build_model(vmax - vmin + 1, width=int(pin.get("width", WIDTH)))
    model.load_state_dict({k: v.float() for k, v in load(data).items()})
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

    version: ClassVar[int] = 2  # 2: accuracy is the paper's rule, strict_accuracy is version 1's accuracy
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "accuracy": MetricInfo("rate", True, "{digit a, digit b} == {#objects, #vertices} as read (the paper's rule)"),
        "strict_accuracy": MetricInfo("rate", True, "accuracy and all objects share one vertex count"),
        "consistency": MetricInfo("rate", True, "all objects have the same vertex count"),
    }

    def __init__(self, shape: str) -> None:
        self.shape = shape
        self.task = f"counting-{shape}"  # type: ignore[misc]
        self.name = f"counting-{shape}-resnet"  # type: ignore[misc]

    def weights_sha256(self) -> str | None:
        pin = _pins().get(f"counting-{self.shape}.safetensors")
        return pin["sha256"] if pin and weights_path(self.shape).exists() else None

    def score(self, images: np.ndarray, *, reference: Dataset | None, index: np.ndarray | None,
              device: str = "cpu", batch_size: int = 256, progress: bool = False) -> dict[str, np.ndarray]:
        return classify(self.shape, images, device=device, batch_size=batch_size, progress=progress)


# ---------------------------------------------------------------------------- training

def labels_of(items: dict[str, np.ndarray], shape: str) -> dict[str, np.ndarray]:
    """Training targets from a shard's compact items."""
    vmin, vmax = VERTEX_RANGES[shape]
    present = np.zeros((len(items["n_objects"]), vmax - vmin + 1), dtype=np.float32)
    for v in range(vmin, vmax + 1):
        present[:, v - vmin] = (items["object_vertices"] == v).any(1)
    return {"pair": pair_index(items["numbers"][:, 0], items["numbers"][:, 1]),
            "objects": items["n_objects"].astype(np.int64) - 1, "vertices": present}


def _make_block(args: tuple[str, str, int, str | None, int, int, bool]
                ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    shape, split, seed, backgrounds, start, stop, jpeg = args
    from srm_bench.generators.counting import POLYGONS, STARS

    gen = POLYGONS if shape == "polygons" else STARS
    config = gen.make_config(split, seed, mode="classifier", backgrounds=backgrounds)
    items = gen.generate_items(config, {}, start, stop)
    images = gen.render(config, {}, items)
    if jpeg:  # per-block stream: the same images whatever the number of workers
        jpeg_some(images, np.random.default_rng([seed, 0x1EC, start]))
    return images, labels_of(items, shape), items


def make_classifier_data(shape: str, split: str, n: int, seed: int, workers: int, backgrounds: str | None = None,
                         block: int = 1000, jpeg: bool = False
                         ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``n`` classifier-mode images of ``split`` with their targets and items, made by ``workers`` processes.

    ``jpeg``: re-encode a random share of the images as JPEG (training augmentation).
    """
    from concurrent.futures import ProcessPoolExecutor

    jobs = [(shape, split, seed, backgrounds, s, min(n, s + block), jpeg) for s in range(0, n, block)]
    images = np.empty((n, 128, 128, 3), dtype=np.uint8)
    targets: dict[str, list[np.ndarray]] = {}
    items: dict[str, list[np.ndarray]] = {}

    def collect(results) -> None:
        for (*_, start, stop, _jpeg), (img, tgt, it) in zip(jobs, results):
            images[start:stop] = img
            for k, v in tgt.items():
                targets.setdefault(k, []).append(v)
            for k, v in it.items():
                items.setdefault(k, []).append(v)

    if workers <= 1:
        collect(map(_make_block, jobs))
    else:
        with ProcessPoolExecutor(workers) as ex:
            collect(ex.map(_make_block, jobs))
    return images, {k: np.concatenate(v) for k, v in targets.items()}, {k: np.concatenate(v) for k, v in items.items()}


def head_accuracy(readings: dict[str, np.ndarray], items: dict[str, np.ndarray], shape: str) -> dict[str, float]:
    """Held-out accuracy of each head (and of the two derived metrics) against the true labels."""
    vmin, vmax = VERTEX_RANGES[shape]
    truth = labels_of(items, shape)
    got_pair = pair_index(readings["digit_a"], readings["digit_b"])
    want_bits = (truth["vertices"].astype(np.int64) * (1 << np.arange(vmax - vmin + 1))).sum(1) << vmin
    consistent = items["consistent"].astype(bool)
    return {
        "pair": float(np.mean(got_pair == truth["pair"])),
        "objects": float(np.mean(readings["objects"] - 1 == truth["objects"])),
        "vertices": float(np.mean(readings["vertex_set"] == want_bits)),
        "consistency": float(np.mean(readings["consistency"] == consistent)),
        "accuracy": float(np.mean(readings["strict_accuracy"] == items["rule_ok"].astype(bool))),
    }


def _checkpoint_config(shape: str, **kw: Any) -> dict[str, Any]:
    return {"task": f"counting-{shape}", "width": WIDTH, "layers": list(LAYERS), **kw}


def _save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    torch.save(state, tmp)
    tmp.replace(path)


def _load_checkpoint(path: Path, config: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint written by ``_save_checkpoint`` for the same ``config``, or a clear error."""
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        saved = state["config"]
    except Exception as e:  # truncated, not a checkpoint, unreadable
        raise SrmBenchError(f"{path}: not a readable training checkpoint ({type(e).__name__}); "
                            "delete it to start afresh") from None
    differ = [f"{k}={saved.get(k)!r} (now {v!r})" for k, v in config.items() if saved.get(k) != v]
    if differ:
        raise SrmBenchError(f"{path} belongs to another run: {', '.join(differ)}; "
                            "use the same options, another --checkpoint, or delete it")
    return state


def train_classifier(shape: str, *, n_train: int, n_test: int, steps: int, max_seconds: float | None,
                     batch_size: int, lr: float, device: str, workers: int, seed: int,
                     backgrounds: str | None = None, progress: bool = True, checkpoint: Path | None = None,
                     checkpoint_every: float = 120.0, n_canonical: int = 500, augment: bool = False,
                     init: Path | None = None) -> tuple[Any, dict[str, Any]]:
    """Train one classifier on fresh classifier-mode images; return it and a report.

    Training images use the train backgrounds (dataset seed ``seed``); the held-out images
    the test backgrounds (seed ``seed + 1``), embedded photos or the ``backgrounds``
    folder. ``max_seconds`` stops training early (the report then says how many of the
    ``steps`` ran).

    With ``checkpoint``, the model, optimiser and batch-sampler state are written there
    (atomically) every ``checkpoint_every`` seconds and when training stops early; a run
    that finds a checkpoint of the same configuration continues from it, drawing the
    same batches an uninterrupted run would (the images are remade from the seed).

    ``augment`` degrades training images (``AUGMENT``: JPEG, blur, noise); held-out images
    stay clean. ``init`` starts from a weights file of this task (fine-tuning) instead of
    a random initialisation.
    """
    import torch
    import torch.nn.functional as F
    from tqdm.auto import tqdm

    init_sha = file_sha256(Path(init)) if init is not None else None
    config = _checkpoint_config(shape, steps=steps, batch_size=batch_size, lr=lr, seed=seed, n_train=n_train,
                                backgrounds=backgrounds or "embedded", augment=augment, init=init_sha)
    # Checkpoint and --init are checked before the images are made, so a bad file fails at once.
    state = _load_checkpoint(Path(checkpoint), config) if checkpoint is not None and Path(checkpoint).exists() else None
    torch.manual_seed(seed)
    vmin, vmax = VERTEX_RANGES[shape]
    model = build_model(vmax - vmin + 1)
    if init is not None:
        from safetensors.torch import load_file

        try:
            model.load_state_dict({k: v.float() for k, v in load_file(str(init)).items()})
        except Exception as e:
            raise SrmBenchError(f"{init}: not weights of the counting-{shape} classifier "
                                f"({type(e).__name__}); pass a file written by this command") from None

    t0 = time.perf_counter()
    images, targets, _ = make_classifier_data(shape, "train", n_train, seed, workers, backgrounds, jpeg=augment)
    test_images, _, test_items = make_classifier_data(shape, "test", n_test, seed + 1, workers, backgrounds)
    gen_s = time.perf_counter() - t0
    log.info("made %d + %d images in %.1f s", n_train, n_test, gen_s)

    cuda = device.startswith("cuda")
    if cuda:
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    model = model.to(device, memory_format=torch.channels_last)
    data = torch.from_numpy(images).to(device)
    tgt = {k: torch.from_numpy(v).to(device) for k, v in targets.items()}
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05, betas=(0.9, 0.999))
    autocast = torch.autocast(device_type="cuda" if cuda else "cpu", dtype=torch.bfloat16, enabled=cuda)
    gen = torch.Generator(device=device).manual_seed(seed)

    def step_fn(step: int, total: int) -> float | None:
        warm = max(1, total // 30)
        f = step / warm if step < warm else 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))
        for g in opt.param_groups:
            g["lr"] = lr * f
        idx = torch.randint(0, len(data), (batch_size,), device=device, generator=gen)
        with autocast:
            x = to_unit(data[idx], device)
            if augment:
                with torch.autocast(device_type=x.device.type, enabled=False):
                    x = degrade_batch(x, gen)
            out = model((x - MEAN) / STD)
            loss = (F.cross_entropy(out["pair"].float(), tgt["pair"][idx])
                    + F.cross_entropy(out["objects"].float(), tgt["objects"][idx])
                    + F.binary_cross_entropy_with_logits(out["vertices"].float(), tgt["vertices"][idx]))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return float(loss.detach()) if step % 100 == 0 or step == total - 1 else None

    start, last, before_s = 0, None, 0.0
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        gen.set_state(state["sampler"])
        start, last, before_s = int(state["step"]), state["last_loss"], float(state["train_seconds"])
        log.info("resuming from %s at step %d of %d", checkpoint, start, steps)

    def save(step: int) -> None:
        if checkpoint is not None:
            _save_checkpoint(Path(checkpoint), {
                "config": config, "step": step, "last_loss": last, "sampler": gen.get_state(),
                "train_seconds": before_s + time.perf_counter() - t1,
                "model": model.state_dict(), "optimizer": opt.state_dict()})

    model.train()
    t1 = saved_at = time.perf_counter()
    bar = tqdm(range(start, steps), initial=start, total=steps, disable=not progress,
               desc=f"train counting-{shape}", unit="step")
    done = steps
    for s in bar:
        loss = step_fn(s, steps)
        if loss is not None:
            last = loss
            bar.set_postfix(loss=f"{loss:.4f}")
            log.info("step %d loss %.4f (%.0f s)", s, loss, time.perf_counter() - t1)
        now = time.perf_counter()
        if max_seconds is not None and now - t1 > max_seconds and s + 1 < steps:
            done = s + 1
            save(done)
            log.warning("stopped at step %d of %d: --max-seconds %.0f reached%s", done, steps, max_seconds,
                        f"; run the same command again to continue from {checkpoint}" if checkpoint else "")
            break
        if checkpoint is not None and now - saved_at > checkpoint_every and s + 1 < steps:
            save(s + 1)
            saved_at = time.perf_counter()
    bar.close()
    if cuda:
        torch.cuda.synchronize()
    train_s = before_s + time.perf_counter() - t1
    model.eval()
    readings = classify(shape, test_images, device=device, batch_size=512, model=model)
    canonical = canonical_check(shape, model, device, n=n_canonical)
    report = {
        "task": f"counting-{shape}", "steps": steps, "steps_done": done, "batch_size": batch_size, "lr": lr,
        "seed": seed, "n_train": n_train, "n_test": n_test, "images_seen": done * batch_size, "last_loss": last,
        "resumed_at_step": start, "augment": AUGMENT if augment else None, "init_sha256": init_sha,
        "train_seconds": round(train_s, 1), "generation_seconds": round(gen_s, 1),
        "device": torch.cuda.get_device_name() if cuda else device,
        "held_out": head_accuracy(readings, test_items, shape),
        "canonical_test": canonical,
        "backgrounds": backgrounds or "embedded", "width": WIDTH, "layers": list(LAYERS),
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    return model, report


def canonical_check(shape: str, model: Any, device: str, n: int = 500) -> dict[str, float]:
    """Mean accuracy and consistency the model gives the benchmark test split (seed 0, rule kept)."""
    from srm_bench.generators.counting import POLYGONS, STARS

    gen = POLYGONS if shape == "polygons" else STARS
    config = gen.make_config("test", 0)
    images = gen.render(config, {}, gen.generate_items(config, {}, 0, n))
    got = classify(shape, images, device=device, batch_size=512, model=model)
    return {"accuracy": float(got["accuracy"].mean()), "consistency": float(got["consistency"].mean())}


def save_weights(model: Any, shape: str, out: Path, report: dict[str, Any]) -> dict[str, Any]:
    """Write fp16 safetensors (with the report in its metadata) and return its pin entry."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    path = out / f"counting-{shape}.safetensors"
    state = {k: v.detach().to("cpu").half().contiguous() if v.is_floating_point() else v.detach().to("cpu").contiguous()
             for k, v in model.state_dict().items()}
    tmp = path.with_name(f".{path.name}.tmp")
    save_file(state, str(tmp), metadata={"report": json.dumps(report)})
    tmp.chmod(0o644)
    tmp.replace(path)
    return {"sha256": file_sha256(path), "bytes": path.stat().st_size, "width": report["width"],
            "held_out": report["held_out"], "steps": report["steps"], "steps_done": report["steps_done"]}


def make_train_command(shape: str) -> click.Command:
    """The ``srm-bench train-evaluator counting-<shape>`` command."""

    @click.command(f"counting-{shape}")
    @click.option("-o", "--out", type=click.Path(path_type=Path), default=Path("counting-weights"), show_default=True,
                  help="Folder for counting-<shape>.safetensors and its pin (counting-weights.json).")
    @click.option("--backgrounds", type=str, default=None, metavar="DIR",
                  help="Folder of background images, as for generate [default: the embedded photos].")
    @click.option("--n-train", type=int, default=600_000, show_default=True,
                  help="Training images, made at start and held in GPU memory (600,000 take 29 GB).")
    @click.option("--n-test", type=int, default=10_000, show_default=True, help="Held-out images (test backgrounds).")
    @click.option("--steps", type=int, default=12_000, show_default=True, help="Optimiser steps (cosine schedule).")
    @click.option("--max-seconds", type=float, default=None,
                  help="Stop training after this many seconds of this run: the checkpoint is kept, no weights "
                       "are written; rerun to go on.")
    @click.option("--batch-size", type=int, default=512, show_default=True)
    @click.option("--lr", type=float, default=2e-3, show_default=True)
    @click.option("--device", default="cuda", show_default=True)
    @click.option("--workers", type=int, default=16, show_default=True, help="Processes that make the images.")
    @click.option("--seed", type=int, default=0, show_default=True)
    @click.option("--checkpoint", type=click.Path(path_type=Path, dir_okay=False), default=None,
                  help=f"Training state, saved every --checkpoint-every seconds and on an early stop; a rerun "
                       f"with the same options continues from it; removed once all steps ran "
                       f"[default: OUT/counting-{shape}.ckpt].")
    @click.option("--checkpoint-every", type=float, default=120.0, show_default=True, metavar="SECONDS")
    @click.option("--augment/--no-augment", default=False, show_default=True,
                  help="Degrade training images (JPEG re-encoding, blur, pixel noise) so that samples "
                       "which stray a little from a clean rendering are still read.")
    @click.option("--init", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
                  help="Start from these weights (fine-tuning) instead of a random initialisation.")
    def command(out: Path, backgrounds: str | None, n_train: int, n_test: int, steps: int, max_seconds: float | None,
                batch_size: int, lr: float, device: str, workers: int, seed: int, checkpoint: Path | None,
                checkpoint_every: float, augment: bool, init: Path | None) -> None:
        """Train the counting-SHAPE classifier from scratch on classifier-mode images.

        bf16 autocast and channels-last on CUDA. Prints the held-out accuracy of every
        head on a fresh split with the test backgrounds. The shipped weights come from the
        defaults (on one H200: about 90 s to make the images, 600 s of training):

        \b
            srm-bench train-evaluator counting-stars -o evaluators/weights
            srm-bench train-evaluator counting-polygons -o evaluators/weights

        each run in two parts of at most 10 minutes: first with --max-seconds 300 (stars) or
        330 (polygons), then the same command again, which continued from the checkpoint.
        evaluators/weights/counting-weights.json records the held-out figures.
        """
        for name, v in (("--n-train", n_train), ("--n-test", n_test), ("--steps", steps), ("--batch-size", batch_size),
                        ("--workers", workers)):
            if v < 1:
                raise SrmBenchError(f"{name} must be at least 1 (got {v})")
        from srm_bench.cli import progress_enabled
        from srm_bench.io import write_json_atomic

        progress = progress_enabled()
        checkpoint = checkpoint or Path(out) / f"counting-{shape}.ckpt"
        model, report = train_classifier(shape, n_train=n_train, n_test=n_test, steps=steps, max_seconds=max_seconds,
                                         batch_size=batch_size, lr=lr, device=device, workers=workers, seed=seed,
                                         backgrounds=backgrounds, progress=progress, checkpoint=checkpoint,
                                         checkpoint_every=checkpoint_every, augment=augment, init=init)
        if report["steps_done"] < steps:  # a part of the run: keep whatever weights OUT holds
            click.echo(json.dumps(report, indent=2))
            click.echo(f"stopped after {report['steps_done']} of {steps} steps; no weights written; run the same "
                       f"command again to continue from {checkpoint}", err=True)
            return
        pin = save_weights(model, shape, Path(out), report)
        checkpoint.unlink(missing_ok=True)
        pins_path = Path(out) / PINS_FILE.name
        pins = json.loads(pins_path.read_text()) if pins_path.exists() else {}
        pins[f"counting-{shape}.safetensors"] = pin
        write_json_atomic(pins_path, pins)
        click.echo(json.dumps(report, indent=2))

    command.help = (command.help or "").replace("SHAPE", shape)
    return command


POLYGONS = CountingEvaluator("polygons")
STARS = CountingEvaluator("stars")
