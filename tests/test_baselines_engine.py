"""The training engine: data made on the device, levels drawn on the device, weights that
travel (weights.safetensors, --init), accuracy measured during training, CellNet."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from srm_bench.baselines.diffusion import pixel_levels
from srm_bench.baselines.presets import make_config, with_overrides
from srm_bench.baselines.streams import EvenPixelsStream, SudokuStream, hsv_to_rgb8_torch
from srm_bench.baselines.train import build_model, load_weights, train
from srm_bench.baselines.tsampling import DeviceLevelSampler, TSamplingConfig, recursive_allocation_torch
from srm_bench.errors import SrmBenchError

from test_baselines_cli import run_cli
from test_baselines_train import tiny_cfg, tiny_data


@pytest.fixture(scope="module")
def sudoku_stream() -> SudokuStream:
    return SudokuStream("cpu", grid_classes=64)


def test_sudoku_stream_draws_valid_puzzles_made_of_pool_digits(sudoku_stream: SudokuStream) -> None:
    from srm_bench.evaluators.sudoku import sudoku_l1, tiles_of

    torch.manual_seed(0)
    grids = sudoku_stream.grids_of(500)
    assert (sudoku_l1((grids + 1).numpy().astype(np.uint8)) == 0).all()
    # Symmetries and relabelling spread every digit over every cell.
    assert all(len(torch.unique(grids[:, r, c])) == 9 for r in range(9) for c in range(9))
    torch.manual_seed(1)
    inst = torch.randint(0, sudoku_stream.k, (4, 81))
    img = sudoku_stream.render(grids[:4], inst)
    tiles = tiles_of(np.round((img.numpy()[:, 0] + 1) * 127.5).astype(np.uint8))
    pool = sudoku_stream.pool.numpy()
    for n in range(4):
        for cell in (0, 40, 80):
            np.testing.assert_array_equal(tiles[n, cell], pool[grids[n].flatten()[cell], inst[n, cell]])
    torch.manual_seed(2)
    known = sudoku_stream.draw(400).known
    counts = known.sum(1)
    assert counts.min() >= 0 and counts.max() <= 80 and 30 < counts.float().mean() < 50


def test_sudoku_stream_uses_the_train_base_grids_only(sudoku_stream: SudokuStream) -> None:
    from srm_bench.generators.sudoku import base_grid, symmetry_invariant

    torch.manual_seed(3)
    drawn = {symmetry_invariant((g + 1).numpy()) for g in sudoku_stream.grids_of(50)}
    bases = {symmetry_invariant(base_grid(0, c)) for c in range(64)}
    assert drawn <= bases


def test_even_pixels_stream_matches_the_generator() -> None:
    from srm_bench.evaluators.even_pixels import EVALUATOR
    from srm_bench.generators.even_pixels import hsv_to_rgb8

    hues = np.random.default_rng(0).random(1000)
    np.testing.assert_array_equal(hsv_to_rgb8_torch(torch.from_numpy(hues), 1.0, 0.7).numpy(), hsv_to_rgb8(hues, 1.0, 0.7))
    torch.manual_seed(0)
    x = EvenPixelsStream("cpu").draw(64).x
    img = np.round((x.permute(0, 2, 3, 1).numpy() + 1) * 127.5).astype(np.uint8)
    scores = EVALUATOR.score(img, reference=None, index=None)
    assert scores["accuracy"].all() and scores["strict_accuracy"].all()


def test_counting_trains_from_its_background_stream_and_resumes_the_same(tmp_path: Path) -> None:
    """Counting draws from banks re-rendered in the background (no train split generated); a run
    stopped after 3 steps (mid-bank) and resumed equals one of 5 steps, across bank switches
    (refresh 2: banks change at steps 2 and 4)."""
    from dataclasses import replace

    from srm_bench.baselines import streams

    passed: list[dict] = []

    class Small(streams.CountingStarsStream):
        def __init__(self, device, **kw):  # the loop passes its batch, which would set refresh
            passed.append(kw)
            super().__init__(device, bank_size=8, refresh=2, workers=1)

    cfg = replace(make_config("counting-stars", "srm", "tiny"), steps=5, ckpt_every=3, log_every=1, batch_size=2)
    orig = streams.STREAMS["counting-stars"]
    streams.STREAMS["counting-stars"] = Small
    try:
        whole = train(cfg, None, tmp_path / "a", device="cpu", resume=False, progress=False)
        train(replace(cfg, steps=3), None, tmp_path / "b", device="cpu", resume=False, progress=False)
        train(cfg, None, tmp_path / "b", device="cpu", resume=True, progress=False)
    finally:
        streams.STREAMS["counting-stars"] = orig
    assert whole["data_wait_s"] >= 0.0 and not (tmp_path / "a" / "data").exists()
    assert passed == [{"batch": 2}] * 3  # the global batch sets how many draws a bank serves
    a, _, _ = load_weights(tmp_path / "a" / "weights.safetensors")
    b, _, _ = load_weights(tmp_path / "b" / "weights.safetensors")
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=0)


@pytest.mark.parametrize("d,sharpness", [(81, 1.0), (64, 0.75), (256, 0.5), (5, 1.0)])
def test_recursive_allocation_torch_keeps_the_mean(d: int, sharpness: float) -> None:
    torch.manual_seed(0)
    tbar = torch.rand(2000)
    t = recursive_allocation_torch(tbar, d, sharpness)
    assert t.shape == (2000, d) and t.min() >= 0 and t.max() <= 1
    torch.testing.assert_close(t.double().mean(1), tbar.double(), atol=1e-5, rtol=0)


@pytest.mark.parametrize("d,sharpness,tbar", [(256, 0.75, 0.3), (81, 1.0, 0.6), (37, 0.5, 0.5)])
def test_recursive_allocation_torch_draws_the_reference_allocation(d: int, sharpness: float, tbar: float) -> None:
    """The batched tree (every segment of a depth in one Beta draw) allocates as Algorithm 1
    does segment by segment: the mean sorted row (the expected order statistics) and the
    spread of rows match the numpy reference."""
    from srm_bench.baselines.tsampling import recursive_allocation

    torch.manual_seed(0)
    t = np.sort(recursive_allocation_torch(torch.full((6000,), tbar), d, sharpness).double().numpy(), 1)
    ref = np.sort(recursive_allocation(np.full(6000, tbar), d, sharpness, np.random.default_rng(0)), 1)
    np.testing.assert_allclose(t.mean(0), ref.mean(0), atol=0.01)
    np.testing.assert_allclose(t.std(1).mean(), ref.std(1).mean(), rtol=0.02)


def test_recursive_allocation_torch_builds_its_plan_once() -> None:
    """The per-depth tensors are made once per (patches, sharpness, device): built from Python
    lists on every call they would be host-to-device copies, each a wait for the GPU."""
    from srm_bench.baselines.tsampling import _allocation_plan

    _allocation_plan.cache_clear()
    for _ in range(3):
        recursive_allocation_torch(torch.rand(4), 81, 1.0)
    info = _allocation_plan.cache_info()
    assert (info.misses, info.hits) == (1, 2)


def test_device_sampler_matches_the_numpy_sampler_in_distribution() -> None:
    from srm_bench.baselines.tsampling import NoiseLevelSampler

    cfg = TSamplingConfig(sharpness=1.0)
    torch.manual_seed(0)
    t, w = DeviceLevelSampler(cfg, 81, "cpu").sample(8000)
    tn, wn = NoiseLevelSampler(cfg, 81).sample(8000, np.random.default_rng(0))
    # Rows share their t-bar, so 8000 rows hold ~8000 independent draws: tolerances to match.
    for a, b, tol in ((t.numpy(), tn, 0.01), (w.numpy(), wn, 0.04)):
        assert abs(a.mean() - b.mean()) < tol and abs(a.std() - b.std()) < tol
    hist, _ = np.histogram(t.numpy(), bins=10, range=(0, 1))
    hist_n, _ = np.histogram(tn, bins=10, range=(0, 1))
    np.testing.assert_allclose(hist / hist.sum(), hist_n / hist_n.sum(), atol=0.005)


def test_zero_patches_follow_the_authors_rule_and_givens_stay_clean() -> None:
    cfg = TSamplingConfig(zero_patch_prob=1.0, zero_patch_max_frac=1.0)
    s = DeviceLevelSampler(cfg, 64, "cpu")
    torch.manual_seed(0)
    t, w = s.sample(4000)
    zero = (w == 0)
    assert abs(zero.float().mean().item() - 0.49) < 0.02  # E[floor(U * 64)] / 64
    assert (t[zero] == 0).all()
    # >= 75% clean with >= 4 patches still noisy: the late phase of sequential sampling.
    late = (zero.sum(1) >= 48) & ((t > 0.5).sum(1) >= 4)
    assert late.float().mean() > 0.05
    known = torch.rand(4000, 64) < 0.3
    t, w = s.sample(4000, known)
    assert (t[known] == 0).all() and (w[known] == 0).all()


def test_cellnet_outputs_and_locality() -> None:
    from srm_bench.baselines.cellnet import CellNet, CellNetConfig

    for encoder, decoder in (("conv", "conv"), ("linear", "conv"), ("linear", "mlp")):
        cfg = CellNetConfig(image_size=56, patch_size=28, channels=(8, 8), hidden=32, depth=1, heads=2, groups=4,
                            emb_channels=16, time_channels=16, encoder=encoder, decoder=decoder, dec_hidden=16)
        torch.manual_seed(0)
        net = CellNet(cfg).eval()
        for p in net.parameters():  # zero-initialised heads would hide the dependence
            torch.nn.init.normal_(p, std=0.05)
        x, t = torch.randn(1, 1, 56, 56), torch.rand(1, 4)
        out = net(x, t)
        assert out.mean.shape == (1, 1, 56, 56) and out.v.shape == (1, 1, 56, 56) and out.logvar.shape == (1, 4)
        # Cells talk only through the transformer: with depth 0 a change in cell 0 leaves cell 3 alone.
        net.blocks = torch.nn.ModuleList()
        x2 = x.clone()
        x2[..., :28, :28] += 1.0
        a, b = net(x, t), net(x2, t)
        torch.testing.assert_close(a.mean[..., 28:, 28:], b.mean[..., 28:, 28:])
        assert not torch.allclose(a.mean[..., :28, :28], b.mean[..., :28, :28])


def test_weights_file_and_init_continue_a_run(tmp_path: Path) -> None:
    cfg = tiny_cfg(steps=4, ckpt_every=4)
    first = train(cfg, tiny_data(), tmp_path / "a", device="cpu", progress=False)
    weights, loaded, record = load_weights(tmp_path / "a" / "weights.safetensors")
    assert loaded.identity() == cfg.identity() and record["step"] == 4 and record["images"] == 16
    assert record["gpu_hours"] > 0 and first["images"] == 16
    from safetensors import safe_open

    with safe_open(str(tmp_path / "a" / "weights.safetensors"), framework="pt") as f:
        assert all(f.get_tensor(k).dtype == torch.bfloat16 for k in f.keys() if f.get_tensor(k).is_floating_point())
    # lr 0: the same weights in, the same weights out; steps and images carried over.
    out = train(with_overrides(cfg, steps=6, lr=0.0), tiny_data(), tmp_path / "b", device="cpu", progress=False,
                init=tmp_path / "a" / "weights.safetensors")
    again, _, rec = load_weights(tmp_path / "b" / "weights.safetensors")
    assert out["steps"] == 6 and rec["step"] == 6 and rec["images"] == 24 and rec["init"]["step"] == 4
    assert rec["gpu_hours"] >= record["gpu_hours"]
    for k in weights:
        torch.testing.assert_close(weights[k], again[k], rtol=0, atol=0)
    # With a learning rate, the continued run moves on from the loaded weights.
    train(with_overrides(cfg, steps=6), tiny_data(), tmp_path / "c", device="cpu", progress=False,
          init=tmp_path / "a" / "weights.safetensors")
    moved, _, _ = load_weights(tmp_path / "c" / "weights.safetensors")
    assert any(not torch.equal(weights[k], moved[k]) for k in weights)


def test_init_refuses_other_models_and_foreign_files(tmp_path: Path) -> None:
    cfg = tiny_cfg(steps=1, ckpt_every=1)
    train(cfg, tiny_data(), tmp_path / "a", device="cpu", progress=False)
    w = tmp_path / "a" / "weights.safetensors"
    other_net = with_overrides(make_config("even-pixels", "srm", "small"), steps=2)
    assert other_net.model != cfg.model
    with pytest.raises(SrmBenchError, match="holds a srm/even-pixels/tiny model"):
        train(other_net, tiny_data(), tmp_path / "b", device="cpu", progress=False, init=w)
    assert not (tmp_path / "b").exists()  # nothing written for a refused run
    # The same network under another preset (another loss, say) continues, and the record says from what.
    train(with_overrides(cfg, preset="small", steps=2), tiny_data(), tmp_path / "c", device="cpu", progress=False, init=w)
    _, _, rec = load_weights(tmp_path / "c" / "weights.safetensors")
    assert rec["init"]["preset"] == "tiny" and rec["step"] == 2
    from safetensors.torch import save_file

    save_file({"x": torch.zeros(2)}, str(tmp_path / "bare.safetensors"))
    with pytest.raises(SrmBenchError, match="no srm-bench metadata"):
        load_weights(tmp_path / "bare.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"\x00" * 20)
    with pytest.raises(SrmBenchError, match="not a readable safetensors"):
        load_weights(tmp_path / "junk.safetensors")
    with pytest.raises(SrmBenchError, match="no such weights file"):
        load_weights(tmp_path / "missing.safetensors")


@pytest.mark.slow
def test_tiny_sudoku_trains_on_cpu_from_the_stream_and_logs_accuracy(tmp_path: Path, capsys) -> None:
    code, err = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o",
                         str(tmp_path / "r"), "--steps", "2", "--eval-every", "2", "--eval-count", "2",
                         "--eval-splits", "easy", "--eval-budget", "81"], capsys)
    assert code == 0, err
    with open(tmp_path / "r" / "log.csv") as f:
        log = list(csv.DictReader(f))
    assert [int(r["step"]) for r in log] == [1, 2] and log[-1]["images"] == "8"
    with open(tmp_path / "r" / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["split"], r["sampler"], r["count"]) for r in rows] == [("easy", "parallel", "2"), ("easy", "predicted", "2")]
    assert all(0.0 <= float(r["accuracy"]) <= 1.0 for r in rows)
    # the Sudoku evaluator's L1 (0 for a valid grid, which two steps of training do not draw)
    assert all(float(r["error"]) > 0.0 for r in rows)
    _, cfg, _ = load_weights(tmp_path / "r" / "weights.safetensors")
    assert cfg.arch == "cellnet"
    # The weights file samples like a checkpoint.
    from srm_bench.baselines.inference import load_denoiser

    model, cfg2, state = load_denoiser(tmp_path / "r" / "weights.safetensors", "cpu")
    assert cfg2.task == "sudoku" and state["step"] == 2


def test_an_older_eval_log_is_carried_over_under_the_new_header(tmp_path: Path) -> None:
    """A run resumed by a newer version appends to its eval.csv under today's columns; the old rows
    stay, with the new columns blank. A file whose columns are not a subset is refused."""
    from srm_bench.baselines.train import EVAL_FIELDS, CsvLog

    log = tmp_path / "eval.csv"
    log.write_text("step,images,gpu_hours,split,sampler,count,accuracy,elapsed_s\n10,40,0.1,easy,parallel,2,0.5000,3.0\n")
    with CsvLog(log, EVAL_FIELDS, fresh=False, enabled=True) as out:
        out.write({"step": 20, "images": 80, "gpu_hours": 0.2, "split": "easy", "sampler": "parallel", "count": 2,
                   "accuracy": "1.0000", "error": "0.0000", "elapsed_s": 6.0})
    rows = list(csv.DictReader(open(log)))
    assert list(rows[0]) == EVAL_FIELDS
    assert [(r["step"], r["accuracy"], r["error"]) for r in rows] == [("10", "0.5000", ""), ("20", "1.0000", "0.0000")]
    bare = tmp_path / "bare.csv"  # a header without rows
    bare.write_text("step,images,gpu_hours,split,sampler,count,accuracy,elapsed_s\n")
    with CsvLog(bare, EVAL_FIELDS, fresh=False, enabled=True) as out:
        out.write({"step": 1, "accuracy": "0.1"})
    assert list(csv.DictReader(open(bare))) == [{f: {"step": "1", "accuracy": "0.1"}.get(f, "") for f in EVAL_FIELDS}]
    (tmp_path / "odd.csv").write_text("step,loss\n1,0.5\n")
    with pytest.raises(SrmBenchError, match="not a subset"):
        CsvLog(tmp_path / "odd.csv", EVAL_FIELDS, fresh=False, enabled=True)


def test_a_log_killed_before_its_first_row_keeps_its_header(tmp_path: Path) -> None:
    """A run stopped before its first row (a deadline during compilation) leaves its header on disk, and an
    empty log left by an older version is written anew: its resumption's rows lie under a header, so the next
    start does not refuse the file (a GPU lease lost an arm's calls so)."""
    from srm_bench.baselines.train import CSV_FIELDS, CsvLog

    log = tmp_path / "log.csv"
    killed = CsvLog(log, CSV_FIELDS, fresh=True, enabled=True)  # never written to nor closed: the process dies
    assert log.read_text().strip() == ",".join(CSV_FIELDS)
    del killed
    log.write_text("")  # what the older version left
    with CsvLog(log, CSV_FIELDS, fresh=False, enabled=True) as out:
        out.write({"step": 100, "loss": 0.5})
    with CsvLog(log, CSV_FIELDS, fresh=False, enabled=True) as out:  # the start after, which used to fail
        out.write({"step": 200, "loss": 0.4})
    assert [(r["step"], r["loss"]) for r in csv.DictReader(open(log))] == [("100", "0.5"), ("200", "0.4")]


def test_eval_options_are_checked(tmp_path: Path, capsys) -> None:
    code, err = run_cli(["train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o",
                         str(tmp_path / "r"), "--eval-every", "1", "--eval-splits", "nope"], capsys)
    assert code == 1 and "nope" in err and len(err.strip().splitlines()) == 1
    code, err = run_cli(["train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o",
                         str(tmp_path / "r"), "--eval-every", "-1"], capsys)
    assert code == 1 and "--eval-every" in err
    # A budget below the patch count is refused before the run directory is made, not at the
    # first evaluation after training has begun.
    code, err = run_cli(["train", "--baseline", "srm", "--task", "even-pixels", "--preset", "tiny", "-o",
                         str(tmp_path / "ep"), "--eval-every", "1", "--eval-budget", "10"], capsys)
    assert code == 1 and "--eval-budget 10 is below the 64 patches" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ep").exists()


def test_cellnet_config_refusals() -> None:
    from srm_bench.baselines.cellnet import CellNetConfig

    with pytest.raises(SrmBenchError, match="mlp decoder needs the linear encoder"):
        CellNetConfig(decoder="mlp").validate()
    with pytest.raises(SrmBenchError, match="unknown CellNet encoder"):
        CellNetConfig(encoder="vit").validate()


def test_cell_presets_fit_the_shipping_budget() -> None:
    for preset in ("cell", "cell-s", "cell-lite", "cell-mlp", "cell-rcb", "cell-aux"):
        cfg = make_config("sudoku", "srm", preset)
        n = sum(p.numel() for p in build_model(cfg.arch, cfg.model).parameters())
        assert 2 * n < 24e6, (preset, n)  # bf16 bytes; the shipped Sudoku SRM must stay <= 20 MB



def test_unet_s_g16_is_unet_s_with_two_channels_a_group() -> None:
    """The Even Pixels race's variant: the same weights, normalised in groups of two channels."""
    s, g = make_config("even-pixels", "srm", "unet-s"), make_config("even-pixels", "srm", "unet-s-g16")
    assert {**s.model, "groups": 16} == g.model and s.model["groups"] == 32
    assert (s.batch_size, s.lr, s.ema_decay) == (g.batch_size, g.lr, g.ema_decay)
    ms, mg = build_model(s.arch, s.model), build_model(g.arch, g.model)
    assert sum(p.numel() for p in ms.parameters()) == sum(p.numel() for p in mg.parameters())
    norms = [m for m in mg.modules() if isinstance(m, torch.nn.GroupNorm)]
    assert norms and all(m.num_groups == 16 for m in norms) and min(m.num_channels for m in norms) == 32
    mg.load_state_dict(ms.state_dict())  # same shapes; only the normalisation differs
    torch.manual_seed(0)
    for p in ms.parameters():  # break the zero-initialised output so the difference can show
        p.data.add_(0.02 * torch.randn_like(p))
    mg.load_state_dict(ms.state_dict())
    x, t = torch.randn(2, 3, 32, 32), torch.full((2, 64), 0.5)
    with torch.no_grad():
        a, b = ms(x, t).mean, mg(x, t).mean
    assert a.shape == b.shape == x.shape and not torch.allclose(a, b, atol=1e-4)

def test_small_s2_w_is_small_s2_at_twice_the_width() -> None:
    """The Counting capacity candidate: the same recipe and network as ``small-s2`` but for the width,
    ~3.8x the parameters, and it maps a 128x128 image to 128x128 outputs."""
    s, w = make_config("counting-polygons", "srm", "small-s2"), make_config("counting-polygons", "srm", "small-s2-w")
    assert w.model == {**s.model, "base_channels": 2 * s.model["base_channels"]}
    assert {k: v for k, v in vars(w).items() if k not in ("model", "preset")} == \
        {k: v for k, v in vars(s).items() if k not in ("model", "preset")}
    count = sum(p.numel() for p in build_model(w.arch, w.model).parameters())
    assert 7.0e6 < count < 7.4e6  # 7.17M against small-s2's 1.91M
    net = build_model(w.arch, w.model).eval()
    with torch.no_grad():
        out = net(torch.randn(1, 3, 128, 128), torch.rand(1, 256))
    assert out.mean.shape == (1, 3, 128, 128)


def test_half_s2_is_the_paper_counting_unet_at_half_width_on_the_stem() -> None:
    """Counting's next capacity step: the paper's levels at 64, 32, 16 and 8 pixels a side (its 128 one replaced by
    the 2x2 stem) at half their channels, attention where the paper has it, ``small``'s recipe; 128x128 in and out;
    other tasks are refused."""
    from srm_bench.errors import SrmBenchError

    h, s = make_config("counting-stars", "srm", "half-s2"), make_config("counting-stars", "srm", "small-s2")
    paper = make_config("counting-stars", "srm", "paper").model
    assert (h.model["base_channels"], tuple(h.model["channel_mult"]), h.model["stem"]) == (64, (1, 2, 2, 4), 2)
    assert [h.model["base_channels"] * m for m in h.model["channel_mult"]] == \
        [paper["base_channels"] * m // 2 for m in paper["channel_mult"][1:]]
    assert tuple(h.model["attention_resolutions"]) == tuple(paper["attention_resolutions"]) == (16, 8)
    assert {k: v for k, v in vars(h).items() if k not in ("model", "preset")} == \
        {k: v for k, v in vars(s).items() if k not in ("model", "preset")}
    net = build_model(h.arch, h.model).eval()
    assert 19.6e6 < sum(p.numel() for p in net.parameters()) < 19.9e6  # 19.74M: the Even Pixels paper UNet's widths
    with torch.no_grad():
        assert net(torch.randn(1, 3, 128, 128), torch.rand(1, 256)).mean.shape == (1, 3, 128, 128)
    with pytest.raises(SrmBenchError, match="half-s2 is sized for Counting"):
        make_config("even-pixels", "srm", "half-s2")


def test_paper_q_is_the_paper_counting_unet_at_quarter_width_with_the_authors_recipe() -> None:
    """The design step after ``half-s2``: every level of the paper's Counting UNet, the 128-pixel one included (no
    stem), at a quarter of its channels and the same channels per GroupNorm group; the authors' batch, rate, 5,000-step
    warm-up and EMA; 128x128 in and out; other tasks are refused."""
    from srm_bench.errors import SrmBenchError

    q = make_config("counting-polygons", "srm", "paper-q")
    paper = make_config("counting-polygons", "srm", "paper")
    assert q.model["stem"] == 1 and q.model["channel_mult"] == paper.model["channel_mult"]
    assert q.model["base_channels"] * 4 == paper.model["base_channels"] == 128
    assert q.model["base_channels"] // q.model["groups"] == paper.model["base_channels"] // paper.model["groups"]
    assert q.model["attention_resolutions"] == paper.model["attention_resolutions"]
    assert (q.batch_size, q.lr, q.warmup_steps, q.ema_decay, q.steps) == (56, 1e-4, 5000, 0.9999, 250_000)
    assert q.tsampling == paper.tsampling and q.loss == paper.loss
    net = build_model(q.arch, q.model).eval()
    assert 5.8e6 < sum(p.numel() for p in net.parameters()) < 6.0e6  # 5.90M
    with torch.no_grad():
        assert net(torch.randn(1, 3, 128, 128), torch.rand(1, 256)).mean.shape == (1, 3, 128, 128)
    with pytest.raises(SrmBenchError, match="paper-q is sized for Counting"):
        make_config("sudoku", "srm", "paper-q")


def test_unet_s_gc_starts_as_unet_s_and_sees_image_wide_sums_of_clean_pixels() -> None:
    """The global-context variant: at initialisation it computes what ``unet-s`` computes with the
    same shared weights (its projections start at zero); once they are not zero, what it adds to
    the output moves with the clean pixels' image-wide mean, which GroupNorm of one channel a group
    removes from the plain UNet's branches; pure-noise pixels (t = 1) do not reach the context at all; it is fp32
    under autocast."""
    from srm_bench.baselines.unet import GlobalContext

    s, c = make_config("even-pixels", "srm", "unet-s"), make_config("even-pixels", "srm", "unet-s-gc")
    assert {**s.model, "global_context": 32} == c.model and s.model.get("global_context", 0) == 0
    assert make_config("even-pixels", "srm", "unet-s-g16-gc").model == {**c.model, "groups": 16}
    w = make_config("even-pixels", "srm", "unet-s-g16-gc-w")  # the wider variant: only embedding and last level differ
    assert w.model == {**c.model, "groups": 16, "emb_channels": 256, "channel_mult": [1, 2, 2, 3]}
    assert sum(p.numel() for p in build_model(w.arch, w.model).parameters()) * 2 <= 8e6  # ships in bf16 (<= 8 MB)
    ms, mc = build_model(s.arch, s.model).eval(), build_model(c.arch, c.model).eval()  # no dropout
    torch.manual_seed(0)
    for p in ms.parameters():  # break the zero-initialised output so differences can show
        p.data.add_(0.02 * torch.randn_like(p))
    missing, unexpected = mc.load_state_dict(ms.state_dict(), strict=False)
    assert not unexpected and missing and all(k.startswith("context.") or ".ctx" in k or k.startswith("ctx_out") for k in missing)
    x, t = torch.randn(2, 3, 32, 32), torch.rand(2, 64)
    with torch.no_grad():
        assert torch.allclose(ms(x, t).mean, mc(x, t).mean, atol=1e-6)
        for p in mc.parameters():  # now switch the projections on
            if p.abs().sum() == 0:
                p.data.add_(0.5 * torch.randn_like(p))
        t = torch.zeros(2, 64)
        t[:, :8] = 1.0  # the first patch row is pure noise, the rest clean
        shifted = x.clone()
        shifted[:, :, 4:] += 0.1  # the clean rows' mean moves
        a, b = mc(x, t).mean, mc(shifted, t).mean
        a0, b0 = ms(x, t).mean, ms(shifted, t).mean
        # the two share every other weight, so what the context path adds is (mc - ms); inside the
        # noisy row it moves with the clean rows' mean
        moved = ((b - b0) - (a - a0))[:, :, :4].abs().mean()
        assert moved > 0.1 * (b0 - a0)[:, :, :4].abs().mean()  # float32 noise would be ~1e-7
        g = GlobalContext(3, 8, 16)
        clean = (1 - pixel_levels(t, (8, 8), 4))
        noisy_changed = x.clone()
        noisy_changed[:, :, :4] = torch.randn(2, 3, 4, 32)
        assert torch.equal(g(x, clean), g(noisy_changed, clean))  # t = 1 pixels are weighted 0
        assert not torch.allclose(g(x, clean), g(shifted, clean))
        with torch.autocast("cpu", dtype=torch.bfloat16):  # computed in fp32 under autocast
            out = g(x, clean)
        assert out.dtype == torch.float32 and torch.equal(out, g(x, clean))


def test_squashed_context_counts_with_saturated_features_and_takes_unsquashed_weights(tmp_path: Path) -> None:
    """``unet-s-g16-gct``: the same parameters as ``unet-s-g16-gc`` (so --init takes its weights and the
    config of every earlier network is unchanged), its context features tanh-squashed: a feature saturated
    on the two colours gives means that count them exactly, whatever the colours' values."""
    from srm_bench.baselines.unet import GlobalContext

    gc, gct = make_config("even-pixels", "srm", "unet-s-g16-gc"), make_config("even-pixels", "srm", "unet-s-g16-gct")
    assert "context_squash" not in gc.model and gct.model == {**gc.model, "context_squash": True}
    a, b = build_model(gc.arch, gc.model), build_model(gct.arch, gct.model)
    assert {k: v.shape for k, v in a.state_dict().items()} == {k: v.shape for k, v in b.state_dict().items()}
    with pytest.raises(SrmBenchError, match="needs the global-context branch"):
        build_model("unet", {**make_config("even-pixels", "srm", "unet-s").model, "context_squash": True})
    g, gs = GlobalContext(3, 4, 8), GlobalContext(3, 4, 8, squash=True)
    gs.load_state_dict(g.state_dict())
    with torch.no_grad():  # the pointwise features: a large +-1 on the red channel's sign
        for m in (g, gs):
            m.point[2].weight.zero_()
            m.point[2].bias.zero_()
            m.point[0].weight.zero_()
            m.point[0].bias.zero_()
            m.point[0].weight[0, 0] = 1.0
            m.point[2].weight[0, 0] = 1e4
    x = torch.full((2, 3, 32, 32), -0.5)
    x[1] = -0.2  # another colour pair: the same sign, another value
    x[:, 0, :, :8] = 0.5 + torch.tensor([0.0, 0.3])[:, None, None]  # a quarter of each image of the other sign
    clean = torch.ones(2, 1, 32, 32)
    with torch.no_grad():
        f = gs.point(torch.cat([x, clean], 1))
        means = (torch.tanh(f) * clean).sum((2, 3)) / 1024
        assert torch.equal(means[0], means[1]) and means[0, 0] == -0.5  # (256 - 768) / 1024 in both images
        raw = (g.point(torch.cat([x, clean], 1)) * clean).sum((2, 3)) / 1024
        assert not torch.equal(raw[0], raw[1])  # unsquashed, the colours' values leak into the mean
        assert not torch.equal(g(x, clean), gs(x, clean))
    # --init from unet-s-g16-gc weights into the squashed network; a network of other parameters is refused
    cfg = with_overrides(gc, steps=1, ckpt_every=1, batch_size=2)
    train(cfg, None, tmp_path / "a", device="cpu", progress=False)
    out = train(with_overrides(gct, steps=2, ckpt_every=2, batch_size=2), None, tmp_path / "b",
                device="cpu", progress=False, init=tmp_path / "a" / "weights.safetensors")
    _, loaded, rec = load_weights(tmp_path / "b" / "weights.safetensors")
    assert out["steps"] == 2 and loaded.model["context_squash"] is True and rec["init"]["preset"] == "unet-s-g16-gc"
    with pytest.raises(SrmBenchError, match="holds a srm/even-pixels/unet-s-g16-gc model"):
        train(with_overrides(make_config("even-pixels", "srm", "unet-s"), steps=1), None, tmp_path / "c",
              device="cpu", progress=False, init=tmp_path / "a" / "weights.safetensors")


def _gc_weights(tmp_path: Path) -> tuple[Path, torch.nn.Module]:
    """A ``unet-s-g16-gc`` weights file (step 5) with every layer on, the zero-initialised ones too, as training
    leaves them, and the network loaded from it (eval mode): what --init into an extended preset must compute."""
    from srm_bench.baselines.train import save_weights

    gc = make_config("even-pixels", "srm", "unet-s-g16-gc")
    torch.manual_seed(0)
    trained = build_model(gc.arch, gc.model)
    with torch.no_grad():
        for p in trained.parameters():
            p.add_(0.05 * torch.randn_like(p))
    w = tmp_path / "gc.safetensors"
    save_weights(w, trained, gc, {"step": 5, "images": 10})
    plain, _, _ = load_weights(w)
    a = build_model(gc.arch, gc.model).eval()
    a.load_state_dict(plain)
    return w, a


def test_patch_pooling_sees_one_patch_and_starts_from_unpooled_weights_unchanged(tmp_path: Path) -> None:
    """``unet-s-g16-gcp``: ``patch_mean`` gives each pixel its own patch's mean and nothing of another patch's;
    the poolings sit where a patch spans more than one pixel (Even Pixels: 4 and 2 pixels at 32 and 16, none
    below; Sudoku's 28-pixel cells: 28, 14, 7, none at 32); the config of every earlier network is unchanged;
    --init from ``unet-s-g16-gc`` weights computes what they computed until the poolings learn, and the reverse
    is refused."""
    from srm_bench.baselines.train import TrainState
    from srm_bench.baselines.unet import ResBlock, patch_mean

    h = torch.randn(2, 3, 8, 8)
    m = patch_mean(h, 4)
    assert torch.allclose(m[:, :, :4, 4:], h[:, :, :4, 4:].mean((2, 3), keepdim=True).expand(-1, -1, 4, 4))
    bumped = h.clone()
    bumped[0, 1, 5, 2] += 1.0  # a pixel of patch (1, 0)
    moved = (patch_mean(bumped, 4) - m).abs() > 0
    assert moved[0, 1, 4:, :4].all() and moved.sum() == 16  # its own patch's 16 pixels, no others
    gc, gcp = make_config("even-pixels", "srm", "unet-s-g16-gc"), make_config("even-pixels", "srm", "unet-s-g16-gcp")
    assert "patch_pool" not in gc.model and gcp.model == {**gc.model, "patch_pool": True}
    net = build_model(gcp.arch, gcp.model)
    sizes = [b.pool_size for b in net.modules() if isinstance(b, ResBlock)]
    assert sorted(set(sizes)) == [0, 2, 4] and sizes[:4] == [4, 4, 2, 2]
    sudoku = make_config("sudoku", "srm", "paper").model
    assert {b.pool_size for b in build_model("unet", {**sudoku, "patch_pool": True}).modules()
            if isinstance(b, ResBlock)} == {0, 7, 14, 28}
    w, a = _gc_weights(tmp_path)
    b = TrainState.from_weights(w, with_overrides(gcp, batch_size=2), torch.device("cpu")).model.eval()
    x, t = torch.randn(2, 3, 32, 32), torch.rand(2, 64)
    with torch.no_grad():
        assert torch.equal(a(x, t).mean, b(x, t).mean)
        for blk in b.modules():
            if isinstance(blk, ResBlock) and blk.pool is not None:
                blk.pool.weight.fill_(0.01)
        assert not torch.equal(a(x, t).mean, b(x, t).mean)
    out = train(with_overrides(gcp, steps=7, ckpt_every=2, batch_size=2), None, tmp_path / "b", device="cpu",
                progress=False, init=w)
    _, loaded, rec = load_weights(tmp_path / "b" / "weights.safetensors")
    assert out["steps"] == 7 and loaded.model["patch_pool"] is True and rec["init"]["preset"] == "unet-s-g16-gc"
    with pytest.raises(SrmBenchError, match="holds a srm/even-pixels/unet-s-g16-gcp model"):
        train(with_overrides(gc, steps=9), None, tmp_path / "c", device="cpu", progress=False,
              init=tmp_path / "b" / "weights.safetensors")


def test_even_pixels_patch_counts_and_the_count_presets(tmp_path: Path) -> None:
    """Even Pixels' stream labels each 4 x 4 patch (row-major, as the levels) with how many of its pixels take the
    second hue, read back here from the pixels' hues; ``unet-s-g16-gc-cnt`` adds a 17-class head and its loss,
    ``-cls`` also the class target (floored); --init from ``unet-s-g16-gc`` weights leaves the denoiser's output as
    it was and trains; the reverse and another task are refused."""
    import colorsys

    from srm_bench.baselines.inference import class_entropy
    from srm_bench.baselines.streams import EVEN_PIXELS_CLASSES
    from srm_bench.baselines.train import TrainState

    torch.manual_seed(3)
    b = EvenPixelsStream("cpu").draw(2)
    rgb = ((b.x + 1) * 127.5).round().to(torch.uint8).permute(0, 2, 3, 1).numpy()
    second = np.array([[colorsys.rgb_to_hsv(*(px / 255.0))[0] >= 0.5 for px in img.reshape(-1, 3)] for img in rgb])
    want = second.reshape(2, 8, 4, 8, 4).sum((2, 4)).reshape(2, 64)
    assert b.labels is not None and b.labels.tolist() == want.tolist() and set(b.labels.sum(1).tolist()) == {512}
    assert int(b.labels.max()) < EVEN_PIXELS_CLASSES and len(set(b.labels.flatten().tolist())) > 3

    gc = make_config("even-pixels", "srm", "unet-s-g16-gc")
    cnt, cls = make_config("even-pixels", "srm", "unet-s-g16-gc-cnt"), make_config("even-pixels", "srm", "unet-s-g16-gc-cls")
    assert cnt.model == {**gc.model, "classes": 17} and cnt.loss == {**gc.loss, "cls": 1.0}
    assert cls.model == cnt.model and cls.loss == {**cnt.loss, "nll_target": "class", "nll_floor": 1e-4}
    with pytest.raises(SrmBenchError, match="needs Even Pixels' patch counts"):
        make_config("sudoku", "srm", "unet-s-g16-gc-cls")
    w, a = _gc_weights(tmp_path)
    c = TrainState.from_weights(w, with_overrides(cls, batch_size=2), torch.device("cpu")).model.eval()
    x, t = torch.randn(2, 3, 32, 32), torch.rand(2, 64)
    with torch.no_grad():
        got = c(x, t)
        assert torch.equal(a(x, t).mean, got.mean) and torch.equal(a(x, t).logvar, got.logvar)
        assert got.logits is not None and tuple(got.logits.shape) == (2, 64, 17)
        assert tuple(class_entropy(got.logits).shape) == (2, 64)
    out = train(with_overrides(cls, steps=7, ckpt_every=7, batch_size=2), None, tmp_path / "b", device="cpu",
                progress=False, init=w)
    _, loaded, rec = load_weights(tmp_path / "b" / "weights.safetensors")
    assert out["steps"] == 7 and loaded.model["classes"] == 17 and rec["init"]["preset"] == "unet-s-g16-gc"
    with open(tmp_path / "b" / "log.csv") as f:
        row = next(csv.DictReader(f))
    assert float(row["cls"]) > 0  # the class loss is on
    with pytest.raises(SrmBenchError, match="holds a srm/even-pixels/unet-s-g16-gc-cls model"):
        train(with_overrides(gc, steps=9), None, tmp_path / "c", device="cpu", progress=False,
              init=tmp_path / "b" / "weights.safetensors")


def test_mean_term_presets_train_unet_s_g16_gc_weights_under_the_new_loss(tmp_path: Path) -> None:
    """``unet-s-g16-gc-pm`` / ``-im``: ``unet-s-g16-gc``'s network and loss plus one mean term at its weight; --init
    takes ``unet-s-g16-gc`` weights as they are, and the run logs the term."""
    from srm_bench.baselines.presets import MEAN_TERM_WEIGHTS
    from srm_bench.baselines.train import TrainState

    gc = make_config("even-pixels", "srm", "unet-s-g16-gc")
    w, a = _gc_weights(tmp_path)
    for preset, key, part in (("unet-s-g16-gc-pm", "patch_mse", "pmse"), ("unet-s-g16-gc-im", "image_mse", "imse")):
        cfg = make_config("even-pixels", "srm", preset)
        assert cfg.model == gc.model and cfg.loss == {**gc.loss, key: MEAN_TERM_WEIGHTS[key]} and cfg.loss[key] > 0
        net = TrainState.from_weights(w, with_overrides(cfg, batch_size=2), torch.device("cpu")).model.eval()
        x, t = torch.randn(2, 3, 32, 32), torch.rand(2, 64)
        with torch.no_grad():
            assert torch.equal(a(x, t).mean, net(x, t).mean)
        out = train(with_overrides(cfg, steps=8, ckpt_every=8, batch_size=2), None, tmp_path / preset, device="cpu",
                    progress=False, init=w)
        with open(tmp_path / preset / "log.csv") as f:
            row = next(csv.DictReader(f))
        assert out["steps"] == 8 and float(row[part]) > 0 and row["pmse" if part == "imse" else "imse"] == ""


def test_squash_context_script_keeps_what_the_network_computes(tmp_path: Path) -> None:
    """benchmarks/squash_context.py: unet-s-g16-gc weights become a unet-s-g16-gct network whose branch is
    scaled so that it computes nearly what it computed (to the first order of f / S), keeping the record;
    loaded without the scaling the squash changes the output far more."""
    import importlib.util

    from srm_bench.baselines.train import save_weights

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "squash_context.py"
    spec = importlib.util.spec_from_file_location("squash_context", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cfg = make_config("even-pixels", "srm", "unet-s-g16-gc")
    torch.manual_seed(0)
    model = build_model(cfg.arch, cfg.model).eval()
    with torch.no_grad():
        for p in model.parameters():  # the zero-initialised projections on, so the branch shows
            p.add_(0.05 * torch.randn_like(p))
    src = tmp_path / "gc.safetensors"
    save_weights(src, model, cfg, {"step": 104000, "images": 7})
    x, t = torch.randn(2, 3, 32, 32), torch.rand(2, 64)
    t[:, :8] = 1.0
    weights, _, _ = load_weights(src)
    ref = build_model(cfg.arch, cfg.model).eval()
    ref.load_state_dict(weights)
    plain = build_model("unet", {**cfg.model, "context_squash": True}).eval()
    plain.load_state_dict(weights)  # squashed, not scaled
    rec = mod.squash(src, tmp_path / "gct.safetensors", 8.0)
    w2, cfg2, rec2 = load_weights(tmp_path / "gct.safetensors")
    assert cfg2.preset == "unet-s-g16-gct" and cfg2.model == {**cfg.model, "context_squash": True}
    assert rec2 == rec and rec2["step"] == 104000 and rec2["squash_scale"] == 8.0 and len(rec2["squashed_from"]) == 64
    out = build_model(cfg2.arch, cfg2.model).eval()
    out.load_state_dict(w2)
    with torch.no_grad():
        r = ref.context(x, 1 - pixel_levels(t, (8, 8), 4))
        scaled = (out.context(x, 1 - pixel_levels(t, (8, 8), 4)) - r).abs().max()
        unscaled = (plain.context(x, 1 - pixel_levels(t, (8, 8), 4)) - r).abs().max()
    assert scaled < 0.1 * unscaled, (scaled, unscaled)
    # training on from it keeps where the squash came from in the record
    train(with_overrides(cfg2, steps=104001, ckpt_every=1, batch_size=2), None, tmp_path / "run", device="cpu",
          progress=False, init=tmp_path / "gct.safetensors")
    _, _, rec3 = load_weights(tmp_path / "run" / "weights.safetensors")
    assert rec3["step"] == 104001 and rec3["squash_scale"] == 8.0 and rec3["squashed_from"] == rec["squashed_from"]
    with pytest.raises(SrmBenchError, match="squashed already"):
        mod.squash(tmp_path / "gct.safetensors", tmp_path / "again.safetensors", 8.0)
    with pytest.raises(SrmBenchError, match="positive number"):
        mod.squash(src, tmp_path / "bad.safetensors", 0.0)
    assert not (tmp_path / "again.safetensors").exists() and not (tmp_path / "bad.safetensors").exists()


def test_global_context_parameters_are_saved_in_float32(tmp_path: Path) -> None:
    """The branch's learnt centre must keep ~1e-3 of a mean, which bf16 would round away: its
    parameters are stored in float32 and load back exactly; everything else stays bf16."""
    from safetensors import safe_open

    from srm_bench.baselines.train import save_weights

    cfg = make_config("even-pixels", "srm", "unet-s-gc")
    model = build_model(cfg.arch, cfg.model)
    with torch.no_grad():
        model.context.centre.copy_(torch.linspace(0.1001, 0.4003, model.context.centre.numel()))
    save_weights(tmp_path / "w.safetensors", model, cfg, {"step": 0, "images": 0})
    with safe_open(str(tmp_path / "w.safetensors"), framework="pt") as f:
        dtypes = {k: f.get_tensor(k).dtype for k in f.keys()}
    assert dtypes["context.centre"] == torch.float32 and dtypes["context.point.0.weight"] == torch.float32
    assert {d for k, d in dtypes.items() if not k.startswith("context.")} == {torch.bfloat16}
    weights, _, _ = load_weights(tmp_path / "w.safetensors")
    assert torch.equal(weights["context.centre"], model.context.centre.detach())
    assert not torch.equal(weights["conv_in.weight"], model.conv_in.weight.detach())  # bf16-rounded


def test_stem_runs_the_unet_at_a_fraction_of_the_side_with_one_level_per_stem_cell() -> None:
    """``small-s2`` / ``small-s4`` (ours): ``small`` on a pixel-unshuffled input. The output has the
    image's shape and one uncertainty a patch; the level map resized to the inner side gives every
    stem cell exactly its patch's level (the stem divides the patch, so no cell straddles two);
    a stem that does not divide the patch is refused; configurations without the field are the
    paper's UNet."""
    from srm_bench.baselines.configs import UNetConfig

    small = make_config("counting-polygons", "srm", "small")
    for stem in (2, 4):
        cfg = make_config("counting-polygons", "srm", f"small-s{stem}")
        assert cfg.model == {**small.model, "stem": stem}
        m = build_model(cfg.arch, cfg.model).eval()
        assert m.conv_in.in_channels == 3 * stem * stem and m.sizes[0] == 128 // stem
        for p in m.parameters():  # break the zero-initialised output
            p.data.add_(0.02 * torch.randn_like(p))
        x, t = torch.randn(2, 3, 128, 128), torch.rand(2, 256)
        with torch.no_grad():
            out = m(x, t)
            assert out.mean.shape == x.shape and out.logvar.shape == (2, 256) and torch.isfinite(out.mean).all()
            inner = 128 // stem
            resized = m._embedding_at(pixel_levels(t, (16, 16), 8), inner, torch.float32)
            direct = m._embedding_at(pixel_levels(t, (16, 16), 8 // stem), inner, torch.float32)
            assert torch.equal(resized, direct)
    with pytest.raises(SrmBenchError, match="divide the patch"):
        UNetConfig(image_size=128, patch_size=8, stem=3).validate()
    with pytest.raises(SrmBenchError, match="divide the patch"):
        UNetConfig(image_size=128, patch_size=8, stem=0).validate()
    legacy = {k: v for k, v in small.model.items() if k != "stem"}
    assert build_model(small.arch, legacy).conv_in.in_channels == 3


def test_cell_rcb_is_cell_aux_without_the_class_loss() -> None:
    """The position-code ablation differs from cell-aux only by the class head and its loss."""
    rcb, aux = make_config("sudoku", "srm", "cell-rcb"), make_config("sudoku", "srm", "cell-aux")
    assert rcb.model["pos"] == "rcb" and rcb.model["classes"] == 0 and rcb.loss.get("cls", 0.0) == 0.0
    assert {**rcb.model, "classes": 9} == aux.model and aux.loss["cls"] == 1.0
    assert make_config("sudoku", "srm", "cell-mlp").model["pos"] != "rcb"


def test_presets_are_torch_free_and_train_help_is_instant() -> None:
    import subprocess
    import sys

    code = ("import sys, srm_bench.baselines.presets as p, srm_bench.baselines.cli; "
            "p.make_config('sudoku', 'srm', 'cell-mlp'); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr[-500:]


def test_make_batch_depends_on_seed_rank_and_step_alone(sudoku_stream: SudokuStream) -> None:
    from srm_bench.baselines.train import BatchMaker

    cfg = make_config("sudoku", "ddpm", "tiny")
    a = BatchMaker(cfg, torch.device("cpu"), rank=0, local_batch=2, stream=sudoku_stream)
    b = BatchMaker(cfg, torch.device("cpu"), rank=0, local_batch=2, stream=sudoku_stream)
    other_rank = BatchMaker(cfg, torch.device("cpu"), rank=1, local_batch=2, stream=sudoku_stream)
    first = a(7)
    b(3), b(8)  # whatever ran before
    for x, y in zip(first.astuple(), b(7).astuple()):
        torch.testing.assert_close(x, y)
    assert not torch.equal(first.x, a(8).x) and not torch.equal(first.x, other_rank(7).x)
    # The conditional DDPM sees the mask and exactly the given pixels, nothing of the rest.
    kmask = first.cond[:, :1]
    assert set(torch.unique(kmask).tolist()) <= {0.0, 1.0}
    torch.testing.assert_close(first.cond[:, 1:], first.x * kmask)
    assert (first.t == first.t[:, :1]).all()  # one shared level, and the loss on every pixel (authors' code)
    assert (first.w > 0).all()
    with pytest.raises(SrmBenchError, match="exactly one"):
        BatchMaker(cfg, torch.device("cpu"), rank=0, local_batch=2)


def test_predicted_order_mix_begins_the_patches_the_network_is_surest_of(sudoku_stream: SudokuStream) -> None:
    """--sequential-order predicted: the mix rows' noisy levels go to their patches in the order of the
    ranker's uncertainty, read with every noisy patch at pure noise; everything else is as in random order."""
    from srm_bench.baselines.train import BatchMaker

    base = make_config("sudoku", "srm", "tiny")
    mix = {**base.tsampling, "sequential_mix": 1.0, "sequential_overlap": 0.9}
    plain = with_overrides(base, tsampling=mix)
    pred = with_overrides(base, tsampling={**mix, "sequential_order": "predicted"})
    seen = []

    def ranker(z: torch.Tensor, t: torch.Tensor) -> torch.Tensor:  # surest of the highest patch index
        seen.append((z.clone(), t.clone()))
        return -torch.arange(t.shape[1], dtype=torch.float32).expand(t.shape)

    a = BatchMaker(plain, torch.device("cpu"), rank=0, local_batch=4, stream=sudoku_stream)
    b = BatchMaker(pred, torch.device("cpu"), rank=0, local_batch=4, stream=sudoku_stream, ranker=ranker)
    ra, rb = a(5), b(5)
    for name in ("x", "eps", "w"):  # the same images, noise, clean sets and weights: the ranker draws nothing
        torch.testing.assert_close(getattr(ra, name), getattr(rb, name))
    assert torch.equal(ra.t > 0, rb.t > 0) and not torch.equal(ra.t, rb.t)
    (z, probe), = seen
    assert torch.equal(probe, ra.t.masked_fill(ra.t > 0, 1.0))  # read at pure noise, clean patches clean
    for row in range(4):
        noisy = rb.t[row] > 0
        assert torch.equal(rb.t[row][noisy].sort().values, ra.t[row][noisy].sort().values)
        assert (rb.t[row][noisy].diff() <= 0).all()  # the highest index (surest) furthest along
    torch.testing.assert_close(rb.z, b.path.noise(rb.x, rb.eps, pixel_levels(rb.t, b.grid, b.patch)))
    for x, y in zip(rb.astuple(), b(5).astuple()):  # still a function of (seed, rank, step)
        torch.testing.assert_close(x, y)
    with pytest.raises(SrmBenchError, match="needs a ranker"):
        BatchMaker(pred, torch.device("cpu"), rank=0, local_batch=4, stream=sudoku_stream)
    # With completion rows beside them the mix rows' count varies by step; the ranker still reads the whole batch
    # (one shape: a new one each step cost the GPU its speed), and only the mix rows take its order
    comp = {**mix, "completion_mix": 0.5}
    a = BatchMaker(with_overrides(base, tsampling=comp), torch.device("cpu"), rank=0, local_batch=16,
                   stream=sudoku_stream)
    b = BatchMaker(with_overrides(base, tsampling={**comp, "sequential_order": "predicted"}), torch.device("cpu"),
                   rank=0, local_batch=16, stream=sudoku_stream, ranker=ranker)
    seen.clear()
    kept = []
    for step in (5, 6, 7):
        ra, rb = a(step), b(step)
        mixed = b.tsampler.last_mix_rows
        assert 0 < int(mixed.sum()) < 16  # both kinds of rows in the batch
        assert seen[-1][1].shape == (16, ra.t.shape[1])
        assert torch.equal(rb.t[~mixed], ra.t[~mixed])  # the completion rows as drawn
        kept.append(int(mixed.sum()))
        for row in torch.nonzero(mixed)[:, 0].tolist():
            assert (rb.t[row][rb.t[row] > 0].diff() <= 0).all()
    assert len(seen) == 3 and len(set(kept)) > 1


def test_sudoku_stream_labels_are_the_drawn_digits(sudoku_stream: SudokuStream) -> None:
    from srm_bench.evaluators.sudoku import tiles_of

    torch.manual_seed(3)
    b = sudoku_stream.draw(3)
    assert b.labels.shape == (3, 81) and b.labels.dtype == torch.int64
    tiles = tiles_of(np.round((b.x.numpy()[:, 0] + 1) * 127.5).astype(np.uint8))
    pool = sudoku_stream.pool.numpy()
    for n in range(3):
        for cell in range(81):  # each cell shows an instance of its labelled digit's pool
            assert any(np.array_equal(tiles[n, cell], inst) for inst in pool[int(b.labels[n, cell])])


def test_class_loss_is_the_cross_entropy_of_the_training_cells() -> None:
    from srm_bench.baselines.diffusion import DenoiserOutput
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    x, eps = torch.zeros(2, 1, 8, 8), torch.randn(2, 1, 8, 8)
    t = torch.full((2, 4), 0.5)
    z = path.noise(x, eps, torch.full((2, 1, 8, 8), 0.5))
    labels = torch.tensor([[0, 1, 2, 0], [1, 1, 1, 1]])
    w = torch.tensor([[1.0, 1.0, 0.0, 2.0], [0.0, 0.0, 0.0, 1.0]])  # given cells (w = 0) do not count
    logits = torch.zeros(2, 4, 3)
    logits[0, 0, 0] = 10.0  # one confident right answer, the rest uniform
    out = DenoiserOutput(torch.zeros_like(x), torch.zeros_like(x), torch.zeros(2, 4), logits)
    _, parts = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(cls=1.0), labels)
    right = -torch.log_softmax(torch.tensor([10.0, 0.0, 0.0]), 0)[0]
    expected = (right + 3 * np.log(3.0)) / 4  # unweighted by 1 / p(t): mean over the 4 training cells
    assert float(parts["cls"]) == pytest.approx(float(expected), rel=1e-5)
    total_off, parts_off = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(), labels)
    assert "cls" not in parts_off
    with pytest.raises(SrmBenchError, match="class head"):
        srm_loss(out._replace(logits=None), x, eps, z, t, w, path, 4, LossWeights(cls=1.0), labels)
    with pytest.raises(SrmBenchError, match="labels"):
        srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(cls=1.0), None)


def _mean_terms(residual: torch.Tensor, t: torch.Tensor, w: torch.Tensor, **kw: float) -> tuple[torch.Tensor, dict]:
    """srm_loss of a network whose velocity misses the target by ``residual`` (B, 3, 8, 8; 2 x 2 patches of 4)."""
    from srm_bench.baselines.diffusion import DenoiserOutput, pixel_levels
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    g = torch.Generator().manual_seed(1)
    x, eps = torch.randn(residual.shape, generator=g), torch.randn(residual.shape, generator=g)
    t_pix = pixel_levels(t, (2, 2), 4)
    z = path.noise(x, eps, t_pix)
    pred = path.target_of(x, eps, t_pix) + residual
    out = DenoiserOutput(pred, torch.zeros_like(x), torch.zeros(t.shape))
    return srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(**kw))


def test_patch_and_image_mean_terms_weigh_the_residual_means() -> None:
    """``patch_mse``: per patch, the channels' mean of (sum of its residual) ** 2 / 16, weighted by 1 / p(t) and
    averaged as the MSE; ``image_mse``: per image, (sum of t * residual) ** 2 / (sum of t ** 2) over the training
    pixels, averaged over channels and images. A residual with no patch mean leaves the patch term at 0; a residual on
    a clean (w = 0) patch does not reach either; each is added to the total at its weight; both equal the MSE for a
    residual white over the image."""
    g = torch.Generator().manual_seed(0)
    r = torch.randn(2, 3, 8, 8, generator=g)
    t = torch.tensor([[0.5, 1.0, 0.25, 0.0], [0.8, 0.8, 0.3, 0.0]])
    w = torch.tensor([[1.0, 2.0, 0.5, 0.0], [1.0, 1.0, 0.0, 0.0]])  # w = 0: patches that do not train, noisy or not
    base, parts0 = _mean_terms(r, t, w)
    total, parts = _mean_terms(r, t, w, patch_mse=0.5, image_mse=2.0)
    assert "pmse" not in parts0 and "imse" not in parts0
    sums = r.reshape(2, 3, 2, 4, 2, 4).sum((3, 5)).reshape(2, 3, 4)  # (B, C, P): each patch's residual sum
    n = (w > 0).sum()
    want_p = ((sums ** 2).mean(1) / 16 * w).sum() / n
    tp = (t * (w > 0))[:, :, None, None].expand(2, 4, 4, 4).reshape(2, 2, 2, 4, 4).permute(0, 1, 3, 2, 4).reshape(2, 1, 8, 8)
    want_i = (((r * tp).sum((2, 3)) ** 2).sum(1) / (3 * (tp ** 2).sum((1, 2, 3)))).mean()
    assert float(parts["pmse"]) == pytest.approx(float(want_p), rel=1e-5)
    assert float(parts["imse"]) == pytest.approx(float(want_i), rel=1e-5)
    assert float(total) == pytest.approx(float(base + 0.5 * want_p + 2.0 * want_i), rel=1e-5)
    # a residual on the patches that do not train (patch 3 of image 0, patches 2 and 3 of image 1) reaches neither term
    bumped = r.clone()
    bumped[0, :, 4:, 4:] += 3.0
    bumped[1, :, 4:, :] += 3.0
    _, parts_b = _mean_terms(bumped, t, w, patch_mse=1.0, image_mse=1.0)
    assert float(parts_b["pmse"]) == pytest.approx(float(parts["pmse"]), rel=1e-5)
    assert float(parts_b["imse"]) == pytest.approx(float(parts["imse"]), rel=1e-5)
    # +1 / -1 alternating within every patch: the MSE sees it, the patch term does not
    checker = (torch.arange(8)[:, None] + torch.arange(8)[None, :]) % 2 * 2.0 - 1.0
    _, parts_c = _mean_terms(checker.expand(2, 3, 8, 8).clone(), t, w, patch_mse=1.0)
    assert float(parts_c["mse"]) == pytest.approx(float(w[w > 0].mean())) and float(parts_c["pmse"]) < 1e-9
    # white noise over many images: both terms read the MSE
    white = torch.randn(4096, 3, 8, 8, generator=g)
    ones = torch.ones(4096, 4)
    _, parts_w = _mean_terms(white, torch.full((4096, 4), 0.6), ones, patch_mse=1.0, image_mse=1.0)
    assert float(parts_w["pmse"]) == pytest.approx(float(parts_w["mse"]), rel=0.05)
    assert float(parts_w["imse"]) == pytest.approx(float(parts_w["mse"]), rel=0.05)


def test_mean_terms_leave_the_optimum_where_the_mse_has_it() -> None:
    """The patch and image terms reweigh the same residual: over draws that share one input, the loss's gradient with
    respect to the prediction is 0 at the draws' mean target with the terms on as with them off, and not elsewhere."""
    from srm_bench.baselines.diffusion import DenoiserOutput, pixel_levels
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    g = torch.Generator().manual_seed(2)
    b = 64
    t = torch.tensor([[0.9, 0.4, 0.0, 0.7]]).expand(b, 4)
    w = torch.tensor([[1.0, 1.5, 0.0, 0.5]]).expand(b, 4)
    t_pix = pixel_levels(t, (2, 2), 4)
    x = torch.randn(b, 3, 8, 8, generator=g).sign()  # the unknown clean images behind one input
    eps = torch.randn(b, 3, 8, 8, generator=g)
    z = path.noise(x, eps, t_pix)
    target = path.target_of(x, eps, t_pix)
    for kw in ({}, {"patch_mse": 1.0}, {"image_mse": 1.0}, {"patch_mse": 3.0, "image_mse": 0.5}):
        for shift, zero in ((0.0, True), (0.3, False)):
            pred = (target.mean(0, keepdim=True) + shift).expand(b, 3, 8, 8).clone().requires_grad_(True)
            loss, _ = srm_loss(DenoiserOutput(pred, torch.zeros_like(x), torch.zeros(b, 4)), x, eps, z, t, w, path,
                               4, LossWeights(vlb=0.0, nll=0.0, **kw))
            (grad,) = torch.autograd.grad(loss, pred)
            total = grad.sum(0)  # one shared prediction: the batch's gradients add up
            assert (float(total.abs().max()) < 1e-5) == zero, (kw, shift, float(total.abs().max()))


def test_rcb_positions_tie_rows_columns_and_boxes() -> None:
    from srm_bench.baselines.cellnet import CellNet, CellNetConfig

    net = CellNet(CellNetConfig(channels=(8,), hidden=16, depth=1, heads=2, groups=4, emb_channels=16,
                                time_channels=16, encoder="linear", decoder="mlp", dec_hidden=16, pos="rcb", classes=9))
    r, c, b = net.rows.view(9, 9), net.cols.view(9, 9), net.boxes.view(9, 9)
    assert (r == torch.arange(9)[:, None]).all() and (c == torch.arange(9)[None]).all()
    assert b[0, 0] == b[2, 2] == 0 and b[0, 3] == 1 and b[3, 0] == 3 and b[8, 8] == 8 and len(b.unique()) == 9
    out = net(torch.randn(2, 1, 252, 252), torch.rand(2, 81))
    assert out.logits.shape == (2, 81, 9)
    with pytest.raises(SrmBenchError, match="position embedding"):
        CellNetConfig(pos="sincos").validate()
    rc = CellNet(CellNetConfig(channels=(8,), hidden=16, depth=1, heads=2, groups=4, emb_channels=16, time_channels=16,
                               encoder="linear", decoder="mlp", dec_hidden=16, pos="rc"))
    assert hasattr(rc, "row_emb") and not hasattr(rc, "box_emb")
    # Cells of one row share its embedding: the position code of (0, 0) and (0, 5) differ by columns only.
    p = rc.row_emb(rc.rows) + rc.col_emb(rc.cols)
    torch.testing.assert_close(p[5] - p[0], rc.col_emb.weight[5] - rc.col_emb.weight[0])
    with pytest.raises(SrmBenchError, match="per-variable classes"):
        make_config("even-pixels", "srm", "cell-aux")


def test_cell_aux_trains_its_class_head_on_cpu(tmp_path: Path) -> None:
    from dataclasses import replace

    cfg = make_config("sudoku", "srm", "cell-aux")
    model = {**cfg.model, "hidden": 32, "depth": 1, "heads": 2, "dec_hidden": 16}
    cfg = replace(cfg, model=model, batch_size=4, steps=6, log_every=3, ckpt_every=6, bf16=False, warmup_steps=1)
    train(cfg, None, tmp_path, device="cpu", resume=False, progress=False, eval_every=6, eval_count=1,
          eval_splits=("easy",), eval_budget=81)
    rows = list(csv.DictReader(open(tmp_path / "log.csv")))
    assert len(rows) == 2 and all(0.0 < float(r["cls"]) < 5.0 for r in rows)
    evals = list(csv.DictReader(open(tmp_path / "eval.csv")))  # a class head adds predicted order by its entropy
    assert [r["sampler"] for r in evals] == ["parallel", "predicted", "predicted-entropy"]
    state, cfg2, _ = load_weights(tmp_path / "weights.safetensors")
    assert "class_head.weight" in state and "row_emb.weight" in state and cfg2.loss["cls"] == 1.0


def test_ddpm_with_the_cell_aux_network_trains_on_cpu(tmp_path: Path) -> None:
    """The DDPM baseline of the Sudoku table gets the same network and loss as the SRM."""
    from dataclasses import replace

    cfg = make_config("sudoku", "ddpm", "cell-aux")
    assert cfg.model["cond_channels"] == 2 and cfg.model["classes"] == 9 and cfg.loss["cls"] == 1.0
    model = {**cfg.model, "hidden": 32, "depth": 1, "heads": 2, "dec_hidden": 16}
    cfg = replace(cfg, model=model, batch_size=4, steps=3, log_every=3, ckpt_every=3, bf16=False, warmup_steps=1)
    train(cfg, None, tmp_path, device="cpu", resume=False, progress=False)
    row = list(csv.DictReader(open(tmp_path / "log.csv")))[-1]
    assert 0.0 < float(row["cls"]) < 5.0 and float(row["mse"]) > 0.0


def test_blurred_nll_target_averages_the_error_over_blocks_first() -> None:
    """nll_blur = 2 on 4x4 patches: the head's target is the mean over the patch's four 2x2
    blocks of the squared block-mean error, so an error pattern that cancels within each block
    (stroke style) costs nothing, where the per-pixel target counts all of it."""
    from srm_bench.baselines.diffusion import DenoiserOutput
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    x, eps = torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 8)
    t = torch.full((1, 4), 0.5)
    z = path.noise(x, eps, torch.full((1, 1, 8, 8), 0.5))
    checker = (torch.arange(8)[:, None] + torch.arange(8)[None, :]) % 2 * 2.0 - 1.0  # +-1, mean 0 per 2x2 block
    pred = checker.reshape(1, 1, 8, 8).clone()
    pred[..., :4, :4] += 0.5  # patch 0 also has a shift that survives the blocks
    out = DenoiserOutput(pred, torch.zeros_like(x), torch.zeros(1, 4))  # logvar 0: nll = 0.5 * err
    w = torch.ones(1, 4)
    _, fine = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights())
    _, coarse = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(nll_blur=2))
    # per pixel: patch 0 has mean((c + 0.5)^2) = 1.25, the others 1.0; blurred: 0.25 and 0
    assert float(fine["nll"]) == pytest.approx(0.5 * (1.25 + 3 * 1.0) / 4)
    assert float(coarse["nll"]) == pytest.approx(0.5 * 0.25 / 4)
    assert float(fine["mse"]) == float(coarse["mse"])  # only the head's target changes
    with pytest.raises(SrmBenchError, match="must divide the patch side"):
        srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(nll_blur=3))
    cfg = make_config("sudoku", "srm", "cell-aux-b7")
    assert cfg.loss["nll_blur"] == 7 and cfg.model == make_config("sudoku", "srm", "cell-aux").model


