"""How often does a Sudoku SRM draw another digit than the one it predicted when it picked the cell?

The failure trace (benchmarks/trace_sudoku_failures.py) found that the shipped model loses hard
puzzles in the sampling tail. It picks a cell whose digit its class head is sure of, and the cell
ends on another digit while it is drawn. This probe measures that flip rate directly, in the states
the predicted-order sampler visits, without sampling whole puzzles.

Each trial takes a canonical puzzle and a random order of its open cells. The first k open cells are
written clean with their true digits, with k uniform over 0 .. open - 1. The next open cell is
the target. The rest are pure noise. The target alone is then drawn from t = 1 to 0 over
--steps-per-cell even steps, with the paper's reverse step (eta as given), while everything else
stays fixed. (A 1000-NFE sample of a hard puzzle gives a cell ~16 steps.) The target's digit is
recorded twice:
- at the pick: the class head's top digit and probability, the cell still pure noise;
- at the end: the evaluator's reading of the drawn cell.

flip = the end digit differs from the pick's top digit. wrong = the end digit is not the solution's.
Where the pick's top probability is >= 0.9, a flip is what the failure trace blamed.

Usage: python benchmarks/probe_sudoku_flips.py WEIGHTS... [-n 128] [--repeats 4] [--split hard]
       [--steps-per-cell 16] [--eta 1] [--seed 0] [--device cpu] [--batch-size 128]
(2-core CPU: 205 s a model at n x repeats = 512 trials; one H200: 5 s for -n 500 --repeats 8, lease i.)
Prints one block per model.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.inference import load_denoiser
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.samplers import reverse_step
from srm_bench.canonical import canonical_dataset
from srm_bench.registry import get_task

GRID, TILE = 9, 28


def trials(split: str, n: int, repeats: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Contexts: the clean image (true digits in given and committed cells), the levels (B, 81),
    the target cell and its true digit, and the committed share of the open cells."""
    ds = canonical_dataset("sudoku", split)
    idx = np.repeat(np.arange(n), repeats)
    known = np.asarray(ds.items["mask"][idx], dtype=bool).reshape(len(idx), 81)
    solution = np.asarray(ds.items["grid"][idx]).reshape(len(idx), 81)
    levels = np.ones((len(idx), 81), dtype=np.float32)
    levels[known] = 0.0
    target = np.zeros(len(idx), dtype=np.int64)
    share = np.zeros(len(idx))
    for r in range(len(idx)):
        open_cells = rng.permutation(np.flatnonzero(~known[r]))
        k = int(rng.integers(0, len(open_cells)))
        levels[r, open_cells[:k]] = 0.0
        target[r] = open_cells[k]
        share[r] = k / len(open_cells)
    return {"images": ds.images(idx), "levels": levels, "target": target, "digit": solution[np.arange(len(idx)), target],
            "share": share}


