"""Evaluation driver shared by every task: read samples, find the puzzles, score, write a result.

A task plugs in by subclassing :class:`TaskEvaluator` (pure scoring, no I/O).
"""
from __future__ import annotations

import errno
import json
import logging
import os
import re
from abc import ABC, abstractmethod
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np

from .dataset import Dataset, load_dataset
from .errors import SrmBenchError
from .registry import TASKS, TaskSpec, get_task
from .results import Metric, Result, mean_metric, rate_metric, stamp, validate_result
from .samples import read_samples

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MetricInfo:
    kind: Literal["rate", "mean"]
    higher_is_better: bool
    description: str


class TaskEvaluator(ABC):
    """Base class of a task's evaluator: declares its metrics and scores uint8 NHWC images."""

    task: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[int]
    metrics: ClassVar[dict[str, MetricInfo]]

    def weights_sha256(self) -> str | None:
        return None

    @abstractmethod
    def score(
        self,
        images: np.ndarray,
        *,
        reference: Dataset | None,
        index: np.ndarray | None,
        device: str = "cpu",
        batch_size: int = 256,
        progress: bool = False,
    ) -> dict[str, np.ndarray]:
        """Per-sample columns: one per declared metric (bool for rates), plus any extras."""

    def diagnose(self, per_sample: dict[str, np.ndarray]) -> list[str]:
        """Warnings about the samples as a whole that the metrics do not show (each one line); none by
        default. ``evaluate`` logs them; they change no metric."""
        return []

    def describe(self, per_sample: dict[str, np.ndarray]) -> list[str]:
        """Facts about the samples as a whole that help read the metrics without putting them in doubt (each
        one line); none by default. ``evaluate`` logs them at info level; they change no metric."""
        return []


class Evaluation(NamedTuple):
    """What :func:`evaluate` returns: the result dict (see docs/results.md) and the result JSON
    it was written to, ``None`` where nothing was written (``out=None``)."""

    result: Result
    path: Path | None


def get_evaluator(task: str, reader: str | None = None) -> TaskEvaluator:
    """The task's evaluator; ``reader`` picks one of several (Sudoku: ``mlp`` or ``cnn``)."""
    module = get_task(task).evaluator_module()
    if reader is None:
        return module.EVALUATOR
    readers = getattr(module, "READERS", None)
    if not readers:
        raise SrmBenchError(f"--reader applies to sudoku only; {task} has one evaluator")
    if reader not in readers:
        raise SrmBenchError(f"unknown reader {reader!r} for {task}; valid: {', '.join(readers)}")
    return readers[reader]


def aggregate(evaluator: TaskEvaluator, per_sample: dict[str, np.ndarray]) -> dict[str, Metric]:
    """Metric values with 95% intervals (Wilson for rates, normal for means)."""
    out: dict[str, Metric] = {}
    for name, info in evaluator.metrics.items():
        col = per_sample[name]
        out[name] = rate_metric(col, info.higher_is_better) if info.kind == "rate" else mean_metric(col, info.higher_is_better)
    return out


def _task_spec(task: str | None, attrs: dict[str, Any], path: Path) -> TaskSpec:
    """The task of samples at ``path`` with file ``attrs``: ``--task`` or the file's ``task`` attr,
    which must agree where both are given."""
    name = task or attrs.get("task")
    if not name:
        raise SrmBenchError(f"{path}: the samples do not name their task; pass --task (and --split)")
    if task and attrs.get("task") and attrs["task"] != task:
        raise SrmBenchError(f"{path}: samples are of task {attrs['task']!r}, not {task!r}; drop --task or fix it")
    return get_task(name)


def _check_task_without_attr(spec: TaskSpec, attrs: dict[str, Any], path: Path) -> None:
    """Samples that do not name their task (.npz, PNG folders, bare HDF5) are scored as --task says.

    The one sound check without a model: a ``dataset_sha256`` attr naming another task's
    canonical set is refused. Otherwise samples of a look-alike task (Counting Stars and
    Counting Polygons are both 128x128 RGB) cannot be told apart without scoring them, and
    any rule on the pixels would also refuse poor samples of the right task; so the look-alike
    is named in a warning (docs/format.md).
    """
    from .canonical import _pins

    want = attrs.get("dataset_sha256")
    if want:
        for other, splits in _pins().items():
            for split, pin in splits.items():
                if other != spec.name and isinstance(pin, dict) and pin.get("content_sha256") == want:
                    raise SrmBenchError(f"{path}: the samples' dataset_sha256 is the canonical {other}/{split} set, "
                                        f"not a {spec.name} set; pass --task {other}")
    alike = [t for t in TASKS.names() if t != spec.name and get_task(t).image_shape == spec.image_shape]
    if alike:
        log.warning("%s: the samples do not name their task; scoring them as %s because --task says so (%s samples "
                    "have the same size and would get a wrong score without an error)", path, spec.name, " or ".join(alike))


