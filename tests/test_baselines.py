"""Maths of the baselines: t-sampling, noise paths, schedules, the reverse step, losses, models."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from srm_bench.baselines.dit import DiT, DiTConfig
from srm_bench.baselines.losses import srm_loss
from srm_bench.baselines.noise import NoisePath
from srm_bench.baselines.presets import make_config
from srm_bench.baselines.samplers import pixel_levels, sample, step_sigmas
from srm_bench.baselines.schedules import SamplerConfig, make_schedule, sudoku_graph
from srm_bench.baselines.train import build_model
from srm_bench.baselines.tsampling import NoiseLevelSampler, TSamplingConfig, recursive_allocation
from srm_bench.baselines.unet import DenoiserOutput, UNet, UNetConfig
from srm_bench.errors import SrmBenchError
from srm_bench.leaderboard.store import sampler_label


def bench_module(name: str, monkeypatch: pytest.MonkeyPatch):
    """The script benchmarks/NAME.py as a module, with benchmarks/ on the path for its own imports."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    monkeypatch.syspath_prepend(str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

# ---------------------------------------------------------------- recursive allocation


@pytest.mark.parametrize("d", [1, 2, 3, 7, 64, 81])
def test_recursive_allocation_mean_is_exactly_tbar_and_in_range(d: int) -> None:
    rng = np.random.default_rng(0)
    tbar = rng.random(500)
    tbar[:3] = [0.0, 1.0, 0.5]
    t = recursive_allocation(tbar, d, 1.0, rng)
    assert t.shape == (500, d)
    assert t.min() >= 0.0 and t.max() <= 1.0
    np.testing.assert_allclose(t.mean(1), tbar, atol=1e-12)
    assert np.all(t[0] == 0.0) and np.all(t[1] == 1.0)


def test_recursive_allocation_spread_shrinks_with_sharpness() -> None:
    rng = np.random.default_rng(1)
    spreads = [recursive_allocation(np.full(400, 0.5), 81, s, rng).std(1).mean() for s in (0.25, 1.0, 4.0, 16.0)]
    assert all(a > b for a, b in zip(spreads, spreads[1:])), spreads


def test_recursive_allocation_two_patches_sharpness_one_is_uniform_split() -> None:
    # d = 2: alpha = 1 * sharpness = 1, so t_1 ~ U(0, 1) for tbar = 0.5 (closed form).
    t = recursive_allocation(np.full(20000, 0.5), 2, 1.0, np.random.default_rng(2))[:, 0]
    assert abs(t.mean() - 0.5) < 0.01 and abs(t.var() - 1 / 12) < 0.005


def test_uniform_tbar_means_are_uniform_and_weights_average_to_one() -> None:
    s = NoiseLevelSampler(TSamplingConfig(kind="uniform_tbar", sharpness=1.0), 81, estimate_draws=100_000)
    t, w = s.sample(4000, np.random.default_rng(3))
    means = np.sort(t.mean(1))
    ks = np.max(np.abs(means - (np.arange(1, 4001) - 0.5) / 4000))
    assert ks < 0.03  # Kolmogorov-Smirnov distance to U(0, 1)
    assert abs(w.mean() - 1.0) < 0.05  # E_p[1 / p] = 1
    # oversampled extremes get less weight than the middle
    assert s.weight_of(np.array([0.005]))[0] < s.weight_of(np.array([0.5]))[0]


def test_independent_means_concentrate_and_shared_is_constant() -> None:
    rng = np.random.default_rng(4)
    ind = NoiseLevelSampler(TSamplingConfig(kind="independent"), 81).sample(2000, rng)[0]
    assert ind.mean(1).std() < 0.05  # Bates distribution: std 1/sqrt(12 * 81) = 0.032
    shared = NoiseLevelSampler(TSamplingConfig(kind="shared"), 81).sample(50, rng)[0]
    assert np.all(shared == shared[:, :1])