def test_template_nll_target_ignores_the_style_of_a_known_digit(tmp_path) -> None:
    """nll_target = "template": the head's error is measured against the target the mean image
    of the patch's class gives. A prediction that draws the class mean exactly costs nothing
    there, however far the training sample's own strokes are from it; the paper's target
    charges it the sample's deviation."""
    from srm_bench.baselines.diffusion import DenoiserOutput
    from srm_bench.baselines.losses import LossWeights, patches_to_image, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    templates = torch.stack([torch.full((1, 4, 4), -0.5), torch.full((1, 4, 4), 0.5)])  # class means
    labels = torch.tensor([[0, 1, 1, 0]])
    style = torch.randn(1, 4, 1, 4, 4) * 0.3
    x = patches_to_image(templates[labels] + style, (2, 2))  # samples: the class mean plus strokes
    eps = torch.randn(1, 1, 8, 8)
    t = torch.full((1, 4), 1.0)
    t_pix = torch.ones(1, 1, 8, 8)
    z = path.noise(x, eps, t_pix)
    pred = path.target_of(patches_to_image(templates[labels], (2, 2)), eps, t_pix)  # draws the class mean
    out = DenoiserOutput(pred, torch.zeros_like(x), torch.zeros(1, 4))  # logvar 0: nll = 0.5 * err
    w = torch.ones(1, 4)
    _, paper = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights())
    _, tpl = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(nll_target="template"), labels, templates)
    assert float(tpl["nll"]) == pytest.approx(0.0, abs=1e-6)
    assert float(paper["nll"]) == pytest.approx(0.5 * float((style ** 2).mean()), rel=1e-4)
    assert float(paper["mse"]) == float(tpl["mse"])  # only the head's target changes
    assert torch.equal(patches_to_image(templates[labels], (2, 2))[0, 0, :4, 4:], torch.full((4, 4), 0.5))
    with pytest.raises(SrmBenchError, match="needs per-patch labels"):
        srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(nll_target="template"), labels, None)
    with pytest.raises(SrmBenchError, match="unknown nll_target"):
        srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(nll_target="pixels"))
    cfg = make_config("sudoku", "srm", "cell-aux-tpl")
    assert cfg.loss["nll_target"] == "template" and cfg.model == make_config("sudoku", "srm", "cell-aux").model