def resolve_reference(spec: TaskSpec, split: str, attrs: dict[str, Any], reference: str | Path | None,
                      progress: bool) -> Dataset | None:
    """The puzzle set samples (with these file ``attrs``) refer to: ``--reference`` or the canonical test set."""
    want = attrs.get("dataset_sha256")
    if reference is not None:
        ds = load_dataset(reference)
        if ds.task != spec.name or ds.split != split:
            raise SrmBenchError(f"{reference}: is {ds.task}/{ds.split}, but the samples are {spec.name}/{split}")
        if want and want != ds.content_sha256:
            raise SrmBenchError(
                f"{reference}: dataset hash {ds.content_sha256[:12]}... differs from the samples' {want[:12]}...; "
                "the samples were made for another puzzle set"
            )
        return ds
    from .canonical import canonical_dataset, pinned

    pin = pinned(spec.name, split)
    if pin is None:
        if spec.conditional:
            raise SrmBenchError(f"no canonical {spec.name}/{split} set; pass --reference DIR with the puzzles the samples solve")
        return None
    if want and want != pin["content_sha256"]:
        if spec.conditional:
            raise SrmBenchError(
                f"the samples refer to dataset {want[:12]}..., not the canonical {spec.name}/{split} set; "
                "pass --reference DIR with that dataset"
            )
        return None
    return canonical_dataset(spec.name, split, progress=progress)


