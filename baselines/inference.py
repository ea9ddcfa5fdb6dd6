"""Sampling a trained baseline over a split and writing a samples file that
``srm-bench evaluate`` scores directly.
"""
from __future__ import annotations

import json
import logging
import os
import time
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from tqdm.auto import tqdm

from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task, resolve_entry_point
from srm_bench.seeding import stream_id
from srm_bench.io import file_sha256

from .noise import NoisePath
from .presets import TrainConfig, make_config
from .samplers import sample
from .schedules import SamplerConfig, make_schedule
from .train import build_model, load_checkpoint, load_weights
from .diffusion import DenoiserOutput

log = logging.getLogger(__name__)


def sample_seed(seed: int, index: int) -> int:
    """The seed of sample ``index``: independent of batch size and order."""
    return int(np.random.default_rng([int(seed), stream_id("baseline-sample"), int(index)]).integers(2**62))


def load_denoiser(checkpoint: str | Path, device: str, *, ema: bool = True) -> tuple[torch.nn.Module, TrainConfig, dict[str, Any]]:
    """The network of a checkpoint (EMA weights by default), its config and the raw state.

    ``checkpoint`` is a ``last.pt`` or a ``weights.safetensors`` (EMA weights in bf16 with
    the config and training record); for the latter the state holds the record's fields.

    Raises:
        SrmBenchError: an unreadable file, or ``ema=False`` with a weights file (it holds only the EMA).
    """
    if str(checkpoint).endswith(".safetensors"):
        if not ema:
            raise SrmBenchError(f"{checkpoint}: a weights file holds only the EMA weights; drop --no-ema")
        weights, cfg, record = load_weights(checkpoint)
        state = {**record, "step": int(record.get("step", 0)), "config": cfg.to_dict()}
    else:
        state = load_checkpoint(checkpoint)
        cfg = TrainConfig.from_dict(state["config"])
        weights = state["ema" if ema else "model"]
    model = build_model(cfg.arch, cfg.model)
    model.load_state_dict(weights)
    return model.to(device).eval(), cfg, state


def _zero_patch_record(cfg: TrainConfig) -> dict[str, float]:
    """``{"zero_patch_prob": p}`` when the run changed its preset's zero-patch rule, else nothing
    (results of the preset's rule stay as they were)."""
    p = cfg.tsampling.get("zero_patch_prob")
    try:
        preset = make_config(cfg.task, cfg.baseline, cfg.preset).tsampling.get("zero_patch_prob")
    except (SrmBenchError, KeyError):
        preset = None
    return {} if p is None or p == preset else {"zero_patch_prob": float(p)}


def graph_for(task: str) -> torch.Tensor | None:
    """The dependency graph of a task's patches (Sudoku: row, column, box), or None: ``TaskSpec.graph``."""
    ref = get_task(task).graph
    return resolve_entry_point(ref)() if ref else None


def class_entropy(logits: torch.Tensor) -> torch.Tensor:
    """(B, P) entropy in nats of a class head's per-patch distribution (logits (B, P, K)): the
    uncertainty that predicted order ranks by with ``--uncertainty entropy``."""
    logp = torch.log_softmax(logits.float(), -1)
    return -(logp.exp() * logp).sum(-1)


