"""The paper's table layouts, built from the flat results frame, and their renderers.

A layout fixes the columns (e.g. Table 1: difficulty x {L1, Acc}); rows are the distinct
configurations found in the results (model, sampler, training knobs), grouped by
provenance so the paper's figures sit in their own row group beside ours.

One cell holds the figure of exactly one result. Rows are split by everything that makes
figures incomparable (evaluator version, dataset, background source, sample count), and
when several results still land in one cell (repeated runs) each gets its own row.
"""
from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from srm_bench.errors import SrmBenchError

from .store import COMPARABILITY, IDENTITY, names_deviation

FORMATS = ("md", "latex", "csv", "html", "json")
GROUPS = {"paper": "Paper (transcribed)", "baseline": "Baselines (ours)", "oracle": "Oracles (ours)",
          "user": "Submitted"}
# Row-label columns shown when their value differs between rows of a table.
KNOB_HEADERS = {
    "arch": "Arch", "tsampling": "t-sampling", "noise_path": "Noise path", "sharpness": "Sharpness",
    "eta": "η", "sampler_steps": "Steps", "weights": "Weights", "train_steps": "Train steps", "train_batch": "Batch",
    "evaluator": "Evaluator", "dataset": "Dataset", "source": "Source data", "n": "n",
}
METRIC_LABELS = {"l1": "L1", "accuracy": "Acc", "error": "#E", "consistency": "Con",
                 "strict_accuracy": "Acc (strict)", "givens_kept": "Givens kept", "solved": "Solved",
                 "unsure_cells": "Unsure cells"}
# Which Sudoku digit reader scored a result, from its evaluator label. The paper's figures
# were read by the paper's MLP, so they share the MLP columns.
READER_LABELS = {"mlp": "MLP reader", "cnn": "CNN reader"}
# The text track (language models answering in text, ``srm-bench llm``) reads no image: its
# results and the paper's LLM rows get reader ``text`` and a table of their own.
TEXT_READER = "text"


def reader_of(task: Any, evaluator: Any, arch: Any = None) -> str | None:
    """``mlp`` or ``cnn`` for Sudoku image results (paper rows: ``mlp``), ``text`` for the text
    track and the paper's LLM rows, None for other tasks."""
    if task != "sudoku":
        return None
    if str(evaluator or "").startswith("sudoku-text") or arch == "llm":
        return TEXT_READER
    return "cnn" if str(evaluator or "").startswith("sudoku-digit-cnn") else "mlp"