@torch.no_grad()
def draw(model, cfg, images: np.ndarray, levels_np: np.ndarray, target: np.ndarray, steps: int, eta: float,
         seed: int, device: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk of trials: the pick's top probability and digit, and the final pixels (uint8)."""
    b = len(target)
    gen = torch.Generator(device=device).manual_seed(seed)
    clean = torch.from_numpy(images).to(device).permute(0, 3, 1, 2).float() / 127.5 - 1.0
    levels = torch.from_numpy(levels_np).to(device)
    noise0 = torch.randn(clean.shape, generator=gen, device=device)
    z = torch.where(pixel_levels(levels, (GRID, GRID), TILE) > 0.5, noise0, clean)
    path = NoisePath(cfg.noise_path, cfg.target)
    rows = torch.arange(b, device=device)
    tgt = torch.from_numpy(target).to(device)
    pick_p = pick_d = None
    for j in range(steps):
        t, s = levels.clone(), levels.clone()
        t[rows, tgt], s[rows, tgt] = 1.0 - j / steps, 1.0 - (j + 1) / steps
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda") and cfg.bf16):
            out = model(z, t, None)
        if j == 0:
            prob = torch.softmax(out.logits.float()[rows, tgt], -1)
            pick_p, pick_d = prob.max(-1)
        noise = torch.randn(z.shape, generator=gen, device=device)
        z, _ = reverse_step(path, z, out, pixel_levels(t, (GRID, GRID), TILE), pixel_levels(s, (GRID, GRID), TILE), eta, noise)
    assert pick_p is not None and pick_d is not None
    img = ((z.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).cpu().numpy()[:, 0]
    return pick_p.cpu().numpy(), pick_d.cpu().numpy() + 1, img


def probe(model, cfg, ctx: dict[str, np.ndarray], steps: int, eta: float, seed: int, device: str = "cpu",
          batch_size: int = 128) -> dict[str, np.ndarray]:
    """Draw each target cell alone, in chunks of ``batch_size`` trials (chunk c seeded seed + c);
    the pick's top digit and probability, and the digit read at the end."""
    parts = [draw(model, cfg, ctx["images"][lo:lo + batch_size], ctx["levels"][lo:lo + batch_size],
                  ctx["target"][lo:lo + batch_size], steps, eta, seed + lo // batch_size, device)
             for lo in range(0, len(ctx["target"]), batch_size)]
    pick_p, pick_d = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    img = np.concatenate([p[2] for p in parts])
    b = len(img)
    r0, c0 = (ctx["target"] // GRID) * TILE, (ctx["target"] % GRID) * TILE
    tiles = np.stack([img[i, r0[i]:r0[i] + TILE, c0[i]:c0[i] + TILE] for i in range(b)])
    end_d, end_conf = get_task("sudoku").evaluator_module().EVALUATOR.read(tiles)
    return {"pick_p": pick_p, "pick_d": pick_d, "end_d": end_d.astype(np.int64), "end_conf": end_conf}


def report(name: str, images: int | None, ctx: dict[str, np.ndarray], res: dict[str, np.ndarray], wall: float) -> None:
    flip = res["end_d"] != res["pick_d"]
    wrong = res["end_d"] != ctx["digit"]
    sure = res["pick_p"] >= 0.9
    print(f"{name}: {images / 1e6 if images else float('nan'):.1f}M images, {len(flip)} trials, {wall:.0f} s")
    print(f"  pick right {np.mean(res['pick_d'] == ctx['digit']):.3f}, end right {1 - wrong.mean():.3f}, "
          f"flip {flip.mean():.3f}; picks at >= 0.9: {sure.mean():.3f} of trials, flip there {flip[sure].mean():.3f} "
          f"({flip[sure].sum()} of {sure.sum()}), pick right there {np.mean(res['pick_d'][sure] == ctx['digit'][sure]):.3f}")
    for lo, hi in ((0, 1 / 3), (1 / 3, 2 / 3), (2 / 3, 1.01)):
        m = (ctx["share"] >= lo) & (ctx["share"] < hi)
        ms = m & sure
        print(f"  open cells committed {lo:.2f}-{min(hi, 1):.2f}: {m.sum():4d} trials, flip {flip[m].mean():.3f}, "
              f"at >= 0.9 {flip[ms].mean() if ms.any() else float('nan'):.3f} ({ms.sum()}), end right {1 - wrong[m].mean():.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("-n", type=int, default=128, help="puzzles")
    ap.add_argument("--repeats", type=int, default=4, help="contexts per puzzle")
    ap.add_argument("--split", default="hard")
    ap.add_argument("--steps-per-cell", type=int, default=16)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--batch-size", type=int, default=128, help="trials drawn at once")
    a = ap.parse_args()
    ctx = trials(a.split, a.n, a.repeats, np.random.default_rng(a.seed))
    for w in a.weights:
        model, cfg, state = load_denoiser(w, a.device)
        if cfg.task != "sudoku" or cfg.baseline != "srm" or not cfg.model.get("classes", 0):
            raise SystemExit(f"{w}: a {cfg.baseline} on {cfg.task}; the probe needs a Sudoku SRM with a class head")
        t0 = time.perf_counter()
        res = probe(model, cfg, ctx, a.steps_per_cell, a.eta, a.seed, a.device, a.batch_size)
        report(w, state.get("images"), ctx, res, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
