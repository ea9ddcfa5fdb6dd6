"""Can a denoiser draw a 4 x 4 patch with exactly k pixels of one colour when it is told k?

The shipped Even Pixels SRM reads the count its last patch must take better than it draws it
(probe_completion_origin.py: the estimate right for 74% of images, the draw exact for 51%). This toy
takes the image-wide count out of the question: a small denoiser is *given* k, and learns to draw a
two-colour 4 x 4 patch (one channel, colour A = +1, B = -1) with exactly k pixels of A, under the task's
noise path (rectified flow, velocity target, t ~ U(0, 1)). What is left is coordination within the
patch: while the pixels are drawn, each one's colour must follow from the others'. Three denoisers of
about the same size race at equal steps:
  conv      three 3 x 3 convolution blocks at the patch's resolution (as a UNet's full-resolution level)
  conv+sum  the same, each block also adding a linear map of its features' mean over the patch (a
            per-patch pooling: the patch's own running count, read exactly)
  mlp       the 16 pixels flattened through an MLP (every pixel sees every other directly)
Each is sampled from pure noise with the deterministic Euler path (eta 0) and with the stochastic DDPM-type
step of the SRM's sampler at eta 1 (noise sigma_small, the DDPM posterior's), at a given number of steps; a draw is exact when its
pixels' signs hold exactly k of A.

With --finetune N it asks instead what the patch pooling race on the full SRM asked (lease 2026-11-29e): a `conv`
denoiser trained --steps, then continued N steps at half the lr decayed linearly to 0, once as it is and once with
the pooling added, zero-initialised (so it starts computing what the conv one computes). Does the pooling, bolted on
late, give what it gives from the start?

Usage: python benchmarks/probe_patch_draw.py [--steps 3000] [--batch 256] [--width 64] [--nfe 100]
       [--seed 0] [--variants conv conv+sum mlp] [--finetune N] [--k-noise SD...]
(CPU: ~1-3 minutes a variant at the defaults.) Prints per variant (or per arm of --finetune): exact draws at eta 0
and 1 (2,048 draws, k uniform in 0..16), their mean |count - k|, and parameters.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import torch
import torch.nn as nn

SIDE = 4
PIX = SIDE * SIDE


def draw_patches(k: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """(n, 1, 4, 4) patches of +-1 with exactly k[i] pixels at +1, placed uniformly."""
    order = torch.rand(len(k), PIX, generator=gen).argsort(1).argsort(1)  # a uniform rank per pixel
    return torch.where(order < k[:, None], 1.0, -1.0).view(-1, 1, SIDE, SIDE)


class Block(nn.Module):
    def __init__(self, width: int, pool: bool) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(width, width, 3, padding=1)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1)
        self.pool = nn.Linear(width, width) if pool else None

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        r = self.conv1(torch.nn.functional.silu(h))
        if self.pool is not None:
            r = r + self.pool(r.mean((2, 3)))[:, :, None, None]
        return h + self.conv2(torch.nn.functional.silu(r))


class ConvDenoiser(nn.Module):
    """Input channels: the noisy patch, t, k / 16 (broadcast); output: the velocity."""

    def __init__(self, width: int, pool: bool) -> None:
        super().__init__()
        self.inp = nn.Conv2d(3, width, 3, padding=1)
        self.blocks = nn.ModuleList(Block(width, pool) for _ in range(3))
        self.out = nn.Conv2d(width, 1, 3, padding=1)

    def forward(self, z: torch.Tensor, t: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        cond = torch.stack([t, k / PIX], 1)[:, :, None, None].expand(-1, -1, SIDE, SIDE)
        h = self.inp(torch.cat([z, cond], 1))
        for b in self.blocks:
            h = b(h)
        return self.out(torch.nn.functional.silu(h))


class MlpDenoiser(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        hidden = 4 * width
        self.net = nn.Sequential(nn.Linear(PIX + 2, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, PIX))

    def forward(self, z: torch.Tensor, t: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([z.flatten(1), t[:, None], k[:, None] / PIX], 1)).view_as(z)


def make(variant: str, width: int) -> nn.Module:
    if variant == "mlp":
        return MlpDenoiser(width)
    return ConvDenoiser(width, pool=variant == "conv+sum")


def continued(base: nn.Module, variant: str, width: int) -> nn.Module:
    """A ``variant`` network holding ``base``'s weights, any pooling it adds zero: it computes what ``base`` does."""
    arm = make(variant, width)
    missing = arm.load_state_dict(base.state_dict(), strict=False).missing_keys
    for name in missing:
        nn.init.zeros_(arm.get_parameter(name))
    return arm


