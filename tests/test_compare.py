"""`srm-bench compare`: paired tests on the same puzzles, unpaired ones otherwise, and refusals."""
from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from srm_bench.errors import SrmBenchError
from srm_bench.leaderboard.compare import compare_results, format_comparison
from srm_bench.results import mean_metric, rate_metric

from test_leaderboard import make_result


def scored(d: Path, name: str, solved, l1=None, *, task: str = "sudoku", split: str = "hard", puzzles=None,
           **kw) -> Path:
    """A result and its per-sample CSV (with its hash) as `srm-bench evaluate` writes them."""
    solved = np.asarray(solved, dtype=bool)
    n = solved.size
    l1 = np.where(solved, 0.0, 4.0) if l1 is None else np.asarray(l1, dtype=float)
    puzzles = np.arange(n) if puzzles is None else np.asarray(puzzles)
    metrics = {"accuracy": rate_metric(solved), "l1": mean_metric(l1, higher_is_better=False)}
    res = make_result(task=task, split=split, n=n, metrics=metrics, samples_sha=hashlib.sha256(name.encode()).hexdigest(),
                      **kw)
    frame = pd.DataFrame({"sample": np.arange(n), "puzzle": puzzles, "accuracy": solved, "l1": l1})  # rows as given
    d.mkdir(parents=True, exist_ok=True)
    csv = frame.to_csv(index=False, float_format="%.6g").encode()
    (d / f"{name}.per_sample.csv").write_bytes(csv)
    res["per_sample_file"] = f"{name}.per_sample.csv"
    res["per_sample_sha256"] = hashlib.sha256(csv).hexdigest()
    (d / f"{name}.json").write_text(json.dumps(res))
    return d / f"{name}.json"


def sign_test_p(a_only: int, b_only: int) -> float:
    """Two-sided exact binomial test at 1/2, by hand."""
    n, k = a_only + b_only, min(a_only, b_only)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def test_paired_accuracy_counts_the_puzzles_only_one_solves(tmp_path):
    a = np.zeros(100, bool)
    b = np.zeros(100, bool)
    a[:30] = True            # both solve 0-19, A alone 20-29 ...
    b[:20] = True
    b[30:32] = True          # ... and B alone 30-31
    c = compare_results(scored(tmp_path, "a", a), scored(tmp_path, "b", b))
    assert c["paired"] and (c["a_only"], c["b_only"], c["both"], c["neither"]) == (10, 2, 20, 68)
    assert c["difference"] == pytest.approx(0.08)
    assert c["p_value"] == pytest.approx(sign_test_p(10, 2)) and c["p_value"] == pytest.approx(158 / 4096)
    lo, hi = c["ci95"]
    assert lo < 0.08 < hi and lo > 0  # 10 wins against 2 on 100 puzzles: A is ahead
    text = format_comparison(c)
    assert "A only 10, B only 2, both 20, neither 68" in text and "p = 0.0386" in text


def test_pairs_by_puzzle_not_by_row(tmp_path):
    """Two results whose samples came in different orders are paired by the puzzle each answers."""
    rng = np.random.default_rng(0)
    solved = rng.random(200) < 0.5
    perm = rng.permutation(200)
    a = scored(tmp_path / "x", "a", solved)
    b = scored(tmp_path / "y", "b", solved[perm], puzzles=perm)  # the same verdicts, listed in another order
    c = compare_results(a, b)
    assert (c["a_only"], c["b_only"]) == (0, 0) and c["p_value"] == 1.0 and c["difference"] == 0.0


def test_paired_mean_uses_per_puzzle_differences(tmp_path):
    l1_a = np.full(60, 2.0)
    l1_b = l1_a + np.r_[np.ones(50), -np.ones(5), np.zeros(5)]  # B worse on 50 puzzles, better on 5
    solved = np.zeros(60, bool)
    c = compare_results(scored(tmp_path, "a", solved, l1_a), scored(tmp_path, "b", solved, l1_b), metric="l1")
    assert c["paired"] and (c["a_better"], c["b_better"], c["ties"]) == (5, 50, 5)  # "better": the larger value
    assert c["difference"] == pytest.approx(-45 / 60)
    assert c["ci95"][1] < 0 and c["p_value"] < 1e-6
    assert not c["higher_is_better"]


def test_unconditional_tasks_are_compared_unpaired(tmp_path):
    """Even Pixels samples are independent draws: Fisher's exact test, whatever index the rows carry."""
    a, b = np.zeros(20, bool), np.zeros(20, bool)
    a[:10], b[:2] = True, True
    kw = dict(task="even-pixels", split="test")
    c = compare_results(scored(tmp_path, "a", a, **kw), scored(tmp_path, "b", b, **kw))
    assert not c["paired"] and c["test"] == "Fisher's exact test"
    # two-sided Fisher by hand: tables with 12 successes over 20 + 20, as or less likely than 10 / 2
    def prob(k: int) -> float:
        return math.comb(20, k) * math.comb(20, 12 - k) / math.comb(40, 12)
    want = sum(prob(k) for k in range(13) if prob(k) <= prob(10) * (1 + 1e-7))
    assert c["p_value"] == pytest.approx(want)
    assert c["ci95"][0] < 0.4 < c["ci95"][1] and "unpaired (20 and 20 independent samples)" in format_comparison(c)


@pytest.mark.parametrize("change, message", [
    (dict(split="medium"), "different splits"),
    (dict(evaluator_version=2), "different evaluators"),
    (dict(dataset_sha="cd" * 32), "different datasets"),
])
def test_different_benchmarks_are_refused(tmp_path, change, message):
    a = scored(tmp_path, "a", np.ones(10, bool))
    b = scored(tmp_path, "b", np.ones(10, bool), **change)
    with pytest.raises(SrmBenchError, match=message):
        compare_results(a, b)


def test_bad_inputs_are_refused_with_one_line(tmp_path):
    a = scored(tmp_path, "a", np.ones(10, bool))
    other = scored(tmp_path, "b", np.ones(10, bool), puzzles=np.arange(5, 15))
    with pytest.raises(SrmBenchError, match="score different puzzles .* 5 in common"):
        compare_results(a, other)
    with pytest.raises(SrmBenchError, match="has no metric 'error'"):
        compare_results(a, a, metric="error")
    (tmp_path / "b.per_sample.csv").unlink()
    with pytest.raises(SrmBenchError, match="is missing"):
        compare_results(a, other)
    forged = json.loads(a.read_text())
    forged["metrics"]["accuracy"]["value"] = 0.5  # the CSV says 1.0
    (tmp_path / "f.json").write_text(json.dumps(forged))
    with pytest.raises(SrmBenchError, match="gives 1"):
        compare_results(a, tmp_path / "f.json")


def test_cli_prints_text_or_json_and_exits_1_on_errors(tmp_path):
    a = scored(tmp_path, "a", np.r_[np.ones(8, bool), np.zeros(2, bool)])
    b = scored(tmp_path, "b", np.r_[np.ones(5, bool), np.zeros(5, bool)])
    run = [sys.executable, "-m", "srm_bench.cli", "compare", str(a), str(b)]
    out = subprocess.run(run + ["--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    c = json.loads(out.stdout)
    assert (c["a_only"], c["b_only"], c["metric"]) == (3, 0, "accuracy")
    bad = subprocess.run(run[:-1] + [str(tmp_path / "nowhere.json")], capture_output=True, text=True)
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "nowhere.json" in bad.stderr
