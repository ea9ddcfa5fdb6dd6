"""The baselines shipped with the package: ``srm-bench models`` lists them and
``srm-bench sample --pretrained NAME`` samples one.

``weights/models.json`` is the catalogue: per model its file (bf16 safetensors with the
training config and record as metadata), SHA-256 pin, task, preset, status, training budget
and the accuracies measured so far with where they were measured (a row's ``overlap`` and ``ramp``,
where present, are the sequential sampler's; its ``seed``, where present, the sampling seed, else
0; Counting rows also carry ``consistency`` and its ``consistency_ci95``). An entry's ``partners``
are baselines recorded beside it by their weights' hash but not shipped (e.g. the DDPM of the same
recipe that a reproduction bar pairs with the SRM), each with its training budget and measured
rows. The pin is checked every time a model is loaded. Torch-free, so that ``srm-bench models`` is
instant.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from srm_bench.errors import SrmBenchError

WEIGHTS_DIR = Path(__file__).with_name("weights")
CATALOGUE = WEIGHTS_DIR / "models.json"


def catalogue() -> dict[str, dict[str, Any]]:
    """Name -> entry of every shipped model."""
    with open(CATALOGUE) as f:
        return json.load(f)


def pretrained_path(name: str) -> Path:
    """The checked weights file of a shipped model.

    Raises:
        SrmBenchError: unknown name (the valid ones listed), or the file is missing.
        ChecksumError: the file differs from its SHA-256 pin.
    """
    from srm_bench.io import check_pinned_file

    models = catalogue()
    if name not in models:
        raise SrmBenchError(f"no shipped model {name!r}; valid: {', '.join(sorted(models))} (see 'srm-bench models')")
    entry = models[name]
    path = WEIGHTS_DIR / entry["file"]
    if not path.exists():
        raise SrmBenchError(f"{path}: the weights of {name} are missing; reinstall srm-bench")
    check_pinned_file(path, entry["sha256"])
    return path


_SPLITS = ("easy", "medium", "hard", "test")


def _row_order(m: dict[str, Any]) -> tuple[Any, ...]:
    """A measured row's place in the listing: by split, sampler (parallel first), overlap, budget, then seed."""
    split = _SPLITS.index(m["split"]) if m.get("split") in _SPLITS else len(_SPLITS)
    return (split, m.get("split", ""), m.get("sampler") != "parallel", m.get("sampler", ""), m.get("overlap", 0.0),
            -m.get("nfe", 0), -m.get("eta", 0.0), m.get("ramp", ""), m.get("seed", 0))


def describe(name: str, entry: dict[str, Any]) -> list[str]:
    """Lines of ``srm-bench models`` for one model."""
    size = (WEIGHTS_DIR / entry["file"]).stat().st_size / 1e6 if (WEIGHTS_DIR / entry["file"]).exists() else float("nan")
    t = entry.get("trained", {})
    lines = [f"{name}: {entry['baseline']} on {entry['task']}, preset {entry['preset']}, {size:.1f} MB, "
             f"sha256 {entry['sha256'][:12]}...",
             f"  trained: {t.get('images', 0):,} images, {t.get('gpu_hours', 0)} GPU-hours on {t.get('card', '?')}",
             f"  status: {entry.get('status', '')}"]
    lines += _rows(entry.get("measured", []), "  ")
    for p in entry.get("partners", []):
        pt = p["trained"]
        lines.append(f"  partner, not shipped (recorded by hash): {p['name']}: {p['baseline']}, preset {p['preset']}, "
                     f"sha256 {p['sha256'][:12]}..., {pt['images']:,} images, {pt['gpu_hours']} GPU-hours on "
                     f"{pt['card']}")
        lines += _rows(p.get("measured", []), "    ")
    return lines


def _rows(measured: list[dict[str, Any]], indent: str) -> list[str]:
    lines = []
    for m in sorted(measured, key=_row_order):
        ci = f" [{m['ci95'][0]:.3f}, {m['ci95'][1]:.3f}]" if m.get("ci95") else ""
        sampler = (m["sampler"] + (f" +overlap {m['overlap']:g}" if m.get("overlap") else "")
                   + (f" ({m['ramp']} ramp)" if m.get("ramp") else "") + (f", seed {m['seed']}" if m.get("seed") else ""))
        con = ""
        if "consistency" in m:
            con = f", consistency {m['consistency']:.3f}"
            con += f" [{m['consistency_ci95'][0]:.3f}, {m['consistency_ci95'][1]:.3f}]" if m.get("consistency_ci95") else ""
        lines.append(f"{indent}{m['split']:6s} {sampler:35s} {m['nfe']:4d} NFE eta {m['eta']:g}: "
                     f"accuracy {m['accuracy']:.3f}{ci}{con} on {m['count']} "
                     f"({m['where']}{', ' + m['result'] if m.get('result') else ''})")
    return lines
