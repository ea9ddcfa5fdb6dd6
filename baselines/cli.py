"""``srm-bench train`` and ``srm-bench sample``: the baselines from the command line."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import click

from .configs import SEQUENTIAL_ORDERS
from .presets import BASELINES, PRESETS

log = logging.getLogger(__name__)


def _progress(ctx: click.Context) -> bool:
    return bool((ctx.obj or {}).get("progress", False))


@click.command(epilog="\b\nExamples:\n  srm-bench train --baseline srm --task even-pixels --preset small -o runs/srm-ep\n"
                      "  torchrun --nproc_per_node 2 -m srm_bench.cli train --baseline ddpm --task sudoku --preset small -o runs/ddpm")
@click.option("--baseline", type=click.Choice(BASELINES), required=True, help="srm: per-patch noise levels; ddpm: one shared level.")
@click.option("--task", required=True, help="Task to train on (sudoku, even-pixels, ...).")
@click.option("--preset", type=click.Choice(PRESETS), default="small", show_default=True,
              help="paper: Table 5 of the paper; small: minutes on one GPU; small-s2/small-s4: small on a "
                   "2x2/4x4 pixel-unshuffled input, the network at 1/2 or 1/4 of the side (Counting; ours); small-s2-w: small-s2 at twice the width (Counting: 7.2M; ours); unet-s: the paper's UNet at width 32 (Even Pixels: 3.2M); "
                   "unet-s-g16: with two channels a GroupNorm group; unet-s-gc: with a global-context branch (image-wide "
                   "fp32 sums of the clean pixels; ours); unet-s-g16-gc: both; unet-s-g16-gc-w: that with a 256-wide level embedding and a 3x last level; tiny: CPU smoke test; dit-s/dit-b: DiT; "
                   "dit-s14: DiT-S with 14-pixel tokens (Sudoku: 2x2 per cell); "
                   "cell/cell-s: CellNet (conv per variable + transformer over variables); cell-mlp: CellNet "
                   "with an MLP decoder; cell-rcb: cell-mlp with row/column/box positions; cell-aux: cell-rcb "
                   "with a class head and an auxiliary digit loss; cell-aux-b7: cell-aux whose uncertainty head learns "
                   "the error over 7x7 pixel blocks; cell-aux-tpl: cell-aux whose uncertainty head learns the error "
                   "against the mean image of the cell's digit; cell-aux-cls: the class head's cross-entropy at the "
                   "cell's digit, cell-aux-miss: 1 - its probability of that digit, both floored at 1e-4 (Sudoku; "
                   "see docs/sudoku-baselines.md).")
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="Generated train split [default: Sudoku and Even Pixels draw fresh data on the device every "
                   "step; Counting draws from a bank of 4096 train images on the device, replaced by freshly "
                   "rendered ones once each image has been drawn ~4 times: every 300 steps at batch 56, 66 at "
                   "256 (CPU workers render the next bank meanwhile)].")
@click.option("--init", "init", type=click.Path(path_type=Path), default=None,
              help="Continue from a weights.safetensors of the same baseline/task/preset (fresh optimizer, "
                   "warm-up again; steps, images and GPU-hours carried over). --steps is the total to reach.")
@click.option("--init-ema2", "init_ema2", type=click.Path(path_type=Path), default=None,
              help="With --init and --ema-decay2: the weights-ema2.safetensors written beside the --init weights "
                   "(same step); the second EMA continues from it instead of starting again from --init, so an "
                   "EMA race can span machines. Its record's ema2_from says where it began.")
@click.option("--eval-every", type=int, default=0, show_default=True,
              help="Every N steps, sample --eval-count items (parallel and predicted order, --eval-budget NFE, "
                   "--eval-eta; Even Pixels with overlap 0.95, the paper's) and log their accuracy and mean error "
                   "(Even Pixels: the colour-count gap; Sudoku: L1) in OUT/eval.csv; 0: off.")
@click.option("--eval-count", type=int, default=64, show_default=True, help="Items per split scored at each evaluation.")
@click.option("--eval-splits", default=None, help="Comma-separated splits to evaluate [sudoku: easy,medium; others: test].")
@click.option("--eval-budget", type=int, default=100, show_default=True, help="NFE of the samplers at evaluation.")
@click.option("--eval-eta", type=float, default=0.0, show_default=True,
              help="eta of the samplers at evaluation: 0 is deterministic (cheap, steady at few NFE); 1 with "
                   "--eval-budget 1000 is the paper's tables' protocol. They can rank two recipes differently: "
                   "docs/sudoku-baselines.md, 'Table 4 at 20.5M images'.")
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="Run directory (checkpoint, log.csv).")
@click.option("--steps", type=int, default=None, help="Training steps [preset].")
@click.option("--batch-size", type=int, default=None, help="Effective batch over all processes [preset].")
@click.option("--lr", type=float, default=None, help="Peak learning rate [preset].")
@click.option("--warmup-steps", type=int, default=None, help="Linear warm-up steps [preset].")
@click.option("--cooldown-steps", type=int, default=None,
              help="Decay the learning rate linearly to 0 over the last N of --steps [0: constant, the paper's].")
@click.option("--sharpness", type=float, default=None, help="Uniform t-bar sharpness (SRM) [preset].")
@click.option("--tsampling", type=click.Choice(["uniform_tbar", "independent"]), default=None,
              help="SRM training levels: Uniform t-bar (paper) or independent uniform (Diffusion Forcing) [uniform_tbar].")
@click.option("--sequential-mix", type=float, default=None,
              help="Fraction of training rows drawn as states of the one-patch-at-a-time sampler (clean, one "
                   "patch mid-ramp, pure noise) instead of Uniform t-bar; our deviation, see "
                   "docs/sudoku-baselines.md [0: the paper's recipe].")
@click.option("--sequential-overlap", type=float, default=None,
              help="With --sequential-mix: its rows are states of the sequential sampler with this overlap "
                   "(~1/(1-O) patches in flight at evenly spaced levels) instead of one patch at a time; our "
                   "deviation, see docs/even-pixels-baselines.md [0].")
@click.option("--sequential-order", type=click.Choice(SEQUENTIAL_ORDERS), default=None,
              help="With --sequential-mix: the order in which its rows take up their patches. predicted ranks "
                   "a row's noisy patches by the uncertainty the EMA network predicts for them at pure noise (the "
                   "most certain furthest along, as the predicted-order sampler begins the most certain next; one "
                   "extra forward pass of those rows a step); our deviation, see docs/even-pixels-baselines.md [random].")
@click.option("--sequential-tail", type=float, default=None,
              help="With --sequential-mix: read its rows only in the last this share of the sampler's budget "
                   "(e.g. 0.25: the last quarter, where an overlap-0.95 sampler's last ~20 patches close the count); "
                   "our deviation, see docs/even-pixels-baselines.md [1: the whole run].")
@click.option("--parallel-mix", type=float, default=None,
              help="Fraction of training rows drawn as the state of parallel sampling (one level for every "
                   "patch, no clean patch) instead of Uniform t-bar; our deviation, see docs/baselines.md, "
                   "'Counting: lease t' [0: the paper's recipe].")
@click.option("--completion-mix", type=float, default=None,
              help="Fraction of training rows drawn as completion states instead, whatever they would have been: "
                   "1 to --completion-max of the patches noisy, each at its own level, and every other patch clean, "
                   "so the clean rest pins what they may hold (the last patches of a sequential sampler); our "
                   "deviation, see docs/even-pixels-baselines.md [0: the paper's recipe].")
@click.option("--completion-max", type=click.IntRange(min=1), default=None,
              help="With --completion-mix: the most noisy patches in its rows, K ~ U{1 .. N} [4].")
@click.option("--zero-patch-prob", type=float, default=None,
              help="Fraction of training rows given clean patches (a ~U(0, 1) fraction of them, weight 0) "
                   "[preset: 1 for Even Pixels and Counting, the authors' code; 0 for Sudoku]. Below 1 the "
                   "other rows keep every patch noisy, the state parallel sampling runs in (our deviation; "
                   "benchmarks/probe_clean_context.py).")
@click.option("--noise-path", type=click.Choice(["rectified_flow", "cosine"]), default=None, help="Noise path [rectified_flow].")
@click.option("--target", type=click.Choice(["velocity", "eps"]), default=None, help="Prediction target [velocity].")
@click.option("--ema-decay", type=float, default=None, help="EMA decay [preset].")
@click.option("--ema-decay2", type=float, default=None,
              help="Also track a second EMA of this decay, written to OUT/weights-ema2.safetensors beside "
                   "weights.safetensors (a race of EMA decays in one run; resumed with the run) [0: none].")
@click.option("--seed", type=int, default=None, help="Training seed [0].")
@click.option("--ckpt-every", type=int, default=None, help="Checkpoint every N steps [preset].")
@click.option("--log-every", type=int, default=None, help="Log every N steps [preset].")
@click.option("--train-items", type=int, default=None, help="Items to generate when --data is not given and the task has no device stream (none of the built-in tasks) [preset].")
@click.option("--compile/--no-compile", "compile_", default=None, help="torch.compile the network [off].")
@click.option("--cuda-graph/--no-cuda-graph", default=None,
              help="Replay each step's forward and backward as one captured CUDA graph, with the gradient "
                   "all-reduce done by the loop instead of DDP: for small networks whose step waits on the "
                   "host's kernel launches (2.4x on one H200 for the 3.3M Even Pixels network at batch 512; "
                   "docs/even-pixels-baselines.md, fifteenth lease). Batches must keep one shape. Without "
                   "CUDA the same step runs uncaptured [off].")
@click.option("--compile-cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --compile: load torch.compile's artifacts from this file (gzip) before compiling when "
                   "it exists, and write them there after the first step, so that a fresh machine of the same "
                   "kind and torch skips most of the compilation (the GPU leases carry it between hosts). "
                   "A file it cannot use is skipped with a warning.")
@click.option("--render-workers", type=click.IntRange(min=1), default=None,
              help="Counting: processes rendering the training images in the background (the images do not "
                   "depend on their number). Raise it when the summary's data_wait_s grows, e.g. with several "
                   "runs on one machine or a fast step [min(4, CPUs)].")
@click.option("--bf16/--no-bf16", default=None, help="bf16 autocast on CUDA [on].")
@click.option("--resume/--no-resume", default=True, show_default=True, help="Continue from OUT/last.pt if present.")
@click.option("--max-minutes", type=float, default=None, help="Stop (with a checkpoint) after this wall time.")
@click.option("--stop-at", type=float, default=None,
              help="Stop (with a checkpoint) once the clock passes this time, in seconds since the epoch "
                   "(`date +%s`), whatever --max-minutes says: e.g. a GPU lease's end less the time the weights "
                   "need to come back. It counts from no process start, so torchrun's start and the imports "
                   "cannot push the run past it.")
@click.option("--spike-guard", type=float, default=2.0, show_default=True,
              help="Stop a diverging run: when a logged loss is above this factor times the median of the last 20 "
                   "logged losses (healthy runs stayed under 1.4x; two that diverged jumped 3.7x and 10.6x: "
                   "benchmarks/check_spike_guard.py), the "
                   "run stops before that step's checkpoint, so OUT keeps the last state before the jump. 0: off.")
@click.option("--device", default=None, help="cuda or cpu [cuda if available].")
@click.pass_context
def train(ctx: click.Context, baseline: str, task: str, preset: str, data: Path | None, out: Path, steps: int | None,
          batch_size: int | None, lr: float | None, warmup_steps: int | None, cooldown_steps: int | None,
          sharpness: float | None, sequential_mix: float | None, sequential_overlap: float | None,
          sequential_order: str | None, sequential_tail: float | None, parallel_mix: float | None,
          completion_mix: float | None, completion_max: int | None, zero_patch_prob: float | None,
          tsampling: str | None, noise_path: str | None, target: str | None, ema_decay: float | None,
          ema_decay2: float | None, seed: int | None, ckpt_every: int | None, log_every: int | None,
          train_items: int | None, compile_: bool | None, cuda_graph: bool | None, compile_cache: Path | None,
          render_workers: int | None, bf16: bool | None, resume: bool, max_minutes: float | None, stop_at: float | None,
          device: str | None, init: Path | None, init_ema2: Path | None, eval_every: int, eval_count: int, eval_splits: str | None,
          eval_budget: int, eval_eta: float, spike_guard: float) -> None:
    """Train the SRM or the DDPM baseline on a task (DDP under torchrun)."""
    from srm_bench.errors import SrmBenchError

    from .presets import make_config, with_overrides
    from .train import train as run_train
    from .tsampling import TSamplingConfig

    cfg = make_config(task, baseline, preset)
    if stop_at is not None and stop_at <= 0:
        raise SrmBenchError(f"--stop-at takes seconds since the epoch (`date +%s`), got {stop_at}")
    if cooldown_steps is not None and cooldown_steps < 0:
        raise SrmBenchError(f"--cooldown-steps must be >= 0, got {cooldown_steps}")
    if ema_decay is not None and not 0 <= ema_decay < 1:
        raise SrmBenchError(f"--ema-decay must be in [0, 1), got {ema_decay}")
    if ema_decay2 is not None and not 0 <= ema_decay2 < 1:
        raise SrmBenchError(f"--ema-decay2 must be in [0, 1) (0: no second EMA), got {ema_decay2}")
    cfg = with_overrides(cfg, steps=steps, batch_size=batch_size, lr=lr, warmup_steps=warmup_steps,
                         cooldown_steps=cooldown_steps, ema_decay=ema_decay, ema_decay2=ema_decay2, seed=seed, ckpt_every=ckpt_every,
                         log_every=log_every, train_items=train_items, compile=compile_, cuda_graph=cuda_graph, bf16=bf16, noise_path=noise_path, target=target)
    for name, value in (("sharpness", sharpness), ("kind", tsampling), ("sequential_mix", sequential_mix),
                        ("sequential_overlap", sequential_overlap), ("sequential_order", sequential_order),
                        ("sequential_tail", sequential_tail), ("parallel_mix", parallel_mix), ("completion_mix", completion_mix),
                        ("completion_max", completion_max), ("zero_patch_prob", zero_patch_prob)):
        if value is None:
            continue
        if baseline != "srm":
            raise SrmBenchError(f"--{'tsampling' if name == 'kind' else name.replace('_', '-')} applies to the SRM's per-patch levels, not to the DDPM")
        cfg = with_overrides(cfg, tsampling={**cfg.tsampling, name: value})
    TSamplingConfig(**cfg.tsampling).validate()  # before anything is written
    if eval_every < 0 or eval_count < 1 or eval_budget < 1:
        raise SrmBenchError("--eval-every must be >= 0, --eval-count and --eval-budget >= 1")
    if not 0 <= eval_eta <= 1:  # NaN fails too
        raise SrmBenchError(f"--eval-eta must be in [0, 1] (0: deterministic, 1: the paper's protocol), got {eval_eta}")
    from .streams import STREAMS

    if data is None and task not in STREAMS:
        import os

        data = out / "data"
        if not (data / "manifest.json").exists() and int(os.environ.get("RANK", "0")) == 0:
            import srm_bench

            srm_bench.generate(task, "train", n=cfg.train_items, out=data, progress=_progress(ctx))
        if int(os.environ.get("WORLD_SIZE", "1")) > 1:
            import torch.distributed as dist

            from .train import _dist

            _dist()
            dist.barrier()
    splits = tuple(s.strip() for s in eval_splits.split(",") if s.strip()) if eval_splits else None
    summary = run_train(cfg, data, out, device=device, resume=resume, max_minutes=max_minutes, stop_at=stop_at,
                        progress=_progress(ctx),
                        init=init, init_ema2=init_ema2, eval_every=eval_every, eval_count=eval_count, eval_splits=splits,
                        eval_budget=eval_budget, eval_eta=eval_eta, compile_cache=compile_cache, render_workers=render_workers,
                        spike_guard=spike_guard)
    click.echo(json.dumps(summary))
    import torch.distributed as tdist

    if tdist.is_available() and tdist.is_initialized():  # under torchrun: leave no process group behind
        tdist.destroy_process_group()


@click.command(epilog="\b\nExamples:\n  srm-bench sample --pretrained srm-sudoku --sampler sequential --order predicted --split easy -o e.h5\n"
                      "  srm-bench sample runs/srm/last.pt --sampler sequential --order predicted --split hard -o srm-hard.h5\n"
                      "  srm-bench sample runs/ddpm-ep/last.pt --sampler parallel -n 500 -o ddpm-ep.h5\n"
                      "  srm-bench evaluate srm-hard.h5")
@click.argument("checkpoint", type=click.Path(path_type=Path), required=False)
@click.option("--pretrained", default=None, help="A shipped model instead of CHECKPOINT (see 'srm-bench models').")
@click.option("--sampler", type=click.Choice(["parallel", "sequential"]), default="parallel", show_default=True)
@click.option("--order", type=click.Choice(["random", "graph", "predicted", "raster"]), default=None,
              help="Sequential order: random, graph (task's dependency graph), predicted (lowest uncertainty) or "
                   "raster (ours: patches row by row, the same for every sample).")
@click.option("--overlap", type=float, default=0.0, show_default=True, help="Sequential: overlap of the patch ramps, in [0, 1).")
@click.option("--top-k", type=int, default=1, show_default=True, help="Sequential: patches started together per slot.")
@click.option("--ramp", type=click.Choice(["even", "reference"]), default="even", show_default=True,
              help="Sequential: ramp lengths. even: the last ramp ends exactly at --steps; reference: the reference "
                   "code's ceil(steps / slots) evaluations per patch (at a budget near the patch count, e.g. its "
                   "100-NFE predicted-order protocol, every patch gets >= 2).")
@click.option("--uncertainty", type=click.Choice(["logvar", "entropy"]), default="logvar", show_default=True,
              help="Predicted order ranks patches by the uncertainty head (logvar, the paper's) or by the entropy "
                   "of a class head (models trained with one, preset cell-aux).")
@click.option("--steps", type=int, default=1000, show_default=True, help="Network-evaluation budget (the same for every sampler).")
@click.option("--eta", type=float, default=1.0, show_default=True,
              help="0 deterministic, 1 stochastic (the paper's); up to 16 adds more noise per step (ours: the noise "
                   "capped at the level's).")
@click.option("--split", default=None, help="Puzzle split (Sudoku: easy/medium/hard) or the split named in the file.")
@click.option("--reference", type=click.Path(path_type=Path), default=None, help="Puzzle set directory [canonical test set].")
@click.option("-n", "--count", type=int, default=None, help="Number of samples [all puzzles, or 500].")
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling seed (per sample: (seed, index)).")
@click.option("--batch-size", type=int, default=64, show_default=True)
@click.option("--device", default=None, help="cuda or cpu [cuda if available].")
@click.option("--ema/--no-ema", default=True, show_default=True, help="Use the EMA weights.")
@click.option("--task", default=None, help="Refuse the checkpoint unless it is of this task.")
@click.option("--preset", default=None, help="Refuse the checkpoint unless it was trained with this preset.")
@click.option("--name", default=None, help="Model name for the leaderboard [baseline-arch-preset].")
@click.option("--frames", type=click.Path(path_type=Path), default=None,
              help="Folder for PNGs of the process (sample, x0_hat, levels, uncertainty) of the first sample.")
@click.option("--frame-every", type=int, default=50, show_default=True, help="Steps between two frames (PNGs or animation).")
@click.option("--animate", type=click.Path(path_type=Path), default=None,
              help="A .gif (or .mp4, with the imageio-ffmpeg package) of the first sample's process: sample, x0_hat, "
                   "noise levels and uncertainty side by side.")
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="Samples HDF5 to write.")
@click.pass_context
def sample(ctx: click.Context, checkpoint: Path | None, pretrained: str | None, sampler: str, order: str | None, overlap: float, top_k: int,
           ramp: str, uncertainty: str, steps: int,
           eta: float, split: str | None, reference: Path | None, count: int | None, seed: int, batch_size: int,
           device: str | None, ema: bool, task: str | None, preset: str | None, name: str | None, frames: Path | None,
           frame_every: int, animate: Path | None,
           out: Path) -> None:
    """Sample a trained baseline; 'srm-bench evaluate OUT' scores the file.

    In several batches, the finished ones are kept in OUT.partial.npz until OUT is written: after an
    interruption, the same command draws only the samples left (samples are seeded per index)."""
    from srm_bench.errors import SrmBenchError

    from .inference import sample_checkpoint
    from .schedules import SamplerConfig

    if (checkpoint is None) == (pretrained is None):
        raise SrmBenchError("pass a CHECKPOINT file or --pretrained NAME (one of them; 'srm-bench models' lists the names)")
    if pretrained is not None:
        from .pretrained import pretrained_path

        checkpoint = pretrained_path(pretrained)
        name = name or pretrained
    assert checkpoint is not None  # one of the two was given, checked above

    cfg = SamplerConfig(name=sampler, order=order, overlap=overlap, top_k=top_k, steps=steps, eta=eta,
                        uncertainty=uncertainty, ramp=ramp)
    path = sample_checkpoint(checkpoint, cfg, out, split=split, reference=reference, count=count, seed=seed,
                             device=device, batch_size=batch_size, ema=ema, task=task, preset=preset, name=name,
                             progress=_progress(ctx),
                             frames=frames, frame_every=frame_every, animate=animate)
    click.echo(str(path))


@click.command()
def models() -> None:
    """List the baselines shipped with srm-bench: task, preset, size, checksum, training
    budget, status and the accuracies measured so far. Sample one with
    'srm-bench sample --pretrained NAME'."""
    from .pretrained import catalogue, describe

    for name, entry in catalogue().items():
        click.echo("\n".join(describe(name, entry)))


@click.command(epilog="\b\nExamples:\n"
                      "  srm-bench reproduce leaderboard/results/baselines/sudoku-2026-11-26/<result>.json\n"
                      "  srm-bench reproduce results/my-run.json --checkpoint runs/srm/weights.safetensors --device cpu")
@click.argument("result", type=click.Path(path_type=Path))
@click.option("--checkpoint", type=click.Path(path_type=Path), default=None,
              help="The weights the result was sampled from [the shipped model pinned to the recorded hash].")
@click.option("--device", default=None, help="cuda or cpu [cuda if available].")
@click.option("--batch-size", type=int, default=None, help="Samples per batch [the recorded one, else all at once].")
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None, help="Keep the new samples HDF5 here.")
@click.pass_context
def reproduce(ctx: click.Context, result: Path, checkpoint: Path | None, device: str | None, batch_size: int | None,
              out: Path | None) -> None:
    """Draw a baseline result's samples again and compare their hash with the recorded one.

    Finds the weights by the SHA-256 in RESULT (a shipped model, or --checkpoint), samples with
    every recorded knob and seed, and hashes the pixels. Exit 0 when they agree bit for bit,
    1 when they differ. Bit-for-bit agreement is expected on the device type the result names
    (GPU kernels differ between card types and from the CPU)."""
    from .reproduce import reproduce as run

    r = run(result, checkpoint=checkpoint, device=device, batch_size=batch_size, out=out, progress=_progress(ctx))
    where = f"recorded on {r.recorded_device or 'an unrecorded device'}, drawn now on {r.device}"
    if r.same:
        click.echo(f"reproduced bit for bit: samples sha256 {r.sha256} ({where})")
        return
    hint = "" if r.recorded_device == r.device else "; compare on the device type the result names"
    click.echo(f"differs: samples sha256 {r.sha256}, recorded {r.recorded_sha256} ({where}{hint})")
    ctx.exit(1)