def draw_levels(side: str, cfg: TSamplingConfig, known: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Levels and weights for the rows of ``known`` from the NumPy or the device sampler."""
    from srm_bench.baselines.tsampling import DeviceLevelSampler

    n, p = known.shape
    if side == "numpy":
        return NoiseLevelSampler(cfg, p, estimate_draws=20_000).sample(n, np.random.default_rng(seed), known)
    torch.manual_seed(seed)
    tt, wt = DeviceLevelSampler(cfg, p, "cpu", estimate_draws=20_000).sample(n, torch.from_numpy(known))
    return tt.numpy(), wt.numpy()


@pytest.mark.parametrize("side", ["numpy", "torch"])
def test_sequential_mix_draws_states_of_the_one_patch_at_a_time_sampler(side: str) -> None:
    rng = np.random.default_rng(6)
    known = rng.random((3000, 81)) < 0.3
    t, w = draw_levels(side, TSamplingConfig(sequential_mix=1.0), known, 6)
    assert np.all(t[known] == 0) and np.all(w[known] == 0)
    mid = (t > 0) & (t < 1)
    assert np.all(mid.sum(1) == 1) and np.all(~known[mid])  # one open patch mid-ramp per row
    clean = (t == 0) & ~known
    assert np.all(w[clean] == 0) and np.all(w[~known & ~clean] == 1)  # clean: nothing to learn
    assert np.all(t[~known & ~clean & ~mid] == 1)
    frac = clean.sum(1) / (~known).sum(1)  # k uniform over 0 .. open - 1
    assert frac.min() == 0 and frac.max() > 0.95 and abs(frac.mean() - 0.49) < 0.03
    assert abs(t[mid].mean() - 0.5) < 0.03
    half = NoiseLevelSampler(TSamplingConfig(sequential_mix=0.5), 81, estimate_draws=20_000).sample(3000, rng, known)[0]
    seq_rows = (((half > 0) & (half < 1)).sum(1) == 1).mean()  # Uniform t-bar rows keep most patches mid-level
    assert 0.45 < seq_rows < 0.55


@pytest.mark.parametrize("side", ["numpy", "torch"])
def test_sequential_overlap_draws_states_of_the_overlapping_sampler(side: str) -> None:
    """--sequential-overlap O: the sequential rows hold up to ~1 / (1 - O) open patches in flight at
    levels exactly (1 - O) apart, ramping in a random order; clean patches before them, pure noise
    after, weight 1 on all but the clean; a state of RampSchedule's ramps (start k (1 - O) L, length
    L) at a uniform point of the budget."""
    known = np.random.default_rng(9).random((3000, 64)) < 0.25
    t, w = draw_levels(side, TSamplingConfig(sequential_mix=1.0, sequential_overlap=0.9), known, 9)
    assert np.all(t[known] == 0) and np.all(w[known] == 0)
    assert np.all((w == 1) == (t > 0))  # clean: nothing to learn; every noisy open patch counts
    mid = (t > 0) & (t < 1)
    assert mid.sum(1).max() == 10 and mid.sum(1).mean() > 5  # 1 / (1 - 0.9) in flight at most
    for row in range(200):
        levels = np.sort(t[row][mid[row]])
        assert np.allclose(np.diff(levels), 0.1, atol=1e-5)  # one ramp's start after the other
    # the budget's position u is uniform: with ramps of L = 1 / ((n - 1) 0.1 + 1) starting every 0.1 L,
    # patch r is done once u >= L + 0.1 L r, so E[done / n] = (1 - L) / 2 (one at a time: ~1 / 2)
    n = (~known).sum(1)
    done = ((t == 0) & ~known).sum(1) / n
    length = 1 / ((n - 1) * 0.1 + 1)
    assert abs(done.mean() - ((1 - length) / 2).mean()) < 0.015 and done.min() == 0 and done.max() > 0.95
    with pytest.raises(SrmBenchError, match="sequential_overlap must lie in"):
        TSamplingConfig(sequential_mix=0.5, sequential_overlap=1.0).validate()
    with pytest.raises(SrmBenchError, match="set sequential_mix too"):
        TSamplingConfig(sequential_overlap=0.5).validate()


@pytest.mark.parametrize("side", ["numpy", "torch"])
@pytest.mark.parametrize("overlap", [0.0, 0.95])
def test_sequential_tail_reads_the_mix_rows_late_in_the_run(side: str, overlap: float) -> None:
    """--sequential-tail T: the mix rows are the sampler's states in the last T of its budget only
    (u ~ U(1 - T, 1)), so at least the patches done by position 1 - T are clean in every row; at T = 1
    the draw is the old one bit for bit."""
    from srm_bench.baselines.tsampling import tail_position

    known = np.zeros((2000, 64), dtype=bool)
    base = TSamplingConfig(sequential_mix=1.0, sequential_overlap=overlap)
    t_all, _ = draw_levels(side, base, known, 3)
    t_late, w_late = draw_levels(side, TSamplingConfig(sequential_mix=1.0, sequential_overlap=overlap, sequential_tail=0.25),
                                 known, 3)
    assert np.array_equal(draw_levels(side, TSamplingConfig(sequential_mix=1.0, sequential_overlap=overlap,
                                                            sequential_tail=1.0), known, 3)[0], t_all)
    # at position u >= 0.75, patch r is done once u >= start_r + L (start_r = r (1 - o) L; one at a time:
    # floor(u n) patches done)
    length = 1 / (63 * (1 - overlap) + 1)
    least = 48 if overlap == 0 else int(np.floor((0.75 - length) / ((1 - overlap) * length))) + 1
    clean = (t_late == 0).sum(1)
    assert clean.min() >= least and (t_all == 0).sum(1).min() < least  # only the late rows had that many
    assert np.all((w_late == 1) == (t_late > 0)) and np.all((t_late > 0).sum(1) >= 1)  # a patch to learn per row
    u = np.random.default_rng(0).random(1000)
    assert np.array_equal(tail_position(u, 1.0), u) and tail_position(u, 0.25).min() >= 0.75
    with pytest.raises(SrmBenchError, match="sequential_tail must lie in"):
        TSamplingConfig(sequential_mix=0.5, sequential_tail=0.0).validate()
    with pytest.raises(SrmBenchError, match="sequential_tail places the rows of sequential_mix"):
        TSamplingConfig(sequential_tail=0.5).validate()


@pytest.mark.parametrize("side", ["numpy", "torch"])
def test_parallel_mix_draws_the_state_of_parallel_sampling(side: str) -> None:
    """One level for every open patch, weight 1, and no clean patch even under the zero-patch rule."""
    import torch

    from srm_bench.baselines.tsampling import DeviceLevelSampler

    def draw(cfg: TSamplingConfig, n: int, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if side == "numpy":
            return NoiseLevelSampler(cfg, 81, estimate_draws=20_000).sample(n, np.random.default_rng(7), known)
        torch.manual_seed(7)
        tt, wt = DeviceLevelSampler(cfg, 81, "cpu", estimate_draws=20_000).sample(n, torch.from_numpy(known))
        return tt.numpy(), wt.numpy()

    known = np.random.default_rng(8).random((3000, 81)) < 0.3
    t, w = draw(TSamplingConfig(parallel_mix=1.0, zero_patch_prob=1.0), 3000, known)
    assert np.all(t[known] == 0) and np.all(w[known] == 0)
    open_t = np.where(known, np.nan, t)
    assert np.all(np.nanmax(open_t, 1) == np.nanmin(open_t, 1))  # one level per row
    assert np.all(t[~known] > 0) and np.all(w[~known] == 1)  # no clean patch, no density weight
    level = np.nanmax(open_t, 1)
    assert abs(level.mean() - 0.5) < 0.03 and level.min() < 0.01 and level.max() > 0.99  # t ~ U(0, 1)
    # half the rows: the other half keep Uniform t-bar and the zero-patch rule (clean patches in most rows)
    none = np.zeros((4000, 81), dtype=bool)
    t, w = draw(TSamplingConfig(parallel_mix=0.5, zero_patch_prob=1.0), 4000, none)
    shared = t.max(1) == t.min(1)
    assert 0.46 < shared.mean() < 0.54
    assert np.all(t[shared] > 0) and (t[~shared] == 0).any(1).mean() > 0.9


@pytest.mark.parametrize("side", ["numpy", "torch"])
def test_completion_mix_draws_a_few_noisy_patches_on_a_clean_rest(side: str) -> None:
    """--completion-mix: 1 to completion_max open patches noisy, each at its own level in (0, 1] with weight 1,
    every other patch clean with weight 0; the zero-patch rule leaves those rows alone, and the share replaces
    rows whatever the other mixes made them."""
    known = np.random.default_rng(4).random((4000, 64)) < 0.2
    known[0] = True  # a row with nothing open: no noisy patch to give it
    known[1] = True
    known[1, 5] = False  # one open patch: K is capped at 1
    t, w = draw_levels(side, TSamplingConfig(completion_mix=1.0, zero_patch_prob=1.0), known, 5)
    noisy = t > 0
    assert np.all(~noisy[known]) and np.all(w[known] == 0)
    assert np.all((w == 1) == noisy) and np.all(w[~noisy] == 0) and np.all(t <= 1)  # clean: nothing to learn
    k = noisy.sum(1)
    assert k[0] == 0 and k[1] == 1 and noisy[1, 5]
    counts = np.bincount(k[2:], minlength=6)
    assert counts[0] == 0 and counts[5] == 0  # the zero-patch rule took none away; none above completion_max
    assert np.all(np.abs(counts[1:5] / counts[1:5].sum() - 0.25) < 0.03)  # K ~ U{1 .. 4}
    assert abs(t[noisy].mean() - 0.5) < 0.02 and t[noisy].min() < 0.01 and t[noisy].max() > 0.99  # t ~ U(0, 1]
    cols = noisy[2:].sum(0) / (~known[2:]).sum(0)  # which patches: any open one, alike
    assert cols.max() - cols.min() < 0.03
    t1, _ = draw_levels(side, TSamplingConfig(completion_mix=1.0, completion_max=1), known, 5)
    assert np.all((t1 > 0).sum(1)[1:] == 1)
    # a quarter of the rows, beside the overlap mix on half: completion rows in about a quarter, the rest as before
    none = np.zeros((8000, 64), dtype=bool)
    mix = TSamplingConfig(sequential_mix=0.5, sequential_overlap=0.95, zero_patch_prob=1.0)
    t0, _ = draw_levels(side, mix, none, 6)
    tc, _ = draw_levels(side, TSamplingConfig(**{**mix.to_dict(), "completion_mix": 0.25}), none, 6)
    few = ((tc > 0).sum(1) <= 4) & ((tc > 0).sum(1) >= 1)
    base_few = ((t0 > 0).sum(1) <= 4) & ((t0 > 0).sum(1) >= 1)
    assert 0.22 < few.mean() - base_few.mean() < 0.28
    assert np.array_equal(draw_levels(side, TSamplingConfig(**{**mix.to_dict(), "completion_max": 4}), none, 6)[0], t0)
    for bad, match in (({"completion_mix": 1.5}, "completion_mix must lie in"),
                       ({"completion_mix": 0.5, "completion_max": 0}, "completion_max must be a whole number"),
                       ({"completion_max": 2}, "set completion_mix too"),
                       ({"completion_mix": 0.5, "kind": "shared"}, "not to the shared level"),
                       ({"completion_mix": 0.5, "parallel_mix": 0.5}, "parallel_mix or completion_mix")):
        with pytest.raises(SrmBenchError, match=match):
            TSamplingConfig(**bad).validate()


def test_training_rows_probe_counts_the_rows_with_a_few_noisy_patches(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/probe_training_rows.py: the share of rows with 1..K noisy patches, of those with one above 0.5,
    and their levels; the completion mix's share shows in it; a bad --set is one line and exit 1."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_training_rows.py"
    spec = importlib.util.spec_from_file_location("probe_training_rows", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t = np.zeros((4, 6))
    t[0, 0] = 0.9  # one noisy patch, above 0.5
    t[1, :2] = 0.2  # two, low
    t[2, :5] = 0.7  # five
    (k1, s1, h1, q1), (k2, s2, h2, q2) = mod.row_states(t, 2)  # row 3: none noisy
    assert (k1, s1, h1) == (1, 0.25, 0.25) and np.allclose(q1, 0.9)
    assert (k2, s2, h2) == (2, 0.5, 0.25) and np.allclose(q2, [0.2, 0.2, 0.55])
    assert mod.main(["-n", "20000", "--most", "1", "--set", "completion_mix=1", "--set", "completion_max=1"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("  1-1 noisy patches: 1.000 of rows")  # every row a one-patch completion state
    assert mod.main(["--set", "completion_mix"]) == 1 and "FIELD=VALUE" in capsys.readouterr().err
    assert mod.main(["--set", "completion_max=2"]) == 1 and "set completion_mix too" in capsys.readouterr().err


def test_completion_rows_are_not_ranked_as_sequential_states() -> None:
    """With --sequential-order predicted, the rows the completion mix took over are not the sequential mix's any more."""
    from srm_bench.baselines.tsampling import DeviceLevelSampler

    torch.manual_seed(2)
    s = DeviceLevelSampler(TSamplingConfig(sequential_mix=1.0, sequential_overlap=0.95, sequential_order="predicted",
                                           completion_mix=0.5), 64, "cpu", estimate_draws=20_000)
    t, _ = s.sample(2000)
    rows = s.last_mix_rows
    assert rows is not None and 0.45 < rows.float().mean() < 0.55
    assert bool(((t[~rows] > 0).sum(1) <= 4).all())  # the others: completion states
    assert float(((t[rows] > 0).sum(1) <= 4).float().mean()) < 0.2


def test_rerank_levels_hands_a_rows_levels_to_its_patches_in_the_order_of_the_scores() -> None:
    from srm_bench.baselines.tsampling import rerank_levels

    g = torch.Generator().manual_seed(3)
    t = torch.rand(50, 64, generator=g)
    t[t < 0.3] = 0.0  # clean patches: not movable
    t[:, :5] = 1.0  # and some at pure noise, which move like any noisy patch
    score = torch.randn(50, 64, generator=g)
    movable = t > 0
    out = rerank_levels(t, score, movable)
    assert torch.equal(out[~movable], t[~movable])
    assert not torch.equal(out, t)
    for row in range(50):
        m = movable[row]
        assert torch.equal(out[row][m].sort().values, t[row][m].sort().values)  # the row's levels, moved
        by_score = out[row][m][score[row][m].argsort()]
        assert (by_score.diff() >= 0).all()  # the lowest level to the lowest score
    with pytest.raises(SrmBenchError, match="differ"):
        rerank_levels(t, score[:, :3], movable)


