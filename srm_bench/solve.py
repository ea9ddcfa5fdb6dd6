"""The model adapter: ``srm-bench solve TASK --split S --model package.module:callable``.

Imports a user's function, runs it over a canonical test set batch by batch, writes the
samples file (with the adapter recorded as provenance) and scores it like ``evaluate``.

The function takes one :class:`Batch` and returns, for its ``len(batch)`` items,

- for Sudoku: digit grids ``(B, 9, 9)`` of 1-9 (rendered with the puzzle's own digit images
  on the given cells and pool digits elsewhere, as the oracles are), or images
  ``(B, 252, 252)`` / ``(B, 252, 252, 1)`` uint8;
- for the other tasks: images of the task's size, uint8 ``(B, H, W, C)`` (``(B, C, H, W)``
  is accepted too).

Anything else, or an exception, stops the run with one line naming the adapter and the
batch; nothing is written.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .errors import SrmBenchError

if TYPE_CHECKING:
    from .evaluation import Evaluation


@dataclass
class Batch:
    """What an adapter gets: one batch of puzzles of a split.

    Attributes:
        task, split: the benchmark and split.
        index: (B,) positions of the puzzles in the split.
        mask: Sudoku: (B, 9, 9) bool, True on the given cells; None for other tasks.
        digits: Sudoku: (B, 9, 9) uint8 given digits, 0 on the empty cells; None otherwise.
        images: Sudoku: (B, 252, 252) uint8 puzzle images, the given cells drawn and the empty
            cells black (the image models' input); None otherwise.
    """

    task: str
    split: str
    index: np.ndarray
    mask: np.ndarray | None = None
    digits: np.ndarray | None = None
    images: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.index.shape[0])


def load_callable(spec: str) -> Callable[[Batch], Any]:
    """``package.module:name`` (importable from the current directory too) or ``path/file.py:name``."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise SrmBenchError(f"--model {spec!r}: want package.module:callable or path/to/file.py:callable")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise SrmBenchError(f"--model {spec!r}: no such file {path}")
            mod_spec = importlib.util.spec_from_file_location(f"srm_bench_adapter_{path.stem}", path)
            assert mod_spec is not None and mod_spec.loader is not None
            module = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(module)
        else:
            if "" not in sys.path and str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))  # as `python -m` would
            module = importlib.import_module(module_name)
    except SrmBenchError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the user's module raises on import
        raise SrmBenchError(f"--model {spec!r}: cannot import {module_name} ({type(exc).__name__}: "
                            f"{_first_line(exc)})") from None
    fn = getattr(module, attr, None)
    if fn is None:
        raise SrmBenchError(f"--model {spec!r}: {module_name} has no attribute {attr!r}")
    if not callable(fn):
        raise SrmBenchError(f"--model {spec!r}: {attr} is a {type(fn).__name__}, not a callable")
    return fn


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "no message"


def _puzzle_images(ds, idx: np.ndarray) -> np.ndarray:
    from .generators.sudoku import TILE

    images = np.asarray(ds.images(idx))
    if images.ndim == 4:
        images = images[..., 0]
    keep = np.kron(ds.items["mask"][idx], np.ones((TILE, TILE), bool))
    return np.where(keep, images, 0).astype(np.uint8)


def run_solve(task: str, split: str, model: str, out: Path, *, results: Path | None = Path("results"),
              batch_size: int = 64, limit: int | None = None, reference: Path | None = None, name: str | None = None,
              seed: int = 0, value_range: str | None = None, progress: bool = False) -> Evaluation:
    """Run an adapter over a split, write the samples to ``out`` and score them.

    Returns:
        ``(result, path)`` as :func:`srm_bench.evaluation.evaluate` returns them.

    Raises:
        SrmBenchError: bad options, an adapter that cannot be imported, raises or returns
        the wrong thing (nothing is written then).
    """
    from tqdm.auto import tqdm

    from .canonical import canonical_dataset, pinned
    from .dataset import load_dataset
    from .evaluation import evaluate
    from .registry import get_task
    from .samples import write_samples

    spec = get_task(task)
    spec.check_split(split)
    if batch_size < 1 or (limit is not None and limit < 1):
        raise SrmBenchError("--batch-size and --limit must be >= 1")
    if out.exists():
        raise SrmBenchError(f"{out}: exists; choose another -o or delete it")
    fn = load_callable(model)
    if reference is not None:
        ds = load_dataset(reference)
        if ds.task != task or ds.split != split:
            raise SrmBenchError(f"{reference}: is {ds.task}/{ds.split}, not {task}/{split}")
    elif pinned(task, split) is not None:
        ds = canonical_dataset(task, split, progress=progress)
    else:
        raise SrmBenchError(f"no canonical {task}/{split} set; pass --reference DIR")
    n = min(limit, ds.count) if limit else ds.count
    h, w, c = spec.image_shape
    sudoku = task == "sudoku"
    parts: list[np.ndarray] = []
    for s in tqdm(range(0, n, batch_size), desc=f"solve {task}/{split}", unit="batch", disable=not progress):
        idx = np.arange(s, min(n, s + batch_size))
        batch = Batch(task, split, idx)
        if sudoku:
            batch.mask = ds.items["mask"][idx].copy()
            batch.digits = np.where(batch.mask, ds.items["grid"][idx], 0).astype(np.uint8)
            batch.images = _puzzle_images(ds, idx)
        where = f"{model} on the batch of puzzles {idx[0]}..{idx[-1]}"
        try:
            got = fn(batch)
        except Exception as exc:  # noqa: BLE001 - the user's code: one line, nothing written
            raise SrmBenchError(f"{where} raised {type(exc).__name__}: {_first_line(exc)}; nothing written") from None
        try:
            arr = np.asarray(got)
        except Exception:  # noqa: BLE001
            arr = np.asarray(None)
        if arr.ndim == 0 or arr.shape[0] != len(idx):
            raise SrmBenchError(f"{where} returned {_describe(got)}; want one result per puzzle ({len(idx)}) along "
                                "the first axis; nothing written")
        if sudoku and arr.shape[1:] == (9, 9):
            if not np.issubdtype(arr.dtype, np.integer) or arr.min() < 1 or arr.max() > 9:
                raise SrmBenchError(f"{where} returned grids that are not digits 1-9 (dtype {arr.dtype}, "
                                    f"values {arr.min()}..{arr.max()}); nothing written")
            arr = _render(ds, arr.astype(np.uint8), idx, seed)
        elif arr.shape[1:] not in ((h, w), (h, w, c), (c, h, w)) or (c != 1 and arr.shape[1:] == (h, w)):
            want = "(B, 9, 9) digit grids or " if sudoku else ""
            raise SrmBenchError(f"{where} returned shape {arr.shape}; want {want}(B, {h}, {w}{', ' + str(c) if c > 1 else ''}) "
                                "uint8 images; nothing written")
        parts.append(arr)
    samples = np.concatenate(parts)
    fn_name = getattr(fn, "__name__", "adapter")
    write_samples(out, samples, task=task, split=split, dataset_sha256=ds.content_sha256, index=np.arange(n),
                  value_range=value_range,
                  model={"name": name or fn_name, "provenance": "user", "adapter": model,
                         "sampler": {"name": "adapter", "label": f"adapter {fn_name}"}})
    return evaluate(out, reference=reference, out=results, value_range=value_range, progress=progress)


