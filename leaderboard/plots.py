"""Figures from the results store: accuracy per difficulty, accuracy vs overlap, sample grids.

Everything draws on a bare :class:`matplotlib.figure.Figure` (Agg canvas), so no display
and no global pyplot state are needed. PNGs are written atomically.
"""
from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

import numpy as np
import pandas as pd

from srm_bench.errors import SrmBenchError
from srm_bench.io import user_output
from srm_bench.results import per_sample_path, read_per_sample_bytes
from srm_bench.stats import wilson_interval

from .store import COMPARABILITY, IDENTITY, _declared_metrics
from .tables import METRIC_LABELS, build_table, layouts_for

VERDICT_COLUMN = "bad_cells"
# Fixed PNG text chunks (no matplotlib version, no date): the same results give the same bytes.
PNG_METADATA = {"Software": "srm-bench"}


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _save(fig: Any, out: str | Path, *, tight: bool = False) -> Path:
    out = Path(out)
    if out.suffix.lower() != ".png":
        raise SrmBenchError(f"{out}: plots are written as PNG; give a path ending in .png")
    with user_output(out) as tmp:
        # tight: a legend placed beside the axes (plot_difficulty) and a long title stay inside the image
        fig.savefig(tmp, format="png", metadata=PNG_METADATA, **({"bbox_inches": "tight", "pad_inches": 0.1} if tight else {}))
    return out


def _row_label(labels: Mapping[str, Any], group: str, knobs: list[str]) -> str:
    text = f"{labels['model']} · {labels['sampler']}"
    extra = [f"{k}={labels[k]:g}" if isinstance(labels.get(k), float) else f"{k}={labels[k]}"
             for k in knobs if labels.get(k) is not None]
    if labels.get("run"):
        extra.append(f"run {labels['run']}")
    if extra:
        text += f" ({', '.join(extra)})"
    return text + (" [paper]" if group == "paper" else "")


def plot_difficulty(frame: pd.DataFrame, task: str, out: str | Path, *, metric: str = "accuracy",
                    paper: bool = True) -> Path:
    """Bars of ``metric`` per difficulty (or per task variant), one bar per sampler row, 95% error bars.

    Args:
        frame: the flat results frame.
        task: which task's layout to draw (its main paper table, e.g. Table 1 for sudoku).
        out: PNG path.
        metric: a metric of the layout (``accuracy`` by default).
        paper: include the paper's main-table figures (hatched, without error bars).

    Raises:
        SrmBenchError: unknown task or metric, or no result to draw.
    """
    layout = layouts_for(frame, task)[0]
    if metric not in {c.metric for c in layout.columns}:
        raise SrmBenchError(f"metric {metric!r} is not in {layout.title}; valid: "
                            f"{', '.join(dict.fromkeys(c.metric for c in layout.columns))}")
    sub = frame if paper or frame.empty else frame[frame["provenance"] != "paper"]
    table = build_table(sub, layout)
    cols = [j for j, c in enumerate(table.columns) if c.metric == metric]
    rows = [r for r in table.rows if any(r.cells[j] is not None for j in cols)]
    if not rows:
        raise SrmBenchError(f"no {task} results with {metric!r} to plot; pass --results DIR")
    knobs = [k for k in table.label_columns if k not in ("model", "sampler", "ref", "run")]
    # Tall enough for the legend (one line per row at font size 7), which sits beside the axes.
    fig = _figure(max(6.0, 1.2 + 0.35 * len(rows) * len(cols)), max(4.8, 1.0 + 0.15 * len(rows)))
    ax = fig.add_subplot()
    width = 0.8 / len(rows)
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    for i, r in enumerate(rows):
        xs, ys, err = [], [], []
        for k, j in enumerate(cols):
            cell = r.cells[j]
            if cell is None:
                continue
            xs.append(k - 0.4 + width * (i + 0.5))
            ys.append(cell.value)
            lo = cell.value if cell.lo is None else cell.lo
            hi = cell.value if cell.hi is None else cell.hi
            err.append((max(0.0, cell.value - lo), max(0.0, hi - cell.value)))
        e = np.array(err, dtype=float).T if any(x.lo is not None for x in r.cells if x) else None
        ax.bar(xs, ys, width=width * 0.95, color=cmap(i % 20), hatch="//" if r.group == "paper" else None,
               edgecolor="white" if r.group == "paper" else None, yerr=e, capsize=2,
               label=_row_label(r.labels, r.group, knobs))
    labels = {table.columns[j].label for j in cols}  # one per reader where Sudoku results of two readers exist
    ax.set_xticks(range(len(cols)), [(table.columns[j].group or task) + (f"\n{table.columns[j].label}" if len(labels) > 1 else "")
                                     for j in cols])
    label = table.columns[cols[0]].label if len(labels) == 1 else METRIC_LABELS.get(metric, metric)
    ax.set_ylabel(f"{label} ({'higher' if metric not in ('l1', 'error') else 'lower'} is better)")
    ax.set_title(f"{layout.title}: {label} with 95% intervals")
    if metric not in ("l1", "error"):
        ax.set_ylim(0, 1.05)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, out, tight=True)


