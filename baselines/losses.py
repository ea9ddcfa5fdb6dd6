"""Training losses: MSE on the prediction x1, the VLB on the learned variance x1 (mean
stop-gradient, as iDDPM), and the Gaussian NLL of the target under the predicted per-patch
uncertainty x0.01 (mean stop-gradient; ``nll_blur`` > 1 averages the error over pixel blocks
first; ``nll_target="template"`` measures it against the mean image of each patch's class).
Every term is reduced per patch, weighted by the per-patch loss weight (1 / p(t); 0 for given
or zeroed patches) and averaged over the patches that train.

Optional (``cls > 0``, a model with a class head): the cross-entropy of each training
patch's class (the Sudoku digit of the cell), unweighted by 1 / p(t), averaged over the same
patches. It is an auxiliary signal for the reasoning part of the network, not part of the
denoising objective: samples are drawn from the denoiser's mean alone, and the logits are read
only by the optional predicted-order variant ``uncertainty="entropy"``.

Optional (``patch_mse > 0``, ``image_mse > 0``): more weight on each patch's, or the image's, mean residual, the
part of the error a count lives in (``LossWeights``); neither moves the optimum.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from srm_bench.errors import SrmBenchError

from .noise import NoisePath
from .diffusion import DenoiserOutput, pixel_levels
from .samplers import learned_log_variance, step_mean, step_sigmas


@dataclass(frozen=True)
class LossWeights:
    mse: float = 1.0
    vlb: float = 1.0
    nll: float = 0.01
    vlb_steps: int = 1000  # the VLB term is that of a step t -> t - 1 / vlb_steps
    cls: float = 0.0  # auxiliary class cross-entropy (needs a class head and labels)
    # The uncertainty head's target: the squared error averaged per patch after averaging it
    # over nll_blur x nll_blur pixel blocks (1: per pixel, the paper's). Coarser blocks weigh a
    # digit's shape over its stroke style (benchmarks/check_uncertainty_targets.py).
    nll_blur: int = 1
    # "sample": the error against the training sample's target (the paper's). "template": against
    # the target the mean image of the patch's class would give (needs labels and templates). Its
    # expectation is then the spread between the candidate classes' mean images alone, without
    # the within-class (stroke style, ink) part that a known digit still carries
    # (benchmarks/check_uncertainty_targets.py --knowledge candidates). "class": the class head's
    # cross-entropy at the patch's class (stop-gradient), so the head learns log E[digit error]:
    # every confusion counts alike, where the template's spread is small between look-alike
    # digits (needs labels and a class head). "miss": the class head's probability of missing the
    # patch's class, 1 - p(class) (stop-gradient), whose expectation for a calibrated head is the
    # Gini impurity 1 - sum p^2, a ranking close to the entropy's; bounded in [0, 1], where the
    # cross-entropy's rare large values (a sure but wrong reading) make a heavy-tailed target.
    nll_target: str = "sample"
    # The least error the head is asked to predict. The class target's cross-entropy rounds to
    # exactly 0 in float32 on a cell the class head is sure of, so the head's optimum there,
    # log 0, has no floor: o-t4c's log-variance ran down without end (to -24 by step 22,000,
    # benchmarks/probe_head_range.py) and its loss became nan (lease 2026-11-29o, steps 22,500 and
    # 22,800; an overflow of exp(-logvar) is the likely path). 0 leaves the error as it is.
    nll_floor: float = 0.0
    # Extra weight on each patch's mean residual (ours, Even Pixels). The velocity MSE of a patch splits into the
    # squares of its per-channel patch means and of the rest; a task whose rule is a count (Even Pixels: how many of a
    # patch's pixels take each colour) lives in the patch means, a few of the patch's p * p * C directions, while the
    # MSE weighs them as one of those directions each. This term adds (sum of the patch's residual) ** 2 / (p * p),
    # per channel, weighted and averaged as the MSE is: for a residual that is white over the patch it equals the
    # MSE, so weight 1 gives the patch means 1 + p * p times their weight in the MSE. Every positive weight leaves
    # the optimum where the MSE has it (a positive semi-definite reweighting of the same residual: the conditional
    # mean minimises both), unlike an auxiliary head's loss, which asks the shared features for something else
    # (o-g16y, docs/even-pixels-baselines.md). 0 (the default and the paper's) leaves it out.
    patch_mse: float = 0.0
    # The same for the whole image's mean (ours, Even Pixels: the rule is one count over the image): per channel,
    # (sum over the training pixels of t * residual) ** 2 / (sum of t ** 2), averaged over the channels and the
    # images that hold a training pixel. Under the rectified-flow velocity target t * residual is minus the x0-hat
    # error, so the sum is the error of the x0-hat colour total over the noisy patches, the quantity the last patches
    # must close; a residual white over the image gives the MSE again, and the optimum is again the MSE's.
    image_mse: float = 0.0


# The uncertainty targets read from the class head (they need a class head and per-patch labels).
CLASS_TARGETS = ("class", "miss")


def class_error(logits: torch.Tensor, labels: torch.Tensor, target: str) -> torch.Tensor:
    """(B, P) error of a class head's reading (logits (B, P, K), labels (B, P)) for the class-based
    uncertainty targets: "class", the cross-entropy at the label; "miss", 1 - p(label)."""
    logits = logits.float()
    if target == "class":
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="none").reshape(labels.shape)
    if target == "miss":
        return 1.0 - logits.softmax(-1).gather(-1, labels[..., None]).squeeze(-1)
    raise SrmBenchError(f"unknown class target {target!r}; valid: {', '.join(CLASS_TARGETS)}")


def per_patch(x: torch.Tensor, patch: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, P): mean over each patch's pixels and channels."""
    return F.avg_pool2d(x.mean(1, keepdim=True), patch).flatten(1)


