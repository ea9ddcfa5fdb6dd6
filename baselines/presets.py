"""Training presets in one place: ``paper`` (the paper's Table 5 per task), ``small`` (fits
a few GPU-minutes), ``tiny`` (CPU tests) and the DiT sizes ``dit-s`` / ``dit-b``.

``make_config(task, baseline, preset)`` returns a :class:`TrainConfig`; every field can be
overridden afterwards (the CLI does so for --steps, --batch-size, --lr ...).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, TypedDict

from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task

from .configs import DIT_SIZES, CellNetConfig, DiTConfig, TSamplingConfig, UNetConfig

BASELINES = ("srm", "ddpm")


class PaperRow(TypedDict):
    """One task's row of the paper's Table 5: UNet width, level multipliers and attention
    resolutions, sharpness, batch size, learning rate, steps and zero-patch fraction."""

    base: int
    mult: tuple[int, ...]
    attn: tuple[int, ...]
    sharpness: float
    batch: int
    lr: float
    steps: int
    zero: float


class Shape(TypedDict):
    """Image shape keywords shared by every network config (see :func:`_shape`)."""

    image_size: int
    in_channels: int
    cond_channels: int
    patch_size: int


# The paper's Table 5 and the reference code: UNet, sharpness, batch, lr, steps, zero patches.
PAPER: dict[str, PaperRow] = {
    "sudoku": dict(base=128, mult=(1, 1, 2, 2, 4, 4), attn=(16, 8), sharpness=1.0, batch=56, lr=1e-4, steps=250_000, zero=0.0),
    "even-pixels": dict(base=64, mult=(1, 2, 2, 4), attn=(8, 4), sharpness=0.75, batch=2048, lr=8e-4, steps=100_000, zero=1.0),
    "counting-polygons": dict(base=128, mult=(1, 1, 2, 2, 4), attn=(16, 8), sharpness=0.5, batch=56, lr=1e-4, steps=250_000, zero=1.0),
}
PAPER["counting-stars"] = PAPER["counting-polygons"]
# (image side, channels, patch side) of the tasks that have presets, read from the task
# registry (torch-free, so ``srm-bench train --help`` stays light).
TASK_SHAPES = {t: (get_task(t).image_side, get_task(t).channels, get_task(t).patch_size) for t in PAPER}


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run needs besides its data; stored in every checkpoint."""

    task: str
    baseline: str
    preset: str
    arch: str
    model: dict[str, Any]
    noise_path: str = "rectified_flow"
    target: str = "velocity"
    tsampling: dict[str, Any] = field(default_factory=dict)
    loss: dict[str, Any] = field(default_factory=lambda: {"mse": 1.0, "vlb": 1.0, "nll": 0.01, "vlb_steps": 1000})
    batch_size: int = 56
    lr: float = 1e-4
    betas: tuple[float, float] = (0.95, 0.999)
    weight_decay: float = 1e-6
    warmup_steps: int = 1000
    steps: int = 250_000
    # Linear decay of the learning rate to 0 over the last cooldown_steps of ``steps`` (0: constant
    # after the warm-up, the paper's schedule).
    cooldown_steps: int = 0
    grad_clip: float = 1.0
    ema_decay: float = 0.9999
    # A second EMA tracked in the same run (0: none), written to weights-ema2.safetensors: a race of
    # EMA decays at no cost in images (the paper keeps 0.9999; our Even Pixels recipe 0.999).
    ema_decay2: float = 0.0
    bf16: bool = True
    compile: bool = False
    # Replay the forward and backward of every step as one captured CUDA graph (train.GraphedGrads):
    # the step no longer waits on the host's ~2,600 kernel launches; gradients are all-reduced by
    # the loop, not by DDP. A runtime option, like compile: the CPU tests find the same weights as the
    # plain step and as DDP; on an H200, benchmarks/check_cuda_graph.py found its gradients equal bit for bit (lease y).
    cuda_graph: bool = False
    seed: int = 0
    log_every: int = 50
    ckpt_every: int = 1000
    train_items: int = 100_000

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["betas"] = list(self.betas)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        d = dict(d)
        d["betas"] = tuple(d["betas"])
        return cls(**d)

    def identity(self) -> dict[str, Any]:
        """What must match for a checkpoint to be resumed or reused: task, baseline, preset, model."""
        return {"task": self.task, "baseline": self.baseline, "preset": self.preset, "arch": self.arch, "model": self.model}