def _describe(obj: Any) -> str:
    shape = getattr(obj, "shape", None)
    return f"shape {tuple(shape)}" if shape is not None else f"a {type(obj).__name__}"


def _render(ds, grids: np.ndarray, idx: np.ndarray, seed: int) -> np.ndarray:
    """Grids drawn as the oracles draw them: the given cells keep the puzzle's digit images,
    the others get pool digits drawn from ``(seed, split, index)``."""
    from .generators.sudoku import render
    from .seeding import item_rng

    k = int(ds.config["digits"]["k"])
    mask = ds.items["mask"][idx]
    instance = ds.items["instance"][idx].copy()
    for j, i in enumerate(idx):
        rng = item_rng(seed, f"sudoku-solve/{ds.split}", int(i))
        fresh = np.minimum((rng.random((9, 9)) * k).astype(np.int64), k - 1)
        instance[j] = np.where(mask[j], instance[j], fresh)
    return render(ds.shared["digit_pool"], grids, instance)


def _command():
    import click

    @click.command("solve")
    @click.argument("task")
    @click.option("--split", "-s", required=True, help="Split: easy, medium or hard (Sudoku), test (the others).")
    @click.option("--model", "model", required=True,
                  help="The adapter: package.module:callable (importable from here) or path/to/file.py:callable.")
    @click.option("-o", "--out", type=click.Path(path_type=Path), default=None,
                  help="Samples HDF5 to write [default: solve-NAME-SPLIT.h5].")
    @click.option("--results", type=click.Path(path_type=Path), default=Path("results"), show_default=True,
                  help="Directory for the result JSON and per-sample CSV.")
    @click.option("--name", default=None, help="Model name on the leaderboard [default: the callable's name].")
    @click.option("--batch-size", type=int, default=64, show_default=True, help="Puzzles per call of the adapter.")
    @click.option("--limit", type=int, default=None, help="Only the first N puzzles of the split.")
    @click.option("--reference", type=click.Path(path_type=Path), default=None,
                  help="Dataset directory of the puzzles [default: the canonical set].")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of the pool digits drawn for returned grids.")
    @click.option("--range", "value_range", type=click.Choice(["0,1", "-1,1"]), default=None,
                  help="Value range of float images the adapter returns (uint8 needs none).")
    @click.pass_context
    def command(ctx: click.Context, task: str, split: str, model: str, out: Path | None, results: Path,
                name: str | None, batch_size: int, limit: int | None, reference: Path | None, seed: int,
                value_range: str | None) -> None:
        """Run your model over a canonical test set through an adapter function, then score it.

        The adapter takes a srm_bench.solve.Batch (index; for Sudoku also mask, digits and
        puzzle images) and returns Sudoku digit grids (B, 9, 9) or images of the task's size.
        See docs/adapter.md.

        \b
        Example (from a checkout; the most-constrained oracle as an adapter):
          srm-bench solve sudoku --split hard --model docs/examples/oracle_adapter.py:most_constrained --limit 50
        """
        from .cli import progress_enabled
        from .evaluation import format_table

        label = name or model.rpartition(":")[2] or "adapter"
        target = out if out is not None else Path(f"solve-{label}-{split}.h5")
        result, path = run_solve(task, split, model, target, results=results, batch_size=batch_size, limit=limit,
                                 reference=reference, name=name, seed=seed, value_range=value_range,
                                 progress=progress_enabled(ctx))
        click.echo(f"samples: {target}")
        click.echo(format_table(result))
        if path is not None:
            click.echo(f"result: {path}")

    return command


solve = _command()
