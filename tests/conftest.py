"""Shared fixtures: an isolated cache directory and small generated Sudoku sets."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# The Ctrl-C tests (tests/test_integrity.py, tests/test_llm_track.py) send SIGINT to a CLI they start. A test run
# started as a background job of a shell without job control (`(make test &)`) inherits SIGINT ignored, its
# children inherit that through exec, and a Python started so never raises KeyboardInterrupt: those tests then hang
# until their timeouts (seen once, 2026-12-02). A handler here is reset to the default action in every child at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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
