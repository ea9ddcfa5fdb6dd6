"""Per-patch noise-level schedules: what every sampler differs in.

A schedule walks each unknown patch from t = 1 to t = 0 within an explicit budget of
network evaluations (NFE). Patches are grouped into slots of ``top_k`` patches; slot m
runs a linear ramp of length L' = K / ((M - 1)(1 - o) + 1) starting at step
round(m L' (1 - o)), K the budget, M the number of slots, o the overlap. So the last ramp
ends exactly at step K (every one of the K evaluations moves some patch), overlap 0 keeps
one slot in flight at a time, and the parallel schedule is the special case of a single
slot holding every patch (all patches share t_k = 1 - k / K).

Which patches fill the next slot is the order: ``random`` (a seeded permutation),
``graph`` (largest sum of (1 - t) over graph neighbours, e.g. Sudoku row/column/box) or
``predicted`` (lowest predicted uncertainty from the forward pass of this very step, so
no extra evaluations) or ``raster`` (ours: a fixed order, patches row by row as the patch grid
is numbered, the same for every sample; a control for whether order matters on a task at all). A patch that starts at step j has t = 1 at step j whatever its
identity, so choosing it after the forward pass is consistent.

Given patches stay at t = 0.

``ramp="reference"`` follows the reference code's rule instead: every slot runs
ceil(L') steps from floor(m L' (1 - o)), and the last step sets every level to 0. At a budget
near the number of unknown patches this matters: at 100 NFE and 55 empty cells the default gives
about a fifth of the cells a single step (t = 1 straight to 0, a blurred posterior mean), the
reference rule gives each two (1, 0.5, 0), with neighbouring ramps sharing a step. At 1000 NFE the
two differ by a step per ramp.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from srm_bench.errors import SrmBenchError

SAMPLERS = ("parallel", "sequential")
ORDERS = ("random", "graph", "predicted", "raster")
UNCERTAINTIES = ("logvar", "entropy")
RAMPS = ("even", "reference")
ETA_MAX = 16.0  # eta above 1 is ours (samplers.step_sigmas caps the noise at the level's)


@dataclass(frozen=True)
class SamplerConfig:
    """Every knob of a sampler (recorded with the samples)."""

    name: str = "parallel"
    order: str | None = None
    overlap: float = 0.0
    top_k: int = 1
    steps: int = 1000
    eta: float = 1.0
    # Predicted order's uncertainty: "logvar" (the paper's uncertainty head) or "entropy" (the
    # entropy of a class head's per-patch distribution, for models trained with one).
    uncertainty: str = "logvar"
    # Ramp lengths: "even" (the last ramp ends exactly at the budget) or "reference" (the
    # reference code's ceil(L') steps per slot; see the module docstring).
    ramp: str = "even"

    def validate(self, num_patches: int, has_graph: bool = False, has_uncertainty: bool = True) -> None:
        """Raise SrmBenchError (one line) for knobs that do not apply or cannot run."""
        if self.name not in SAMPLERS:
            raise SrmBenchError(f"unknown sampler {self.name!r}; valid: {', '.join(SAMPLERS)}")
        if not 0.0 <= self.eta <= ETA_MAX:
            raise SrmBenchError(f"eta must lie in [0, {ETA_MAX:g}] (0 deterministic, 1 the paper's stochastic step, "
                                f"above 1 more noise per step); got {self.eta}")
        if self.steps < 1:
            raise SrmBenchError(f"the evaluation budget must be at least 1 (got {self.steps})")
        if self.uncertainty not in UNCERTAINTIES:
            raise SrmBenchError(f"unknown uncertainty {self.uncertainty!r}; valid: {', '.join(UNCERTAINTIES)}")
        if self.ramp not in RAMPS:
            raise SrmBenchError(f"unknown ramp rule {self.ramp!r}; valid: {', '.join(RAMPS)}")
        if self.ramp != "even" and self.name == "parallel":
            raise SrmBenchError("--ramp applies to the sequential sampler only; use --sampler sequential")
        if self.uncertainty != "logvar" and self.order != "predicted":
            raise SrmBenchError("--uncertainty applies to predicted order only; use --sampler sequential --order predicted")
        if self.name == "parallel":
            if self.order is not None:
                raise SrmBenchError("--order does not apply to the parallel sampler; use --sampler sequential")
            if self.overlap != 0.0:
                raise SrmBenchError("--overlap does not apply to the parallel sampler; use --sampler sequential")
            if self.top_k != 1:
                raise SrmBenchError("--top-k does not apply to the parallel sampler; use --sampler sequential")
            return
        if self.order not in ORDERS:
            raise SrmBenchError(f"the sequential sampler needs --order, one of {', '.join(ORDERS)} (got {self.order!r})")
        if not 0.0 <= self.overlap < 1.0:
            raise SrmBenchError(f"overlap must lie in [0, 1) (got {self.overlap}); 1 would be the parallel sampler")
        if self.top_k < 1:
            raise SrmBenchError(f"top_k must be at least 1 (got {self.top_k})")
        if self.order == "graph" and not has_graph:
            raise SrmBenchError("graph order needs a dependency graph, and this task has none; use --order random or predicted")
        if self.order == "predicted" and not has_uncertainty:
            raise SrmBenchError("predicted order needs a model that predicts its uncertainty; use --order random")
        if self.steps < num_patches:
            raise SrmBenchError(
                f"a budget of {self.steps} evaluations is smaller than the {num_patches} patches; "
                f"a sequential sampler needs at least one evaluation per patch"
            )

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["uncertainty"] == "logvar":  # the defaults stay out, so earlier records read the same
            del d["uncertainty"]
        if d["ramp"] == "even":
            del d["ramp"]
        return d


def _round(x: torch.Tensor) -> torch.Tensor:
    return torch.floor(x + 0.5)


class RampSchedule:
    """Slots of ``top_k`` patches on overlapping linear ramps (see the module docstring).

    Use: ``reset(known, generators)``, then for each of ``steps`` evaluations read
    :meth:`levels`, evaluate the network, and call :meth:`advance` with its per-patch
    log-variance to get the next levels.
    """

    def __init__(self, config: SamplerConfig, num_patches: int, graph: torch.Tensor | None = None) -> None:
        self.config = config
        self.steps = config.steps
        self.num_patches = num_patches
        self.graph = graph
        self.order = config.order
        self.top_k = num_patches if config.name == "parallel" else config.top_k
        self.overlap = 0.0 if config.name == "parallel" else config.overlap

    def reset(self, known: torch.Tensor, generators: list[torch.Generator]) -> None:
        """Start a batch: ``known`` (B, P) bool marks given patches; one generator per sample."""
        b, p = known.shape
        if p != self.num_patches:
            raise SrmBenchError(f"known mask has {p} patches, the schedule {self.num_patches}")
        dev = known.device
        self.known = known.bool()
        self.step_index = 0
        self.started = self.known.clone()
        self.start = torch.full((b, p), float("inf"), device=dev)
        self.length = torch.ones((b, p), device=dev)
        n = (~self.known).sum(1).double()
        slots = torch.ceil(n / self.top_k).clamp_min(1)
        ramp = self.steps / ((slots - 1) * (1 - self.overlap) + 1)
        m = torch.arange(p, device=dev, dtype=torch.float64)
        if self.config.ramp == "reference":
            self.slot_start = torch.floor(m[None] * ramp[:, None] * (1 - self.overlap))
            self.slot_end = self.slot_start + torch.ceil(ramp)[:, None]
        else:
            self.slot_start = _round(m[None] * ramp[:, None] * (1 - self.overlap))
            self.slot_end = _round(m[None] * ramp[:, None] * (1 - self.overlap) + ramp[:, None])
        self.slot_start[m[None] >= slots[:, None]] = float("inf")
        self.unknown_count = n
        # Random keys: the order itself for 'random', tie-breaks for the others.
        self.keys = torch.stack([torch.rand(p, generator=g, device=g.device) for g in generators]).to(dev)

    def levels(self, step: int | None = None) -> torch.Tensor:
        """(B, P) levels at ``step`` (default: the current step); unstarted patches are at 1."""
        j = self.step_index if step is None else step
        t = 1.0 - (j - self.start) / self.length
        t = torch.where(self.started, t.clamp(0.0, 1.0), torch.ones_like(t))
        if self.config.ramp == "reference" and j >= self.steps:  # its last step ends every ramp
            t = torch.zeros_like(t)
        return torch.where(self.known, torch.zeros_like(t), t).float()

    def _scores(self, logvar: torch.Tensor | None) -> torch.Tensor:
        if self.order == "predicted":
            if logvar is None:
                raise SrmBenchError("predicted order needs the model's per-patch log-variance")
            return logvar.float() + 1e-6 * self.keys
        if self.order == "graph":
            assert self.graph is not None
            certainty = (1.0 - self.levels()) @ self.graph.to(self.keys.dtype)
            return -certainty + 1e-6 * self.keys
        if self.order == "raster":
            return torch.arange(self.num_patches, device=self.keys.device, dtype=self.keys.dtype).expand_as(self.keys)
        return self.keys

    def advance(self, logvar: torch.Tensor | None = None) -> torch.Tensor:
        """Start the patches whose slot opens at this step, move on one step, return the new levels."""
        j = self.step_index
        opened = (self.slot_start <= j).sum(1).double()
        target = torch.minimum(opened * self.top_k, self.unknown_count)
        have = (self.started & ~self.known).sum(1).double()
        need = (target - have).long()
        if int(need.max()) > 0:
            scores = self._scores(logvar).masked_fill(self.started, float("inf"))
            ranks = scores.argsort(1).argsort(1)
            new = (ranks < need[:, None]) & ~self.started
            slot = ((have[:, None] + ranks) // self.top_k).long().clamp_max(self.num_patches - 1)
            s0 = self.slot_start.gather(1, slot).float()
            s1 = self.slot_end.gather(1, slot).float()
            self.start = torch.where(new, s0, self.start)
            self.length = torch.where(new, (s1 - s0).clamp_min(1.0), self.length)
            self.started = self.started | new
        self.step_index = j + 1
        return self.levels()


def sudoku_graph(device: torch.device | str = "cpu") -> torch.Tensor:
    """(81, 81) adjacency of Sudoku cells: same row, column or 3x3 box (no self-loops)."""
    idx = torch.arange(81, device=device)
    r, c = idx // 9, idx % 9
    box = (r // 3) * 3 + c // 3
    adj = (r[:, None] == r[None]) | (c[:, None] == c[None]) | (box[:, None] == box[None])
    return (adj & ~torch.eye(81, dtype=torch.bool, device=device)).float()


def make_schedule(config: SamplerConfig, num_patches: int, *, graph: torch.Tensor | None = None,
                  has_uncertainty: bool = True) -> RampSchedule:
    """Validate the knobs and build the schedule.

    Raises:
        SrmBenchError: a knob that does not apply, a graph order without a graph, a budget
            smaller than the number of patches for a sequential sampler.
    """
    config.validate(num_patches, has_graph=graph is not None, has_uncertainty=has_uncertainty)
    return RampSchedule(config, num_patches, graph)