# The paper's main table per task whose sequential rows say only "+ Overlap"; the overlap its text
# names for them is the task's ``paper_overlap`` (registry).
PAPER_MAIN_TABLE = {"even-pixels": "Table 2"}


def plot_overlap(frame: pd.DataFrame, task: str, out: str | Path, *, metric: str = "accuracy",
                 split: str | None = None, etas: Sequence[float] | None = None) -> Path:
    """Accuracy vs overlap (the paper's Figure 6) from results whose sampler records a numeric overlap.

    Each line is one configuration (model, order, budget and eta, training knobs, evaluator,
    dataset, sample count); its runs at one overlap (sampling seeds) are pooled into one point (a rate: the
    verdicts of all their samples, with the Wilson interval); parallel results of the same configuration are drawn
    at overlap 1.0.
    The paper's Figure 6 gives no numbers in its text, so its curve cannot be drawn; where the
    paper's main table for the task names its sequential rows only "+ Overlap" and its text the
    overlap used (Even Pixels: Table 2, 0.95), those rows are drawn as stars at that overlap
    (parallel at 1.0) when ``frame`` holds paper entries. ``etas`` keeps only results sampled at one of
    these etas (the paper's stars stay); a parallel square joins the line of its own eta.

    Raises:
        SrmBenchError: no result with a numeric ``sampler.overlap`` for the task.
    """
    if frame.empty or task not in set(frame["task"]):
        raise SrmBenchError(f"no {task} results to plot; pass --results DIR")
    sub = frame[(frame["task"] == task) & (frame["provenance"] != "paper") & frame[metric].notna()] \
        if metric in frame.columns else frame.iloc[0:0]
    if split is not None:
        sub = sub[sub["split"] == split]
    if etas and "eta" in sub.columns:
        sub = sub[sub["eta"].isin([float(e) for e in etas])]
    seq = sub[(sub["sampler_name"] == "sequential") & sub["overlap"].notna()]
    if seq.empty:
        raise SrmBenchError(f"no {task} results with {metric!r} and a numeric sampler.overlap; "
                            "the plot needs results of sequential samplers at several overlaps")
    line_fields = ["split"] + [f for f in IDENTITY if f not in ("sampler", "overlap")] + list(COMPARABILITY)
    par = sub[sub["sampler_name"] == "parallel"]
    fig = _figure(7.5, 4.8)
    ax = fig.add_subplot()
    groups = [grp.sort_values("overlap")
              for _key, grp in seq.groupby([f for f in line_fields if f in seq.columns], dropna=False, sort=True)]
    names = [_overlap_line_name(g.iloc[0], several_splits=sub["split"].nunique() > 1) for g in groups]
    # Two checkpoints of one model: say how far each was trained.
    names = [name + _training_tag(g.iloc[0]) if names.count(name) > 1 else name for g, name in zip(groups, names)]
    rate = (_declared_metrics(task) or {}).get(metric, ("", True))[0] == "rate"
    for g, name in zip(groups, names):
        over, y, lo, hi = _overlap_points(g, metric, rate=rate)
        err = np.vstack([np.nan_to_num(y - lo), np.nan_to_num(hi - y)])
        rec = g.iloc[0]
        line = ax.errorbar(over, y, yerr=err, marker="o", capsize=2, label=name)
        same = par
        for f in ("model", "split", "arch", "weights", "tsampling", "noise_path", "sharpness", "train_steps",
                  "train_batch", "evaluator", "dataset", "source", "n", "eta"):
            if f in same.columns:
                same = same[same[f].isna()] if pd.isna(rec[f]) else same[same[f] == rec[f]]
        if not same.empty:
            ax.plot(np.ones(len(same)), same[metric].to_numpy(float), marker="s", linestyle="none",
                    color=line[0].get_color())
    from srm_bench.registry import get_task

    table = PAPER_MAIN_TABLE.get(task)
    paper = frame[(frame["task"] == task) & (frame["provenance"] == "paper") & frame[metric].notna()
                  & frame["tables"].astype(str).str.startswith(str(table))] \
        if table and metric in frame.columns else frame.iloc[0:0]
    at = get_task(task).paper_overlap if table else 0.0
    for (model, order), grp in paper.groupby(["model", "order"], dropna=False, sort=True):
        x = 1.0 if pd.isna(order) else at
        label = f"paper {table}: {model}" + ("" if pd.isna(order) else f" · {str(order).capitalize()} order")
        ax.plot([x] * len(grp), grp[metric].to_numpy(float), marker="*", markersize=12, linestyle="none",
                label=label + f" (at {x:g})")
    ax.set_xlabel("overlap (0 = one patch at a time; squares at 1.0 = parallel)")
    ax.set_ylabel(metric)
    ax.set_xlim(-0.03, 1.03)
    ax.set_title(f"{task}: {metric} vs overlap (cf. the paper's Figure 6)")
    ax.grid(alpha=0.3)
    entries = len(ax.get_legend_handles_labels()[0])
    if entries <= 10:
        ax.legend(fontsize=7)
        return _save(fig, out)
    # Many lines (e.g. every Sudoku model at overlap 0): the legend goes beside the axes, and the
    # figure grows to hold one line per entry.
    fig.set_size_inches(11.5, max(4.8, 1.0 + 0.15 * entries))
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, out, tight=True)


