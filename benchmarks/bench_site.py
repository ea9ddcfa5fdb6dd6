"""Time ``srm-bench leaderboard --site`` over the packaged paper figures and the committed results
(target: under 10 s), in-process and as a fresh CLI process, as a user would run it.

Usage: python benchmarks/bench_site.py
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from srm_bench.leaderboard.site import build_site
from srm_bench.leaderboard.store import default_dirs


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        counts = build_site(Path(tmp) / "site", default_dirs())
        t1 = time.perf_counter()
        files = sorted(p for p in (Path(tmp) / "site").rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in files)
        print(f"in-process build: {t1 - t0:.2f} s ({counts['pages']} pages, {counts['rows']} rows, "
              f"{len(files)} files, {size / 1e6:.1f} MB)")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "srm_bench.cli", "leaderboard", "--site", str(Path(tmp) / "cli")],
                       check=True, capture_output=True)
        print(f"CLI (fresh process): {time.perf_counter() - t0:.2f} s (target: under 10 s)")


if __name__ == "__main__":
    main()
