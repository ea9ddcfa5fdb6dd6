"""What ``srm-bench train --compile-cache`` saves a fresh machine: the wall time of a short compiled
training run with an empty compiler cache, then again in a new process with another empty
compiler cache (a fresh machine's state) but the artifacts file the first run wrote.

Usage:
    python benchmarks/bench_compile_cache.py                                  # CPU, Even Pixels unet-s-g16-gc
    python benchmarks/bench_compile_cache.py --device cuda --batch 512 --cuda-graph   # one GPU

Prints one JSON line: the two wall times (process start to the end of training, imports
included), the file's size, and the compiler's cache hits and misses in each run.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN = """
import json, sys, time
from srm_bench.baselines.presets import make_config, with_overrides
from srm_bench.baselines.train import train
from torch._dynamo.utils import counters
task, preset, batch, steps, device, graph, out, cache = sys.argv[1:9]
cfg = with_overrides(make_config(task, "srm", preset), batch_size=int(batch), steps=int(steps), compile=True,
                     cuda_graph=graph == "1")
train(cfg, None, out, device=device, progress=False, compile_cache=cache)
print(json.dumps({k: v for k, v in counters["inductor"].items() if "cache" in k}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="even-pixels")
    ap.add_argument("--preset", default="unet-s-g16-gc")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--cuda-graph", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "compile-cache.gz"
        row: dict = {"task": args.task, "preset": args.preset, "batch": args.batch, "steps": args.steps,
                     "device": args.device, "cuda_graph": args.cuda_graph}
        for name in ("cold", "from_file"):
            env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(Path(tmp) / f"inductor-{name}"),
                   "TRITON_CACHE_DIR": str(Path(tmp) / f"triton-{name}")}
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", RUN, args.task, args.preset, str(args.batch), str(args.steps),
                                   args.device, "1" if args.cuda_graph else "0", str(Path(tmp) / f"run-{name}"),
                                   str(cache)], env=env, capture_output=True, text=True)
            if proc.returncode:
                sys.exit(f"bench_compile_cache: the {name} run failed:\n{proc.stderr[-3000:]}")
            row[f"{name}_s"] = round(time.perf_counter() - t0, 1)
            row[f"{name}_counters"] = json.loads(proc.stdout.strip().splitlines()[-1])
            if name == "cold":
                row["cache_bytes"] = cache.stat().st_size
        print(json.dumps(row))


if __name__ == "__main__":
    main()