def evaluate(
    path: str | Path,
    *,
    task: str | None = None,
    split: str | None = None,
    reference: str | Path | None = None,
    value_range: str | None = None,
    out: str | Path | None = "results",
    model: str | None = None,
    provenance: str | None = None,
    device: str = "cpu",
    batch_size: int = 256,
    progress: bool = False,
    reader: str | None = None,
) -> Evaluation:
    """Score a samples file and write one result JSON (plus a per-sample CSV) under ``out``.

    Args:
        path: samples HDF5, ``.npz`` with ``arr_0``, or a folder of PNGs named by index.
        task, split: needed only when the input does not name them (npz, PNG folders).
        reference: dataset directory of the puzzles (default: the canonical test set).
        value_range: ``"0,1"`` or ``"-1,1"`` for float samples (uint8 needs none).
        out: results directory; ``None`` writes nothing.
        model: model name for the leaderboard (default: the file's ``model`` attr or its stem).
        provenance: ``user`` (default), ``baseline`` or ``oracle``.
        reader: Sudoku digit reader, ``mlp`` (default) or ``cnn``; recorded as the evaluator.

    Returns:
        ``(result, path)``: the result dict (see docs/results.md) and the JSON file written
        (``None`` with ``out=None``).

    Raises:
        SrmBenchError: any bad input, with one line saying what and how to fix it.
    """
    path = Path(path)
    t0 = time.perf_counter()
    from .llm import is_answers_file

    if is_answers_file(path):
        if value_range is not None or reader is not None:
            raise SrmBenchError(f"{path}: an answers file of the text track takes no --range or --reader")
        if provenance not in (None, "user"):
            raise SrmBenchError(f"{path}: text-track answers are scored with provenance 'user' only")
        from .llm import evaluate_answers

        return evaluate_answers(path, reference=reference, out=out, model=model, task=task, split=split,
                                progress=progress)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise SrmBenchError(f"--batch-size must be a whole number >= 1 (got {batch_size!r})")
    check_device(device)
    if reader is not None and task is not None:
        get_evaluator(task, reader)  # a bad --reader fails before any work
    if reference is None and path.is_dir() and (path / "manifest.json").exists():
        reference = path  # a dataset scored as samples is checked against itself
    samples = read_samples(path, lambda attrs: _task_spec(task, attrs, path), value_range)
    spec = _task_spec(task, samples.attrs, path)
    if not samples.attrs.get("task"):
        _check_task_without_attr(spec, samples.attrs, path)
    split = split or samples.attrs.get("split") or (spec.test_splits[0] if len(spec.test_splits) == 1 else None)
    if not split:
        raise SrmBenchError(f"{path}: the samples do not name their split; pass --split ({', '.join(spec.test_splits)})")
    if samples.attrs.get("split") and samples.attrs["split"] != split:
        raise SrmBenchError(f"{path}: samples are of split {samples.attrs['split']!r}, not {split!r}; drop --split or fix it")
    spec.check_split(split)
    ref = resolve_reference(spec, split, samples.attrs, reference, progress)
    index = samples.index
    n = samples.images.shape[0]
    if spec.conditional:
        assert ref is not None
        if index is None:
            if n != ref.count:
                raise SrmBenchError(
                    f"{path}: {n} samples but the {spec.name}/{split} set has {ref.count} puzzles; "
                    "give one sample per puzzle, or an 'index' dataset naming each sample's puzzle"
                )
            index = np.arange(n)
        if index.min() < 0 or index.max() >= ref.count:
            raise SrmBenchError(f"{path}: 'index' values must lie in [0, {ref.count - 1}] (found {index.min()}..{index.max()})")
        _refuse_repeated_puzzles(index, path)
    evaluator = get_evaluator(spec.name, reader)
    per_sample = evaluator.score(samples.images, reference=ref, index=index, device=device,
                                 batch_size=batch_size, progress=progress)
    metrics = aggregate(evaluator, per_sample)
    for note in evaluator.diagnose(per_sample):
        log.warning("%s: %s", path, note)
    for line in evaluator.describe(per_sample):
        log.info("%s: %s", path, line)
    raw_model = samples.attrs.get("model")
    attrs_model: dict[str, Any] = raw_model if isinstance(raw_model, dict) else {}
    model_ref = dict(attrs_model)
    model_ref["name"] = model or attrs_model.get("name") or path.stem
    model_ref["provenance"] = provenance or attrs_model.get("provenance") or "user"
    result: Result = {
        "task": spec.name,
        "split": split,
        "dataset": {
            "task_version": ref.task_version if ref else None,
            "seed": ref.seed if ref else None,
            "count": ref.count if ref else None,
            "content_sha256": ref.content_sha256 if ref else samples.attrs.get("dataset_sha256"),
            "source": ref.source() if ref else dict(samples.attrs.get("source") or {}),
        },
        "evaluator": {"name": evaluator.name, "version": evaluator.version, "weights_sha256": evaluator.weights_sha256()},
        "model": model_ref,  # type: ignore[typeddict-item]
        "samples": {"path": str(path), "sha256": samples_sha256(samples.images, index), "count": int(n)},
        "metrics": metrics,
        "seed": ref.seed if ref else None,
        "config": {"value_range": value_range, "device": device},
        "per_sample_file": None,
    }
    stamp(result)
    validate_result(result, str(path))  # e.g. a bad provenance or model name: refused before any file is made
    written = _write(result, per_sample, index, Path(out)) if out is not None else None
    log.info("scored %d samples in %.2f s", n, time.perf_counter() - t0)
    return Evaluation(result, written)


def check_device(device: str) -> None:
    """A device torch knows and this machine has; one line otherwise."""
    if device == "cpu":
        return
    import torch

    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise SrmBenchError(f"--device {device!r} is not a device torch knows; use cpu or cuda (cuda:0, ...)") from None
    if dev.type == "cuda" and (not torch.cuda.is_available() or (dev.index or 0) >= torch.cuda.device_count()):
        raise SrmBenchError(f"--device {device}: no such CUDA device on this machine; use --device cpu")
    if dev.type not in ("cpu", "cuda"):
        raise SrmBenchError(f"--device {device}: srm-bench scores on cpu or cuda only")


def _refuse_repeated_puzzles(index: np.ndarray, path: Path) -> None:
    """One puzzle scored many times would count its one solution as many successes."""
    values, counts = np.unique(index, return_counts=True)
    if (counts > 1).any():
        rep = values[counts > 1]
        shown = ", ".join(str(int(v)) for v in rep[:5]) + (" ..." if rep.size > 5 else "")
        raise SrmBenchError(
            f"{path}: 'index' names {rep.size} puzzle(s) more than once ({shown}); "
            "give each puzzle at most one sample (score repeated draws as separate files)"
        )


