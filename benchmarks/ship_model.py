"""Ship a trained model, or replace a shipped one: copy its weights into ``baselines/weights/``,
pin their SHA-256 and rewrite its entry of ``models.json`` from the weights' own training record
and from result files scored with exactly these weights.

Every number of the entry is read, not typed: images, steps and GPU-hours from the record that
``srm-bench train`` wrote into the weights, and each measured row (split, sampler, NFE, eta,
accuracy and its 95% interval, Counting's consistency) from a result JSON whose
``model.training.checkpoint_sha256`` is the weights' hash. A result of other weights is an
error, so an entry cannot quote a number its weights did not score. Rows keep the order given.
``tests/test_pretrained.py`` then checks the entry against the results again.

    python benchmarks/ship_model.py srm-even-pixels runs/o-g16l.safetensors \\
        leaderboard/results/baselines/even-pixels-2026-11-29z/*.json \\
        --status "..." --card "NVIDIA H200 (...)"

``--status`` is required (a model's status says how it stands against its bar, in words that
change with the numbers); ``--card`` is kept from the old entry unless given, and required for a
new one and for weights that saw fewer images than the old entry's (another run, not its continuation). ``--dry-run`` prints the entry and changes nothing. The weights file keeps the old
entry's name (so the package's file list does not change) unless ``--file`` names another; an old
file of another name is removed. Files are written atomically (``srm_bench.io``).

``--partner RESULT.json ...`` records, beside the shipped model, a baseline whose weights do not
ship (the tree's size budget) but whose rows belong next to it, such as the DDPM of the same
recipe, network and images that a reproduction bar pairs with the SRM: one partner per weights
hash found in those results, with its name, baseline, preset and training budget read from them and
its rows built as the model's are. ``srm-bench models`` lists it and ``srm-bench leaderboard
--shipped`` keeps its rows. Without ``--partner`` the old entry's partners are kept;
``--no-partners`` drops them.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sys
from pathlib import Path

from srm_bench.baselines.presets import TrainConfig
from srm_bench.baselines.train import load_weights
from srm_bench.errors import SrmBenchError
from srm_bench.io import atomic_output, file_sha256, write_json_atomic

ROOT = Path(__file__).resolve().parents[1]


class ShipError(Exception):
    """One line for the user: what is wrong and how to fix it."""


def weights_record(path: Path) -> tuple[TrainConfig, dict]:
    """(config, training record) of a weights file, read by the package's own loader."""
    try:
        _, cfg, record = load_weights(path)
    except SrmBenchError as exc:
        raise ShipError(str(exc)) from None
    return cfg, record


def measured_row(result_path: Path, weights_sha: str) -> dict:
    """One ``measured`` row of the catalogue from a result JSON of these weights."""
    try:
        res = json.loads(result_path.read_text())
        model, metrics = res["model"], res["metrics"]
        got = model["training"]["checkpoint_sha256"]
        s = model["sampler"]
        acc = metrics["accuracy"]
    except FileNotFoundError:
        raise ShipError(f"{result_path}: no such result file") from None
    except (KeyError, TypeError, json.JSONDecodeError):
        raise ShipError(f"{result_path}: not an srm-bench result of a baseline (no model.training or "
                        "metrics.accuracy)") from None
    if got != weights_sha:
        raise ShipError(f"{result_path}: scored with weights {str(got)[:12]}..., not the shipped "
                        f"{weights_sha[:12]}...; pass only results of these weights")
    sampler = "parallel" if s["name"] == "parallel" else s["order"] + ("-entropy" if s.get("uncertainty") == "entropy" else "")
    row: dict = {"split": res["split"], "sampler": sampler}
    if s.get("overlap"):
        row["overlap"] = s["overlap"]
    row.update(nfe=s["steps"], eta=s["eta"], count=acc["n"], accuracy=round(acc["value"], 3),
               ci95=[round(x, 3) for x in acc["ci95"]])
    if "consistency" in metrics:
        con = metrics["consistency"]
        row.update(consistency=round(con["value"], 3), consistency_ci95=[round(x, 3) for x in con["ci95"]])
    if s.get("ramp"):
        row["ramp"] = s["ramp"]
    if s.get("seed", 0):
        row["seed"] = s["seed"]
    row["where"] = f"1x {s.get('device', 'unknown device')}"
    try:
        row["result"] = str(result_path.resolve().relative_to(ROOT))
    except ValueError:
        raise ShipError(f"{result_path}: outside the repository; commit the results under "
                        "leaderboard/results/baselines/ first") from None
    return row


def _result_model(path: Path) -> dict:
    try:
        return json.loads(path.read_text())["model"]
    except FileNotFoundError:
        raise ShipError(f"{path}: no such result file") from None
    except (KeyError, TypeError, json.JSONDecodeError):
        raise ShipError(f"{path}: not an srm-bench result of a baseline (no model)") from None


def build_partners(results: list[Path], weights_sha: str) -> list[dict]:
    """One catalogue partner per weights hash among ``results``: a baseline recorded by hash, not shipped."""
    models = {path: _result_model(path) for path in results}
    by_sha: dict[str, list[Path]] = {}
    for path, model in models.items():
        sha = model.get("training", {}).get("checkpoint_sha256")
        if not sha:
            raise ShipError(f"{path}: its model has no training.checkpoint_sha256; a partner is named by its weights")
        if sha == weights_sha:
            raise ShipError(f"{path}: scored with the shipped weights themselves; list it among the results, "
                            "not as a partner")
        by_sha.setdefault(sha, []).append(path)
    partners = []
    for sha, paths in by_sha.items():
        model = models[paths[0]]
        t = model["training"]
        for key in ("images", "gpu_hours", "baseline", "preset"):
            if key not in t:
                raise ShipError(f"{paths[0]}: its training record has no {key!r}; a partner states its budget")
        partners.append({"name": model.get("name", t["baseline"]), "baseline": t["baseline"], "preset": t["preset"],
                         "sha256": sha, "trained": {"images": t["images"], "gpu_hours": round(t["gpu_hours"], 3),
                                                    "card": t.get("device", "unknown device")},
                         "measured": [measured_row(p, sha) for p in paths]})
    return partners


