"""``srm-bench plot``: the PNGs exist, have a sensible size and show something (not a blank canvas)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from srm_bench.errors import SrmBenchError
from srm_bench.leaderboard.plots import plot_difficulty, plot_overlap, plot_samples
from srm_bench.leaderboard.store import default_dirs, load_frame
from srm_bench.results import rate_metric
from srm_bench.samples import write_samples
from srm_bench.shards import array_sha256

from test_leaderboard import make_result, write

ROOT = Path(__file__).resolve().parents[1]


def check_png(path: Path, min_w: int = 400, min_h: int = 250) -> np.ndarray:
    assert path.is_file() and path.stat().st_size > 5_000
    with Image.open(path) as im:
        assert im.format == "PNG"
        arr = np.asarray(im.convert("RGB"))
    h, w = arr.shape[:2]
    assert min_w <= w <= 4000 and min_h <= h <= 4000
    assert arr.std() > 10  # not a blank canvas
    assert len(np.unique(arr.reshape(-1, 3), axis=0)) > 20  # more than a few flat colours
    return arr


def reddish(arr: np.ndarray) -> np.ndarray:
    r, g, b = (arr[..., k].astype(int) for k in range(3))
    return (r > g + 60) & (r > b + 60)


def test_accuracy_per_difficulty_bars(tmp_path):
    d = tmp_path / "res"
    for i, split in enumerate(("easy", "medium", "hard")):
        for j, order in enumerate(("predicted", "random")):
            write(d, f"{split}-{order}.json", make_result(
                split=split, correct=480 - 150 * i - 40 * j,
                sampler={"name": "sequential", "order": order, "overlap": 0.0, "eta": 1.0, "steps": 1000}))
    frame = load_frame(default_dirs([d], checkout=False))
    out = plot_difficulty(frame, "sudoku", tmp_path / "difficulty.png")
    check_png(out)
    with pytest.raises(SrmBenchError, match="not in Table 1"):
        plot_difficulty(frame, "sudoku", tmp_path / "x.png", metric="consistency")
    with pytest.raises(SrmBenchError, match="ending in .png"):
        plot_difficulty(frame, "sudoku", tmp_path / "x.jpg")


def test_accuracy_vs_overlap_needs_numeric_overlaps(tmp_path):
    d = tmp_path / "res"
    for order in ("predicted", "random"):
        for k, overlap in enumerate((0.0, 0.5, 0.9, 0.95)):
            metrics = {"accuracy": rate_metric(
                np.arange(500) < 100 + 60 * k + (20 if order == "predicted" else 0))}
            write(d, f"{order}-{k}.json", make_result(
                "even-pixels", "test", metrics=metrics, samples_sha=f"{order[0]}{k}".ljust(64, "0"),
                sampler={"name": "sequential", "order": order, "overlap": overlap, "eta": 1.0, "steps": 1000}))
    frame = load_frame([d])
    check_png(plot_overlap(frame, "even-pixels", tmp_path / "overlap.png"))
    # With the paper's entries the Table 2 rows are drawn as stars (0.518 at 0.95, far above
    # these lines): more of the canvas is ink than without them.
    with_paper = load_frame(default_dirs([d], checkout=False))
    assert (with_paper["provenance"] == "paper").any()
    ink = lambda a: (a.min(axis=-1) < 200).mean()  # noqa: E731
    assert ink(check_png(plot_overlap(with_paper, "even-pixels", tmp_path / "paper.png"))) > \
        ink(check_png(tmp_path / "overlap.png"))
    with pytest.raises(SrmBenchError, match="numeric sampler.overlap"):
        plot_overlap(load_frame(default_dirs([], checkout=False)), "even-pixels", tmp_path / "none.png")


def test_overlap_lines_of_two_checkpoints_of_one_model_are_told_apart(tmp_path, monkeypatch):
    """A model scored again after more training draws a second line; its legend says how far each
    was trained instead of naming both lines alike."""
    import srm_bench.leaderboard.plots as plots

    d = tmp_path / "res"
    for steps, images in ((6100, 12_492_800), (16600, 33_996_800)):
        training = {"steps": steps, "batch": 2048, "arch": "unet", "preset": "unet-s", "tsampling": "uniform_tbar",
                    "sharpness": 0.75, "gpu_hours": 0.5, "images": images, "checkpoint_sha256": f"{steps:064x}"}
        for k, overlap in enumerate((0.5, 0.95)):
            write(d, f"{steps}-{k}.json", make_result(
                "even-pixels", "test", training=training, correct=40 + 10 * k, samples_sha=f"{steps}{k}".ljust(64, "0"),
                sampler={"name": "sequential", "order": "predicted", "overlap": overlap, "eta": 1.0, "steps": 1000}))
    labels: list[str] = []
    save = plots._save
    monkeypatch.setattr(plots, "_save", lambda fig, out, **kw: (
        labels.extend(fig.axes[0].get_legend_handles_labels()[1]), save(fig, out, **kw))[1])
    check_png(plots.plot_overlap(load_frame([d]), "even-pixels", tmp_path / "two.png"))
    assert len(labels) == 2 and len(set(labels)) == 2, labels
    assert any("12.5M img" in x for x in labels) and any("34.0M img" in x for x in labels), labels


def test_overlap_points_pool_the_seeds_of_one_overlap(tmp_path, monkeypatch):
    """Two sampling seeds at overlap 0.95 draw one point, their verdicts pooled (160 + 200 of 1,000, with the
    Wilson interval of 360 of 1,000), not two points joined by a vertical stroke; one seed stays as it was."""
    import srm_bench.leaderboard.plots as plots
    from srm_bench.stats import wilson_interval

    d = tmp_path / "res"
    for k, (overlap, seed, correct) in enumerate(((0.5, 0, 100), (0.95, 0, 160), (0.95, 1, 200))):
        write(d, f"{k}.json", make_result(
            "even-pixels", "test", correct=correct, samples_sha=f"s{k}".ljust(64, "0"),
            sampler={"name": "sequential", "order": "predicted", "overlap": overlap, "eta": 1.0, "steps": 1000,
                     "seed": seed}))
    drawn = []
    save = plots._save
    monkeypatch.setattr(plots, "_save", lambda fig, out, **kw: (
        drawn.extend(line.get_xydata().tolist() for line in fig.axes[0].lines if line.get_marker() == "o"),
        save(fig, out, **kw))[1])
    check_png(plots.plot_overlap(load_frame([d]), "even-pixels", tmp_path / "seeds.png"))
    assert drawn == [[[0.5, 0.2], [0.95, 0.36]]]
    x, y, lo, hi = plots._overlap_points(load_frame([d]), "accuracy", rate=True)
    assert (lo[1], hi[1]) == pytest.approx(wilson_interval(360, 1000))
    x, y, lo, hi = plots._overlap_points(load_frame([d]), "accuracy", rate=False)  # a mean: averaged, no interval
    assert y[1] == pytest.approx(0.36) and np.isnan(lo[1])


def test_overlap_plot_of_the_shipped_models_draws_only_their_lines(tmp_path, monkeypatch):
    """`srm-bench plot overlap --shipped`: of the committed baselines only the shipped Even Pixels SRM's lines (one an
    order and budget), beside the paper's stars; without the flag, the other runs' lines too."""
    import srm_bench.leaderboard.plots as plots
    from srm_bench.cli import main

    labels: list[list[str]] = []
    save = plots._save
    monkeypatch.setattr(plots, "_save", lambda fig, out, **kw: (
        labels.append(fig.axes[0].get_legend_handles_labels()[1]), save(fig, out, **kw))[1])
    for flags in (["--shipped"], [], ["--shipped", "--eta", "1", "--eta", "4"]):
        with pytest.raises(SystemExit) as exc:
            main(["plot", "overlap", "--task", "even-pixels", *flags, "-o", str(tmp_path / "f.png")])
        assert exc.value.code in (0, None)
    shipped, every, two_etas = ([x for x in got if not x.startswith("paper")] for got in labels)
    # its committed lines: both orders at 1000 NFE and eta 1, predicted order at 100 NFE and eta 0 (the reference
    # protocol), both orders at 1000 NFE and eta 0 (lease 2026-12-01b), and at eta 2, 3, 4 and 8 (lease 2026-12-02a)
    assert len(shipped) == 13 and all("comp0.5-anneal2 " in x for x in shipped), shipped
    assert sum("eta 0" in x for x in shipped) == 3 and sum("eta 4" in x for x in shipped) == 2
    assert len(every) > len(shipped) and set(shipped) <= set(every)
    # --eta keeps the lines of those etas only (eta 1 is the paper's and unnamed), and the paper's stars
    assert len(two_etas) == 4 and sum("eta 4" in x for x in two_etas) == 2 and not any("eta 0" in x for x in two_etas)
    assert any(x.startswith("paper") for x in labels[2])


@pytest.fixture()
def scored(tmp_path):
    """Four Sudoku-sized samples, their result JSON and per-sample CSV (sample 1 breaks cells 0 and 80)."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(4, 252, 252, 1), dtype=np.uint8)
    samples = write_samples(tmp_path / "samples.h5", images, task="sudoku", split="hard", dataset_sha256=None)
    res = make_result(samples_sha=array_sha256(images), n=4, correct=3)
    res["samples"]["path"] = str(samples)
    res["per_sample_file"] = "r.per_sample.csv"
    bad = ["0" * 81, "1" + "0" * 79 + "1", "0" * 81, "0" * 81]
    pd.DataFrame({"sample": range(4), "puzzle": range(4), "l1": [0, 12, 0, 0],
                  "accuracy": [True, False, True, True], "bad_cells": bad}).to_csv(tmp_path / "r.per_sample.csv", index=False)
    (tmp_path / "r.json").write_text(json.dumps(res))
    return tmp_path / "r.json", images


