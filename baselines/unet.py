"""The paper's UNet with a per-pixel noise-level map.

An ADM-style UNet (residual blocks, attention at low resolutions, skip connections) whose
noise level is a map: the per-patch levels are expanded to pixels, resized bilinearly to
each resolution, embedded (sinusoid of 1000 t, then a 2-layer MLP shared by all
resolutions) and added by every residual block as a per-pixel bias before its second
GroupNorm. The embedding is computed once per resolution, not per block (the same maths
as per block, with far less memory).

With ``global_context > 0`` (ours, not the paper's) a global-context branch adds what GroupNorm
takes away. Every GroupNorm subtracts each group's image-wide mean, so with one or two channels a
group no residual branch and not the output head can see an image-wide sum: Even Pixels' colour
count. The branch averages pointwise features of the input over the image in fp32, weighted by
each pixel's clean-ness 1 - t, and adds a projection of them to every residual block after its
second GroupNorm (and to the output head after its GroupNorm). Its projections start at zero, so
at initialisation the network computes what the plain UNet computes.

With ``patch_pool`` (ours) every residual block at a resolution where a patch spans more than one pixel
adds, after its second GroupNorm, a zero-initialised 1 x 1 map of its features' mean over each patch:
the patch's own running content, which made a toy denoiser learn an exact colour count faster
(benchmarks/probe_patch_draw.py; on the Even Pixels SRM it did not help, lease 2026-11-29e).

With ``stem > 1`` (ours) the input is pixel-unshuffled by ``stem`` before the first convolution
and the output pixel-shuffled back: the UNet runs at 1 / stem of the image side, with ~stem^2
fewer FLOPs a step, for tasks whose images are large next to what must be reasoned about (Counting: 128 x 128).
The level map still has one level per patch; the stem divides the patch, so every stem cell has
one level.

Outputs: the mean prediction (C channels), the learned-variance interpolation v (C
channels, used as (v + 1) / 2 as in iDDPM) and one log-variance channel averaged
over each patch: the predicted uncertainty.
"""
from __future__ import annotations

from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

from srm_bench.errors import SrmBenchError

from .configs import UNetConfig
from .diffusion import DenoiserOutput, pixel_levels, timestep_embedding  # noqa: F401  (re-exported)


def zero_module(m: nn.Module) -> nn.Module:
    for p in m.parameters():
        nn.init.zeros_(p)
    return m


def patch_mean(h: torch.Tensor, k: int) -> torch.Tensor:
    """Each pixel's value replaced by the mean over its k x k patch (the patches tile the map from its corner)."""
    return F.avg_pool2d(h, k).repeat_interleave(k, dim=2).repeat_interleave(k, dim=3)


class ResBlock(nn.Module):
    def __init__(self, cin: int, cout: int, emb: int, dropout: float, groups: int, context: int = 0,
                 pool: int = 0) -> None:
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.emb = nn.Conv2d(emb, cout, 1)
        self.norm2 = nn.GroupNorm(groups, cout)
        self.drop = nn.Dropout(dropout)
        self.conv2 = zero_module(nn.Conv2d(cout, cout, 3, padding=1))
        self.skip = nn.Identity() if cin == cout else nn.Conv2d(cin, cout, 1)
        # the global context's per-channel shift after the second GroupNorm (zero at the start)
        self.ctx = zero_module(nn.Linear(context, cout)) if context else None
        # the patch pooling (``pool`` pixels a patch side here; zero at the start): each patch's mean feature
        self.pool_size = pool
        self.pool = zero_module(nn.Conv2d(cout, cout, 1)) if pool > 1 else None

    def forward(self, x: torch.Tensor, emb: torch.Tensor, ctx: torch.Tensor | None = None) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.emb(emb)  # per-pixel noise-level bias, added before the GroupNorm
        h = self.norm2(h)
        if self.ctx is not None and ctx is not None:
            h = h + self.ctx(ctx)[:, :, None, None]  # after the GroupNorm, which would remove it
        if self.pool is not None:
            h = h + self.pool(patch_mean(h, self.pool_size))
        h = self.conv2(self.drop(F.silu(h)))
        return self.skip(x) + h


