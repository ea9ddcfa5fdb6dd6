"""The ``srm-bench`` command line: a thin layer over the Python API.

Subcommands are imported lazily (``srm-bench --help`` imports neither torch nor h5py).
Usage errors exit 2; domain errors exit 1 with one line on stderr, no traceback.
"""
from __future__ import annotations

import importlib
import logging
import sys
from typing import Any

import click

from . import __version__
from .errors import SrmBenchError
from .registry import TASKS

# name -> ("module:attribute", one-line help). The attribute is a click command.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "generate": ("srm_bench.commands:generate", "Generate a benchmark split into HDF5 shards."),
    "evaluate": ("srm_bench.commands:evaluate", "Score generated samples (HDF5, .npz or a PNG folder)."),
    "info": ("srm_bench.commands:info", "Describe a shard, dataset directory or samples file."),
    "verify": ("srm_bench.commands:verify", "Re-hash a dataset against its manifest and the pinned canonical hashes."),
    "oracle": ("srm_bench.commands:oracle", "Run the discrete oracle solvers (the grey rows of Table 1)."),
    "train-evaluator": ("srm_bench.commands:train_evaluator", "Train an evaluator's classifier."),
    "solve": ("srm_bench.solve:solve", "Run your model over a test set through an adapter function, then score it."),
    "llm": ("srm_bench.llm:llm", "Text track: a language model (OpenAI-compatible server) solves the Sudoku puzzles as text."),
    # Subsystem commands: one line each, the module lives in the subsystem's folder.
    "train": ("srm_bench.baselines.cli:train", "Train the SRM or DDPM baseline (presets paper/small/tiny, DDP under torchrun)."),
    "sample": ("srm_bench.baselines.cli:sample", "Sample a trained baseline with any sampler into an evaluable HDF5."),
    "models": ("srm_bench.baselines.cli:models", "List the shipped baseline models (checksums, budgets, measured accuracy)."),
    "reproduce": ("srm_bench.baselines.cli:reproduce", "Draw a baseline result's samples again and compare their hash."),
    "leaderboard": ("srm_bench.leaderboard.cli:leaderboard", "Results side by side with the paper's figures (md, LaTeX, CSV, HTML, JSON)."),
    "plot": ("srm_bench.leaderboard.cli:plot", "Plots from results: accuracy per difficulty, vs overlap, sample grids (PNG)."),
    "compare": ("srm_bench.leaderboard.cli:compare", "Is model A better than B? A paired test on two result files."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module, attr = self.lazy[name][0].split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy:
                rows.append((name, self.lazy[name][1]))
            else:
                cmd = super().get_command(ctx, name)
                if cmd is not None and not cmd.hidden:
                    rows.append((name, cmd.get_short_help_str(limit=80)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    lazy=LAZY_COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=(
        "Examples:\n\n"
        "\b\n"
        "  srm-bench generate sudoku --split hard          # 500 canonical hard puzzles\n"
        "  srm-bench evaluate samples.h5                   # score your model's samples\n"
        "  srm-bench oracle sudoku --strategy greedy --split hard -o greedy.h5\n"
        "  srm-bench verify data/sudoku/hard               # re-check every hash\n\n"
        f"Tasks: {', '.join(TASKS.names())}. Run 'srm-bench COMMAND --help' for details."
    ),
)
@click.version_option(__version__, prog_name="srm-bench")
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars, warnings only.")
@click.pass_context
def cli(ctx: click.Context, verbose: int, quiet: bool) -> None:
    """srm-bench: can your image generator reason, or does it hallucinate?

    Benchmarks from 'Spatial Reasoning with Denoising Models' (ICML 2025): MNIST Sudoku,
    Even Pixels and Counting Polygons/Stars, with generators, evaluators, baselines and a
    leaderboard. Everything runs offline.
    """
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    ctx.ensure_object(dict)
    ctx.obj["progress"] = not quiet and sys.stderr.isatty()


def progress_enabled(ctx: click.Context | None = None) -> bool:
    """Whether commands show progress bars (not with -q, and only on a terminal)."""
    ctx = ctx or click.get_current_context()
    return bool((ctx.find_root().obj or {}).get("progress", False))


def main(argv: list[str] | None = None) -> None:
    """Console entry point: maps domain errors to one line and exit code 1."""
    try:
        rv = cli.main(args=argv, prog_name="srm-bench", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            _interrupted()
        click.echo("aborted", err=True)
        sys.exit(1)
    except SrmBenchError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        _interrupted()
    sys.exit(rv if isinstance(rv, int) else 0)


def _interrupted() -> None:
    """Ctrl-C: one line, exit status 130 (128 + SIGINT), nothing half-written left behind."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not print a trace from the shutdown
    click.echo("interrupted; what was saved is kept (finished shards, sample batches, checkpoints): run the same command again to resume", err=True)
    sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
