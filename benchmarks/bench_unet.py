"""Speed of the paper-size Sudoku UNet (119M, 252x252): one training step at batch 28 and
one inference forward at batch 64, against the reference code's 396 ms and 473 ms on one
H100 (docs/reference-notes section 5).

Prints one JSON line per variant (ms per iteration, peak memory, model FLOPs per
iteration and MFU against the card's dense bf16 peak) and writes them all to --json.

    python benchmarks/bench_unet.py --variants eager,perblock,compile,compile_fullstep --json bench.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any, Callable

import numpy as np
import torch

from srm_bench.baselines.losses import srm_loss
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.presets import make_config
from srm_bench.baselines.samplers import pixel_levels
from srm_bench.baselines.train import build_model
from srm_bench.baselines.tsampling import NoiseLevelSampler, TSamplingConfig
from srm_bench.baselines.unet import UNet

REFERENCE_MS = {"train": 396.0, "infer": 473.0}  # reference code, one H100, bf16 (train compiled, inference eager)
DENSE_BF16_PEAK = {"H100": 989.4e12, "H200": 989.4e12}


class _PerBlock(dict):
    """Embedding looked up per block and recomputed every time (how the reference code did it)."""

    def __init__(self, fn: Callable[[int], torch.Tensor]) -> None:
        super().__init__()
        self.fn = fn

    def __getitem__(self, size: int) -> torch.Tensor:
        return self.fn(size)


class PerBlockUNet(UNet):
    """Same weights and maths, the noise-level embedding recomputed for every block (baseline of the speed-up)."""

    def _embeddings(self, t: torch.Tensor, dtype: torch.dtype) -> dict[int, torch.Tensor]:
        full = pixel_levels(t.float(), self.grid, self.config.patch_size)
        return _PerBlock(lambda size: self._embedding_at(full, size, dtype))


def peak_flops(name: str) -> float | None:
    return next((v for k, v in DENSE_BF16_PEAK.items() if k in name), None)


def time_it(fn: Callable[[], Any], warmup: int, iters: int) -> list[float]:
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        out.append(1000 * (time.perf_counter() - t0))
    return out


def count_flops(fn: Callable[[], Any]) -> int:
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter:
        fn()
    return int(counter.get_total_flops())


def run_variant(variant: str, args: argparse.Namespace) -> dict[str, Any]:
    cfg = make_config("sudoku", "srm", "paper")
    cls = PerBlockUNet if "perblock" in variant else None
    model = build_model(cfg.arch, cfg.model) if cls is None else cls(build_model(cfg.arch, cfg.model).config)
    model = model.cuda()
    cl = "channels_last" in variant
    if cl:
        model = model.to(memory_format=torch.channels_last)
    net = torch.compile(model) if "compile" in variant else model
    full_graph = "fullstep" in variant  # forward and loss compiled as one graph
    path = NoisePath()
    patch, grid = 28, (9, 9)
    ts = NoiseLevelSampler(TSamplingConfig(sharpness=1.0), 81)
    rng = np.random.default_rng(0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.95, 0.999), weight_decay=1e-6, fused=True)
    fmt = torch.channels_last if cl else torch.contiguous_format

    def batch(b: int) -> tuple[torch.Tensor, ...]:
        x = torch.rand(b, 1, 252, 252, device="cuda").mul(2).sub(1).contiguous(memory_format=fmt)
        t_np, w_np = ts.sample(b, rng, rng.random((b, 81)) < 0.3)
        t = torch.from_numpy(t_np).cuda()
        w = torch.from_numpy(w_np).cuda()
        eps = torch.randn_like(x)
        z = path.noise(x, eps, pixel_levels(t, grid, patch)).contiguous(memory_format=fmt)
        return x, eps, z, t, w

    xb = batch(args.train_batch)

    def forward_loss(x: torch.Tensor, eps: torch.Tensor, z: torch.Tensor, t: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = (model if full_graph else net)(z, t)
        return srm_loss(out, x, eps, z, t, w, path, patch)[0]

    step_fn = torch.compile(forward_loss) if full_graph else forward_loss

    def train_step() -> None:
        loss = step_fn(*xb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    ib = batch(args.infer_batch)

    def infer_step() -> None:
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            net(ib[2], ib[3])

    result: dict[str, Any] = {"variant": variant, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                              "params": sum(p.numel() for p in model.parameters())}
    peak = peak_flops(result["device"])
    for name, fn, b in (("train", train_step, args.train_batch), ("infer", infer_step, args.infer_batch)):
        if name not in args.runs:
            continue
        model.train(name == "train")
        torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        try:
            ms = time_it(fn, args.warmup, args.iters)
        except torch.OutOfMemoryError:
            result[name] = {"batch": b, "error": "out of memory"}
            torch.cuda.empty_cache()
            continue
        flops = count_flops(fn) if "compile" not in variant else None
        med = statistics.median(ms)
        result[name] = {
            "batch": b, "ms_median": round(med, 2), "ms_min": round(min(ms), 2), "iters": len(ms),
            "warmup_and_timing_s": round(time.perf_counter() - t0, 1),
            "peak_mem_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2),
            "reference_ms": REFERENCE_MS[name], "speedup_vs_reference": round(REFERENCE_MS[name] / med, 3),
            "model_tflop_per_iter": None if flops is None else round(flops / 1e12, 3),
        }
        if flops is not None and peak:
            result[name]["mfu"] = round(flops / (med / 1000) / peak, 4)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default="eager,perblock,compile,compile_fullstep",
                    help="eager, perblock (embedding per block, as the reference), channels_last, compile, "
                         "compile_channels_last, compile_fullstep (network and loss in one graph)")
    ap.add_argument("--runs", default="train,infer")
    ap.add_argument("--train-batch", type=int, default=28)
    ap.add_argument("--infer-batch", type=int, default=64)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    args.runs = args.runs.split(",")
    if not torch.cuda.is_available():
        raise SystemExit("bench_unet needs a CUDA GPU")
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    results = []
    flops_by_run: dict[str, float] = {}
    for v in args.variants.split(","):
        r = run_variant(v, args)
        for run in ("train", "infer"):  # compiled runs: same model FLOPs as eager
            rr = r.get(run)
            if isinstance(rr, dict) and "ms_median" in rr:
                if rr["model_tflop_per_iter"] is not None:
                    flops_by_run[run] = rr["model_tflop_per_iter"] * 1e12
                elif run in flops_by_run and peak_flops(r["device"]):
                    rr["model_tflop_per_iter"] = round(flops_by_run[run] / 1e12, 3)
                    rr["mfu"] = round(flops_by_run[run] / (rr["ms_median"] / 1000) / peak_flops(r["device"]), 4)
        print(json.dumps(r), flush=True)
        results.append(r)
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