def test_sample_grid_marks_broken_cells_red(scored, tmp_path):
    result, _ = scored
    arr = check_png(plot_samples(result, tmp_path / "grid.png"), min_w=300, min_h=200)
    red = reddish(arr)
    assert red.sum() > 500  # two shaded cells plus the red FAIL title
    passed = check_png(plot_samples(result, tmp_path / "passed.png", which="passed"), min_w=300, min_h=200)
    assert reddish(passed).sum() < red.sum() / 10  # nothing fails among the passed samples


def test_sample_grid_refuses_other_samples(scored, tmp_path):
    result, images = scored
    other = write_samples(tmp_path / "other.h5", images[::-1].copy(), task="sudoku", split="hard", dataset_sha256=None)
    with pytest.raises(SrmBenchError, match="hash differs"):
        plot_samples(result, tmp_path / "g.png", samples_path=other)
    (tmp_path / "r.per_sample.csv").unlink()
    with pytest.raises(SrmBenchError, match="per-sample file missing"):
        plot_samples(result, tmp_path / "g.png")



def test_sample_grid_reads_a_gzip_per_sample_file(scored, tmp_path):
    """Committed results keep their per-sample CSV gzip-compressed beside the JSON: the grid is the same."""
    from srm_bench.results import compress_per_sample

    result, _ = scored
    plain = check_png(plot_samples(result, tmp_path / "plain.png"), min_w=300, min_h=200)
    compress_per_sample(tmp_path / "r.per_sample.csv")
    assert not (tmp_path / "r.per_sample.csv").exists() and (tmp_path / "r.per_sample.csv.gz").is_file()
    packed = check_png(plot_samples(result, tmp_path / "packed.png"), min_w=300, min_h=200)
    assert np.array_equal(plain, packed)