def sample_images(model: torch.nn.Module, cfg: TrainConfig, sampler: SamplerConfig, indices: np.ndarray, *,
                  seed: int, device: str, batch_size: int = 64, given: np.ndarray | None = None,
                  known: np.ndarray | None = None, progress: bool = False,
                  callback: Callable[[dict[str, Any]], None] | None = None,
                  partial: Partial | None = None, log_batches: bool = False) -> np.ndarray:
    """Draw one uint8 NHWC sample per entry of ``indices`` (the per-sample seed is (seed, index), so the
    content does not depend on ``batch_size``).

    Args:
        given: (N, H, W, C) uint8 clue images; ``known`` (N, P) bool given patches.
        callback: passed to the sampler for the first batch only.
        partial: where the finished batches are kept (see :class:`Partial`): sampling starts after the
            samples it already holds, and it is brought up to date after every batch.
        log_batches: log a line at INFO after each batch (samples done, seconds, an estimate of those
            left): what ``srm-bench sample`` shows where no progress bar is drawn (stderr not a terminal).

    Raises:
        SrmBenchError: sampler knobs that do not apply (see SamplerConfig.validate).
    """
    size, ch, patch = cfg.model["image_size"], cfg.model["in_channels"], cfg.model["patch_size"]
    num_patches = (size // patch) ** 2
    ddpm = cfg.baseline == "ddpm"
    if ddpm and sampler.name != "parallel":
        raise SrmBenchError("the DDPM baseline has one shared noise level; only --sampler parallel applies to it")
    graph = graph_for(cfg.task)
    schedule = make_schedule(sampler, num_patches, graph=None if graph is None else graph.to(device),
                             has_uncertainty=not ddpm)
    path = NoisePath(cfg.noise_path, cfg.target)
    dev = torch.device(device)
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    use_amp = cfg.bf16 and dev.type == "cuda"

    entropy = sampler.uncertainty == "entropy"
    if entropy and not cfg.model.get("classes", 0):
        raise SrmBenchError("--uncertainty entropy needs a model with a class head (preset cell-aux); use logvar")

    def net(x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None) -> DenoiserOutput:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp):
            out = model(x, t, cond)
        if entropy:  # predicted order ranks the patches by their class entropy instead
            out = out._replace(logvar=class_entropy(out.logits))
        return out

    out = np.empty((len(indices), size, size, ch), dtype=np.uint8)
    start = 0 if partial is None else partial.load(out)
    t0 = time.perf_counter()
    for lo in tqdm(range(start, len(indices), batch_size), disable=not progress, desc="batches"):
        idx = indices[lo:lo + batch_size]
        gens = [torch.Generator(device=dev).manual_seed(sample_seed(seed, int(i))) for i in idx]
        x = torch.stack([torch.randn((ch, size, size), generator=g, device=dev) for g in gens])
        g_t = k_t = None
        if given is not None and known is not None:
            g_t = torch.from_numpy(given[lo:lo + batch_size]).to(dev).permute(0, 3, 1, 2).float() / 127.5 - 1.0
            k_t = torch.from_numpy(known[lo:lo + batch_size]).to(dev)
        with torch.inference_mode():
            res = sample(net, x, schedule, path=path, generators=gens, patch_size=patch, eta=sampler.eta,
                         given=g_t, known=k_t, ddpm=ddpm, callback=callback if lo == 0 else None,
                         disable=not progress)
        out[lo:lo + len(idx)] = ((res + 1.0) * 127.5).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).cpu().numpy()
        if partial is not None and lo + len(idx) < len(indices):
            partial.save(out, lo + len(idx))
        if log_batches:
            done, wall = lo + len(idx), time.perf_counter() - t0
            log.info("sampled %d of %d (%.0f s; about %.0f s left)", done, len(indices), wall,
                     wall / (done - start) * (len(indices) - done))
    return out


