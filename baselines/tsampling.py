"""Noise levels for training: one level per patch (spatial variable) and its loss weight.

Three samplers:

- ``shared``: one t ~ U(0, 1) for the whole image (the DDPM baseline).
- ``independent``: t_i ~ U(0, 1) per patch (Diffusion Forcing); the mean follows a Bates
  distribution, concentrated around 0.5.
- ``uniform_tbar``: the paper's Uniform t-bar: t-bar ~ U(0, 1), then the patch levels by
  :func:`recursive_allocation` so that their mean is exactly t-bar; each patch's loss is
  weighted by 1 / p(t), p estimated by a histogram of the same sampler.

Given cells (Sudoku) are set to t = 0 with weight 0; ``zero_patch_prob`` does the same to
a random fraction of patches (the option used for Even Pixels and Counting).

``sequential_mix`` (our deviation, 0 in the paper's recipe) replaces that fraction of the rows
by a state of the one-patch-at-a-time sampler: in a random order of the open (not given)
patches, the first k are clean (t = 0, weight 0), the next one is at t ~ U(0, 1) and the rest
are pure noise (t = 1), with k uniform over 0 .. open - 1 and weight 1 on the noisy patches. At
sharpness 1 Uniform t-bar almost never draws such rows (its levels stay close to t-bar), yet
they are the only states the predicted-order sampler without overlap visits.

With ``sequential_overlap`` o > 0 those rows are instead states of the sampler with overlap o: the
open patches in a random order start their ramps (1 down to 0) one after another, each ramp
lasting L = 1 / ((n - 1)(1 - o) + 1) of the sampling and the next one starting (1 - o) L later,
read at a position u ~ U(0, 1): clean patches, ~1 / (1 - o) in flight at levels (1 - o) apart, the
rest pure noise, weight 1 on all but the clean. At o = 0 that is the one-at-a-time state above.
``sequential_tail`` (1: the whole run) reads those states only in the last that share of the budget:
u ~ U(1 - tail, 1), and at o = 0 the number of clean patches correspondingly.

``parallel_mix`` (our deviation, 0 in the paper's recipe) replaces that fraction of the rows by
the state of parallel sampling: one level t ~ U(0, 1) for every open patch, weight 1 (as the
DDPM's shared level), and no clean patch (the zero-patch rule skips these rows). With the
authors' zero-patch rule almost every training row has clean patches, while parallel sampling
and the start of every sequential sampler have none.

``completion_mix`` (our deviation, 0 in the paper's recipe) replaces that fraction of the rows,
whatever the other options made them, by completion states: K ~ U{1 .. completion_max} of the
open patches noisy, each at its own t ~ U(0, 1] with weight 1, every other patch clean (weight 0;
the zero-patch rule skips these rows). The clean rest then pins what the noisy patches may hold,
as it does for the last patches of a sequential sampler. Otherwise such rows come only from the
zero-patch rule's near-complete rows and the sequential mix's last steps: 12% of the rows of Even
Pixels' recipe hold 1-4 noisy patches (6% one above t = 0.5), 34% (24%) with a share of 0.25
(docs/even-pixels-baselines.md, thirty-first lease).
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
import torch

from srm_bench.errors import SrmBenchError

from .configs import TSamplingConfig, split_alpha  # noqa: F401  (re-exported)



def recursive_allocation(tbar: np.ndarray, d: int, sharpness: float, rng: np.random.Generator) -> np.ndarray:
    """Draw ``t`` in [0, 1]^d per row with mean exactly ``tbar`` (paper Algorithm 1).

    The sum d * tbar is split recursively between the two halves of the vector, the split
    point drawn from Beta(alpha, alpha) inside its feasible range; the result is shuffled.

    Args:
        tbar: (B,) target means in [0, 1].
        d: number of patches.
        sharpness: > 0; larger keeps the t_i closer to tbar.
        rng: numpy generator.

    Returns:
        (B, d) float64 array.

    Raises:
        SrmBenchError: ``d < 1``, ``sharpness <= 0`` or ``tbar`` outside [0, 1].
    """
    tbar = np.asarray(tbar, dtype=np.float64)
    if d < 1:
        raise SrmBenchError(f"recursive allocation needs at least one patch (got d={d})")
    if not sharpness > 0:
        raise SrmBenchError(f"sharpness must be > 0 (got {sharpness})")
    if tbar.size and (tbar.min() < 0 or tbar.max() > 1):
        raise SrmBenchError("tbar must lie in [0, 1]")
    out = np.empty((tbar.shape[0], d), dtype=np.float64)

    def fill(total: np.ndarray, lo: int, hi: int) -> None:
        n = hi - lo
        if n == 1:
            out[:, lo] = total
            return
        d1 = n // 2
        d2 = n - d1
        s1_max = np.minimum(total, d1)
        s1_min = np.maximum(0.0, total - np.minimum(total, d2))
        alpha = split_alpha(n, sharpness)
        r = rng.beta(alpha, alpha, size=total.shape[0])
        s1 = s1_min + (s1_max - s1_min) * r
        fill(s1, lo, lo + d1)
        fill(total - s1, lo + d1, hi)

    fill(tbar * d, 0, d)
    out = rng.permuted(out, axis=1)
    return np.clip(out, 0.0, 1.0)


def tail_position(u: Any, tail: float) -> Any:
    """A position in [1 - tail, 1) of the sampler's budget from ``u`` in [0, 1) (``sequential_tail``): ``u``
    itself, bit for bit, at tail 1 (the whole run), so that the default keeps every earlier stream."""
    return u if tail == 1 else (1.0 - tail) + tail * u


def overlap_state(rank: Any, n_open: Any, u: Any, overlap: float) -> Any:
    """Levels (B, P) of the sequential sampler with ``overlap`` at position ``u`` (B,) in [0, 1) of
    its budget, the open patches ramping in the order ``rank`` (B, P; given patches rank last,
    at or past ``n_open`` (B,), and come out clean). NumPy arrays or torch tensors alike."""
    length = 1.0 / ((n_open - 1) * (1.0 - overlap) + 1.0)  # (B,): a ramp's share of the budget
    start = rank * (length * (1.0 - overlap))[:, None]
    level = 1.0 - (u[:, None] - start) / length[:, None]
    level = level.clip(0.0, 1.0) if isinstance(level, np.ndarray) else level.clamp(0.0, 1.0)
    return level * (rank < n_open[:, None])


def rerank_levels(t: torch.Tensor, score: torch.Tensor, movable: torch.Tensor) -> torch.Tensor:
    """``t`` (B, P) with the levels of each row's ``movable`` patches handed out again in the order of
    ``score`` (B, P): the lowest level to the lowest score, and so on; other patches keep theirs.

    A row's levels stay the same multiset, only their places among its movable patches change: a
    sequential sampler's state whose patches were taken up in the order of ``score`` (sequential_order
    "predicted": score = the predicted uncertainty, movable = the mix rows' noisy patches).

    Example:
        >>> t = torch.tensor([[0.0, 0.75, 0.25, 1.0]]); score = torch.tensor([[5.0, 1.0, 3.0, 2.0]])
        >>> rerank_levels(t, score, t > 0).tolist()
        [[0.0, 0.25, 1.0, 0.75]]
    """
    if not t.shape == score.shape == movable.shape:
        raise SrmBenchError(f"levels {tuple(t.shape)}, scores {tuple(score.shape)} and mask {tuple(movable.shape)} differ")
    levels = t.masked_fill(~movable, float("inf")).sort(1).values  # a row's movable levels first, ascending
    order = score.float().masked_fill(~movable, float("inf")).argsort(dim=1, stable=True)  # its movable patches by score
    out = torch.empty_like(t).scatter_(1, order, levels)
    return torch.where(movable, out, t)


class NoiseLevelSampler:
    """Draws per-patch training levels ``t`` (B, P) and loss weights ``w`` (B, P).

    Example:
        >>> s = NoiseLevelSampler(TSamplingConfig(), num_patches=81)
        >>> t, w = s.sample(4, np.random.default_rng(0)); t.shape
        (4, 81)
    """

    def __init__(self, config: TSamplingConfig, num_patches: int, *, estimate_draws: int = 200_000) -> None:
        config.validate()
        self.config = config
        self.num_patches = num_patches
        self.edges = np.linspace(0.0, 1.0, config.weight_bins + 1)
        self.bin_weights = np.ones(config.weight_bins)
        if config.kind == "uniform_tbar":
            self.bin_weights = self._estimate_weights(estimate_draws)

    def _estimate_weights(self, draws: int) -> np.ndarray:
        """1 / p(t) per histogram bin, p estimated from the sampler itself (fixed seed)."""
        rng = np.random.default_rng([20250226, self.num_patches])
        rows = max(1, draws // self.num_patches)
        t = self._draw(rows, rng).ravel()
        density, _ = np.histogram(t, bins=self.edges, density=True)
        # A floor keeps empty bins (possible only for tiny P) from getting infinite weight.
        return 1.0 / np.maximum(density, 0.05)

    def _draw(self, batch: int, rng: np.random.Generator) -> np.ndarray:
        kind, p = self.config.kind, self.num_patches
        if kind == "shared":
            return np.repeat(rng.random((batch, 1)), p, axis=1)
        if kind == "independent":
            return rng.random((batch, p))
        return recursive_allocation(rng.random(batch), p, self.config.sharpness, rng)

    def weight_of(self, t: np.ndarray) -> np.ndarray:
        """The 1 / p(t) weight of each level (1 for the shared and independent samplers)."""
        idx = np.clip(np.searchsorted(self.edges, t, side="right") - 1, 0, len(self.bin_weights) - 1)
        return self.bin_weights[idx]

    def sample(self, batch: int, rng: np.random.Generator, known: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Levels and weights for a batch; ``known`` (B, P) bool marks given patches (t = 0, w = 0).

        Raises:
            SrmBenchError: ``known`` of the wrong shape.
        """
        t = self._draw(batch, rng)
        w = self.weight_of(t)
        cfg = self.config
        if known is not None:
            known = np.asarray(known, dtype=bool)
            if known.shape != (batch, self.num_patches):
                raise SrmBenchError(f"known mask must be {(batch, self.num_patches)}, got {known.shape}")
        if cfg.sequential_mix > 0:
            rows = rng.random(batch) < cfg.sequential_mix
            open_ = np.ones_like(t, dtype=bool) if known is None else ~known
            rank = np.argsort(np.argsort(np.where(open_, rng.random(t.shape), 2.0), axis=1), axis=1)
            if cfg.sequential_overlap > 0:
                ts = overlap_state(rank, open_.sum(1), tail_position(rng.random(batch), cfg.sequential_tail),
                                   cfg.sequential_overlap)
                noisy = ts > 0
            else:
                k = np.floor(tail_position(rng.random(batch), cfg.sequential_tail) * open_.sum(1)).astype(np.int64)[:, None]
                ts = np.where(rank < k, 0.0, np.where(rank == k, rng.random(t.shape), 1.0))
                noisy = rank >= k
            t = np.where(rows[:, None], ts, t)
            w = np.where(rows[:, None], noisy.astype(np.float64), w)
        parallel = np.zeros(batch, dtype=bool)
        if cfg.parallel_mix > 0:
            parallel = rng.random(batch) < cfg.parallel_mix
            t = np.where(parallel[:, None], rng.random((batch, 1)), t)
            w = np.where(parallel[:, None], 1.0, w)  # a uniform level needs no density correction
        if cfg.completion_mix > 0:  # after the other mixes: it replaces its share of rows, whatever they were
            rows = rng.random(batch) < cfg.completion_mix
            open_ = np.ones_like(t, dtype=bool) if known is None else ~known
            k = np.minimum(1 + np.floor(rng.random(batch) * cfg.completion_max), open_.sum(1))
            rank = np.argsort(np.argsort(np.where(open_, rng.random(t.shape), 2.0), axis=1), axis=1)
            noisy = rank < k[:, None]  # K of the open patches at random (the closed ones rank last)
            t = np.where(rows[:, None], np.where(noisy, 1.0 - rng.random(t.shape), 0.0), t)  # levels in (0, 1]
            w = np.where(rows[:, None], noisy.astype(np.float64), w)
            parallel = parallel | rows  # the zero-patch rule leaves them as drawn
        if cfg.zero_patch_prob > 0:
            hit = (rng.random(batch) < cfg.zero_patch_prob) & ~parallel
            frac = rng.random(batch) * cfg.zero_patch_max_frac
            ranks = rng.permuted(np.tile(np.arange(self.num_patches), (batch, 1)), axis=1)
            zero = hit[:, None] & (ranks < np.floor(frac * self.num_patches)[:, None])
            t[zero] = 0.0
            w[zero] = 0.0
        if known is not None:
            if cfg.kind != "shared":
                t[known] = 0.0
            w[known] = 0.0
        return t.astype(np.float32), w.astype(np.float32)