def _shape(task: str, baseline: str) -> Shape:
    """Image size, channels, patch size and conditioning channels of a task's denoiser: the
    Sudoku DDPM also takes [mask, masked image] (the paper's conditioning by concatenation)."""
    size, ch, patch = TASK_SHAPES[task]
    cond = ch + 1 if baseline == "ddpm" and task == "sudoku" else 0
    return {"image_size": size, "in_channels": ch, "cond_channels": cond, "patch_size": patch}


def _unet(task: str, baseline: str, base: int, mult: tuple[int, ...], attn: tuple[int, ...], **kw: Any) -> dict[str, Any]:
    return UNetConfig(**_shape(task, baseline), base_channels=base, channel_mult=mult, attention_resolutions=attn,
                      **kw).to_dict()


def _dit(task: str, baseline: str, size_name: str, token: int | None = None) -> dict[str, Any]:
    hidden, depth, heads = DIT_SIZES[size_name]
    token = token or {"sudoku": 7, "even-pixels": 2}.get(task, 4)
    return DiTConfig(**_shape(task, baseline), token_patch=token, hidden=hidden, depth=depth, heads=heads).to_dict()


def _cellnet(task: str, baseline: str, **kw: Any) -> dict[str, Any]:
    return CellNetConfig(**_shape(task, baseline), **kw).to_dict()


# CellNet sizes: per-variable conv UNet widths and the variable transformer (hidden, depth, heads, mlp ratio).
CELL_SIZES: dict[str, dict[str, Any]] = {
    "cell": dict(channels=(32, 64, 64), hidden=256, depth=8, heads=8, mlp_ratio=3.0),
    "cell-s": dict(channels=(16, 32, 64), hidden=256, depth=8, heads=8, mlp_ratio=3.0),
    "cell-lite": dict(channels=(16, 32, 32), hidden=256, depth=8, heads=8, mlp_ratio=3.0, encoder="linear"),
    "cell-mlp": dict(channels=(32,), hidden=256, depth=8, heads=8, mlp_ratio=3.0, encoder="linear", decoder="mlp"),
    # The position-code ablation of cell-aux: cell-mlp with row/column/box embeddings, the
    # paper's objective (no class head, no auxiliary loss).
    "cell-rcb": dict(channels=(32,), hidden=256, depth=8, heads=8, mlp_ratio=3.0, encoder="linear", decoder="mlp",
                     pos="rcb"),
}
# ----------------------------------------------------------------------------- the presets
# One factory per preset, ``(task, baseline, common) -> TrainConfig`` with ``common`` the
# task, baseline, preset and training levels; the dict also feeds the CLI's choices.

