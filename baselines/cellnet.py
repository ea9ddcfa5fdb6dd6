"""CellNet: a denoiser whose structure follows the task's spatial variables.

Each variable (a Sudoku cell: one 28x28 patch) is drawn by a small convolutional UNet that
sees only that patch, and the variables reason together through a transformer with one
token per variable. The split mirrors the task: drawing a digit is local, the Sudoku rules
relate whole cells. So the transformer works on 81 tokens (cheap attention) while the
convolutions keep full resolution for the drawing (sharp digits, where a linear
token-to-pixels head gives soft ones).

Per variable: conv encoder (one residual block per level, stride-2 downsampling) to a
``s x s`` feature map; flattened and projected to a token; ``depth`` adaLN-Zero transformer
blocks (each token modulated by its own noise level, as in the DiT); the token projected
back and added to the bottom feature map; a decoder with skip connections back to the
patch. Residual blocks add the patch's noise-level embedding as a bias before their second
GroupNorm, as the UNet does with its per-pixel map.

Outputs as every denoiser here: mean and v per pixel, and the per-variable log-variance
(the predicted uncertainty), read from the token by a zero-initialised linear head. With
``classes > 0`` a linear head also reads each variable's class (the Sudoku digit) from its
token: its cross-entropy is an auxiliary training loss (``LossWeights.cls``) that hands the
transformer the digit directly, where the pixel loss teaches it only through the drawing.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from srm_bench.errors import SrmBenchError

from .configs import CellNetConfig
from .dit import DiTBlock, modulate
from .diffusion import DenoiserOutput, timestep_embedding
from .unet import ResBlock, zero_module


def upsample2x(h: torch.Tensor, size: int) -> torch.Tensor:
    """Nearest 2x upsampling cropped to ``size``, as a broadcast: its backward is a plain
    sum, where F.interpolate's backward (atomics over ~20k small maps) took a quarter of
    the step (benchmarks/profile_step.py)."""
    n, c, s, _ = h.shape
    up = h[:, :, :, None, :, None].expand(n, c, s, 2, s, 2).reshape(n, c, 2 * s, 2 * s)
    return up[:, :, :size, :size]


class SubpatchDecoder(nn.Module):
    """Draws a variable from its token with matrix products only: each ``s x s`` subpatch gets
    an MLP of (its own noisy pixels, the variable's token, the level embedding, its position),
    so the drawing keeps a local skip path (the cell-token DiT's linear head has none, and
    its loss stalled) without the small convolutions that made the conv decoder slow."""

    def __init__(self, cin: int, cout: int, patch: int, sub: int, hidden: int, emb: int, width: int) -> None:
        super().__init__()
        self.sub, self.cout = sub, cout
        self.count = (patch // sub) ** 2
        self.pix = nn.Linear(cin * sub * sub, width)
        self.tok = nn.Linear(hidden, width)
        self.emb = nn.Linear(emb, width)
        self.pos = nn.Parameter(torch.randn(self.count, width) * 0.02)
        self.mlp = nn.ModuleList([nn.Sequential(nn.LayerNorm(width), nn.Linear(width, 2 * width), nn.SiLU(),
                                                nn.Linear(2 * width, width)) for _ in range(2)])
        self.out = zero_module(nn.Linear(width, cout * sub * sub))

    def forward(self, cells: torch.Tensor, tok: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        n, ch, p, _ = cells.shape
        s, k = self.sub, p // self.sub
        sp = cells.reshape(n, ch, k, s, k, s).permute(0, 2, 4, 1, 3, 5).reshape(n, k * k, ch * s * s)
        h = self.pix(sp) + (self.tok(tok) + self.emb(e))[:, None] + self.pos
        for blk in self.mlp:
            h = h + blk(h)
        o = self.out(h)
        return o.reshape(n, k, k, self.cout, s, s).permute(0, 3, 1, 4, 2, 5).reshape(n, self.cout, p, p)


class CellNet(nn.Module):
    """``forward(x, t, cond=None)`` as :class:`~srm_bench.baselines.unet.UNet`: t is (B, P) per patch."""

    def __init__(self, config: CellNetConfig) -> None:
        super().__init__()
        config.validate()
        self.config = config
        c = config
        self.side = c.image_size // c.patch_size
        self.num_vars = self.side ** 2
        sizes = [c.patch_size]
        for _ in c.channels[1:]:
            sizes.append((sizes[-1] + 1) // 2)
        self.sizes = sizes
        emb = c.emb_channels
        self.t_mlp = nn.Sequential(nn.Linear(c.time_channels, emb), nn.SiLU(), nn.Linear(emb, emb))
        cin = c.in_channels + c.cond_channels
        self.enc = nn.ModuleList()
        self.downs = nn.ModuleList()
        ch = c.channels[-1]
        if c.encoder == "conv":
            self.conv_in = nn.Conv2d(cin, c.channels[0], 3, padding=1)
            ch = c.channels[0]
            for level, width in enumerate(c.channels):
                if level:
                    self.downs.append(nn.Conv2d(ch, ch, 3, stride=2, padding=1))
                self.enc.append(ResBlock(ch, width, emb, 0.0, c.groups))
                ch = width
            self.to_token = nn.Linear(ch * sizes[-1] ** 2, c.hidden)
        else:
            self.to_token = nn.Linear(cin * c.patch_size ** 2, c.hidden)
            if c.decoder == "conv":
                self.skip_convs = nn.ModuleList([nn.Conv2d(cin, c.groups, 3, padding=1) for _ in c.channels])
        flat = ch * sizes[-1] ** 2
        self.pos = nn.Parameter(torch.zeros(1, self.num_vars, c.hidden))
        nn.init.normal_(self.pos, std=0.02)
        if c.pos in ("rc", "rcb"):
            # Row and column (and with "rcb", where the side is a square as Sudoku's 9 = 3 x 3, box)
            # embeddings at unit scale: a variable's relations (same row / column / box) are then
            # sums of shared vectors that attention reads at once, where a free embedding per
            # variable must learn them (benchmarks/probe_positions.py, docs/sudoku-baselines.md).
            g = self.side
            idx = torch.arange(self.num_vars)
            self.register_buffer("rows", idx // g, persistent=False)
            self.register_buffer("cols", idx % g, persistent=False)
            self.row_emb = nn.Embedding(g, c.hidden)
            self.col_emb = nn.Embedding(g, c.hidden)
        if c.pos == "rcb":
            box = math.isqrt(g)
            boxes = (idx // g // box) * box + (idx % g) // box if box * box == g else torch.zeros_like(idx)
            self.register_buffer("boxes", boxes, persistent=False)
            self.box_emb = nn.Embedding(g, c.hidden)
        self.t_token = nn.Sequential(nn.Linear(emb, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.hidden))
        self.blocks = nn.ModuleList([DiTBlock(c.hidden, c.heads, c.mlp_ratio) for _ in range(c.depth)])
        self.norm_tok = nn.LayerNorm(c.hidden, elementwise_affine=False, eps=1e-6)
        self.ada_tok = zero_module(nn.Linear(c.hidden, 2 * c.hidden))
        self.logvar_head = zero_module(nn.Linear(c.hidden, 1))
        self.class_head = nn.Linear(c.hidden, c.classes) if c.classes else None
        self.dec = nn.ModuleList()
        if c.decoder == "mlp":
            self.mlp_dec = SubpatchDecoder(cin, 2 * c.in_channels, c.patch_size, c.sub_patch, c.hidden, emb, c.dec_hidden)
            return
        self.from_token = zero_module(nn.Linear(c.hidden, flat))
        for level in reversed(range(len(c.channels))):
            width = c.channels[level]
            # Skips: the encoder's features, or (linear encoder) the variable's own input pixels.
            skip = c.channels[level] if c.encoder == "conv" else c.groups
            self.dec.append(ResBlock(ch + skip, width, emb, 0.0, c.groups))
            ch = width
        self.norm_out = nn.GroupNorm(c.groups, ch)
        self.conv_out = zero_module(nn.Conv2d(ch, 2 * c.in_channels, 3, padding=1))

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None = None) -> DenoiserOutput:
        c = self.config
        b = x.shape[0]
        if t.shape != (b, self.num_vars):
            raise SrmBenchError(f"noise levels must be (batch, {self.num_vars}), got {tuple(t.shape)}")
        if c.cond_channels:
            if cond is None:
                raise SrmBenchError("this model takes conditioning channels (mask and masked image); pass cond")
            x = torch.cat([x, cond], dim=1)
        g, p = self.side, c.patch_size
        # (B, C, H, W) -> (B * P, C, p, p): every variable becomes its own small image.
        cells = x.reshape(b, x.shape[1], g, p, g, p).permute(0, 2, 4, 1, 3, 5).reshape(b * g * g, x.shape[1], p, p)
        dtype = torch.get_autocast_dtype("cuda") if x.is_cuda and torch.is_autocast_enabled("cuda") else x.dtype
        e = F.silu(self.t_mlp(timestep_embedding(t.reshape(-1), c.time_channels).to(dtype)))  # (B * P, emb)
        e_map = e[:, :, None, None]
        skips = []
        if c.encoder == "conv":
            h = self.conv_in(cells)
            for level, blk in enumerate(self.enc):
                if level:
                    h = self.downs[level - 1](h)
                h = blk(h, e_map)
                skips.append(h)
            tok = self.to_token(h.flatten(1))
        else:
            cells = cells.to(dtype)
            tok = self.to_token(cells.flatten(1))
            if c.decoder == "conv":
                small = cells
                for conv, s in zip(self.skip_convs, self.sizes):
                    if small.shape[-1] != s:
                        small = F.avg_pool2d(small, 2, ceil_mode=True, count_include_pad=False)
                    skips.append(conv(small))
                s = self.sizes[-1]
                h = torch.zeros(cells.shape[0], c.channels[-1], s, s, device=x.device, dtype=dtype)
        tok = tok.reshape(b, self.num_vars, c.hidden) + self.pos
        if c.pos in ("rc", "rcb"):
            grid_pos = self.row_emb(self.rows) + self.col_emb(self.cols)
            if c.pos == "rcb":
                grid_pos = grid_pos + self.box_emb(self.boxes)
            tok = tok + grid_pos.to(tok.dtype)
        cvec = F.silu(self.t_token(e)).reshape(b, self.num_vars, c.hidden)
        for blk in self.blocks:
            tok = blk(tok, cvec)
        shift, scale = self.ada_tok(cvec).chunk(2, dim=-1)
        tok = modulate(self.norm_tok(tok), shift, scale)
        logvar = self.logvar_head(tok).float().reshape(b, self.num_vars)
        logits = None if self.class_head is None else self.class_head(tok).float()  # (B, P, classes)
        ci = c.in_channels
        if c.decoder == "mlp":
            out = self.mlp_dec(cells, tok.reshape(b * self.num_vars, c.hidden), e).float()
            out = out.reshape(b, g, g, 2 * ci, p, p).permute(0, 3, 1, 4, 2, 5).reshape(b, 2 * ci, g * p, g * p)
            return DenoiserOutput(out[:, :ci], out[:, ci:], logvar, logits)
        h = h + self.from_token(tok).reshape(h.shape)
        for blk in self.dec:
            skip = skips.pop()
            if h.shape[-1] != skip.shape[-1]:
                h = upsample2x(h, skip.shape[-1])
            h = blk(torch.cat([h, skip], 1), e_map)
        out = self.conv_out(F.silu(self.norm_out(h))).float()  # (B * P, 2C, p, p)
        out = out.reshape(b, g, g, 2 * ci, p, p).permute(0, 3, 1, 4, 2, 5).reshape(b, 2 * ci, g * p, g * p)
        return DenoiserOutput(out[:, :ci], out[:, ci:], logvar, logits)
