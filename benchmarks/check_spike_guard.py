"""Replays committed training logs through `train --spike-guard`'s rule and prints what it would do.

Usage:
    python benchmarks/check_spike_guard.py [--factor 2.0] [LOG ...]

Without LOG it reads every training log committed under docs/runs (loose, and inside
docs/runs-archive.tar.gz, where finished sessions' logs are packed) and leaderboard/results
(``*log*.csv`` and ``*log*.csv.gz`` with a ``loss`` column). For each log
it prints the largest ratio of a logged loss to the median of the up to 20 logged losses before
it (from the 10th log on, the guard's warm-up) and the first step at which
:class:`srm_bench.baselines.train.SpikeGuard` at ``--factor`` would stop the run. A log is read
as one process (a run resumed across calls starts a new window in training, so the guard is a
little stricter here than there). The summary line counts the logs and the ones it stops.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import gzip
import io
import tarfile
from pathlib import Path

from srm_bench.baselines.train import SpikeGuard

REPO = Path(__file__).resolve().parents[1]


ARCHIVE = REPO / "docs/runs-archive.tar.gz"  # members named runs/..., as under docs/ once unpacked


def is_log(name: str) -> bool:
    return fnmatch.fnmatch(Path(name).name, "*log*.csv*") and name.endswith((".csv", ".csv.gz"))


def committed_logs() -> list[tuple[str, bytes]]:
    """(name, raw bytes) of every committed training log: loose files, then the archive's members."""
    found = {}
    for root in (REPO / "docs/runs", REPO / "leaderboard/results"):
        found.update((str(p.relative_to(REPO)), p.read_bytes()) for p in root.glob("**/*") if is_log(p.name))
    if ARCHIVE.exists():
        with tarfile.open(ARCHIVE) as tar:
            for m in tar.getmembers():
                if m.isfile() and is_log(m.name):
                    found[f"docs/{m.name}"] = tar.extractfile(m).read()
    return sorted(found.items())


def losses(name: str, raw: bytes) -> list[tuple[str, float]]:
    text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    out = []
    for row in rows:
        try:
            out.append((row["step"], float(row["loss"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("logs", nargs="*", type=Path)
    ap.add_argument("--factor", type=float, default=2.0)
    args = ap.parse_args()
    missing = [str(p) for p in args.logs if not p.is_file()]
    if missing:
        raise SystemExit(f"check_spike_guard: no such log: {', '.join(missing)}")
    logs = [(str(p), p.read_bytes()) for p in args.logs] or committed_logs()
    read = stopped = 0
    for name, raw in logs:
        series = losses(name, raw)
        if not series:
            continue
        read += 1
        guard, ratio = SpikeGuard(args.factor), SpikeGuard(0.0)  # the rule, and a window to measure against
        worst, stop = (0.0, ""), ""
        for step, loss in series:
            if len(ratio.losses) >= guard.warm and ratio.median() > 0:
                worst = max(worst, (loss / ratio.median(), step))
            ratio.losses.append(loss)
            if not stop and guard.spiked(loss):
                stop = step
        stopped += bool(stop)
        print(f"{worst[0]:6.2f}x at step {worst[1] or '-':>7}  stops at {stop or '-':>7}  {name}")
    print(f"{read} logs read, {stopped} stopped at factor {args.factor}")


if __name__ == "__main__":
    main()
