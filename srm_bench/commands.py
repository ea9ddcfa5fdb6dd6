"""Implementations of the core CLI commands (imported lazily by srm_bench.cli)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .cli import progress_enabled
from .errors import SrmBenchError
from .registry import TASKS, get_task, resolve_entry_point


class TaskGroup(click.Group):
    """A group with one subcommand per task, each built on first use by ``factory(task)``."""

    def __init__(self, *args: Any, factory: Any = None, tasks: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.factory = factory
        self.tasks = tasks

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.tasks() if self.tasks else TASKS.names())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.list_commands(ctx):
            get_task(name)  # raises with the list of valid names and a suggestion
            raise SrmBenchError(f"{self.name} does not apply to task {name!r}; valid: {', '.join(self.list_commands(ctx))}")
        return self.factory(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Tasks"):
            formatter.write_dl([(t, get_task(t).summary) for t in self.list_commands(ctx)])


# ---------------------------------------------------------------------------- generate

def _generate_command(task: str) -> click.Command:
    spec = get_task(task)
    module = spec.generator_module()
    extra: list[click.Option] = list(getattr(module, "CLI_OPTIONS", []))

    @click.pass_context
    def run(ctx: click.Context, split: str, n: int | None, seed: int, out: Path | None, no_images: bool,
            images: bool, workers: int, shard_size: int | None, overwrite: bool, quiet: bool, **options: Any) -> None:
        from .generation import generate

        flag = False if no_images else (True if images else None)
        path = generate(task, split, n=n, seed=seed, out=out, images=flag, workers=workers, shard_size=shard_size,
                        progress=progress_enabled(ctx) and not quiet, overwrite=overwrite, **options)
        manifest = json.loads((path / "manifest.json").read_text())
        click.echo(f"{path}: {manifest['count']} {task}/{split} items in {len(manifest['shards'])} shard(s)")
        click.echo(f"content sha256 {manifest['content_sha256']}")
        from .canonical import pinned

        pin = pinned(task, split)
        if pin and manifest["count"] == pin["count"] and int(seed) == pin["seed"]:
            ok = manifest["content_sha256"] == pin["content_sha256"]
            click.echo("canonical test set: hash matches the pinned one" if ok else
                       "note: options differ from the canonical set; this is not the canonical test set")

    params: list[click.Parameter] = [
        click.Option(["--split", "-s"], type=click.Choice(spec.splits), required=len(spec.test_splits) != 1,
                     default=spec.test_splits[0] if len(spec.test_splits) == 1 else None,
                     show_default=len(spec.test_splits) == 1, help=f"Which split: {', '.join(spec.splits)}."),
        click.Option(["-n", "--count", "n"], type=int, default=None,
                     help="Number of items [default: 500 for test splits]."),
        click.Option(["--seed"], type=int, default=0, show_default=True,
                     help="Dataset seed; the canonical test sets use 0."),
        click.Option(["-o", "--out"], type=click.Path(path_type=Path), default=None,
                     help=f"Output directory [default: data/{task}/SPLIT]."),
        click.Option(["--no-images"], is_flag=True, help="Store only the compact form (images are rendered on read)."),
        click.Option(["--images"], is_flag=True, help="Store rendered images also for the train split."),
        click.Option(["--workers", "-j"], type=int, default=1, show_default=True,
                     help="Processes; the content does not depend on it."),
        click.Option(["--shard-size"], type=int, default=None, help="Items per shard (content does not depend on it)."),
        click.Option(["--overwrite"], is_flag=True,
                     help="Replace a dataset of this task and split in -o made with other options (count, seed, "
                          "shard size, images); without it such a directory is refused, never shrunk."),
        click.Option(["-q", "--quiet"], is_flag=True, help="No progress bar (as 'srm-bench -q generate ...')."),
        *extra,
    ]
    return click.Command(
        task, callback=run, params=params, help=f"{spec.summary}.\n\nExample: srm-bench generate {task} --split {spec.test_splits[-1]}",
        short_help=spec.summary,
    )


@click.group(cls=TaskGroup, factory=_generate_command,
             epilog="Example: srm-bench generate sudoku --split hard -o data/hard")
def generate() -> None:
    """Generate a benchmark split into HDF5 shards (resumable; seeded per item)."""


# ---------------------------------------------------------------------------- evaluate

@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--task", "-t", default=None, help="Task, for inputs without attrs (npz, PNG folders).")
@click.option("--split", "-s", default=None, help="Split, for inputs without attrs.")
@click.option("--reference", type=click.Path(path_type=Path), default=None,
              help="Dataset directory of the puzzles [default: the canonical test set, regenerated if needed].")
@click.option("--range", "value_range", type=click.Choice(["0,1", "-1,1", "0,255"]), default=None,
              help="Value range of float samples (uint8 needs none).")
@click.option("--json", "as_json", is_flag=True, help="Print the result JSON on stdout instead of the table.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("results"), show_default=True,
              help="Directory for the result JSON and per-sample CSV.")
@click.option("--no-save", is_flag=True, help="Write no result files.")
@click.option("--model", default=None, help="Model name for the leaderboard [default: the file's attr or name].")
@click.option("--provenance", type=click.Choice(["user", "baseline", "oracle"]), default=None,
              help="Who made the samples [default: the file's attr, else user].")
@click.option("--device", default="cpu", show_default=True, help="Device for the classifier (cpu, cuda).")
@click.option("--batch-size", type=int, default=256, show_default=True)
@click.option("--reader", default=None,
              help="Sudoku digit reader: mlp (the paper's, default) or cnn (robust to new handwriting).")
@click.pass_context
def evaluate(ctx: click.Context, file: Path, task: str | None, split: str | None, reference: Path | None,
             value_range: str | None, as_json: bool, out: Path, no_save: bool, model: str | None,
             provenance: str | None, device: str, batch_size: int, reader: str | None) -> None:
    """Score generated samples.

    FILE is a samples HDF5 (dataset 'samples', optional 'index', attrs task/split), an .npz
    with 'arr_0' (uint8 NHWC), a folder of PNGs named 0.png, 1.png, ..., or the answers
    .jsonl of 'srm-bench llm' (the text track; unparsable replies are listed).

    \b
    Examples:
      srm-bench evaluate samples.h5
      srm-bench evaluate samples.npz --task sudoku --split hard
      srm-bench evaluate pngs/ --task sudoku --split hard --reference data/sudoku/hard
      srm-bench evaluate samples.h5 --reader cnn
      srm-bench evaluate answers.jsonl          # the text track (srm-bench llm)
    """
    from .evaluation import evaluate as run, format_table

    result, path = run(file, task=task, split=split, reference=reference, value_range=value_range,
                       out=None if no_save else out, model=model, provenance=provenance, device=device,
                       batch_size=batch_size, progress=progress_enabled(ctx), reader=reader)
    unparsable = result.pop("_unparsable", None)  # type: ignore[typeddict-item]
    by_masked = result.pop("_by_masked", None)  # type: ignore[typeddict-item]
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(format_table(result))
        if by_masked:
            click.echo("by empty cells:  valid  consistent  solved      n")
            for row in by_masked:
                lo, hi = row["masked"]
                click.echo(f"  {lo:2d}-{hi:2d}          {row['accuracy']:.3f}  {row['givens_kept']:10.3f}  "
                           f"{row['solved']:6.3f}  {row['n']:5d}")
        if unparsable:
            click.echo(f"unparsable replies ({len(unparsable)}, scored as failures):")
            for puzzle, why in unparsable[:20]:
                click.echo(f"  puzzle {puzzle}: {why}")
            if len(unparsable) > 20:
                click.echo(f"  ... and {len(unparsable) - 20} more (column parse_error of the per-sample CSV)")
        if path is not None:
            click.echo(f"result: {path}")


# ---------------------------------------------------------------------------- info / verify

@click.command()
@click.argument("file", type=click.Path(path_type=Path))
def info(file: Path) -> None:
    """Describe a shard, a dataset directory or a samples file.

    Example: srm-bench info data/sudoku/hard
    """
    import h5py

    from .shards import read_attrs, read_manifest

    if not file.exists():
        raise SrmBenchError(f"{file}: no such file or directory")
    from .llm import is_answers_file

    if is_answers_file(file):
        from .llm import read_answers

        header, answers, _ = read_answers(file)
        click.echo(f"answers   {header['task']}/{header['split']} (text track), model {header.get('model')!r}, "
                   f"{header.get('shots')} shots, endpoint {header.get('endpoint')}")
        click.echo(f"  {len({a['puzzle'] for a in answers})} of {header.get('puzzles')} puzzles answered; "
                   f"dataset {str(header.get('dataset_sha256'))[:16]}..., prompt {str(header.get('prompt_sha256'))[:16]}...")
        return
    if file.suffix == ".npz" and file.is_file():
        import zipfile

        import numpy as np

        try:
            with np.load(file, allow_pickle=False) as z:
                click.echo(f"npz       {file} ({len(z.files)} array(s))")
                for name in z.files:
                    arr = z[name]
                    click.echo(f"  {name:<24} {arr.dtype} {arr.shape}")
        except (OSError, ValueError, EOFError, AttributeError, TypeError, zipfile.BadZipFile):
            raise SrmBenchError(f"{file}: not a readable .npz archive (np.savez writes one)") from None
        return
    if file.is_dir():
        m = read_manifest(file)
        click.echo(f"dataset   {m['task']}/{m['split']} (task version {m.get('task_version')}), seed {m['seed']}")
        click.echo(f"items     {m['count']} in {len(m['shards'])} shard(s)")
        click.echo(f"content   sha256 {m['content_sha256']}")
        if m.get("images_sha256"):
            click.echo(f"images    sha256 {m['images_sha256']}")
        click.echo(f"config    {json.dumps(m.get('config'), sort_keys=True)}")
        if m.get("source"):
            click.echo(f"source    {json.dumps(m['source'], sort_keys=True)}")
        return
    try:
        attrs = read_attrs(file)
    except SrmBenchError:
        attrs = None
    if attrs is not None:
        click.echo(f"shard     {attrs['task']}/{attrs['split']} items {attrs['index_start']}..{attrs['index_start'] + attrs['count'] - 1}, seed {attrs['seed']}")
        click.echo(f"content   sha256 {attrs['content_sha256']}")
        click.echo(f"version   srm-bench {attrs['srm_bench_version']}, task version {attrs['task_version']}")
        click.echo(f"config    {json.dumps(attrs['config'], sort_keys=True)}")
    try:
        with h5py.File(file, "r") as f:
            if attrs is None:
                click.echo(f"file      {file} ({', '.join(f'{k}={v}' for k, v in f.attrs.items()) or 'no attrs'})")
            f.visititems(lambda name, obj: click.echo(f"  {name:<24} {obj.dtype} {obj.shape}") if isinstance(obj, h5py.Dataset) else None)
    except OSError:
        raise SrmBenchError(f"{file}: not a readable HDF5 file; is it truncated?") from None


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
def verify(directory: Path) -> None:
    """Re-hash every shard against the manifest and, for canonical test sets, the pinned hashes.

    Example: srm-bench verify data/sudoku/hard
    """
    from .canonical import pinned
    from .dataset import load_dataset

    from .generation import LOCK
    from .shards import MANIFEST

    ds = load_dataset(directory, verify=True)
    listed = {s["file"] for s in ds.manifest.get("shards", [])} | {MANIFEST, LOCK}
    extra = sorted(p.name for p in directory.iterdir() if p.name not in listed) if directory.is_dir() else []
    shards = [name for name in extra if name.endswith(".h5")]
    if shards:
        raise SrmBenchError(f"{directory}: {len(shards)} shard file(s) not in the manifest ({', '.join(shards[:5])}); "
                            "remove them or regenerate the dataset")
    click.echo(f"{directory}: {ds.count} items, {len(ds.manifest.get('shards', [1]))} shard(s): every hash matches the manifest")
    if extra:
        click.echo(f"warning: {len(extra)} file(s) that are not part of the dataset: {', '.join(extra[:5])}", err=True)
    pin = pinned(ds.task, ds.split)
    if pin and ds.seed == pin["seed"] and ds.count == pin["count"]:
        from .errors import ChecksumError

        if ds.content_sha256 != pin["content_sha256"]:
            raise ChecksumError(f"{directory}: content differs from the pinned canonical {ds.task}/{ds.split} set")
        click.echo(f"canonical {ds.task}/{ds.split}: matches the pinned hash {pin['content_sha256'][:16]}...")
        if pin.get("images_sha256") and ds.manifest.get("images_sha256") not in (None, pin["images_sha256"]):
            from .generation import get_generator

            if get_generator(ds.task).portable_images:
                raise ChecksumError(f"{directory}: images differ from the pinned canonical {ds.task}/{ds.split} images; regenerate them")
            import PIL

            click.echo(f"warning: the rendered images differ from the pinned ones (this Pillow {PIL.__version__} "
                       "rasterises some pixels differently); labels and layout match", err=True)


# ---------------------------------------------------------------------------- oracle / train-evaluator

def _tasks_with(entry: str) -> list[str]:
    """The tasks whose TaskSpec names the entry point ``entry`` (oracle, train_evaluator)."""
    return [t for t in TASKS.names() if getattr(get_task(t), entry)]


def _entry_command(task: str, entry: str) -> click.Command:
    """The click command that ``TaskSpec.<entry>`` of ``task`` names (TaskGroup asks only for tasks that name one)."""
    ref = getattr(get_task(task), entry)
    if not ref:
        raise SrmBenchError(f"task {task!r} has no {entry.replace('_', '-')} command")
    return resolve_entry_point(ref)


@click.group(cls=TaskGroup, tasks=lambda: _tasks_with("oracle"),
             factory=lambda t: _entry_command(t, "oracle"))
def oracle() -> None:
    """Discrete oracle solvers, scored like any model (the grey rows of the paper's Table 1).

    Example: srm-bench oracle sudoku --strategy greedy --split hard   # writes oracle-greedy-hard.h5
    """


@click.group(cls=TaskGroup, tasks=lambda: _tasks_with("train_evaluator"),
             factory=lambda t: _entry_command(t, "train_evaluator"))
def train_evaluator() -> None:
    """Train an evaluator's classifier (the shipped weights come from this command).

    Example: srm-bench train-evaluator counting-stars -o evaluators/weights
    """
