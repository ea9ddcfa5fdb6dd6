"""The results store: find result JSONs, validate them, and flatten them into one DataFrame.

A results directory holds one result JSON per evaluation (``srm_bench/results.py``, schema in
``docs/results.md``), found recursively by the ``.json`` suffix. A file may also be a *result
set* (``"schema": "srm-bench/result-set"`` with a ``results`` list): the packaged paper
entries are stored that way, one file per table of the paper.

Bad files never stop the leaderboard: every malformed, foreign, unknown-version or duplicate
file is skipped with one warning line naming the file and the reason.

Every load also checks that a result can be true (``check_entry``): metrics finite, rates and
intervals in [0, 1], ``lo <= value <= hi``, kinds as the task's evaluator declares them;
every metric recomputed from the per-sample CSV beside the JSON and compared; provenance
"paper" only from the packaged transcription, "baseline"/"oracle" only for the checkout's
committed results (or a result with the same samples and the same figures). A result that
fails is refused with one warning, never shown. ``srm-bench leaderboard --verify`` runs the
same checks and exits 1 when any file fails.
"""
from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from srm_bench.errors import SrmBenchError
from srm_bench.results import Result, per_sample_path, read_per_sample_bytes, validate_result

log = logging.getLogger(__name__)

RESULT_SET_SCHEMA = "srm-bench/result-set"
MAIN_TABLES = ("Table 1", "Table 2", "Table 3")

# Identity of a row of a leaderboard: what was run (model, sampler, training knobs).
IDENTITY = ("provenance", "model", "arch", "sampler", "order", "overlap", "eta", "sampler_steps", "top_k", "weights",
            "tsampling", "noise_path", "sharpness", "train_steps", "train_batch", "checkpoint")
# What must agree before two figures may be compared in one table column.
COMPARABILITY = ("evaluator", "dataset", "source", "n")


@dataclass
class Entry:
    """One validated result and where it came from."""

    result: Result
    path: str
    tables: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    notes: str = ""  # the evaluator's warnings about the samples as a whole (see diagnosis)


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


MAX_RESULT_BYTES = 64 << 20  # a result JSON is a few KB; the largest paper result set is ~100 KB


def _read_json(path: Path) -> Any:
    """The decoded file; SrmBenchError (one line) for anything that is not a readable JSON document."""
    try:
        if path.stat().st_size > MAX_RESULT_BYTES:
            raise SrmBenchError(f"{path}: skipped, {path.stat().st_size} bytes is too large for a result")
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise SrmBenchError(f"{path}: skipped, cannot read ({exc.strerror})") from None
    except RecursionError:
        raise SrmBenchError(f"{path}: skipped, JSON nested too deeply to be a result") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, and integers of over 4300 digits
        raise SrmBenchError(f"{path}: skipped, not valid JSON ({exc})") from None


def _metric_values(res: Mapping[str, Any]) -> dict[str, float]:
    return {k: float(m["value"]) for k, m in res["metrics"].items()}


def _same_figures(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """The same metrics with the same values, up to float noise between machines (a mean of
    classifier confidences moves in its 6th decimal with the BLAS build)."""
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], rel_tol=1e-5, abs_tol=1e-9) for k in a)


def _within(path: Path, folder: Path | None) -> bool:
    if folder is None:
        return False
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def committed_backing() -> dict[str, dict[str, float]]:
    """Identity key -> metric values of the checkout's committed baseline and oracle results.

    A result elsewhere may claim provenance "baseline" or "oracle" only when it is one of
    these (same task, split, evaluator, dataset and samples hash) with the same figures, as
    ``make demo``'s oracle runs are.
    """
    repo = checkout_results_dir()
    out: dict[str, dict[str, float]] = {}
    for path in _files([repo] if repo is not None else []):
        try:
            res = validate_result(_read_json(path), str(path))
            _check_shape(res, str(path))
        except SrmBenchError:
            continue
        if res["model"]["provenance"] in ("baseline", "oracle"):
            out[json.dumps(_identity_key(res), default=str)] = _metric_values(res)
    return out


def _declared_metrics(task: str) -> dict[str, tuple[str, bool]] | None:
    from srm_bench.evaluation import get_evaluator

    try:
        evaluator = get_evaluator(task)
    except (SrmBenchError, ImportError):
        return None
    return {k: (v.kind, v.higher_is_better) for k, v in evaluator.metrics.items()}


