"""Turn a UNet with a global-context branch into its squashed variant, computing nearly what it computed.

`unet-s-g16-gct` squashes the branch's pointwise features by tanh before their image-wide means, with the
same parameters as `unet-s-g16-gc`. Loaded as they are, `unet-s-g16-gc` weights compute something else:
the shipped Even Pixels SRM's features are ~0.5 in size on average and up to ~1.8, which tanh compresses,
and its one-step count reads at slope 0.49 and 2.6 px of error with one noisy patch, against 0.82 and
0.38 px unsquashed (`probe_even_pixels_count.py`, 256 images). So this script scales the branch first:
the last pointwise layer by 1 / S (features f / S), the learnt centre by 1 / S and the learnt gain by S,
so that (mean(tanh(f / S)) - c / S) * S * exp(g) = (mean(f) - c) * exp(g) to the first order of f / S.
At S = 8 the shipped model reads 0.82 and 0.38 px again (S = 4: 0.81 and 0.48 px). Training can then
grow the features into tanh's saturation, where their means count exactly
(`probe_count_precision.py`).

The weights keep their training record (step, images, GPU-hours), which gains ``squash_scale`` and
``squashed_from`` (the input's SHA-256), and are written atomically as a `unet-s-g16-gct`-style
network (the input's preset with ``t`` appended, ``context_squash`` on), ready for `srm-bench train --init`.

Usage: python benchmarks/squash_context.py IN.safetensors OUT.safetensors [--scale 8]
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import torch

from srm_bench.baselines.presets import PRESET_FACTORIES
from srm_bench.baselines.train import build_model, load_weights, save_weights
from srm_bench.errors import SrmBenchError
from srm_bench.io import file_sha256


def squash(src: Path, dst: Path, scale: float) -> dict:
    """Write ``src``'s network with its context squashed and scaled by ``scale`` to ``dst``; returns its record."""
    if not scale > 0 or not math.isfinite(scale):
        raise SrmBenchError(f"--scale must be a positive number, got {scale}")
    weights, cfg, record = load_weights(src)
    if cfg.arch != "unet" or not cfg.model.get("global_context"):
        raise SrmBenchError(f"{src}: a {cfg.arch} {cfg.preset} network without a global-context branch; nothing to squash")
    if cfg.model.get("context_squash"):
        raise SrmBenchError(f"{src}: its context is squashed already ({cfg.preset})")
    if cfg.preset + "t" not in PRESET_FACTORIES:
        raise SrmBenchError(f"{src}: no squashed preset {cfg.preset}t to turn a {cfg.preset} network into")
    new = replace(cfg, preset=cfg.preset + "t", model={**cfg.model, "context_squash": True})
    model = build_model(new.arch, new.model)
    model.load_state_dict(weights)
    gc = model.context
    with torch.no_grad():
        gc.point[2].weight.div_(scale)
        gc.point[2].bias.div_(scale)
        gc.centre.div_(scale)
        gc.log_gain.add_(math.log(scale))
    rec = {**record, "squash_scale": scale, "squashed_from": file_sha256(src)}
    save_weights(dst, model, new, rec)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--scale", type=float, default=8.0, help="S: the features enter tanh as f / S [8]")
    a = ap.parse_args()
    try:
        rec = squash(a.src, a.dst, a.scale)
    except SrmBenchError as e:
        sys.exit(f"error: {e}")
    print(f"{a.dst}: {a.src}'s network at step {rec.get('step')} with its context squashed (scale {a.scale:g})")


if __name__ == "__main__":
    main()