def _overlap_points(g: pd.DataFrame, metric: str, *, rate: bool) -> tuple[np.ndarray, ...]:
    """A line's points (overlap, value, low, high), one an overlap: runs of a line at one overlap (seeds) pooled.

    A rate pools its verdicts (the successes over all the runs' samples, its Wilson interval); another metric is
    averaged over the runs, weighted by their sample counts, without an interval.
    """
    xs, ys, los, his = [], [], [], []
    for overlap, at in g.groupby("overlap", sort=True):
        y = at[metric].to_numpy(float)
        n = at["n"].to_numpy(float) if "n" in at else np.full_like(y, np.nan)
        lo = at[f"{metric}_lo"].to_numpy(float) if f"{metric}_lo" in at else np.full_like(y, np.nan)
        hi = at[f"{metric}_hi"].to_numpy(float) if f"{metric}_hi" in at else np.full_like(y, np.nan)
        if len(at) > 1 and np.isfinite(n).all():
            if rate:
                hits = int(np.rint(y * n).sum())
                lo, hi = (np.array([v]) for v in wilson_interval(hits, int(n.sum())))
                y = np.array([hits / n.sum()])
            else:
                y, lo, hi = np.array([float((y * n).sum() / n.sum())]), np.array([np.nan]), np.array([np.nan])
        elif len(at) > 1:
            y, lo, hi = np.array([float(y.mean())]), np.array([np.nan]), np.array([np.nan])
        xs.append(float(overlap))
        ys.append(y[0])
        los.append(lo[0])
        his.append(hi[0])
    return np.array(xs), np.array(ys), np.array(los), np.array(his)