def test_sequential_mix_is_checked() -> None:
    with pytest.raises(SrmBenchError, match="unknown sequential_order 'raster'"):
        TSamplingConfig(sequential_mix=0.5, sequential_order="raster").validate()
    with pytest.raises(SrmBenchError, match="sequential_order orders the rows of sequential_mix"):
        TSamplingConfig(sequential_order="predicted").validate()
    with pytest.raises(SrmBenchError, match="sequential_mix must lie in"):
        TSamplingConfig(sequential_mix=1.5).validate()
    with pytest.raises(SrmBenchError, match="not to the shared level"):
        TSamplingConfig(kind="shared", sequential_mix=0.2).validate()
    with pytest.raises(SrmBenchError, match="parallel_mix must lie in"):
        TSamplingConfig(parallel_mix=-0.1).validate()
    with pytest.raises(SrmBenchError, match="not both"):
        TSamplingConfig(parallel_mix=0.2, sequential_mix=0.2).validate()
    with pytest.raises(SrmBenchError, match="parallel_mix applies to per-patch levels"):
        TSamplingConfig(kind="shared", parallel_mix=0.2).validate()


def test_givens_and_zero_patches_get_level_zero_and_weight_zero() -> None:
    rng = np.random.default_rng(5)
    known = rng.random((64, 81)) < 0.3
    s = NoiseLevelSampler(TSamplingConfig(zero_patch_prob=1.0, zero_patch_max_frac=0.5), 81, estimate_draws=20_000)
    t, w = s.sample(64, rng, known)
    assert np.all(t[known] == 0) and np.all(w[known] == 0)
    zeroed = (w == 0) & ~known
    assert zeroed.any() and np.all(t[zeroed] == 0)
    with pytest.raises(SrmBenchError):
        s.sample(64, rng, known[:, :10])


# ---------------------------------------------------------------- noise paths


