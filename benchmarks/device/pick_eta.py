"""The eta race's decision (lease 2026-12-02a), fixed before its rows were drawn.

Reads the result JSONs of one model in a results folder, pools each (eta, order) over seeds 0 and 1
(overlap 0.95, 1000 NFE) and tests every eta against the control counts given on the command line
(two-sided Fisher exact, as `srm-bench compare` does). An eta lifts when either order beats its control
at p < ALPHA; of the etas that lift, the one with the most correct samples over both orders is printed.
Prints nothing (and exits 0) when none lifts; the table of every eta goes to stderr.

Usage: python benchmarks/device/pick_eta.py RESULTS NAME --control predicted=358/1000 random=385/1000
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import sys

from scipy import stats


def pooled(results: pathlib.Path, name: str) -> dict[tuple[float, str], list[int]]:
    """(eta, order) -> [correct, n] over seeds 0-1 of NAME's rows at overlap 0.95, 1000 NFE."""
    out: dict[tuple[float, str], list[int]] = collections.defaultdict(lambda: [0, 0])
    for path in sorted(results.glob("*.json")):
        row = json.loads(path.read_text())
        model = row.get("model", {})
        s = model.get("sampler", {})
        if model.get("name") != name or s.get("name") != "sequential" or s.get("overlap") != 0.95:
            continue
        if s.get("steps") != 1000 or s.get("seed") not in (0, 1):
            continue
        acc = row["metrics"]["accuracy"]
        key = (float(s["eta"]), s["order"])
        out[key][0] += round(acc["value"] * acc["n"])
        out[key][1] += acc["n"]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", type=pathlib.Path)
    p.add_argument("name")
    p.add_argument("--control", nargs="+", required=True, help="ORDER=K/N, e.g. predicted=358/1000")
    p.add_argument("--alpha", type=float, default=0.05 / 3)
    a = p.parse_args(argv)
    control = {}
    for c in a.control:
        order, kn = c.split("=")
        k, n = kn.split("/")
        control[order] = (int(k), int(n))
    best, best_total = None, -1
    rows = pooled(a.results, a.name)
    for eta in sorted({e for e, _ in rows}):
        lifts, total = False, 0
        for order, (kc, nc) in control.items():
            k, n = rows.get((eta, order), [0, 0])
            total += k
            if n == 0:
                print(f"eta {eta:g} {order}: no rows", file=sys.stderr)
                continue
            pv = stats.fisher_exact([[k, n - k], [kc, nc - kc]]).pvalue
            up = k / n > kc / nc and pv < a.alpha
            lifts |= up
            print(f"eta {eta:g} {order}: {k}/{n} = {k / n:.3f} vs {kc}/{nc} = {kc / nc:.3f}, p {pv:.3g}"
                  f"{' (lifts)' if up else ''}", file=sys.stderr)
        if lifts and total > best_total:
            best, best_total = eta, total
    if best is not None:
        print(f"{best:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