def _overlap_line_name(rec: pd.Series, *, several_splits: bool) -> str:
    name = f"{rec['model']} · {str(rec['order']).capitalize()} order"
    if (rec["sampler_steps"], rec["eta"]) != (1000, 1.0):  # the paper's budget unless said
        name += f", {rec['sampler_steps']:g} NFE, eta {rec['eta']:g}"
    if several_splits:
        name += f" ({rec['split']})"
    return name


def _training_tag(rec: pd.Series) -> str:
    """", 34.0M img" (or the weights' hash where the images are not recorded)."""
    images = rec.get("train_images")
    if images is not None and not pd.isna(images):
        return f", {float(images) / 1e6:.1f}M img"
    checkpoint = rec.get("checkpoint")
    return f", weights {checkpoint}" if checkpoint is not None and not pd.isna(checkpoint) else ""


def _verdict_metrics(result: Mapping[str, Any]) -> tuple[str, str | None]:
    metrics = result["metrics"]
    rates = [k for k, m in metrics.items() if m.get("kind") == "rate" and m.get("higher_is_better")]
    if not rates:
        raise SrmBenchError("the result declares no rate metric to give a verdict with")
    verdict = "accuracy" if "accuracy" in rates else rates[0]
    means = [k for k, m in metrics.items() if m.get("kind") == "mean"]
    return verdict, (means[0] if means else None)