def _one_step_each(tmp_path: Path, *presets: str) -> tuple[dict[str, dict[str, str]], object]:
    """One training step of a tiny network of each Sudoku SRM preset, same seed (so the same first batch): each
    one's first log row, and the last preset's config."""
    from dataclasses import replace

    rows = {}
    for preset in presets:
        cfg = make_config("sudoku", "srm", preset)
        model = {**cfg.model, "hidden": 32, "depth": 1, "heads": 2, "dec_hidden": 16}
        cfg = replace(cfg, model=model, batch_size=2, steps=1, log_every=1, ckpt_every=1, bf16=False, warmup_steps=1)
        train(cfg, None, tmp_path / preset, device="cpu", resume=False, progress=False)
        rows[preset] = list(csv.DictReader(open(tmp_path / preset / "log.csv")))[0]
    return rows, cfg


def _head_term_alone_differs(tmp_path: Path, base: str, preset: str, refused: str) -> dict[str, dict[str, str]]:
    """One training step of ``preset`` against ``base`` (same seed, same first batch): the denoiser's loss is
    the same, the uncertainty head's term is not; and a fixed split (no per-cell labels or templates) is refused
    before anything is written, with ``refused`` in the message. Returns both first log rows."""
    rows, cfg = _one_step_each(tmp_path, base, preset)
    assert rows[base]["mse"] == rows[preset]["mse"]
    assert rows[base]["nll"] != rows[preset]["nll"]
    with pytest.raises(SrmBenchError, match=refused):
        train(cfg, tmp_path / "split", tmp_path / "refused", device="cpu", resume=False, progress=False)
    assert not (tmp_path / "refused").exists()
    return rows


