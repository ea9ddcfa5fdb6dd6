"""`srm-bench reproduce RESULT.json`: sample a baseline's result file again and compare hashes.

A baseline result (``srm-bench sample`` then ``srm-bench evaluate``) records everything needed
to draw its samples again: the weights' SHA-256, every sampler knob, the seed, the split and
the sample count, and the hash of the pixels it scored. This module finds the weights (a
shipped model with that hash, or a file the user names), samples with the recorded knobs and
compares the new hash with the recorded one. Per-sample seeds make the pixels independent of
the batching, but GPU kernels differ between card types (and from the CPU), so bit-for-bit
agreement is only expected on the device type the result names.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from srm_bench.errors import SrmBenchError


@dataclass(frozen=True)
class Reproduction:
    """The outcome: whether the hashes agree, both hashes and both devices."""

    same: bool
    recorded_sha256: str
    sha256: str
    recorded_device: str | None
    device: str
    samples: Path | None


def _field(obj: Any, *keys: str, where: str) -> Any:
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            raise SrmBenchError(f"{where}: no {'.'.join(keys)}; only result files of 'srm-bench evaluate' on "
                                "samples of 'srm-bench sample' can be reproduced")
        obj = obj[k]
    return obj


def find_weights(sha256: str, checkpoint: str | Path | None, where: str) -> Path:
    """The weights file with this SHA-256: ``checkpoint`` (checked), else the shipped model pinned to it.

    Raises:
        SrmBenchError: the named file has another hash, or no shipped model has this one.
    """
    from srm_bench.io import file_sha256

    from .pretrained import catalogue, pretrained_path

    if checkpoint is not None:
        got = file_sha256(checkpoint)
        if got != sha256:
            raise SrmBenchError(f"{checkpoint}: sha256 {got[:12]}... is not the {sha256[:12]}... that {where} was "
                                "sampled from; pass that checkpoint")
        return Path(checkpoint)
    for name, entry in catalogue().items():
        if entry.get("sha256") == sha256:
            return pretrained_path(name)
    raise SrmBenchError(f"{where}: was sampled from weights with sha256 {sha256[:12]}..., which no shipped model has "
                        "('srm-bench models' lists them); pass the file with --checkpoint")


def reproduce(result_path: str | Path, *, checkpoint: str | Path | None = None, device: str | None = None,
              batch_size: int | None = None, out: str | Path | None = None, progress: bool = False) -> Reproduction:
    """Sample ``result_path``'s configuration again and hash the pixels.

    Args:
        checkpoint: the weights file (default: the shipped model whose pin is the recorded hash).
        device: cuda or cpu (default: cuda if available).
        batch_size: samples per batch (default: the recorded one, else all at once).
        out: keep the new samples file here (refused if it exists).

    Raises:
        SrmBenchError: not a baseline result, weights not found, another puzzle set.
    """
    import h5py
    import torch

    from srm_bench.evaluation import samples_sha256

    from .inference import sample_checkpoint
    from .schedules import SamplerConfig

    where = str(result_path)
    try:
        res = json.loads(Path(result_path).read_text())
    except FileNotFoundError:
        raise SrmBenchError(f"{where}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SrmBenchError(f"{where}: not a result JSON ({e})") from None
    if _field(res, "model", "provenance", where=where) != "baseline":
        raise SrmBenchError(f"{where}: is not a baseline result (provenance {res['model']['provenance']!r}); only "
                            "samples drawn by 'srm-bench sample' can be drawn again")
    weights_sha = _field(res, "model", "training", "checkpoint_sha256", where=where)
    want = _field(res, "samples", "sha256", where=where)
    count = int(_field(res, "samples", "count", where=where))
    s = _field(res, "model", "sampler", where=where)
    if out is not None and Path(out).exists():
        raise SrmBenchError(f"{out}: exists; choose another -o or delete it")
    weights = find_weights(weights_sha, checkpoint, where)
    sampler = SamplerConfig(name=s["name"], order=s.get("order"), overlap=float(s.get("overlap", 0.0)),
                            top_k=int(s.get("top_k", 1)), steps=int(s["steps"]), eta=float(s["eta"]),
                            uncertainty=s.get("uncertainty", "logvar"), ramp=s.get("ramp", "even"))
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    bs = batch_size or int(s.get("batch_size") or count)
    with tempfile.TemporaryDirectory() as tmp:
        path = sample_checkpoint(weights, sampler, Path(tmp) / "samples.h5", split=res["split"], count=count,
                                 seed=int(s.get("seed", 0)), device=device, batch_size=bs,
                                 ema=s.get("weights", "ema") == "ema", progress=progress)
        with h5py.File(path, "r") as f:
            images = np.asarray(f["samples"])
            index = np.asarray(f["index"]) if "index" in f else None
            dataset_sha = f.attrs.get("dataset_sha256")
        recorded_ds = (res.get("dataset") or {}).get("content_sha256")
        if recorded_ds and dataset_sha and recorded_ds != dataset_sha:
            raise SrmBenchError(f"{where}: was made on the puzzle set {recorded_ds[:12]}..., the canonical "
                                f"{res['task']}/{res['split']} set here is {str(dataset_sha)[:12]}...")
        got = samples_sha256(images, index)
        kept = None
        if out is not None:
            kept = Path(out)
            shutil.move(str(path), kept)
    now = torch.cuda.get_device_name() if torch.device(device).type == "cuda" else "cpu"
    return Reproduction(got == want, want, got, s.get("device"), now, kept)
