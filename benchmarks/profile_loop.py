"""Where the whole training step's time goes (data, levels, network, optimizer), on the
loop's own code: the task's device stream, ``BatchMaker``, ``make_loss_fn`` and ``train_step``
of baselines/train.py, as `srm-bench train` runs them. Prints its figures.

Usage:
    python benchmarks/profile_loop.py --task counting-polygons --preset small-s2 --batch 256 \\
        [--baseline srm] [--compile] [--cuda-graph] [--steps 50] [--device cuda] [--top 12] [--impl FILE]

``--impl FILE`` draws the levels with ``DeviceLevelSampler`` from another copy of
baselines/tsampling.py (as in benchmarks/bench_level_sampler.py), to time the loop before and
after a change to it on one machine.

Figures:
- ``loop``: steps/s and images/s over ``--steps`` steps after warm-up, synchronised only at the
  end (as training runs), and the host's time per step inside ``make_batch`` and ``train_step``
  (what Python and the dispatcher spend issuing the work). Host time close to the wall time
  per step means the GPU waits on the host;
- ``phases``: the same steps with a device synchronisation after each phase (batch: stream draw,
  levels, noising; step: forward, loss, backward, clipping, AdamW, EMA), so each phase's wall
  time includes its device work;
- the top operations by host time (torch.profiler over 5 steps) and the number of aten
  operations a step issues.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import replace

import torch
from torch.profiler import ProfilerActivity, profile

from bench_level_sampler import sampler_from  # benchmarks/, the script's folder

from srm_bench.baselines.losses import LossWeights
from srm_bench.baselines.presets import make_config
from srm_bench.baselines.streams import make_stream
from srm_bench.baselines.train import BatchMaker, GraphedGrads, TrainState, _setup_device, make_loss_fn, train_step
from srm_bench.baselines.tsampling import TSamplingConfig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="counting-polygons")
    ap.add_argument("--preset", default="small-s2")
    ap.add_argument("--baseline", default="srm", choices=["srm", "ddpm"])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--cuda-graph", action="store_true", help="the step's forward and backward as one CUDA graph")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--impl", help="a copy of baselines/tsampling.py to draw the levels with")
    a = ap.parse_args()
    dev = _setup_device(a.device, 0)  # the device options `srm-bench train` sets (TF32, cuDNN autotuning)
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    cfg = replace(make_config(a.task, a.baseline, a.preset), batch_size=a.batch, compile=a.compile,
                  cuda_graph=a.cuda_graph)
    stream = make_stream(a.task, dev, batch=a.batch)
    try:
        state = TrainState.fresh(cfg, dev)
        side, patch = cfg.model["image_size"], cfg.model["patch_size"]
        tsampler = sampler_from(a.impl)(TSamplingConfig(**cfg.tsampling), (side // patch) ** 2, dev)
        make_batch = BatchMaker(cfg, dev, rank=0, local_batch=a.batch, stream=stream, tsampler=tsampler)
        templates = stream.templates() if hasattr(stream, "templates") else None
        loss_fn = make_loss_fn(cfg, state.model, dev, templates if LossWeights(**cfg.loss).nll_target == "template" else None)
        lr = cfg.lr
        step = 0
        graphed = GraphedGrads(state.model, loss_fn, make_batch(step), capture=cuda) if a.cuda_graph else None
        for _ in range(5 if a.compile else 2):  # warm-up (compilation, cuDNN autotuning, first bank)
            train_step(state, loss_fn, make_batch(step), step, lr, graphed)
            step += 1
        sync()

        host_batch = host_step = 0.0
        t0 = time.perf_counter()
        for _ in range(a.steps):
            h0 = time.perf_counter()
            batch = make_batch(step)
            h1 = time.perf_counter()
            train_step(state, loss_fn, batch, step, lr, graphed)
            host_batch += h1 - h0
            host_step += time.perf_counter() - h1
            step += 1
        sync()
        wall = (time.perf_counter() - t0) / a.steps
        name = torch.cuda.get_device_name(dev) if cuda else "cpu"
        print(f"{a.task} {a.baseline} {a.preset} batch {a.batch} compile={a.compile} cuda_graph={a.cuda_graph} on {name}, "
              f"levels from {a.impl or 'baselines/tsampling.py'}")
        print(f"loop:   {1 / wall:.1f} steps/s, {a.batch / wall:.0f} images/s, {wall * 1e3:.1f} ms/step; host "
              f"{host_batch / a.steps * 1e3:.1f} ms in make_batch + {host_step / a.steps * 1e3:.1f} ms in train_step")

        phase_batch = phase_step = 0.0
        for _ in range(a.steps):
            sync()
            p0 = time.perf_counter()
            batch = make_batch(step)
            sync()
            p1 = time.perf_counter()
            train_step(state, loss_fn, batch, step, lr, graphed)
            sync()
            phase_batch += p1 - p0
            phase_step += time.perf_counter() - p1
            step += 1
        print(f"phases: batch {phase_batch / a.steps * 1e3:.1f} ms, step {phase_step / a.steps * 1e3:.1f} ms (synchronised)")

        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with profile(activities=acts) as prof:
            for _ in range(5):
                train_step(state, loss_fn, make_batch(step), step, lr, graphed)
                step += 1
            sync()
        ops = sum(e.count for e in prof.key_averages() if e.key.startswith("aten::")) / 5
        print(f"aten operations a step: {ops:.0f}")
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=a.top, max_name_column_width=50))
    finally:
        if hasattr(stream, "close"):
            stream.close()


if __name__ == "__main__":
    main()
