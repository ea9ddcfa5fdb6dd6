"""The result schema: one indented JSON per evaluation (see docs/results.md).

A result records what was scored (task, split, dataset hash, samples hash), by what
(evaluator name, version and weights hash), who made the samples (model, sampler,
provenance) and the metrics, each with its 95% interval.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import subprocess
from pathlib import Path
from typing import Any, Literal, Mapping, TypedDict

import numpy as np

from . import __version__
from .errors import SrmBenchError
from .stats import mean_interval, wilson_interval

SCHEMA = "srm-bench/result"
SCHEMA_VERSION = 1
PROVENANCES = ("paper", "oracle", "baseline", "user")


class Metric(TypedDict):
    value: float
    ci95: list[float] | None  # [low, high], None where not known (paper figures)
    n: int | None
    kind: Literal["rate", "mean"]
    higher_is_better: bool


class DatasetRef(TypedDict, total=False):
    task_version: int | None
    seed: int | None
    count: int | None
    content_sha256: str | None
    source: dict[str, Any]  # digit source / background source: results on different sources never mix


class EvaluatorRef(TypedDict, total=False):
    name: str
    version: int
    weights_sha256: str | None


class ModelRef(TypedDict, total=False):
    name: str
    provenance: Literal["paper", "oracle", "baseline", "user"]
    sampler: dict[str, Any]  # e.g. {"name": "sequential", "order": "predicted", "overlap": 0.1, "eta": 1, "steps": 1000}
    training: dict[str, Any]  # e.g. {"steps": 20000, "batch": 256, "gpu_hours": 0.3}
    reference: str  # for paper entries: "Table 1, row 'SRM Predicted Order w/o Overlap'"


class Result(TypedDict, total=False):
    schema: str
    schema_version: int
    task: str
    split: str
    dataset: DatasetRef
    evaluator: EvaluatorRef
    model: ModelRef
    samples: dict[str, Any]  # {"path": str, "sha256": str, "count": int}
    metrics: dict[str, Metric]
    seed: int | None
    config: dict[str, Any]
    per_sample_file: str | None
    per_sample_sha256: str  # SHA-256 of the per-sample CSV's bytes (results written since 0.1.0's hardening)
    srm_bench_version: str
    git_revision: str | None
    created: str


def rate_metric(flags: np.ndarray, higher_is_better: bool = True) -> Metric:
    flags = np.asarray(flags, dtype=bool)
    lo, hi = wilson_interval(int(flags.sum()), int(flags.size))
    return Metric(value=float(flags.mean()), ci95=[lo, hi], n=int(flags.size), kind="rate",
                  higher_is_better=higher_is_better)


def mean_metric(values: np.ndarray, higher_is_better: bool) -> Metric:
    values = np.asarray(values, dtype=np.float64)
    lo, hi = mean_interval(values)
    return Metric(value=float(values.mean()), ci95=[lo, hi], n=int(values.size), kind="mean",
                  higher_is_better=higher_is_better)


def git_revision(where: str | Path | None = None) -> str | None:
    """The git revision of the source tree srm-bench runs from (or ``where``), if it is a git
    checkout, with "+dirty" when tracked files differ from that revision: a copied working tree
    (a GPU machine's copy keeps an older HEAD) must not claim code it does not run."""
    try:
        here = Path(where) if where is not None else Path(__file__).resolve().parent
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        rev = out.stdout.strip() if out.returncode == 0 else ""
        if not rev:
            return None
        diff = subprocess.run(["git", "diff", "--quiet", "HEAD", "--"], cwd=here, capture_output=True, timeout=10)
        return rev + "+dirty" if diff.returncode == 1 else rev
    except (OSError, subprocess.SubprocessError):
        return None


def stamp(result: Result) -> Result:
    """Fill in schema, versions, git revision and creation time."""
    result.setdefault("schema", SCHEMA)
    result.setdefault("schema_version", SCHEMA_VERSION)
    result.setdefault("srm_bench_version", __version__)
    if "git_revision" not in result:  # running git costs a few ms: only when missing
        result["git_revision"] = git_revision()
    result.setdefault("created", _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat())
    return result


def validate_result(obj: Any, where: str = "result") -> Result:
    """Check a decoded result JSON; raise SrmBenchError with one line naming the problem."""
    if not isinstance(obj, Mapping):
        raise SrmBenchError(f"{where}: not a JSON object")
    if obj.get("schema") != SCHEMA:
        raise SrmBenchError(f"{where}: not an srm-bench result (schema is {obj.get('schema')!r})")
    version = obj.get("schema_version")
    if not isinstance(version, int) or version < 1:
        raise SrmBenchError(f"{where}: bad schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise SrmBenchError(f"{where}: schema version {version} is newer than this srm-bench reads ({SCHEMA_VERSION}); upgrade srm-bench")
    for key in ("task", "split", "metrics", "model"):
        if key not in obj:
            raise SrmBenchError(f"{where}: missing {key!r}")
    model = obj["model"]
    if not isinstance(model, Mapping) or not isinstance(model.get("name"), str) or not model["name"].strip():
        raise SrmBenchError(f"{where}: 'model' must be an object with a non-empty string 'name'")
    if model.get("provenance") not in PROVENANCES:
        raise SrmBenchError(f"{where}: model.provenance must be one of {', '.join(PROVENANCES)} (got {model.get('provenance')!r})")
    metrics = obj["metrics"]
    if not isinstance(metrics, Mapping) or not metrics:
        raise SrmBenchError(f"{where}: 'metrics' must be a non-empty object")
    for name, m in metrics.items():
        if not isinstance(m, Mapping) or not isinstance(m.get("value"), (int, float)) or isinstance(m.get("value"), bool):
            raise SrmBenchError(f"{where}: metric {name!r} has no numeric 'value'")
        ci = m.get("ci95")
        if ci is not None and (not isinstance(ci, list) or len(ci) != 2 or not all(isinstance(c, (int, float)) for c in ci)):
            raise SrmBenchError(f"{where}: metric {name!r} has a malformed 'ci95' (want [low, high] or null)")
        if not isinstance(m.get("higher_is_better"), bool):
            raise SrmBenchError(f"{where}: metric {name!r} lacks a boolean 'higher_is_better'")
    return obj  # type: ignore[return-value]


def check_metrics(obj: Result, where: str = "result",
                  declared: Mapping[str, tuple[str, bool]] | None = None) -> None:
    """Check that every metric is a number that can be true; raise SrmBenchError naming the first that is not.

    Values and interval ends must be finite; a rate and its interval lie in [0, 1]; an
    interval is ``[lo, hi]`` with ``lo <= value <= hi``; ``n`` is a whole number >= 0. Where
    the task's evaluator declares a metric (``declared``: name -> (kind, higher_is_better)),
    the result must declare the same kind and direction, so an accuracy cannot pass as a
    "mean" to escape the [0, 1] check, nor a lower-is-better error be ranked upside down.
    """
    tol = 1e-9
    for name, m in obj["metrics"].items():
        value = float(m["value"])
        kind = m.get("kind")
        if kind not in ("rate", "mean"):
            raise SrmBenchError(f"{where}: metric {name!r} has kind {kind!r}; want 'rate' or 'mean'")
        if declared and name in declared and (kind, m["higher_is_better"]) != tuple(declared[name]):
            want_kind, want_hib = declared[name]
            raise SrmBenchError(f"{where}: metric {name!r} is declared {kind}/{'higher' if m['higher_is_better'] else 'lower'} "
                                f"is better, but the evaluator scores it as {want_kind}/{'higher' if want_hib else 'lower'} is better")
        if not math.isfinite(value):
            raise SrmBenchError(f"{where}: metric {name!r} is {value}; metrics must be finite numbers")
        if kind == "rate" and not 0.0 <= value <= 1.0:
            raise SrmBenchError(f"{where}: metric {name!r} is a rate of {value:g}; rates lie in [0, 1]")
        n = m.get("n")
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 0):
            raise SrmBenchError(f"{where}: metric {name!r} has n = {n!r}; want a whole number >= 0 or null")
        ci = m.get("ci95")
        if ci is None:
            continue
        lo, hi = float(ci[0]), float(ci[1])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise SrmBenchError(f"{where}: metric {name!r} has a non-finite interval [{lo}, {hi}]")
        if not lo - tol <= value <= hi + tol:
            raise SrmBenchError(f"{where}: metric {name!r} = {value:g} lies outside its interval [{lo:g}, {hi:g}]")
        if kind == "rate" and not (-tol <= lo and hi <= 1 + tol):
            raise SrmBenchError(f"{where}: metric {name!r} has an interval [{lo:g}, {hi:g}] outside [0, 1]")


def load_result(path: str | Path) -> Result:
    path = Path(path)
    try:
        obj = json.loads(path.read_text())
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot read ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SrmBenchError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise SrmBenchError(f"{path}: JSON nested too deeply to be a result") from None
    return validate_result(obj, str(path))


GZIP_SUFFIX = ".gz"


def per_sample_path(folder: str | Path, name: str) -> Path | None:
    """The per-sample file ``name`` beside a result JSON in ``folder``: the plain CSV or, where it is
    absent, its gzip-compressed copy ``name + ".gz"`` (committed results are stored so, to keep the
    repository small). None where neither exists."""
    plain = Path(folder) / name
    if plain.is_file():
        return plain
    packed = plain.with_name(plain.name + GZIP_SUFFIX)
    return packed if packed.is_file() else None


def read_per_sample_bytes(path: str | Path) -> bytes:
    """The CSV text of a per-sample file, decompressed where it is gzip. ``per_sample_sha256`` is
    the hash of these bytes whatever the storage, so compressing a file keeps its result valid."""
    import gzip
    import zlib

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot read ({exc.strerror})") from None
    if path.name.endswith(GZIP_SUFFIX):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise SrmBenchError(f"{path}: not a readable gzip file ({exc}); restore it from git or re-run "
                                "'srm-bench evaluate'") from None
    return data


def compress_per_sample(path: str | Path, sha256: str | None = None) -> Path:
    """Replace a plain per-sample CSV by ``path + ".gz"`` (deterministic bytes: level 9, no time
    stamp), written to a temporary file first; the plain file is removed only then. With ``sha256``
    (the result's ``per_sample_sha256``), a CSV of other bytes is refused and left as it is.
    A path already ending in ``.gz`` is returned as it is. Returns the new path."""
    import gzip
    import hashlib
    import os

    path = Path(path)
    if path.name.endswith(GZIP_SUFFIX):
        return path
    data = read_per_sample_bytes(path)
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise SrmBenchError(f"{path}: does not match the per_sample_sha256 of its result; left as it is")
    target = path.with_name(path.name + GZIP_SUFFIX)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SrmBenchError(f"{target}: cannot write ({exc.strerror}); {path.name} left as it was") from None
    path.unlink()
    return target