# ----------------------------------------------------------------------------- on the device

@functools.lru_cache(maxsize=32)
def _allocation_plan(d: int, sharpness: float, device: str) -> tuple[list[tuple[torch.Tensor, ...]], torch.Tensor]:
    """The recursion of :func:`recursive_allocation` laid out as a full binary tree, for
    :func:`recursive_allocation_torch`: per depth the Beta parameter and the halves' sizes of
    every segment (children of segment j at 2j and 2j + 1; a segment of one patch splits into
    sizes 0 and 1, an empty one into 0 and 0, so they carry their total unchanged), and the
    columns of the last depth that hold the d patches."""
    sizes = np.array([d], dtype=np.int64)
    depths = []
    while sizes.max() > 1:
        d1 = sizes // 2
        alpha = np.array([split_alpha(int(n), sharpness) if n > 1 else 1.0 for n in sizes])
        depths.append(tuple(torch.tensor(a, dtype=torch.float64, device=device) for a in (alpha, d1, sizes - d1)))
        sizes = np.stack([d1, sizes - d1], 1).reshape(-1)
    return depths, torch.from_numpy(np.flatnonzero(sizes == 1)).to(device)


def recursive_allocation_torch(tbar: torch.Tensor, d: int, sharpness: float) -> torch.Tensor:
    """:func:`recursive_allocation` on the device, vectorised over the batch and over every
    split of one depth of the recursion: ~log2(d) depths of a few batched operations each
    (one Beta draw over all segments of a depth), whatever d, so the host issues ~100
    operations a call instead of one per segment.

    Uses the global torch RNG. Returns (B, d) float32 rows with mean ``tbar``.
    """
    b = tbar.shape[0]
    dev = tbar.device
    depths, leaves = _allocation_plan(d, float(sharpness), str(dev))
    totals = (tbar.double() * d)[:, None]  # (B, segments)
    for alpha, d1, d2 in depths:
        r = torch.distributions.Beta(alpha.expand(b, -1), alpha.expand(b, -1), validate_args=False).sample()
        s1_max = torch.minimum(totals, d1)
        s1_min = torch.clamp(totals - torch.minimum(totals, d2), min=0.0)
        s1 = s1_min + (s1_max - s1_min) * r
        totals = torch.stack([s1, totals - s1], 2).reshape(b, -1)
    order = torch.rand(b, d, device=dev).argsort(1)
    return totals[:, leaves].gather(1, order).clamp(0.0, 1.0).float()


