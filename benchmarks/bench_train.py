"""Training throughput of the baselines, measured with the real training loop.

Usage (GPU machine):
    python benchmarks/bench_train.py --task sudoku --preset cell --batch 256 --data gpu files
    torchrun --nproc_per_node 2 benchmarks/bench_train.py --task sudoku --preset cell --batch 512 --data gpu
    bash benchmarks/device/ddp_matrix.sh cell-aux     # 1 vs 2 vs 4 GPUs, compiled or not (one device call)
    bash benchmarks/device/graph_race.sh unet-s-g16-gc   # the CUDA-graph step against the plain one, 1-4 GPUs

Each row runs ``srm_bench.baselines.train.train`` for ``--steps`` steps (the first
``--warmup`` are not timed) and appends a row to ``--json`` (default
benchmarks/results/train-throughput.json): device, gpus, preset, task, batch, images_per_s,
step_ms, mfu (model FLOPs of forward + backward, counted by torch's FlopCounterMode, over
the card's dense bf16 peak), peak_gib and data ("gpu": fresh data drawn on the device;
"files": a generated train split gathered on the host, the path every step took before),
compile and cuda_graph (``--cuda-graph``: the step's forward and backward replayed as one CUDA graph);
Counting rows add data_wait_s (the seconds the loop waited on its background rendering, warm-up
included) and render_workers (``--render-workers``; None: the default).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from pathlib import Path

import torch

from srm_bench.baselines.presets import make_config, with_overrides
from srm_bench.baselines.train import _dist, build_model, train
from srm_bench.baselines.tsampling import TSamplingConfig
from srm_bench.errors import SrmBenchError

PEAK_BF16 = {"H100": 989e12, "H200": 989e12}  # dense bf16 tensor-core peak (SXM)


def flops_per_image(cfg, device: torch.device) -> float:
    """Forward + backward FLOPs of one image, counted on a batch of 2."""
    from torch.utils.flop_counter import FlopCounterMode

    model = build_model(cfg.arch, cfg.model).to(device)
    size, ch, patch = cfg.model["image_size"], cfg.model["in_channels"], cfg.model["patch_size"]
    x = torch.randn(2, ch, size, size, device=device)
    t = torch.rand(2, (size // patch) ** 2, device=device)
    cond = torch.randn(2, cfg.model.get("cond_channels", 0), size, size, device=device) if cfg.model.get("cond_channels") else None
    counter = FlopCounterMode(display=False)
    with counter, torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
        out = model(x, t, cond)
        (out.mean.float().square().mean() + out.logvar.float().mean()).backward()
    return counter.get_total_flops() / 2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="sudoku")
    ap.add_argument("--preset", default="cell")
    ap.add_argument("--baseline", default="srm")
    ap.add_argument("--batch", type=int, default=256, help="effective batch over all GPUs")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--data", nargs="+", default=["gpu"], choices=["gpu", "files"])
    ap.add_argument("--files-dir", default=None, help="train split for --data files [generate 20k items]")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--cuda-graph", action="store_true",
                    help="replay each step's forward and backward as one CUDA graph (`srm-bench train --cuda-graph`)")
    ap.add_argument("--no-optimize-ddp", action="store_true",
                    help="with --compile under DDP: compile one graph instead of one per gradient bucket "
                         "(torch._dynamo.config.optimize_ddp = False)")
    ap.add_argument("--render-workers", type=int, default=None,
                    help="Counting: the stream's render processes (`srm-bench train --render-workers`) [min(4, CPUs)]")
    ap.add_argument("--tsampling", action="append", default=[], metavar="KEY=VALUE",
                    help="a training-levels option, e.g. sequential_mix=0.5 sequential_order=predicted (repeat it)")
    ap.add_argument("--json", default=str(Path(__file__).parent / "results" / "train-throughput.json"))
    args = ap.parse_args()
    if args.no_optimize_ddp:
        import torch._dynamo as dynamo  # an alias: a bare "import torch._dynamo" would make torch local to main()

        dynamo.config.optimize_ddp = False
    rank, world, local = _dist()
    device = torch.device(f"cuda:{local}" if torch.cuda.is_available() else "cpu")
    cfg = with_overrides(make_config(args.task, args.baseline, args.preset), batch_size=args.batch,
                         steps=args.warmup + args.steps, log_every=args.warmup, ckpt_every=10**9,
                         compile=args.compile or None, cuda_graph=args.cuda_graph or None)
    levels = {}
    for item in args.tsampling:
        key, _, value = item.partition("=")
        if key not in cfg.tsampling or not value:
            ap.error(f"--tsampling {item}: KEY=VALUE with KEY one of {', '.join(cfg.tsampling)}")
        try:
            levels[key] = value if isinstance(cfg.tsampling[key], str) else type(cfg.tsampling[key])(value)
        except ValueError:
            ap.error(f"--tsampling {item}: {key} takes a {type(cfg.tsampling[key]).__name__}")
    if levels:
        cfg = with_overrides(cfg, tsampling={**cfg.tsampling, **levels})
        try:
            TSamplingConfig(**cfg.tsampling).validate()
        except SrmBenchError as exc:
            ap.error(f"--tsampling: {exc}")
    fpi = flops_per_image(cfg, device) if rank == 0 else 0.0
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    peak = next((v for k, v in PEAK_BF16.items() if k in name), None)
    rows = []
    for data in args.data:
        source = None
        if data == "files":
            source = args.files_dir
            if source is None:
                import srm_bench

                source = Path(tempfile.mkdtemp()) / "train"
                if rank == 0:
                    srm_bench.generate(args.task, "train", n=20_000, out=source, workers=min(16, os.cpu_count() or 1),
                                       progress=False)
                if world > 1:
                    torch.distributed.barrier()
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        with tempfile.TemporaryDirectory() as tmp:
            summary = train(cfg, source, tmp, device=str(device), resume=False, progress=False,
                            render_workers=args.render_workers if source is None else None)
            if rank != 0:  # only rank 0 writes the log
                continue
            with open(Path(tmp) / "log.csv") as f:
                log = list(csv.DictReader(f))
        ips = float(log[-1]["images_per_s"])  # the steps after the warm-up row
        row = {"device": name, "gpus": world, "preset": args.preset, "task": args.task, "baseline": args.baseline,
               "batch": args.batch, "images_per_s": round(ips, 1), "step_ms": round(1000 * args.batch / ips, 2),
               "mfu": round(fpi * ips / (peak * world), 4) if peak else None,
               "peak_gib": round(torch.cuda.max_memory_allocated(device) / 2**30, 2) if device.type == "cuda" else None,
               "data": data, "compile": bool(args.compile), "cuda_graph": bool(args.cuda_graph),
               "optimize_ddp": not args.no_optimize_ddp,
               "params": sum(p.numel() for p in build_model(cfg.arch, cfg.model).parameters())}
        if levels:  # the training levels' options given (e.g. the extra forward of sequential_order predicted)
            row["tsampling"] = levels
        if "data_wait_s" in summary:  # Counting's background rendering: seconds the loop waited on it
            row.update(data_wait_s=summary["data_wait_s"], render_workers=args.render_workers)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if rank == 0:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        old = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(old + rows, indent=1) + "\n")
    if world > 1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
