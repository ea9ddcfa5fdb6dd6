"""Gaussian noise paths z_t = a(t) x + b(t) eps and the conversions between predictions.

Two paths: rectified flow (a = 1 - t, b = t, the paper's default) and the cosine path
(a = cos(pi t / 2), b = sin(pi t / 2), improved DDPM's shape without its offset, which
keeps the velocity finite at t = 0). The network predicts the velocity u = a'(t) x + b'(t) eps by default (for
rectified flow u = eps - x, as the paper's own code did), or eps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from srm_bench.errors import SrmBenchError

PATHS = ("rectified_flow", "cosine")
TARGETS = ("velocity", "eps")


@dataclass(frozen=True)
class NoisePath:
    """A noise path and a prediction target.

    Example:
        >>> p = NoisePath("rectified_flow"); t = torch.tensor(0.25)
        >>> float(p.a(t)), float(p.b(t))
        (0.75, 0.25)
    """

    name: str = "rectified_flow"
    target: str = "velocity"

    def __post_init__(self) -> None:
        if self.name not in PATHS:
            raise SrmBenchError(f"unknown noise path {self.name!r}; valid: {', '.join(PATHS)}")
        if self.target not in TARGETS:
            raise SrmBenchError(f"unknown prediction target {self.target!r}; valid: {', '.join(TARGETS)}")

    def a(self, t: torch.Tensor) -> torch.Tensor:
        if self.name == "rectified_flow":
            return 1.0 - t
        return torch.cos(t * (math.pi / 2))

    def b(self, t: torch.Tensor) -> torch.Tensor:
        if self.name == "rectified_flow":
            return t
        return torch.sin(t * (math.pi / 2))

    def derivatives(self, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(a'(t), b'(t))."""
        if self.name == "rectified_flow":
            return -torch.ones_like(t), torch.ones_like(t)
        return -(math.pi / 2) * torch.sin(t * (math.pi / 2)), (math.pi / 2) * torch.cos(t * (math.pi / 2))

    def noise(self, x: torch.Tensor, eps: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """z_t = a(t) x + b(t) eps (``t`` broadcasts against ``x``)."""
        return self.a(t) * x + self.b(t) * eps

    def target_of(self, x: torch.Tensor, eps: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """The regression target for clean data ``x`` and noise ``eps``."""
        if self.target == "eps":
            return eps
        da, db = self.derivatives(t)
        return da * x + db * eps

    def split(self, z: torch.Tensor, pred: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Recover (x0_hat, eps_hat) from the noisy input and the network's prediction."""
        a, b = self.a(t), self.b(t)
        if self.target == "eps":
            return (z - b * pred) / a.clamp_min(1e-4), pred
        da, db = self.derivatives(t)
        det = a * db - b * da  # 1 for rectified flow, pi / 2 for cosine: never 0
        return (db * z - b * pred) / det, (a * pred - da * z) / det
