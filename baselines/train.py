"""Training loop for the SRM and DDPM baselines.

AdamW (betas 0.95, 0.999, weight decay 1e-6), linear warm-up, grad-norm clipping, EMA
(with the usual warm-up min(decay, (1 + step) / (10 + step)) so short runs have useful
EMA weights), bf16 autocast on CUDA, optional torch.compile, DDP when started by
``torchrun`` (NCCL on GPUs, gloo on CPU), checkpoints that carry their config, resume
after interruption, a CSV log and a progress bar.

Randomness of step k on rank r comes from (seed, r, k), so a resumed run draws exactly
what the uninterrupted run would have drawn.
"""
from __future__ import annotations

import csv
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from tqdm.auto import tqdm

from srm_bench.errors import SrmBenchError

from .dit import DiT, DiTConfig
from .losses import LossWeights, srm_loss
from .noise import NoisePath
from .presets import TrainConfig
from .samplers import pixel_levels
from .tsampling import NoiseLevelSampler, TSamplingConfig
from .unet import UNet, UNetConfig

log = logging.getLogger(__name__)
CHECKPOINT_FORMAT = "srm-bench-baseline"
CHECKPOINT_VERSION = 1
CSV_FIELDS = ["step", "loss", "mse", "vlb", "nll", "lr", "grad_norm", "steps_per_s", "elapsed_s"]


def build_model(arch: str, model: dict[str, Any]) -> torch.nn.Module:
    """A UNet or DiT from its config dict (as stored in checkpoints).

    Raises:
        SrmBenchError: unknown architecture or bad config.
    """
    d = {k: (tuple(v) if isinstance(v, list) else v) for k, v in model.items()}
    if arch == "unet":
        return UNet(UNetConfig(**d))
    if arch == "dit":
        return DiT(DiTConfig(**d))
    raise SrmBenchError(f"unknown architecture {arch!r}; valid: unet, dit")


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


def lr_at(step: int, cfg: TrainConfig) -> float:
    return cfg.lr * min(1.0, (step + 1) / max(1, cfg.warmup_steps))


