"""Does the CUDA-graph step (``srm-bench train --cuda-graph``) compute the plain step's gradients
on this device? Prints its figures.

From one fresh network of a preset: the plain forward and backward on two batches A and B, then
the graph (captured on A's shapes) replayed on A and on B. A replay that ignored its new inputs, kept a
stale gradient or a stale bf16 cast of the weights would miss B. The figures are the relative
difference of the flat gradient, ||g_graph - g_plain|| / ||g_plain||, and of the loss; bf16
autocast and cuDNN's choice of algorithms make them small but not zero, so compare them with
B's difference against A (the size of a real change).

Usage (GPU machine):
    python benchmarks/check_cuda_graph.py --task even-pixels --preset unet-s-g16-gc --batch 512 [--compile]
        [--max-diff 0.05]   # exit 1 when a replay's gradient differs from the plain step's by more
"""
from __future__ import annotations

import argparse
from dataclasses import replace

import torch

from srm_bench.baselines.presets import make_config
from srm_bench.baselines.streams import make_stream
from srm_bench.baselines.train import BatchMaker, GraphedGrads, TrainState, _setup_device, make_loss_fn


def flat_grad(model: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.reshape(-1).float() for p in model.parameters() if p.grad is not None])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="even-pixels")
    ap.add_argument("--preset", default="unet-s-g16-gc")
    ap.add_argument("--baseline", default="srm", choices=["srm", "ddpm"])
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--max-diff", type=float, default=None,
                    help="exit 1 when a replay's relative gradient difference passes this (a lease's go/no-go)")
    a = ap.parse_args()
    worst = 0.0
    dev = _setup_device(a.device, 0)
    cfg = replace(make_config(a.task, a.baseline, a.preset), batch_size=a.batch, compile=a.compile, cuda_graph=True)
    stream = make_stream(a.task, dev, batch=a.batch)
    try:
        state = TrainState.fresh(cfg, dev)
        make_batch = BatchMaker(cfg, dev, rank=0, local_batch=a.batch, stream=stream)
        templates = stream.templates() if hasattr(stream, "templates") else None
        loss_fn = make_loss_fn(cfg, state.model, dev, templates)
        batches = {"A": make_batch(0), "B": make_batch(1)}
        seeds = {"A": 10, "B": 11}  # the same dropout draws in both steps (the generator is read at each replay)
        plain = {}
        for name, b in batches.items():  # the plain step, as train_step runs it
            state.model.zero_grad(set_to_none=True)
            torch.manual_seed(seeds[name])
            loss, _ = loss_fn(*b.astuple())
            loss.backward()
            plain[name] = (float(loss.detach()), flat_grad(state.model))
        # Drop the plain steps' autograd graphs: a live one keeps each parameter's AccumulateGrad
        # node of the default stream, and the capture (on a side stream) then fails with
        # "operation would make the legacy stream depend on a capturing blocking stream" (lease y).
        del loss, _
        state.model.zero_grad(set_to_none=True)
        graphed = GraphedGrads(state.model, loss_fn, batches["A"], capture=dev.type == "cuda")
        print(f"{a.task} {a.baseline} {a.preset} batch {a.batch} compile={a.compile} on "
              f"{torch.cuda.get_device_name(dev) if dev.type == 'cuda' else 'cpu'}, captured={graphed.graph is not None}")
        ref = plain["A"][1]
        print(f"plain B against plain A: gradient {float((plain['B'][1] - ref).norm() / ref.norm()):.3e} (a real change)")
        for name in ("A", "B", "A"):
            torch.manual_seed(seeds[name])
            loss, _ = graphed(batches[name])
            g = flat_grad(state.model)
            p_loss, p_grad = plain[name]
            diff = float((g - p_grad).norm() / p_grad.norm())
            worst = max(worst, diff)
            print(f"graph on {name}: gradient {diff:.3e}, "
                  f"loss {abs(float(loss) - p_loss) / abs(p_loss):.3e} against the plain step")
    finally:
        if hasattr(stream, "close"):
            stream.close()
    if a.max_diff is not None and not worst <= a.max_diff:  # NaN fails too
        raise SystemExit(f"check_cuda_graph: the graph's gradient differs by {worst:.3e} (> {a.max_diff}): "
                         "train without --cuda-graph")


if __name__ == "__main__":
    main()
