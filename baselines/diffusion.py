"""What every denoiser, sampler and loss here shares: the output type, the level embedding
and the patch-to-pixel expansion of per-patch noise levels."""
from __future__ import annotations

import math
from typing import NamedTuple

import torch
import torch.nn.functional as F


class DenoiserOutput(NamedTuple):
    """What every denoiser returns: mean (B,C,H,W), v (B,C,H,W), log-variance per patch (B,P),
    and, for a model with a class head, per-patch class logits (B,P,K) (else None)."""

    mean: torch.Tensor
    v: torch.Tensor
    logvar: torch.Tensor
    logits: torch.Tensor | None = None


def timestep_embedding(t: torch.Tensor, dim: int, scale: float = 1000.0) -> torch.Tensor:
    """Sinusoidal embedding of ``scale * t`` along a new last axis of size ``dim``."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
    args = (scale * t.float())[..., None] * freqs
    emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        emb = F.pad(emb, (0, 1))
    return emb


def pixel_levels(t: torch.Tensor, grid: tuple[int, int], patch: int) -> torch.Tensor:
    """(B, P) per-patch levels (row-major) -> (B, 1, H, W) per-pixel map."""
    g = t.reshape(t.shape[0], 1, grid[0], grid[1])
    return g.repeat_interleave(patch, 2).repeat_interleave(patch, 3)