class Partial:
    """The finished batches of an interrupted ``sample_checkpoint``, kept next to its output as
    ``OUT.partial.npz`` (written to a temporary file, then renamed), so that the same command run again
    samples only what is left. ``key`` names everything the samples depend on (weights, sampler, seed,
    indices, puzzles, device type); a file whose key differs is refused rather than mixed in."""

    def __init__(self, path: Path, key: dict[str, Any]) -> None:
        self.path, self.key = path, json.dumps(key, sort_keys=True)
        self.wall_s = 0.0  # the sampling time of the earlier runs (load), added to this one's
        self.t0 = time.perf_counter()

    def load(self, out: np.ndarray) -> int:
        """Copy the kept samples into ``out``; returns how many there are (0 without a file)."""
        if not self.path.exists():
            return 0
        try:
            with np.load(self.path) as z:
                key, done, wall = str(z["key"]), int(z["done"]), float(z["wall_s"])
                images = z["images"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:  # a file cut while written
            raise SrmBenchError(f"{self.path}: unreadable ({exc}); delete it to sample from the start") from exc
        if key != self.key or images.shape != (done, *out.shape[1:]) or not 0 < done < len(out):
            raise SrmBenchError(f"{self.path}: holds samples of another command (weights, sampler, seed, count or "
                                "device differ); delete it, or rerun the command that left it")
        out[:done] = images[:done]
        self.wall_s = wall
        log.info("continuing from %s: %d of %d samples already drawn", self.path, done, len(out))
        return done

    def save(self, out: np.ndarray, done: int) -> None:
        tmp = self.path.with_name(self.path.name + f".tmp-{os.getpid()}")
        with open(tmp, "wb") as f:
            np.savez(f, key=np.array(self.key), done=np.array(done), images=out[:done],
                     wall_s=np.array(self.wall_s + time.perf_counter() - self.t0))
        os.replace(tmp, self.path)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


PANELS = ("sample", "x0-hat", "noise level", "uncertainty")


def render_frame(info: dict[str, Any]) -> np.ndarray:
    """(H, 4W, 3) uint8 picture of the first sample of a sampler callback's batch: current
    image | one-step prediction x0_hat | noise levels (white = 1) | uncertainty (dark = low),
    the panels of the paper's Figure 5."""
    def to_u8(img: torch.Tensor) -> np.ndarray:
        arr = ((img.float().clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).permute(1, 2, 0).cpu().numpy()
        return np.repeat(arr, 3, axis=2) if arr.shape[2] == 1 else arr

    def grid_map(values: torch.Tensor, size: int) -> np.ndarray:
        side = int(round(values.numel() ** 0.5))
        g = values.float().reshape(1, 1, side, side)
        g = torch.nn.functional.interpolate(g, size=(size, size), mode="nearest")[0]
        return to_u8(g * 2 - 1)

    x, x0 = info["x"][0], info["x0_hat"][0]
    size = x.shape[-1]
    lv = info["logvar"][0].float()
    span = (lv.max() - lv.min()).clamp_min(1e-6)
    panels = [to_u8(x), to_u8(x0), grid_map(info["t"][0], size), grid_map((lv - lv.min()) / span, size)]
    return np.concatenate(panels, axis=1)


def frame_writer(folder: str | Path, every: int, patch: int) -> Callable[[dict[str, Any]], None]:
    """A sampler callback that saves :func:`render_frame` as a PNG every ``every`` steps."""
    from PIL import Image

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)

    def callback(info: dict[str, Any]) -> None:
        step = info["step"]
        if step % every and step != 0:
            return
        Image.fromarray(render_frame(info)).save(folder / f"step{step:05d}.png")

    return callback


class Animator:
    """A sampler callback that keeps :func:`render_frame` every ``every`` steps (and the last
    step), captioned with the panel names and the step; :meth:`save` writes a GIF (always) or
    an MP4 (where the imageio-ffmpeg package provides an ffmpeg binary), atomically.

    Raises:
        SrmBenchError: a suffix other than .gif / .mp4, or .mp4 without imageio-ffmpeg.
    """

    def __init__(self, path: str | Path, every: int, total: int, fps: float = 12.0) -> None:
        self.path, self.every, self.total, self.fps = Path(path), max(1, int(every)), int(total), float(fps)
        if self.path.suffix.lower() not in (".gif", ".mp4"):
            raise SrmBenchError(f"{self.path}: an animation is a .gif or an .mp4")
        if self.path.suffix.lower() == ".mp4":
            try:
                import imageio_ffmpeg  # noqa: F401
            except ImportError:
                raise SrmBenchError(f"{self.path}: .mp4 needs the imageio-ffmpeg package (pip install imageio-ffmpeg); "
                                    "or write a .gif") from None
        self.frames: list[np.ndarray] = []

    def __call__(self, info: dict[str, Any]) -> None:
        step = int(info["step"])
        if step % self.every == 0 or step == self.total - 1:
            self.frames.append(self._caption(render_frame(info), step + 1))

    def _caption(self, frame: np.ndarray, step: int) -> np.ndarray:
        from PIL import Image, ImageDraw

        w = frame.shape[1] // len(PANELS)
        bar = Image.new("RGB", (frame.shape[1], 14), (255, 255, 255))
        draw = ImageDraw.Draw(bar)
        for i, name in enumerate(PANELS):
            draw.text((i * w + 3, 1), name, fill=(0, 0, 0))
        draw.text((frame.shape[1] - 90, 1), f"NFE {step}/{self.total}", fill=(0, 0, 0))
        return np.concatenate([np.asarray(bar), frame], axis=0)

    def save(self) -> Path:
        from PIL import Image

        if not self.frames:
            raise SrmBenchError("no frames were recorded; nothing to animate")
        tmp = self.path.with_name(self.path.name + ".tmp" + self.path.suffix)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if self.path.suffix.lower() == ".gif":
                imgs = [Image.fromarray(f) for f in self.frames]
                durations = [int(1000 / self.fps)] * (len(imgs) - 1) + [2000]  # hold the result
                imgs[0].save(tmp, save_all=True, append_images=imgs[1:], duration=durations, loop=0, optimize=True)
            else:
                import imageio_ffmpeg

                h, w = self.frames[0].shape[:2]
                writer = imageio_ffmpeg.write_frames(str(tmp), (w, h), fps=self.fps, macro_block_size=1)
                writer.send(None)
                for f in self.frames + [self.frames[-1]] * int(2 * self.fps):
                    writer.send(np.ascontiguousarray(f))
                writer.close()
            os.replace(tmp, self.path)
        finally:
            tmp.unlink(missing_ok=True)
        return self.path


def sample_checkpoint(checkpoint: str | Path, sampler: SamplerConfig, out: str | Path, *, split: str | None = None,
                      reference: str | Path | None = None, count: int | None = None, seed: int = 0,
                      device: str | None = None, batch_size: int = 64, ema: bool = True, task: str | None = None,
                      preset: str | None = None,
                      name: str | None = None, progress: bool = False, overwrite: bool = False,
                      frames: str | Path | None = None, frame_every: int = 50,
                      animate: str | Path | None = None) -> Path:
    """Sample a checkpoint over a split and write an evaluable samples HDF5.

    Args:
        checkpoint: a ``last.pt`` written by training.
        sampler: every sampler knob (recorded in the file).
        out: samples file to write (refused if it exists, unless ``overwrite``).
        split: conditional tasks: the puzzle split (default: the reference's); others: the
            split named in the file (default ``test``).
        reference: dataset directory of the puzzles (default: the canonical test set).
        count: number of samples (default: the whole puzzle set, or 500).
        task, preset: if given, must be the checkpoint's.
        frames: folder for PNGs of the first sample every ``frame_every`` steps.
        animate: a .gif (or .mp4) of the first sample's sampling process, a frame every
            ``frame_every`` steps (see :class:`Animator`).

    Raises:
        SrmBenchError: a checkpoint of another task, a reference of another task, knobs that
            do not apply, more samples than puzzles.
    """
    from srm_bench.registry import get_task
    from srm_bench.samples import write_samples

    out = Path(out)
    if out.exists() and not overwrite:
        raise SrmBenchError(f"{out}: exists; choose another -o or delete it")
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    model, cfg, state = load_denoiser(checkpoint, device, ema=ema)
    if task is not None and task != cfg.task:
        raise SrmBenchError(f"{checkpoint}: is a {cfg.task} checkpoint, not {task}; pass a {task} checkpoint")
    if preset is not None and preset != cfg.preset:
        raise SrmBenchError(f"{checkpoint}: was trained with preset {cfg.preset}, not {preset}; pass a {preset} checkpoint")
    spec = get_task(cfg.task)
    given = known = None
    dataset_sha = None
    if spec.conditional:
        from srm_bench.canonical import canonical_dataset
        from srm_bench.dataset import load_dataset

        if reference is not None:
            ds = load_dataset(reference)
            if ds.task != cfg.task:
                raise SrmBenchError(f"{reference}: is a {ds.task} dataset, the checkpoint is {cfg.task}")
            if split is not None and split != ds.split:
                raise SrmBenchError(f"{reference}: is split {ds.split!r}, not {split!r}")
        else:
            if split is None:
                raise SrmBenchError(f"{cfg.task} needs --split ({', '.join(spec.test_splits)}) or --reference DIR")
            spec.check_split(split)
            ds = canonical_dataset(cfg.task, split, progress=progress)
        split = ds.split
        n = ds.count if count is None else count
        if n > ds.count:
            raise SrmBenchError(f"{n} samples asked, but the {cfg.task}/{split} set has only {ds.count} puzzles")
        indices = np.arange(n)
        given = ds.images(indices)
        known = np.asarray(ds.items["mask"][:n], dtype=bool).reshape(n, -1)
        dataset_sha = ds.content_sha256
    else:
        from srm_bench.canonical import pinned

        split = split or (spec.test_splits[0] if spec.test_splits else "test")
        spec.check_split(split)
        pin = pinned(cfg.task, split)
        dataset_sha = pin["content_sha256"] if pin else None
        indices = np.arange(500 if count is None else count)
    t0 = time.perf_counter()
    callbacks: list[Callable[[dict[str, Any]], None]] = []
    if frames is not None:
        callbacks.append(frame_writer(frames, frame_every, cfg.model["patch_size"]))
    animator = None if animate is None else Animator(animate, frame_every, sampler.steps)
    if animator is not None:
        callbacks.append(animator)

    def callback(info: dict[str, Any]) -> None:
        for cb in callbacks:
            cb(info)

    checkpoint_sha = file_sha256(checkpoint)
    partial = None
    if not callbacks and len(indices) > batch_size:  # several batches: keep the finished ones (a rerun continues)
        partial = Partial(out.with_name(out.name + ".partial.npz"), {
            "checkpoint_sha256": checkpoint_sha, "sampler": sampler.to_dict(), "seed": seed,
            "count": len(indices), "split": split, "dataset_sha256": dataset_sha, "ema": ema,
            "device": torch.device(device).type})
    images = sample_images(model, cfg, sampler, indices, seed=seed, device=device, batch_size=batch_size,
                           given=given, known=known, progress=progress, callback=callback if callbacks else None,
                           partial=partial, log_batches=not progress)
    wall = time.perf_counter() - t0 + (0.0 if partial is None else partial.wall_s)
    n_params = sum(p.numel() for p in model.parameters())
    rec = state.get("record") or state  # the training record (checkpoints of this version, weights files)
    model_ref = {
        "name": name or f"{cfg.baseline}-{cfg.arch}-{cfg.preset}",
        "provenance": "baseline",
        "sampler": {**sampler.to_dict(), "seed": seed, "weights": "ema" if ema else "raw", "wall_s": round(wall, 2),
                    "batch_size": batch_size,
                    "device": torch.cuda.get_device_name() if torch.device(device).type == "cuda" else "cpu"},
        "training": {"steps": int(state["step"]), "batch": cfg.batch_size, "lr": cfg.lr, "preset": cfg.preset,
                     "baseline": cfg.baseline, "arch": cfg.arch, "params": n_params,
                     "sharpness": cfg.tsampling.get("sharpness"), "tsampling": cfg.tsampling.get("kind"),
                     # the learning-rate schedule the weights were trained to (a cool-down ends at
                     # schedule_steps; a checkpoint before that was cut partway through it)
                     "schedule_steps": cfg.steps, "cooldown_steps": cfg.cooldown_steps, "ema_decay": cfg.ema_decay,
                     # our row-mix deviations, only where a run used them
                     **{k: cfg.tsampling[k] for k in ("sequential_mix", "sequential_overlap", "parallel_mix",
                                                      "completion_mix") if cfg.tsampling.get(k)},
                     **({"completion_max": cfg.tsampling.get("completion_max", 4)}
                        if cfg.tsampling.get("completion_mix") else {}),
                     **({"sequential_order": cfg.tsampling["sequential_order"]}
                        if cfg.tsampling.get("sequential_order", "random") != "random" else {}),
                     **({"sequential_tail": cfg.tsampling["sequential_tail"]}
                        if cfg.tsampling.get("sequential_tail", 1.0) != 1 else {}),
                     **_zero_patch_record(cfg),
                     "gpu_hours": round(float(rec["gpu_hours"]) if "gpu_hours" in rec else
                                        float(state.get("wall_s", 0.0)) * int(state.get("world_size", 1)) / 3600, 4),
                     "images": int(rec.get("images", int(state["step"]) * cfg.batch_size)),
                     "device": state.get("device"), "dataset_sha256": state.get("dataset_sha256", state.get("data")),
                     "checkpoint_sha256": checkpoint_sha},
    }
    write_samples(out, images, task=cfg.task, split=split, dataset_sha256=dataset_sha, index=indices,
                  model=model_ref, overwrite=overwrite)
    if partial is not None:
        partial.remove()
    log.info("wrote %d samples to %s in %.1f s", len(images), out, wall)
    if animator is not None:
        log.info("wrote the animation %s", animator.save())
    return out
