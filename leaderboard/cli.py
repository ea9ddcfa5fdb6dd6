"""``srm-bench leaderboard`` and ``srm-bench plot`` (imported lazily by srm_bench.cli)."""
from __future__ import annotations

from pathlib import Path

import click


_RESULTS = click.option(
    "--results", "-r", "results", multiple=True, type=click.Path(path_type=Path),
    help="A results folder (searched recursively) or result JSON; repeat for several. Added to the "
         "paper's figures and the checkout's leaderboard/results/.")
_NO_PAPER = click.option("--no-paper", is_flag=True, help="Leave out the figures transcribed from the paper.")
_NO_COMMITTED = click.option("--no-committed", is_flag=True,
                             help="Leave out the checkout's committed leaderboard/results/.")


def _frame(results: tuple[Path, ...], no_paper: bool, no_committed: bool, shipped: bool = False):
    from .store import default_dirs, load_frame, shipped_only

    frame = load_frame(default_dirs(results, paper=not no_paper, checkout=not no_committed))
    return shipped_only(frame) if shipped else frame


def _write_text(text: str, out: Path | None) -> None:
    if out is None:
        click.echo(text, nl=False)
        return
    from srm_bench.io import user_output

    with user_output(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
    click.echo(f"wrote {out}", err=True)


_SHIPPED = click.option("--shipped", is_flag=True,
                        help="Of our baselines, show only the rows of the shipped models ('srm-bench models'): the "
                             "paper's figures, your results and those, instead of every run of our campaigns.")


@click.command(
    "leaderboard",
    epilog=(
        "Examples:\n\n"
        "\b\n"
        "  srm-bench leaderboard --task sudoku                   # Table 1 and 4 layouts, paper beside ours\n"
        "  srm-bench leaderboard -r results/ --format latex      # your results too, as LaTeX\n"
        "  srm-bench leaderboard --format csv > all.csv          # one row per result, every metric\n"
        "  srm-bench leaderboard --appendix -o leaderboard/LEADERBOARD.md   # regenerate the committed page\n"
        "  srm-bench leaderboard --shipped -r results/           # yours beside the paper's and our shipped models'\n"
        "  srm-bench leaderboard --verify -r results/            # check every result; exit 1 if any fails\n"
        "  srm-bench leaderboard --site out/site                 # a static site: sortable tables, details, plots\n"
    ),
)
@click.option("--task", "-t", default=None, help="Only this task (sudoku, even-pixels, counting-polygons, ...).")
@_RESULTS
@click.option("--format", "-f", "fmt", type=click.Choice(["md", "latex", "csv", "html", "json"]), default="md",
              show_default=True, help="md/latex/html: the paper's layouts; csv/json: the flat table of results.")
@click.option("--appendix", is_flag=True, help="Also show the paper's appendix ablations (eta, DiT, cosine, LLMs...).")
@_NO_PAPER
@_NO_COMMITTED
@_SHIPPED
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None,
              help="Write to this file (replaced atomically) instead of standard output.")
@click.option("--verify", is_flag=True,
              help="Only check every result (ranges, intervals, per-sample CSV, provenance): list each one that "
                   "fails and exit 1 if any does.")
@click.option("--site", type=click.Path(path_type=Path), default=None,
              help="Write a self-contained static site to this folder (one page per task, sortable and filterable "
                   "tables, a detail view per row, the result files, plots) instead of a table; opens from the file "
                   "system or any static host. An earlier site there is replaced.")