def test_real_sudoku_evaluation_end_to_end(tmp_path):
    """Score real puzzles with the Sudoku evaluator, then table and draw the result from its files."""
    from srm_bench.dataset import load_dataset
    from srm_bench.evaluation import evaluate
    from srm_bench.generation import generate
    from srm_bench.leaderboard.tables import LAYOUTS, build_table

    ds = load_dataset(generate("sudoku", "hard", n=4, seed=5, out=tmp_path / "ds"))
    images = ds.images().copy()
    # sample 1: swap two cells of the top row that lie in different boxes (L1 = 8, reference notes)
    a = images[1, 0:28, 0:28].copy()
    images[1, 0:28, 0:28] = images[1, 0:28, 112:140]
    images[1, 0:28, 112:140] = a
    samples = write_samples(tmp_path / "s.h5", images, task="sudoku", split="hard",
                            dataset_sha256=ds.content_sha256, index=np.arange(4),
                            model={"name": "swap-test", "provenance": "user", "sampler": {"name": "parallel"}})
    res, res_path = evaluate(samples, reference=tmp_path / "ds", out=tmp_path / "results")
    assert res["metrics"]["accuracy"]["value"] == 0.75 and res_path is not None
    table = build_table(load_frame([tmp_path / "results"]), LAYOUTS["table1"])
    (row,) = table.rows
    assert row.group == "user" and row.labels["model"] == "swap-test"
    assert row.cells[-1].value == 0.75 and row.cells[-2].value == pytest.approx(2.0)  # mean L1 of 0, 8, 0, 0
    arr = check_png(plot_samples(res_path, tmp_path / "grid.png"), min_w=300, min_h=200)
    red = reddish(arr)
    assert red.sum() > 500
    # the two swapped cells are framed: red pixels lie in the second image of the row only (titles aside)
    cols = np.nonzero(red[40:].any(axis=0))[0]
    assert cols.min() > arr.shape[1] // 4 - 10 and cols.max() < arr.shape[1] // 2 + 10


