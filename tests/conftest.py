"""Shared fixtures: an isolated cache directory and small generated Sudoku sets."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Canonical sets regenerate into a per-session temp cache, never the user's."""
    monkeypatch.setenv("SRM_BENCH_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def hard_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The canonical hard Sudoku split (500 puzzles with images)."""
    import srm_bench

    return srm_bench.generate("sudoku", "hard", out=tmp_path_factory.mktemp("hard") / "hard", progress=False)


@pytest.fixture(scope="session")
def easy_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60 easy puzzles (not canonical: n differs)."""
    import srm_bench

    return srm_bench.generate("sudoku", "easy", n=60, out=tmp_path_factory.mktemp("easy") / "easy", progress=False)