def patches_to_image(tiles: torch.Tensor, grid: tuple[int, int]) -> torch.Tensor:
    """(B, P, C, p, p) patch images in row-major order -> (B, C, gh * p, gw * p)."""
    b, _, c, p, _ = tiles.shape
    gh, gw = grid
    return tiles.reshape(b, gh, gw, c, p, p).permute(0, 3, 1, 4, 2, 5).reshape(b, c, gh * p, gw * p)


def gaussian_kl(mean1: torch.Tensor, logvar1: torch.Tensor, mean2: torch.Tensor, logvar2: torch.Tensor) -> torch.Tensor:
    """KL(N(mean1, e^logvar1) || N(mean2, e^logvar2)) elementwise, in nats."""
    return 0.5 * (logvar2 - logvar1 + torch.exp(logvar1 - logvar2) + (mean1 - mean2) ** 2 * torch.exp(-logvar2) - 1.0)


def srm_loss(out: DenoiserOutput, x: torch.Tensor, eps: torch.Tensor, z: torch.Tensor, t: torch.Tensor,
             weight: torch.Tensor, path: NoisePath, patch: int, weights: LossWeights = LossWeights(),
             labels: torch.Tensor | None = None,
             templates: torch.Tensor | None = None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The total loss and its parts.

    Args:
        out: the network's output for ``z``.
        x, eps, z: clean data, noise and noisy input (B, C, H, W), z = a x + b eps.
        t: (B, P) patch levels; ``weight`` (B, P) per-patch loss weights.
        labels: (B, P) class of every patch, for the auxiliary ``cls`` term and the template target.
        templates: (K, C, patch, patch) mean image of each class, in the data's range, for
            ``nll_target="template"``.

    Raises:
        SrmBenchError: ``cls > 0`` without class logits or labels; the template target without
            labels or templates; an unknown ``nll_target``.
    """
    grid = (x.shape[-2] // patch, x.shape[-1] // patch)
    t_pix = pixel_levels(t, grid, patch)
    target = path.target_of(x, eps, t_pix)
    pred = out.mean.float()
    mse = per_patch((pred - target) ** 2, patch)

    pred_sg = pred.detach()
    s_pix = (t_pix - 1.0 / weights.vlb_steps).clamp_min(0.0)
    small, large = step_sigmas(path, t_pix, s_pix, 1.0)
    x0_hat, eps_hat = path.split(z, pred_sg, t_pix)
    mean_q = step_mean(path, x, eps, s_pix, small)
    mean_p = step_mean(path, x0_hat, eps_hat, s_pix, small)
    logvar_p = learned_log_variance(out.v.float(), small, large)
    logvar_q = torch.log(small.clamp_min(1e-12) ** 2)
    kl = gaussian_kl(mean_q, logvar_q, mean_p, logvar_p) / math.log(2.0)
    # The last step (to s = 0) has no Gaussian posterior: no VLB term there.
    vlb = per_patch(torch.where(s_pix > 0, kl, torch.zeros_like(kl)), patch)

    if weights.nll_target in CLASS_TARGETS:
        if out.logits is None or labels is None:
            raise SrmBenchError("the class uncertainty target needs a model with a class head (classes > 0) and "
                                "per-patch labels (a task whose training stream carries classes, e.g. sudoku)")
        err = class_error(out.logits.detach(), labels, weights.nll_target)
    else:
        nll_of = target
        if weights.nll_target == "template":
            if labels is None or templates is None:
                raise SrmBenchError("the template uncertainty target needs per-patch labels and class templates "
                                    "(a task whose training stream carries classes, e.g. sudoku)")
            nll_of = path.target_of(patches_to_image(templates[labels], grid), eps, t_pix)
        elif weights.nll_target != "sample":
            raise SrmBenchError(f"unknown nll_target {weights.nll_target!r}; valid: sample, template, class, miss")
        if weights.nll_blur > 1:
            if patch % weights.nll_blur:
                raise SrmBenchError(f"nll_blur {weights.nll_blur} must divide the patch side {patch}")
            err = per_patch(F.avg_pool2d(nll_of - pred_sg, weights.nll_blur) ** 2, patch // weights.nll_blur)
        else:
            err = per_patch((nll_of - pred_sg) ** 2, patch)
    if weights.nll_floor > 0:
        err = err.clamp_min(weights.nll_floor)
    logvar = out.logvar.float()
    nll = 0.5 * (logvar + err * torch.exp(-logvar))

    n = (weight > 0).sum().clamp_min(1)
    parts = {"mse": (weight * mse).sum() / n, "vlb": (weight * vlb).sum() / n, "nll": (weight * nll).sum() / n}
    total = weights.mse * parts["mse"] + weights.vlb * parts["vlb"] + weights.nll * parts["nll"]
    if weights.patch_mse > 0:
        # per patch: the channels' mean of (sum of the patch's residual) ** 2 / (patch * patch), i.e. patch * patch
        # times the squared mean residual (avg_pool's) of each channel
        patch_sq = ((F.avg_pool2d(pred - target, patch) ** 2).mean(1) * (patch * patch)).flatten(1)
        parts["pmse"] = (weight * patch_sq).sum() / n
        total = total + weights.patch_mse * parts["pmse"]
    if weights.image_mse > 0:
        t_train = t_pix * (pixel_levels(weight, grid, patch) > 0)  # 0 on given, zeroed and clean pixels
        t_sq = (t_train ** 2).sum(dim=(1, 2, 3)) * pred.shape[1]  # (B,): sum over every channel's pixels
        sums = ((pred - target) * t_train).sum(dim=(2, 3))  # (B, C)
        has = t_sq > 0
        per_image = (sums ** 2).sum(1) / t_sq.clamp_min(1e-12)  # channels' mean of sum ** 2 / (sum of t ** 2)
        parts["imse"] = (per_image * has).sum() / has.sum().clamp_min(1)
        total = total + weights.image_mse * parts["imse"]
    if weights.cls > 0:
        if out.logits is None or labels is None:
            raise SrmBenchError("the class loss needs a model with a class head (classes > 0) and per-patch labels")
        ce = F.cross_entropy(out.logits.float().flatten(0, 1), labels.flatten(), reduction="none").reshape(labels.shape)
        parts["cls"] = ((weight > 0) * ce).sum() / n
        total = total + weights.cls * parts["cls"]
    return total, {k: v.detach() for k, v in parts.items()}