class GlobalContext(nn.Module):
    """Image-wide sums of pointwise features of the clean part of the input, in fp32.

    ``forward(x, clean)``: ``x`` (B, C, H, W) the network's input, ``clean`` (B, 1, H, W) each
    pixel's 1 - t. Features f = MLP_1x1([x, clean]) are summed over the image weighted by
    ``clean`` and divided by the pixel count; each such mean is centred and scaled by learnt
    parameters, (s - c) * exp(g) (c = g = 0 at the start), and with the clean fraction goes through an
    MLP to an ``out``-wide vector (B, out). With ``squash`` the features are tanh(f): a feature that
    saturates on both colours is exactly +-1 there, so its mean counts them without the MLP having to
    divide by a colour-dependent feature value. Autocast is off inside: a count of one pixel in 1,024 is
    below bf16's resolution. The learnt gain is there because that one pixel moves a mean by ~1e-3:
    a network must amplify it ~1,000x to use it, and AdamW moves a weight by about the learning rate
    a step, so a weight would need ~10^5 steps to grow that large, a log-gain ~10^4.
    """

    def __init__(self, cin: int, width: int, out: int, squash: bool = False) -> None:
        super().__init__()
        self.squash = squash
        self.point = nn.Sequential(nn.Conv2d(cin + 1, width, 1), nn.SiLU(), nn.Conv2d(width, width, 1))
        self.centre = nn.Parameter(torch.zeros(width))
        self.log_gain = nn.Parameter(torch.zeros(width))
        self.mlp = nn.Sequential(nn.Linear(width + 1, out), nn.SiLU(), nn.Linear(out, out), nn.SiLU())

    def forward(self, x: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        with torch.autocast(x.device.type, enabled=False):
            x, clean = x.float(), clean.float()
            f = self.point(torch.cat([x, clean], dim=1))
            if self.squash:  # a saturated feature is +-1 on each colour: its mean is then an exact count
                f = torch.tanh(f)
            n = clean.shape[-1] * clean.shape[-2]
            means = (f * clean).sum(dim=(2, 3)) / n
            scaled = (means - self.centre.float()) * self.log_gain.float().exp()
            return cast(torch.Tensor, self.mlp(torch.cat([scaled, clean.sum(dim=(2, 3)) / n], dim=1)))


class AttnBlock(nn.Module):
    def __init__(self, ch: int, head_channels: int, groups: int) -> None:
        super().__init__()
        self.heads = max(1, ch // head_channels)
        self.norm = nn.GroupNorm(groups, ch)
        self.qkv = nn.Conv2d(ch, 3 * ch, 1)
        self.proj = zero_module(nn.Conv2d(ch, ch, 1))

    def forward(self, x: torch.Tensor, emb: torch.Tensor | None = None) -> torch.Tensor:
        b, c, h, w = x.shape
        qkv = self.qkv(self.norm(x)).reshape(b, 3, self.heads, c // self.heads, h * w)
        q, k, v = (qkv[:, i].transpose(-1, -2) for i in range(3))
        out = F.scaled_dot_product_attention(q, k, v)
        return x + self.proj(out.transpose(-1, -2).reshape(b, c, h, w))


class Down(nn.Module):
    def __init__(self, ch: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor, emb: torch.Tensor | None = None) -> torch.Tensor:
        return self.conv(x)


class Up(nn.Module):
    """Nearest upsampling to the skip's size (63 -> 126 as well as 32 -> 63), then a conv."""

    def __init__(self, ch: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
        return self.conv(F.interpolate(x, size=size, mode="nearest"))


class UNet(nn.Module):
    """UNet denoiser with per-patch noise levels.

    ``forward(x, t, cond=None)``: ``x`` (B, C, H, W) noisy image, ``t`` (B, P) per-patch
    levels in [0, 1] (P = (H / patch)^2, row-major), ``cond`` (B, cond_channels, H, W)
    extra input channels (the DDPM's mask and masked image for Sudoku).
    """

    # Saved in float32 (the rest in bf16): a centre learnt to ~1e-3 of a mean would not survive bf16.
    full_precision_prefixes = ("context.",)

    def __init__(self, config: UNetConfig) -> None:
        super().__init__()
        config.validate()
        self.config = config
        c = config
        base = c.base_channels
        emb = c.emb_channels
        self.grid = (c.image_size // c.patch_size, c.image_size // c.patch_size)
        self.emb_mlp = nn.Sequential(nn.Linear(c.time_channels, emb), nn.SiLU(), nn.Linear(emb, emb))
        s = c.stem
        self.conv_in = nn.Conv2d((c.in_channels + c.cond_channels) * s * s, base, 3, padding=1)
        gc = 2 * c.global_context  # width of the context vector the blocks receive (0: no branch)
        self.context = GlobalContext(c.in_channels + c.cond_channels, c.global_context, gc,
                                     c.context_squash) if gc else None
        sizes = [c.image_size // s]
        for _ in range(len(c.channel_mult) - 1):
            sizes.append((sizes[-1] + 1) // 2)
        self.sizes = sizes
        side = c.image_size // c.patch_size  # patches a row

        def pool(level: int) -> int:  # a patch's side in pixels at this level, where it is whole and > 1 (else 0)
            return sizes[level] // side if c.patch_pool and sizes[level] % side == 0 and sizes[level] > side else 0
        self.down = nn.ModuleList()
        skips = [base]
        ch = base
        for level, mult in enumerate(c.channel_mult):
            for _ in range(c.num_res_blocks):
                blocks: list[nn.Module] = [ResBlock(ch, mult * base, emb, c.dropout, c.groups, gc, pool(level))]
                ch = mult * base
                if sizes[level] in c.attention_resolutions:
                    blocks.append(AttnBlock(ch, c.head_channels, c.groups))
                self.down.append(nn.ModuleList(blocks))
                skips.append(ch)
            if level < len(c.channel_mult) - 1:
                self.down.append(nn.ModuleList([Down(ch)]))
                skips.append(ch)
        self.mid = nn.ModuleList([ResBlock(ch, ch, emb, c.dropout, c.groups, gc), AttnBlock(ch, c.head_channels, c.groups),
                                  ResBlock(ch, ch, emb, c.dropout, c.groups, gc)])
        self.up = nn.ModuleList()
        for level, mult in reversed(list(enumerate(c.channel_mult))):
            for j in range(c.num_res_blocks + 1):
                blocks = [ResBlock(ch + skips.pop(), mult * base, emb, c.dropout, c.groups, gc, pool(level))]
                ch = mult * base
                if sizes[level] in c.attention_resolutions:
                    blocks.append(AttnBlock(ch, c.head_channels, c.groups))
                if level > 0 and j == c.num_res_blocks:
                    blocks.append(Up(ch))
                self.up.append(nn.ModuleList(blocks))
        self.norm_out = nn.GroupNorm(c.groups, ch)
        self.ctx_out = zero_module(nn.Linear(gc, ch)) if gc else None
        self.conv_out = zero_module(nn.Conv2d(ch, (2 * c.in_channels + 1) * s * s, 3, padding=1))
        # what each patch holds, read from the output features averaged over the patch (config.classes)
        self.class_head = nn.Linear(ch, c.classes) if c.classes else None

    def _embedding_at(self, full: torch.Tensor, size: int, dtype: torch.dtype) -> torch.Tensor:
        """SiLU(MLP(sinusoid(1000 t))) per pixel of a (B, 1, H, W) level map resized to ``size``."""
        m = full if size == full.shape[-1] else F.interpolate(full, size=(size, size), mode="bilinear", align_corners=False)
        e = self.emb_mlp(timestep_embedding(m[:, 0], self.config.time_channels).to(dtype))
        return F.silu(e).permute(0, 3, 1, 2)

    def _embeddings(self, full: torch.Tensor, dtype: torch.dtype) -> dict[int, torch.Tensor]:
        """The embedding map of every resolution from the pixel level map, computed once per forward pass."""
        return {size: self._embedding_at(full, size, dtype) for size in self.sizes}

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None = None) -> DenoiserOutput:
        c = self.config
        if t.shape != (x.shape[0], self.grid[0] * self.grid[1]):
            raise SrmBenchError(f"noise levels must be (batch, {self.grid[0] * self.grid[1]}), got {tuple(t.shape)}")
        if c.cond_channels:
            if cond is None:
                raise SrmBenchError("this model takes conditioning channels (mask and masked image); pass cond")
            x = torch.cat([x, cond], dim=1)
        dtype = torch.get_autocast_dtype("cuda") if x.is_cuda and torch.is_autocast_enabled("cuda") else x.dtype
        full = pixel_levels(t.float(), self.grid, self.config.patch_size)
        embs = self._embeddings(full, dtype)
        ctx = None if self.context is None else self.context(x, 1.0 - full).to(dtype)
        h = self.conv_in(F.pixel_unshuffle(x, c.stem) if c.stem > 1 else x)
        hs = [h]

        def apply(blk: nn.Module, h: torch.Tensor) -> torch.Tensor:
            if isinstance(blk, Down):
                return cast(torch.Tensor, blk(h))
            if isinstance(blk, ResBlock):
                return blk(h, embs[h.shape[-1]], ctx)
            return cast(torch.Tensor, blk(h, embs[h.shape[-1]]))

        for blocks in self.down:
            for blk in cast(nn.ModuleList, blocks):
                h = apply(blk, h)
            hs.append(h)
        for blk in self.mid:
            h = apply(blk, h)
        for blocks in self.up:
            skip = hs.pop()
            h = torch.cat([h, skip], dim=1)
            for blk in cast(nn.ModuleList, blocks):
                h = blk(h, hs[-1].shape[-2:]) if isinstance(blk, Up) else apply(blk, h)
        h = self.norm_out(h)
        if self.ctx_out is not None and ctx is not None:
            h = h + self.ctx_out(ctx)[:, :, None, None]
        feats = F.silu(h)
        out = self.conv_out(feats)
        out = (F.pixel_shuffle(out, c.stem) if c.stem > 1 else out).float()
        ci = c.in_channels
        logvar = F.avg_pool2d(out[:, 2 * ci:], c.patch_size).flatten(1)
        logits = None
        if self.class_head is not None:  # (B, P, classes), patches row-major as t
            per_patch = F.avg_pool2d(feats, c.patch_size // c.stem).flatten(2).transpose(1, 2)
            logits = self.class_head(per_patch).float()
        return DenoiserOutput(out[:, :ci], out[:, ci:2 * ci], logvar, logits)