def test_plot_commands_from_the_cli(tmp_path, capsys):
    from srm_bench.cli import main

    d = tmp_path / "res"
    for split in ("easy", "medium", "hard"):  # parallel sampler only: nothing to draw against overlap
        write(d, f"{split}.json", make_result(split=split, correct=300, sampler={"name": "parallel", "steps": 1000}))
    with pytest.raises(SystemExit) as exit_:
        main(["plot", "difficulty", "-r", str(d), "--no-committed", "--no-paper", "-o", str(tmp_path / "d.png")])
    assert exit_.value.code == 0
    check_png(tmp_path / "d.png")
    with pytest.raises(SystemExit) as exit_:
        main(["plot", "overlap", "--task", "sudoku", "-r", str(d), "--no-committed", "-o", str(tmp_path / "o.png")])
    assert exit_.value.code == 1 and not (tmp_path / "o.png").exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "numeric sampler.overlap" in err


def test_plot_training_joins_only_rows_scored_alike_and_names_the_setting(tmp_path: Path, monkeypatch) -> None:
    """eval.csv rows of one sampler scored at two NFE/eta settings are two lines, not one; a panel whose rows share
    one setting names it in its title, and a log from before these columns existed is drawn as before."""
    import srm_bench.leaderboard.plots as plots

    figs: list = []
    monkeypatch.setattr(plots, "_save", lambda fig, out, **kw: figs.append(fig) or Path(out))
    run = tmp_path / "run"
    run.mkdir()
    (run / "log.csv").write_text("step,images,loss,mse\n1,256,1.0,0.9\n2,512,0.5,0.4\n")
    head = "step,images,gpu_hours,split,sampler,count,accuracy,error,elapsed_s,nfe,eta\n"
    (run / "eval.csv").write_text(head + "1,256,0.01,hard,predicted,4,0.25,1,3,200,0.0\n"
                                  "2,512,0.01,hard,predicted,4,0.5,1,3,200,0.0\n")
    plots.plot_training([run], tmp_path / "a.png")
    acc = figs[-1].axes[1]
    assert len(acc.lines) == 1 and acc.get_title() == "accuracy during training: hard (200 NFE, eta 0)"
    with open(run / "eval.csv", "a") as f:
        f.write("2,512,0.01,hard,predicted,4,0.125,1,9,1000,1.0\n")
    plots.plot_training([run], tmp_path / "b.png")
    acc = figs[-1].axes[1]
    assert len(acc.lines) == 2 and acc.get_title() == "accuracy during training: hard"
    (run / "eval.csv").write_text("step,images,gpu_hours,split,sampler,count,accuracy,elapsed_s\n"
                                  "1,256,0.01,hard,predicted,4,0.25,3\n2,512,0.01,hard,predicted,4,0.5,3\n")
    plots.plot_training([run], tmp_path / "c.png")
    acc = figs[-1].axes[1]
    assert len(acc.lines) == 1 and acc.get_title() == "accuracy during training: hard"