def check_entry(res: Result, name: str, path: Path, backing: Mapping[str, Mapping[str, float]]) -> pd.DataFrame | None:
    """Everything a result must pass to be shown; SrmBenchError (one line) on the first failure.
    Returns its checked per-sample table (None for paper rows and results without one).

    Args:
        res: a result that passed ``validate_result`` and ``_check_shape``.
        name: how warnings name it (the file, ``#i`` for an item of a result set).
        path: the JSON file it came from (its per-sample CSV lies beside it).
        backing: :func:`committed_backing`.
    """
    from srm_bench.registry import get_task
    from srm_bench.results import check_metrics

    try:
        get_task(res["task"]).check_split(res["split"])
    except SrmBenchError as exc:
        raise SrmBenchError(f"{name}: {exc}") from None
    check_metrics(res, name, _declared_metrics(res["task"]))
    provenance = res["model"]["provenance"]
    if provenance == "paper" and not _within(path, paper_dir()):
        raise SrmBenchError(f"{name}: provenance 'paper' is reserved for the figures srm-bench transcribes from the paper; "
                            "use 'user'")
    if provenance in ("baseline", "oracle") and not _within(path, checkout_results_dir()):
        backed = backing.get(json.dumps(_identity_key(res), default=str))
        if backed is None or not _same_figures(backed, _metric_values(res)):
            raise SrmBenchError(f"{name}: provenance {provenance!r} is only for results committed under leaderboard/results/ "
                                "(or identical to one); use 'user'")
    return check_per_sample(res, name, path) if provenance != "paper" else None


def diagnosis(res: Mapping[str, Any], frame: pd.DataFrame | None) -> str:
    """The task evaluator's warnings about a result's samples as a whole (``TaskEvaluator.diagnose``,
    e.g. Counting samples the evaluator reads as one object count in half of them), read from its checked
    per-sample table; "" where there are none or the table lacks the columns they need."""
    if frame is None:
        return ""
    from srm_bench.evaluation import get_evaluator

    columns = {c: (frame[c].map(RATE_VALUES) if frame[c].dtype == object and frame[c].isin(list(RATE_VALUES)).all()
                   else frame[c]).to_numpy() for c in frame.columns}
    try:
        return " ".join(get_evaluator(str(res["task"])).diagnose(columns))
    except (KeyError, ValueError, TypeError):
        return ""  # a per-sample table without the columns the evaluator reads


def _tsampling(training: Mapping[str, Any]) -> Any:
    """The training levels' rule, naming our deviations from the paper where a run had them: a
    share of sampler-shaped rows (``--sequential-mix``, ``--parallel-mix``, ``--completion-mix``) and a changed zero-patch rule
    (``--zero-patch-prob``). Such a model is not the paper's Uniform t-bar."""
    rule = _scalar(training.get("tsampling"))
    if not isinstance(rule, str):
        return rule
    for kind in ("sequential", "parallel"):
        mix = training.get(f"{kind}_mix")
        if isinstance(mix, (int, float)) and not isinstance(mix, bool) and mix > 0:
            rule = f"{rule} + {mix:g} {kind}"
            over = training.get("sequential_overlap") if kind == "sequential" else None
            order = training.get("sequential_order") if kind == "sequential" else None
            said = [f"overlap {over:g}"] if isinstance(over, (int, float)) and not isinstance(over, bool) and over > 0 else []
            said += [f"{order} order"] if isinstance(order, str) and order != "random" else []
            tail = training.get("sequential_tail") if kind == "sequential" else None
            said += [f"last {tail:g} of the run"] if isinstance(tail, (int, float)) and not isinstance(tail, bool) and tail < 1 else []
            if said:
                rule = f"{rule} ({', '.join(said)})"
    mix = training.get("completion_mix")
    if isinstance(mix, (int, float)) and not isinstance(mix, bool) and mix > 0:
        most = training.get("completion_max")
        most = most if isinstance(most, int) and not isinstance(most, bool) else 4
        rule = f"{rule} + {mix:g} completion (1-{most} noisy patches)" if most > 1 else f"{rule} + {mix:g} completion (1 noisy patch)"
    zero = training.get("zero_patch_prob")
    if isinstance(zero, (int, float)) and not isinstance(zero, bool):
        rule = f"{rule}, zero patches in {zero:g} of rows"
    return rule


def names_deviation(rule: Any) -> bool:
    """Whether a training rule written by ``_tsampling`` names one of our deviations: it appends them to the rule's
    name after " + " (a share of sampler-shaped or completion rows) or ", " (a changed zero-patch rule)."""
    return isinstance(rule, str) and (" + " in rule or ", " in rule)


# How a rate column's verdicts may read in a per-sample CSV (pandas parses True/False as booleans).
RATE_VALUES = {True: True, False: False, "True": True, "False": False}