def test_cell_aux_tpl_trains_with_the_streams_templates_on_cpu(tmp_path: Path) -> None:
    """Same seed, same first batch: only the head's loss term differs from cell-aux's."""
    from srm_bench.baselines.streams import SudokuStream

    tpl = SudokuStream("cpu").templates()
    assert tpl.shape == (9, 1, 28, 28) and -1.0 <= float(tpl.min()) and float(tpl.max()) <= 1.0
    # A fixed split has no class templates: refused.
    _head_term_alone_differs(tmp_path, "cell-aux", "cell-aux-tpl", "template uncertainty target")


def test_class_nll_target_is_the_class_heads_cross_entropy_without_its_gradient() -> None:
    """nll_target = "class": the head's error is the class head's cross-entropy at the patch's label, whatever
    the pixels; the head term sends no gradient into the class logits (the cls term alone trains them)."""
    from srm_bench.baselines.diffusion import DenoiserOutput
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    x, eps = torch.rand(1, 1, 8, 8) * 2 - 1, torch.randn(1, 1, 8, 8)
    t = torch.tensor([[1.0, 0.5, 0.2, 0.9]])
    z = path.noise(x, eps, torch.ones(1, 1, 8, 8) * 0.7)
    labels = torch.tensor([[0, 2, 1, 2]])
    logits = torch.tensor([[[4.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 3.0, -1.0], [2.0, 0.0, 0.0]]], requires_grad=True)
    logvar = torch.tensor([[0.0, 1.0, -1.0, 0.5]], requires_grad=True)
    out = DenoiserOutput(torch.randn(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), logvar, logits)
    w = torch.tensor([[1.0, 1.0, 1.0, 0.0]])  # the last patch (a given) is left out
    only_head = LossWeights(mse=0.0, vlb=0.0, nll=1.0, nll_target="class")
    total, parts = srm_loss(out, x, eps, z, t, w, path, 4, only_head, labels)
    ce = torch.nn.functional.cross_entropy(logits.detach()[0], labels[0], reduction="none")
    want = (0.5 * (logvar.detach()[0] + ce * torch.exp(-logvar.detach()[0])))[:3].mean()
    assert float(parts["nll"]) == pytest.approx(float(want), rel=1e-6)
    assert float(ce[1]) == pytest.approx(math.log(3.0)) and float(ce[0]) < 0.05  # unsure patch > sure one
    total.backward()
    assert logits.grad is None or float(logits.grad.abs().sum()) == 0.0
    assert logvar.grad is not None and float(logvar.grad[0, :3].abs().min()) > 0.0
    # The pixels do not enter it: another prediction, the same head term.
    other = DenoiserOutput(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), logvar.detach(), logits.detach())
    assert float(srm_loss(other, x, eps, z, t, w, path, 4, only_head, labels)[1]["nll"]) == float(parts["nll"])
    no_head = DenoiserOutput(out.mean, out.v, logvar.detach(), None)
    with pytest.raises(SrmBenchError, match="class uncertainty target needs a model with a class head"):
        srm_loss(no_head, x, eps, z, t, w, path, 4, only_head, labels)
    with pytest.raises(SrmBenchError, match="class uncertainty target"):
        srm_loss(out, x, eps, z, t, w, path, 4, only_head, None)
    cfg = make_config("sudoku", "srm", "cell-aux-cls")
    assert cfg.loss["nll_target"] == "class" and cfg.model == make_config("sudoku", "srm", "cell-aux").model
    loss = {k: v for k, v in cfg.loss.items() if k != "nll_floor"}
    assert {**loss, "nll_target": "template"} == make_config("sudoku", "srm", "cell-aux-tpl").loss