class DeviceLevelSampler:
    """:class:`NoiseLevelSampler` on the training device (same distribution, same weights'
    definition), drawing from the global torch RNG.

    Example:
        >>> s = DeviceLevelSampler(TSamplingConfig(), 81, "cpu")
        >>> t, w = s.sample(4); tuple(t.shape), tuple(w.shape)
        ((4, 81), (4, 81))
    """

    def __init__(self, config: TSamplingConfig, num_patches: int, device: str | torch.device,
                 *, estimate_draws: int = 200_000) -> None:
        config.validate()
        self.config = config
        self.num_patches = num_patches
        self.device = torch.device(device)
        self.last_mix_rows: torch.Tensor | None = None  # (B,) the rows the last sample() drew as sequential_mix states
        self.bins = config.weight_bins
        self.bin_weights = torch.ones(self.bins, device=self.device)
        if config.kind == "uniform_tbar":
            with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
                torch.manual_seed(20250226 + num_patches)
                t = self._draw(max(1, estimate_draws // num_patches)).flatten()
            density = torch.histc(t.float(), bins=self.bins, min=0.0, max=1.0) / (t.numel() / self.bins)
            # A floor keeps empty bins (possible only for tiny P) from getting infinite weight.
            self.bin_weights = 1.0 / density.clamp_min(0.05)

    def _draw(self, batch: int) -> torch.Tensor:
        kind, p, dev = self.config.kind, self.num_patches, self.device
        if kind == "shared":
            return torch.rand(batch, 1, device=dev).expand(batch, p).contiguous()
        if kind == "independent":
            return torch.rand(batch, p, device=dev)
        return recursive_allocation_torch(torch.rand(batch, device=dev), p, self.config.sharpness)

    def weight_of(self, t: torch.Tensor) -> torch.Tensor:
        idx = (t * self.bins).long().clamp(0, self.bins - 1)
        return self.bin_weights[idx]

    def sample(self, batch: int, known: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Levels and weights (B, P); ``known`` (B, P) bool marks given patches (t = 0, w = 0;
        with the shared level of the DDPM they keep both, as in the authors' code)."""
        t = self._draw(batch)
        w = self.weight_of(t)
        cfg = self.config
        if known is not None and known.shape != (batch, self.num_patches):
            raise SrmBenchError(f"known mask must be {(batch, self.num_patches)}, got {tuple(known.shape)}")
        self.last_mix_rows = None
        if cfg.sequential_mix > 0:
            dev = self.device
            rows = (torch.rand(batch, device=dev) < cfg.sequential_mix)[:, None]
            self.last_mix_rows = rows[:, 0]  # for sequential_order "predicted" (BatchMaker re-ranks them)
            open_ = torch.ones_like(t, dtype=torch.bool) if known is None else ~known
            rank = torch.rand(t.shape, device=dev).masked_fill(~open_, 2.0).argsort(1).argsort(1)
            if cfg.sequential_overlap > 0:
                ts = overlap_state(rank, open_.sum(1), tail_position(torch.rand(batch, device=dev), cfg.sequential_tail),
                                   cfg.sequential_overlap)
                noisy = ts > 0
            else:
                k = torch.floor(tail_position(torch.rand(batch, device=dev), cfg.sequential_tail) * open_.sum(1)).long()[:, None]
                ts = torch.where(rank < k, 0.0, torch.where(rank == k, torch.rand(t.shape, device=dev), 1.0))
                noisy = rank >= k
            t = torch.where(rows, ts.to(t.dtype), t)
            w = torch.where(rows, noisy.to(w.dtype), w)
        parallel = torch.zeros(batch, dtype=torch.bool, device=self.device)
        if cfg.parallel_mix > 0:
            parallel = torch.rand(batch, device=self.device) < cfg.parallel_mix
            t = torch.where(parallel[:, None], torch.rand(batch, 1, device=self.device), t)
            w = w.masked_fill(parallel[:, None], 1.0)  # a uniform level needs no density correction
        if cfg.completion_mix > 0:  # after the other mixes: it replaces its share of rows, whatever they were
            dev = self.device
            rows = torch.rand(batch, device=dev) < cfg.completion_mix
            open_ = torch.ones_like(t, dtype=torch.bool) if known is None else ~known
            k = torch.minimum(1 + torch.floor(torch.rand(batch, device=dev) * cfg.completion_max).long(), open_.sum(1))
            rank = torch.rand(t.shape, device=dev).masked_fill(~open_, 2.0).argsort(1).argsort(1)
            noisy = rank < k[:, None]  # K of the open patches at random (the closed ones rank last)
            tc = torch.where(noisy, 1.0 - torch.rand(t.shape, device=dev), 0.0)  # levels in (0, 1]
            t = torch.where(rows[:, None], tc.to(t.dtype), t)
            w = torch.where(rows[:, None], noisy.to(w.dtype), w)
            parallel = parallel | rows  # the zero-patch rule leaves them as drawn
            if self.last_mix_rows is not None:
                self.last_mix_rows = self.last_mix_rows & ~rows  # no longer sequential states
        if cfg.zero_patch_prob > 0:
            dev, p = self.device, self.num_patches
            hit = (torch.rand(batch, device=dev) < cfg.zero_patch_prob) & ~parallel
            frac = torch.rand(batch, device=dev) * cfg.zero_patch_max_frac
            ranks = torch.rand(batch, p, device=dev).argsort(1).argsort(1)
            zero = hit[:, None] & (ranks < torch.floor(frac * p)[:, None])
            t = t.masked_fill(zero, 0.0)
            w = w.masked_fill(zero, 0.0)
        if known is not None:
            if cfg.kind != "shared":  # the DDPM keeps one level and, as the authors' code, its loss on every pixel
                t = t.masked_fill(known, 0.0)
                w = w.masked_fill(known, 0.0)
        return t, w
