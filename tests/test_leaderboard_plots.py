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
    with pytest.raises(SrmBenchError, match="numeric sampler.overlap"):
        plot_overlap(load_frame(default_dirs([], checkout=False)), "even-pixels", tmp_path / "none.png")


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
    red = (arr[..., 0] > 150) & (arr[..., 1] < 110) & (arr[..., 2] < 110)
    assert red.sum() > 500  # two shaded cells plus the red FAIL title
    passed = check_png(plot_samples(result, tmp_path / "passed.png", which="passed"), min_w=300, min_h=200)
    red_passed = (passed[..., 0] > 150) & (passed[..., 1] < 110) & (passed[..., 2] < 110)
    assert red_passed.sum() < red.sum() / 10  # nothing fails among the passed samples


def test_sample_grid_refuses_other_samples(scored, tmp_path):
    result, images = scored
    other = write_samples(tmp_path / "other.h5", images[::-1].copy(), task="sudoku", split="hard", dataset_sha256=None)
    with pytest.raises(SrmBenchError, match="hash differs"):
        plot_samples(result, tmp_path / "g.png", samples_path=other)
    (tmp_path / "r.per_sample.csv").unlink()
    with pytest.raises(SrmBenchError, match="per-sample file missing"):
        plot_samples(result, tmp_path / "g.png")
