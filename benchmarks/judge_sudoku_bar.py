"""Issue 11's bar for one Sudoku SRM and its DDPM partner, read from committed result files.

The rule (fixed in lease n, docs/sudoku-baselines.md): on the 500 canonical puzzles a split, 1000 NFE,
eta 1, sampling seed 0,
  - the SRM's hard row in predicted order w/o overlap, ranked by its uncertainty head: accuracy >= 0.50;
  - the SRM's hard parallel row <= 0.05, and the DDPM's (same budget and network) <= 0.05;
  - easy >= 0.99 with each of the SRM's samplers (parallel; predicted, graph and random order w/o overlap);
  - medium in the paper's order: predicted > graph > both random and parallel (random ~ parallel).
Rows of our variants (the class entropy, the reference ramps) and of other seeds, budgets or eta are listed apart
and decide nothing. With --control, the SRM's hard predicted-order row is also compared with that result, paired
on the same puzzles (`srm-bench compare`).

The models are named by the sha256 (or a prefix) of their weights, as every result records it.

Usage: python benchmarks/judge_sudoku_bar.py SRM_SHA DDPM_SHA [-r leaderboard/results/baselines] [--control FILE]
Exit status: 0 when every item passes, 1 when one fails or a needed row is missing.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLERS = ("parallel", "predicted", "graph", "random")


def row_key(res: dict[str, Any]) -> str | None:
    """'parallel' / 'predicted' / 'graph' / 'random' for a result in the bar's protocol, else None."""
    s = res["model"].get("sampler", {})
    if (s.get("steps"), s.get("eta"), s.get("seed")) != (1000, 1.0, 0) or res["metrics"]["accuracy"].get("n") != 500:
        return None
    if s.get("name") == "parallel":
        return "parallel"
    if s.get("name") != "sequential" or float(s.get("overlap", 0)) != 0 or s.get("top_k", 1) != 1:
        return None
    if s.get("uncertainty", "logvar") != "logvar" or s.get("ramp", "even") != "even":
        return None
    return s.get("order") if s.get("order") in SAMPLERS else None


def rows_of(sha: str, folders: list[Path]) -> tuple[dict[tuple[str, str], tuple[float, Path]], list[str]]:
    """{(split, sampler): (accuracy, file)} of the bar's rows scored with the weights ``sha``, and the other rows
    of those weights as lines."""
    rows: dict[tuple[str, str], tuple[float, Path]] = {}
    other = []
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            try:
                res = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if not isinstance(res, dict) or res.get("task") != "sudoku" or "model" not in res:
                continue
            if not str(res["model"].get("training", {}).get("checkpoint_sha256", "")).startswith(sha):
                continue
            acc = float(res["metrics"]["accuracy"]["value"])
            key = row_key(res)
            if key is None:
                s = res["model"].get("sampler", {})
                other.append(f"{res['split']:<6} {s.get('name')} {s.get('order', '')} uncertainty={s.get('uncertainty', 'logvar')} "
                             f"ramp={s.get('ramp', 'even')} nfe={s.get('steps')} eta={s.get('eta')} seed={s.get('seed')}: "
                             f"{acc:.3f}")
                continue
            if (res["split"], key) in rows:
                raise SystemExit(f"two results of {sha} for {res['split']} {key}: {rows[(res['split'], key)][1]} "
                                 f"and {path}; pass the folder that holds one")
            rows[(res["split"], key)] = (acc, path)
    return rows, other


def judge(srm: dict[tuple[str, str], tuple[float, Path]],
          ddpm: dict[tuple[str, str], tuple[float, Path]]) -> list[tuple[str, bool | None, str]]:
    """The bar's items: (item, passed or None when a row is missing, figures)."""
    def acc(rows: dict[tuple[str, str], tuple[float, Path]], split: str, sampler: str) -> float | None:
        return rows[(split, sampler)][0] if (split, sampler) in rows else None

    items: list[tuple[str, bool | None, str]] = []
    head = acc(srm, "hard", "predicted")
    items.append(("SRM hard, predicted order (head) >= 0.50", None if head is None else head >= 0.50, f"{head}"))
    par = acc(srm, "hard", "parallel")
    items.append(("SRM hard, parallel <= 0.05", None if par is None else par <= 0.05, f"{par}"))
    dd = acc(ddpm, "hard", "parallel")
    items.append(("DDPM hard, parallel <= 0.05", None if dd is None else dd <= 0.05, f"{dd}"))
    easy = {s: acc(srm, "easy", s) for s in SAMPLERS}
    missing = [s for s, v in easy.items() if v is None]
    items.append(("SRM easy >= 0.99 with every sampler", None if missing else all(v >= 0.99 for v in easy.values() if v is not None),
                  " / ".join(f"{s} {v}" for s, v in easy.items())))
    med = {s: acc(srm, "medium", s) for s in SAMPLERS}
    if any(v is None for v in med.values()):
        ok = None
    else:
        p, g, r, q = (float(med[s]) for s in ("predicted", "graph", "random", "parallel"))  # type: ignore[arg-type]
        ok = p > g > max(r, q)
    items.append(("SRM medium: predicted > graph > random, parallel", ok,
                  " / ".join(f"{s} {v}" for s, v in med.items())))
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("srm", help="sha256 of the SRM's weights, or a prefix of it")
    ap.add_argument("ddpm", help="sha256 of the DDPM partner's weights, or a prefix of it")
    ap.add_argument("-r", "--results", nargs="+", default=[str(ROOT / "leaderboard" / "results" / "baselines")],
                    help="folders of result files, searched recursively")
    ap.add_argument("--control", help="a hard predicted-order result to compare the SRM's with, paired")
    a = ap.parse_args()
    folders = [Path(f) for f in a.results]
    srm, other = rows_of(a.srm, folders)
    ddpm, _ = rows_of(a.ddpm, folders)
    if not srm:
        raise SystemExit(f"no result of weights {a.srm}... in {', '.join(map(str, folders))}")
    print(f"SRM {a.srm}: {len(srm)} rows of the bar's protocol; DDPM {a.ddpm}: {len(ddpm)}")
    items = judge(srm, ddpm)
    for item, ok, figures in items:
        verdict = "missing" if ok is None else ("pass" if ok else "FAIL")
        print(f"  {verdict:<7} {item}: {figures}")
    if other:
        print("  other rows of the SRM (decide nothing):")
        for line in other:
            print("    " + line)
    if a.control and ("hard", "predicted") in srm:
        from srm_bench.leaderboard.compare import compare_results, format_comparison

        print(format_comparison(compare_results(srm[("hard", "predicted")][1], a.control)))
    met = all(ok for _, ok, _ in items)
    print("bar met" if met else "bar not met")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