def check_per_sample(res: Result, name: str, path: Path) -> pd.DataFrame | None:
    """Recompute every metric from the per-sample CSV written beside the JSON (``path``); raise
    ``SrmBenchError`` naming ``name`` where they disagree, the file is missing or its hash differs.
    Returns the checked per-sample table (None for a result written without one)."""
    from srm_bench.stats import wilson_interval

    file = res.get("per_sample_file")
    if file is None:
        return None  # a result written without one (evaluate(out=None) then saved by hand): ranges are all we can check
    if not isinstance(file, str) or Path(file).name != file or file in ("", ".", ".."):
        raise SrmBenchError(f"{name}: per_sample_file must be a file name beside the JSON (got {file!r})")
    csv = per_sample_path(path.parent, file)
    if csv is None:
        raise SrmBenchError(f"{name}: its per-sample file {file} is missing; keep the CSV (or its .gz) beside the JSON")
    data = read_per_sample_bytes(csv)
    want = res.get("per_sample_sha256")
    if want is not None:
        import hashlib

        if hashlib.sha256(data).hexdigest() != want:
            raise SrmBenchError(f"{name}: {file} does not match the per_sample_sha256 recorded in the result")
    import io

    try:
        frame = pd.read_csv(io.BytesIO(data))
    except (ValueError, pd.errors.ParserError) as exc:
        raise SrmBenchError(f"{name}: {file} is not a readable CSV ({str(exc).splitlines()[0]})") from None
    count = (res.get("samples") or {}).get("count")
    if isinstance(count, int) and count != len(frame):
        raise SrmBenchError(f"{name}: {file} has {len(frame)} rows, the result says {count} samples")
    for metric, m in res["metrics"].items():
        if metric not in frame.columns:
            raise SrmBenchError(f"{name}: metric {metric!r} has no column in {file} to check it against")
        col = frame[metric]
        if m.get("n") is not None and m["n"] != len(col):
            raise SrmBenchError(f"{name}: metric {metric!r} has n = {m['n']}, but {file} has {len(col)} rows")
        if m["kind"] == "rate":
            flags = col.map(RATE_VALUES)
            if flags.isna().any():
                raise SrmBenchError(f"{name}: column {metric!r} of {file} holds values other than True/False")
            k, n = int(flags.sum()), len(flags)
            value, ci = k / n if n else 0.0, list(wilson_interval(k, n))
            tol = 1e-9
        else:
            values = pd.to_numeric(col, errors="coerce")
            if values.isna().any():
                raise SrmBenchError(f"{name}: column {metric!r} of {file} holds values that are not numbers")
            # the CSV keeps 6 significant digits: the mean agrees to about 1e-6 of the largest value
            value, ci, tol = float(values.mean()), None, 1e-5 * max(1.0, float(values.abs().max()))
        if abs(value - float(m["value"])) > tol:
            raise SrmBenchError(f"{name}: metric {metric!r} says {float(m['value']):.6g}, but {file} gives {value:.6g}")
        ci95 = m.get("ci95")
        if ci is not None and ci95 is not None and max(abs(a - float(b)) for a, b in zip(ci, ci95)) > tol:
            raise SrmBenchError(f"{name}: metric {metric!r} has the interval {ci95}, but {file} gives {ci}")
    return frame


def load_entries(dirs: Iterable[str | Path], problems: list[str] | None = None) -> list[Entry]:
    """Read every result in ``dirs``; refuse bad, implausible and duplicate ones with one warning each.

    Args:
        dirs: folders (searched recursively for ``*.json``) or single JSON files.
        problems: if given, every refusal is also appended here (``--verify``); duplicates
            are warned about but are not problems.

    Returns:
        The valid entries, in file order.
    """
    def refuse(message: str, failed: bool = True) -> None:
        log.warning("%s", message)
        if problems is not None and failed:
            problems.append(message)

    entries: list[Entry] = []
    seen: dict[str, int] = {}
    backing = committed_backing()
    committed = checkout_results_dir()
    for path in _files(Path(d) for d in dirs):
        where = str(path)
        try:
            obj = _read_json(path)
        except SrmBenchError as exc:
            refuse(str(exc))
            continue
        if isinstance(obj, dict) and obj.get("schema") == RESULT_SET_SCHEMA:
            items = obj.get("results")
            if not isinstance(items, list):
                refuse(f"{where}: skipped, result set without a 'results' list")
                continue
            candidates = [(f"{where}#{i}", item) for i, item in enumerate(items)]
        else:
            candidates = [(where, obj)]
        for name, item in candidates:
            try:
                res = validate_result(item, name)
                _check_shape(res, name)
                per_sample = check_entry(res, name, path, backing)
            except SrmBenchError as exc:
                refuse(f"{exc}; skipped")
                continue
            key = json.dumps(_identity_key(res), default=str)
            if key in seen:
                k = seen[key]
                other = entries[k]
                if _same_figures(_metric_values(other.result), _metric_values(res)):
                    refuse(f"{name}: skipped, duplicate of {other.path}", failed=False)
                    continue
                # Same samples, other figures: one of them is wrong. A committed or paper result stands;
                # otherwise neither is shown.
                refuse(f"{name}: skipped, same samples as {other.path} but different metrics")
                if other.result["model"]["provenance"] != "paper" and not _within(Path(other.path), committed):
                    refuse(f"{other.path}: skipped, same samples as {name} but different metrics")
                    entries[k] = None  # type: ignore[call-overload]
                continue
            seen[key] = len(entries)
            paper = (res.get("config") or {}).get("paper") or {}
            entries.append(Entry(res, name, [paper["table"]] if paper.get("table") else [],
                                 [res["model"].get("reference", "")] if paper else [], diagnosis(res, per_sample)))
    return [e for e in entries if e is not None]


