"""The reverse step of the paper's generation process and the one sampling loop.

Reverse step from level t to s < t, per patch (Appendix A, rectified flow a = 1 - t, b = t
by default): x0_hat and eps_hat from the prediction, r = (a_t b_s) / (a_s b_t),
sigma_small = eta b_s sqrt(1 - r^2), sigma_large = eta b_t sqrt(1 - r^2),
mean = a_s x0_hat + sqrt(b_s^2 - sigma_small^2) eps_hat, and the noise scale the learned
iDDPM interpolation between sigma_small and sigma_large; no noise where s = 0, patches with
s = t untouched. eta = 0 is deterministic (DDIM / Euler), eta = 1 stochastic (the paper's).
eta > 1 (ours) adds more noise than the DDPM posterior step: the same step with both sigmas
scaled by eta and capped at b_s, where it draws z_s = a_s x0_hat + b_s noise afresh. With a
perfect denoiser it reaches the data's distribution only as the steps shrink (x0_hat is a
posterior mean; tests/test_baselines.py measures the shrinkage on a Gaussian toy).
"""
from __future__ import annotations

import logging
from typing import Any, Callable

import torch
from tqdm.auto import tqdm

from .noise import NoisePath
from .schedules import RampSchedule
from .diffusion import DenoiserOutput, pixel_levels  # noqa: F401  (re-exported)

log = logging.getLogger(__name__)


def step_sigmas(path: NoisePath, t: torch.Tensor, s: torch.Tensor, eta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(sigma_small, sigma_large) of a step t -> s (same shapes as t; 0 where s >= t)."""
    a_t, b_t, a_s, b_s = path.a(t), path.b(t), path.a(s), path.b(s)
    moving = s < t
    r = (a_t * b_s) / (a_s * b_t).where(moving, torch.ones_like(t))
    root = (1.0 - r * r).clamp_min(0.0).sqrt()
    small = eta * b_s * root
    large = eta * b_t * root
    if eta > 1.0:  # ours: no more noise than the level holds (eta <= 1 is left bit for bit as the paper's)
        small, large = torch.minimum(small, b_s), torch.minimum(large, b_s)
    return small.where(moving, torch.zeros_like(t)), large.where(moving, torch.zeros_like(t))


def step_mean(path: NoisePath, x0: torch.Tensor, eps: torch.Tensor, s: torch.Tensor, sigma_small: torch.Tensor) -> torch.Tensor:
    """a_s x0 + sqrt(b_s^2 - sigma_small^2) eps."""
    b_s = path.b(s)
    return path.a(s) * x0 + (b_s * b_s - sigma_small * sigma_small).clamp_min(0.0).sqrt() * eps


def learned_log_variance(v: torch.Tensor, sigma_small: torch.Tensor, sigma_large: torch.Tensor) -> torch.Tensor:
    """iDDPM interpolation: frac = (v + 1) / 2 between log sigma_large^2 and log sigma_small^2."""
    frac = ((v + 1.0) / 2.0).clamp(0.0, 1.0)
    lo = torch.log(sigma_small.clamp_min(1e-12) ** 2)
    hi = torch.log(sigma_large.clamp_min(1e-12) ** 2)
    return frac * hi + (1.0 - frac) * lo


def reverse_step(path: NoisePath, z: torch.Tensor, out: DenoiserOutput, t: torch.Tensor, s: torch.Tensor,
                 eta: float, noise: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    """One step of every patch from its level ``t`` to ``s`` (pixel maps, (B, 1, H, W)).

    Returns the new sample and x0_hat. ``noise`` may be None when eta = 0.
    """
    x0, eps = path.split(z, out.mean.float(), t)
    small, large = step_sigmas(path, t, s, eta)
    mean = step_mean(path, x0, eps, s, small)
    if eta > 0 and noise is not None:
        std = torch.exp(0.5 * learned_log_variance(out.v.float(), small, large))
        std = std.where((s > 0) & (s < t), torch.zeros_like(std))
        mean = mean + std * noise
    return torch.where(s < t, mean, z), x0


def per_sample_noise(like: torch.Tensor, generators: list[torch.Generator]) -> torch.Tensor:
    """Gaussian noise with row i drawn from ``generators[i]`` (so a sample does not depend on its batch)."""
    return torch.stack([torch.randn(like.shape[1:], generator=g, device=like.device, dtype=torch.float32) for g in generators])


def sample(
    model: Callable[..., DenoiserOutput],
    x: torch.Tensor,
    schedule: RampSchedule,
    *,
    path: NoisePath,
    generators: list[torch.Generator],
    patch_size: int,
    eta: float = 1.0,
    given: torch.Tensor | None = None,
    known: torch.Tensor | None = None,
    ddpm: bool = False,
    callback: Callable[[dict[str, Any]], None] | None = None,
    disable: bool | None = True,
) -> torch.Tensor:
    """Run a schedule with the paper's reverse step (Appendix A); returns samples in [-1, 1].

    Args:
        model: ``model(x, t, cond) -> DenoiserOutput`` with ``t`` (B, P) patch levels.
        x: (B, C, H, W) initial noise.
        schedule: a :class:`RampSchedule` (parallel or sequential, any order).
        path: the noise path the model was trained on.
        generators: one per sample: the per-step noise of sample i comes from generators[i].
        patch_size: side of one patch in pixels.
        eta: 0 deterministic, 1 stochastic.
        given: (B, C, H, W) clean given pixels (Sudoku clues), with ``known`` (B, P) bool.
        ddpm: the DDPM baseline: one shared level (givens not at 0), the mask and masked
            image concatenated to the input, the known region re-noised after each step.
        callback: called after every step with a dict (step, x, t, s, x0_hat, logvar).
        disable: turn the progress bar off.
    """
    b, _, h, w = x.shape
    grid = (h // patch_size, w // patch_size)
    p = grid[0] * grid[1]
    if known is None:
        known = torch.zeros((b, p), dtype=torch.bool, device=x.device)
        given = torch.zeros_like(x)
    assert given is not None
    known_pix = pixel_levels(known.float(), grid, patch_size) > 0.5
    cond = torch.cat([known_pix.float(), given * known_pix], dim=1) if ddpm else None
    schedule.reset(torch.zeros_like(known) if ddpm else known, generators)
    if not ddpm:
        x = torch.where(known_pix, given, x)
    for step in tqdm(range(schedule.steps), disable=disable, desc="sampling", leave=False):
        t = schedule.levels()
        out = model(x, t, cond)
        s = schedule.advance(out.logvar)
        t_pix, s_pix = pixel_levels(t, grid, patch_size), pixel_levels(s, grid, patch_size)
        noise = per_sample_noise(x, generators) if eta > 0 or ddpm else None
        x, x0 = reverse_step(path, x, out, t_pix, s_pix, eta, noise)
        if ddpm:
            assert noise is not None
            renoised = path.noise(given, per_sample_noise(x, generators), s_pix)
            x = torch.where(known_pix, renoised, x)
        else:
            x = torch.where(known_pix, given, x)
        if callback is not None:
            callback({"step": step, "x": x, "t": t, "s": s, "x0_hat": x0, "logvar": out.logvar})
    return x.clamp(-1.0, 1.0)