def build_entry(name: str, weights: Path, results: list[Path], status: str, card: str | None,
                file: str | None, old: dict | None, date: str | None,
                partners: list[Path] | None = None) -> dict:
    """The catalogue entry; ``partners`` None keeps the old entry's, [] drops them. ``date`` None: the old
    entry's date when the weights are the same file (new results of old weights), else today."""
    cfg, record = weights_record(weights)
    if not results:
        raise ShipError("name at least one result file of these weights: a shipped model states what it scores")
    for key in ("images", "step", "gpu_hours"):
        if key not in record:
            raise ShipError(f"{weights}: its training record has no {key!r}; ship weights written by 'srm-bench train'")
    before = (old or {}).get("trained", {})
    if card is None and before.get("card") and record["images"] < before.get("images", 0):
        # fewer images than the shipped weights saw: not their continuation, so their card (the GPUs of another run)
        # would describe the wrong training
        raise ShipError(f"{weights}: trained on {record['images']:,} images, fewer than the shipped {name}'s "
                        f"{before['images']:,}, so not its continuation; give --card (the GPUs these weights trained on)")
    card = card or before.get("card")
    if not card:
        raise ShipError(f"{name} is a new entry: give --card (the GPUs it trained on, e.g. 'NVIDIA H200 (4 GPUs)')")
    digest = file_sha256(weights)
    if date is None:
        same = old is not None and old.get("sha256") == digest and before.get("date")
        date = before["date"] if same else dt.datetime.now(dt.timezone.utc).date().isoformat()
    rows = [measured_row(r, digest) for r in results]
    file = file or (old or {}).get("file") or f"{cfg.task}-{cfg.baseline}-{cfg.preset}.safetensors"
    entry = {"file": file, "sha256": digest, "task": cfg.task, "baseline": cfg.baseline,
             "preset": cfg.preset, "status": status,
             "trained": {"images": record["images"], "steps": record["step"],
                         "gpu_hours": round(record["gpu_hours"], 3), "card": card, "date": date},
             "measured": rows}
    kept = (old or {}).get("partners", []) if partners is None else build_partners(partners, digest)
    if kept:
        entry["partners"] = kept
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", help="the model's name in 'srm-bench models' (e.g. srm-even-pixels)")
    ap.add_argument("weights", type=Path, help="bf16 weights written by 'srm-bench train'")
    ap.add_argument("results", type=Path, nargs="*", help="result JSONs scored with these weights")
    ap.add_argument("--status", required=True, help="how the model stands against its bar, in words")
    ap.add_argument("--card", help="the GPUs it trained on (kept from the old entry if not given and the weights "
                                   "saw at least its images)")
    ap.add_argument("--file", help="file name under baselines/weights/ (default: the old entry's)")
    ap.add_argument("--date", help="the day the weights were shipped (default: the old entry's date when the weights "
                                   "are the same file, else today)")
    ap.add_argument("--weights-dir", type=Path, default=ROOT / "baselines" / "weights")
    ap.add_argument("--partner", type=Path, nargs="+", metavar="RESULT",
                    help="result JSONs of a baseline recorded beside this one but not shipped (e.g. the DDPM of the "
                         "same recipe); default: the old entry's partners")
    ap.add_argument("--no-partners", action="store_true", help="drop the old entry's partners")
    ap.add_argument("--dry-run", action="store_true", help="print the entry; change nothing")
    args = ap.parse_args(argv)
    catalogue_path = args.weights_dir / "models.json"
    try:
        if not catalogue_path.exists():
            raise ShipError(f"{catalogue_path}: no catalogue there; --weights-dir names the folder of models.json")
        models = json.loads(catalogue_path.read_text())
        old = models.get(args.name)
        if args.partner and args.no_partners:
            raise ShipError("--partner and --no-partners contradict each other; give one")
        partners = [] if args.no_partners else args.partner
        entry = build_entry(args.name, args.weights, args.results, args.status, args.card, args.file, old, args.date,
                            partners)
    except ShipError as exc:
        print(f"ship_model: {exc}", file=sys.stderr)
        return 1
    if args.dry_run:
        print(json.dumps({args.name: entry}, indent=2))
        return 0
    target = args.weights_dir / entry["file"]
    if args.weights.resolve() != target.resolve():
        with atomic_output(target) as tmp:
            shutil.copyfile(args.weights, tmp)
    if old and old["file"] != entry["file"] and not any(
            e["file"] == old["file"] for n, e in models.items() if n != args.name):
        (args.weights_dir / old["file"]).unlink(missing_ok=True)
    models[args.name] = entry
    write_json_atomic(catalogue_path, models)
    size = target.stat().st_size / 1e6
    print(f"{args.name}: {entry['file']} ({size:.1f} MB, sha256 {entry['sha256'][:12]}...), "
          f"{entry['trained']['images']:,} images, {len(entry['measured'])} measured rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