def leaderboard(task: str | None, results: tuple[Path, ...], fmt: str, appendix: bool, no_paper: bool,
                no_committed: bool, shipped: bool, out: Path | None, verify: bool, site: Path | None) -> None:
    """Every result side by side with the paper's figures, in the paper's table layouts.

    Reads the packaged paper figures, the checkout's leaderboard/results/ and every --results
    folder. Bad files (not JSON, not a result, a newer schema, a duplicate) are skipped with one
    warning line each, and so are results that cannot be true: a rate outside [0, 1], a value
    outside its interval, metrics the per-sample CSV beside the JSON does not give, or a
    provenance "paper", "baseline" or "oracle" the package cannot back (see docs/results.md).
    Results from different evaluator versions, datasets, background sources or sample counts
    never share a cell: they get their own rows.
    """
    if shipped and (site is not None or verify):
        raise click.UsageError("--shipped filters the tables; it does not combine with --site or --verify")
    if site is not None:
        if verify or out is not None:
            raise click.UsageError("--site writes a folder; it does not combine with --verify or --out")
        from .site import build_site
        from .store import default_dirs

        counts = build_site(site, default_dirs(results, paper=not no_paper, checkout=not no_committed), task=task,
                            appendix=appendix, require=results)
        click.echo(f"wrote {site}: {counts['pages']} pages, {counts['rows']} rows"
                   + (f", {counts['failed']} result(s) failed verification (listed on the pages)" if counts["failed"] else ""))
        return
    if verify:
        from srm_bench.errors import SrmBenchError

        from .store import default_dirs, load_entries

        problems: list[str] = []  # each one is also a warning line on stderr
        entries = load_entries(default_dirs(results, paper=not no_paper, checkout=not no_committed), problems)
        if problems:
            raise SrmBenchError(f"{len(problems)} of {len(problems) + len(entries)} result(s) failed the checks (listed above)")
        click.echo(f"{len(entries)} result(s) checked: every result passes")
        return
    from .tables import render

    frame = _frame(results, no_paper, no_committed, shipped)
    _write_text(render(frame, fmt, task=task, appendix=appendix), out)


@click.command("compare", epilog="""\b
Examples:
  srm-bench compare results/mine.json leaderboard/results/baselines/sudoku-2026-11-27i/<hard, predicted>.json
  srm-bench compare a.json b.json --metric l1 --json
  srm-bench compare -a mine-seed0.json -a mine-seed1.json -b theirs-seed0.json -b theirs-seed1.json""")
@click.argument("results", nargs=-1, type=click.Path(path_type=Path))
@click.option("-a", "pool_a", multiple=True, type=click.Path(path_type=Path),
              help="A result of side A; repeat it to pool several sampling seeds of one configuration "
                   "(instead of the two positional files).")
@click.option("-b", "pool_b", multiple=True, type=click.Path(path_type=Path),
              help="A result of side B; repeat it as -a.")
@click.option("--metric", "-m", default=None, help="Metric to compare [accuracy, else the first].")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare(results: tuple[Path, ...], pool_a: tuple[Path, ...], pool_b: tuple[Path, ...], metric: str | None,
            as_json: bool) -> None:
    """Is A better than B? A paired test where both score the same puzzles (Sudoku), else unpaired.

    Give two result files (A B), or each side as one or more -a / -b files: several files of one
    configuration (the same model, weights and sampler settings, drawn with different --seed) are
    pooled, so four seeds of 500 samples count as 2,000 (Sudoku: paired file by file, so both sides
    need as many). Every result is checked as the leaderboard checks it, and all must score the same
    task, split, dataset and evaluator. Prints both figures, the difference A - B with its 95% interval and the
    test's two-sided p-value: for accuracy on the same puzzles, the exact sign test on the puzzles
    only one of the two solves (McNemar); for a mean such as L1, the Wilcoxon signed-rank test.
    For the unconditional tasks (Even Pixels, Counting: independent draws): Fisher's exact test or Welch's t-test.
    """
    from srm_bench.errors import SrmBenchError

    from .compare import compare_results, format_comparison, to_json

    if results and (pool_a or pool_b):
        raise SrmBenchError("give the two results as A B or as -a ... -b ..., not both")
    if not results and not (pool_a and pool_b):
        raise SrmBenchError("give two result files (A B), or at least one -a and one -b file")
    if results and len(results) != 2:
        raise SrmBenchError(f"got {len(results)} positional result files; give two (A B), or pool seeds with "
                            "-a ... -b ...")
    c = compare_results(results[0], results[1], metric) if results else compare_results(list(pool_a), list(pool_b),
                                                                                            metric)
    click.echo(to_json(c) if as_json else format_comparison(c), nl=False)


@click.group("plot")
def plot() -> None:
    """Figures from the results: accuracy per difficulty, accuracy vs overlap or Sudoku givens, sample grids (PNG).

    \b
    Examples:
      srm-bench plot difficulty --task sudoku -r results/ -o acc.png
      srm-bench plot givens results/sudoku-hard-*.json -o givens.png
      srm-bench plot overlap --task even-pixels -r results/ -o overlap.png
      srm-bench plot samples results/RESULT.json --which failed -o failed.png
    """