def samples_sha256(images: np.ndarray, index: np.ndarray | None = None) -> str:
    """Hash of what was scored: the pixels and, where they are not 0..n-1, the puzzle indices.

    Samples without an index are samples of puzzles 0..n-1, so ``index = arange(n)`` hashes as
    no index (results written before the index was hashed keep their hash); any other index is
    part of the hash, so a shifted submission is never a duplicate of a correct one.
    """
    import hashlib

    from .shards import array_sha256

    pixels = array_sha256(images)
    if index is None or np.array_equal(index, np.arange(images.shape[0])):
        return pixels
    tail = array_sha256(np.asarray(index, dtype="<i8"))
    return hashlib.sha256(f"srm-bench-samples-v2|{pixels}|{tail}".encode()).hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "model"


def _write(result: Result, per_sample: dict[str, np.ndarray], index: np.ndarray | None, out: Path) -> Path:
    """Write the result JSON and its per-sample CSV as one unit, under names that cannot collide;
    returns the JSON's path. ``result`` gains the CSV's name and hash (``per_sample_file``,
    ``per_sample_sha256``).

    The name ends in a hash of the content (JSON and CSV), and both files are created
    exclusively (``os.link`` of a finished temporary file): two runs into one ``--out`` never
    replace each other's files, and an error at any point leaves neither file behind.
    """
    import hashlib
    import io

    import pandas as pd

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SrmBenchError(f"{out}: cannot create the results directory ({exc.strerror}); pass another --out") from None
    frame = pd.DataFrame({"sample": np.arange(len(next(iter(per_sample.values()))))})
    if index is not None:
        frame["puzzle"] = index
    for k2, v in per_sample.items():
        frame[k2] = v
    buf = io.StringIO()
    frame.to_csv(buf, index=False, float_format="%.6g")
    csv_bytes = buf.getvalue().encode()
    csv_sha = hashlib.sha256(csv_bytes).hexdigest()
    body = json.dumps({**result, "per_sample_file": None, "per_sample_sha256": csv_sha}, sort_keys=True)
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    stamp_ = result["created"].replace(":", "").replace("-", "").replace("+0000", "Z")
    base = f"{result['task']}-{result['split']}-{_slug(result['model']['name'])}-{stamp_}-{digest}"
    csv, js = out / f"{base}.per_sample.csv", out / f"{base}.json"
    result["per_sample_file"] = csv.name
    result["per_sample_sha256"] = csv_sha
    json_bytes = (json.dumps(result, indent=2) + "\n").encode()
    made: list[Path] = []
    try:
        for path, data in ((csv, csv_bytes), (js, json_bytes)):  # the CSV first: a visible JSON has its CSV
            if not _create_exclusive(path, data):
                raise SrmBenchError(f"{path}: exists (the same result, to the second, is already there); results are never overwritten")
            made.append(path)
    except OSError as exc:
        for path in made:
            path.unlink(missing_ok=True)
        raise SrmBenchError(f"{out}: cannot write results ({exc.strerror}); pass another --out") from None
    except BaseException:
        for path in made:
            path.unlink(missing_ok=True)
        raise
    return js


def _create_exclusive(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data`` all at once; False (nothing changed) where it exists."""
    from .io import atomic_path

    tmp = atomic_path(path)
    try:
        tmp.write_bytes(data)
        try:
            os.link(tmp, path)  # atomic and exclusive: fails where the name is taken
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK, errno.ENOSYS):
                raise
            try:  # a file system without hard links: exclusive create, then the bytes
                f = open(path, "xb")
            except FileExistsError:
                return False
            try:
                with f:
                    f.write(data)
            except BaseException:
                path.unlink(missing_ok=True)
                raise
        return True
    finally:
        tmp.unlink(missing_ok=True)


def format_table(result: Result) -> str:
    """A plain-text table of one result's metrics."""
    lines = [f"{result['task']} / {result['split']}  model={result['model']['name']}  n={result['samples']['count']}"]
    width = max(len(k) for k in result["metrics"])
    for name, m in result["metrics"].items():
        arrow = "↑" if m["higher_is_better"] else "↓"
        ci95 = m.get("ci95")
        ci = f"[{ci95[0]:.3f}, {ci95[1]:.3f}]" if ci95 else ""
        lines.append(f"  {name:<{width}} {arrow} {m['value']:8.3f}  95% CI {ci}")
    return "\n".join(lines)