def fit(model: nn.Module, steps: int, lr: float, batch_loss: Callable[[], torch.Tensor], *,
        anneal: bool = False) -> None:
    """AdamW over ``steps`` of ``batch_loss()``: one-cycle (5% warm-up, cosine down); ``anneal``: 5% warm-up, then
    linear to 0."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.05,
                                                anneal_strategy="linear" if anneal else "cos")
    for _ in range(steps):
        loss = batch_loss()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()


def train(model: nn.Module, steps: int, batch: int, lr: float, gen: torch.Generator, *, anneal: bool = False) -> None:
    """``fit`` on batches of patches with k uniform in 0..16, t ~ U(0, 1), the velocity target."""
    def batch_loss() -> torch.Tensor:
        k = torch.randint(0, PIX + 1, (batch,), generator=gen)
        x = draw_patches(k, gen)
        t = torch.rand(batch, generator=gen)
        eps = torch.randn(x.shape, generator=gen)
        z = (1 - t)[:, None, None, None] * x + t[:, None, None, None] * eps
        return ((model(z, t, k.float()) - (eps - x)) ** 2).mean()

    fit(model, steps, lr, batch_loss, anneal=anneal)


def srm_step(x0: torch.Tensor, eps: torch.Tensor, t: torch.Tensor, s: torch.Tensor, eta: float,
             gen: torch.Generator) -> torch.Tensor:
    """The SRM sampler's step from t to s > 0 (a = 1 - t, b = t), noise sigma_small at eta."""
    r = ((1 - t) * s) / ((1 - s) * t)
    small = eta * s * (1 - r * r).clamp_min(0).sqrt()
    z = (1 - s) * x0 + (s * s - small * small).clamp_min(0).sqrt() * eps
    if eta > 0:
        z = z + small * torch.randn(z.shape, generator=gen)
    return z


def common_args(ap: argparse.ArgumentParser) -> None:
    """The toys' shared options."""
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--nfe", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)


@torch.no_grad()
def sample(model: nn.Module, k: torch.Tensor, nfe: int, eta: float, gen: torch.Generator, *, k_noise: float = 0.0,
           per_step: bool = False) -> torch.Tensor:
    """Draws from pure noise, t from 1 to 0 in ``nfe`` equal steps: x0-hat and eps-hat from the velocity, then
    the step of the SRM's sampler (a = 1 - t, b = t; eta 0 the deterministic one, eta 1 with sigma_small).
    ``k_noise``: the denoiser is told k plus Gaussian noise of this sd (in pixels), one draw a sample for the whole
    path, or with ``per_step`` a fresh one at every step (a count read afresh, and differently, at each step)."""
    z = torch.randn(len(k), 1, SIDE, SIDE, generator=gen)
    ts = torch.linspace(1, 0, nfe + 1)
    noisy = k_noise > 0  # no draw otherwise: the exact-k draws keep the random stream they were documented with
    told = k.float() + k_noise * torch.randn(len(k), generator=gen) if noisy else k.float()
    for t, s in zip(ts[:-1], ts[1:]):
        if noisy and per_step:
            told = k.float() + k_noise * torch.randn(len(k), generator=gen)
        u = model(z, torch.full((len(k),), float(t)), told)
        x0, eps = z - t * u, z + (1 - t) * u
        if s == 0:
            z = x0
            break
        z = srm_step(x0, eps, t, s, eta, gen)
    return z


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(ap)
    ap.add_argument("--variants", nargs="+", default=["conv", "conv+sum", "mlp"], choices=["conv", "conv+sum", "mlp"])
    ap.add_argument("--finetune", type=int, default=0, metavar="N",
                    help="train conv --steps, then continue it N annealed steps without and with a zero pooling")
    ap.add_argument("--k-noise", type=float, nargs="*", default=[], metavar="SD",
                    help="also sample each denoiser told k plus Gaussian noise of these sds (pixels), drawn once a "
                         "sample and afresh every step")
    args = ap.parse_args()
    if args.steps < 40 or 0 < args.finetune < 40:  # the one-cycle schedule needs a warm-up of at least two steps
        raise SystemExit("--steps and --finetune: at least 40 steps each")

    def report(name: str, model: nn.Module, steps: str, t0: float) -> None:
        k = torch.arange(2048) % (PIX + 1)
        params = sum(p.numel() for p in model.parameters())
        told = [("", 0.0, False)] + [(f"  k told with sd {sd} {how}", sd, how == "a step")
                                     for sd in args.k_noise for how in ("a sample", "a step")]
        for label, sd, per_step in told:
            line = []
            for eta in (0.0, 1.0):
                z = sample(model, k, args.nfe, eta, torch.Generator().manual_seed(args.seed + 1), k_noise=sd,
                           per_step=per_step)
                err = ((z > 0).flatten(1).sum(1) - k).abs().float()
                line.append(f"eta {eta:.0f}: exact {(err == 0).float().mean():.3f}, |count - k| {err.mean():.2f}")
            head = label or (f"{name:8s} ({params / 1e3:.0f}k params, {steps} of {args.batch}, {args.nfe} NFE): ")
            print(f"{head}{': ' if label else ''}{'; '.join(line)}"
                  f"{'' if label else f'  ({time.perf_counter() - t0:.0f} s)'}", flush=True)

    if args.finetune:
        torch.manual_seed(args.seed)
        gen = torch.Generator().manual_seed(args.seed)
        t0 = time.perf_counter()
        base = make("conv", args.width)
        train(base, args.steps, args.batch, args.lr, gen)
        report("conv", base, f"{args.steps} steps", t0)
        for variant in ("conv", "conv+sum"):
            torch.manual_seed(args.seed + 2)
            arm = continued(base, variant, args.width)
            t0 = time.perf_counter()
            train(arm, args.finetune, args.batch, args.lr / 2, torch.Generator().manual_seed(args.seed + 3),
                  anneal=True)
            report(variant, arm, f"{args.steps} + {args.finetune} annealed steps", t0)
        return
    for variant in args.variants:
        torch.manual_seed(args.seed)
        gen = torch.Generator().manual_seed(args.seed)
        model = make(variant, args.width)
        t0 = time.perf_counter()
        train(model, args.steps, args.batch, args.lr, gen)
        report(variant, model, f"{args.steps} steps", t0)


if __name__ == "__main__":
    main()