def _bad_cells(text: Any, h: int, w: int) -> list[tuple[int, int, int, int]]:
    """(x, y, width, height) of the cells a per-sample ``bad_cells`` string marks ('1' = rule broken)."""
    if not isinstance(text, str) or not text or set(text) - {"0", "1"}:
        return []
    side = math.isqrt(len(text))
    if side * side != len(text) or h % side or w % side:
        return []
    ch, cw = h // side, w // side
    return [((k % side) * cw, (k // side) * ch, cw, ch) for k, c in enumerate(text) if c == "1"]


def plot_samples(result_path: str | Path, out: str | Path, *, samples_path: str | Path | None = None,
                 count: int = 16, which: str = "all", columns: int = 4) -> Path:
    """A grid of scored samples, each titled with its verdict; cells that break a rule in red.

    The verdict comes from the result's per-sample CSV (the ``accuracy`` column, or the first
    rate metric) and the first mean metric (e.g. Sudoku's L1). Where the CSV has a
    ``bad_cells`` column (a string of '0'/'1', one per cell in row-major order, as the
    evaluator writes it), those cells are shaded red. No rule is re-checked here.

    Args:
        result_path: a result JSON written by ``srm-bench evaluate``.
        out: PNG path.
        samples_path: the samples file scored (default: the path the result records).
        count: how many samples to draw.
        which: ``all``, ``failed`` or ``passed``.
        columns: images per row of the grid.

    Raises:
        SrmBenchError: missing per-sample file or samples, samples that differ from the ones scored.
    """
    from matplotlib.patches import Rectangle

    from srm_bench.registry import get_task
    from srm_bench.results import load_result
    from srm_bench.samples import read_samples
    from srm_bench.evaluation import samples_sha256

    result_path = Path(result_path)
    result = load_result(result_path)
    if str((result.get("evaluator") or {}).get("name", "")).startswith("sudoku-text"):
        raise SrmBenchError(f"{result_path}: a text-track result has no images to draw; its replies are in "
                            f"{(result.get('samples') or {}).get('path')} and its verdicts in the per-sample CSV")
    if which not in ("all", "failed", "passed"):
        raise SrmBenchError(f"unknown selection {which!r}; use all, failed or passed")
    if count < 1 or columns < 1:
        raise SrmBenchError("--count and --columns must be at least 1")
    csv_name = result.get("per_sample_file")
    if not csv_name:
        raise SrmBenchError(f"{result_path}: the result has no per-sample file; re-run 'srm-bench evaluate' with --out")
    csv = per_sample_path(result_path.parent, csv_name)
    if csv is None:
        raise SrmBenchError(f"{result_path.parent / csv_name}: per-sample file missing; keep it (or its .gz) beside the result JSON")
    try:
        per = pd.read_csv(io.BytesIO(read_per_sample_bytes(csv)), dtype={VERDICT_COLUMN: str})
    except (OSError, ValueError) as exc:
        raise SrmBenchError(f"{csv}: not a readable per-sample CSV ({exc})") from None
    verdict, score = _verdict_metrics(result)
    if verdict not in per.columns:
        raise SrmBenchError(f"{csv}: no {verdict!r} column; is it the per-sample file of {result_path.name}?")
    recorded = (result.get("samples") or {}).get("path")
    if samples_path:
        candidates = [Path(samples_path)]
    elif recorded:
        candidates = [Path(recorded), result_path.parent / Path(recorded).name]
    else:
        candidates = []
    src = next((p for p in candidates if p.exists()), None)
    if src is None:
        raise SrmBenchError(f"{result_path}: cannot find the samples file ({recorded or 'not recorded'}); pass --samples FILE")
    spec = get_task(result["task"])
    samples = read_samples(src, lambda attrs: spec, (result.get("config") or {}).get("value_range"))
    want = (result.get("samples") or {}).get("sha256")
    if want and samples_sha256(samples.images, samples.index) != want:
        raise SrmBenchError(f"{src}: these are not the samples {result_path.name} scored (hash differs); pass the right --samples")
    if len(per) != samples.images.shape[0]:
        raise SrmBenchError(f"{csv}: {len(per)} rows but {samples.images.shape[0]} samples")
    ok = per[verdict].astype(str).str.lower().isin(("true", "1", "1.0"))
    picked = per.index if which == "all" else per.index[~ok] if which == "failed" else per.index[ok]
    picked = list(picked[:count])
    if not picked:
        raise SrmBenchError(f"no {which} samples in {csv.name}")
    rows = math.ceil(len(picked) / columns)
    ncol = min(columns, len(picked))
    fig = _figure(2.2 * ncol, 2.4 * rows)
    h, w = samples.images.shape[1:3]
    for k, i in enumerate(picked):
        ax = fig.add_subplot(rows, ncol, k + 1)
        img = samples.images[i]
        ax.imshow(img[..., 0] if img.shape[-1] == 1 else img, cmap="gray" if img.shape[-1] == 1 else None,
                  vmin=0, vmax=255, interpolation="nearest")
        cells = _bad_cells(per[VERDICT_COLUMN].iloc[i], h, w) if VERDICT_COLUMN in per.columns else []
        for x, y, cw, ch in cells:
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), cw, ch, facecolor=(1.0, 0.0, 0.0, 0.4),
                                   edgecolor=(1.0, 0.0, 0.0, 1.0), linewidth=1.5))
        good = bool(ok.iloc[i])
        title = f"#{i} {'pass' if good else 'FAIL'}"
        if score and score in per.columns:
            title += f"  {score}={float(per[score].iloc[i]):g}"
        ax.set_title(title, fontsize=8, color="green" if good else "red")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"{result['task']}/{result['split']} · {result['model']['name']}: {verdict} per sample"
                 + (" (red: cells that break a rule)" if VERDICT_COLUMN in per.columns else ""), fontsize=9)
    return _save(fig, out)


LineStyle = Literal["-", "--", "-.", ":"]
SAMPLER_STYLES: dict[str, LineStyle] = {"parallel": ":", "predicted": "-", "predicted-entropy": "--"}