def test_class_nll_target_stays_finite_on_a_cell_the_class_head_is_sure_of() -> None:
    """A class head sure of a cell makes its cross-entropy exactly 0 in float32. Without a floor the head's term
    keeps pushing that cell's log-variance down (its optimum is log 0), and once exp(-logvar) overflows the term is
    nan (o-t4c's loss became nan); with the preset's floor the term pulls a head that went too low back up."""
    from srm_bench.baselines.diffusion import DenoiserOutput
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    x, eps = torch.rand(1, 1, 8, 8) * 2 - 1, torch.randn(1, 1, 8, 8)
    t, w = torch.tensor([[0.1, 0.5, 0.2, 0.9]]), torch.ones(1, 4)
    z = path.noise(x, eps, torch.ones(1, 1, 8, 8) * 0.5)
    labels = torch.tensor([[0, 1, 2, 0]])
    logits = torch.tensor([[[60.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]])
    assert float(torch.nn.functional.cross_entropy(logits[0, :1], labels[0, :1])) == 0.0
    floor = make_config("sudoku", "srm", "cell-aux-cls").loss["nll_floor"]
    assert 0 < floor <= 1e-3

    def head_term(low: float, weights: LossWeights) -> tuple[float, float]:
        logvar = torch.tensor([[low, 0.0, 0.0, 0.0]], requires_grad=True)
        out = DenoiserOutput(torch.randn(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), logvar, logits)
        total, parts = srm_loss(out, x, eps, z, t, w, path, 4, weights, labels)
        total.backward()
        assert logvar.grad is not None
        return float(parts["nll"]), float(logvar.grad[0, 0])

    floored = LossWeights(nll=1.0, nll_target="class", nll_floor=floor)
    bare = LossWeights(nll=1.0, nll_target="class")
    value, grad = head_term(math.log(floor) - 10.0, floored)
    assert math.isfinite(value) and grad < 0  # descent raises the sure cell's log-variance towards log(floor)
    assert head_term(math.log(floor) - 10.0, bare)[1] > 0  # without the floor it keeps going down
    assert math.isnan(head_term(-100.0, bare)[0])


def test_cell_aux_cls_trains_on_cpu_and_refuses_a_fixed_split(tmp_path: Path) -> None:
    """Same seed, same first batch: only the head's loss term differs from cell-aux-tpl's; a fixed split (no
    per-cell labels) is refused before anything is written."""
    rows = _head_term_alone_differs(tmp_path, "cell-aux-tpl", "cell-aux-cls", "class uncertainty target")
    assert rows["cell-aux-tpl"]["cls"] == rows["cell-aux-cls"]["cls"]


def test_miss_nll_target_is_one_minus_the_class_heads_probability_bounded_and_floored(tmp_path: Path) -> None:
    """nll_target = "miss": the head's error is 1 - p(label) from the class head, with no gradient into the class
    logits; unlike the cross-entropy it stays within [0, 1] on a sure but wrong reading, and the preset floors it;
    one training step differs from cell-aux-cls's in the head term only, and a fixed split is refused."""
    from srm_bench.baselines.diffusion import DenoiserOutput
    from srm_bench.baselines.losses import LossWeights, srm_loss
    from srm_bench.baselines.noise import NoisePath

    path = NoisePath("rectified_flow", "velocity")
    x, eps = torch.rand(1, 1, 8, 8) * 2 - 1, torch.randn(1, 1, 8, 8)
    t, w = torch.tensor([[1.0, 0.5, 0.2, 0.9]]), torch.ones(1, 4)
    z = path.noise(x, eps, torch.ones(1, 1, 8, 8) * 0.7)
    labels = torch.tensor([[0, 2, 1, 2]])
    logits = torch.tensor([[[4.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 30.0, 0.0], [60.0, 0.0, 0.0]]], requires_grad=True)
    logvar = torch.zeros(1, 4, requires_grad=True)
    out = DenoiserOutput(torch.randn(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), logvar, logits)
    floor = make_config("sudoku", "srm", "cell-aux-miss").loss["nll_floor"]
    total, parts = srm_loss(out, x, eps, z, t, w, path, 4, LossWeights(mse=0.0, vlb=0.0, nll=1.0, nll_target="miss",
                                                                        nll_floor=floor), labels)
    p = logits.detach()[0].softmax(-1)[torch.arange(4), labels[0]]
    err = (1 - p).clamp_min(floor)
    assert float(err[3]) == pytest.approx(1.0) and float(err[2]) == pytest.approx(floor)  # sure: wrong 1, right floor
    assert float(parts["nll"]) == pytest.approx(float((0.5 * err).mean()), rel=1e-6)  # logvar 0: 0.5 (0 + err)
    ce = torch.nn.functional.cross_entropy(logits.detach()[0], labels[0], reduction="none")
    assert float(ce[3]) > 25  # the cross-entropy target of the same wrong reading
    from srm_bench.baselines.losses import class_error
    with pytest.raises(SrmBenchError, match="unknown class target 'gini'; valid: class, miss"):
        class_error(logits, labels, "gini")
    total.backward()
    assert logits.grad is None or float(logits.grad.abs().sum()) == 0.0
    cfg = make_config("sudoku", "srm", "cell-aux-miss")
    assert {**cfg.loss, "nll_target": "class"} == make_config("sudoku", "srm", "cell-aux-cls").loss
    _head_term_alone_differs(tmp_path, "cell-aux-cls", "cell-aux-miss", "class uncertainty target")


def _gauge_with_recorded_samplers(monkeypatch) -> tuple[list, object, torch.nn.Module]:
    """The tiny Even Pixels model with sampling replaced by a recorder: evaluate_model's samplers land in the list
    (the images are blank), so a test sees what the gauge asked for without sampling."""
    import srm_bench.baselines.inference as inference

    seen: list = []

    def fake_sample(model, cfg, sampler, indices, **kw):
        seen.append(sampler)
        return np.zeros((len(indices), 32, 32, 3), np.uint8)

    monkeypatch.setattr(inference, "sample_images", fake_sample)
    cfg = make_config("even-pixels", "srm", "tiny")
    return seen, cfg, build_model(cfg.arch, cfg.model)


def test_evaluation_during_training_uses_the_task_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Even Pixels is scored in predicted order with the paper's overlap 0.95 (without overlap it
    scores ~0 at any stage); Sudoku's predicted order has none."""
    from srm_bench.baselines.train import eval_samplers, evaluate_model

    seen, cfg, model = _gauge_with_recorded_samplers(monkeypatch)
    rows = evaluate_model(model, cfg, "cpu", count=2, splits=("test",), budget=64)
    assert [r["sampler"] for r in rows] == ["parallel", "predicted"]
    assert [(s.name, s.overlap) for s in seen] == [("parallel", 0.0), ("sequential", 0.95)]
    assert [r.get("overlap") for r in rows] == [None, 0.95]  # eval.csv says which overlap a predicted row had
    assert eval_samplers(100)["predicted"].overlap == 0.0


