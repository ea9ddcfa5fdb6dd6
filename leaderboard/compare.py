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

A side may be several result files of one configuration (the same model, weights and sampler settings, drawn with
different sampling seeds): their samples are pooled, so four seeds of 500 compare as 2,000 samples. Pooled Sudoku
results are paired file by file (A's first with B's first, ...), each pair on its puzzles.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from srm_bench.errors import SrmBenchError
from srm_bench.results import Result, load_result
from srm_bench.stats import Z95, mean_interval, wilson_interval

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


# Sampler fields that do not change what is drawn from: a side may pool results that differ only in these.
_DRAW_ONLY = ("seed", "wall_s", "device", "batch_size")


def _configuration(r: Result) -> dict[str, Any]:
    model = r.get("model") or {}
    sampler = {k: v for k, v in (model.get("sampler") or {}).items() if k not in _DRAW_ONLY}
    return {"model": model.get("name"), "weights": (model.get("training") or {}).get("checkpoint_sha256"),
            "sampler": sampler}


def _side(paths: str | Path | Sequence[str | Path], tag: str) -> list[tuple[Path, Result, pd.DataFrame]]:
    """One side's results, loaded and checked; several only as draws of one configuration, never twice the same."""
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if not files:
        raise SrmBenchError(f"side {tag} has no result file; give at least one")
    loaded = [(p, *_load(p)) for p in files]
    first_path, first, _ = loaded[0]
    seen: dict[Any, Path] = {}
    for p, r, _f in loaded:
        if _configuration(r) != _configuration(first):
            raise SrmBenchError(f"{p.name} and {first_path.name} (side {tag}) differ in model, weights or sampler "
                                "settings; pool only results of one configuration (sampling seeds)")
        sha = (r.get("samples") or {}).get("sha256")
        if sha is not None and sha in seen:
            raise SrmBenchError(f"{p.name} and {seen[sha].name} (side {tag}) hold the same samples; pool each draw "
                                "once")
        seen.setdefault(sha, p)
    return loaded


def compare_results(path_a: str | Path | Sequence[str | Path], path_b: str | Path | Sequence[str | Path],
                    metric: str | None = None) -> dict[str, Any]:
    """Compare two results, or two pools of results, on one metric (default: accuracy, else the first metric).

    Each side is a result file or a list of them: several files of one configuration (model, weights and sampler
    settings; their sampling seeds differ) are pooled sample by sample. Pooled conditional results are paired
    file by file, so both sides need as many files.

    Returns a dict with both sides' figures, how they were compared (``paired`` on the puzzles
    both scored, or unpaired), the difference A - B with its 95% interval, the test and its
    two-sided p-value.

    Raises:
        SrmBenchError: a result that does not load or check, different benchmarks or evaluators,
            an unknown metric, paired results over different puzzles, or a side pooling results of
            different configurations or the same samples twice.
    """
    side_a, side_b = _side(path_a, "A"), _side(path_b, "B")
    pa, ra, _ = side_a[0]
    for p, r, _f in side_a[1:] + side_b:
        _same(ra, r, pa, p)
    if metric is None:
        metric = "accuracy" if "accuracy" in ra["metrics"] else next(iter(ra["metrics"]))
    for p, r, _f in side_a + side_b:
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
    paired = conditional and all("puzzle" in f.columns for _p, _r, f in side_a + side_b)
    if paired:
        if len(side_a) != len(side_b):
            raise SrmBenchError(f"side A has {len(side_a)} result files and side B {len(side_b)}; pooled results of "
                                "the same puzzles are paired file by file, so give both sides as many")
        pairs = []
        for (p1, _r1, f1), (p2, _r2, f2) in zip(side_a, side_b):
            for f, p in ((f1, p1), (f2, p2)):
                if f["puzzle"].duplicated().any():
                    raise SrmBenchError(f"{p.name} scores some puzzles more than once; a paired comparison needs one "
                                        "sample a puzzle")
            if set(f1["puzzle"]) != set(f2["puzzle"]):
                common = len(set(f1["puzzle"]) & set(f2["puzzle"]))
                raise SrmBenchError(f"{p1.name} and {p2.name} score different puzzles ({len(f1)} and {len(f2)}, "
                                    f"{common} in common); sample the same puzzles (same --split and -n) to compare them")
            pairs.append((values(f1), values(f2.set_index("puzzle").loc[f1["puzzle"]].reset_index())))
        va, vb = np.concatenate([x for x, _ in pairs]), np.concatenate([y for _, y in pairs])
        test = _paired(va, vb, kind)
    else:
        va = np.concatenate([values(f) for _p, _r, f in side_a])
        vb = np.concatenate([values(f) for _p, _r, f in side_b])
        test = _unpaired(va, vb, kind)

    def side(loaded: list[tuple[Path, Result, pd.DataFrame]], v: np.ndarray) -> dict[str, Any]:
        p, r, _f = loaded[0]
        m = r["metrics"][metric]
        model = r.get("model") or {}
        value, ci, n = m["value"], m.get("ci95"), m.get("n")
        if len(loaded) > 1:  # the pool's own figure, as the leaderboard computes one result's
            n = int(v.size)
            if kind == "rate":
                value, ci = float(v.mean()), list(wilson_interval(int(v.sum()), n))
            else:
                value, ci = float(v.mean()), list(mean_interval(v.astype(np.float64)))
        return {"file": str(p), "files": [str(q) for q, _r, _f in loaded], "model": model.get("name"),
                "sampler": sampler_label(model.get("sampler") or {}),
                "checkpoint": (model.get("training") or {}).get("checkpoint_sha256"),
                "value": value, "ci95": ci, "n": n}

    return {"task": ra["task"], "split": ra["split"], "metric": metric, "kind": kind,
            "higher_is_better": bool(ra["metrics"][metric]["higher_is_better"]),
            "a": side(side_a, va), "b": side(side_b, vb), "paired": paired, **test}


def format_comparison(c: dict[str, Any]) -> str:
    """The comparison as a few lines of text."""
    def fig(x: float) -> str:
        return f"{x:.3f}" if c["kind"] == "rate" else f"{x:.4g}"

    lines = [f"{c['task']}, {c['split']}: {c['metric']} ({'higher' if c['higher_is_better'] else 'lower'} is better)"]
    for tag in ("a", "b"):
        s = c[tag]
        ci = f" [{fig(s['ci95'][0])}, {fig(s['ci95'][1])}]" if s.get("ci95") else ""
        weights = f", weights {s['checkpoint'][:8]}" if s.get("checkpoint") else ""
        files = s.get("files") or [s["file"]]
        where = Path(files[0]).name if len(files) == 1 else f"{len(files)} files pooled: " + ", ".join(
            Path(f).name for f in files)
        lines.append(f"  {tag.upper()}  {fig(s['value'])}{ci} on {s['n']}  {s['model']}, {s['sampler']}{weights}  "
                     f"({where})")
    unit = "puzzles" if len(c["a"].get("files") or [None]) == 1 else "puzzles (those of every pooled file)"
    if c["paired"] and c["kind"] == "rate":
        lines.append(f"paired on {c['pairs']} {unit}: A only {c['a_only']}, B only {c['b_only']}, "
                     f"both {c['both']}, neither {c['neither']}")
    elif c["paired"]:
        lines.append(f"paired on {c['pairs']} {unit}: A's {c['metric']} higher on {c['a_better']}, B's on "
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
