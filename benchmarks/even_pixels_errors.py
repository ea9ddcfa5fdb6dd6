"""How far off are the Even Pixels samples that fail? The share of a result's samples whose count is exact, one, two,
or three or more pixels off 512 (from its per-sample CSV), the mean error #E, and the mean error of the failed ones.

The paper gives accuracy and #E only; from those, its failed samples are off by #E / (1 - accuracy) on average (the
predicted-order row at overlap 0.95: 0.534 / 0.482 = 1.11 px), which this prints beside ours.

Usage: python benchmarks/even_pixels_errors.py RESULT.json... (each with its per-sample CSV, .csv or .csv.gz, beside it)
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from srm_bench.errors import SrmBenchError
from srm_bench.leaderboard.store import check_per_sample


def errors_of(res: dict, result: Path) -> list[float]:
    """The per-sample count errors |count - 512| of one result file, from its per-sample CSV as the leaderboard
    reads it (.csv or .csv.gz, its hash and its metrics checked against the JSON)."""
    try:
        frame = check_per_sample(res, str(result), result)
    except SrmBenchError as exc:
        raise SystemExit(str(exc)) from None
    if frame is None:
        raise SystemExit(f"{result}: written without a per-sample file")
    return [float(e) for e in frame["error"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path)
    args = ap.parse_args()
    loaded = []
    for path in args.results:  # every file checked before any line is printed
        res = json.loads(path.read_text())
        if res.get("task") != "even-pixels":
            raise SystemExit(f"{path}: not an Even Pixels result (task {res.get('task')!r})")
        loaded.append((res, errors_of(res, path)))
    print("model | sampler | seed | n | exact | off 1 | off 2 | off 3+ | #E | #E of the failed")
    for res, errs in loaded:
        n = len(errs)
        failed = [e for e in errs if e > 0]
        share = [sum(1 for e in errs if e == k) / n for k in (0, 1, 2)] + [sum(1 for e in errs if e >= 3) / n]
        s = res["model"]["sampler"]
        sampler = f"{s.get('order') or s['name']} + overlap {s.get('overlap', 0):g}"
        print(f"{res['model']['name']} | {sampler} | {s.get('seed')} | {n} | "
              + " | ".join(f"{x:.3f}" for x in share)
              + f" | {sum(errs) / n:.2f} | {sum(failed) / max(1, len(failed)):.2f}")


if __name__ == "__main__":
    main()
