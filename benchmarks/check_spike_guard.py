"""Replays committed training logs through `train --spike-guard`'s rule and prints what it would do.

Usage:
    python benchmarks/check_spike_guard.py [--factor 2.0] [LOG ...]

Without LOG it reads every training log committed under docs/runs and leaderboard/results
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
import gzip
import io
from pathlib import Path

from srm_bench.baselines.train import SpikeGuard

REPO = Path(__file__).resolve().parents[1]


def committed_logs() -> list[Path]:
    found = set()
    for root in (REPO / "docs/runs", REPO / "leaderboard/results"):
        found.update(p for p in root.glob("**/*log*.csv*") if p.name.endswith((".csv", ".csv.gz")))
    return sorted(found)


def losses(path: Path) -> list[tuple[str, float]]:
    text = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
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
    logs = args.logs or committed_logs()
    read = stopped = 0
    for path in logs:
        series = losses(path)
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
        name = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        print(f"{worst[0]:6.2f}x at step {worst[1] or '-':>7}  stops at {stop or '-':>7}  {name}")
    print(f"{read} logs read, {stopped} stopped at factor {args.factor}")


if __name__ == "__main__":
    main()
