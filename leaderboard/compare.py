"""Is model A better than model B on this benchmark? Two result files, one metric, one test.

Sudoku results score the same puzzles (the canonical split, the puzzle index in every per-sample
row), so two of them are compared **paired**, puzzle by puzzle: for a rate (accuracy) the puzzles
only one of the two solves decide, with the exact sign test (McNemar's exact test) on them; for
a mean (L1) the per-puzzle differences, with the Wilcoxon signed-rank test. Paired tests see
differences that two overlapping intervals hide: 0.504 and 0.466 on 500 hard puzzles have
intervals that overlap by most of their width, and the paired test still says how often each
model wins where they disagree.

Results of an unconditional task (Even Pixels, Counting: independent draws) are compared
**unpaired**: Fisher's exact test and Newcombe's interval for a rate, Welch's t-test for a mean.

Both results are checked first as the leaderboard checks them (each metric recomputed from its
per-sample file), and must score the same task, split, dataset and evaluator.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from srm_bench.errors import SrmBenchError
from srm_bench.results import Result, load_result
from srm_bench.stats import Z95, wilson_interval

from .store import RATE_VALUES, check_per_sample, sampler_label


def _load(path: Path) -> tuple[Result, pd.DataFrame]:
    res = load_result(path)
    frame = check_per_sample(res, str(path), path)
    if frame is None:
        raise SrmBenchError(f"{path}: the result has no per-sample file, so it cannot be compared sample by sample; "
                            "re-run 'srm-bench evaluate' with --out")
    return res, frame


def _same(a: Result, b: Result, pa: Path, pb: Path) -> None:
    def key(r: Result) -> dict[str, Any]:
        ev, ds = r.get("evaluator") or {}, r.get("dataset") or {}
        return {"task": r.get("task"), "split": r.get("split"), "dataset": ds.get("content_sha256"),
                "evaluator": (ev.get("name"), ev.get("version"), ev.get("weights_sha256"))}

    ka, kb = key(a), key(b)
    for field, what in (("task", "tasks"), ("split", "splits"), ("dataset", "datasets (content hash)"),
                        ("evaluator", "evaluators (name, version, weights)")):
        if ka[field] != kb[field] and not (field == "dataset" and None in (ka[field], kb[field])):
            raise SrmBenchError(f"{pa.name} and {pb.name} score different {what}: {ka[field]} vs {kb[field]}; "
                                "compare results of the same benchmark split, scored by the same evaluator")


def _paired(a: np.ndarray, b: np.ndarray, kind: str) -> dict[str, Any]:
    from scipy import stats

    n = int(a.size)
    if kind == "rate":
        only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
        diff = (only_a - only_b) / n
        # Wald interval of a paired difference of proportions (normal approximation)
        se = math.sqrt(max(0.0, only_a + only_b - (only_a - only_b) ** 2 / n)) / n
        p = stats.binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
        return {"pairs": n, "a_only": only_a, "b_only": only_b, "both": int((a & b).sum()), "neither": int((~a & ~b).sum()),
                "difference": diff, "ci95": [diff - Z95 * se, diff + Z95 * se],
                "test": "exact sign test on the discordant pairs (McNemar)", "p_value": float(p)}
    d = a.astype(np.float64) - b.astype(np.float64)
    mean = float(d.mean())
    half = float(stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    nonzero = int((d != 0).sum())
    p = float(stats.wilcoxon(d[d != 0]).pvalue) if nonzero else 1.0
    return {"pairs": n, "a_better": int((d > 0).sum()), "b_better": int((d < 0).sum()), "ties": n - nonzero,
            "difference": mean, "ci95": [mean - half, mean + half],
            "test": "Wilcoxon signed-rank test on the non-zero differences", "p_value": p}


def _unpaired(a: np.ndarray, b: np.ndarray, kind: str) -> dict[str, Any]:
    from scipy import stats

    if kind == "rate":
        ka, kb, na, nb = int(a.sum()), int(b.sum()), int(a.size), int(b.size)
        pa, pb = ka / na, kb / nb
        (la, ua), (lb, ub) = wilson_interval(ka, na), wilson_interval(kb, nb)
        diff = pa - pb  # Newcombe's hybrid score interval from the two Wilson intervals
        ci = [diff - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2), diff + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)]
        p = stats.fisher_exact([[ka, na - ka], [kb, nb - kb]]).pvalue
        return {"n_a": na, "n_b": nb, "difference": diff, "ci95": ci, "test": "Fisher's exact test", "p_value": float(p)}
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    t = stats.ttest_ind(fa, fb, equal_var=False)
    ci = t.confidence_interval(0.95)
    return {"n_a": int(fa.size), "n_b": int(fb.size), "difference": float(fa.mean() - fb.mean()),
            "ci95": [float(ci.low), float(ci.high)], "test": "Welch's t-test", "p_value": float(t.pvalue)}


def compare_results(path_a: str | Path, path_b: str | Path, metric: str | None = None) -> dict[str, Any]:
    """Compare two result files on one metric (default: accuracy, else the first metric).

    Returns a dict with both results' figures, how they were compared (``paired`` on the puzzles
    both scored, or unpaired), the difference A - B with its 95% interval, the test and its
    two-sided p-value.

    Raises:
        SrmBenchError: a result that does not load or check, different benchmarks or evaluators,
            an unknown metric, or paired results over different puzzles.
    """
    pa, pb = Path(path_a), Path(path_b)
    (ra, fa), (rb, fb) = _load(pa), _load(pb)
    _same(ra, rb, pa, pb)
    if metric is None:
        metric = "accuracy" if "accuracy" in ra["metrics"] else next(iter(ra["metrics"]))
    for r, p in ((ra, pa), (rb, pb)):
        if metric not in r["metrics"]:
            raise SrmBenchError(f"{p.name} has no metric {metric!r}; it has {', '.join(r['metrics'])}")
    kind = ra["metrics"][metric]["kind"]

    def values(f: pd.DataFrame) -> np.ndarray:  # check_per_sample has checked the column's values
        return f[metric].map(RATE_VALUES).to_numpy(bool) if kind == "rate" else f[metric].to_numpy(np.float64)

    # Paired where a sample answers a given puzzle (Sudoku); the samples of an unconditional task
    # are independent draws, whatever index they carry.
    from srm_bench.registry import get_task

    try:
        conditional = bool(get_task(ra["task"]).conditional)
    except (KeyError, SrmBenchError):
        conditional = False
    paired = conditional and "puzzle" in fa.columns and "puzzle" in fb.columns
    if paired:
        for f, p in ((fa, pa), (fb, pb)):
            if f["puzzle"].duplicated().any():
                raise SrmBenchError(f"{p.name} scores some puzzles more than once; a paired comparison needs one "
                                    "sample a puzzle")
        if set(fa["puzzle"]) != set(fb["puzzle"]):
            common = len(set(fa["puzzle"]) & set(fb["puzzle"]))
            raise SrmBenchError(f"{pa.name} and {pb.name} score different puzzles ({len(fa)} and {len(fb)}, {common} "
                                "in common); sample the same puzzles (same --split and -n) to compare them")
        fb = fb.set_index("puzzle").loc[fa["puzzle"]].reset_index()
        test = _paired(values(fa), values(fb), kind)
    else:
        test = _unpaired(values(fa), values(fb), kind)

    def side(r: Result, p: Path) -> dict[str, Any]:
        m = r["metrics"][metric]
        model = r.get("model") or {}
        return {"file": str(p), "model": model.get("name"), "sampler": sampler_label(model.get("sampler") or {}),
                "checkpoint": (model.get("training") or {}).get("checkpoint_sha256"),
                "value": m["value"], "ci95": m.get("ci95"), "n": m.get("n")}

    return {"task": ra["task"], "split": ra["split"], "metric": metric, "kind": kind,
            "higher_is_better": bool(ra["metrics"][metric]["higher_is_better"]),
            "a": side(ra, pa), "b": side(rb, pb), "paired": paired, **test}


def format_comparison(c: dict[str, Any]) -> str:
    """The comparison as a few lines of text."""
    def fig(x: float) -> str:
        return f"{x:.3f}" if c["kind"] == "rate" else f"{x:.4g}"

    lines = [f"{c['task']}, {c['split']}: {c['metric']} ({'higher' if c['higher_is_better'] else 'lower'} is better)"]
    for tag in ("a", "b"):
        s = c[tag]
        ci = f" [{fig(s['ci95'][0])}, {fig(s['ci95'][1])}]" if s.get("ci95") else ""
        weights = f", weights {s['checkpoint'][:8]}" if s.get("checkpoint") else ""
        lines.append(f"  {tag.upper()}  {fig(s['value'])}{ci} on {s['n']}  {s['model']}, {s['sampler']}{weights}  "
                     f"({Path(s['file']).name})")
    if c["paired"] and c["kind"] == "rate":
        lines.append(f"paired on {c['pairs']} puzzles: A only {c['a_only']}, B only {c['b_only']}, "
                     f"both {c['both']}, neither {c['neither']}")
    elif c["paired"]:
        lines.append(f"paired on {c['pairs']} puzzles: A's {c['metric']} higher on {c['a_better']}, B's on "
                     f"{c['b_better']}, equal on {c['ties']}")
    else:
        lines.append(f"unpaired ({c['n_a']} and {c['n_b']} independent samples)")
    lo, hi = c["ci95"]
    d = "{:+.3f}" if c["kind"] == "rate" else "{:+.4g}"
    lines.append(f"A - B = {d.format(c['difference'])} [{d.format(lo)}, {d.format(hi)}] (95%); "
                 f"{c['test']}: p = {c['p_value']:.3g}")
    return "\n".join(lines) + "\n"


def to_json(c: dict[str, Any]) -> str:
    return json.dumps(c, indent=2) + "\n"