def test_the_gauge_samples_at_the_eta_asked_and_logs_its_settings(monkeypatch, tmp_path: Path, capsys) -> None:
    """--eval-eta reaches every sampler scored during training (0 unless asked: the old gauge), and each row says
    at which NFE and eta it was scored; a value outside [0, 1] is refused before anything is written."""
    from srm_bench.baselines.train import EVAL_FIELDS, evaluate_model

    seen, cfg, model = _gauge_with_recorded_samplers(monkeypatch)
    rows = evaluate_model(model, cfg, "cpu", count=2, splits=("test",), budget=64, eta=1.0)
    assert [s.eta for s in seen] == [1.0, 1.0] and [(r["nfe"], r["eta"]) for r in rows] == [(64, 1.0), (64, 1.0)]
    seen.clear()
    rows = evaluate_model(model, cfg, "cpu", count=2, splits=("test",), budget=64)
    assert [s.eta for s in seen] == [0.0, 0.0] and {r["eta"] for r in rows} == {0.0}
    assert EVAL_FIELDS.index("eta") == EVAL_FIELDS.index("nfe") + 1 and EVAL_FIELDS[-1] == "overlap"
    for bad in ("1.5", "-0.1", "nan"):
        code, err = run_cli(["train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o",
                             str(tmp_path / "r"), "--eval-every", "2", "--eval-eta", bad], capsys)
        assert code == 1 and "--eval-eta must be in [0, 1]" in err and err.strip().count("\n") == 0
        assert not (tmp_path / "r").exists()


