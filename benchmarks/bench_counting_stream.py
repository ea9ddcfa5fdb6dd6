"""The Counting training stream (baselines/streams.py CountingStream); prints its figures.

Usage:
    python benchmarks/bench_counting_stream.py [--task counting-polygons] [--bank-size 512] [--workers 1,2]
        [--draw-rate 2000] [--batch 56] [--views 4] [--draws 300] [--device cpu]

Figures (wall clock):
- ``render``: images/s of bank rendering with W workers (bank 1, rendered while nothing else
  runs; bank 0 absorbs the start-up);
- ``labels``: seconds of one core for the patch classes of one bank's items (part of the rendering above);
- ``loop``: a trainer that draws ``--batch`` images per step at ``--draw-rate`` images/s (the
  step's compute simulated by sleeping), with ``refresh`` = views x bank / batch draws per bank:
  the seconds its draws waited for rendering after the first bank, the share of the loop's wall
  time that is, and the render rate the loop needs (draw rate / views).
"""
from __future__ import annotations

import argparse
import time

import torch

from srm_bench.baselines.streams import STREAMS


def bench_render(task: str, bank_size: int, workers: int, device: str) -> float:
    with STREAMS[task](device, bank_size=bank_size, refresh=1, workers=workers) as s:  # type: ignore[call-arg]
        s.draw(1)  # bank 0 on the device; bank 1 starts now
        t0 = time.perf_counter()
        s.wait_next()
        return bank_size / (time.perf_counter() - t0)


def bench_labels(task: str, bank_size: int) -> float:
    """Seconds of one core that the patch classes of a bank's items take (``streams.patch_classes``, computed by the
    render workers beside the images), on a rendered bank's own items."""
    from srm_bench.baselines.streams import patch_classes
    from srm_bench.registry import get_task

    with STREAMS[task]("cpu", bank_size=bank_size, refresh=1, workers=1) as s:  # type: ignore[call-arg]
        s.draw(1)
        items = {k: v for k, v in s.items.items() if k != "patch_classes"}
    spec = get_task(task)
    t0 = time.perf_counter()
    patch_classes(items, spec.image_shape[0] // spec.patch_size)
    return time.perf_counter() - t0


def bench_loop(task: str, bank_size: int, workers: int, device: str, rate: float, batch: int, views: float,
               draws: int) -> dict[str, float]:
    refresh = max(1, round(views * bank_size / batch))
    period = batch / rate
    with STREAMS[task](device, bank_size=bank_size, refresh=refresh, workers=workers) as s:  # type: ignore[call-arg]
        torch.manual_seed(0)
        s.draw(batch)
        first = s.wait_s
        t0 = next_t = time.perf_counter()
        for _ in range(draws - 1):
            next_t += period
            s.draw(batch)
            pause = next_t - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            else:  # a late step (a wait): the next one starts from now, as a real trainer's would
                next_t = time.perf_counter()
        wall = time.perf_counter() - t0
        waited = s.wait_s - first
        return {"refresh": refresh, "banks": s.banks_served, "first_wait_s": first, "wait_s": waited,
                "wait_share": waited / wall, "wall_s": wall, "images_per_s": (draws - 1) * batch / wall,
                "upload_s": s.upload_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="counting-polygons", choices=["counting-polygons", "counting-stars"])
    ap.add_argument("--bank-size", type=int, default=512)
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    ap.add_argument("--draw-rate", type=float, default=2000.0, help="images/s the simulated trainer consumes")
    ap.add_argument("--batch", type=int, default=56)
    ap.add_argument("--views", type=float, default=4.0, help="draws of an image per bank on average")
    ap.add_argument("--draws", type=int, default=300)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    print(f"# {args.task}, bank {args.bank_size}, device {args.device}, torch {torch.__version__}")
    for w in (int(v) for v in args.workers.split(",")):
        rate = bench_render(args.task, args.bank_size, w, args.device)
        print(f"render  workers={w}: {rate:8.1f} images/s")
    print(f"labels  the patch classes of a bank of {args.bank_size}: {bench_labels(args.task, args.bank_size):.4f} s "
          "of one core (in the render workers)")
    for w in (int(v) for v in args.workers.split(",")):
        r = bench_loop(args.task, args.bank_size, w, args.device, args.draw_rate, args.batch, args.views, args.draws)
        print(f"loop    workers={w}: draw {args.draw_rate:.0f} img/s at batch {args.batch}, refresh {r['refresh']} "
              f"(needs {args.draw_rate / args.views:.0f} img/s rendered): {args.draws} draws, {r['banks']} banks, "
              f"first bank {r['first_wait_s']:.2f} s, waits after it {r['wait_s']:.2f} s "
              f"({100 * r['wait_share']:.1f}% of {r['wall_s']:.1f} s), served {r['images_per_s']:.0f} img/s, "
              f"uploads {r['upload_s']:.2f} s")


if __name__ == "__main__":
    main()