RECORD_FIELDS = frozenset((
    "task", "split", *IDENTITY, *COMPARABILITY, "sampler_name", "sampler_seed", "device", "gpu_hours", "train_images", "train_schedule", "train_cooldown", "seed", "tables", "reference", "created",
    "srm_bench_version", "path", "per_sample_file", "notes"))


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


def _train_images(training: Mapping[str, Any]) -> int | None:
    """Training images seen: the record's ``images``, else steps x batch (the paper's rows)."""
    images, steps, batch = (_int(training.get(k)) for k in ("images", "steps", "batch"))
    if images is not None:
        return images
    return steps * batch if steps is not None and batch is not None else None


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


_ORDER_NAMES = {"predicted": "Predicted", "random": "Random", "graph": "Graph-based", "raster": "Raster"}


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
    if sampler.get("uncertainty") not in (None, "logvar"):  # predicted order ranked by another uncertainty
        text += f", {sampler['uncertainty']} uncertainty"
    if sampler.get("ramp") not in (None, "even"):  # the reference code's ramp lengths
        text += f", {sampler['ramp']} ramps"
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
        n = max((k for k in (m.get("n") for m in res["metrics"].values()) if isinstance(k, int)), default=None)
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
        "device": _scalar(sampler.get("device")),  # where the samples were drawn ("cpu", "NVIDIA H200")
        "sampler_seed": _scalar(sampler.get("seed")),  # the seed the samples were drawn with ("seed": the test set's)
        "tsampling": _tsampling(training),
        "noise_path": _scalar(training.get("noise_path")),
        "sharpness": _num(training.get("sharpness")),
        "train_steps": _scalar(training.get("steps")),
        "train_batch": _scalar(training.get("batch")),
        # Two checkpoints of one recipe (e.g. a learning-rate race) are two models, not two runs.
        "checkpoint": str(training["checkpoint_sha256"])[:12] if training.get("checkpoint_sha256") else None,
        "gpu_hours": _num(training.get("gpu_hours")),
        "train_images": _train_images(training),
        # The learning-rate schedule: its length and the linear decay to 0 at its end (0: constant after the warm-up)
        "train_schedule": _int(training.get("schedule_steps")),
        "train_cooldown": _int(training.get("cooldown_steps")),
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
        "notes": e.notes,
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
    for col in ("sampler_steps", "top_k", "train_steps", "train_batch", "train_schedule", "train_cooldown", "n", "seed"):
        try:  # whole numbers stay whole where some are missing (pandas would make them floats)
            frame[col] = frame[col].astype("Int64")
        except (TypeError, ValueError, OverflowError):
            pass
    return frame


def load_frame(dirs: Iterable[str | Path], *, merge_paper: bool = True) -> pd.DataFrame:
    """``load_entries`` then ``to_frame`` (folding repeated paper figures by default)."""
    entries = load_entries(dirs)
    return to_frame(merge_paper_duplicates(entries) if merge_paper else entries)


def shipped_only(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without the rows of our baselines whose weights are not a shipped model's (``srm-bench models``)
    or a partner's recorded beside one (e.g. the DDPM a reproduction bar pairs with the shipped SRM): the paper's
    figures, other results and those rows stay.

    Example:
        >>> frame = pd.DataFrame({"provenance": ["paper", "baseline", "baseline", "user"],
        ...                       "checkpoint": [None, "0" * 12, None, None]})
        >>> list(shipped_only(frame)["provenance"])
        ['paper', 'user']
    """
    from srm_bench.registry import shipped_models

    models = shipped_models().values()
    pins = {e["sha256"][:12] for e in models} | {p["sha256"][:12] for e in models for p in e.get("partners", [])}
    ours = frame["provenance"] == "baseline"
    return frame[~ours | frame["checkpoint"].isin(pins)].reset_index(drop=True)