def test_the_gauge_logs_counting_consistency_and_the_top_object_share(monkeypatch, tmp_path: Path) -> None:
    """A Counting row carries the evaluator's consistency and the largest share of samples read with one object
    count (the collapse to one object that accuracy on a few samples hides); Even Pixels rows carry neither, and
    eval.csv writes both columns (blank where a task has none)."""
    import srm_bench.baselines.inference as inference
    from srm_bench.baselines.train import EVAL_FIELDS, CsvLog, evaluate_model
    from srm_bench.evaluators.counting import POLYGONS

    drawn: list = []

    def fake_sample(model, cfg, sampler, indices, **kw):
        drawn.append((sampler.name, sampler.overlap, kw.get("given"), kw.get("known")))
        return np.zeros((len(indices), 128, 128, 3), np.uint8)

    monkeypatch.setattr(inference, "sample_images", fake_sample)
    readings = [([1, 1, 1, 3], [True, False, False, False]),  # parallel, then predicted order, then "numbers"
                ([2, 5, 9, 5], [True, True, True, False]), ([2, 5, 1, 4], [True, True, True, True])]
    calls: list = []

    def fake_score(images, *, reference, index, **kw):
        objects, consistent = readings[len(calls)]
        calls.append(len(images))
        return {"accuracy": np.zeros(len(images), bool), "consistency": np.array(consistent),
                "objects": np.array(objects)}

    monkeypatch.setattr(POLYGONS, "score", fake_score)
    cfg = make_config("counting-polygons", "srm", "tiny")
    rows = evaluate_model(build_model(cfg.arch, cfg.model), cfg, "cpu", count=4, splits=("test",), budget=8)
    assert calls == [4, 4, 4]
    assert [(r["sampler"], r["consistency"], r["top_objects"]) for r in rows] == [("parallel", 0.25, 0.75),
                                                                               ("predicted", 0.75, 0.5),
                                                                               ("numbers", 1.0, 0.25)]
    # predicted order with overlap 0.95: without it the gauge's NFE gives each of the 256 patches one step
    assert [d[:2] for d in drawn] == [("parallel", 0.0), ("sequential", 0.95), ("parallel", 0.0)]
    assert [r.get("overlap") for r in rows] == [None, 0.95, None]
    # "numbers": the first four test images given but for the patches their numbers touch, drawn in parallel
    from srm_bench.canonical import canonical_dataset
    from srm_bench.generators.counting import number_patches

    test = canonical_dataset("counting-polygons", "test")
    (name, _, given, known), = [d for d in drawn if d[2] is not None]
    assert name == "parallel" and np.array_equal(given, test.images(np.arange(4)))
    assert np.array_equal(known, ~number_patches({k: v[:4] for k, v in test.items.items()}))
    assert 0 < (~known).sum(1).min() and (~known).sum(1).max() < known.shape[1] // 2
    with CsvLog(tmp_path / "eval.csv", EVAL_FIELDS, fresh=True, enabled=True) as log:
        log.write({"step": 1, "accuracy": "0.0", "consistency": f"{rows[0]['consistency']:.4f}"})
    assert next(csv.DictReader(open(tmp_path / "eval.csv")))["consistency"] == "0.2500"
    seen, ep_cfg, ep_model = _gauge_with_recorded_samplers(monkeypatch)
    ep_rows = evaluate_model(ep_model, ep_cfg, "cpu", count=2, splits=("test",), budget=8)
    assert all("consistency" not in r and "top_objects" not in r for r in ep_rows)


