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


def test_a_side_pools_the_seeds_of_one_configuration(tmp_path):
    """Several files a side (sampling seeds) count as one pool of samples: Fisher on the pooled counts, the pool's
    own figure and interval; results of another configuration, or one draw twice, are refused."""
    from scipy import stats

    from srm_bench.stats import wilson_interval

    kw = dict(task="even-pixels", split="test")
    seeds = [{"name": "sequential", "order": "predicted", "overlap": 0.95, "steps": 1000, "eta": 1.0, "seed": s}
             for s in (0, 1)]
    a = [scored(tmp_path, f"a{s}", np.arange(50) < k, sampler=seeds[s], **kw) for s, k in ((0, 20), (1, 30))]
    b = [scored(tmp_path, f"b{s}", np.arange(50) < k, sampler=seeds[s], **kw) for s, k in ((0, 15), (1, 10))]
    c = compare_results(a, b)
    assert (c["n_a"], c["n_b"]) == (100, 100) and c["a"]["n"] == 100
    assert c["p_value"] == pytest.approx(stats.fisher_exact([[50, 50], [25, 75]]).pvalue)
    assert c["a"]["value"] == 0.5 and c["a"]["ci95"] == pytest.approx(list(wilson_interval(50, 100)))
    assert c["b"]["files"] == [str(p) for p in b] and c["difference"] == pytest.approx(0.25)
    assert "2 files pooled" in format_comparison(c)
    assert compare_results(a[:1], b[:1])["n_a"] == 50  # one file a side: as before
    fewer = scored(tmp_path, "c", np.arange(50) < 5, sampler={**seeds[1], "steps": 100}, **kw)
    with pytest.raises(SrmBenchError, match="differ in model, weights or sampler settings"):
        compare_results([a[0], fewer], b)
    with pytest.raises(SrmBenchError, match="hold the same samples"):
        compare_results([a[0], a[0]], b)


def test_pooled_puzzle_results_are_paired_file_by_file(tmp_path):
    """Sudoku results of two seeds a side: A's seed-0 file pairs with B's seed-0 file on their puzzles, and so on;
    the discordant puzzles of both pairs decide. Unequal file counts are refused."""
    seeds = [{"name": "sequential", "order": "predicted", "overlap": 0.0, "steps": 1000, "eta": 1.0, "seed": s}
             for s in (0, 1)]
    a0, b0 = np.arange(40) < 10, np.arange(40) < 4       # A alone solves 6
    a1, b1 = np.arange(40) < 5, np.arange(40) < 8        # B alone solves 3
    perm = np.random.default_rng(1).permutation(40)
    a = [scored(tmp_path, "a0", a0, sampler=seeds[0]), scored(tmp_path, "a1", a1, sampler=seeds[1])]
    b = [scored(tmp_path, "b0", b0, sampler=seeds[0]), scored(tmp_path, "b1", b1[perm], puzzles=perm, sampler=seeds[1])]
    c = compare_results(a, b)
    assert c["paired"] and c["pairs"] == 80 and (c["a_only"], c["b_only"]) == (6, 3)
    assert c["p_value"] == pytest.approx(sign_test_p(6, 3))
    assert "puzzles (those of every pooled file)" in format_comparison(c)
    with pytest.raises(SrmBenchError, match="paired file by file"):
        compare_results(a, b[:1])


def test_cli_pools_with_a_and_b_options(tmp_path):
    kw = dict(task="even-pixels", split="test")
    seeds = [{"name": "parallel", "steps": 1000, "eta": 1.0, "seed": s} for s in (0, 1)]
    a = [scored(tmp_path, f"a{s}", np.arange(20) < 10, sampler=seeds[s], **kw) for s in (0, 1)]
    b = [scored(tmp_path, f"b{s}", np.arange(20) < 2, sampler=seeds[s], **kw) for s in (0, 1)]
    cli = [sys.executable, "-m", "srm_bench.cli", "compare"]
    out = subprocess.run(cli + ["-a", str(a[0]), "-a", str(a[1]), "-b", str(b[0]), "-b", str(b[1]), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (json.loads(out.stdout)["n_a"], json.loads(out.stdout)["a"]["value"]) == (40, 0.5)
    for args in ([str(a[0]), str(b[0]), "-a", str(a[1])], [str(a[0]), str(a[1]), str(b[0])], ["-a", str(a[0])]):
        bad = subprocess.run(cli + args, capture_output=True, text=True)
        assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1, (args, bad.stderr)
