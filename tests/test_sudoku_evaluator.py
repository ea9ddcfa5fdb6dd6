"""Sudoku scoring: closed-form L1 cases, the digit classifier, and end-to-end invariants."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import srm_bench
from srm_bench.digits import (
    POOL_K_EMBEDDED, classify, embedded_digits, embedded_split, load_classifier, pool_for,
    weights_info, weights_path,
)
from srm_bench.evaluators.sudoku import bad_cells, read_digits, sudoku_l1, tiles_of
from srm_bench.generators.sudoku import random_solution
from srm_bench.samples import write_samples
from srm_bench.io import file_sha256


@pytest.fixture(scope="module")
def solved() -> np.ndarray:
    return np.stack([random_solution(np.random.default_rng(i)) for i in range(20)])


def test_valid_grids_score_zero(solved) -> None:
    assert (sudoku_l1(solved) == 0).all()
    assert not bad_cells(solved).any()


def test_replacing_a_cell_by_a_digit_of_its_row_costs_six(solved) -> None:
    for g in solved:
        for r, c, other in ((0, 0, 4), (4, 4, 8), (8, 2, 7)):
            h = g.copy()[None]
            h[0, r, c] = g[r, other]
            assert sudoku_l1(h)[0] == 6
            # the changed cell and its twins in row, column and box are flagged
            d = g[r, other]
            twins = {(r, other)} | {(i, c) for i in range(9) if g[i, c] == d}
            twins |= {(i, j) for i in range(3 * (r // 3), 3 * (r // 3) + 3)
                      for j in range(3 * (c // 3), 3 * (c // 3) + 3) if g[i, j] == d}
            assert {tuple(int(v) for v in x) for x in np.argwhere(bad_cells(h)[0])} == twins | {(r, c)}


def test_swapping_two_cells_of_a_row(solved) -> None:
    for g in solved:
        same_box = g.copy()[None]
        same_box[0, 0, [0, 1]] = same_box[0, 0, [1, 0]]
        assert sudoku_l1(same_box)[0] == 4
        other_box = g.copy()[None]
        other_box[0, 0, [0, 5]] = other_box[0, 0, [5, 0]]
        assert sudoku_l1(other_box)[0] == 8


def test_l1_extremes() -> None:
    all_ones = np.ones((1, 9, 9), np.uint8)
    assert sudoku_l1(all_ones)[0] == 27 * 16 == 432


def test_zero_is_never_read(solved) -> None:
    probs = np.zeros((3, 10))
    probs[:, 0] = 0.9
    probs[np.arange(3), [3, 5, 7]] = 0.06
    digits, conf = read_digits(probs)
    assert digits.tolist() == [3, 5, 7] and np.allclose(conf, 0.06)


def test_shipped_weights_are_pinned_and_accurate() -> None:
    info = weights_info()
    assert file_sha256(weights_path()) == info["sha256"]
    ds = embedded_digits()
    _, held = embedded_split()
    acc = float((classify(ds.images[held]).argmax(1) == ds.labels[held]).mean())
    assert acc == pytest.approx(info["heldout_accuracy"], abs=1e-9)
    assert acc >= 0.98
    model = load_classifier()
    assert not model.training


def test_pool_is_read_perfectly() -> None:
    pool = pool_for(None)
    assert pool.images.shape == (9, POOL_K_EMBEDDED, 28, 28)
    probs = classify(pool.images.reshape(-1, 28, 28))
    digits, _ = read_digits(probs)
    assert (digits.reshape(9, -1) == np.arange(1, 10)[:, None]).all()


def test_classifier_refuses_float_input() -> None:
    import torch

    with pytest.raises(TypeError, match="uint8"):
        load_classifier()(torch.zeros(2, 28, 28))


def test_tiles_round_trip() -> None:
    img = np.arange(252 * 252, dtype=np.int64).reshape(1, 252, 252) % 251
    t = tiles_of(img.astype(np.uint8))
    assert t.shape == (1, 81, 28, 28)
    assert (t[0, 9 * 2 + 3] == img[0, 56:84, 84:112]).all()


def test_solutions_score_perfectly(hard_dir, tmp_path) -> None:
    res = srm_bench.evaluate(hard_dir, out=tmp_path / "res")
    m = res["metrics"]
    assert m["accuracy"]["value"] == 1.0 and m["l1"]["value"] == 0.0
    assert m["givens_kept"]["value"] == 1.0 and m["solved"]["value"] == 1.0
    assert m["accuracy"]["ci95"][0] > 0.99
    saved = json.loads(next((tmp_path / "res").glob("*.json")).read_text())
    assert saved["dataset"]["content_sha256"] == res["dataset"]["content_sha256"]
    assert saved["evaluator"]["weights_sha256"] == weights_info()["sha256"]


def test_broken_samples_score_exact_l1(easy_small, tmp_path) -> None:
    ds = srm_bench.load_dataset(easy_small)
    images = ds.images().copy()
    grids, masks = ds.items["grid"], ds.items["mask"]
    # sample 0: copy the tile of cell (0, 1) onto cell (0, 0): a digit of its row -> L1 6
    images[0, 0:28, 0:28] = images[0, 0:28, 28:56]
    # sample 1: swap cells (2, 0) and (2, 5) of one row (different boxes) -> L1 8
    a, b = images[1, 56:84, 0:28].copy(), images[1, 56:84, 140:168].copy()
    images[1, 56:84, 0:28], images[1, 56:84, 140:168] = b, a
    path = write_samples(tmp_path / "s.h5", images, task="sudoku", split="easy",
                         dataset_sha256=ds.content_sha256, index=np.arange(60))
    res = srm_bench.evaluate(path, reference=easy_small, out=None)
    assert res["metrics"]["l1"]["value"] == pytest.approx((6 + 8) / 60)
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(58 / 60)
    kept0 = not masks[0, 0, 0]
    kept1 = not (masks[1, 2, 0] or masks[1, 2, 5]) or grids[1, 2, 0] == grids[1, 2, 5]
    assert res["metrics"]["givens_kept"]["value"] == pytest.approx((58 + kept0 + kept1) / 60)


def test_index_selects_puzzles(easy_small, tmp_path) -> None:
    ds = srm_bench.load_dataset(easy_small)
    idx = np.array([5, 11, 17, 59])  # each puzzle once: repeats are refused (issue 13)
    path = write_samples(tmp_path / "s.h5", ds.images(idx), task="sudoku", split="easy",
                         dataset_sha256=ds.content_sha256, index=idx)
    res = srm_bench.evaluate(path, reference=easy_small, out=None)
    assert res["samples"]["count"] == 4 and res["metrics"]["solved"]["value"] == 1.0
    # the same images against the wrong puzzles break the givens
    path2 = write_samples(tmp_path / "s2.h5", ds.images(idx), task="sudoku", split="easy",
                          dataset_sha256=ds.content_sha256, index=np.array([0, 1, 2, 3]))
    res2 = srm_bench.evaluate(path2, reference=easy_small, out=None)
    assert res2["metrics"]["givens_kept"]["value"] == 0.0 and res2["metrics"]["accuracy"]["value"] == 1.0


def test_samples_find_the_canonical_set_alone(hard_dir, tmp_path, monkeypatch) -> None:
    """`srm-bench evaluate samples.h5` regenerates the canonical puzzles into the cache."""
    from srm_bench.canonical import pinned
    from srm_bench.paths import canonical_dir

    monkeypatch.setenv("SRM_BENCH_CACHE", str(tmp_path / "fresh-cache"))
    ds = srm_bench.load_dataset(hard_dir)
    path = write_samples(tmp_path / "s.h5", ds.images()[:10], task="sudoku", split="hard",
                         dataset_sha256=pinned("sudoku", "hard")["content_sha256"], index=np.arange(10))
    assert not (canonical_dir("sudoku", "hard") / "manifest.json").exists()
    res = srm_bench.evaluate(path, out=None)
    assert res["metrics"]["solved"]["value"] == 1.0
    assert (canonical_dir("sudoku", "hard") / "manifest.json").exists()
    assert res["dataset"]["content_sha256"] == pinned("sudoku", "hard")["content_sha256"]


def test_concurrent_jobs_share_one_canonical_regeneration(tmp_path) -> None:
    """Jobs started together (samplers on several GPUs) all find the canonical set missing: one
    regenerates it and the others wait, where they used to fail on the generator's lock."""
    import subprocess
    import sys

    env = dict(os.environ, SRM_BENCH_CACHE=str(tmp_path / "cache"))
    code = ("from srm_bench.canonical import canonical_dataset; "
            "print(canonical_dataset('sudoku', 'easy').content_sha256)")
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err[-300:] for _, err in outs]
    from srm_bench.canonical import pinned
    assert {out.strip() for out, _ in outs} == {pinned("sudoku", "easy")["content_sha256"]}