def train(cfg: TrainConfig, data: str | Path | TrainData, out: str | Path, *, device: str | None = None, resume: bool = True,
          max_minutes: float | None = None, progress: bool = True) -> dict[str, Any]:
    """Train (or resume) a baseline; checkpoints go to ``out/last.pt``, the log to ``out/log.csv``.

    Args:
        cfg: the run's configuration (see presets.make_config).
        data: a generated train split of ``cfg.task`` (or an in-memory :class:`TrainData`).
        out: run directory.
        device: ``cuda`` or ``cpu`` (default: CUDA if available); under torchrun the local GPU.
        resume: continue from ``out/last.pt`` when it exists.
        max_minutes: stop (with a checkpoint) after this much wall time.
        progress: show a progress bar (rank 0).

    Returns:
        Summary dict: steps, final loss, wall time, checkpoint path.

    Raises:
        SrmBenchError: bad data, a checkpoint of another task/preset/model in ``out``,
            a batch not divisible by the number of processes.
    """
    rank, world, local = _dist()
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
    if cfg.batch_size % world:
        raise SrmBenchError(f"batch size {cfg.batch_size} is not divisible by the {world} processes")
    local_batch = cfg.batch_size // world
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "last.pt"

    train_data = data if isinstance(data, TrainData) else load_train_data(data, cfg)
    torch.manual_seed(cfg.seed)  # the same initial weights on every rank and every run
    model = build_model(cfg.arch, cfg.model).to(dev)
    ema = build_model(cfg.arch, cfg.model).to(dev).eval()
    ema.load_state_dict(model.state_dict())
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay,
                            fused=dev.type == "cuda")
    start_step, wall_before = 0, 0.0
    if resume and ckpt_path.exists():
        state = load_checkpoint(ckpt_path)
        old = TrainConfig.from_dict(state["config"])
        if old.identity() != cfg.identity():
            raise SrmBenchError(
                f"{ckpt_path}: belongs to {old.baseline}/{old.task}/{old.preset}, not {cfg.baseline}/{cfg.task}/{cfg.preset} "
                "(or another model); use another --out or --no-resume"
            )
        model.load_state_dict(state["model"])
        ema.load_state_dict(state["ema"])
        opt.load_state_dict(state["optimizer"])
        start_step, wall_before = int(state["step"]), float(state.get("wall_s", 0.0))
        log.info("resumed %s at step %d", ckpt_path, start_step)

    path = NoisePath(cfg.noise_path, cfg.target)
    patch = cfg.model["patch_size"]
    grid = (cfg.model["image_size"] // patch,) * 2
    num_patches = grid[0] * grid[1]
    tsampler = NoiseLevelSampler(TSamplingConfig(**cfg.tsampling), num_patches)
    weights = LossWeights(**cfg.loss)
    ddpm = cfg.baseline == "ddpm"
    use_amp = cfg.bf16 and dev.type == "cuda"
    net: torch.nn.Module = model
    if world > 1:
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)

    def forward_loss(z: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None, x: torch.Tensor, eps: torch.Tensor,
                     w: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp):
            out_ = net(z, t, cond)
        return srm_loss(out_, x, eps, z, t, w, path, patch, weights)

    # Network and loss compiled as one graph: the fastest variant in benchmarks/bench_unet.py.
    step_fn = torch.compile(forward_loss) if cfg.compile else forward_loss
    images = train_data.images.pin_memory() if dev.type == "cuda" else train_data.images

    csv_file = None
    writer = None
    if rank == 0:
        new = not (out / "log.csv").exists() or start_step == 0
        csv_file = open(out / "log.csv", "w" if new else "a", newline="")
        writer = csv.DictWriter(csv_file, fieldnames=CSV_FIELDS)
        if new:
            writer.writeheader()

    def checkpoint(step: int, wall: float) -> None:
        if rank != 0:
            return
        save_checkpoint(ckpt_path, {
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "config": cfg.to_dict(), "step": step,
            "model": model.state_dict(), "ema": ema.state_dict(), "optimizer": opt.state_dict(),
            "wall_s": wall, "world_size": world, "dataset_sha256": train_data.content_sha256,
            "device": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
        })

    t0 = time.perf_counter()
    last_t, last_step = t0, start_step
    step = start_step
    loss_val = float("nan")
    bar = tqdm(total=cfg.steps, initial=start_step, disable=not progress or rank != 0, desc="training")
    model.train()
    ema_params = list(ema.parameters())
    model_params = list(model.parameters())
    while step < cfg.steps:
        rng = np.random.default_rng([cfg.seed, rank, step])
        idx = rng.integers(0, train_data.count, size=local_batch)
        known = train_data.known[idx] if train_data.known is not None else None
        t_np, w_np = tsampler.sample(local_batch, rng, known)
        x = images[torch.from_numpy(idx)].to(dev, non_blocking=True).permute(0, 3, 1, 2).float() / 127.5 - 1.0
        t = torch.from_numpy(t_np).to(dev, non_blocking=True)
        w = torch.from_numpy(w_np).to(dev, non_blocking=True)
        gen = torch.Generator(device=dev).manual_seed(int(rng.integers(2**62)))
        eps = torch.randn(x.shape, generator=gen, device=dev)
        z = path.noise(x, eps, pixel_levels(t, grid, patch))
        cond = None
        if ddpm and cfg.model.get("cond_channels", 0):
            kmask = pixel_levels(torch.from_numpy(known).to(dev).float(), grid, patch)
            cond = torch.cat([kmask, x * kmask], dim=1)
        lr = lr_at(step, cfg)
        for g in opt.param_groups:
            g["lr"] = lr
        loss, parts = step_fn(z, t, cond, x, eps, w)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
        decay = min(cfg.ema_decay, (1 + step) / (10 + step))
        with torch.no_grad():
            torch._foreach_lerp_(ema_params, model_params, 1.0 - decay)
        step += 1
        bar.update(1)
        if step % cfg.log_every == 0 or step == cfg.steps:
            loss_val = float(loss.detach())
            if not math.isfinite(loss_val):
                raise SrmBenchError(f"loss became {loss_val} at step {step}; lower --lr or check the data")
            now = time.perf_counter()
            if writer is not None:
                writer.writerow({"step": step, "loss": f"{loss_val:.6f}", **{k: f"{float(v):.6f}" for k, v in parts.items()},
                                 "lr": f"{lr:.3g}", "grad_norm": f"{float(grad_norm):.4f}",
                                 "steps_per_s": f"{(step - last_step) / (now - last_t):.3f}",
                                 "elapsed_s": f"{wall_before + now - t0:.1f}"})
                assert csv_file is not None
                csv_file.flush()
            bar.set_postfix(loss=f"{loss_val:.4f}")
            last_t, last_step = now, step
        timed_out = False
        if max_minutes is not None and step % cfg.log_every == 0:
            # Decided together so that no rank waits for another in DDP.
            flag = torch.tensor(float((time.perf_counter() - t0) > 60 * max_minutes), device=dev)
            if world > 1:
                dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            timed_out = bool(flag.item())
        if step % cfg.ckpt_every == 0 or step == cfg.steps or timed_out:
            checkpoint(step, wall_before + time.perf_counter() - t0)
        if timed_out:
            log.info("stopping at step %d after %.1f minutes (checkpoint written)", step, max_minutes)
            break
    bar.close()
    if csv_file is not None:
        csv_file.close()
    wall = wall_before + time.perf_counter() - t0
    return {"steps": step, "loss": loss_val, "wall_s": wall, "checkpoint": str(ckpt_path), "world_size": world}