def _sudoku_verdicts(result_path: Path) -> tuple[str, pd.DataFrame]:
    """(line name, the puzzles' givens and verdicts) of one Sudoku result: its per-sample CSV's ``puzzle`` and
    ``accuracy`` columns (checked as ``srm-bench compare`` checks them: the file's hash, every metric against it)
    beside the number of given cells of each puzzle in the canonical test set it scored."""
    from srm_bench.canonical import canonical_dataset

    from .compare import _load
    from .store import RATE_VALUES, sampler_label

    result, per = _load(result_path)
    if result.get("task") != "sudoku":
        raise SrmBenchError(f"{result_path}: a {result.get('task')} result; accuracy against givens is Sudoku's")
    split = str(result.get("split"))
    try:
        ds = canonical_dataset("sudoku", split)
    except KeyError:
        raise SrmBenchError(f"{result_path}: split {split!r} has no canonical test set (easy, medium, hard)") from None
    scored = (result.get("dataset") or {}).get("content_sha256")
    if scored != ds.content_sha256:
        raise SrmBenchError(f"{result_path}: scored on a set whose hash {str(scored)[:12]} is not the canonical "
                            f"{split} set's {ds.content_sha256[:12]}; the givens are read from the canonical set")
    if "puzzle" not in per.columns or per.empty:
        raise SrmBenchError(f"{result_path}: its per-sample CSV has no puzzle column or no rows")
    givens = np.asarray(ds.items["mask"], dtype=bool).reshape(ds.count, -1).sum(1)
    puzzles = per["puzzle"].to_numpy()
    if puzzles.min() < 0 or puzzles.max() >= ds.count:
        raise SrmBenchError(f"{result_path}: puzzle indices outside the {split} set's 0-{ds.count - 1}")
    model = result.get("model") or {}
    sampler = model.get("sampler") or {}
    name = f"{model.get('name', '?')} · {sampler_label(sampler)}"
    if (sampler.get("steps"), sampler.get("eta")) not in ((None, None), (1000, 1.0)):
        name += f", {sampler.get('steps')} NFE, eta {sampler.get('eta'):g}"
    weights = ((model.get("training") or {}).get("checkpoint_sha256") or "")[:8]
    if weights:
        name += f" ({weights})"
    solved = per["accuracy"].map(RATE_VALUES).to_numpy(bool)  # check_per_sample found only True/False there
    return name, pd.DataFrame({"givens": givens[puzzles], "solved": solved})


def givens_table(result_paths: list[str | Path], *, width: int = 3) -> pd.DataFrame:
    """Sudoku accuracy against the number of given cells: the puzzles of each result binned by their givens
    (``width`` givens a bin: 0-2, 3-5, ...), one row per line and bin with the solved count, the puzzles, the
    accuracy and its Wilson 95% interval. A line is one model, weights and sampler; its results on several
    splits (and sampling seeds) pool into it, so easy, medium and hard draw one curve from 0 to 80 givens.

    Raises:
        SrmBenchError: a result of another task, of a non-canonical set, or without its per-sample CSV; ``width`` < 1.
    """
    if width < 1:
        raise SrmBenchError(f"--width must be at least 1 given, got {width}")
    if not result_paths:
        raise SrmBenchError("name at least one Sudoku result JSON")
    parts = []
    for path in result_paths:
        name, frame = _sudoku_verdicts(Path(path))
        parts.append(frame.assign(line=name))
    allp = pd.concat(parts, ignore_index=True)
    allp["bin"] = allp["givens"] // width * width
    rows = []
    for (line, lo), g in allp.groupby(["line", "bin"], sort=False):
        k, n = int(g["solved"].sum()), len(g)
        ci = wilson_interval(k, n)
        rows.append({"line": line, "givens": f"{lo}-{lo + width - 1}", "mean_givens": float(g["givens"].mean()),
                     "solved": k, "puzzles": n, "accuracy": k / n, "ci_low": ci[0], "ci_high": ci[1]})
    return pd.DataFrame(rows).sort_values(["line", "mean_givens"], kind="stable").reset_index(drop=True)