def test_plot_training_draws_runs_and_refuses_other_folders(tmp_path: Path) -> None:
    from srm_bench.leaderboard.plots import plot_training

    run = tmp_path / "run"
    run.mkdir()
    (run / "log.csv").write_text("step,images,loss,mse\n1,256,1.0,0.9\n2,512,0.5,0.4\n")
    (run / "eval.csv").write_text("step,images,gpu_hours,split,sampler,count,accuracy,elapsed_s\n"
                                  "2,512,0.01,easy,parallel,4,0.25,3\n2,512,0.01,easy,predicted,4,0.5,3\n")
    out = plot_training([run], tmp_path / "t.png")
    from PIL import Image

    w1, h1 = Image.open(out).size  # the loss panel and one accuracy panel (easy)
    with open(run / "eval.csv", "a") as f:
        f.write("2,512,0.01,hard,predicted,4,0.0,3\n")
    w2, h2 = Image.open(plot_training([run], tmp_path / "t2.png")).size  # a third panel: hard
    assert w1 > 1.5 * h1 and w2 > 1.3 * w1 and abs(h2 - h1) < 20
    with pytest.raises(SrmBenchError, match="no log.csv"):
        plot_training([tmp_path], tmp_path / "u.png")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "log.csv").write_text("step,loss\n1,2\n")
    with pytest.raises(SrmBenchError, match="not a training log"):
        plot_training([tmp_path / "old"], tmp_path / "v.png")


def _sudoku_result(folder: Path, name: str, split: str, verdicts: dict[int, bool], *, weights: str = "a" * 64,
                   dataset_sha256: str | None = None) -> Path:
    """A Sudoku result JSON in ``folder`` with its per-sample CSV, consistent as ``srm-bench evaluate`` writes them:
    ``verdicts`` (puzzle index -> solved) scored by weights ``weights`` on the canonical ``split`` set."""
    import hashlib

    from srm_bench.canonical import canonical_dataset

    order = sorted(verdicts, key=lambda k: not verdicts[k])  # make_result marks its first `correct` samples solved
    res = make_result("sudoku", split, model="srm-cellnet", n=len(order), correct=sum(verdicts.values()),
                      l1_mean=None, dataset_sha=dataset_sha256 or canonical_dataset("sudoku", split).content_sha256,
                      training={"steps": 40000, "batch": 512, "arch": "cellnet", "preset": "cell-aux-tpl",
                                "checkpoint_sha256": weights})
    text = "sample,puzzle,accuracy\n" + "".join(f"{i},{k},{verdicts[k]}\n" for i, k in enumerate(order))
    res.update(per_sample_file=f"{name}.per_sample.csv", per_sample_sha256=hashlib.sha256(text.encode()).hexdigest())
    (folder / f"{name}.per_sample.csv").parent.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.per_sample.csv").write_text(text)
    return write(folder, f"{name}.json", res)


def _givens(split: str) -> np.ndarray:
    from srm_bench.canonical import canonical_dataset

    ds = canonical_dataset("sudoku", split)
    return np.asarray(ds.items["mask"], dtype=bool).reshape(ds.count, -1).sum(1)