def _paper(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """The paper's Table 5."""
    p = PAPER[task]
    return TrainConfig(arch="unet", model=_unet(task, baseline, p["base"], p["mult"], p["attn"]),
                       batch_size=p["batch"], lr=p["lr"], steps=p["steps"], **common)


def _small(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """Minutes on one GPU."""
    p = PAPER[task]
    if task == "even-pixels":  # the paper's 19.7M UNet, a batch and schedule for minutes, not days
        model = _unet(task, baseline, p["base"], p["mult"], p["attn"])
        return TrainConfig(arch="unet", model=model, batch_size=256, lr=4e-4, steps=20_000, warmup_steps=500,
                           ema_decay=0.999, **common)
    model = _unet(task, baseline, 32, p["mult"][:-1], tuple(p["attn"]), emb_channels=128)
    return TrainConfig(arch="unet", model=model, batch_size=64, lr=2e-4, steps=50_000, warmup_steps=500,
                       ema_decay=0.999, **common)


def _tiny(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """CPU smoke tests."""
    toy: dict[str, Any] = dict(lr=1e-3, steps=20, warmup_steps=2, ema_decay=0.9, bf16=False, log_every=1, ckpt_every=10, train_items=64)
    if task == "sudoku":
        # CellNet at toy width: trains on a CPU (the UNet's attention over 126x126 positions does not fit).
        model = _cellnet(task, baseline, channels=(8, 8), hidden=32, depth=1, heads=2, groups=4, emb_channels=32,
                         time_channels=32)
        return TrainConfig(arch="cellnet", model=model, batch_size=4, **toy, **common)
    model = _unet(task, baseline, 32, (1, 2), (), emb_channels=64, time_channels=32, groups=8, dropout=0.0)
    return TrainConfig(arch="unet", model=model, batch_size=8, **toy, **common)


def _dit_preset(size_name: str) -> Any:
    def factory(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
        p = PAPER[task]
        return TrainConfig(arch="dit", model=_dit(task, baseline, size_name), batch_size=p["batch"], lr=p["lr"],
                           steps=p["steps"], **common)
    factory.__doc__ = f"DiT-{size_name} at the paper's batch and schedule."
    return factory


def _dit_s14(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """DiT-S with 14x14-pixel tokens (Sudoku: 2x2 tokens per cell, 324 tokens), the follow-up
    library's Sudoku network, at the paper's batch and schedule."""
    if TASK_SHAPES[task][2] % 14:
        raise SrmBenchError(f"preset dit-s14 needs patches a multiple of 14 pixels (sudoku); {task} has "
                            f"{TASK_SHAPES[task][2]}-pixel patches")
    p = PAPER[task]
    return TrainConfig(arch="dit", model=_dit(task, baseline, "S", token=14), batch_size=p["batch"], lr=p["lr"],
                       steps=p["steps"], **common)


# A recipe for GPU-hours, not days (see docs/sudoku-baselines.md).
FAST: dict[str, Any] = dict(batch_size=256, lr=3e-4, steps=200_000, warmup_steps=1000, ema_decay=0.999, log_every=100, ckpt_every=2000)


def _dit_cell(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """One token per variable (the Sudoku probe of the training-engine issue), DiT-S width."""
    shape = _shape(task, baseline)
    model = DiTConfig(**shape, token_patch=shape["patch_size"], hidden=384, depth=12, heads=6).to_dict()
    return TrainConfig(arch="dit", model=model, **FAST, **common)


def _cell_preset(name: str) -> Any:
    def factory(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
        return TrainConfig(arch="cellnet", model=_cellnet(task, baseline, **CELL_SIZES[name]), **FAST, **common)
    factory.__doc__ = f"CellNet {name}: {CELL_SIZES[name]}."
    return factory


# Per-variable classes of the tasks whose data carry them (the auxiliary class loss).
TASK_CLASSES = {"sudoku": 9}


def _cell_aux(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """cell-mlp plus row/column/box position embeddings and a class head on each cell's token,
    trained with an auxiliary cross-entropy on the cell's digit (weight 1): deviations from the
    paper's network and objective, named in every result by this preset (see
    docs/sudoku-baselines.md)."""
    if task not in TASK_CLASSES:
        raise SrmBenchError(f"preset cell-aux needs per-variable classes, which {task} data do not carry; "
                            f"valid tasks: {', '.join(TASK_CLASSES)}")
    model = _cellnet(task, baseline, **CELL_SIZES["cell-rcb"], classes=TASK_CLASSES[task])
    loss = {"mse": 1.0, "vlb": 1.0, "nll": 0.01, "vlb_steps": 1000, "cls": 1.0}
    return TrainConfig(arch="cellnet", model=model, loss=loss, **FAST, **common)


def _cell_aux_b7(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """cell-aux whose uncertainty head learns the cell's error averaged over 7x7 pixel blocks
    (``LossWeights.nll_blur = 7``): the digit's shape, less its stroke style. The network is
    cell-aux's, so ``--init`` continues cell-aux weights (docs/sudoku-baselines.md)."""
    cfg = _cell_aux(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "nll_blur": 7})


def _cell_aux_tpl(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """cell-aux whose uncertainty head learns the error against the mean image of the cell's
    digit (``LossWeights.nll_target = "template"``): how unsure the network is *which* digit,
    without the ink and stroke style a known digit still varies by. Uses the digit labels, like
    cell-aux's class loss; ``--init`` continues cell-aux weights (docs/sudoku-baselines.md)."""
    cfg = _cell_aux(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "nll_target": "template"})


def _cell_aux_cls(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """cell-aux whose uncertainty head learns the class head's cross-entropy at the cell's digit
    (``LossWeights.nll_target = "class"``): the expected digit error, in which a confusion between
    look-alike digits counts as much as any other (the template target's spread is small there).
    Ours, like the template target; ``--init`` continues cell-aux weights (docs/sudoku-baselines.md).
    The error is floored at 1e-4 (``nll_floor``; a cell whose digit is 99.99% sure counts as
    sure): without it the loss became nan after 22,500 steps."""
    cfg = _cell_aux(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "nll_target": "class", "nll_floor": 1e-4})


def _cell_aux_miss(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """cell-aux-cls with the class head's probability of missing the cell's digit, 1 - p(digit), as the
    uncertainty head's target (``LossWeights.nll_target = "miss"``) in place of its cross-entropy: bounded, so a
    sure but wrong reading does not dominate the expectation the head learns; floored at 1e-4 as well. Ours."""
    cfg = _cell_aux_cls(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "nll_target": "miss"})


def _unet_s(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """The paper's UNet at base width 32 with the last level's width capped at 2x (Even Pixels:
    3.2M parameters, 6.4 MB in bf16, small enough to ship), at the paper's batch and learning
    rate; EMA 0.999 (a run of tens of thousands of steps, not the paper's 100k-250k)."""
    p = PAPER[task]
    mult = tuple(min(m, 2) for m in p["mult"])
    return TrainConfig(arch="unet", model=_unet(task, baseline, 32, mult, p["attn"]), batch_size=p["batch"],
                       lr=p["lr"], steps=p["steps"], warmup_steps=1000, ema_decay=0.999, log_every=100,
                       ckpt_every=1000, **common)


def _unet_s_g16(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s`` with 16 GroupNorm groups instead of 32: two channels a group at full resolution,
    the paper's UNet's ratio (base 64, 32 groups). With one channel a group, GroupNorm removes each
    channel's image-wide mean from the residual branches, and for Even Pixels that mean is the
    colour count the task is about. Same parameters as ``unet-s`` (GroupNorm's are per channel)."""
    cfg = _unet_s(task, baseline, common)
    return replace(cfg, model={**cfg.model, "groups": 16})


def _unet_s_gc(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s`` with a 32-wide global-context branch (ours): image-wide fp32 sums of pointwise
    features of the clean pixels, added after the GroupNorms (the second of every residual block,
    the output's), which would otherwise remove any image-wide mean: Even Pixels' colour count.
    3.27M parameters, 6.5 MB in bf16. Starts as ``unet-s`` computes (zero
    projections); ``--init`` from ``unet-s`` weights is refused (other parameters)."""
    cfg = _unet_s(task, baseline, common)
    return replace(cfg, model={**cfg.model, "global_context": 32})


def _unet_s_g16_gc(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-gc`` with ``unet-s-g16``'s 16 GroupNorm groups: the two changes together."""
    cfg = _unet_s_gc(task, baseline, common)
    return replace(cfg, model={**cfg.model, "groups": 16})


def _unet_s_g16_gct(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc`` with the branch's pointwise features squashed by tanh before their means (ours;
    ``UNetConfig.context_squash``): the same parameters, so ``--init`` takes ``unet-s-g16-gc`` weights."""
    cfg = _unet_s_g16_gc(task, baseline, common)
    return replace(cfg, model={**cfg.model, "context_squash": True})


def _unet_s_g16_gcp(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc`` with a pooling over each patch in its full- and half-resolution residual blocks (ours;
    ``UNetConfig.patch_pool``): ``--init`` takes ``unet-s-g16-gc`` weights, the new maps starting at zero."""
    cfg = _unet_s_g16_gc(task, baseline, common)
    return replace(cfg, model={**cfg.model, "patch_pool": True})


def _unet_s_g16_gc_cnt(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc`` with a per-patch class head and an auxiliary cross-entropy (weight 1) on how many of each
    patch's 16 pixels take the second hue (ours; Even Pixels only): Even Pixels' counterpart of Sudoku's digit loss,
    without which neither the Sudoku SRM nor its DDPM learnt the rules. ``--init`` takes ``unet-s-g16-gc`` weights:
    the head is new and leaves the denoiser's outputs as they were. Clean patches are left out of the loss."""
    if task != "even-pixels":
        raise SrmBenchError(f"preset unet-s-g16-gc-cnt needs Even Pixels' patch counts for its classes; {task} has none")
    from .streams import EVEN_PIXELS_CLASSES

    cfg = _unet_s_g16_gc(task, baseline, common)
    return replace(cfg, model={**cfg.model, "classes": EVEN_PIXELS_CLASSES}, loss={**cfg.loss, "cls": 1.0})


def _unet_s_g16_gc_cls(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc-cnt`` whose uncertainty head learns the class head's cross-entropy at the patch's count,
    floored at 1e-4 (``nll_target = "class"``), as Sudoku's shipped ``cell-aux-cls`` does for the cell's digit: there
    the pixel-error target ranked cells worse than the class head knew them (hard 0.470 against 0.680)."""
    cfg = _unet_s_g16_gc_cnt(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "nll_target": "class", "nll_floor": 1e-4})


# The mean terms' weights in the presets below: each makes its term's gradient as large as the rest of the loss's at
# the shipped unet-s-g16-gc weights (o-g16c), so neither takes the step over as o-g16y's class loss did (its gradient
# norm 1.1-9.5 against 0.10-0.19). Measured on the CPU, batch 512 of the annealing arms' rows (--sequential-mix 1.0
# --sequential-overlap 0.95 --completion-mix 0.5), four steps each, the same rows for each loss: gradient norm 0.140
# with the paper's loss, 1.02 with patch_mse = 1 (so its term alone ~1.01) and 7.70 with image_mse = 1; at the weights
# below, 0.21-0.28 (-pm) and 0.20-0.32 (-im) against 0.11-0.18 (docs/even-pixels-baselines.md, forty-third session).
MEAN_TERM_WEIGHTS = {"patch_mse": 0.15, "image_mse": 0.02}


def _unet_s_g16_gc_pm(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc`` whose loss adds the patch-mean term (``LossWeights.patch_mse``, ours; weight 0.15: each
    patch's per-channel mean residual, the direction its colour count lives in, weighs 1 + 0.15 x 16 = 3.4 times what
    the MSE gives it). The network and its parameters are ``unet-s-g16-gc``'s, so ``--init`` takes its weights, and
    the loss's optimum is the same. Even Pixels' samples fail on a count the last patches close one pixel off, and
    the count is <= 1.5% of the best reachable MSE (docs/even-pixels-baselines.md, forty-third session)."""
    cfg = _unet_s_g16_gc(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "patch_mse": MEAN_TERM_WEIGHTS["patch_mse"]})


def _unet_s_g16_gc_im(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc`` whose loss adds the image-mean term (``LossWeights.image_mse``, ours; weight 0.02): the
    error of the x0-hat colour total over the noisy patches, the one count Even Pixels' rule is about, weighs about
    1 + 0.02 N times what the MSE gives it (N the image's noisy pixels, ~500 in the arms' rows; the MSE's 1 / p(t)
    weights aside). Same network and parameters (``--init`` takes ``unet-s-g16-gc`` weights), same optimum."""
    cfg = _unet_s_g16_gc(task, baseline, common)
    return replace(cfg, loss={**cfg.loss, "image_mse": MEAN_TERM_WEIGHTS["image_mse"]})


def _unet_s_g16_gc_w(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``unet-s-g16-gc`` with the level embedding at 256 channels instead of 512 and the last
    level at 3x the base width instead of 2x (ours): the parameters move from the embedding to the
    network (Even Pixels: 3.72M against 3.27M, 7.4 MB in bf16, inside the 8 MB shipping limit)."""
    cfg = _unet_s_g16_gc(task, baseline, common)
    mult = [*cfg.model["channel_mult"][:-1], 3]
    return replace(cfg, model={**cfg.model, "emb_channels": 256, "channel_mult": mult})


def _small_stem(stem: int) -> Any:
    def factory(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
        cfg = _small(task, baseline, common)
        return replace(cfg, model={**cfg.model, "stem": stem})
    factory.__doc__ = (f"``small`` on a {stem}x{stem} pixel-unshuffled input (ours): the same widths at 1/{stem} of "
                       f"the side, ~{stem * stem}x fewer FLOPs a step (Counting: 128 -> {128 // stem} pixels a side).")
    return factory


def _small_s2_w(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``small-s2`` at twice the width (ours): base 64 channels (Counting: 7.2M parameters against
    1.9M, 14 MB in bf16, over the 4 MB shipping limit), a capacity test whose weights would be
    recorded by hash rather than shipped."""
    cfg = _small_stem(2)(task, baseline, common)
    return replace(cfg, model={**cfg.model, "base_channels": 2 * cfg.model["base_channels"]})


def _half_s2(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """Counting only (ours): the paper's UNet at half its width without its full-resolution level, on a 2x2
    pixel-unshuffled input: levels 64, 32, 16 and 8 pixels a side at 64, 128, 128 and 256 channels with attention
    at 16 and 8, as the paper's UNet has at those sides (at 128, 256, 256 and 512): the widths of the paper's Even
    Pixels UNet, 19.7M parameters (39 MB in bf16: recorded by hash, not shipped); ``small``'s recipe. The capacity
    step between ``small-s2`` (1.9M) and the paper's 76.8M (docs/baselines.md, "Counting: the next design, planned
    (forty-ninth session)")."""
    if not task.startswith("counting"):
        raise SrmBenchError(f"preset half-s2 is sized for Counting's 128x128 images; {task} has its own presets")
    cfg = _small(task, baseline, common)
    return replace(cfg, model=_unet(task, baseline, 64, (1, 2, 2, 4), tuple(PAPER[task]["attn"]), stem=2))


def _paper_q(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """Counting only (ours): the paper's Counting UNet at a quarter of its width with its full-resolution level, on
    the raw 128x128 image (no stem): levels 128, 64, 32, 16 and 8 pixels a side at 32, 32, 64, 64 and 128 channels,
    attention at 16 and 8; 5.9M parameters and ~29 GFLOPs a forward per image (``half-s2``: 19.7M and ~20), since
    the 128-pixel level is where the FLOPs are. The authors' Counting recipe (their code): batch 56, lr 1e-4 after a
    5,000-step linear warm-up, EMA 0.9999, 250k steps. The design step after ``half-s2`` should width on the
    unshuffled input not be the lever (docs/baselines.md, "What the authors' Counting code does")."""
    if not task.startswith("counting"):
        raise SrmBenchError(f"preset paper-q is sized for Counting's 128x128 images; {task} has its own presets")
    cfg = _paper(task, baseline, common)
    # GroupNorm keeps the paper's 4 channels a group (its 32 groups of 128 channels): 8 groups of 32
    model = {**cfg.model, "base_channels": cfg.model["base_channels"] // 4, "groups": cfg.model["groups"] // 4}
    return replace(cfg, model=model, warmup_steps=5000, ema_decay=0.9999)


def _small_s2_aux(task: str, baseline: str, common: dict[str, Any]) -> TrainConfig:
    """``small-s2`` with a per-patch class head and an auxiliary cross-entropy on what each patch holds
    (background, an object, a number; weight 1): ours, Counting's counterpart of Sudoku's digit loss (preset
    cell-aux), without which neither the Sudoku SRM nor its DDPM learnt the rules. The labels come from the
    stream's layouts (streams.patch_classes); clean patches are left out of the loss, as Sudoku's givens are."""
    if not task.startswith("counting"):
        raise SrmBenchError(f"preset small-s2-aux needs Counting's layouts for its patch classes; {task} has none")
    from .streams import PATCH_CLASSES

    cfg = _small_stem(2)(task, baseline, common)
    return replace(cfg, model={**cfg.model, "classes": PATCH_CLASSES}, loss={**cfg.loss, "cls": 1.0})


PRESET_FACTORIES = {
    "paper": _paper, "small": _small, "small-s2": _small_stem(2), "small-s2-w": _small_s2_w, "small-s2-aux": _small_s2_aux,
    "half-s2": _half_s2, "paper-q": _paper_q,
    "small-s4": _small_stem(4),
    "unet-s": _unet_s, "unet-s-g16": _unet_s_g16, "unet-s-gc": _unet_s_gc,
    "unet-s-g16-gc": _unet_s_g16_gc, "unet-s-g16-gct": _unet_s_g16_gct, "unet-s-g16-gcp": _unet_s_g16_gcp, "unet-s-g16-gc-w": _unet_s_g16_gc_w, "unet-s-g16-gc-cnt": _unet_s_g16_gc_cnt,
    "unet-s-g16-gc-cls": _unet_s_g16_gc_cls, "unet-s-g16-gc-pm": _unet_s_g16_gc_pm,
    "unet-s-g16-gc-im": _unet_s_g16_gc_im, "tiny": _tiny,
    "dit-s": _dit_preset("S"), "dit-b": _dit_preset("B"), "dit-s14": _dit_s14,
    "dit-cell": _dit_cell, **{name: _cell_preset(name) for name in CELL_SIZES}, "cell-aux": _cell_aux,
    "cell-aux-b7": _cell_aux_b7, "cell-aux-tpl": _cell_aux_tpl,
    "cell-aux-cls": _cell_aux_cls,
    "cell-aux-miss": _cell_aux_miss,
}
PRESETS = tuple(PRESET_FACTORIES)


def make_config(task: str, baseline: str, preset: str) -> TrainConfig:
    """The preset's TrainConfig for a task and baseline.

    Raises:
        SrmBenchError: unknown task, baseline or preset.
    """
    if task not in TASK_SHAPES:
        raise SrmBenchError(f"no baseline presets for task {task!r}; valid: {', '.join(TASK_SHAPES)}")
    if baseline not in BASELINES:
        raise SrmBenchError(f"unknown baseline {baseline!r}; valid: {', '.join(BASELINES)}")
    if preset not in PRESET_FACTORIES:
        raise SrmBenchError(f"unknown preset {preset!r}; valid: {', '.join(PRESETS)}")
    p = PAPER[task]
    # Zero patches as the authors' code: in every sample a fraction ~U(0, 1) of the patches is
    # clean (t = 0, weight 0); Sudoku's givens (0-80 of 81, uniform) already do this.
    ts = TSamplingConfig(kind="shared" if baseline == "ddpm" else "uniform_tbar", sharpness=p["sharpness"],
                         zero_patch_prob=0.0 if baseline == "ddpm" else p["zero"],
                         zero_patch_max_frac=1.0).to_dict()
    return PRESET_FACTORIES[preset](task, baseline, dict(task=task, baseline=baseline, preset=preset, tsampling=ts))


def with_overrides(cfg: TrainConfig, **kw: Any) -> TrainConfig:
    """``cfg`` with the non-None keyword values replaced."""
    return replace(cfg, **{k: v for k, v in kw.items() if v is not None})
