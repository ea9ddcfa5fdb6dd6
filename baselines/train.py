"""Training loop for the SRM and DDPM baselines.

AdamW (betas 0.95, 0.999, weight decay 1e-6), linear warm-up, grad-norm clipping, EMA
(with the usual warm-up min(decay, (1 + step) / (10 + step)) so short runs have useful
EMA weights), bf16 autocast on CUDA, optional torch.compile, DDP when started by
``torchrun`` (NCCL on GPUs, gloo on CPU), checkpoints that carry their config, resume
after interruption, a CSV log and a progress bar.

The loop of :func:`train`: make a batch -> :func:`train_step` -> log -> maybe evaluate -> maybe
checkpoint; :class:`TrainState` is what a checkpoint (``last.pt``) holds.

Randomness of step k on rank r comes from (seed, r, k), so a resumed run draws exactly
what the uninterrupted run would have drawn.
"""
from __future__ import annotations

import csv
import logging
import math
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, cast

import numpy as np
import torch
import torch.distributed as dist
from tqdm.auto import tqdm

from srm_bench.errors import SrmBenchError

from .cellnet import CellNet, CellNetConfig
from .dit import DiT, DiTConfig
from .losses import CLASS_TARGETS, LossWeights, srm_loss
from .noise import NoisePath
from .presets import TrainConfig
from .diffusion import pixel_levels
from .streams import STREAMS, make_stream
from .tsampling import DeviceLevelSampler, TSamplingConfig, rerank_levels
from .unet import UNet, UNetConfig

log = logging.getLogger(__name__)
CHECKPOINT_FORMAT = "srm-bench-baseline"
CHECKPOINT_VERSION = 1
CSV_FIELDS = ["step", "images", "loss", "mse", "vlb", "nll", "cls", "pmse", "imse", "lr", "grad_norm", "steps_per_s", "images_per_s",
              "elapsed_s"]
# ``error``: the mean of the task's error metric where its evaluator has one (Even Pixels: the
# paper's #E, the colour-count gap; Sudoku: L1), a finer progress signal than accuracy on a few
# samples (docs/even-pixels-baselines.md, second lease).
# nfe and eta came later: a run resumed from an older eval.csv keeps its rows, with these blank (CsvLog)
# ``consistency`` and ``top_objects`` (Counting only, later still): the share of samples whose objects the evaluator
# reads as sharing one vertex count, and the largest share of samples read with one object count (near 1: the
# samples collapse to one count, as our small Counting SRMs' do to one object); both say whether a network draws the
# task's objects, which its accuracy on a few samples cannot (docs/baselines.md, "Counting: the capacity race").
# Counting SRMs also log a "numbers" row (sampler column): the test images given but for the patches their numbers
# touch, drawn in parallel; its accuracy is the share of images whose two numbers the network writes right when every
# object is given (_numbers_job; fifty-eighth session, benchmarks/probe_write_count.py: `small-s2` at 2.7M and 6.1M
# images wrote none right, `half-s2` wrote 3% right at 2.5M images and 16% at 4.9M).
# ``overlap`` (last): the predicted-order row's overlap (blank for parallel rows and in rows logged before it came, in
# the fifty-ninth session, when Counting's gauge moved from 0 to 0.95: TaskSpec.gauge_overlap).
EVAL_FIELDS = ["step", "images", "gpu_hours", "split", "sampler", "count", "accuracy", "error", "elapsed_s", "nfe",
               "eta", "consistency", "top_objects", "overlap"]
ERROR_SCORES = ("error", "l1")
WEIGHTS_FILE = "weights.safetensors"
WEIGHTS_EMA2_FILE = "weights-ema2.safetensors"  # the second EMA (--ema-decay2)


def build_model(arch: str, model: dict[str, Any]) -> torch.nn.Module:
    """A UNet or DiT from its config dict (as stored in checkpoints).

    Raises:
        SrmBenchError: unknown architecture or bad config.
    """
    d: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in model.items()}
    if arch == "unet":
        return UNet(UNetConfig(**d))
    if arch == "dit":
        return DiT(DiTConfig(**d))
    if arch == "cellnet":
        return CellNet(CellNetConfig(**d))
    raise SrmBenchError(f"unknown architecture {arch!r}; valid: unet, dit, cellnet")


@dataclass
class TrainData:
    """Training images as uint8 NHWC in memory, and the known-patch mask (Sudoku givens)."""

    images: torch.Tensor
    known: np.ndarray | None
    content_sha256: str
    count: int


def load_train_data(path: str | Path, cfg: TrainConfig) -> TrainData:
    """Load a generated train split (``srm_bench.load_dataset``) for ``cfg.task``.

    Raises:
        SrmBenchError: another task, or the wrong image shape for the model.
    """
    from srm_bench.dataset import load_dataset

    ds = load_dataset(path)
    if ds.task != cfg.task:
        raise SrmBenchError(f"{path}: is a {ds.task} dataset, but the run trains on {cfg.task}; pass --data for {cfg.task}")
    images = np.ascontiguousarray(ds.images())
    size, ch = cfg.model["image_size"], cfg.model["in_channels"]
    if images.shape[1:] != (size, size, ch):
        raise SrmBenchError(f"{path}: images are {images.shape[1:]}, the model wants {(size, size, ch)}")
    known = None
    if "mask" in ds.items:
        known = np.asarray(ds.items["mask"], dtype=bool).reshape(len(images), -1)
    return TrainData(torch.from_numpy(images), known, ds.content_sha256, len(images))


