"""A Diffusion Transformer with one noise level per token (adaLN-Zero).

Tokens are square pixel patches of side ``token_patch``; each spatial variable (patch of
side ``patch_size``) is covered by (patch_size / token_patch)^2 tokens, all of which get
that variable's level. Every block is modulated per token: shift, scale and gate from the
token's own noise-level embedding, zero-initialised so each block starts as the identity.
Outputs are those of the UNet: mean, variance interpolation v, per-patch log-variance.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from srm_bench.errors import SrmBenchError

from .configs import DiTConfig  # noqa: F401  (re-exported)
from .diffusion import DenoiserOutput, timestep_embedding

def sincos_2d(n: int, dim: int) -> torch.Tensor:
    """(n*n, dim) fixed 2-D sine-cosine position embedding."""
    quarter = dim // 4
    freqs = torch.exp(-math.log(10000.0) * torch.arange(quarter, dtype=torch.float32) / quarter)
    pos = torch.arange(n, dtype=torch.float32)
    ang = pos[:, None] * freqs[None]
    row = torch.cat([ang.sin(), ang.cos()], 1)
    emb = torch.cat([row[:, None, :].expand(n, n, -1), row[None, :, :].expand(n, n, -1)], -1).reshape(n * n, -1)
    return F.pad(emb, (0, dim - emb.shape[1]))


def modulate(x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * (1 + scale) + shift


class DiTBlock(nn.Module):
    def __init__(self, hidden: int, heads: int, mlp_ratio: float) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(hidden, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.norm2 = nn.LayerNorm(hidden, elementwise_affine=False, eps=1e-6)
        inner = int(hidden * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(hidden, inner), nn.GELU(approximate="tanh"), nn.Linear(inner, hidden))
        self.ada = nn.Linear(hidden, 6 * hidden)
        nn.init.zeros_(self.ada.weight)
        nn.init.zeros_(self.ada.bias)

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        sh1, sc1, g1, sh2, sc2, g2 = self.ada(c).chunk(6, dim=-1)
        b, n, d = x.shape
        qkv = self.qkv(modulate(self.norm1(x), sh1, sc1)).reshape(b, n, 3, self.heads, d // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, d)
        x = x + g1 * self.proj(attn)
        return x + g2 * self.mlp(modulate(self.norm2(x), sh2, sc2))


class DiT(nn.Module):
    """``forward(x, t, cond=None)`` as :class:`~srm_bench.baselines.unet.UNet`: t is (B, P) per patch."""

    pos: torch.Tensor  # buffers registered in __init__, declared for the type checker
    token_var: torch.Tensor

    def __init__(self, config: DiTConfig) -> None:
        super().__init__()
        config.validate()
        self.config = config
        c = config
        self.tokens_side = c.image_size // c.token_patch
        self.vars_side = c.image_size // c.patch_size
        self.embed = nn.Conv2d(c.in_channels + c.cond_channels, c.hidden, c.token_patch, stride=c.token_patch)
        self.register_buffer("pos", sincos_2d(self.tokens_side, c.hidden)[None], persistent=False)
        self.t_mlp = nn.Sequential(nn.Linear(c.time_channels, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.hidden))
        self.blocks = nn.ModuleList([DiTBlock(c.hidden, c.heads, c.mlp_ratio) for _ in range(c.depth)])
        self.norm_out = nn.LayerNorm(c.hidden, elementwise_affine=False, eps=1e-6)
        self.ada_out = nn.Linear(c.hidden, 2 * c.hidden)
        self.out = nn.Linear(c.hidden, c.token_patch ** 2 * (2 * c.in_channels + 1))
        for m in (self.ada_out, self.out):
            nn.init.zeros_(m.weight)
            nn.init.zeros_(m.bias)
        # token -> index of its variable (row-major)
        r = c.patch_size // c.token_patch
        ii = torch.arange(self.tokens_side) // r
        self.register_buffer("token_var", (ii[:, None] * self.vars_side + ii[None, :]).reshape(-1), persistent=False)

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None = None) -> DenoiserOutput:
        c = self.config
        if t.shape != (x.shape[0], self.vars_side ** 2):
            raise SrmBenchError(f"noise levels must be (batch, {self.vars_side ** 2}), got {tuple(t.shape)}")
        if c.cond_channels:
            if cond is None:
                raise SrmBenchError("this model takes conditioning channels (mask and masked image); pass cond")
            x = torch.cat([x, cond], dim=1)
        h = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        t_tok = t[:, self.token_var]
        cvec = F.silu(self.t_mlp(timestep_embedding(t_tok, c.time_channels).to(h.dtype)))
        for blk in self.blocks:
            h = blk(h, cvec)
        shift, scale = self.ada_out(cvec).chunk(2, dim=-1)
        h = self.out(modulate(self.norm_out(h), shift, scale))
        b, n, _ = h.shape
        p, ch, s = c.token_patch, 2 * c.in_channels + 1, self.tokens_side
        img = h.reshape(b, s, s, p, p, ch).permute(0, 5, 1, 3, 2, 4).reshape(b, ch, s * p, s * p).float()
        ci = c.in_channels
        logvar = F.avg_pool2d(img[:, 2 * ci:], c.patch_size).flatten(1)
        return DenoiserOutput(img[:, :ci], img[:, ci:2 * ci], logvar)