def test_dit_s14_has_four_tokens_per_sudoku_cell() -> None:
    import torch

    from srm_bench.baselines.train import build_model

    cfg = make_config("sudoku", "srm", "dit-s14")
    assert cfg.model["token_patch"] == 14 and (cfg.batch_size, cfg.lr) == (56, 1e-4)
    model = build_model(cfg.arch, cfg.model)
    assert model.pos.shape[1] == (252 // 14) ** 2  # 324 tokens
    out = model(torch.randn(1, 1, 252, 252), torch.rand(1, 81), None)
    assert out.mean.shape == (1, 1, 252, 252) and out.logvar.shape == (1, 81)
    with pytest.raises(SrmBenchError, match="multiple of 14"):
        make_config("even-pixels", "srm", "dit-s14")


def test_patch_classes_mark_objects_numbers_and_background() -> None:
    """A patch is an object's or a number's where its centre lies in that circle (x right, y down, units of the
    side); object slots past n_objects are padding and mark nothing."""
    from srm_bench.baselines.streams import PATCH_BACKGROUND, PATCH_NUMBER, PATCH_OBJECT, patch_classes

    items = {"object_xy": np.array([[[0.25, 0.75], [0.75, 0.25]]]), "object_radius": np.array([[0.1, 0.1]]),
             "n_objects": np.array([1]), "number_xy": np.array([[[0.9375, 0.9375], [0.0625, 0.0625]]]),
             "number_radius": np.array([[0.05, 0.05]])}
    grid = patch_classes(items, 8).reshape(8, 8)  # patch centres at (k + 0.5) / 8
    assert grid[5, 1] == grid[6, 1] == grid[5, 2] == grid[6, 2] == PATCH_OBJECT  # the object at x 0.25, y 0.75
    assert grid[1, 5] == grid[1, 6] == PATCH_BACKGROUND  # the padding slot at x 0.75, y 0.25
    assert grid[7, 7] == grid[0, 0] == PATCH_NUMBER
    assert (grid == PATCH_OBJECT).sum() == 4 and (grid == PATCH_NUMBER).sum() == 2


def test_counting_stream_draws_each_image_with_its_patch_classes() -> None:
    """A drawn batch's labels are the classes of the drawn items' own layouts: every image holds at least one
    object patch and two number patches, and its row is the bank row of the same image."""
    from srm_bench.baselines import streams

    torch.manual_seed(0)
    with streams.CountingPolygonsStream("cpu", bank_size=6, refresh=2, workers=1) as s:
        b = s.draw(4)
        assert s.labels is not None and b.labels is not None and b.labels.shape == (4, 256)
        np.testing.assert_array_equal(s.labels.numpy(), streams.patch_classes(s.items, 16))
        for x, lab in zip(b.x, b.labels):
            j = next(j for j in range(6) if torch.equal(s.bank[j].float() / 127.5 - 1.0, x))
            assert torch.equal(lab, s.labels[j])
            assert (lab == streams.PATCH_OBJECT).sum() >= 1 and (lab == streams.PATCH_NUMBER).sum() >= 2
        # The labels lie where the drawing is: pixels of the image's object colour fill its object patches, not its
        # background ones, nor the object patches' mirror image across the diagonal (x and y swapped).
        for j in range(6):
            img = s.bank[j].permute(1, 2, 0).numpy().astype(np.int32)
            ink = (np.abs(img - np.asarray(s.items["colour"][j], np.int32)).sum(-1) < 60).reshape(16, 8, 16, 8).mean((1, 3))
            lab = s.labels[j].numpy().reshape(16, 16)
            obj = lab == streams.PATCH_OBJECT
            assert ink[obj].mean() > 0.25 > 0.05 > ink[lab == streams.PATCH_BACKGROUND].mean()
            assert ink[obj].mean() > ink.T[obj].mean() + 0.1


def test_small_s2_aux_learns_patch_classes_beside_denoising_on_cpu(tmp_path: Path) -> None:
    """Preset small-s2-aux: the UNet's class head gives (B, P, 3) logits, its cross-entropy is logged, and the
    weights keep the head; a UNet without classes saves the same config as before the option; other tasks refuse."""
    from dataclasses import replace

    from srm_bench.baselines import streams
    from srm_bench.baselines.configs import UNetConfig
    from srm_bench.baselines.unet import UNet

    assert "classes" not in UNetConfig().to_dict()
    net = UNet(UNetConfig(image_size=16, patch_size=4, base_channels=32, channel_mult=(1, 2), attention_resolutions=(),
                          classes=3, groups=8, emb_channels=32, time_channels=32, stem=2))
    out = net(torch.randn(2, 3, 16, 16), torch.rand(2, 16))
    assert out.logits is not None and out.logits.shape == (2, 16, 3)

    class Small(streams.CountingPolygonsStream):
        def __init__(self, device, **kw):
            super().__init__(device, bank_size=4, refresh=2, workers=1)

    cfg = make_config("counting-polygons", "srm", "small-s2-aux")
    assert cfg.model["classes"] == streams.PATCH_CLASSES and cfg.loss["cls"] == 1.0
    cfg = replace(cfg, steps=2, batch_size=2, log_every=1, ckpt_every=2, bf16=False, warmup_steps=1)
    orig = streams.STREAMS["counting-polygons"]
    streams.STREAMS["counting-polygons"] = Small
    try:
        train(cfg, None, tmp_path, device="cpu", resume=False, progress=False)
    finally:
        streams.STREAMS["counting-polygons"] = orig
    rows = list(csv.DictReader(open(tmp_path / "log.csv")))
    assert len(rows) == 2 and all(0.0 < float(r["cls"]) < 5.0 for r in rows)
    state, cfg2, _ = load_weights(tmp_path / "weights.safetensors")
    assert "class_head.weight" in state and cfg2.model["classes"] == 3
    with pytest.raises(SrmBenchError, match="small-s2-aux"):
        make_config("even-pixels", "srm", "small-s2-aux")
