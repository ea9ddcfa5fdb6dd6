"""Configurations of the baselines' networks and noise-level samplers, free of torch so
that presets, ``srm-bench train --help`` and checkpoint metadata can be read without it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from srm_bench.errors import SrmBenchError

KINDS = ("shared", "independent", "uniform_tbar")
SEQUENTIAL_ORDERS = ("random", "predicted")  # how sequential_mix's rows take up their patches


def split_alpha(d: int, sharpness: float) -> float:
    """Beta(alpha, alpha) parameter of a split of ``d`` patches: (d - 1 - d mod 2)^1.05 * sharpness."""
    return float((d - 1 - d % 2) ** 1.05 * sharpness)


@dataclass(frozen=True)
class UNetConfig:
    """Architecture of a :class:`UNet` (stored in checkpoints)."""

    image_size: int = 32
    in_channels: int = 3
    cond_channels: int = 0
    patch_size: int = 4
    base_channels: int = 64
    channel_mult: tuple[int, ...] = (1, 2, 2, 4)
    num_res_blocks: int = 2
    attention_resolutions: tuple[int, ...] = (8, 4)
    head_channels: int = 64
    dropout: float = 0.1
    groups: int = 32
    emb_channels: int = 512
    time_channels: int = 256  # sinusoid width before the MLP
    # Width of the global-context branch (ours, not the paper's; 0 = off): image-wide sums of
    # pointwise features of the clean part of the input, in fp32, added after the second
    # GroupNorm of every residual block and after the output GroupNorm.
    global_context: int = 0
    # With the branch: its pointwise features squashed by tanh before the image-wide means (ours), so that a
    # feature can saturate to +-1 on both of Even Pixels' colours, whatever their hue, and its mean count them
    # exactly (benchmarks/probe_count_precision.py). The same parameters as without; written into the
    # config only when on, so that weights saved before it existed keep their identity.
    context_squash: bool = False
    # A pooling over each patch (ours): in every residual block at a resolution where a patch spans more than
    # one pixel, a zero-initialised 1 x 1 map of the features' mean over each patch, added after the second
    # GroupNorm. In a toy it makes a denoiser learn to draw a patch with an exact colour count faster
    # (benchmarks/probe_patch_draw.py); added to the shipped Even Pixels SRM it did not move its samples
    # (lease 2026-11-29e). Written into the config only when on.
    patch_pool: bool = False
    # Pixel-unshuffle factor of the input (ours; 1 = the paper's UNet): the network runs at
    # image_size / stem on stem^2 times the channels and pixel-shuffles its output back, so a
    # step takes ~stem^2 fewer FLOPs. Must divide the patch size, so each stem cell lies in one patch.
    stem: int = 1
    # Classes of a per-patch class head (ours; 0 = none): logits from the output features averaged over each
    # patch, for the auxiliary class loss (Counting: what a patch holds, preset small-s2-aux). Written into the
    # config only when on.
    classes: int = 0
    arch: str = field(default="unet")

    def validate(self) -> None:
        if self.image_size % self.patch_size:
            raise SrmBenchError(f"image size {self.image_size} is not a multiple of the patch size {self.patch_size}")
        for m in self.channel_mult:
            if (m * self.base_channels) % self.groups:
                raise SrmBenchError(f"channels {m * self.base_channels} not divisible by {self.groups} groups")
        if self.global_context < 0:
            raise SrmBenchError(f"global_context must be >= 0 (0 = off), got {self.global_context}")
        if self.context_squash and not self.global_context:
            raise SrmBenchError("context_squash needs the global-context branch (global_context > 0)")
        if self.stem < 1 or self.patch_size % self.stem:
            raise SrmBenchError(f"stem {self.stem} must be >= 1 and divide the patch size {self.patch_size}")
        if self.classes < 0:
            raise SrmBenchError(f"classes must be >= 0 (0 = no class head), got {self.classes}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["channel_mult"] = list(self.channel_mult)
        d["attention_resolutions"] = list(self.attention_resolutions)
        if not self.context_squash:
            del d["context_squash"]  # the identity of every network saved before the option
        if not self.patch_pool:
            del d["patch_pool"]
        if not self.classes:
            del d["classes"]
        return d



DIT_SIZES = {"S": (384, 12, 6), "B": (768, 12, 12)}


@dataclass(frozen=True)
class DiTConfig:
    """Architecture of a :class:`DiT` (stored in checkpoints)."""

    image_size: int = 32
    in_channels: int = 3
    cond_channels: int = 0
    patch_size: int = 4
    token_patch: int = 2
    hidden: int = 384
    depth: int = 12
    heads: int = 6
    mlp_ratio: float = 4.0
    time_channels: int = 256
    arch: str = "dit"

    def validate(self) -> None:
        if self.image_size % self.patch_size or self.patch_size % self.token_patch:
            raise SrmBenchError(
                f"token size {self.token_patch} must divide the variable size {self.patch_size}, "
                f"which must divide the image size {self.image_size}"
            )
        if self.hidden % self.heads:
            raise SrmBenchError(f"hidden size {self.hidden} is not divisible by {self.heads} heads")

    def to_dict(self) -> dict:
        return asdict(self)



@dataclass(frozen=True)
class CellNetConfig:
    """Architecture of a :class:`CellNet` (stored in checkpoints)."""

    image_size: int = 252
    in_channels: int = 1
    cond_channels: int = 0
    patch_size: int = 28
    channels: tuple[int, ...] = (32, 64, 64)
    hidden: int = 256
    depth: int = 8
    heads: int = 8
    mlp_ratio: float = 4.0
    groups: int = 8
    emb_channels: int = 128
    time_channels: int = 128
    encoder: str = "conv"  # "conv": conv UNet encoder per variable; "linear": one linear map of its pixels
    decoder: str = "conv"  # "conv": conv decoder with skips; "mlp": per-subpatch MLP (linear encoder only)
    sub_patch: int = 4  # side of a subpatch of the "mlp" decoder
    dec_hidden: int = 128  # width of the "mlp" decoder
    pos: str = "learned"  # "learned": one embedding per variable (init std 0.02); "rc": row + column embeddings; "rcb": + box
    classes: int = 0  # >0: a head reading each variable's class (Sudoku digit) from its token, for an auxiliary loss
    arch: str = "cellnet"

    def validate(self) -> None:
        if self.image_size % self.patch_size:
            raise SrmBenchError(f"image size {self.image_size} is not a multiple of the patch size {self.patch_size}")
        if self.hidden % self.heads:
            raise SrmBenchError(f"hidden size {self.hidden} is not divisible by {self.heads} heads")
        if self.encoder not in ("conv", "linear"):
            raise SrmBenchError(f"unknown CellNet encoder {self.encoder!r}; valid: conv, linear")
        if self.decoder not in ("conv", "mlp"):
            raise SrmBenchError(f"unknown CellNet decoder {self.decoder!r}; valid: conv, mlp")
        if self.decoder == "mlp" and (self.encoder != "linear" or self.patch_size % self.sub_patch):
            raise SrmBenchError("the mlp decoder needs the linear encoder and a sub_patch that divides the patch size")
        if self.pos not in ("learned", "rc", "rcb"):
            raise SrmBenchError(f"unknown CellNet position embedding {self.pos!r}; valid: learned, rc, rcb")
        if self.classes < 0:
            raise SrmBenchError(f"classes must be >= 0 (got {self.classes})")
        for ch in self.channels:
            if ch % self.groups:
                raise SrmBenchError(f"channels {ch} not divisible by {self.groups} groups")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["channels"] = list(self.channels)
        return d



@dataclass(frozen=True)
class TSamplingConfig:
    """How training noise levels are drawn (stored in checkpoints)."""

    kind: str = "uniform_tbar"
    sharpness: float = 1.0
    zero_patch_prob: float = 0.0
    zero_patch_max_frac: float = 0.5
    weight_bins: int = 100
    # Our deviation (docs/sudoku-baselines.md, eighth lease): the fraction of rows drawn as a
    # state of the one-patch-at-a-time sampler instead (a random number of the open patches clean,
    # one at t ~ U(0, 1), the rest pure noise); 0 is the paper's recipe.
    sequential_mix: float = 0.0
    # Our deviation: the overlap of the sequential sampler whose states sequential_mix's rows are
    # (0: one patch at a time, as above; e.g. 0.95: ~20 patches in flight at evenly spaced levels,
    # the states Even Pixels' overlap-0.95 samplers visit).
    sequential_overlap: float = 0.0
    # Our deviation (docs/even-pixels-baselines.md, after the twenty-fifth lease): the order in which
    # sequential_mix's rows take up their patches. "random" (as the random-order sampler); "predicted":
    # the rows' noisy patches are ranked by the uncertainty the EMA network predicts for them with all
    # of them at pure noise (one extra forward pass of those rows), the most certain furthest along, as
    # the predicted-order sampler begins the patch it is most certain of next. The clean patches stay a
    # random set.
    sequential_order: str = "random"
    # Our deviation (docs/even-pixels-baselines.md, after the twenty-seventh lease): the share of the sampler's
    # budget, counted back from its end, at which sequential_mix's rows are read (position u ~ U(1 - tail, 1)).
    # 1 reads the whole run; e.g. 0.25 only its last quarter, where the last ~20 patches of an overlap-0.95
    # sampler close the count (a sample is exact only if they do).
    sequential_tail: float = 1.0
    # Our deviation (docs/baselines.md, "Counting: lease t"): the fraction of rows drawn as the state
    # of parallel sampling instead: one level t ~ U(0, 1) for every patch and no clean patch (the
    # zero-patch rule skips them), so the SRM also learns to denoise without clean context; 0 is
    # the paper's recipe.
    parallel_mix: float = 0.0
    # Our deviation (docs/even-pixels-baselines.md, "Where in the draw the count goes"): the fraction of rows drawn
    # as completion states instead, whatever they would have been otherwise: K ~ U{1 .. completion_max} of the
    # open patches noisy, each at its own t ~ U(0, 1] (weight 1), and every other patch clean (weight 0), so that
    # the noisy patches' content is pinned by the clean rest, as for the last patches of a sequential sampler.
    completion_mix: float = 0.0
    completion_max: int = 4

    def validate(self) -> None:
        if self.kind not in KINDS:
            raise SrmBenchError(f"unknown t-sampling {self.kind!r}; valid: {', '.join(KINDS)}")
        if not self.sharpness > 0:
            raise SrmBenchError(f"sharpness must be > 0 (got {self.sharpness})")
        if not 0 <= self.zero_patch_prob <= 1 or not 0 <= self.zero_patch_max_frac <= 1:
            raise SrmBenchError("zero_patch_prob and zero_patch_max_frac must lie in [0, 1]")
        if not 0 <= self.sequential_mix <= 1:
            raise SrmBenchError(f"sequential_mix must lie in [0, 1] (got {self.sequential_mix})")
        if self.sequential_mix > 0 and self.kind == "shared":
            raise SrmBenchError("sequential_mix applies to per-patch levels, not to the shared level of the DDPM")
        if not 0 <= self.sequential_overlap < 1:
            raise SrmBenchError(f"sequential_overlap must lie in [0, 1) (got {self.sequential_overlap})")
        if self.sequential_overlap > 0 and self.sequential_mix == 0:
            raise SrmBenchError("sequential_overlap shapes the rows of sequential_mix; set sequential_mix too")
        if self.sequential_order not in SEQUENTIAL_ORDERS:
            raise SrmBenchError(f"unknown sequential_order {self.sequential_order!r}; valid: {', '.join(SEQUENTIAL_ORDERS)}")
        if self.sequential_order != "random" and self.sequential_mix == 0:
            raise SrmBenchError("sequential_order orders the rows of sequential_mix; set sequential_mix too")
        if not 0 < self.sequential_tail <= 1:
            raise SrmBenchError(f"sequential_tail must lie in (0, 1] (got {self.sequential_tail})")
        if self.sequential_tail != 1 and self.sequential_mix == 0:
            raise SrmBenchError("sequential_tail places the rows of sequential_mix; set sequential_mix too")
        if not 0 <= self.parallel_mix <= 1:
            raise SrmBenchError(f"parallel_mix must lie in [0, 1] (got {self.parallel_mix})")
        if self.parallel_mix > 0 and self.kind == "shared":
            raise SrmBenchError("parallel_mix applies to per-patch levels; the DDPM's rows are all of that kind already")
        if self.parallel_mix > 0 and self.sequential_mix > 0:
            raise SrmBenchError("use parallel_mix or sequential_mix, not both (each replaces a share of the rows)")
        if not 0 <= self.completion_mix <= 1:
            raise SrmBenchError(f"completion_mix must lie in [0, 1] (got {self.completion_mix})")
        if self.completion_mix > 0 and self.kind == "shared":
            raise SrmBenchError("completion_mix applies to per-patch levels, not to the shared level of the DDPM")
        if self.completion_mix > 0 and self.parallel_mix > 0:
            raise SrmBenchError("use parallel_mix or completion_mix, not both (a completion row is mostly clean, a "
                                "parallel one has no clean patch)")
        if isinstance(self.completion_max, bool) or not isinstance(self.completion_max, int) or self.completion_max < 1:
            raise SrmBenchError(f"completion_max must be a whole number >= 1 (got {self.completion_max!r})")
        if self.completion_max != 4 and self.completion_mix == 0:
            raise SrmBenchError("completion_max sizes the rows of completion_mix; set completion_mix too")

    def to_dict(self) -> dict:
        return asdict(self)
