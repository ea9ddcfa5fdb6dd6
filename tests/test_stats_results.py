"""Confidence intervals and the result schema."""
from __future__ import annotations


import numpy as np
import pytest

from srm_bench.errors import SrmBenchError
from srm_bench.results import rate_metric, validate_result
from srm_bench.stats import mean_interval, wilson_interval


def test_wilson_matches_closed_form() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.40383, abs=1e-4) and hi == pytest.approx(0.59617, abs=1e-4)
    lo, hi = wilson_interval(0, 500)
    assert lo == 0.0 and hi == pytest.approx(1.96**2 / (500 + 1.96**2), rel=1e-3)
    lo, hi = wilson_interval(500, 500)
    assert hi == 1.0 and 0.99 < lo < 1.0


def test_mean_interval() -> None:
    v = np.array([0.0, 2.0, 4.0, 6.0])
    lo, hi = mean_interval(v)
    half = 1.959963984540054 * np.std(v, ddof=1) / 2
    assert (lo, hi) == pytest.approx((3 - half, 3 + half))
    assert mean_interval(np.array([5.0])) == (5.0, 5.0)


def test_rate_metric() -> None:
    m = rate_metric(np.array([True, False, True, True]))
    assert m["value"] == 0.75 and m["n"] == 4 and m["kind"] == "rate"
    assert m["ci95"][0] < 0.75 < m["ci95"][1]


def _result() -> dict:
    return {"schema": "srm-bench/result", "schema_version": 1, "task": "sudoku", "split": "hard",
            "model": {"name": "m", "provenance": "user"},
            "metrics": {"accuracy": {"value": 0.5, "ci95": [0.4, 0.6], "n": 100, "kind": "rate", "higher_is_better": True}}}


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r.update(schema="other"), "not an srm-bench result"),
    (lambda r: r.update(schema_version=99), "newer"),
    (lambda r: r.pop("metrics"), "missing 'metrics'"),
    (lambda r: r["model"].update(provenance="made-up"), "provenance"),
    (lambda r: r["metrics"]["accuracy"].update(value="high"), "numeric"),
    (lambda r: r["metrics"]["accuracy"].update(ci95=[0.1]), "ci95"),
])
def test_validate_result_rejects(mutate, message) -> None:
    r = _result()
    validate_result(r)
    mutate(r)
    with pytest.raises(SrmBenchError, match=message):
        validate_result(r)


def test_git_revision_says_when_the_tree_differs(tmp_path) -> None:
    import shutil
    import subprocess

    from srm_bench.results import git_revision

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    run = lambda *a: subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (tmp_path / "f.txt").write_text("a\n")
    run("add", "f.txt")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert git_revision(tmp_path) == head
    (tmp_path / "f.txt").write_text("b\n")  # a copied tree whose code moved on from its HEAD
    assert git_revision(tmp_path) == head + "+dirty"
    assert git_revision(tmp_path / "nope") is None
