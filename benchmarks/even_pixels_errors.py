"""How far off are the Even Pixels samples that fail? The share of a result's samples whose count is exact, one, two,
or three or more pixels off 512 (from its per-sample CSV), the mean error #E, and the mean error of the failed ones.

The paper gives accuracy and #E only; from those, its failed samples are off by #E / (1 - accuracy) on average (the
predicted-order row at overlap 0.95: 0.534 / 0.482 = 1.11 px), which this prints beside ours.

Usage: python benchmarks/even_pixels_errors.py RESULT.json... (each with its per-sample CSV, .csv or .csv.gz, beside it)
"""
from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
from pathlib import Path


def errors_of(result: Path) -> list[float]:
    """The per-sample count errors |count - 512| of one result file."""
    per = result.parent / json.loads(result.read_text())["per_sample_file"]
    for path in (per, per.with_name(per.name + ".gz")):
        if path.exists():
            text = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
            return [float(row["error"]) for row in csv.DictReader(io.StringIO(text))]
    raise SystemExit(f"{result}: its per-sample file {per.name} (or .gz) is missing")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path)
    args = ap.parse_args()
    loaded = []
    for path in args.results:  # every file checked before any line is printed
        res = json.loads(path.read_text())
        if res.get("task") != "even-pixels":
            raise SystemExit(f"{path}: not an Even Pixels result (task {res.get('task')!r})")
        loaded.append((res, errors_of(path)))
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