def _with_reader(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty or "reader" in frame.columns:
        return frame
    none = pd.Series(None, index=frame.index)
    ev = frame["evaluator"] if "evaluator" in frame.columns else none
    arch = frame["arch"] if "arch" in frame.columns else none
    return frame.assign(reader=[reader_of(t, e, a) for t, e, a in zip(frame["task"], ev, arch)])


@dataclass(frozen=True)
class Column:
    """One column of a layout: a metric of the results that match ``where``."""

    group: str
    metric: str
    where: tuple[tuple[str, Any], ...]
    text: str | None = None  # header text when it must say more than the metric's name

    @property
    def label(self) -> str:
        base = self.text or METRIC_LABELS.get(self.metric, self.metric)
        reader = dict(self.where).get("reader")
        return f"{base} ({READER_LABELS[reader]})" if reader in READER_LABELS else base


@dataclass(frozen=True)
class Layout:
    """A table of the paper: which tasks, which columns, which paper tables feed it."""

    key: str
    title: str
    tasks: tuple[str, ...]
    columns: tuple[Column, ...]
    paper_tables: tuple[str, ...]
    appendix: bool = True  # whether --appendix adds the paper's ablation rows


def _cols(groups: Iterable[tuple[str, dict[str, Any]]], metrics: Iterable[str],
          texts: Mapping[str, str] | None = None) -> tuple[Column, ...]:
    metrics = tuple(metrics)
    return tuple(Column(g, m, tuple(sorted(w.items())), (texts or {}).get(m)) for g, w in groups for m in metrics)


def _by_reader(groups: Iterable[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Each column group once per Sudoku reader: one column never holds two readers' figures."""
    return [(g, {**w, "reader": r}) for g, w in groups for r in READER_LABELS]


SUDOKU_SPLITS = (("Easy", {"split": "easy"}), ("Medium", {"split": "medium"}), ("Hard", {"split": "hard"}))
TEXT_TEXTS = {"accuracy": "Valid", "givens_kept": "Consistent", "solved": "Acc (valid + consistent)"}
COUNTING_TEXTS = {"accuracy": "Acc (paper: pair rule)", "strict_accuracy": "Acc (strict: + one vertex count)"}
LAYOUTS: dict[str, Layout] = {
    "table1": Layout("table1", "Table 1: MNIST Sudoku", ("sudoku",), _cols(_by_reader(SUDOKU_SPLITS), ("l1", "accuracy")),
                     ("Table 1",)),
    "table2": Layout("table2", "Table 2: Even Pixels", ("even-pixels",),
                     _cols([("", {"split": "test"})], ("error", "accuracy", "strict_accuracy")), ("Table 2",)),
    "table3": Layout("table3", "Table 3: Counting Polygons / Stars FFHQ", ("counting-polygons", "counting-stars"),
                     _cols([("Polygons", {"task": "counting-polygons"}), ("Stars", {"task": "counting-stars"})],
                           ("accuracy", "strict_accuracy", "consistency"), COUNTING_TEXTS), ("Table 3",)),
    "table4": Layout("table4", "Table 4: noise-level sampling ablation (MNIST Sudoku hard, accuracy)", ("sudoku",),
                     _cols(_by_reader([("Uniform t", {"split": "hard", "tsampling": "independent"}),
                                       ("Uniform t-bar (ours)", {"split": "hard", "tsampling": "uniform_tbar"})]),
                           ("accuracy",)),
                     ("Table 4",), appendix=False),
    "text": Layout("text", "Text Sudoku: language models on the puzzles written as text (the paper's Table 10 and Appendix F)",
                   ("sudoku",), _cols([(g, {**w, "reader": TEXT_READER}) for g, w in SUDOKU_SPLITS],
                                      ("accuracy", "givens_kept", "solved"), TEXT_TEXTS),
                   ("Table 10",), appendix=False),
}
TASK_LAYOUTS = {"sudoku": ("table1", "table4", "text"), "even-pixels": ("table2",), "counting-polygons": ("table3",),
                "counting-stars": ("table3",)}


@dataclass
class Cell:
    value: float
    lo: float | None
    hi: float | None
    n: int | None
    bold: bool = False
    flagged: bool = False  # an accuracy of samples that did not keep the puzzle's given cells: never best
    warned: bool = False  # an accuracy of samples the evaluator warned about as a whole (store.diagnosis): never best
    path: str | None = None  # the result this figure comes from (its file; ``#i`` for an item of a result set)


@dataclass
class Row:
    group: str
    labels: dict[str, Any]
    cells: list[Cell | None]
    sort_key: tuple = ()


@dataclass
class Table:
    """A built layout: row groups, label columns and one cell per (row, column)."""

    layout: Layout
    columns: list[Column]
    label_columns: list[str]
    rows: list[Row]
    notes: list[str] = field(default_factory=list)

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (values only), indexed by the row labels."""
        data = []
        for r in self.rows:
            rec: dict[Any, Any] = {("", "Group"): GROUPS.get(r.group, r.group)}
            rec.update({("", KNOB_HEADERS.get(k, k.capitalize())): r.labels.get(k) for k in self.label_columns})
            for c, cell in zip(self.columns, r.cells):
                rec[(c.group, c.label)] = cell.value if cell else math.nan
            data.append(rec)
        return pd.DataFrame(data, columns=pd.MultiIndex.from_tuples(list(data[0]) if data else []))


def _layout_records(frame: pd.DataFrame, layout: Layout) -> list[dict[str, Any]]:
    """The rows of ``frame`` that can fill a cell of ``layout``, as dicts with None for missing."""
    if frame.empty:
        return []
    frame = _with_reader(frame)
    sub = frame[frame["task"].isin(layout.tasks)]
    keep = pd.Series(False, index=sub.index)
    for c in layout.columns:
        if c.metric not in sub.columns:
            continue
        hit = sub[c.metric].notna()
        for k, v in c.where:
            hit &= sub[k] == v
        keep |= hit
    metrics = {c.metric for c in layout.columns}
    wanted = ["task", "split", *IDENTITY, *COMPARABILITY, "reader", "tables", "created", "path", "givens_kept", "notes",
              "train_images", "train_schedule", "train_cooldown", "gpu_hours", "device", "sampler_seed"]
    wanted += [f"{m}{suffix}" for m in sorted(metrics) for suffix in ("", "_lo", "_hi")]
    sub = sub.loc[keep, [c for c in dict.fromkeys(wanted) if c in sub.columns]]
    return sub.astype(object).where(sub.notna(), None).to_dict("records")


def _matches(rec: Mapping[str, Any], where: tuple[tuple[str, Any], ...]) -> bool:
    return all(rec.get(k) == v for k, v in where)


_SAMPLER_FIELDS = ("provenance", "model", "sampler", "order", "overlap", "top_k")
_SAMPLER_RANK = ("Parallel", "Predicted Order w/o Overlap", "Predicted Order + Overlap", "Random Order w/o Overlap",
                 "Random Order + Overlap", "Graph-based Order w/o Overlap", "Graph-based Order + Overlap")


def _model_rank(rec: Mapping[str, Any]) -> tuple[int, str]:
    name = str(rec["model"]).lower()
    if rec.get("provenance") == "oracle" or name.startswith("oracle"):
        return (4, name)
    if rec.get("arch") == "llm":
        return (5, name)
    if name.startswith(("diffusion", "ddpm")):
        return (0, name)
    if name.startswith("srm"):
        return (1, name)
    return (2, name)


def _sampler_rank(label: str) -> tuple[int, str]:
    for i, s in enumerate(_SAMPLER_RANK):
        if label == s:
            return (i, "")
        if label.startswith(s.replace(" + Overlap", " + Overlap ")):
            return (i, label)
    return (len(_SAMPLER_RANK), label)


def _table_number(tables: str) -> int:
    nums = [int(t) for t in tables.split(", ") if t.isdigit()]
    return min(nums) if nums else 0


def _sortable(v: Any) -> tuple[int, Any]:
    return (0, "") if v is None else (1, v) if isinstance(v, (int, float)) else (2, str(v))


def build_table(frame: pd.DataFrame, layout: Layout, *, appendix: bool = False) -> Table:
    """Arrange the results of ``frame`` in ``layout``; one result per cell, never pooled.

    Args:
        frame: the flat results frame of :func:`srm_bench.leaderboard.store.load_frame`.
        layout: one of :data:`LAYOUTS`.
        appendix: also show the paper's appendix ablations (DiT, cosine, eta = 0, LLMs, ...).

    Returns:
        The table; empty (no rows) when no result fits the layout.
    """
    columns = list(layout.columns)
    records = _layout_records(frame, layout)
    col_fields = {k for c in columns for k, _ in c.where}
    row_fields = [f for f in IDENTITY if f not in col_fields] + [f for f in COMPARABILITY if f not in col_fields]
    cells: dict[tuple, dict[int, list[dict[str, Any]]]] = {}
    first: dict[tuple, dict[str, Any]] = {}
    for rec in records:
        if rec["provenance"] == "paper" and not (appendix and layout.appendix):
            if not set(layout.paper_tables) & set((rec.get("tables") or "").split(", ")):
                continue
        hits = [i for i, c in enumerate(columns) if _matches(rec, c.where) and rec.get(c.metric) is not None]
        if not hits:
            continue
        key = tuple(rec.get(f) for f in row_fields)
        first.setdefault(key, rec)
        for i in hits:
            cells.setdefault(key, {}).setdefault(i, []).append(rec)
    rows: list[Row] = []
    for key, by_col in cells.items():
        runs = max(len(v) for v in by_col.values())
        for lst in by_col.values():
            lst.sort(key=lambda r: (r.get("created") or "", r.get("path") or ""))
        # Repeated runs drawn on different devices (a CPU and a GPU draw different samples from one seed) say
        # where, so that the rows are not read as a seed-to-seed spread; runs drawn with different seeds say which.
        devices = {_device_of(r) for lst in by_col.values() for r in lst}
        seeds = {_seed_of(r) for lst in by_col.values() for r in lst}
        for k in range(runs):
            picked = {i: lst[k] for i, lst in by_col.items() if k < len(lst)}
            rec = first[key]
            labels: dict[str, Any] = {f: rec.get(f) for f in row_fields}
            labels["model"] = rec["model"]
            labels["sampler"] = rec["sampler"]
            labels["run"] = k + 1 if runs > 1 else None
            why = []
            if runs > 1 and len(devices) > 1:
                why.append(", ".join(sorted({_device_of(r) for r in picked.values()})))
            if runs > 1 and len(seeds) > 1:
                why.append("seed " + ", ".join(sorted({_seed_of(r) for r in picked.values()})))
            if why:
                labels["run"] = f"{k + 1} ({', '.join(why)})"
            tables = sorted({t for r in picked.values() for t in (r.get("tables") or "").split(", ") if t},
                            key=lambda t: int(t.split()[-1]) if t.split()[-1].isdigit() else 0)
            labels["ref"] = ", ".join(t.split()[-1] for t in tables)
            labels["training"] = training_budget(rec)
            row_cells: list[Cell | None] = [None] * len(columns)
            for i, r in picked.items():
                m = columns[i].metric
                row_cells[i] = Cell(float(r[m]), r.get(f"{m}_lo"), r.get(f"{m}_hi"), r.get("n"),
                                    flagged=m == "accuracy" and _givens_broken(r), path=r.get("path"),
                                    warned=m in WARNED_METRICS and bool(r.get("notes")))
            knobs = tuple(_sortable(rec.get(f)) for f in IDENTITY if f not in _SAMPLER_FIELDS)
            own = bool(set(tables) & set(layout.paper_tables)) or not tables
            sort_key = (list(GROUPS).index(rec["provenance"]), 0 if own else _table_number(labels["ref"]),
                        _model_rank(rec), knobs, _sampler_rank(rec["sampler"]),
                        tuple(_sortable(rec.get(f)) for f in COMPARABILITY), k)
            rows.append(Row(rec["provenance"], labels, row_cells, sort_key))
    rows.sort(key=lambda r: r.sort_key)
    used = [i for i in range(len(columns)) if any(r.cells[i] is not None for r in rows)]
    columns = [columns[i] for i in used]
    for row in rows:
        row.cells = [row.cells[i] for i in used]
    label_columns = ["model", "sampler"]
    for f in list(KNOB_HEADERS):
        # t-sampling also wherever a row trained with one of our deviations, even if each model has one rule
        if f in row_fields and (_varies(rows, f) or (f == "tsampling" and any(names_deviation(r.labels.get(f))
                                                                             for r in rows))):
            label_columns.append(f)
    if any(r.labels.get("training") for r in rows):
        label_columns.append("training")
    if _needs_checkpoint(rows, label_columns):
        label_columns.append("checkpoint")
    if any(r.labels.get("run") for r in rows):
        label_columns.append("run")
    if any(r.labels.get("ref") for r in rows):
        label_columns.append("ref")
    _mark_best(rows, columns, frame)
    notes = []
    if any(r.group == "paper" for r in rows):
        notes.append("Paper rows are transcribed from the paper (no intervals given there); 'Paper table' names the tables that report the figure.")
    if any(c and c.lo is not None for r in rows for c in r.cells):
        notes.append("± is half the width of the 95% interval (Wilson for rates, normal for means).")
    if any(c and c.flagged for r in rows for c in r.cells):
        notes.append(f"{DAGGER}: the samples changed given cells of the puzzles (givens kept below 1.0), so this "
                     "accuracy does not mean the puzzles were solved; it is never marked best.")
    if any(c and c.warned for r in rows for c in r.cells):
        notes.append(f"{DOUBLE_DAGGER}: srm-bench evaluate warned about these samples as a whole (Counting: the evaluator "
                     "reads one object count in half of them or more, while the paper's rule is met by one polygon, a 1 "
                     "and its vertex count), so this accuracy does not show counting across the range; it is never marked "
                     "best.")
    if any(r.labels.get("run") and r.group != "paper" for r in rows):
        notes.append("Repeated results of one configuration are listed as separate runs, never pooled.")
    if any(r.labels.get("run") and r.group == "paper" for r in rows):
        notes.append("Where the paper gives different figures for one configuration in two tables, both rows are shown.")
    return Table(layout, columns, label_columns, rows, notes)


DAGGER = "†"
DOUBLE_DAGGER = "‡"
WARNED_METRICS = ("accuracy", "strict_accuracy")  # the figures a whole-set warning (store.diagnosis) puts in doubt


def _device_of(rec: Mapping[str, Any]) -> str:
    dev = rec.get("device")
    return str(dev) if isinstance(dev, str) and dev else "device not recorded"


def _seed_of(rec: Mapping[str, Any]) -> str:
    seed = rec.get("sampler_seed")  # a float where the frame's column has gaps (results without one)
    if seed is None:
        return "not recorded"
    return str(int(seed)) if isinstance(seed, float) and seed.is_integer() else str(seed)


def training_budget(rec: Mapping[str, Any]) -> str | None:
    """'19.8M img, 0.97 GPU-h': what a model was trained on, where its result says (the paper's
    rows: steps x batch, no GPU time), and where the result records its learning-rate schedule,
    where the weights stood in it: 'lr constant', 'lr annealed over 7,000 steps' (the linear decay
    to 0 done), or 'lr annealing, 3,800 of 6,000 steps' (weights taken during the decay)."""
    images, hours = rec.get("train_images"), rec.get("gpu_hours")
    parts = []
    if isinstance(images, (int, float)) and not (isinstance(images, float) and math.isnan(images)):
        parts.append(f"{images / 1e6:.1f}M img" if images >= 1e5 else f"{int(images):,} img")
    if isinstance(hours, (int, float)) and not math.isnan(hours):
        parts.append(f"{hours:.2f} GPU-h")
    steps, end, cool = (_whole(rec.get(k)) for k in ("train_steps", "train_schedule", "train_cooldown"))
    if steps is not None and end is not None and cool is not None:
        done = steps - (end - cool)  # steps of the decay behind these weights
        parts.append("lr constant" if done <= 0 else f"lr annealed over {cool:,} steps" if done >= cool
                     else f"lr annealing, {done:,} of {cool:,} steps")
    return ", ".join(parts) or None


def _whole(x: Any) -> int | None:
    """An integer field of the frame (pandas holds a column with gaps as floats), else None."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return None
    f = float(x)
    return int(f) if math.isfinite(f) and f.is_integer() else None


def _givens_broken(rec: Mapping[str, Any]) -> bool:
    """A Sudoku result whose samples did not keep every given cell (an ignored puzzle can still be valid)."""
    kept = rec.get("givens_kept")
    return isinstance(kept, float) and not math.isnan(kept) and kept < 1.0


def _needs_checkpoint(rows: list[Row], shown: list[str]) -> bool:
    """Whether two rows would read the same but for their weights' hash (say, two runs of one recipe
    with different learning-rate schedules); then the hash is shown to tell them apart."""
    seen: dict[tuple[Any, ...], set[Any]] = {}
    for r in rows:
        seen.setdefault((r.group, *(repr(r.labels.get(c)) for c in shown)), set()).add(r.labels.get("checkpoint"))
    return any(len(v) > 1 for v in seen.values())


def _varies(rows: list[Row], f: str) -> bool:
    """Whether rows of one model differ in field ``f`` (missing values do not count)."""
    seen: dict[str, set[str]] = {}
    for r in rows:
        v = r.labels.get(f)
        if v is not None:
            seen.setdefault(f"{r.group}/{r.labels['model']}", set()).add(repr(v))
    return any(len(v) > 1 for v in seen.values())


def _higher_is_better(frame: pd.DataFrame, metric: str) -> bool:
    col = f"{metric}_higher_is_better"
    if col in frame.columns:
        vals = frame[col].dropna()
        if len(vals):
            return bool(vals.iloc[0])
    return metric not in ("l1", "error")


def _mark_best(rows: list[Row], columns: list[Column], frame: pd.DataFrame) -> None:
    """Bold the best value of each column within each row group (oracles excluded), among the rows
    scored alike: a best is only named among figures that may be compared (the same evaluator and
    its weights, dataset and source data), so a row scored by other classifiers is never out-bolded."""
    def alike(r: Row) -> tuple:
        return (r.group, *(repr(r.labels.get(f)) for f in COMPARABILITY if f != "n"))

    for j, c in enumerate(columns):
        hib = _higher_is_better(frame, c.metric)
        for group in {alike(r) for r in rows}:
            cand = [x for r in rows if alike(r) == group and (x := r.cells[j]) is not None
                    and not x.flagged and not x.warned and _model_rank({**r.labels, "provenance": r.group})[0] != 4]
            if len(cand) < 2:
                continue
            best = max(x.value for x in cand) if hib else min(x.value for x in cand)
            for x in cand:
                x.bold = abs(x.value - best) < 1e-12


def _arrow(frame: pd.DataFrame, metric: str) -> str:
    return "↑" if _higher_is_better(frame, metric) else "↓"


def layouts_for(frame: pd.DataFrame, task: str | None) -> list[Layout]:
    """The layouts to show: those of ``task``, or of every task present in ``frame``.

    Raises:
        SrmBenchError: ``task`` names no task with results or a layout.
    """
    present = sorted(set(frame["task"])) if not frame.empty else []
    if task is not None:
        if task not in TASK_LAYOUTS and task not in present:
            valid = sorted(set(TASK_LAYOUTS) | set(present))
            raise SrmBenchError(f"unknown task {task!r} for the leaderboard; valid: {', '.join(valid)}")
        tasks = [task]
    else:
        tasks = sorted(present, key=lambda t: (list(TASK_LAYOUTS).index(t) if t in TASK_LAYOUTS else len(TASK_LAYOUTS), t))
    out: list[Layout] = []
    for t in tasks:
        for key in TASK_LAYOUTS.get(t, ()):
            if LAYOUTS[key] not in out:
                out.append(LAYOUTS[key])
        if t not in TASK_LAYOUTS:
            out.append(generic_layout(frame, t))
    return out


def generic_layout(frame: pd.DataFrame, task: str) -> Layout:
    """Split x metric columns for a task the paper has no table for."""
    sub = frame[frame["task"] == task]
    splits = sorted(set(sub["split"]))
    metrics = [c for c in sub.columns if f"{c}_higher_is_better" in sub.columns and sub[c].notna().any()]
    return Layout(f"generic-{task}", f"{task}", (task,), _cols([(s, {"split": s}) for s in splits], metrics), ())


# ---------------------------------------------------------------------------- rendering

def _fmt(cell: Cell | None, bold: Callable[[str], str], pm: str) -> str:
    if cell is None:
        return "–"
    text = f"{cell.value:.3f}"
    if cell.lo is not None and cell.hi is not None:
        text += f" {pm} {(cell.hi - cell.lo) / 2:.3f}"
    return (bold(text) if cell.bold else text) + (f" {DAGGER}" if cell.flagged else "") + (
        f" {DOUBLE_DAGGER}" if cell.warned else "")


def _label(table: Table, row: Row, col: str) -> str:
    v = row.labels.get(col)
    if v is None or v == "":
        return "–" if col not in ("run", "ref") else ""
    if col == "source":
        return str(v).strip("{}").replace('"', "")
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _headers(table: Table) -> list[str]:
    names = {"model": "Model", "sampler": "Sampler", "training": "Training", "checkpoint": "Weights sha256",
             "run": "Run", "ref": "Paper table"}
    return [names.get(c, KNOB_HEADERS.get(c, c)) for c in table.label_columns]


def render_markdown(tables: list[Table], frame: pd.DataFrame) -> str:
    """GitHub Markdown: a title, then one pipe table per layout with its notes."""
    out: list[str] = ["# srm-bench leaderboard\n",
                      "Rebuilt from result files by `srm-bench leaderboard`; never edited by hand. "
                      "Bold: best of its row group (oracles aside); ↑/↓: higher/lower is better.\n"]
    for t in tables:
        out.append(f"## {t.layout.title}\n")
        if not t.rows:
            out.append("No results for this table.\n")
            continue
        heads = ["Group", *_headers(t)] + [f"{c.group} {c.label} {_arrow(frame, c.metric)}".strip() for c in t.columns]
        out.append("| " + " | ".join(heads) + " |")
        out.append("|" + "|".join(["---"] * (len(heads) - len(t.columns)) + ["---:"] * len(t.columns)) + "|")
        last = None
        for r in t.rows:
            group = f"**{GROUPS.get(r.group, r.group)}**" if r.group != last else ""
            last = r.group
            cells = [_label(t, r, c).replace("|", "\\|") for c in t.label_columns]
            vals = [_fmt(c, lambda s: f"**{s}**", "±") for c in r.cells]
            out.append("| " + " | ".join([group, *cells, *vals]) + " |")
        out.append("")
        out.extend(f"{n}  " for n in t.notes)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


_TEX = {"\\": r"\textbackslash{}", "^": r"\textasciicircum{}", DAGGER: r"$^\dagger$", DOUBLE_DAGGER: r"$^\ddagger$",
        "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}", "η": r"$\eta$",
        "±": r"$\pm$", "–": "--", "↑": r"$\uparrow$", "↓": r"$\downarrow$", "~": r"\textasciitilde{}"}


def _tex(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


def render_latex(tables: list[Table], frame: pd.DataFrame) -> str:
    """One booktabs ``tabular`` per layout, with multicolumn headers like the paper's."""
    out: list[str] = ["% Generated by 'srm-bench leaderboard --format latex'; needs \\usepackage{booktabs}."]
    for t in tables:
        if not t.rows:
            continue
        nlab = 1 + len(t.label_columns)
        spec = "l" * nlab + "".join("|" + "c" * len(list(g)) for g in _column_groups(t.columns))
        out += [f"% {t.layout.title}", f"\\begin{{tabular}}{{{spec}}}", "\\toprule"]
        if any(c.group for c in t.columns):
            parts = [" & " * (nlab - 1)]
            parts += [f"\\multicolumn{{{len(g)}}}{{c}}{{{_tex(g[0].group)}}}" for g in _column_groups(t.columns)]
            out.append(parts[0] + " & ".join(parts[1:]) + r" \\")
        heads = [_tex(h) for h in ["Group", *_headers(t)]]
        heads += [f"{_tex(c.label)}{_tex(_arrow(frame, c.metric))}" for c in t.columns]
        out += [" & ".join(heads) + r" \\", "\\midrule"]
        last = None
        for r in t.rows:
            if last is not None and r.group != last:
                out.append("\\midrule")
            group = _tex(GROUPS.get(r.group, r.group)) if r.group != last else ""
            last = r.group
            cells = [_tex(_label(t, r, c)) for c in t.label_columns]
            vals = [_tex(_fmt(c, lambda s: s, "±")) if not (c and c.bold) else
                    "\\textbf{" + _tex(_fmt(c, lambda s: s, "±")) + "}" for c in r.cells]
            out.append(" & ".join([group, *cells, *vals]) + r" \\")
        out += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(out)


def _column_groups(columns: list[Column]) -> list[list[Column]]:
    groups: list[list[Column]] = []
    for c in columns:
        if groups and groups[-1][0].group == c.group:
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def render_html(tables: list[Table], frame: pd.DataFrame) -> str:
    """A standalone HTML page with one table per layout (best values in bold)."""
    e = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>srm-bench leaderboard</title>",
           "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin-bottom:2em}"
           "td,th{padding:2px 8px;border-bottom:1px solid #ddd}td.v{text-align:right}"
           "tr.g td{background:#eee;font-weight:bold}</style></head><body>"]
    for t in tables:
        out.append(f"<h2>{e(t.layout.title)}</h2>")
        if not t.rows:
            out.append("<p>No results for this table.</p>")
            continue
        nlab = len(t.label_columns)
        out.append("<table><thead>")
        if any(c.group for c in t.columns):
            out.append(f"<tr><th colspan=\"{nlab}\"></th>" + "".join(
                f"<th colspan=\"{len(g)}\">{e(g[0].group)}</th>" for g in _column_groups(t.columns)) + "</tr>")
        out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in _headers(t)) + "".join(
            f"<th>{e(c.label)} {_arrow(frame, c.metric)}</th>" for c in t.columns) + "</tr></thead><tbody>")
        last = None
        for r in t.rows:
            if r.group != last:
                out.append(f"<tr class=\"g\"><td colspan=\"{nlab + len(t.columns)}\">{e(GROUPS.get(r.group, r.group))}</td></tr>")
                last = r.group
            cells = "".join(f"<td>{e(_label(t, r, c))}</td>" for c in t.label_columns)
            vals = "".join(f"<td class=\"v\">{_fmt(c, lambda s: f'<b>{s}</b>', '±')}</td>" for c in r.cells)
            out.append(f"<tr>{cells}{vals}</tr>")
        out.append("</tbody></table>")
        out.extend(f"<p><small>{e(n)}</small></p>" for n in t.notes)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render(frame: pd.DataFrame, fmt: str, *, task: str | None = None, appendix: bool = False) -> str:
    """Render the leaderboard of ``frame`` in one of :data:`FORMATS`.

    ``md``, ``latex`` and ``html`` give the paper's layouts; ``csv`` and ``json`` give the flat
    frame (one row per result, every metric with its interval) for further analysis.

    Raises:
        SrmBenchError: unknown format or task, or nothing to show.
    """
    if fmt not in FORMATS:
        raise SrmBenchError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if fmt in ("csv", "json"):
        if task is not None:
            layouts_for(frame, task)  # raises for an unknown task
        sub = frame if task is None or frame.empty else frame[frame["task"] == task]
        return sub.to_csv(index=False) if fmt == "csv" else sub.to_json(orient="records", indent=1) + "\n"
    layouts = layouts_for(frame, task)
    if task is not None and not frame.empty:
        frame = frame[frame["task"] == task]
    tables = [build_table(frame, lay, appendix=appendix) for lay in layouts]
    if not tables:
        raise SrmBenchError("no results to show; pass --results DIR with result JSONs from 'srm-bench evaluate'")
    return {"md": render_markdown, "latex": render_latex, "html": render_html}[fmt](tables, frame)
