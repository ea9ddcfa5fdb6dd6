"""Store committed per-sample CSVs gzip-compressed, to keep the repository (and the working tree
that travels to the GPU machine) small: ``python -m leaderboard.compress leaderboard/results``.

Each result JSON keeps its ``per_sample_file`` name and ``per_sample_sha256``; the CSV beside it
becomes ``<name>.gz`` and readers (``srm-bench leaderboard``, ``plot samples``, the site) find it
there. The hash is of the CSV text, so it checks the compressed file as it did the plain one. A
CSV whose hash does not match its result is left alone (the leaderboard reports it).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from srm_bench.errors import SrmBenchError
from srm_bench.results import compress_per_sample, per_sample_path


def compress_tree(roots: list[Path]) -> tuple[int, int, int, list[str]]:
    """Compress the per-sample CSV of every result JSON under ``roots``. Returns (files
    compressed, bytes before, bytes after, problems)."""
    done = before = after = 0
    problems: list[str] = []
    for root in roots:
        if not root.is_dir():
            raise SrmBenchError(f"{root}: not a directory; pass folders of result JSONs")
        for js in sorted(root.rglob("*.json")):
            try:
                res = json.loads(js.read_text())
            except (OSError, ValueError):
                continue  # not a result; the leaderboard says so when it loads it
            name = res.get("per_sample_file") if isinstance(res, dict) else None
            if not isinstance(name, str) or Path(name).name != name:
                continue
            csv = per_sample_path(js.parent, name)
            if csv is None or csv.name != name:
                continue  # missing, or already compressed
            size = csv.stat().st_size
            try:
                packed = compress_per_sample(csv, res.get("per_sample_sha256"))
            except SrmBenchError as exc:
                problems.append(f"{exc} ({js.name})")
                continue
            done, before, after = done + 1, before + size, after + packed.stat().st_size
    return done, before, after, problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+", type=Path, help="folders of result JSONs (searched recursively)")
    a = ap.parse_args(argv)
    try:
        done, before, after, problems = compress_tree(a.roots)
    except SrmBenchError as exc:
        print(f"error: {exc}")
        return 1
    for p in problems:
        print(f"warning: {p}")
    print(f"compressed {done} per-sample file(s): {before / 1e6:.2f} MB -> {after / 1e6:.2f} MB")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
