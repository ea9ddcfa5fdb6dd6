"""The results store: find result JSONs, validate them, and flatten them into one DataFrame.

A results directory holds one result JSON per evaluation (``srm_bench/results.py``, schema in
``docs/results.md``), found recursively by the ``.json`` suffix. A file may also be a *result
set* (``"schema": "srm-bench/result-set"`` with a ``results`` list): the packaged paper
entries are stored that way, one file per table of the paper.

Bad files never stop the leaderboard: every malformed, foreign, unknown-version or duplicate
file is skipped with one warning line naming the file and the reason.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from srm_bench.errors import SrmBenchError
from srm_bench.results import Result, validate_result

log = logging.getLogger(__name__)

RESULT_SET_SCHEMA = "srm-bench/result-set"
MAIN_TABLES = ("Table 1", "Table 2", "Table 3")

# Identity of a row of a leaderboard: what was run (model, sampler, training knobs).
IDENTITY = ("provenance", "model", "arch", "sampler", "order", "overlap", "eta", "sampler_steps", "top_k", "weights",
            "tsampling", "noise_path", "sharpness", "train_steps", "train_batch")
# What must agree before two figures may be compared in one table column.
COMPARABILITY = ("evaluator", "dataset", "source", "n")


@dataclass
class Entry:
    """One validated result and where it came from."""

    result: Result
    path: str
    tables: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)


def paper_dir() -> Path:
    """The packaged folder of result sets transcribed from the paper."""
    return Path(str(resources.files("srm_bench.leaderboard").joinpath("paper")))


def checkout_results_dir() -> Path | None:
    """``leaderboard/results/`` of the source checkout srm-bench runs from, if any."""
    here = Path(str(resources.files("srm_bench.leaderboard")))
    results = here / "results"
    return results if results.is_dir() and (here.parent / "pyproject.toml").is_file() else None


def default_dirs(extra: Iterable[str | Path] = (), *, paper: bool = True, checkout: bool = True) -> list[Path]:
    """The packaged paper entries, the checkout's committed results and any extra folders.

    Raises:
        SrmBenchError: an extra folder that does not exist.
    """
    dirs: list[Path] = [paper_dir()] if paper else []
    repo = checkout_results_dir() if checkout else None
    if repo is not None:
        dirs.append(repo)
    for d in extra:
        p = Path(d)
        if not p.exists():
            raise SrmBenchError(f"{p}: no such results directory; pass an existing folder to --results")
        if p.resolve() not in {q.resolve() for q in dirs}:
            dirs.append(p)
    return dirs


def _files(dirs: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        if d.is_file():
            out.append(d)
        else:
            out.extend(sorted(p for p in d.rglob("*.json") if p.is_file()))
    return out


def _identity_key(res: Mapping[str, Any]) -> tuple:
    """Two entries with the same key are the same evaluation (duplicates)."""
    samples = res.get("samples") or {}
    evaluator = res.get("evaluator") or {}
    dataset = res.get("dataset") or {}
    paper = (res.get("config") or {}).get("paper")
    if paper:
        return ("paper", res["task"], res["split"], paper.get("table"), json.dumps(paper.get("cells"), sort_keys=True))
    if samples.get("sha256"):
        return ("samples", res["task"], res["split"], evaluator.get("name"), evaluator.get("version"),
                dataset.get("content_sha256"), samples["sha256"])
    return ("result", json.dumps(res, sort_keys=True, default=str))


def load_entries(dirs: Iterable[str | Path]) -> list[Entry]:
    """Read every result in ``dirs``; skip bad files and duplicates with one warning each.

    Args:
        dirs: folders (searched recursively for ``*.json``) or single JSON files.

    Returns:
        The valid entries, in file order.
    """
    entries: list[Entry] = []
    seen: dict[str, str] = {}
    for path in _files(Path(d) for d in dirs):
        where = str(path)
        try:
            obj = json.loads(path.read_bytes())
        except OSError as exc:
            log.warning("%s: skipped, cannot read (%s)", where, exc.strerror)
            continue
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            log.warning("%s: skipped, not valid JSON (%s)", where, exc)
            continue
        if isinstance(obj, dict) and obj.get("schema") == RESULT_SET_SCHEMA:
            items = obj.get("results")
            if not isinstance(items, list):
                log.warning("%s: skipped, result set without a 'results' list", where)
                continue
            candidates = [(f"{where}#{i}", item) for i, item in enumerate(items)]
        else:
            candidates = [(where, obj)]
        for name, item in candidates:
            try:
                res = validate_result(item, name)
                _check_shape(res, name)
            except SrmBenchError as exc:
                log.warning("%s; skipped", exc)
                continue
            key = json.dumps(_identity_key(res), default=str)
            if key in seen:
                log.warning("%s: skipped, duplicate of %s", name, seen[key])
                continue
            seen[key] = name
            paper = (res.get("config") or {}).get("paper") or {}
            entries.append(Entry(res, name, [paper["table"]] if paper.get("table") else [],
                                 [res["model"].get("reference", "")] if paper else []))
    return entries


RECORD_FIELDS = frozenset((
    "task", "split", *IDENTITY, *COMPARABILITY, "sampler_name", "gpu_hours", "seed", "tables", "reference", "created",
    "srm_bench_version", "path", "per_sample_file"))


def _check_shape(res: Mapping[str, Any], where: str) -> None:
    """What the leaderboard needs beyond ``validate_result``: objects where objects belong, plain names."""
    for key in ("task", "split"):
        if not isinstance(res[key], str):
            raise SrmBenchError(f"{where}: {key!r} must be a string")
    for parent, key in (("", "dataset"), ("", "evaluator"), ("", "samples"), ("", "config"), ("model", "sampler"),
                        ("model", "training"), ("config", "paper")):
        obj = (res.get(parent) or {}) if parent else res
        if obj.get(key) is not None and not isinstance(obj.get(key), Mapping):
            raise SrmBenchError(f"{where}: '{parent + '.' if parent else ''}{key}' must be an object")
    for name in res["metrics"]:
        if name in RECORD_FIELDS or name.endswith(("_lo", "_hi", "_higher_is_better")):
            raise SrmBenchError(f"{where}: metric name {name!r} clashes with a leaderboard column; rename the metric")


def _scalar(v: Any) -> Any:
    """Identity values must be hashable: lists and objects become their JSON text."""
    return v if v is None or isinstance(v, (str, int, float, bool)) else json.dumps(v, sort_keys=True)


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


_ORDER_NAMES = {"predicted": "Predicted", "random": "Random", "graph": "Graph-based"}


def sampler_label(sampler: Mapping[str, Any]) -> str:
    """A short row label for a sampler, in the paper's words where it has them.

    Example:
        >>> sampler_label({"name": "sequential", "order": "predicted", "overlap": 0})
        'Predicted Order w/o Overlap'
    """
    if not sampler:
        return "-"
    if sampler.get("label"):
        return str(sampler["label"])
    name = str(sampler.get("name", "-"))
    if name != "sequential":
        return name.replace("_", " ").replace("-", " ").capitalize()
    order = str(sampler.get("order", "?"))
    text = f"{_ORDER_NAMES.get(order, order.capitalize())} Order"
    overlap = _num(sampler.get("overlap"))
    if overlap is not None:
        text += " w/o Overlap" if overlap == 0 else f" + Overlap {overlap:g}"
    if sampler.get("top_k") not in (None, 1):
        text += f", top-{sampler['top_k']}"
    return text


def _evaluator_label(evaluator: Mapping[str, Any]) -> str:
    """Name, version and weights: results scored by different weights never share a cell."""
    if evaluator.get("name") == "paper":
        return "paper"
    label = f"{evaluator.get('name', '?')} v{evaluator.get('version', '?')}"
    weights = evaluator.get("weights_sha256")
    return f"{label} (weights {weights[:8]})" if isinstance(weights, str) and weights else label


def _dataset_label(res: Mapping[str, Any]) -> str:
    if res["model"]["provenance"] == "paper":
        return "paper's"
    sha = (res.get("dataset") or {}).get("content_sha256")
    if not sha or not isinstance(sha, str):
        return "unknown"
    from srm_bench.canonical import pinned

    pin = pinned(res["task"], res["split"])
    return "canonical" if pin and pin.get("content_sha256") == sha else f"custom {sha[:10]}"


def _record(e: Entry) -> dict[str, Any]:
    res = e.result
    model = res["model"]
    sampler = model.get("sampler") or {}
    training = model.get("training") or {}
    evaluator = res.get("evaluator") or {}
    samples = res.get("samples") or {}
    n = samples.get("count")
    if not isinstance(n, int):
        ns = [m.get("n") for m in res["metrics"].values() if isinstance(m.get("n"), int)]
        n = max(ns) if ns else None
    source = (res.get("dataset") or {}).get("source") or {}
    rec: dict[str, Any] = {
        "task": res["task"],
        "split": res["split"],
        "provenance": model["provenance"],
        "model": str(model["name"]),
        "arch": _scalar(training.get("arch")),
        "sampler": sampler_label(sampler),
        "sampler_name": _scalar(sampler.get("name")),
        "order": _scalar(sampler.get("order")),
        "overlap": _num(sampler.get("overlap")),
        "eta": _num(sampler.get("eta")),
        "sampler_steps": _scalar(sampler.get("steps")),
        "top_k": _scalar(sampler.get("top_k")),
        "weights": _scalar(sampler.get("weights")),
        "tsampling": _scalar(training.get("tsampling")),
        "noise_path": _scalar(training.get("noise_path")),
        "sharpness": _num(training.get("sharpness")),
        "train_steps": _scalar(training.get("steps")),
        "train_batch": _scalar(training.get("batch")),
        "gpu_hours": _num(training.get("gpu_hours")),
        "evaluator": _evaluator_label(evaluator),
        "dataset": _dataset_label(res),
        "source": json.dumps(source, sort_keys=True) if source else "",
        "n": n,
        "seed": res.get("seed"),
        "tables": ", ".join(e.tables),
        "reference": " | ".join(e.references) if e.references else model.get("reference", ""),
        "created": str(res.get("created", "")),
        "srm_bench_version": res.get("srm_bench_version", ""),
        "path": e.path,
        "per_sample_file": res.get("per_sample_file"),
    }
    for name, m in res["metrics"].items():
        ci = m.get("ci95")
        rec[name] = float(m["value"])
        rec[f"{name}_lo"] = float(ci[0]) if ci else None
        rec[f"{name}_hi"] = float(ci[1]) if ci else None
        rec[f"{name}_higher_is_better"] = bool(m["higher_is_better"])
    return rec


def merge_paper_duplicates(entries: list[Entry]) -> list[Entry]:
    """Fold paper entries that report the same experiment in several tables into one.

    The paper repeats figures across tables (Table 1's SRM rows are the UNet column of the
    architecture ablation and the linear column of the schedule ablation). Paper entries with
    the same task, split, model, sampler and training knobs are folded when every metric they
    share has the same value; where the paper gives different figures for the same
    configuration they stay apart as separate rows.
    """
    out: list[Entry] = []
    index: dict[tuple, list[int]] = {}
    for e in entries:
        res = e.result
        if res["model"]["provenance"] != "paper":
            out.append(e)
            continue
        rec = _record(e)
        key = (rec["task"], rec["split"]) + tuple(json.dumps(rec[k]) for k in IDENTITY)
        for i in index.get(key, []):
            other = out[i].result["metrics"]
            shared = set(other) & set(res["metrics"])
            if all(other[m]["value"] == res["metrics"][m]["value"] for m in shared):
                merged = dict(out[i].result)
                merged["metrics"] = {**res["metrics"], **other}
                out[i] = Entry(merged, out[i].path, out[i].tables + [t for t in e.tables if t not in out[i].tables],  # type: ignore[arg-type]
                               out[i].references + e.references)
                break
        else:
            index.setdefault(key, []).append(len(out))
            out.append(e)
    return out


def to_frame(entries: list[Entry]) -> pd.DataFrame:
    """One row per entry: identity, comparability fields and every metric with its interval."""
    frame = pd.DataFrame.from_records([_record(e) for e in entries])
    if frame.empty:
        return pd.DataFrame(columns=["task", "split", *IDENTITY, *COMPARABILITY, "path"])
    for col in ("sampler_steps", "top_k", "train_steps", "train_batch", "n", "seed"):
        try:  # whole numbers stay whole where some are missing (pandas would make them floats)
            frame[col] = frame[col].astype("Int64")
        except (TypeError, ValueError, OverflowError):
            pass
    return frame


def load_frame(dirs: Iterable[str | Path], *, merge_paper: bool = True) -> pd.DataFrame:
    """``load_entries`` then ``to_frame`` (folding repeated paper figures by default)."""
    entries = load_entries(dirs)
    return to_frame(merge_paper_duplicates(entries) if merge_paper else entries)