def plot_givens(table: pd.DataFrame, out: str | Path, *, width: int) -> Path:
    """A :func:`givens_table` (of ``width`` givens a bin) drawn: accuracy against the number of given cells, a line
    per model, weights and sampler, each bin at its puzzles' mean givens with its 95% interval; the splits' borders
    dotted."""
    fig = _figure(7.5, 4.4)
    ax = fig.add_subplot()
    for line, g in table.groupby("line", sort=False):
        ax.errorbar(g["mean_givens"], g["accuracy"], yerr=[g["accuracy"] - g["ci_low"], g["ci_high"] - g["accuracy"]],
                    marker="o", markersize=3, capsize=2, label=line)
    for border in (26.5, 53.5):  # hard 0-26, medium 27-53, easy 54-80 given cells
        ax.axvline(border, color="0.6", linestyle=":", linewidth=1)
    ax.set(xlabel="given cells (hard 0-26, medium 27-53, easy 54-80)", ylabel="accuracy", ylim=(-0.02, 1.02),
           title=f"MNIST Sudoku: accuracy against givens ({width} a bin, 95% intervals)")
    ax.legend(fontsize=7, loc="lower right")
    return _save(fig, out, tight=True)


def plot_training(runs: list[str | Path], out: str | Path, *, labels: list[str] | None = None) -> Path:
    """Loss and accuracy during training against images seen: the loss of every run directory
    (its ``log.csv``) in the first panel, then one accuracy panel per evaluated split (from
    ``eval.csv``, written by ``srm-bench train --eval-every``). A run keeps its colour in every
    panel; the line style names the sampler.

    Raises:
        SrmBenchError: a run directory without a log.csv, or a log that is not a training log.
    """
    logs, evals, names = [], [], []
    for i, run in enumerate(runs):
        run = Path(run)
        names.append(labels[i] if labels and i < len(labels) else run.name)
        if not (run / "log.csv").exists():
            raise SrmBenchError(f"{run}: no log.csv; pass the -o directory of 'srm-bench train'")
        log = pd.read_csv(run / "log.csv")
        if not {"images", "mse"} <= set(log.columns):
            raise SrmBenchError(f"{run / 'log.csv'}: not a training log of this version (needs images and mse columns)")
        logs.append(log)
        evals.append(pd.read_csv(run / "eval.csv") if (run / "eval.csv").exists() else None)
    splits = list(dict.fromkeys(s for ev in evals if ev is not None for s in ev["split"]))
    fig = _figure(4.2 * (1 + len(splits)), 3.8)
    axes = fig.subplots(1, 1 + len(splits), squeeze=False)[0]
    ax_loss, acc_axes = axes[0], dict(zip(splits, axes[1:]))
    samplers: dict[str, LineStyle] = {}
    settings: dict[str, set[str]] = {split: set() for split in splits}  # the samplers' NFE and eta, where logged
    for name, log, ev in zip(names, logs, evals):
        line, = ax_loss.plot(log["images"], log["mse"], label=name)
        if ev is None:
            continue
        for col in ("nfe", "eta"):  # logs written before these columns existed
            if col not in ev.columns:
                ev[col] = np.nan
        # a line joins only rows scored alike: a run whose evaluations changed NFE or eta gets one line per setting
        for (split, sampler, nfe, eta), part in ev.groupby(["split", "sampler", "nfe", "eta"], sort=True, dropna=False):
            style = samplers.setdefault(str(sampler), SAMPLER_STYLES.get(str(sampler), "-."))
            acc_axes[split].plot(part["images"], part["accuracy"], style, marker="o", markersize=3,
                                 color=line.get_color())
            settings[split].add("" if pd.isna(nfe) or pd.isna(eta) else f"{nfe:g} NFE, eta {eta:g}")
    ax_loss.set(xlabel="training images", ylabel="velocity MSE", title="loss", yscale="log")
    ax_loss.legend(fontsize=8, title="run", title_fontsize=8)
    for split, ax in acc_axes.items():
        how = settings[split]
        ax.set(xlabel="training images", ylabel="accuracy", ylim=(-0.02, 1.02),
               title=f"accuracy during training: {split}" + (f" ({next(iter(how))})" if len(how) == 1 and "" not in how
                                                              else ""))
    if acc_axes:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color="0.3", linestyle=st, marker="o", markersize=3, label=sm)
                   for sm, st in samplers.items()]
        axes[1].legend(handles=handles, fontsize=8, title="sampler", title_fontsize=8)
    return _save(fig, out, tight=True)