def test_givens_table_bins_puzzles_by_their_givens_and_pools_splits_of_one_line(tmp_path: Path) -> None:
    """Each puzzle lands in the bin of its own number of givens (read from the canonical set), a line pools its
    results on several splits, other weights make another line, and each bin's interval is Wilson's."""
    from srm_bench.leaderboard.plots import givens_table
    from srm_bench.stats import wilson_interval

    hard, easy = _givens("hard"), _givens("easy")
    few = [int(i) for i in np.flatnonzero(hard <= 2)[:6]]      # bin 0-2
    many = [int(i) for i in np.flatnonzero(hard >= 24)[:4]]    # bin 24-26
    top = [int(i) for i in np.flatnonzero(easy >= 78)[:3]]     # bin 78-80
    a = _sudoku_result(tmp_path, "a-hard", "hard", {**{i: i == few[0] for i in few}, **{i: True for i in many}})
    b = _sudoku_result(tmp_path, "a-easy", "easy", {i: True for i in top})
    c = _sudoku_result(tmp_path, "c-hard", "hard", {i: False for i in few}, weights="c" * 64)
    table = givens_table([a, b, c])
    assert table["line"].nunique() == 2
    line_a = table[table["line"].str.contains("aaaaaaaa")]
    assert list(line_a["givens"]) == ["0-2", "24-26", "78-80"]
    assert list(line_a["solved"]) == [1, 4, 3] and list(line_a["puzzles"]) == [6, 4, 3]
    assert line_a["mean_givens"].iloc[0] == pytest.approx(hard[few].mean())
    assert (line_a["ci_low"].iloc[0], line_a["ci_high"].iloc[0]) == pytest.approx(wilson_interval(1, 6))
    line_c = table[table["line"].str.contains("cccccccc")]
    assert list(line_c["solved"]) == [0] and list(line_c["puzzles"]) == [6]
    wide = givens_table([a], width=27)  # one bin for the whole hard split
    assert list(wide["givens"]) == ["0-26"] and list(wide["puzzles"]) == [10]


def test_givens_plot_refuses_what_it_cannot_read_with_one_line(tmp_path: Path, capsys) -> None:
    """Another task, another test set, a per-sample file that is not the one scored or is missing, a bin of 0
    givens: one line, exit 1, no PNG."""
    from srm_bench.cli import main

    good = _sudoku_result(tmp_path / "ok", "r", "hard", {0: True, 1: False})
    foreign = _sudoku_result(tmp_path / "foreign", "r", "hard", {0: True}, dataset_sha256="f" * 64)
    tampered = _sudoku_result(tmp_path / "tampered", "r", "hard", {0: True})
    (tmp_path / "tampered" / "r.per_sample.csv").write_text("sample,puzzle,accuracy\n0,0,False\n")
    missing = _sudoku_result(tmp_path / "missing", "r", "hard", {0: True})
    (tmp_path / "missing" / "r.per_sample.csv").unlink()
    ep = ROOT / next(iter(json.loads((ROOT / "baselines/weights/models.json").read_text())["srm-even-pixels"]["measured"]))["result"]
    cases = [([str(foreign)], "not the canonical"), ([str(tampered)], "per_sample_sha256"), ([str(missing)], "missing"),
             ([str(ep)], "Sudoku's"), ([str(good), "--width", "0"], "--width")]
    for args, words in cases:
        with pytest.raises(SystemExit) as exit_:
            main(["plot", "givens", *args, "-o", str(tmp_path / "g.png")])
        err = capsys.readouterr().err
        assert exit_.value.code == 1 and words in err and err.strip().count("\n") == 0, (args, err)
        assert not (tmp_path / "g.png").exists()
    import re

    with pytest.raises(SystemExit) as exit_:
        main(["plot", "givens", str(good), "-o", str(tmp_path / "g.png")])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and (tmp_path / "g.png").exists() and "Predicted Order w/o Overlap (aaaaaaaa)" in out
    counts = [tuple(map(int, m)) for m in re.findall(r"(\d+)/(\d+)$", out, flags=re.M)]
    assert sum(k for k, _ in counts) == 1 and sum(n for _, n in counts) == 2  # puzzle 0 solved, puzzle 1 not
