"""The repository stays small enough to travel to the GPU machine, and committed results compact."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TREE_LIMIT = 60 * 2**20  # the working tree is copied to the GPU machine, 64 MiB with what a lease carries


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / p for p in out.decode().split("\0") if p]


def test_the_tracked_tree_fits_the_device_budget() -> None:
    files = [p for p in tracked_files() if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    biggest = sorted(files, key=lambda p: p.stat().st_size)[-3:]
    assert total < TREE_LIMIT, (f"tracked tree is {total / 2**20:.1f} MiB (limit {TREE_LIMIT / 2**20:.0f} MiB); "
                                f"biggest: {[str(p.relative_to(REPO)) for p in biggest]}")


def test_committed_per_sample_files_are_compressed() -> None:
    """A plain per-sample CSV under leaderboard/results/ is ~4x its .gz: compress before committing."""
    plain = [p for p in tracked_files() if p.name.endswith(".per_sample.csv") and "leaderboard/results" in p.as_posix()]
    assert not plain, (f"{len(plain)} plain per-sample CSV(s), e.g. {plain[0].relative_to(REPO)}; "
                       "run python -m leaderboard.compress leaderboard/results")
