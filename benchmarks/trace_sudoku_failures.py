"""Where does a Sudoku SRM go wrong in predicted order? Replays each sample's commit order.

Samples N canonical puzzles sequentially (overlap 0: one cell finishes before the next starts),
records the step at which each open cell reaches noise level 0, reads the final digits with the
benchmark's reader, and replays the cells in that order against the grid filled so far. Each
commit is one of:

- forced: the cell had one candidate (row/column/box of the cells filled so far) and got it;
- choice: it had several and got one of them; the choice is *wrong* when the grid filled so far
  no longer has a completion (a backtracking check);
- conflict: the digit read clashes with a filled cell although a candidate existed;
- dead end: no digit fitted any more (an earlier commit made the cell impossible).

For every failed sample the first wrong event is reported, with whether a cell with one
candidate was open elsewhere at that moment (an order the head could have avoided).

For models with a class head, the script also reads the head's posterior over a cell's digit at
the step the cell is picked (the sampler starts its ramp; the cell is still pure noise) and at
its last step. Per kind of commit it prints the median top probability at the pick, whether
that top digit is the one finally written, and whether another open cell had a lower class
entropy then (a surer cell the order passed over). For each first wrong commit it says whether
the pick's top digit would have kept a completion and whether the head, at the cell's last step,
read the digit written: a right top digit at the pick with the wrong digit read at the end means
the digit changed while the cell was drawn, not that the model reasoned wrongly.

Usage: python benchmarks/trace_sudoku_failures.py WEIGHTS [--split hard] [-n 32] [--steps 1000]
       [--eta 1] [--uncertainty logvar|entropy] [--start 0]
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
import torch

from srm_bench.baselines.inference import load_denoiser, sample_images
from srm_bench.baselines.schedules import SamplerConfig
from srm_bench.canonical import canonical_dataset
from srm_bench.registry import get_task


def candidates(grid: np.ndarray, cell: int) -> set[int]:
    """Digits 1-9 not yet in the row, column or box of ``cell`` (grid: 9x9, 0 = empty)."""
    r, c = divmod(cell, 9)
    br, bc = 3 * (r // 3), 3 * (c // 3)
    used = set(grid[r].tolist()) | set(grid[:, c].tolist()) | set(grid[br:br + 3, bc:bc + 3].ravel().tolist())
    return set(range(1, 10)) - used


def solvable(grid: np.ndarray) -> bool:
    """Whether the partial grid has a completion: exact cover (Algorithm X with sets), which
    proves a dead end fast where plain depth-first search over an emptyish grid does not."""
    rows = {(r, c, d): [("cell", r, c), ("row", r, d), ("col", c, d), ("box", 3 * (r // 3) + c // 3, d)]
            for r in range(9) for c in range(9) for d in range(1, 10)}
    cols: dict[tuple, set] = {}
    for key, items in rows.items():
        for item in items:
            cols.setdefault(item, set()).add(key)

    def select(key: tuple) -> list[set]:
        removed = []
        for j in rows[key]:
            for i in cols[j]:
                for k in rows[i]:
                    if k != j:
                        cols[k].discard(i)
            removed.append(cols.pop(j))
        return removed

    def deselect(key: tuple, removed: list[set]) -> None:
        for j in reversed(rows[key]):
            cols[j] = removed.pop()
            for i in cols[j]:
                for k in rows[i]:
                    if k != j:
                        cols[k].add(i)

    for r, c in zip(*np.nonzero(grid)):
        key = (int(r), int(c), int(grid[r, c]))
        if any(j not in cols or key not in cols[j] for j in rows[key]):
            return False  # the filled cells already clash
        select(key)

    def search() -> bool:
        if not cols:
            return True
        col = min(cols, key=lambda j: len(cols[j]))
        for key in list(cols[col]):
            removed = select(key)
            if search():
                return True
            deselect(key, removed)
        return False

    return search()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("--split", default="hard")
    ap.add_argument("-n", type=int, default=32)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--uncertainty", choices=("logvar", "entropy"), default="logvar")
    a = ap.parse_args()
    torch.manual_seed(0)
    model, cfg, _ = load_denoiser(a.weights, "cpu")
    ds = canonical_dataset("sudoku", a.split)
    idx = np.arange(a.start, a.start + a.n)
    known = np.asarray(ds.items["mask"][idx], dtype=bool).reshape(len(idx), -1)
    sampler = SamplerConfig(name="sequential", order="predicted", steps=a.steps, eta=a.eta, uncertainty=a.uncertainty)
    commit = np.full((len(idx), 81), -1)
    has_classes = bool(cfg.model.get("classes", 0))
    top_p = np.full((len(idx), 81), np.nan)  # class head's top probability at the pick
    top_d = np.zeros((len(idx), 81), dtype=int)  # its digit (1-9)
    surer_open = np.zeros((len(idx), 81), dtype=bool)  # another open, unpicked cell had lower entropy
    end_d = np.zeros((len(idx), 81), dtype=int)  # the class head's digit at the cell's last step (nearly clean)
    last: dict[str, torch.Tensor] = {}

    class Spy(torch.nn.Module):
        """The model, keeping its last output for the callback (which sees only the log-variance)."""

        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args):  # type: ignore[no-untyped-def]
            out = self.inner(*args)
            if out.logits is not None:
                last["logits"] = out.logits.float()
            return out

    def record(info: dict) -> None:
        finished = (commit < 0) & ((info["s"] == 0) & (info["t"] > 0)).cpu().numpy()  # ramps ended at this step
        commit[finished] = info["step"]
        if has_classes and "logits" in last:
            prob = torch.softmax(last["logits"][: len(idx)], -1)
            end_d[finished] = prob.argmax(-1).numpy()[finished] + 1
            picked = ((info["t"] == 1) & (info["s"] < 1)).cpu().numpy()  # ramps started at this step
            if picked.any():
                ent = -(prob * prob.clamp_min(1e-12).log()).sum(-1).numpy()
                waiting = (info["s"] == 1).cpu().numpy() & ~known
                best_waiting = np.where(waiting, ent, np.inf).min(1)
                top_p[picked] = prob.max(-1).values.numpy()[picked]
                top_d[picked] = prob.argmax(-1).numpy()[picked] + 1
                surer_open[picked] = (best_waiting[:, None] < ent)[picked]

    t0 = time.perf_counter()
    images = sample_images(Spy(model), cfg, sampler, idx, seed=0, device="cpu", batch_size=len(idx),
                           given=ds.images(idx), known=known, callback=record)
    wall = time.perf_counter() - t0
    scores = get_task("sudoku").evaluator_module().EVALUATOR.score(images, reference=ds, index=idx)
    givens = np.asarray(ds.items["grid"][idx]).reshape(len(idx), 81)
    events: Counter[str] = Counter()
    first: Counter[str] = Counter()
    positions: list[float] = []
    # first wrong commits: (the pick's top digit would have kept a completion, the head at the end read the digit written)
    counterfactual: Counter[str] = Counter()
    at_pick: dict[str, list[tuple[float, bool, bool]]] = {}  # kind -> (top prob, top digit = written, surer cell open)
    for k in range(len(idx)):
        digits = np.array([int(ch) for ch in scores["digits"][k]])
        grid = np.where(known[k], givens[k], 0).reshape(9, 9).copy()
        open_cells = [i for i in np.argsort(commit[k], kind="stable") if not known[k][i]]
        failed_at = None
        for pos, cell in enumerate(open_cells):
            cs, d = candidates(grid, cell), int(digits[cell])
            if not cs:
                kind = "dead end"
            elif d not in cs:
                kind = "conflict on a forced cell" if len(cs) == 1 else "conflict on a choice cell"
            else:
                grid.flat[cell] = d
                if len(cs) == 1:
                    kind = "forced"
                else:
                    kind = "choice, right" if solvable(grid.copy()) else "choice, wrong"
            if failed_at is None:  # after the first wrong commit every choice is "wrong": not counted
                events[kind] += 1
                if not np.isnan(top_p[k, cell]):
                    group = "conflict" if kind.startswith("conflict") else kind
                    at_pick.setdefault(group, []).append((top_p[k, cell], top_d[k, cell] == d, surer_open[k, cell]))
            if failed_at is None and kind not in ("forced", "choice, right"):
                failed_at = pos
                # the grid before this commit (a wrong choice was written into it above)
                before = grid.copy()
                before.flat[cell] = 0
                single_elsewhere = any(len(candidates(before, j)) == 1 for j in open_cells[pos + 1:])
                first[kind + (" (a one-candidate cell was open elsewhere)" if single_elsewhere else "")] += 1
                if has_classes:
                    alt = int(top_d[k, cell])
                    fits = alt in candidates(before, cell)
                    if fits:
                        before.flat[cell] = alt
                    pick_right = fits and alt != d and solvable(before)
                    counterfactual["the pick's top digit would have been right" if pick_right else
                                   "the pick's top digit was the same digit or also wrong"] += 1
                    counterfactual["the head read the written digit at the cell's last step" if end_d[k, cell] == d else
                                   "the head read another digit at the cell's last step (drawing or reader)"] += 1
                positions.append(pos / max(1, len(open_cells)))
        if failed_at is None and not bool(scores["solved"][k]):
            first["no wrong commit found (a given changed, or the reader)"] += 1
    solved = int(np.asarray(scores["solved"]).sum())
    print(f"{a.weights}: {a.split} {idx[0]}-{idx[-1]}, predicted order ({a.uncertainty}), {a.steps} NFE, eta {a.eta:g}, "
          f"CPU {wall:.0f} s; solved {solved} of {len(idx)}")
    print("commits up to the first wrong one, by kind:", dict(events))
    print("first wrong commit of each failed sample:")
    for kind, count in first.most_common():
        print(f"  {count:3d}  {kind}")
    if positions:
        print(f"  at {np.median(positions):.2f} of the open cells (median; 0 = first commit)")
    if counterfactual:
        print("first wrong commits against the class head:")
        for kind, count in sorted(counterfactual.items()):
            print(f"  {count:3d}  {kind}")
    if at_pick:
        print("class head at the pick, per kind of commit (up to each sample's first wrong one):")
        for kind, rows in sorted(at_pick.items()):
            p_top, same, surer = (np.array(c) for c in zip(*rows))
            print(f"  {kind:16s} n={len(rows):5d}  top probability median {np.median(p_top):.3f} "
                  f"(>= 0.9: {np.mean(p_top >= 0.9):.2f}, < 0.6: {np.mean(p_top < 0.6):.2f}); "
                  f"top digit written {np.mean(same):.2f}; a lower-entropy cell was open {np.mean(surer):.2f}")


if __name__ == "__main__":
    main()
