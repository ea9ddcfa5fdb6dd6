"""Refit only the uncertainty head of a trained Sudoku model on another target (CPU, minutes).

The trunk, the drawing path and the class head stay frozen. The zero-initialised linear
log-variance head is trained alone with the Gaussian NLL of the chosen target
(``--blur 1``: the paper's per-pixel error; ``--blur 7``: the error averaged over 7x7
blocks first; ``--target template``: the error against the mean image of the cell's digit,
preset cell-aux-tpl's target; ``--target class``: the class head's cross-entropy at the cell's digit,
preset cell-aux-cls's; ``--target miss``: 1 - its probability of the digit, preset cell-aux-miss's; for both ``--blur`` does not matter). Data are training batches as `srm-bench train` draws them. Then the script reports,
for the refitted head, the first-pick statistics of benchmarks/check_reasoning.py. With
``--sample N`` it also samples N hard puzzles in predicted order (1000 NFE, eta 1) and scores
them, once with the shipped head and once with the refitted one.

A probe of what the target does when the features are held fixed, not a trained model: the
weights are written only with ``-o`` and are never shipped.

Usage: python benchmarks/refit_uncertainty_head.py WEIGHTS --blur 7 [--target sample|template|class|miss] [--floor 0] [--mlp] [--steps 600] [--batch 16] [--sample 32] [-o out.safetensors]
"""
from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import numpy as np
import torch

from srm_bench.baselines.losses import LossWeights, srm_loss
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.streams import SudokuStream
from srm_bench.baselines.train import BatchMaker, build_model, load_weights, save_weights

from check_reasoning import candidates, first_pick, sampler_states


def first_picks(model: torch.nn.Module, noise: NoisePath, count: int, givens: list[int], seed: int) -> list[str]:
    lines = []
    for k, batch, known, out in sampler_states(model, noise, count, givens, seed):
        rows = torch.arange(count)
        single = ~known & (candidates(batch.labels, known).sum(-1) == 1)
        right = out.logits.argmax(-1) == batch.labels
        pick = first_pick(out.logvar, known)
        lines.append(f"{k} givens: first pick naked single {single[rows, pick].float().mean():.2f}, class head right "
                     f"{right[rows, pick].float().mean():.2f}, holds a 1 in {int((batch.labels[rows, pick] == 0).sum())} "
                     f"of {count}")
    return lines


def hard_accuracy(model: torch.nn.Module, cfg, n: int) -> float:
    from srm_bench.baselines.inference import sample_images
    from srm_bench.baselines.schedules import SamplerConfig
    from srm_bench.canonical import canonical_dataset
    from srm_bench.registry import get_task

    ds = canonical_dataset("sudoku", "hard")
    idx = np.arange(n)
    known = np.asarray(ds.items["mask"][idx], dtype=bool).reshape(n, -1)
    sampler = SamplerConfig(name="sequential", order="predicted", steps=1000, eta=1.0)
    images = sample_images(model, cfg, sampler, idx, seed=0, device="cpu", batch_size=n, given=ds.images(idx), known=known)
    evaluator = get_task("sudoku").evaluator_module().EVALUATOR
    return float(np.mean(evaluator.score(images, reference=ds, index=idx)["accuracy"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("--blur", type=int, default=7)
    ap.add_argument("--target", choices=["sample", "template", "class", "miss"], default="sample",
                    help="the error against the training sample (the paper's) or the digit's mean image, or the "
                         "class head's cross-entropy at the cell's digit (preset cell-aux-cls), or its probability "
                         "of missing that digit, 1 - p (preset cell-aux-miss)")
    ap.add_argument("--floor", type=float, default=0.0,
                    help="least error the head is asked to predict (LossWeights.nll_floor; preset cell-aux-cls: 1e-4)")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--count", type=int, default=128)
    ap.add_argument("--givens", type=int, nargs="+", default=[20, 25, 35])
    ap.add_argument("--sample", type=int, default=0, help="hard puzzles to sample with both heads (0: none)")
    ap.add_argument("--mlp", action="store_true",
                    help="refit a two-layer MLP head (width 256) instead of the linear one: can a head on these "
                         "features represent the target at all?")
    ap.add_argument("-o", "--out", default=None)
    a = ap.parse_args()
    torch.set_num_threads(2)
    state, cfg, record = load_weights(a.weights)
    model = build_model(cfg.arch, cfg.model)
    model.load_state_dict(state)
    shipped = copy.deepcopy(model).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    if a.mlp:
        if a.out:
            raise SystemExit("-o writes only linear heads (the network's own layout)")
        width = model.logvar_head.in_features
        model.logvar_head = torch.nn.Sequential(torch.nn.Linear(width, 256), torch.nn.SiLU(), torch.nn.Linear(256, 1))
        torch.nn.init.zeros_(model.logvar_head[2].weight)
        torch.nn.init.zeros_(model.logvar_head[2].bias)
    else:
        torch.nn.init.zeros_(model.logvar_head.weight)
        torch.nn.init.zeros_(model.logvar_head.bias)
    head = model.logvar_head
    for p in head.parameters():
        p.requires_grad_(True)
    model.eval()  # no dropout; the frozen parts act as at sampling time
    opt = torch.optim.Adam(head.parameters(), lr=a.lr)
    stream = SudokuStream("cpu")
    make_batch = BatchMaker(cfg, torch.device("cpu"), rank=0, local_batch=a.batch, stream=stream)
    path = NoisePath(cfg.noise_path, cfg.target)
    lw = LossWeights(mse=0.0, vlb=0.0, nll=1.0, nll_blur=a.blur, nll_target=a.target, nll_floor=a.floor)
    templates = stream.templates()
    torch.manual_seed(1234)
    t0 = time.perf_counter()
    for step in range(a.steps):
        z, t, cond, x, eps, w, labels = make_batch(step).astuple()
        out = model(z, t, cond)
        loss, parts = srm_loss(out, x, eps, z, t, w, path, cfg.model["patch_size"], lw, labels, templates)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if (step + 1) % 50 == 0:
            print(f"step {step + 1}: nll {float(parts['nll']):.4f} ({time.perf_counter() - t0:.0f} s)", flush=True)
    model.eval()
    kind = "MLP" if a.mlp else "linear"
    what = {"class": "the class head's cross-entropy", "miss": "1 - the class head's probability of the digit"}.get(
        a.target, f"error against the {a.target}, over {a.blur}x{a.blur} blocks")
    print(f"refitted {kind} head (target: {what}), {a.steps} steps of {a.batch}:")
    for line in first_picks(model, path, a.count, a.givens, 0):
        print("  " + line)
    print("shipped head:")
    for line in first_picks(shipped, path, a.count, a.givens, 0):
        print("  " + line)
    if a.sample:
        for name, m in (("shipped head", shipped), (f"refitted head, blur {a.blur}", model)):
            t1 = time.perf_counter()
            print(f"hard, predicted order, 1000 NFE, eta 1, {a.sample} puzzles, {name}: accuracy "
                  f"{hard_accuracy(m, cfg, a.sample):.3f} ({time.perf_counter() - t1:.0f} s)", flush=True)
    if a.out:
        save_weights(Path(a.out), model, cfg, {**record, "note": f"uncertainty head refitted on CPU, {a.target}, blur {a.blur}"})
        print("wrote", a.out)


if __name__ == "__main__":
    main()
