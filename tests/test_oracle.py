"""Discrete oracles: rules as written, reproducible, scored like any model."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import srm_bench
from srm_bench.cli import cli
from srm_bench.evaluators.sudoku import sudoku_l1
from srm_bench.generators.sudoku import random_solution
from srm_bench.generators.sudoku_oracle import STRATEGIES, run_oracle, solve


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_solve_keeps_givens_and_fills_every_cell(strategy) -> None:
    rng = np.random.default_rng(0)
    for i in range(20):
        g = random_solution(np.random.default_rng(i))
        mask = rng.random((9, 9)) < 0.3
        out = solve(g * mask, mask, strategy, np.random.default_rng(i))
        assert out.min() >= 1 and out.max() <= 9
        assert (out[mask] == g[mask]).all()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_missing_cell_is_always_solved(strategy) -> None:
    for i in range(10):
        g = random_solution(np.random.default_rng(i))
        mask = np.ones((9, 9), bool)
        mask[i % 9, (3 * i) % 9] = False
        assert (solve(g * mask, mask, strategy, np.random.default_rng(i)) == g).all()


def test_most_constrained_fills_forced_cells_first() -> None:
    g = random_solution(np.random.default_rng(3))
    mask = np.ones((9, 9), bool)
    mask[0, :] = False  # the first row is empty: every cell is forced by its column
    for seed in range(10):
        assert (solve(g * mask, mask, "most-constrained", np.random.default_rng(seed)) == g).all()


def test_empty_grid_greedy_and_random_break_rules_sometimes() -> None:
    mask = np.zeros((9, 9), bool)
    zeros = np.zeros((9, 9), np.uint8)
    l1 = [sudoku_l1(solve(zeros, mask, "random", np.random.default_rng(s))[None])[0] for s in range(30)]
    assert max(l1) > 0  # no backtracking: dead ends happen


def test_oracle_samples_are_read_exactly_by_the_evaluator(easy_small, tmp_path) -> None:
    ds = srm_bench.load_dataset(easy_small)
    grids, images = run_oracle(ds, "random", seed=0)
    again, _ = run_oracle(ds, "random", seed=0)
    np.testing.assert_array_equal(grids, again)
    from srm_bench.samples import write_samples

    path = write_samples(tmp_path / "o.h5", images, task="sudoku", split="easy", dataset_sha256=ds.content_sha256,
                         index=np.arange(ds.count), model={"name": "oracle-random", "provenance": "oracle"})
    res = srm_bench.evaluate(path, reference=easy_small, out=None)
    assert res["metrics"]["l1"]["value"] == pytest.approx(sudoku_l1(grids).mean())
    assert res["metrics"]["givens_kept"]["value"] == 1.0
    assert res["model"]["provenance"] == "oracle"


def test_oracle_cli(easy_small, tmp_path) -> None:
    runner = CliRunner()
    out = tmp_path / "g.h5"
    args = ["oracle", "sudoku", "--strategy", "most-constrained", "--split", "easy", "--reference", str(easy_small), "-o", str(out)]
    res = runner.invoke(cli, args)
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["evaluate", str(out), "--reference", str(easy_small), "--json", "--no-save"])
    assert res.exit_code == 0 and '"oracle-most-constrained"' in res.output
    again = runner.invoke(cli, args)
    assert again.exit_code != 0 and "exists" in str(again.exception or again.output)