@plot.command("difficulty")
@click.option("--task", "-t", default="sudoku", show_default=True, help="Task whose main table to draw.")
@click.option("--metric", "-m", default="accuracy", show_default=True, help="Metric to draw.")
@_RESULTS
@_NO_PAPER
@_NO_COMMITTED
@_SHIPPED
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="PNG to write.")
def plot_difficulty_cmd(task: str, metric: str, results: tuple[Path, ...], no_paper: bool, no_committed: bool,
                        shipped: bool, out: Path) -> None:
    """Accuracy per difficulty, one bar per model and sampler, with 95% error bars.

    Example: srm-bench plot difficulty --task sudoku -r results/ --shipped -o acc.png
    """
    from .plots import plot_difficulty

    frame = _frame(results, no_paper, no_committed, shipped)
    click.echo(f"wrote {plot_difficulty(frame, task, out, metric=metric, paper=not no_paper)}")


@plot.command("overlap")
@click.option("--task", "-t", default="even-pixels", show_default=True, help="Task to draw.")
@click.option("--split", "-s", default=None, help="Only this split (default: all, one line each).")
@click.option("--metric", "-m", default="accuracy", show_default=True, help="Metric to draw.")
@click.option("--eta", "etas", type=float, multiple=True,
              help="Only results sampled at this eta; repeat for several (default: every eta). The paper's stars stay.")
@_RESULTS
@_NO_PAPER
@_NO_COMMITTED
@_SHIPPED
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="PNG to write.")
def plot_overlap_cmd(task: str, split: str | None, metric: str, etas: tuple[float, ...], results: tuple[Path, ...],
                     no_paper: bool, no_committed: bool, shipped: bool, out: Path) -> None:
    """Accuracy vs overlap per order (the paper's Figure 6), from results that record sampler.overlap.

    Example: srm-bench plot overlap --task even-pixels --shipped --eta 1 --eta 4 -r results/ -o overlap.png
    """
    from .plots import plot_overlap

    frame = _frame(results, no_paper, no_committed, shipped)
    click.echo(f"wrote {plot_overlap(frame, task, out, metric=metric, split=split, etas=etas)}")


@plot.command("samples")
@click.argument("result", type=click.Path(path_type=Path))
@click.option("--samples", "samples_path", type=click.Path(path_type=Path), default=None,
              help="The samples file scored (default: the path the result records).")
@click.option("-n", "--count", type=int, default=16, show_default=True, help="How many samples to draw.")
@click.option("--which", type=click.Choice(["all", "failed", "passed"]), default="all", show_default=True)
@click.option("--columns", type=int, default=4, show_default=True, help="Images per row.")
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="PNG to write.")
def plot_samples_cmd(result: Path, samples_path: Path | None, count: int, which: str, columns: int, out: Path) -> None:
    """A grid of samples with each one's verdict from the per-sample CSV (Sudoku: broken cells in red).

    Example: srm-bench plot samples results/RESULT.json --which failed -o failed.png
    """
    from .plots import plot_samples

    click.echo(f"wrote {plot_samples(result, out, samples_path=samples_path, count=count, which=which, columns=columns)}")


@plot.command("givens")
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--width", type=int, default=3, show_default=True, help="Given cells a bin (0-2, 3-5, ... for 3).")
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="PNG to write.")
def plot_givens_cmd(results: tuple[Path, ...], width: int, out: Path) -> None:
    """Sudoku accuracy against the number of given cells, from result JSONs (their per-sample CSVs beside them).

    A difficulty split spans many puzzles (hard: 0-26 givens); this shows where in it a model fails. One line per
    model, weights and sampler, its splits and seeds pooled; the table of bins is printed too.

    \b
    Example:
      srm-bench plot givens results/sudoku-easy-*.json results/sudoku-medium-*.json results/sudoku-hard-*.json -o g.png
    """
    from .plots import givens_table, plot_givens

    table = givens_table(list(results), width=width)
    for line, g in table.groupby("line", sort=False):
        click.echo(line)
        for r in g.itertuples():
            click.echo(f"  givens {r.givens:>5}: {r.accuracy:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]  "
                       f"{r.solved}/{r.puzzles}")
    click.echo(f"wrote {plot_givens(table, out, width=width)}")


@plot.command("training", epilog="\b\nExample:\n  srm-bench plot training runs/cell-mlp runs/dit-cell -o training.png")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True, help="PNG to write.")
def plot_training_cmd(runs: tuple[Path, ...], out: Path) -> None:
    """Loss and accuracy during training (log.csv, eval.csv) against images seen, for run directories."""
    from .plots import plot_training

    click.echo(f"wrote {plot_training(list(runs), out)}")