@pytest.mark.parametrize("name", ["rectified_flow", "cosine"])
@pytest.mark.parametrize("target", ["velocity", "eps"])
def test_prediction_split_inverts_the_forward_process(name: str, target: str) -> None:
    g = torch.Generator().manual_seed(0)
    x, eps = torch.randn(4, 3, 8, 8, generator=g), torch.randn(4, 3, 8, 8, generator=g)
    t = torch.rand(4, 1, 1, 1, generator=g) * 0.9 + 0.05
    p = NoisePath(name, target)
    z = p.noise(x, eps, t)
    x0, e0 = p.split(z, p.target_of(x, eps, t), t)
    torch.testing.assert_close(x0, x, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(e0, eps, atol=1e-4, rtol=1e-4)


def test_rectified_flow_velocity_is_eps_minus_x() -> None:
    x, eps, t = torch.randn(5), torch.randn(5), torch.rand(5)
    torch.testing.assert_close(NoisePath().target_of(x, eps, t), eps - x)


# ---------------------------------------------------------------- schedules


def _run_schedule(cfg: SamplerConfig, known: torch.Tensor, graph: torch.Tensor | None = None, seed: int = 0):
    sched = make_schedule(cfg, known.shape[1], graph=graph)
    sched.reset(known, [torch.Generator().manual_seed(seed + i) for i in range(known.shape[0])])
    g = torch.Generator().manual_seed(99)
    levels = [sched.levels()]
    for _ in range(sched.steps):
        levels.append(sched.advance(torch.randn(known.shape, generator=g)))
    return torch.stack(levels)  # (steps + 1, B, P)


SCHEDULES = [
    SamplerConfig("parallel", steps=50),
    SamplerConfig("sequential", order="random", overlap=0.0, steps=100),
    SamplerConfig("sequential", order="random", overlap=0.7, steps=90),
    SamplerConfig("sequential", order="predicted", overlap=0.3, top_k=3, steps=81),
    SamplerConfig("sequential", order="graph", overlap=0.0, steps=81),
    SamplerConfig("sequential", order="graph", overlap=0.95, steps=1000),
]


def test_reference_ramps_give_every_patch_ceil_steps_and_end_at_zero() -> None:
    """The reference code's rule: at 100 NFE and 55 unknown cells every cell is evaluated at
    t = 1 and 0.5 (ceil(100 / 55) = 2 steps) where the even rule gives some a single step."""
    known = torch.zeros(2, 81, dtype=torch.bool)
    known[:, :26] = True  # 55 unknown
    ref = _run_schedule(SamplerConfig("sequential", order="random", steps=100, eta=0.0, ramp="reference"), known)
    even = _run_schedule(SamplerConfig("sequential", order="random", steps=100, eta=0.0), known)
    for lv in (ref, even):
        assert torch.all(lv[-1] == 0) and torch.all(lv[1:] <= lv[:-1] + 1e-7) and torch.all(lv[:, known] == 0)
    between = lambda lv: ((lv > 0) & (lv < 1)).sum(0)[:, 26:]  # noqa: E731 - steps a cell spends strictly inside (0, 1)
    assert torch.all(between(ref) == 1)  # 1 -> 0.5 -> 0: two evaluations
    assert torch.all(torch.isin(ref[:, :, 26:].unique(), torch.tensor([0.0, 0.5, 1.0])))
    assert (between(even) == 0).any()  # the default: some cells jump from 1 to 0 in one step
    # Slot starts are floor(m * 100 / 55) (the step before a cell's level first drops below 1):
    # neighbouring ramps may share a step.
    starts = sorted(int(j) - 1 for j in (ref[:, 0, 26:] < 1).float().argmax(0))
    assert starts[:6] == [0, 1, 3, 5, 7, 9] and starts[-1] == 98
    cfg = SamplerConfig("sequential", order="predicted", ramp="reference")
    assert cfg.to_dict()["ramp"] == "reference" and "ramp" not in SamplerConfig().to_dict()
    with pytest.raises(SrmBenchError, match="unknown ramp"):
        SamplerConfig("sequential", order="random", ramp="ceil").validate(81)
    with pytest.raises(SrmBenchError, match="sequential sampler only"):
        SamplerConfig("parallel", ramp="reference").validate(81)


@pytest.mark.parametrize("cfg", SCHEDULES, ids=lambda c: f"{c.name}-{c.order}-{c.overlap}-{c.top_k}-{c.steps}")
def test_schedule_levels_monotone_end_at_zero_and_use_the_whole_budget(cfg: SamplerConfig) -> None:
    known = torch.rand(3, 81, generator=torch.Generator().manual_seed(0)) < 0.3
    known[2] = False
    lv = _run_schedule(cfg, known, sudoku_graph())
    assert lv.shape[0] == cfg.steps + 1
    assert torch.all(lv[1:] <= lv[:-1] + 1e-7), "a level increased"
    assert torch.all(lv[-1] == 0), "not every patch ended at 0"
    assert torch.all(lv[:, known] == 0), "a given patch left 0"
    assert torch.all(lv[0][~known] == 1), "unknown patches must start at 1"
    moved = (lv[1:] < lv[:-1]).any(-1)  # (steps, B): does the network call move any patch
    assert torch.all(moved), "a network evaluation of the budget was wasted"


def test_overlap_zero_keeps_at_most_one_patch_in_flight() -> None:
    known = torch.zeros(2, 81, dtype=torch.bool)
    lv = _run_schedule(SamplerConfig("sequential", order="random", overlap=0.0, steps=200), known)
    moving = (lv[1:] < lv[:-1]).sum(-1)
    assert moving.max() == 1
    in_flight = ((lv > 0) & (lv < 1)).sum(-1)
    assert in_flight.max() <= 1


def test_higher_overlap_runs_several_patches_at_once() -> None:
    known = torch.zeros(1, 81, dtype=torch.bool)
    lv = _run_schedule(SamplerConfig("sequential", order="random", overlap=0.9, steps=1000), known)
    assert (lv[1:] < lv[:-1]).sum(-1).max() > 5


def test_parallel_shares_one_level() -> None:
    lv = _run_schedule(SamplerConfig("parallel", steps=10), torch.zeros(1, 4, dtype=torch.bool))
    torch.testing.assert_close(lv[:, 0, 0], 1 - torch.arange(11) / 10)
    assert torch.all(lv == lv[..., :1])


def test_graph_order_picks_the_best_conditioned_cell() -> None:
    known = torch.zeros(1, 81, dtype=torch.bool)
    known[0, 1:9] = True  # row 0 except (0, 0)
    known[0, 9::9] = True  # column 0 except (0, 0)
    sched = make_schedule(SamplerConfig("sequential", order="graph", steps=100), 81, graph=sudoku_graph())
    sched.reset(known, [torch.Generator().manual_seed(0)])
    s = sched.advance(None)
    started = torch.nonzero(s[0] < 1).flatten().tolist()
    assert [c for c in started if not known[0, c]] == [0]


def test_predicted_order_picks_the_lowest_uncertainty() -> None:
    sched = make_schedule(SamplerConfig("sequential", order="predicted", steps=100), 16)
    sched.reset(torch.zeros(1, 16, dtype=torch.bool), [torch.Generator().manual_seed(0)])
    logvar = torch.zeros(1, 16)
    logvar[0, 11] = -5.0
    s = sched.advance(logvar)
    assert torch.nonzero(s[0] < 1).flatten().tolist() == [11]


def test_raster_order_starts_the_patches_row_by_row_skipping_given_ones() -> None:
    known = torch.zeros(2, 16, dtype=torch.bool)
    known[0, [0, 1, 5]] = True
    sched = make_schedule(SamplerConfig("sequential", order="raster", steps=32), 16)
    sched.reset(known, [torch.Generator().manual_seed(0), torch.Generator().manual_seed(1)])
    logvar = torch.randn(2, 16)  # ignored: the order is fixed
    first: list[list[int]] = [[], []]
    for _ in range(32):
        before = sched.started.clone()
        sched.advance(logvar)
        for b in range(2):
            first[b] += torch.nonzero(sched.started[b] & ~before[b]).flatten().tolist()
    assert first[0] == [i for i in range(16) if i not in (0, 1, 5)] and first[1] == list(range(16))
    assert sampler_label(SamplerConfig("sequential", order="raster").to_dict()) == "Raster Order w/o Overlap"


@pytest.mark.parametrize("cfg, match", [
    (SamplerConfig("parallel", overlap=0.5), "overlap does not apply"),
    (SamplerConfig("parallel", order="random"), "order does not apply"),
    (SamplerConfig("sequential", order="graph"), "graph order needs"),
    (SamplerConfig("sequential", order="random", steps=80), "smaller than the 81 patches"),
    (SamplerConfig("sequential", order="random", overlap=1.0), "overlap must lie"),
    (SamplerConfig("sequential", order=None), "needs --order"),
    (SamplerConfig("parallel", eta=16.5), "eta must lie"),
    (SamplerConfig("parallel", eta=-0.5), "eta must lie"),
])
def test_sampler_knobs_that_do_not_apply_are_refused(cfg: SamplerConfig, match: str) -> None:
    with pytest.raises(SrmBenchError, match=match):
        make_schedule(cfg, 81, graph=None)


# ---------------------------------------------------------------- reverse step on a toy Gaussian

MU, SIGMA = 0.1, 0.25  # far enough inside [-1, 1] that the final clamp does not matter


def _perfect_gaussian_denoiser(patch: int):
    """Exact E[velocity | z_t] for pixels x ~ N(MU, SIGMA^2) under rectified flow; v = 0 (between the two bounds)."""
    def model(z: torch.Tensor, t: torch.Tensor, cond=None) -> DenoiserOutput:
        grid = (z.shape[-2] // patch, z.shape[-1] // patch)
        tp = pixel_levels(t, grid, patch).double()
        a, b = 1 - tp, tp
        var = a * a * SIGMA ** 2 + b * b
        r = z.double() - a * MU
        ex = MU + a * SIGMA ** 2 / var * r
        ee = b / var * r
        u = (ee - ex).float()
        return DenoiserOutput(u, torch.zeros_like(u), torch.zeros(z.shape[0], t.shape[1]))
    return model


def _toy_mean_and_std_ratio(cfg: SamplerConfig, b: int = 64) -> tuple[float, float]:
    """The mean and std / SIGMA of ``b`` samples of the perfect Gaussian denoiser (4 patches of 4x4 pixels) under ``cfg``."""
    patch = 4
    gens = [torch.Generator().manual_seed(i) for i in range(b)]
    x = torch.stack([torch.randn(1, 8, 8, generator=g) for g in gens])
    out = sample(_perfect_gaussian_denoiser(patch), x, make_schedule(cfg, 4), path=NoisePath(), generators=gens,
                 patch_size=patch, eta=cfg.eta)
    vals = out.flatten().double()
    return float(vals.mean()), float(vals.std() / SIGMA)


@pytest.mark.parametrize("eta", [0.0, 1.0])
@pytest.mark.parametrize("cfg", [SamplerConfig("parallel", steps=200),
                                 SamplerConfig("sequential", order="random", overlap=0.5, steps=500)],
                         ids=["parallel", "sequential"])
def test_perfect_denoiser_reproduces_the_data_distribution(eta: float, cfg: SamplerConfig) -> None:
    # 4 patches of 4x4 pixels: a sequential ramp still has 200 steps per patch.
    mean, ratio = _toy_mean_and_std_ratio(SamplerConfig(**{**cfg.to_dict(), "eta": eta}))
    assert abs(mean - MU) < 0.03
    assert abs(ratio - 1) < 0.05


def _toy_std_ratio(eta: float, steps: int, b: int = 128) -> tuple[float, float]:
    return _toy_mean_and_std_ratio(SamplerConfig("parallel", steps=steps, eta=eta), b)


def test_eta_above_one_caps_the_noise_and_nears_the_data_as_steps_grow() -> None:
    """eta > 1 (ours): the noise never exceeds the level's b_s, eta <= 1 is the paper's step unchanged, and with a
    perfect denoiser the samples near the data's distribution as the steps grow (x0-hat is a posterior mean, so large
    noise shrinks the spread at few steps; `_toy_std_ratio(eta, steps, 256)` gives std 0.92 of the data's at eta 2
    and 200 steps, 0.98 at 1000, 0.83 at eta 4 and 1000)."""
    path = NoisePath()
    t = torch.linspace(0.02, 1.0, 50)
    s = t - 0.01
    small, large = step_sigmas(path, t, s, 4.0)
    assert torch.all(small <= path.b(s) + 1e-7) and torch.all(large <= path.b(s) + 1e-7)
    assert torch.any(small == path.b(s))  # near t = 1 the cap binds: the step draws the level afresh
    one = step_sigmas(path, t, s, 1.0)
    half = step_sigmas(path, t, s, 0.5)
    torch.testing.assert_close(half[0], 0.5 * one[0])  # below 1 the sigmas are linear in eta, never capped
    mean, ratio = _toy_std_ratio(2.0, 1000)
    assert abs(mean - MU) < 0.03 and abs(ratio - 1) < 0.05
    few, many = _toy_std_ratio(4.0, 200)[1], _toy_std_ratio(4.0, 1000)[1]
    assert few < many < 1.0  # the shrinkage is a discretisation error: it falls with the steps


def test_given_patches_are_clamped_and_samples_do_not_depend_on_the_batch() -> None:
    cfg = UNetConfig(image_size=8, in_channels=1, patch_size=4, base_channels=8, channel_mult=(1,), num_res_blocks=1,
                     attention_resolutions=(), groups=4, emb_channels=16, time_channels=8, dropout=0.0)
    torch.manual_seed(0)
    model = UNet(cfg).eval()
    for p in model.conv_out.parameters():  # leave the zero init so the output depends on the input
        torch.nn.init.normal_(p, std=0.1)
    given = torch.rand(3, 1, 8, 8) * 2 - 1
    known = torch.tensor([[True, False, False, True]] * 3)
    sc = make_schedule(SamplerConfig("sequential", order="predicted", overlap=0.2, steps=8), 4)

    def run(idx: list[int]) -> torch.Tensor:
        gens = [torch.Generator().manual_seed(100 + i) for i in idx]
        x = torch.stack([torch.randn(1, 8, 8, generator=g) for g in gens])
        with torch.no_grad():
            return sample(model, x, sc, path=NoisePath(), generators=gens, patch_size=4, given=given[idx], known=known[idx])

    full, part = run([0, 1, 2]), run([2])
    torch.testing.assert_close(full[2:], part)
    kp = pixel_levels(known.float(), (2, 2), 4).bool()
    assert torch.equal(full[kp], given.clamp(-1, 1)[kp])


# ---------------------------------------------------------------- losses and models


def test_vlb_is_zero_for_a_perfect_mean_and_the_posterior_variance() -> None:
    g = torch.Generator().manual_seed(0)
    x, eps = torch.randn(2, 1, 8, 8, generator=g), torch.randn(2, 1, 8, 8, generator=g)
    # small t: there sigma_large / sigma_small = b_t / b_s is far from 1, so a wrong v costs
    t = torch.rand(2, 4, generator=g) * 0.002 + 0.002
    path = NoisePath()
    tp = pixel_levels(t, (2, 2), 4)
    z = path.noise(x, eps, tp)
    out = DenoiserOutput(path.target_of(x, eps, tp), -torch.ones_like(x), torch.zeros(2, 4))
    _, parts = srm_loss(out, x, eps, z, t, torch.ones(2, 4), path, 4)
    assert float(parts["mse"]) < 1e-10 and float(parts["vlb"]) < 1e-6
    out_bad = DenoiserOutput(out.mean, torch.ones_like(x), out.logvar)
    assert float(srm_loss(out_bad, x, eps, z, t, torch.ones(2, 4), path, 4)[1]["vlb"]) > 1e-3


def test_unet_noise_level_is_per_patch() -> None:
    cfg = UNetConfig(image_size=16, in_channels=3, patch_size=4, base_channels=16, channel_mult=(1, 2), num_res_blocks=1,
                     attention_resolutions=(8,), groups=8, emb_channels=32, time_channels=16, dropout=0.0)
    torch.manual_seed(0)
    m = UNet(cfg).eval()
    for p in m.parameters():
        if p.abs().sum() == 0:
            torch.nn.init.normal_(p, std=0.05)
    x, t = torch.randn(1, 3, 16, 16), torch.full((1, 16), 0.5)
    t2 = t.clone()
    t2[0, 5] = 0.9
    a, b = m(x, t), m(x, t2)
    assert a.mean.shape == (1, 3, 16, 16) and a.v.shape == (1, 3, 16, 16) and a.logvar.shape == (1, 16)
    assert not torch.allclose(a.mean, b.mean)


def test_dit_tokens_take_the_level_of_their_variable() -> None:
    m = DiT(DiTConfig(image_size=8, in_channels=3, patch_size=4, token_patch=2, hidden=32, depth=1, heads=2))
    assert m.token_var.reshape(4, 4).tolist() == [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]
    out = m(torch.randn(2, 3, 8, 8), torch.rand(2, 4))
    assert out.mean.shape == (2, 3, 8, 8) and out.logvar.shape == (2, 4)
    assert torch.all(out.mean == 0)  # adaLN-Zero: the network starts at zero output


@pytest.mark.parametrize("task, millions", [("sudoku", 119.0), ("even-pixels", 19.7), ("counting-polygons", 76.8)])
def test_paper_unets_have_the_papers_sizes(task: str, millions: float) -> None:
    cfg = make_config(task, "srm", "paper")
    with torch.device("meta"):
        n = sum(p.numel() for p in build_model(cfg.arch, cfg.model).parameters())
    assert abs(n / 1e6 - millions) < 0.1


def test_ddpm_sudoku_takes_mask_and_masked_image() -> None:
    cfg = make_config("sudoku", "ddpm", "paper")
    assert cfg.model["cond_channels"] == 2 and cfg.tsampling["kind"] == "shared"
    assert make_config("sudoku", "srm", "paper").tsampling["kind"] == "uniform_tbar"


def test_presets_take_the_image_and_patch_shape_from_the_registry() -> None:
    from srm_bench.baselines.presets import PAPER
    from srm_bench.registry import get_task

    assert set(PAPER) == {"sudoku", "even-pixels", "counting-polygons", "counting-stars"}
    for name in PAPER:
        spec, model = get_task(name), make_config(name, "srm", "paper").model
        assert (model["image_size"], model["in_channels"], model["patch_size"]) == (spec.image_side, spec.channels, spec.patch_size)
    assert make_config("even-pixels", "srm", "paper").model["image_size"] == 32


def test_clean_context_probe_scores_the_noisy_patches_only(monkeypatch) -> None:
    """benchmarks/probe_clean_context.py: an exact denoiser scores 0 everywhere; one that predicts
    zero velocity (x0-hat = z) scores t^2 E[(eps - x)^2] on the noisy patches, whatever share of
    patches is clean (those are left out, not counted as 0)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_clean_context.py"
    monkeypatch.syspath_prepend(str(path.parent))  # its sibling check_reasoning, as when run as a script
    spec = importlib.util.spec_from_file_location("probe_clean_context", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rf = NoisePath("rectified_flow", "velocity")
    x = torch.rand(4, 3, 16, 16) * 2 - 1

    class Exact(torch.nn.Module):
        def forward(self, z, t):
            tp = pixel_levels(t, (4, 4), 4).clamp_min(1e-6)
            eps = (z - (1 - tp) * x) / tp
            return DenoiserOutput(mean=eps - x, v=None, logvar=None, logits=None)

    class Zero(torch.nn.Module):
        def forward(self, z, t):
            return DenoiserOutput(mean=torch.zeros_like(z), v=None, logvar=None, logits=None)

    exact = mod.context_errors(Exact(), rf, x, 4, [0.3, 0.9], [0.0, 0.5], seed=0)
    assert set(exact) == {(0.3, 0.0), (0.3, 0.5), (0.9, 0.0), (0.9, 0.5)}
    assert max(v[0] for v in exact.values()) < 1e-8
    zero = mod.context_errors(Zero(), rf, x, 4, [0.5], [0.0, 0.5], seed=0)
    base = zero[(0.5, 0.0)][0] / 0.25  # E[(eps - x)^2] over all pixels
    assert 1.0 < base < 2.0
    assert zero[(0.5, 0.5)][0] == pytest.approx(zero[(0.5, 0.0)][0], rel=0.35)

    # Sudoku's form: known patches are clean in every state and left out of both figures; the class head's
    # reading is scored on the noisy patches only. This head is right on patches 0-7 and wrong on the rest.
    digits = torch.arange(16).remainder(9).add(1).expand(4, 16)

    class Head(torch.nn.Module):
        def forward(self, z, t):
            guess = torch.where(torch.arange(16) < 8, digits, digits % 9 + 1)
            logits = torch.nn.functional.one_hot(guess - 1, 9).float()
            return DenoiserOutput(mean=torch.zeros_like(z), v=None, logvar=None, logits=logits)

    known = torch.zeros(4, 16, dtype=torch.bool)
    known[:, :8] = True  # the right half is given: every noisy patch is one the head gets wrong
    res = mod.context_errors(Head(), rf, x, 4, [0.5], [0.0], seed=0, known=known, digits=digits)
    assert res[(0.5, 0.0)][1] == 0.0 and res[(0.5, 0.0)][0] == pytest.approx(zero[(0.5, 0.0)][0], rel=0.35)
    res = mod.context_errors(Head(), rf, x, 4, [0.5], [0.0], seed=0, digits=digits)
    assert res[(0.5, 0.0)][1] == 0.5
    assert np.isnan(mod.context_errors(Head(), rf, x, 4, [0.5], [0.0], seed=0)[(0.5, 0.0)][1])
    assert np.isnan(res[(0.5, 0.0)][2])  # no uncertainty head, no log-variance pick

    # The next cell: the log-variance ranks patch 9 (read wrong) lowest, the entropy patch 3 (read right,
    # the most confident reading; patch 12 is the least), so the picks score 0 and 1; once patch 3 is clean the entropy's
    # lowest noisy patch is another one. Patch 9 clean: the log-variance's next pick is patch 10, wrong too.
    class Ranked(torch.nn.Module):
        def forward(self, z, t):
            guess = torch.where(torch.arange(16) < 8, digits, digits % 9 + 1)
            logits = torch.nn.functional.one_hot(guess - 1, 9).float()
            logits[:, 3] *= 20.0
            logits[:, 12] = 0.0  # the least sure reading (a wrong one)
            logvar = torch.arange(16.0).sub(9.0).abs().expand(4, 16).clone()
            return DenoiserOutput(mean=torch.zeros_like(z), v=None, logvar=logvar, logits=logits)

    picks = mod.context_errors(Ranked(), rf, x, 4, [0.5], [0.0], seed=0, digits=digits)[(0.5, 0.0)]
    assert (picks[1], picks[2], picks[3]) == (0.5, 0.0, 1.0)
    known = torch.zeros(4, 16, dtype=torch.bool)
    known[:, 3] = known[:, 9] = True
    picks = mod.context_errors(Ranked(), rf, x, 4, [0.5], [0.0], seed=0, known=known, digits=digits)[(0.5, 0.0)]
    assert (picks[2], picks[3]) == (0.0, 1.0)
    assert np.isnan(mod.pick_right(torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.bool), torch.ones(2, 3, dtype=torch.bool)))


def test_head_range_probe_splits_the_log_variance_by_clean_and_noisy_cells(monkeypatch) -> None:
    """benchmarks/probe_head_range.py: a head that reads -1 on a clean cell (t = 0) and the cell's level on a
    noisy one gives quantiles of -1 over the clean cells and of t over the noisy ones; the givens are clean in
    every state, and at f = 0.5 about half the other cells are too."""
    mod = bench_module("probe_head_range", monkeypatch)
    seen = []

    class Head(torch.nn.Module):
        def forward(self, z, t):
            seen.append(int((t == 0).sum()))
            return DenoiserOutput(mean=torch.zeros_like(z), v=None, logvar=torch.where(t == 0, -1.0, t), logits=None)

    x = torch.rand(8, 1, 16, 16) * 2 - 1
    known = torch.zeros(8, 16, dtype=torch.bool)
    known[:, :4] = True
    res = mod.head_quantiles(Head(), NoisePath("rectified_flow", "velocity"), x, known, 4, [1.0, 0.3], [0.0, 0.5], 0)
    assert set(res) == {(1.0, 0.0), (0.3, 0.0), (1.0, 0.5), (0.3, 0.5)}
    for (t, _), (clean, noisy) in res.items():
        assert clean == [-1.0] * len(mod.QUANTILES)
        assert noisy == pytest.approx([t] * len(mod.QUANTILES))
    assert seen[0] == seen[1] == 32 and 32 + 20 < seen[2] == seen[3] < 32 + 76  # 4 givens; ~6 of 12 more at f 0.5


def test_completion_probe_keeps_the_given_patches_and_redraws_only_the_missing_ones() -> None:
    """benchmarks/probe_even_pixels_completion.py: every image loses exactly K patches, the same ones
    for the same seed; the given patches come back bit for bit whatever the network says, and an
    exact denoiser (it knows the image) completes every image exactly, so the probe's failures are
    the network's."""
    import importlib.util
    from pathlib import Path

    from srm_bench.canonical import canonical_dataset
    from srm_bench.evaluators.even_pixels import score_images

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_even_pixels_completion.py"
    spec = importlib.util.spec_from_file_location("probe_even_pixels_completion", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    known = mod.missing_masks(6, 64, 4, seed=0)
    assert known.shape == (6, 64) and ((~known).sum(1) == 4).all()
    assert (known == mod.missing_masks(6, 64, 4, seed=0)).all() and (known != mod.missing_masks(6, 64, 4, seed=1)).any()
    images = canonical_dataset("even-pixels", "test").images(slice(0, 6))
    x = torch.from_numpy(images).permute(0, 3, 1, 2).float() / 127.5 - 1.0
    cfg = make_config("even-pixels", "srm", "tiny")
    sampler = SamplerConfig(name="sequential", order="random", overlap=0.5, steps=64, eta=0.0)

    class Exact(torch.nn.Module):
        def forward(self, z, t, cond=None):
            tp = pixel_levels(t, (8, 8), 4).clamp_min(1e-6)
            eps = (z - (1 - tp) * x) / tp
            return DenoiserOutput(mean=eps - x, v=None, logvar=None, logits=None)

    class Zero(torch.nn.Module):
        def forward(self, z, t, cond=None):
            return DenoiserOutput(mean=torch.zeros_like(z), v=None, logvar=None, logits=None)

    done = mod.complete(Exact(), cfg, images, known, sampler, seed=0, device="cpu")
    assert np.abs(done.astype(int) - images).max() <= 1 and (np.asarray(score_images(done)["error"]) == 0).all()
    wrong = mod.complete(Zero(), cfg, images, known, sampler, seed=0, device="cpu")
    changed = (wrong != images).reshape(6, 8, 4, 8, 4, 3).any(axis=(2, 4, 5)).reshape(6, 64)
    assert not (changed & known).any()  # the given patches, bit for bit
    assert changed[~known].mean() > 0.9  # the missing ones drawn again


def test_completion_origin_probe_reads_the_count_a_network_estimates_and_the_one_it_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks/probe_completion_origin.py: on the canonical test images it finds each image's two colours and
    where colour A lies, classifies a drawn pixel by the nearer colour, and reads a network's one-step estimate
    of the missing patch's colour-A count: exactly the required count for a denoiser that knows the image, half
    the patch for one that predicts the two colours' midpoint."""
    import importlib.util
    from pathlib import Path

    from srm_bench.canonical import canonical_dataset

    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    monkeypatch.syspath_prepend(str(bench))  # it imports the completion and count probes, as a script does
    spec = importlib.util.spec_from_file_location("probe_completion_origin", bench / "probe_completion_origin.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    images = canonical_dataset("even-pixels", "test").images(slice(0, 6))
    a, b, is_a = mod.colour_a(images)
    assert (is_a.sum((1, 2)) == 512).all() and (images[is_a] == np.repeat(a, 512, axis=0)).all()
    nudged = images.copy()
    nudged[:, 0, 0] = (0.8 * a + 0.2 * b).astype(np.uint8)  # drawn near colour A, not on it
    assert (mod.nearer_a(nudged, a, b)[:, 0, 0]).all() and (mod.nearer_a(images, a, b) == is_a).all()
    missing = ~mod.missing_masks(6, 64, 1, 0)
    required = (mod.by_patch(is_a) * missing[..., None]).sum((1, 2))
    assert len(set(required.tolist())) > 1  # the images ask for different counts
    x = torch.from_numpy(images).permute(0, 3, 1, 2).float() / 127.5 - 1.0
    mid = torch.from_numpy((a.astype(np.float32) + b) / 2 / 127.5 - 1.0)[:, :, None, None]

    class Exact(torch.nn.Module):  # knows the image: x0-hat is the image itself
        def forward(self, z, t, cond=None):
            tp = pixel_levels(t, (8, 8), 4).clamp_min(1e-6)
            return DenoiserOutput(mean=(z - (1 - tp) * x) / tp - x, v=None, logvar=None, logits=None)

    class Midpoint(torch.nn.Module):  # x0-hat halfway between the two colours everywhere
        def forward(self, z, t, cond=None):
            tp = pixel_levels(t, (8, 8), 4).clamp_min(1e-6)
            return DenoiserOutput(mean=(z - mid) / tp, v=None, logvar=None, logits=None)

    assert mod.estimate(Exact(), images, a, b, missing, 0, "cpu") == pytest.approx(required, abs=1e-3)
    assert mod.estimate(Midpoint(), images, a, b, missing, 0, "cpu") == pytest.approx(np.full(6, 8.0), abs=1e-3)
    # --trajectory: image 0's x0-hat count stays on the required 7 and its draw is exact; image 1's starts on it,
    # leaves it once its patch is below t = 0.3 and the draw misses; image 2's is never on it
    levels = np.repeat(np.linspace(1, 0, 11)[:, None], 3, 1)
    counts = np.full((11, 3), 7.0)
    counts[levels[:, 1] < 0.3, 1] = 8.2
    counts[:, 2] = 5.0
    lines = mod.trajectory_report(levels, counts, np.array([7, 7, 7]), np.array([7, 8, 6]))
    row = {line.split(":")[0].strip(): line for line in lines[1:]}
    assert "all 0.667 / 0.67 px; exact draws 1.000; misses 0.500" in row["t <= 1.0"]
    assert "all 0.333 / 1.07 px; exact draws 1.000; misses 0.000" in row["t <= 0.25"]
    assert "t <= 0.5" in row and "t <= 0.02" in row


def test_patch_draw_toy_makes_exact_patches_and_its_sampler_lands_on_a_known_patch() -> None:
    """benchmarks/probe_patch_draw.py: its training patches hold exactly k pixels of colour A; its sampler, given
    the velocity of the straight path to one fixed patch, lands on that patch at eta 0 and at eta 1 (x0-hat and
    the final step right); conv+sum pools each block over the patch, conv does not; a training step moves the
    weights."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_patch_draw.py"
    spec = importlib.util.spec_from_file_location("probe_patch_draw", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    gen = torch.Generator().manual_seed(0)
    k = torch.arange(17)
    x = mod.draw_patches(k, gen)
    assert x.shape == (17, 1, 4, 4) and set(x.unique().tolist()) == {-1.0, 1.0}
    assert ((x > 0).flatten(1).sum(1) == k).all()
    assert not torch.equal(mod.draw_patches(torch.full((2,), 8), gen)[0], mod.draw_patches(torch.full((2,), 8), gen)[0])
    target = mod.draw_patches(k, gen)

    class Known(torch.nn.Module):  # u = eps - x on the straight path to ``target``
        def forward(self, z, t, kk):
            tt = t[:, None, None, None].clamp_min(1e-6)
            return (z - (1 - tt) * target) / tt - target

    for eta in (0.0, 1.0):
        assert torch.allclose(mod.sample(Known(), k, 50, eta, torch.Generator().manual_seed(1)), target, atol=1e-4)
    assert mod.make("conv+sum", 8).blocks[0].pool is not None and mod.make("conv", 8).blocks[0].pool is None
    assert isinstance(mod.make("mlp", 8), mod.MlpDenoiser)
    model = mod.make("conv+sum", 8)
    before = [p.detach().clone() for p in model.parameters()]
    mod.train(model, 2, 8, 1e-3, gen)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))
    # --k-noise: a denoiser that draws the first round(k told) pixels as colour A is exact when told k, and misses
    # when told k with noise, drawn once a sample or afresh at every step
    class Told(torch.nn.Module):
        def forward(self, z, t, kk):
            goal = torch.where(torch.arange(16) < kk.round().clamp(0, 16)[:, None], 1.0, -1.0).view_as(z)
            tt = t[:, None, None, None].clamp_min(1e-6)
            return (z - (1 - tt) * goal) / tt - goal

    many = torch.arange(170) % 17
    for sd, per_step, most in ((0.0, False, 1.0), (3.0, False, 0.3), (3.0, True, 0.3)):
        z = mod.sample(Told(), many, 20, 0.0, torch.Generator().manual_seed(2), k_noise=sd, per_step=per_step)
        exact = ((z > 0).flatten(1).sum(1) == many).float().mean()
        assert (exact == 1.0) if sd == 0 else (exact < most), (sd, per_step, exact)
    once, afresh = (mod.sample(Told(), many, 20, 0.0, torch.Generator().manual_seed(2), k_noise=3.0, per_step=p)
                    for p in (False, True))
    assert not torch.equal(once, afresh)  # the same stream, but the told count redrawn at every step
    # --finetune: the pooled arm starts computing what the conv network it continues computes, and can then learn
    base = mod.make("conv", 8)
    mod.train(base, 40, 8, 1e-3, gen)
    arm = mod.continued(base, "conv+sum", 8)
    z, t = torch.randn(5, 1, 4, 4, generator=gen), torch.rand(5, generator=gen)
    assert arm.blocks[0].pool is not None and torch.equal(arm(z, t, k[:5].float()), base(z, t, k[:5].float()))
    mod.train(arm, 40, 8, 1e-3, gen, anneal=True)
    assert arm.blocks[0].pool.weight.abs().max() > 0


def test_count_probe_reads_an_exact_a_shrunk_and_a_blind_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks/probe_even_pixels_count.py: a denoiser that fills the noisy patches with exactly the colour-A
    share their clean rest requires reads as slope 1, no error and nothing about the line; one that shows 80%
    of that share's distance from one half reads as slope 0.8 with an error but still nothing about the line
    (it knows the count); one that always says one half reads as slope 0."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_even_pixels_count.py"
    spec = importlib.util.spec_from_file_location("probe_even_pixels_count", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    red, cyan = np.array([200, 0, 0]), np.array([0, 200, 200])  # colour A has R > G, colour B not
    monkeypatch.setattr(mod, "palette", lambda off: np.broadcast_to(np.stack([red, cyan]), (len(off), 2, 3)).copy())
    a, b = (torch.tensor(c / 127.5 - 1.0, dtype=torch.float32)[:, None, None] for c in (red, cyan))

    class Counter(torch.nn.Module):
        def __init__(self, gain: float) -> None:
            super().__init__()
            self.gain = gain

        def forward(self, z, t):
            clean = pixel_levels(t, (8, 8), 4) == 0  # (n, 1, 32, 32)
            is_a = (z[:, 0] > z[:, 1]) & clean[:, 0]
            share = (512 - is_a.sum((1, 2)).float()) / (~clean[:, 0]).sum((1, 2)).float()  # what the noisy part must hold
            share = 0.5 + self.gain * (share - 0.5)
            x0 = share[:, None, None, None] * a + (1 - share[:, None, None, None]) * b
            return DenoiserOutput(mean=z - x0, v=None, logvar=None, logits=None)  # x0 = z - t u at t = 1

    for k in (1, 4):
        seed = [3, k]  # the same draws for every denoiser
        slope, r, err, about = mod.probe(Counter(1.0), 64, k, np.random.default_rng(seed))
        assert slope == pytest.approx(1, abs=1e-4) and r == pytest.approx(1, abs=1e-4)
        assert err < 1e-3 and about < 1e-3
        slope, r, err, about = mod.probe(Counter(0.8), 64, k, np.random.default_rng(seed))
        assert slope == pytest.approx(0.8, abs=1e-4) and err > 0.1 and about < 1e-3
        with np.errstate(invalid="ignore"):  # r of a constant prediction is undefined
            slope, _, err, _ = mod.probe(Counter(0.0), 64, k, np.random.default_rng(seed))
        assert abs(slope) < 1e-4 and err > 0.5
    s, c, r, about = mod.calibration(np.array([0.0, 1, 2, 3]), np.array([1.0, 1.5, 2, 2.5]))
    assert (s, c, r) == pytest.approx((0.5, 1.0, 1.0)) and about == pytest.approx(0)


def test_cuda_graph_check_fails_a_replay_that_ignores_its_new_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks/check_cuda_graph.py --max-diff, the lease scripts' go/no-go for `train --cuda-graph`:
    the step as it is passes (uncaptured on the CPU: the plain step's gradients exactly); a replay that
    keeps computing its first batch (a stale input buffer) fails in one line with exit status 1."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "check_cuda_graph.py"
    spec = importlib.util.spec_from_file_location("check_cuda_graph", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(sys, "argv", ["check_cuda_graph.py", "--task", "even-pixels", "--preset", "tiny",
                                      "--batch", "4", "--device", "cpu", "--max-diff", "0.05"])
    mod.main()  # passes: no SystemExit

    class Stale(mod.GraphedGrads):
        def __call__(self, batch):
            self.first = getattr(self, "first", batch)
            return super().__call__(self.first)

    monkeypatch.setattr(mod, "GraphedGrads", Stale)
    with pytest.raises(SystemExit) as failed:
        mod.main()
    assert "differs by" in str(failed.value.code) and "without --cuda-graph" in str(failed.value.code)


def test_context_draw_toy_holds_its_clean_rest_and_pools_only_over_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks/probe_context_draw.py: its images hold exactly half their pixels of colour A and one aligned noisy
    4 x 4 patch whose count is k; its sampler, given the velocity of the straight path to the image, lands on it at
    eta 0 and 1 and never moves the clean rest; `told` reads k and `ctx` does not; the `ctx+mean` block pools its
    features over the clean pixels only; the trajectory reads the first step at or below each level."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_context_draw.py"
    monkeypatch.syspath_prepend(str(path.parent))  # it imports the patch toy's trainer and step, as a script does
    spec = importlib.util.spec_from_file_location("probe_context_draw", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    gen = torch.Generator().manual_seed(0)
    x, mask, k = mod.draw_images(64, 8, gen)
    assert ((x > 0).sum((1, 2, 3)) == 32).all() and (mask.sum((1, 2, 3)) == 16).all()
    tiles = mask.view(64, 2, 4, 2, 4).sum((2, 4))  # the mask is one whole 4 x 4 tile of the 2 x 2 grid
    assert ((tiles == 16).sum((1, 2)) == 1).all() and ((tiles == 0).sum((1, 2)) == 3).all()
    assert torch.equal(k, ((x > 0).float() * mask).sum((1, 2, 3))) and len(k.unique()) > 3

    held = []

    class Known(torch.nn.Module):  # u = eps - x on the straight path to ``x`` in the patch, garbage outside it
        def forward(self, z, m, t, kk):
            held.append(torch.equal(z[m == 0], x[m == 0]))  # the clean rest as given, at every step
            tt = t[:, None, None, None].clamp_min(1e-6)
            return (z - (1 - tt) * x) / tt - x + 5.0 * (1 - m)

    for eta in (0.0, 1.0):
        z, counts, levels = mod.sample(Known(), x, mask, k, 20, eta, torch.Generator().manual_seed(1))
        assert torch.allclose(z, x, atol=1e-4) and torch.equal(z[mask == 0], x[mask == 0]) and all(held)
        assert torch.allclose(counts[-1], k, atol=1e-3) and levels[0] == 1.0 and len(levels) == 20
    told, ctx = mod.Denoiser("told", 8), mod.Denoiser("ctx", 8)
    t = torch.rand(64, generator=gen)
    assert not torch.equal(told(x, mask, t, k), told(x, mask, t, k + 1))
    assert torch.equal(ctx(x, mask, t, k), ctx(x, mask, t, k + 1))
    block = mod.Block(4, True)
    seen = []
    block.mean.register_forward_hook(lambda m, inp, out: seen.append(inp[0]))
    h = torch.randn(3, 4, 8, 8, generator=gen)
    clean = 1.0 - mask[:3]
    block(h, clean)
    r = block.conv1(torch.nn.functional.silu(h))
    want = torch.stack([r[i][:, clean[i, 0] > 0].mean(1) for i in range(3)])
    assert torch.allclose(seen[0], want, atol=1e-5)
    counts = [torch.full((2,), c) for c in (5.0, 6.2, 7.0, 7.4)]
    line = mod.trajectory(counts, [1.0, 0.8, 0.5, 0.2], torch.tensor([7.0, 7.0]))
    assert line == "t 1.0: 0.000, t 0.75: 1.000, t 0.5: 1.000, t 0.25: 1.000"


def test_sampler_order_probe_reads_start_steps_and_the_shape_of_an_order() -> None:
    """benchmarks/probe_sampler_order.py: a patch starts at the first step whose new level is below 1; its report
    reads a fixed (raster) order as fully consistent between samples with its last four patches touching, a
    per-sample random order as inconsistent, and a centre-first order as starting the border ring last."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_sampler_order.py"
    spec = importlib.util.spec_from_file_location("probe_sampler_order", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # two samples, three patches, four steps: sample 0 starts patch 2, 0, 1; sample 1 starts 1 and 2 together, then 0
    after = [np.array([[1.0, 1.0, 0.5], [1.0, 0.5, 0.5]]), np.array([[0.6, 1.0, 0.2], [1.0, 0.2, 0.2]]),
             np.array([[0.3, 0.7, 0.0], [0.8, 0.0, 0.0]]), np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])]
    assert mod.start_steps(after).tolist() == [[1, 2, 0], [2, 0, 0]]
    rank = mod.ranks_of(mod.start_steps(after), np.random.default_rng(0))
    assert rank[0].tolist() == [1, 2, 0] and rank[1, 0] == 2 and sorted(rank[1, 1:].tolist()) == [0, 1]
    with pytest.raises(SystemExit, match="never started"):
        mod.start_steps([np.ones((1, 3))])

    raster = mod.order_figures(np.tile(np.arange(64), (6, 1)), 8)
    assert raster["consistency"] == pytest.approx(1.0) and raster["last4_touching"] == 1.0
    assert raster["neighbours"] == pytest.approx(0.5, abs=0.05)  # the patches above and to the left came first
    rng = np.random.default_rng(1)
    shuffled = mod.order_figures(np.stack([rng.permutation(64) for _ in range(24)]), 8)
    assert abs(shuffled["consistency"]) < 0.05 and shuffled["last4_touching"] < 0.6
    assert shuffled["neighbours_first"] < 0.4 < 0.6 < shuffled["neighbours_second"]
    ring = mod.ring_of(8)
    assert ring.tolist()[:8] == [0] * 8 and ring[27] == 3 and np.bincount(ring).tolist() == [28, 20, 12, 4]
    centre_first = np.tile(np.argsort(np.lexsort((np.arange(64), -ring))), (3, 1))
    by_ring = mod.order_figures(centre_first, 8)["by_ring"]
    assert by_ring == sorted(by_ring, reverse=True) and by_ring[0] > 0.7 and by_ring[-1] < 0.1
    assert len(mod.order_report(centre_first, 8)) == 4


def test_sudoku_bar_judge_reads_the_rows_of_the_bar_protocol_only(tmp_path) -> None:
    """benchmarks/judge_sudoku_bar.py: every item of issue 11's bar from result files named by the weights' hash;
    a variant row (the class entropy, another seed) decides nothing, a missing row is 'missing', and the medium
    order needs predicted > graph > both random and parallel."""
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "judge_sudoku_bar.py"
    spec = importlib.util.spec_from_file_location("judge_sudoku_bar", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def write(name: str, sha: str, split: str, acc: float, sampler: dict, n: int = 500) -> None:
        sampler = {"steps": 1000, "eta": 1.0, "seed": 0, "overlap": 0.0, **sampler}
        res = {"task": "sudoku", "split": split, "model": {"sampler": sampler, "training": {"checkpoint_sha256": sha}},
               "metrics": {"accuracy": {"value": acc, "n": n}}}
        (tmp_path / f"{name}.json").write_text(json.dumps(res))

    seq = {"name": "sequential"}
    table = {"easy": (0.996, 0.992, 0.994, 0.990), "medium": (0.70, 0.85, 0.72, 0.60), "hard": (0.02, 0.52, 0.35, 0.1)}
    for split, accs in table.items():
        for sampler, acc in zip(("parallel", "predicted", "graph", "random"), accs):
            s = {"name": "parallel"} if sampler == "parallel" else {**seq, "order": sampler}
            write(f"s-{split}-{sampler}", "aaaa1111", split, acc, s)
    write("d-hard", "bbbb2222", "hard", 0.008, {"name": "parallel"})
    write("s-hard-entropy", "aaaa1111", "hard", 0.30, {**seq, "order": "predicted", "uncertainty": "entropy"})
    write("s-hard-seed1", "aaaa1111", "hard", 0.30, {**seq, "order": "predicted", "seed": 1})
    write("s-hard-small", "aaaa1111", "hard", 0.30, {**seq, "order": "predicted", "seed": 0}, n=64)
    srm, other = mod.rows_of("aaaa", [tmp_path])
    ddpm, _ = mod.rows_of("bbbb", [tmp_path])
    assert len(srm) == 12 and len(other) == 3 and srm[("hard", "predicted")][0] == 0.52
    assert all(ok for _, ok, _ in mod.judge(srm, ddpm))
    # each item can fail on its own
    for key, acc, item in ((("hard", "predicted"), 0.49, 0), (("hard", "parallel"), 0.06, 1),
                           (("easy", "random"), 0.988, 3), (("medium", "parallel"), 0.73, 4)):
        worse = {**srm, key: (acc, srm[key][1])}
        verdicts = [ok for _, ok, _ in mod.judge(worse, ddpm)]
        assert verdicts[item] is False and sum(v is False for v in verdicts) == 1
    assert [ok for _, ok, _ in mod.judge(srm, {("hard", "parallel"): (0.084, tmp_path)})][2] is False
    gone = {k: v for k, v in srm.items() if k != ("medium", "graph")}
    assert [ok for _, ok, _ in mod.judge(gone, ddpm)][4] is None


def test_class_target_probe_measures_the_tail_of_each_target() -> None:
    """benchmarks/probe_class_targets.py: the tail statistics of a known vector, and the two targets of a stub
    class head over the weighted cells only (a sure wrong reading: cross-entropy ~30, 1 - p = 1)."""
    import importlib.util
    from pathlib import Path
    from types import SimpleNamespace

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "probe_class_targets.py"
    spec = importlib.util.spec_from_file_location("probe_class_targets", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    s = mod.tail_stats(torch.cat([torch.ones(99), torch.tensor([101.0])]))
    assert s["mean"] == pytest.approx(2.0) and s["median"] == 1.0 and s["top1"] == pytest.approx(101 / 200)
    assert mod.tail_stats(torch.ones(50))["cv"] == 0.0

    labels = torch.tensor([[0, 1, 2, 0]])
    logits = torch.tensor([[[30.0, 0.0, 0.0], [0.0, 30.0, 0.0], [30.0, 0.0, 0.0], [0.0, 0.0, 0.0]]])
    w = torch.tensor([[1.0, 1.0, 1.0, 0.0]])  # the last cell (a given) is not weighed
    batch = SimpleNamespace(astuple=lambda: (None, None, None, None, None, w, labels))

    class Head(torch.nn.Module):
        def forward(self, z, t, cond):
            return SimpleNamespace(logits=logits)

    res = mod.targets(Head(), lambda step: batch, 2, 1e-4)
    assert len(res["1 - p"]) == 6  # 3 weighted cells, 2 batches
    assert res["1 - p"][:3].tolist() == pytest.approx([1e-4, 1e-4, 1.0])
    assert res["cross-entropy"][:3].tolist() == pytest.approx([1e-4, 1e-4, 30.0], rel=1e-3)


def test_greedy_order_probe_decides_cells_by_the_class_head_in_the_ranking_order(monkeypatch) -> None:
    """benchmarks/probe_greedy_order.py: a class head that reads every cell's solution digit solves every puzzle,
    whatever the order; one that always reads a 1 clashes at its second decided cell and solves none. A decided
    cell is shown clean as an image of the digit it was given (here each cell's image is its digit / 10), the
    givens stay, and the cells are decided in the ranking's order."""
    from srm_bench.canonical import canonical_dataset

    mod = bench_module("probe_greedy_order", monkeypatch)
    data = canonical_dataset("sudoku", "hard")
    solution = torch.from_numpy(np.asarray(data.items["grid"][:3], dtype=np.int64).reshape(3, -1))
    x = mod.patches_to_image((solution.float() / 10)[:, :, None, None, None].expand(3, 81, 1, 28, 28), (9, 9))
    known = torch.zeros(3, 81, dtype=torch.bool)
    known[:, 40] = True
    orders = []

    class Head(torch.nn.Module):
        def __init__(self, read_solution: bool, rank_by_index: bool) -> None:
            super().__init__()
            self.read_solution, self.rank_by_index = read_solution, rank_by_index

        def forward(self, z, t):
            shown = (mod.cell_view(z).mean((2, 3, 4)) * 10).round().long()  # the digit each clean cell shows
            clean = t == 0
            assert clean[:, 40].all() and (shown[:, 40] == solution[:, 40]).all()
            digits = solution if self.read_solution else torch.ones_like(solution)
            self.decided = torch.where(clean, shown, torch.zeros_like(shown))
            orders.append(clean.sum(-1))
            logits = torch.nn.functional.one_hot(digits - 1, 9).float() * 20
            rank = torch.arange(81.0).expand(3, 81) if self.rank_by_index else -torch.arange(81.0).expand(3, 81)
            return DenoiserOutput(mean=torch.zeros_like(z), v=None, logvar=rank, logits=logits)

    rf = NoisePath("rectified_flow", "velocity")
    for by_index in (True, False):
        head = Head(True, by_index)
        ok, first, decided = mod.greedy(head, rf, x, known, solution, "logvar", 28, 0)
        assert ok.all() and (first == -1).all() and (decided == solution).all()
        assert (head.decided[:, 0] == solution[:, 0]).all() == by_index  # row-major order: cell 0 decided early
    assert orders[0].tolist() == [1, 1, 1] and orders[1].tolist() == [2, 2, 2]  # one cell a step
    ok, first, decided = mod.greedy(Head(True, True), rf, x, known, solution, "random", 28, 0)
    assert ok.all() and (decided == solution).all()  # the control order: a reader of the solution needs no order
    head = Head(False, True)
    ok, first, decided = mod.greedy(head, rf, x, known, solution, "entropy", 28, 0)
    assert not ok.any() and (first == 1).all()
    assert (head.decided[:, 0] == 1).all() and (decided[:, 40] == solution[:, 40]).all()


def test_patch_mean_probe_reads_counts_and_the_residual_means(monkeypatch) -> None:
    """benchmarks/probe_patch_mean_error.py: a clean patch's count read on the two-colour axis is its true count; a
    network exact in velocity holds every count (error 0) and leaves no residual; an error white over the pixels reads
    pmse / mse ~1, one constant over each patch reads 16 (all of it in the patch means) and moves the counts off."""
    from srm_bench.baselines.diffusion import pixel_levels
    from srm_bench.baselines.noise import NoisePath

    mod = bench_module("probe_patch_mean_error", monkeypatch)
    s = mod.states(64, 4, 0.5, np.random.default_rng(0))
    true = mod.by_patch(s["is_a"]).sum(-1)
    assert np.abs(mod.patch_counts(s["x"], s["colours"]) - true).max() < 1e-4 and len(np.unique(true)) > 3
    path = NoisePath("rectified_flow", "velocity")
    t_pix = pixel_levels(torch.from_numpy(s["noisy"].astype(np.float32) * 0.5), (8, 8), 4)
    target = path.target_of(torch.from_numpy(s["x"]), torch.from_numpy(s["eps"]), t_pix)
    g = torch.Generator().manual_seed(0)

    class Fixed(torch.nn.Module):
        def __init__(self, residual: torch.Tensor) -> None:
            super().__init__()
            self.residual = residual

        def forward(self, z, t):
            return DenoiserOutput(target + self.residual, torch.zeros_like(z), torch.zeros(t.shape))

    white = mod.measure(Fixed(0.1 * torch.randn(target.shape, generator=g)), s, "cpu")
    flat = mod.measure(Fixed(torch.full(target.shape, 0.1)), s, "cpu")
    exact = mod.measure(Fixed(torch.zeros(target.shape)), s, "cpu")
    assert exact["count"] < 1e-4 and exact["exact"] == 1.0 and exact["sum_exact"] == 1.0 and exact["mse"] < 1e-10
    assert 0.8 < white["ratio"] < 1.2 and flat["ratio"] == pytest.approx(16.0, rel=1e-3)
    assert flat["count"] > 0.01 and exact["k"] == 4