def _dist() -> tuple[int, int, int]:
    """(rank, world size, local rank); initialises the process group under torchrun."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and not dist.is_initialized():
        backend = "nccl" if torch.cuda.is_available() else "gloo"
        dist.init_process_group(backend)
    rank = dist.get_rank() if dist.is_initialized() else 0
    local = int(os.environ.get("LOCAL_RANK", "0"))
    return rank, (dist.get_world_size() if dist.is_initialized() else 1), local


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """torch.save to a temporary file, then an atomic rename."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load a baseline checkpoint (weights only, no pickled code).

    Raises:
        SrmBenchError: missing, unreadable or not a baseline checkpoint.
    """
    path = Path(path)
    if not path.exists():
        raise SrmBenchError(f"{path}: no such checkpoint")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds for damaged files
        raise SrmBenchError(f"{path}: not a readable checkpoint ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise SrmBenchError(f"{path}: not an srm-bench baseline checkpoint")
    return state


def step_seed(seed: int, rank: int, step: int) -> int:
    """The torch seed of training step ``step`` on rank ``rank``: depends on nothing else."""
    return int(np.random.SeedSequence([int(seed), int(rank), int(step)]).generate_state(1, np.uint64)[0] >> 1)


def lr_at(step: int, cfg: TrainConfig, warm_from: int = 0) -> float:
    """Linear warm-up over ``cfg.warmup_steps`` steps counted from ``warm_from`` (a run
    continued with --init warms its fresh optimizer up again), then constant; with
    ``cfg.cooldown_steps`` it falls linearly to 0 over the last that many of ``cfg.steps``."""
    lr = cfg.lr * min(1.0, (step - warm_from + 1) / max(1, cfg.warmup_steps))
    if cfg.cooldown_steps > 0:
        lr *= min(1.0, max(0.0, (cfg.steps - step) / cfg.cooldown_steps))
    return lr


def save_weights(path: Path, ema: torch.nn.Module, cfg: TrainConfig, record: dict[str, Any]) -> None:
    """The EMA weights in bf16 as safetensors, with the config and the training record as
    metadata (what ``--init`` and ``sample`` need), written atomically. Parameters under the
    model's ``full_precision_prefixes`` (the UNet's global-context branch) stay float32."""
    import json

    from safetensors.torch import save_file

    keep = tuple(getattr(ema, "full_precision_prefixes", ()))

    def stored(k: str, v: torch.Tensor) -> torch.dtype:
        return (torch.float32 if keep and k.startswith(keep) else torch.bfloat16) if v.is_floating_point() else v.dtype

    tensors = {k: v.detach().to("cpu", stored(k, v)).contiguous() for k, v in ema.state_dict().items()}
    meta = {"format": "srm-bench-weights", "version": "1", "config": json.dumps(cfg.to_dict()),
            "record": json.dumps(record)}
    tmp = path.with_name(path.name + ".tmp")
    save_file(tensors, str(tmp), metadata=meta)
    os.replace(tmp, path)


def load_weights(path: str | Path) -> tuple[dict[str, torch.Tensor], TrainConfig, dict[str, Any]]:
    """(state dict in float32, config, training record) of a weights file.

    Raises:
        SrmBenchError: missing or unreadable file, or one without srm-bench metadata.
    """
    import json

    from safetensors import safe_open

    path = Path(path)
    if not path.exists():
        raise SrmBenchError(f"{path}: no such weights file")
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            state = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as exc:  # safetensors raises several kinds for damaged files
        raise SrmBenchError(f"{path}: not a readable safetensors file ({str(exc).splitlines()[0][:120]})") from None
    if meta.get("format") != "srm-bench-weights" or "config" not in meta:
        raise SrmBenchError(f"{path}: has no srm-bench metadata (config and training record); "
                            "pass a weights.safetensors written by 'srm-bench train'")
    cfg = TrainConfig.from_dict(json.loads(meta["config"]))
    record = json.loads(meta.get("record", "{}"))
    return {k: (v.float() if v.is_floating_point() else v) for k, v in state.items()}, cfg, record


def eval_samplers(budget: int = 100, class_head: bool = False, overlap: float = 0.0, eta: float = 0.0) -> dict[str, Any]:
    """The samplers scored during training: parallel and predicted order (with ``overlap``),
    ``budget`` NFE, at ``eta`` (0: deterministic, the reference code's predicted-order protocol;
    1: the paper's tables' protocol); for a model with a class head also predicted order ranked
    by the class entropy (``predicted-entropy``)."""
    from .schedules import SamplerConfig

    samplers = {"parallel": SamplerConfig(name="parallel", steps=budget, eta=eta),
                "predicted": SamplerConfig(name="sequential", order="predicted", steps=budget, eta=eta, overlap=overlap)}
    if class_head:
        samplers["predicted-entropy"] = SamplerConfig(name="sequential", order="predicted", steps=budget, eta=eta,
                                                      overlap=overlap, uncertainty="entropy")
    return samplers


def evaluate_model(model: torch.nn.Module, cfg: TrainConfig, device: str, *, count: int, splits: tuple[str, ...],
                   budget: int = 100, eta: float = 0.0, batch_size: int = 256) -> list[dict[str, Any]]:
    """Sample ``count`` items of each split with :func:`eval_samplers` (``budget`` NFE, ``eta``) and
    score them with the task's evaluator; one row (split, sampler, count, accuracy, nfe, eta; overlap for
    predicted order) per pair.

    Raises:
        SrmBenchError: the task has no evaluator.
    """
    from srm_bench.registry import get_task

    from .inference import sample_images

    spec = get_task(cfg.task)
    evaluator = getattr(spec.evaluator_module(), "EVALUATOR", None)
    if evaluator is None:
        raise SrmBenchError(f"{cfg.task} has no evaluator to score samples during training")
    rows = []
    was_training = model.training
    model.eval()
    for split in splits:
        ds = given = known = None
        indices = np.arange(count)
        if spec.conditional:
            from srm_bench.canonical import canonical_dataset

            ds = canonical_dataset(cfg.task, split)
            indices = np.arange(min(count, ds.count))
            given = ds.images(indices)
            known = np.asarray(ds.items["mask"][indices], dtype=bool).reshape(len(indices), -1)
        # Predicted order with the task's gauge overlap (Even Pixels: the paper's 0.95, without which it scores ~0 at
        # any stage of training, docs/even-pixels-baselines.md; Counting: 0.95, TaskSpec.gauge_overlap).
        jobs = [(name, sampler, given, known) for name, sampler in
                eval_samplers(budget, bool(cfg.model.get("classes", 0)), spec.predicted_gauge_overlap, eta).items()
                if cfg.baseline != "ddpm" or name == "parallel"]
        if spec.answer_patches and cfg.baseline != "ddpm":
            jobs.append(("numbers", *_numbers_job(spec.answer_patches, cfg, split, indices, budget, eta)))
        for name, sampler, job_given, job_known in jobs:
            images = sample_images(model, cfg, sampler, indices, seed=0, device=device, batch_size=batch_size,
                                   given=job_given, known=job_known)
            scores = evaluator.score(images, reference=ds, index=indices if ds is not None else None)
            row = {"split": split, "sampler": name, "count": len(indices), "accuracy": float(np.mean(scores["accuracy"])),
                   "nfe": sampler.steps, "eta": sampler.eta}
            if sampler.name == "sequential":
                row["overlap"] = sampler.overlap
            err = next((k for k in ERROR_SCORES if k in scores), None)
            if err is not None:
                row["error"] = float(np.mean(scores[err]))
            if "consistency" in scores:
                row["consistency"] = float(np.mean(scores["consistency"]))
            if "objects" in scores:
                row["top_objects"] = float(np.bincount(np.asarray(scores["objects"], dtype=np.int64)).max() / len(indices))
            rows.append(row)
    model.train(was_training)
    return rows


def _numbers_job(answer_patches: str, cfg: TrainConfig, split: str, indices: np.ndarray, budget: int,
                 eta: float) -> tuple[Any, ...]:
    """Counting's "numbers" row: the split's canonical images given but for the patches that hold their
    answer (``answer_patches``, the task's entry point: Counting's two numbers), which are drawn in parallel
    (``budget`` NFE, ``eta``): can the network write the count when every object is given? Its accuracy is
    the share written right (benchmarks/probe_write_count.py asks the same of a weights file)."""
    from srm_bench.canonical import canonical_dataset
    from srm_bench.registry import resolve_entry_point

    from .schedules import SamplerConfig

    ds = canonical_dataset(cfg.task, split)
    items = {k: v[indices] for k, v in ds.items.items()}
    touched = resolve_entry_point(answer_patches)(items, cfg.model["image_size"], cfg.model["patch_size"])
    return SamplerConfig(name="parallel", steps=budget, eta=eta), ds.images(indices), ~touched


def default_eval_splits(task: str) -> tuple[str, ...]:
    return ("easy", "medium") if task == "sudoku" else ("test",)


class CsvLog:
    """Append rows to a CSV (header written once), flushed after every row; rank 0 only."""

    def __init__(self, path: Path, fields: list[str], *, fresh: bool, enabled: bool) -> None:
        self.file = None
        if not enabled:
            return
        # An empty file is a log whose run was killed before its header reached the disk: written anew, since rows
        # appended to it would lie under no header, and the run's next start would refuse them
        new = fresh or not path.exists() or path.stat().st_size == 0
        if not new:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                header, old = reader.fieldnames, list(reader)
            if header and list(header) != fields:  # a log of an older version: rewrite it under today's header
                if not set(header) <= set(fields):
                    raise SrmBenchError(f"{path}: its columns {list(header)} are not a subset of {fields}; "
                                        "move the file away or start a fresh run")
                tmp = path.with_name(path.name + ".tmp")
                with open(tmp, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=fields)
                    w.writeheader()
                    w.writerows(old)
                tmp.replace(path)  # the old rows are never half-written
        self.file = open(path, "w" if new else "a", newline="")
        self.writer = csv.DictWriter(self.file, fieldnames=fields)
        if new:
            self.writer.writeheader()
            self.file.flush()  # a run killed before its first row still leaves its header

    def write(self, row: dict[str, Any]) -> None:
        if self.file is not None:
            self.writer.writerow(row)
            self.file.flush()

    def __enter__(self) -> "CsvLog":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.file is not None:
            self.file.close()


class SpikeGuard:
    """Tells a diverging run from a noisy one by its logged losses.

    A logged loss above ``factor`` times the median of the last ``window`` logged losses (once at
    least ``warm`` are there) is a spike. Across the 153 training logs committed under docs/runs and
    leaderboard/results (Sudoku, Even Pixels and Counting; batches 56-2048; logged every 50-100
    steps; ``python benchmarks/check_spike_guard.py``) no healthy run went above 1.40x that median;
    the two runs that diverged jumped 3.7x (the paper UNet's DDPM, lease 2026-12-02c) and 10.6x (a
    Sudoku CellNet, lease u, which had jumped 2.3x and recovered 3,500 steps before: the guard stops
    it there), and a third, whose loss later became NaN (lease o's `o-t4c`), had one log at 1.83x
    that the guard lets pass. A loss judged
    a spike does not enter the window. ``factor`` 0 turns the guard off. Not caught: a run that
    drifts up slowly, and a jump within the first ``warm`` logged steps of a process (a resumed run
    starts a new window).
    """

    def __init__(self, factor: float, window: int = 20, warm: int = 10) -> None:
        if factor != 0 and not factor > 1:  # NaN fails too
            raise SrmBenchError(f"--spike-guard must be 0 (off) or above 1 (a factor over the recent median loss), "
                                f"got {factor}")
        self.factor, self.window, self.warm = factor, window, warm
        self.losses: list[float] = []

    def median(self) -> float:
        recent = sorted(self.losses[-self.window:])
        mid = len(recent) // 2
        return recent[mid] if len(recent) % 2 else (recent[mid - 1] + recent[mid]) / 2

    def spiked(self, loss: float) -> bool:
        """Whether ``loss`` is a spike; a loss that is not joins the window."""
        if self.factor and len(self.losses) >= self.warm and loss > self.factor * self.median():
            return True
        self.losses.append(loss)
        return False


@dataclass
class TrainBatch:
    """One step's training inputs: noisy z, levels t (B, P), conditioning, clean x, noise eps,
    per-patch loss weights w (B, P), per-patch classes (B, P) where the data have them."""

    z: torch.Tensor
    t: torch.Tensor
    cond: torch.Tensor | None
    x: torch.Tensor
    eps: torch.Tensor
    w: torch.Tensor
    labels: torch.Tensor | None = None

    def astuple(self) -> tuple[Any, ...]:
        return self.z, self.t, self.cond, self.x, self.eps, self.w, self.labels


class BatchMaker:
    """``make_batch(step)``: the batch of a step on one rank, a function of (seed, rank, step)
    alone, so a resumed run draws what the uninterrupted run would have drawn.

    Data come from a device stream (``stream``) or a generated split (``data``: indices drawn
    on the host, images gathered from pinned memory); levels and weights from
    :class:`DeviceLevelSampler`; the conditional DDPM also gets [mask, masked image].
    """

    def __init__(self, cfg: TrainConfig, device: torch.device, *, rank: int, local_batch: int,
                 stream: Any = None, data: TrainData | None = None, tsampler: DeviceLevelSampler | None = None,
                 ranker: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None) -> None:
        if (stream is None) == (data is None):
            raise SrmBenchError("a batch maker needs exactly one of a device stream and a train split")
        self.cfg, self.device, self.rank, self.local_batch = cfg, device, rank, local_batch
        self.stream, self.data = stream, data
        self._next_draw: int | None = None  # the step a stream with a position (seek) expects next
        self.patch = cfg.model["patch_size"]
        self.grid = (cfg.model["image_size"] // self.patch,) * 2
        self.tsampler = tsampler or DeviceLevelSampler(TSamplingConfig(**cfg.tsampling), self.grid[0] * self.grid[1], device)
        self.path = NoisePath(cfg.noise_path, cfg.target)
        self.ddpm_cond = cfg.baseline == "ddpm" and bool(cfg.model.get("cond_channels", 0))
        # sequential_order "predicted": ``ranker(z, t)`` -> the predicted uncertainty (B, P) of states z at levels t
        if self.tsampler.config.sequential_order == "predicted" and ranker is None:
            raise SrmBenchError("sequential_order 'predicted' needs a ranker (the network's uncertainty of a state)")
        self.ranker = ranker if self.tsampler.config.sequential_order == "predicted" else None
        self.images = self.known = None
        if data is not None:
            self.images = data.images.pin_memory() if device.type == "cuda" else data.images
            self.known = None if data.known is None else torch.from_numpy(data.known)

    def __call__(self, step: int) -> TrainBatch:
        torch.manual_seed(step_seed(self.cfg.seed, self.rank, step))
        n, dev = self.local_batch, self.device
        labels = None
        if self.stream is not None:
            if hasattr(self.stream, "seek") and step != self._next_draw:
                # A stream whose content moves on with the draws (Counting's banks): one draw per
                # step, so a resumed run is served from the bank an uninterrupted run would use.
                self.stream.seek(step)
            self._next_draw = step + 1
            b = self.stream.draw(n)
            x, known, labels = b.x, b.known, b.labels
        else:
            assert self.data is not None and self.images is not None
            idx = torch.randint(0, self.data.count, (n,))
            x = self.images[idx].to(dev, non_blocking=True).permute(0, 3, 1, 2).float() / 127.5 - 1.0
            known = None if self.known is None else self.known[idx].to(dev, non_blocking=True)
        t, w = self.tsampler.sample(n, known)
        eps = torch.randn_like(x)
        rows = self.tsampler.last_mix_rows
        if self.ranker is not None and rows is not None:
            # The mix rows' noisy patches taken up in the order of the network's own uncertainty (the
            # most certain furthest along). It is read with every noisy patch at pure noise, as the
            # predicted-order sampler reads the patches it has not begun when it picks the next: read at
            # the drawn levels it would mostly echo them (a less noisy patch is a more certain one). The
            # set of clean patches and the weights (1 on the noisy ones) stay. The ranker draws no random
            # numbers: the batch stays a function of (seed, rank, step) and the EMA weights.
            # It reads the whole batch, the other rows' answers unused: the mix rows' count varies from step
            # to step (the completion rows leave it), and a network read at a new batch size each step (under
            # cudnn's autotuning, a new search each time) trained ~5x slower on the GPU (lease k's o-g16r)
            noisy = (t > 0) & rows[:, None]
            probe = t.masked_fill(noisy, 1.0)
            z0 = self.path.noise(x, eps, pixel_levels(probe, self.grid, self.patch))
            t = rerank_levels(t, self.ranker(z0, probe), noisy)
        z = self.path.noise(x, eps, pixel_levels(t, self.grid, self.patch))
        cond = None
        if self.ddpm_cond:
            if known is None:
                raise SrmBenchError("the conditional DDPM needs the given cells (a Sudoku split or stream)")
            kmask = pixel_levels(known.float(), self.grid, self.patch)
            cond = torch.cat([kmask, x * kmask], dim=1)
        return TrainBatch(z, t, cond, x, eps, w, labels)


def _setup_device(device: str | None, local: int) -> torch.device:
    if device is None:
        device = f"cuda:{local}" if torch.cuda.is_available() else "cpu"
    elif device == "cuda":
        device = f"cuda:{local}"
    dev = torch.device(device)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.benchmark = True
    return dev


LossFn = Callable[..., tuple[torch.Tensor, dict[str, torch.Tensor]]]


@dataclass
class TrainState:
    """What ``last.pt`` holds: the network, its EMA, the optimizer, the training record (step,
    images, gpu_hours, wall_s, init; world_size, device and data once saved) and the step the
    learning-rate warm-up counts from (a run continued with ``--init`` warms up again)."""

    cfg: TrainConfig
    model: torch.nn.Module
    ema: torch.nn.Module
    opt: torch.optim.Optimizer
    record: dict[str, Any]
    warm_from: int = 0
    ema2: torch.nn.Module | None = None  # the second EMA (cfg.ema_decay2 > 0)
    # Listed once, not every step: the EMA update is one foreach over them. load_state_dict
    # copies into these same tensors, so the lists stay valid after a load.
    ema_params: list[torch.Tensor] = field(init=False, repr=False, compare=False)
    ema2_params: list[torch.Tensor] = field(init=False, repr=False, compare=False)
    model_params: list[torch.Tensor] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.ema_params = list(self.ema.parameters())
        self.ema2_params = list(self.ema2.parameters()) if self.ema2 is not None else []
        self.model_params = list(self.model.parameters())

    @property
    def step(self) -> int:
        return int(self.record["step"])

    @classmethod
    def fresh(cls, cfg: TrainConfig, device: torch.device) -> TrainState:
        """Step 0: weights drawn from ``cfg.seed`` (the same on every rank and every run), EMA equal to them."""
        torch.manual_seed(cfg.seed)
        model = build_model(cfg.arch, cfg.model).to(device)
        emas = []
        for _ in range(2 if cfg.ema_decay2 else 1):
            ema = build_model(cfg.arch, cfg.model).to(device).eval()
            ema.load_state_dict(model.state_dict())
            for p in ema.parameters():
                p.requires_grad_(False)
            emas.append(ema)
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay,
                                fused=device.type == "cuda")
        record: dict[str, Any] = {"step": 0, "images": 0, "gpu_hours": 0.0, "wall_s": 0.0, "init": None}
        if len(emas) > 1:
            record["ema2_from"] = 0  # the step the second EMA began at
        return cls(cfg, model, emas[0], opt, record, ema2=emas[1] if len(emas) > 1 else None)

    @classmethod
    def load(cls, path: str | Path, cfg: TrainConfig, device: torch.device) -> TrainState:
        """The state saved in ``path`` (by :meth:`save`, or before TrainState existed) for the run ``cfg``.

        Raises:
            SrmBenchError: not a baseline checkpoint, or one of another baseline/task/preset/model.
        """
        saved = load_checkpoint(path)
        old = TrainConfig.from_dict(saved["config"])
        if old.identity() != cfg.identity():
            raise SrmBenchError(
                f"{path}: belongs to {old.baseline}/{old.task}/{old.preset}, not {cfg.baseline}/{cfg.task}/{cfg.preset} "
                "(or another model); use another --out or --no-resume"
            )
        state = cls.fresh(cfg, device)
        state.model.load_state_dict(saved["model"])
        state.ema.load_state_dict(saved["ema"])
        if state.ema2 is not None:  # a run that adds --ema-decay2 on resuming starts it from the first EMA
            state.ema2.load_state_dict(saved.get("ema2") or saved["ema"])
        state.opt.load_state_dict(saved["optimizer"])
        # Checkpoints older than the training record: rebuild it from their top-level keys.
        record: dict[str, Any] | None = saved.get("record")
        if not record:
            wall_s = float(saved.get("wall_s", 0.0))
            record = {"step": int(saved["step"]), "images": int(saved["step"]) * cfg.batch_size,
                      "gpu_hours": wall_s * int(saved.get("world_size", 1)) / 3600, "wall_s": wall_s, "init": None}
        state.record = dict(record)
        if state.ema2 is not None and not saved.get("ema2"):  # started from the first EMA just now
            state.record["ema2_from"] = state.step
        state.warm_from = int(saved.get("warm_from", 0))
        return state

    @classmethod
    def from_weights(cls, path: str | Path, cfg: TrainConfig, device: torch.device,
                     ema2_path: str | Path | None = None) -> TrainState:
        """``--init``: a fresh optimizer on the weights of ``path`` (model and EMA both), its step
        count, images and GPU-hours carried over, the warm-up counted from its step. The second EMA
        (``cfg.ema_decay2``) starts from the same weights, or with ``ema2_path`` (``--init-ema2``)
        from the second EMA that the same run wrote at the same step, so that it continues across
        machines. The record's ``ema2_from`` is the step the second EMA began at.

        Raises:
            SrmBenchError: not a weights file, weights of another baseline, task or network, or an
                ``ema2_path`` without a second EMA in ``cfg`` or of another step than ``path``.
        """
        weights, old, init_record = cls._weights_of(path, cfg)
        state = cls.fresh(cfg, device)
        if cfg.model.get("patch_pool") and not old.model.get("patch_pool"):
            # weights of the network without the patch pooling: its maps start at zero, as a fresh network's do,
            # so the network computes what the weights computed
            weights = {**{k: v for k, v in state.model.state_dict().items() if ".pool." in k}, **weights}
        if cfg.arch == "unet" and cfg.model.get("classes") and not old.model.get("classes"):
            # a UNet without a class head (unet-s-g16-gc into -cnt / -cls): the head starts as a fresh network's; it
            # reads the output features and feeds nothing back, so the denoiser computes what the weights computed
            weights = {**{k: v for k, v in state.model.state_dict().items() if k.startswith("class_head.")}, **weights}
        state.model.load_state_dict(weights)
        for ema in (state.ema, state.ema2):
            if ema is not None:
                ema.load_state_dict(weights)
        carried = ("step", "images", "gpu_hours", "wall_s", "squash_scale", "squashed_from")  # squash_context.py's
        record: dict[str, Any] = {**state.record, **{k: init_record[k] for k in carried if k in init_record}}
        record["init"] = {"file": str(path), "step": record["step"], "images": record["images"], "preset": old.preset}
        if state.ema2 is not None:
            record["ema2_from"] = int(record["step"])
        if ema2_path is not None:
            if state.ema2 is None:
                raise SrmBenchError(f"--init-ema2 {ema2_path}: the run keeps no second EMA; add --ema-decay2")
            weights2, _, record2 = cls._weights_of(ema2_path, cfg)
            if int(record2.get("step", -1)) != int(record["step"]):
                raise SrmBenchError(
                    f"--init-ema2 {ema2_path}: a second EMA of step {record2.get('step')}, but --init {path} is at step "
                    f"{record['step']}; pass the weights-ema2.safetensors written with those weights"
                )
            state.ema2.load_state_dict(weights2)
            # Where it began: its own record's ema2_from, else (written before ema2_from) the run's --init step.
            began = record2.get("ema2_from", (record2.get("init") or {}).get("step", 0))
            record["ema2_from"] = int(began)
        state.record, state.warm_from = record, int(record["step"])
        return state

    @staticmethod
    def _weights_of(path: str | Path, cfg: TrainConfig) -> tuple[dict[str, torch.Tensor], TrainConfig, dict[str, Any]]:
        """:func:`load_weights` of ``path``, refused unless it holds ``cfg``'s network."""
        weights, old, record = load_weights(path)
        # The network must match; the preset may differ (e.g. cell-aux-b7 fine-tunes cell-aux weights
        # with another uncertainty target, unet-s-g16-gct squashes unet-s-g16-gc's context features: the
        # same parameters; unet-s-g16-gcp adds zero-initialised patch poolings to them, unet-s-g16-gc-cnt a class
        # head), and the record names where the weights came from.
        classes = cfg.model.get("classes", 0) if cfg.arch == "unet" and not old.model.get("classes") else 0
        if _parameters_of(old, pooled=bool(cfg.model.get("patch_pool")), classes=classes) != _parameters_of(cfg):
            raise SrmBenchError(
                f"{path}: holds a {old.baseline}/{old.task}/{old.preset} model ({old.arch}), not "
                f"{cfg.baseline}/{cfg.task}/{cfg.preset} ({cfg.arch}); pass weights of the same baseline, task and network"
            )
        return weights, old, record

    def save(self, path: str | Path) -> None:
        """Write the state atomically, with the config, in the format :func:`load_checkpoint` reads.

        The top-level step, wall_s, world_size, dataset_sha256 and device repeat the record for
        readers of older checkpoints (``inference.py``, ``load`` of a record-less file).
        """
        rec = self.record
        save_checkpoint(Path(path), {
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "config": self.cfg.to_dict(), "step": self.step,
            "model": self.model.state_dict(), "ema": self.ema.state_dict(), "optimizer": self.opt.state_dict(),
            "wall_s": rec["wall_s"], "world_size": rec.get("world_size", 1), "dataset_sha256": rec.get("data"),
            "device": rec.get("device"), "record": rec, "warm_from": self.warm_from,
            **({"ema2": self.ema2.state_dict()} if self.ema2 is not None else {}),
        })


def _parameters_of(cfg: TrainConfig, pooled: bool = False, classes: int = 0) -> dict[str, Any]:
    """What fixes a network's parameters: its identity less the preset and the options that change only
    what the parameters compute (``context_squash``). ``pooled``: as if ``patch_pool`` were on (a network
    without it can start one with it: the poolings' own parameters start at zero). ``classes``: as if the
    UNet had a class head of that many classes (one without can start one with it; the head feeds nothing back)."""
    ident = {k: v for k, v in cfg.identity().items() if k != "preset"}
    ident["model"] = {k: v for k, v in ident["model"].items() if k != "context_squash"}
    if pooled and ident["arch"] == "unet":
        ident["model"]["patch_pool"] = True
    if classes and ident["arch"] == "unet":
        ident["model"]["classes"] = classes
    return ident


class GraphedGrads:
    """The forward, loss and backward of a training step, replayed as one captured CUDA graph
    (``--cuda-graph``).

    Compiled, the step of a small network waits on the host: ~80 ms of Python and ~2,600 kernel
    launches for 32 ms of device work at 512 images a GPU (docs/even-pixels-baselines.md,
    fourteenth lease). A replay launches them all at once. The inputs are copied into fixed
    buffers; every parameter's gradient is a view of one flat buffer, which each replay zeroes and
    fills; with several ranks the loop all-reduces that buffer to the mean (DDP's hooks cannot run
    inside a capture, so the network is not wrapped in DDP). Clipping, AdamW and the EMA stay
    outside the graph (a few fused launches), so the learning rate and the EMA decay may change
    from step to step. With ``capture`` False (no CUDA) the same sequence runs uncaptured: the
    CPU tests check it against the plain step.
    """

    def __init__(self, model: torch.nn.Module, loss_fn: LossFn, example: TrainBatch, *, world: int = 1,
                 capture: bool = True, warmup: int = 3) -> None:
        params = [p for p in model.parameters() if p.requires_grad]
        self.flat = torch.zeros(sum(p.numel() for p in params), device=params[0].device, dtype=params[0].dtype)
        offset = 0
        for p in params:
            p.grad = self.flat[offset:offset + p.numel()].view_as(p)
            offset += p.numel()
        self.loss_fn, self.world = loss_fn, world
        self.inputs = [None if v is None else v.clone() for v in example.astuple()]
        self.graph: torch.cuda.CUDAGraph | None = None
        if capture:
            # Warm up on a side stream (compilation, cuDNN's autotuning, lazy allocations), then capture.
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(warmup):
                    self._forward_backward()
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.outputs = self._forward_backward()

    def _forward_backward(self) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        self.flat.zero_()
        loss, parts = self.loss_fn(*self.inputs)
        loss.backward()
        return loss.detach(), {k: v.detach() for k, v in parts.items()}

    def __call__(self, batch: TrainBatch) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """The batch's loss and loss parts; the mean gradient over the ranks is in the parameters' ``.grad``."""
        for buf, value in zip(self.inputs, batch.astuple()):
            if (buf is None) != (value is None) or (buf is not None and buf.shape != value.shape):
                raise SrmBenchError("a CUDA-graph step needs batches of one shape; train without --cuda-graph")
            if buf is not None:
                buf.copy_(value)
        if self.graph is None:
            out = self._forward_backward()
        else:
            self.graph.replay()
            out = self.outputs
        if self.world > 1:
            dist.all_reduce(self.flat)
            self.flat.div_(self.world)
        return out


def make_loss_fn(cfg: TrainConfig, net: torch.nn.Module, device: torch.device, templates: Any = None) -> LossFn:
    """``loss_fn(z, t, cond, x, eps, w, labels) -> (loss, parts)``: the network's forward (bf16
    autocast on CUDA with ``cfg.bf16``) and :func:`srm_loss`; with ``cfg.compile`` compiled as
    one graph, the fastest variant in benchmarks/bench_unet.py."""
    path = NoisePath(cfg.noise_path, cfg.target)
    patch = cfg.model["patch_size"]
    weights_cfg = LossWeights(**cfg.loss)
    use_amp = cfg.bf16 and device.type == "cuda"
    # A captured graph must cast the weights afresh at every replay (the CUDA-graph notes of torch).
    cache = not cfg.cuda_graph

    def forward_loss(z: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None, x: torch.Tensor, eps: torch.Tensor,
                     w: torch.Tensor, labels: torch.Tensor | None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp, cache_enabled=cache):
            out = net(z, t, cond)
        return srm_loss(out, x, eps, z, t, w, path, patch, weights_cfg, labels, templates)

    return cast(LossFn, torch.compile(forward_loss)) if cfg.compile else forward_loss


def train_step(state: TrainState, loss_fn: LossFn, batch: TrainBatch, step: int, lr: float,
               graphed: GraphedGrads | None = None) -> tuple[torch.Tensor, dict[str, torch.Tensor], torch.Tensor]:
    """Step ``step`` on one batch: forward and loss, backward (``graphed``: its replay, gradients
    averaged over the ranks), grad-norm clipping, AdamW at ``lr``, EMA update. Returns (loss, loss
    parts, grad norm) as device tensors: reading them makes the host wait for the device, so the
    caller does it only on the steps it logs (a graph's outputs are overwritten by its next replay)."""
    for g in state.opt.param_groups:
        g["lr"] = lr
    if graphed is None:
        loss, parts = loss_fn(*batch.astuple())
        state.opt.zero_grad(set_to_none=True)
        loss.backward()
    else:
        loss, parts = graphed(batch)
    grad_norm = torch.nn.utils.clip_grad_norm_(state.model.parameters(), state.cfg.grad_clip)
    state.opt.step()
    decay = min(state.cfg.ema_decay, (1 + step) / (10 + step))
    with torch.no_grad():
        torch._foreach_lerp_(state.ema_params, state.model_params, 1.0 - decay)
        if state.ema2_params:
            decay2 = min(state.cfg.ema_decay2, (1 + step) / (10 + step))
            torch._foreach_lerp_(state.ema2_params, state.model_params, 1.0 - decay2)
    return loss, parts, grad_norm


def _check_options(cfg: TrainConfig, data: object, splits: tuple[str, ...], eval_every: int, eval_budget: int) -> None:
    """Refuse, before anything is written, a template target without class templates, a class
    target without a class head or labels, and an evaluation the task cannot run."""
    nll_target = LossWeights(**cfg.loss).nll_target
    if nll_target == "template" and (data is not None or not hasattr(STREAMS.get(cfg.task), "templates")):
        raise SrmBenchError(f"preset {cfg.preset}: the template uncertainty target needs the class templates of a "
                            "training stream; train without --data, on a task with classes (sudoku)")
    if nll_target in CLASS_TARGETS and (data is not None or not cfg.model.get("classes")):
        raise SrmBenchError(f"preset {cfg.preset}: the class uncertainty target needs a class head and the per-cell "
                            "labels of a training stream; train without --data, on a task with classes (sudoku, or "
                            "even-pixels with preset unet-s-g16-gc-cls)")
    if eval_every:
        from srm_bench.registry import get_task

        spec = get_task(cfg.task)
        for s in splits:
            spec.check_split(s)
        patches = spec.num_patches
        if eval_budget < patches:
            raise SrmBenchError(f"--eval-budget {eval_budget} is below the {patches} patches of {cfg.task}: the "
                                f"predicted-order sampler needs one evaluation per patch; pass --eval-budget >= {patches}")


def load_compile_cache(path: Path) -> bool:
    """Hot-load torch.compile's artifacts (its "mega-cache": the graphs, the generated kernels, the
    autotuning choices) that :func:`save_compile_cache` wrote, so that compiling the same step on a
    fresh machine reads them instead of generating them. False (with a warning) when the file is
    unreadable or of another torch: the step then compiles as without it. A missing file is False,
    silently (the first run writes it)."""
    import gzip

    if not path.exists():
        return False
    try:
        with gzip.open(path, "rb") as f:
            info = torch.compiler.load_cache_artifacts(f.read())
        why = "torch could not read its artifacts" if info is None else ""
    except Exception as exc:  # not gzip, truncated, or another torch's format
        why = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
    if why:
        log.warning("compile cache %s not used (%s); compiling without it", path, why)
        return False
    log.info("compile cache %s loaded", path)
    return True


def save_compile_cache(path: Path) -> int:
    """Write the artifacts of every compilation of this process so far (gzip; atomically), including
    those read from a loaded cache; the bytes written, 0 when there is nothing to save."""
    import gzip

    from srm_bench.io import atomic_output

    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        return 0
    with atomic_output(path) as tmp, gzip.open(tmp, "wb", compresslevel=6) as f:
        f.write(saved[0])
    return path.stat().st_size


def train(cfg: TrainConfig, data: str | Path | TrainData | None, out: str | Path, *, device: str | None = None,
          resume: bool = True, max_minutes: float | None = None, progress: bool = True, init: str | Path | None = None,
          eval_every: int = 0, eval_count: int = 64, eval_splits: tuple[str, ...] | None = None,
          eval_budget: int = 100, eval_eta: float = 0.0, compile_cache: str | Path | None = None,
          render_workers: int | None = None, init_ema2: str | Path | None = None,
          stop_at: float | None = None, spike_guard: float = 2.0) -> dict[str, Any]:
    """Train (or resume, or continue from weights) a baseline.

    Writes ``out/last.pt`` (full state, for resuming on the same machine), ``out/weights.safetensors``
    (EMA weights in bf16 with config and training record: small enough to commit, for ``--init``
    and sampling; with ``cfg.ema_decay2`` also ``out/weights-ema2.safetensors``, the second EMA),
    ``out/log.csv`` and, with ``eval_every``, ``out/eval.csv``.

    Args:
        cfg: the run's configuration (see presets.make_config).
        data: a generated train split of ``cfg.task`` (or an in-memory :class:`TrainData`);
            None draws fresh data on the device (Sudoku, Even Pixels; Counting from a bank
            re-rendered in the background; see streams.py).
        out: run directory.
        device: ``cuda`` or ``cpu`` (default: CUDA if available); under torchrun the local GPU.
        resume: continue from ``out/last.pt`` when it exists.
        max_minutes: stop (with a checkpoint) after this much wall time.
        stop_at: stop (with a checkpoint) once the clock passes this time (seconds since the epoch,
            ``time.time()``), whatever ``max_minutes`` says: a lease's end less the time its weights
            need to come back. Unlike ``max_minutes`` it does not depend on when the process started.
        progress: show a progress bar (rank 0).
        init: a weights file to continue from (fresh optimizer, warm-up again; step count,
            images and GPU-hours carried over). Ignored when ``out/last.pt`` is resumed.
        init_ema2: with ``init`` and ``cfg.ema_decay2``, the second EMA's weights written beside
            ``init`` (``weights-ema2.safetensors`` of the same step): the second EMA continues from
            them instead of starting again from ``init``. Ignored when ``out/last.pt`` is resumed.
        eval_every: every this many steps (and at the end), sample ``eval_count`` items of
            each of ``eval_splits`` with the parallel and predicted-order samplers at
            ``eval_budget`` NFE and eta ``eval_eta`` on rank 0 and log their accuracy in ``out/eval.csv``.
        compile_cache: with ``cfg.compile``, a file of torch.compile's artifacts: loaded before
            the first compilation when it exists, and written (rank 0) once the first step (or
            the graph's capture) has compiled. A fresh machine of the same kind then skips most
            of the compilation (see :func:`load_compile_cache`).
        render_workers: Counting's stream: the processes that render its images in the
            background [min(4, CPUs)]; the images are the same whatever their number.
        spike_guard: stop the run when a logged loss jumps above this factor times the median of
            the last 20 logged losses (:class:`SpikeGuard`; 0: never), before that step's
            checkpoint is written: ``out/last.pt`` and the weights stay those of the last
            checkpoint before the jump, and :class:`SrmBenchError` says which step that was.

    Returns:
        Summary dict: steps, images, final loss, wall time, GPU-hours, last eval rows; for a
        stream rendered in the background (Counting), ``data_wait_s``: seconds the loop waited on it.

    Raises:
        SrmBenchError: bad data, a checkpoint or weights of another task/preset/model, a batch
            not divisible by the number of processes, a task without a device stream when
            ``data`` is None, a task without an evaluator with ``eval_every`` or an
            ``eval_budget`` below its patch count, the template uncertainty target without a
            stream that has class templates; a loss that became NaN or jumped (``spike_guard``).
    """
    # Processes, device, options.
    rank, world, local = _dist()
    dev = _setup_device(device, local)
    if cfg.batch_size % world:
        raise SrmBenchError(f"batch size {cfg.batch_size} is not divisible by the {world} processes")
    local_batch = cfg.batch_size // world
    splits = tuple(eval_splits) if eval_splits else default_eval_splits(cfg.task)
    if render_workers is not None and data is not None:
        raise SrmBenchError("--render-workers applies to the device stream; leave it out with --data")
    _check_options(cfg, data, splits, eval_every, eval_budget)
    guard = SpikeGuard(spike_guard)
    out = Path(out)
    ckpt_path = out / "last.pt"

    # Data: a device stream or a generated split.
    stream = train_data = None
    if data is None:
        stream = make_stream(cfg.task, dev, batch=cfg.batch_size, workers=render_workers)
        data_sha = f"stream:{cfg.task}"
    else:
        train_data = data if isinstance(data, TrainData) else load_train_data(data, cfg)
        data_sha = train_data.content_sha256

    # State: resumed, continued from weights, or fresh.
    resumed = resume and ckpt_path.exists()
    if resumed:
        state = TrainState.load(ckpt_path, cfg, dev)
        log.info("resumed %s at step %d", ckpt_path, state.step)
    elif init is not None:
        state = TrainState.from_weights(init, cfg, dev, ema2_path=init_ema2)
        log.info("continuing %s from step %d (%d images)", init, state.step, state.record["images"])
    elif init_ema2 is not None:
        raise SrmBenchError(f"--init-ema2 {init_ema2}: goes with --init (the first EMA's weights of the same step)")
    else:
        state = TrainState.fresh(cfg, dev)
    out.mkdir(parents=True, exist_ok=True)  # only now: a refused --init leaves no empty run folder
    begin = dict(state.record)  # this session's counts add to these
    start_step = state.step

    # Network (DDP over processes), batches, loss.
    net: torch.nn.Module = state.model
    if world > 1 and not cfg.cuda_graph:
        net = torch.nn.parallel.DistributedDataParallel(state.model, device_ids=[dev.index] if dev.type == "cuda" else None,
                                                        gradient_as_bucket_view=True)
    elif world > 1:  # no DDP (GraphedGrads all-reduces): start every rank from rank 0's weights, as DDP does
        for tensor in state.model.state_dict().values():
            dist.broadcast(tensor, 0)
    ranker = None
    if TSamplingConfig(**cfg.tsampling).sequential_order == "predicted":
        amp = cfg.bf16 and dev.type == "cuda"

        def ranker(z: torch.Tensor, t: torch.Tensor) -> torch.Tensor:  # the EMA network's uncertainty (B, P)
            with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                return state.ema(z, t, None).logvar.float()
    make_batch = BatchMaker(cfg, dev, rank=rank, local_batch=local_batch, stream=stream, data=train_data,
                            ranker=ranker)
    # Checked in _check_options: the template target comes with a stream that has class templates.
    templates = cast(Any, stream).templates() if LossWeights(**cfg.loss).nll_target == "template" else None
    cache_file = Path(compile_cache) if compile_cache is not None and cfg.compile else None
    if compile_cache is not None and not cfg.compile:
        log.warning("--compile-cache has no effect without --compile")
    if cache_file is not None:
        # One process a machine writes the artifacts into the compiler's disk caches, which the
        # others then read like any cache of their own (no two processes writing the same files).
        if local == 0:
            load_compile_cache(cache_file)
        if world > 1:
            dist.barrier()
    loss_fn = make_loss_fn(cfg, net, dev, templates)
    # The clock starts before the graph's capture (its compilation and warm-up): --max-minutes and
    # the recorded wall time and GPU-hours count it, as they count the plain step's compilation.
    t0 = time.perf_counter()
    loop_epoch = time.time()  # where the clock starts, in seconds since the epoch: a lease's timeline reads it
    first_step_s: float | None = None  # t0 to the first step's end: compilation, the graph's capture, one step
    graphed = None
    if cfg.cuda_graph:
        if dev.type != "cuda":
            log.warning("--cuda-graph without CUDA: the step runs uncaptured (same results, no speed-up)")
        state.model.train()
        graphed = GraphedGrads(state.model, loss_fn, make_batch(start_step), world=world, capture=dev.type == "cuda")
    device_name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"

    def current_record(step: int) -> dict[str, Any]:
        elapsed = time.perf_counter() - t0
        return {**begin, "step": step, "images": int(begin["images"]) + (step - start_step) * cfg.batch_size,
                "wall_s": round(float(begin["wall_s"]) + elapsed, 1),
                "gpu_hours": round(float(begin["gpu_hours"]) + elapsed * world / 3600, 5),
                "world_size": world, "device": device_name, "data": data_sha}

    saved = {"step": start_step if resumed else None}  # the newest step whose state is in out/

    def checkpoint(step: int) -> None:
        saved["step"] = step
        if rank != 0:
            return
        state.record = current_record(step)
        state.save(ckpt_path)
        save_weights(out / WEIGHTS_FILE, state.ema, cfg, state.record)
        if state.ema2 is not None:  # its config names its own decay, so --init and sample read it as any EMA
            save_weights(out / WEIGHTS_EMA2_FILE, state.ema2, replace(cfg, ema_decay=cfg.ema_decay2, ema_decay2=0.0),
                         state.record)

    def out_of_time(step: int) -> bool:
        if (max_minutes is None and stop_at is None) or step % cfg.log_every:
            return False
        over = ((max_minutes is not None and time.perf_counter() - t0 > 60 * max_minutes)
                or (stop_at is not None and time.time() > stop_at))
        # Decided together so that no rank waits for another in DDP.
        flag = torch.tensor(float(over), device=dev)
        if world > 1:
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return bool(flag.item())

    eval_rows: list[dict[str, Any]] = []
    spike: tuple[int, float, float] | None = None  # (step, loss, the median it jumped from)
    fresh = start_step == 0 or not (out / "log.csv").exists()
    step = start_step
    loss_val = float("nan")
    bar = tqdm(total=cfg.steps, initial=start_step, disable=not progress or rank != 0, desc="training")
    state.model.train()
    last_t, last_step = time.perf_counter(), start_step
    with CsvLog(out / "log.csv", CSV_FIELDS, fresh=fresh, enabled=rank == 0) as train_log, \
            CsvLog(out / "eval.csv", EVAL_FIELDS, fresh=fresh, enabled=rank == 0 and eval_every > 0) as eval_log:

        def log_step(step: int, lr: float, loss: torch.Tensor, parts: dict[str, torch.Tensor],
                     grad_norm: torch.Tensor) -> float:
            nonlocal last_t, last_step
            loss_val = float(loss.detach())
            if not math.isfinite(loss_val):
                raise SrmBenchError(f"loss became {loss_val} at step {step}; lower --lr or check the data")
            now = time.perf_counter()
            rate = (step - last_step) / max(now - last_t, 1e-9)
            rec = current_record(step)
            train_log.write({"step": step, "images": rec["images"], "loss": f"{loss_val:.6f}",
                             **{k: f"{float(v):.6f}" for k, v in parts.items()}, "lr": f"{lr:.3g}",
                             "grad_norm": f"{float(grad_norm):.4f}", "steps_per_s": f"{rate:.3f}",
                             "images_per_s": f"{rate * cfg.batch_size:.1f}", "elapsed_s": rec["wall_s"]})
            bar.set_postfix(loss=f"{loss_val:.4f}")
            last_t, last_step = now, step
            return loss_val

        def run_eval(step: int) -> None:
            nonlocal last_t
            if rank != 0:
                return
            rec = current_record(step)
            rows = evaluate_model(state.ema, cfg, str(dev), count=eval_count, splits=splits, budget=eval_budget,
                                  eta=eval_eta)
            for row in rows:
                eval_log.write({"step": step, "images": rec["images"], "gpu_hours": rec["gpu_hours"], **row,
                                "accuracy": f"{row['accuracy']:.4f}",
                                **{k: f"{row[k]:.4f}" if k in row else "" for k in ("error", "consistency", "top_objects")},
                                "elapsed_s": rec["wall_s"]})
            eval_rows[:] = rows
            summary = " ".join(f"{r['split']}/{r['sampler']}={r['accuracy']:.3f}" for r in rows)
            log.info("step %d (%d images): %s", step, rec["images"], summary)
            bar.write(f"eval step {step}: {summary}")
            last_t = time.perf_counter()  # sampling time is not training throughput

        while step < cfg.steps:
            lr = lr_at(step, cfg, state.warm_from)
            loss, parts, grad_norm = train_step(state, loss_fn, make_batch(step), step, lr, graphed)
            if step == start_step:  # compiled (or captured) now
                if dev.type == "cuda":
                    torch.cuda.synchronize(dev)
                first_step_s = round(time.perf_counter() - t0, 2)
                if cache_file is not None and rank == 0:
                    size = save_compile_cache(cache_file)
                    if size:
                        log.info("compile cache %s written (%d bytes)", cache_file, size)
                    else:
                        log.warning("compile cache %s not written: torch returned no artifacts", cache_file)
            step += 1
            bar.update(1)
            if step % cfg.log_every == 0 or step == cfg.steps:
                loss_val = log_step(step, lr, loss, parts, grad_norm)
                # Decided together (a DDP rank's loss is its own batch's) and before this step's checkpoint
                flag = torch.tensor(float(guard.spiked(loss_val)), device=dev)
                if world > 1:
                    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
                if flag.item():
                    spike = (step, loss_val, guard.median())
                    break
            timed_out = out_of_time(step)
            if timed_out and eval_every:
                checkpoint(step)  # first: a deadline (--stop-at) may leave no time for the evaluation
            if eval_every and (step % eval_every == 0 or step == cfg.steps or timed_out):
                run_eval(step)
            if step % cfg.ckpt_every == 0 or step == cfg.steps or timed_out:
                checkpoint(step)  # (again after a last evaluation: its time counts in the record)
            if timed_out:
                log.info("stopping at step %d, out of time (--max-minutes / --stop-at), after %.1f minutes "
                         "(checkpoint written)", step, (time.perf_counter() - t0) / 60)
                break
    bar.close()
    if spike is not None:
        if hasattr(stream, "close"):
            cast(Any, stream).close()
        kept = (f"{out / 'last.pt'} and the weights are those of step {saved['step']}, before it"
                if saved["step"] is not None else "no checkpoint of it was written before it"
                + (f" (it began from {init})" if init is not None else ""))
        raise SrmBenchError(f"the run diverged: loss {spike[1]:.4g} at step {spike[0]}, {spike[1] / spike[2]:.1f}x the "
                            f"median {spike[2]:.4g} of the last {min(len(guard.losses), guard.window)} logged losses; "
                            f"{kept}. Continue from there with a lower --lr or a longer --warmup-steps "
                            f"(--spike-guard 0 turns this check off)")
    rec = current_record(step)
    summary = {"steps": step, "images": rec["images"], "loss": loss_val, "wall_s": rec["wall_s"],
               "gpu_hours": rec["gpu_hours"], "checkpoint": str(ckpt_path), "weights": str(out / WEIGHTS_FILE),
               "world_size": world, "eval": eval_rows,
               # Where a call's start went (a fresh GPU host trained ~170 s less of a 560 s call than a warm one):
               # the loop's clock started at loop_epoch (after the imports, the data and the network), and its
               # first step ended first_step_s later (compilation and the graph's capture included)
               "loop_epoch": round(loop_epoch, 1), "first_step_s": first_step_s}
    if hasattr(stream, "close"):  # Counting's background renderers; the time the loop waited on them
        summary["data_wait_s"] = round(float(getattr(stream, "wait_s", 0.0)), 2)
        cast(Any, stream).close()
    return summary
