"""Training loop, checkpoints, resume, DDP (2 CPU processes, gloo) and the CLI's one-line errors."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from srm_bench.baselines.presets import TrainConfig, make_config, with_overrides
from srm_bench.baselines.train import TrainData, build_model, load_checkpoint, train
from srm_bench.baselines.unet import UNetConfig
from srm_bench.errors import SrmBenchError

TINY_UNET = UNetConfig(image_size=8, in_channels=3, patch_size=4, base_channels=16, channel_mult=(1,), num_res_blocks=1,
                       attention_resolutions=(), groups=8, emb_channels=32, time_channels=16, dropout=0.0).to_dict()


def tiny_cfg(**kw) -> TrainConfig:
    base = make_config("even-pixels", "srm", "tiny")
    # No zero patches: with 4 patches the authors' rule makes the per-step loss too noisy to watch fall.
    opts = dict(model=TINY_UNET, steps=6, batch_size=4, log_every=1, ckpt_every=3, lr=3e-3, warmup_steps=1,
                tsampling={**base.tsampling, "zero_patch_prob": 0.0})
    return with_overrides(base, **{**opts, **kw})


def tiny_data(n: int = 16) -> TrainData:
    rng = np.random.default_rng(0)
    colours = rng.integers(0, 256, (n, 1, 1, 3), dtype=np.uint8)
    return TrainData(torch.from_numpy(np.ascontiguousarray(np.broadcast_to(colours, (n, 8, 8, 3)))), None, "synthetic", n)


def losses(run: Path) -> list[float]:
    with open(run / "log.csv") as f:
        return [float(r["mse"]) for r in csv.DictReader(f)]


def test_tiny_model_loss_falls(tmp_path: Path) -> None:
    train(tiny_cfg(steps=40, ckpt_every=40), tiny_data(), tmp_path, device="cpu", progress=False)
    mse = losses(tmp_path)
    assert len(mse) == 40
    assert np.mean(mse[-8:]) < 0.6 * np.mean(mse[:8])


def test_cooldown_decays_the_learning_rate_to_zero_at_the_last_step(tmp_path: Path) -> None:
    from srm_bench.baselines.train import lr_at

    cfg = with_overrides(tiny_cfg(steps=100), lr=1.0, warmup_steps=10, cooldown_steps=40)
    assert lr_at(4, cfg) == pytest.approx(0.5)  # warm-up
    assert lr_at(60, cfg) == 1.0 and lr_at(80, cfg) == pytest.approx(0.5) and lr_at(99, cfg) == pytest.approx(1 / 40)
    assert lr_at(80, with_overrides(cfg, cooldown_steps=0)) == 1.0  # the paper's constant schedule
    # A config saved before the option existed still loads, with the constant schedule.
    old = cfg.to_dict()
    del old["cooldown_steps"]
    assert TrainConfig.from_dict(old).cooldown_steps == 0
    train(with_overrides(tiny_cfg(steps=6), cooldown_steps=4), tiny_data(), tmp_path, device="cpu", progress=False)
    with open(tmp_path / "log.csv") as f:
        lrs = [float(r["lr"]) for r in csv.DictReader(f)]
    assert lrs[-1] < lrs[1] and lrs[-1] > 0


def test_the_summary_times_the_start_of_the_loop(tmp_path: Path) -> None:
    """The summary says when the loop's clock started and how long its first step took (compilation and
    capture included): what a GPU lease's timeline needs to see where a fresh host's start goes."""
    import time

    before = time.time()
    out = train(tiny_cfg(steps=3), tiny_data(), tmp_path, device="cpu", progress=False)
    assert before - 0.05 <= out["loop_epoch"] <= time.time() + 0.05  # the summary rounds it to 0.1 s
    # wall_s is rounded to 0.1 s and first_step_s to 0.01 s: a run of a few hundredths of a second can log wall_s 0.0
    assert 0 < out["first_step_s"] <= out["wall_s"] + 0.055
    again = train(tiny_cfg(steps=3), tiny_data(), tmp_path, device="cpu", progress=False)  # nothing left to train
    assert again["first_step_s"] is None and again["steps"] == 3


def test_spike_guard_judges_a_loss_against_the_recent_median() -> None:
    from srm_bench.baselines.train import SpikeGuard

    guard = SpikeGuard(2.0, window=4, warm=3)
    assert not guard.spiked(100.0) and not guard.spiked(1.0)  # no judgement before `warm` losses
    assert not guard.spiked(1.2) and guard.median() == 1.2
    assert guard.spiked(2.5)  # 2.5 > 2 x the median 1.2 of [100, 1, 1.2] ...
    assert guard.losses == [100.0, 1.0, 1.2]  # ... and a spike does not enter the window
    assert not guard.spiked(2.3) and not guard.spiked(1.1)  # 2.3 < 2 x 1.2
    assert guard.median() == pytest.approx((1.1 + 1.2) / 2)  # of the last 4: [1, 1.2, 2.3, 1.1]
    off = SpikeGuard(0.0, warm=0)
    assert not any(off.spiked(x) for x in (1.0, 1e9))
    for bad in (1.0, 0.5, -2.0, float("nan")):
        with pytest.raises(SrmBenchError, match="--spike-guard must be 0"):
            SpikeGuard(bad)


def _spiking_train_step(at: int, times: float):
    """train_step whose reported loss is multiplied by ``times`` from step ``at`` on (the training is real)."""
    from srm_bench.baselines import train as train_mod

    real = train_mod.train_step

    def step(state, loss_fn, batch, step, lr, graphed=None):
        loss, parts, grad_norm = real(state, loss_fn, batch, step, lr, graphed)
        return (loss * times if step + 1 >= at else loss), parts, grad_norm

    return step


def test_a_diverging_run_stops_before_the_spike_is_checkpointed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from srm_bench.baselines import train as train_mod
    from srm_bench.baselines.train import load_weights

    # The loss is read as jumping 10x at step 15; checkpoints every 5 steps, so 15's would be written
    monkeypatch.setattr(train_mod, "train_step", _spiking_train_step(15, 10.0))
    cfg = tiny_cfg(steps=30, ckpt_every=5, lr=1e-3)
    with pytest.raises(SrmBenchError, match=r"the run diverged: loss .* at step 15, .*x the median .* are those of step "
                                            r"10, before it\. Continue from there with a lower --lr"):
        train(cfg, tiny_data(), tmp_path / "run", device="cpu", progress=False)
    assert load_checkpoint(tmp_path / "run" / "last.pt")["step"] == 10
    assert load_weights(tmp_path / "run" / "weights.safetensors")[2]["step"] == 10
    assert len(losses(tmp_path / "run")) == 15  # the spiking step is logged (the record of what happened)
    # A run from --init (step 10) that spikes before its first checkpoint says where it began
    monkeypatch.setattr(train_mod, "train_step", _spiking_train_step(25, 10.0))
    with pytest.raises(SrmBenchError, match=r"at step 25, .* no checkpoint of it was written before it \(it began "
                                            r"from .*weights"):
        train(with_overrides(cfg, steps=40, ckpt_every=100), tiny_data(), tmp_path / "from-init", device="cpu",
              progress=False, init=tmp_path / "run" / "weights.safetensors")
    assert not (tmp_path / "from-init" / "last.pt").exists()
    # Off, the same run goes to its end
    out = train(cfg, tiny_data(), tmp_path / "off", device="cpu", progress=False, spike_guard=0)
    assert out["steps"] == 30 and load_checkpoint(tmp_path / "off" / "last.pt")["step"] == 30


def test_checkpoint_round_trip_and_resume_equals_uninterrupted(tmp_path: Path) -> None:
    cfg = tiny_cfg()
    train(cfg, tiny_data(), tmp_path / "straight", device="cpu", progress=False)
    train(with_overrides(cfg, steps=3), tiny_data(), tmp_path / "resumed", device="cpu", progress=False)
    state = load_checkpoint(tmp_path / "resumed" / "last.pt")
    assert state["step"] == 3 and TrainConfig.from_dict(state["config"]).identity() == cfg.identity()
    model = build_model(cfg.arch, state["config"]["model"])
    model.load_state_dict(state["model"])  # the config alone rebuilds the network
    train(cfg, tiny_data(), tmp_path / "resumed", device="cpu", progress=False)
    a = load_checkpoint(tmp_path / "straight" / "last.pt")
    b = load_checkpoint(tmp_path / "resumed" / "last.pt")
    assert b["step"] == 6
    for k in a["model"]:
        torch.testing.assert_close(a["model"][k], b["model"][k])
        torch.testing.assert_close(a["ema"][k], b["ema"][k])
    assert len(losses(tmp_path / "resumed")) == 6


def test_second_ema_is_tracked_saved_and_resumed(tmp_path: Path) -> None:
    """--ema-decay2: a second EMA beside the first, in last.pt and weights-ema2.safetensors (whose
    config names its decay); a resumed run continues it exactly; at the first EMA's decay it is the first EMA."""
    from srm_bench.baselines.train import WEIGHTS_EMA2_FILE, load_weights

    cfg = tiny_cfg(ema_decay=0.99, ema_decay2=0.2)  # both past the EMA warm-up (min(d, (1+k)/(10+k))) from step 2
    train(cfg, tiny_data(), tmp_path / "straight", device="cpu", progress=False)
    train(with_overrides(cfg, steps=3), tiny_data(), tmp_path / "resumed", device="cpu", progress=False)
    train(cfg, tiny_data(), tmp_path / "resumed", device="cpu", progress=False)
    a, b = (load_checkpoint(tmp_path / run / "last.pt") for run in ("straight", "resumed"))
    assert a["ema2"].keys() == a["ema"].keys()
    assert all(torch.equal(a["ema2"][k], b["ema2"][k]) for k in a["ema2"])
    # Decay 0.2 sits closer to the weights than decay 0.99 (the runs moved them).
    floats = [k for k in a["ema"] if a["ema"][k].is_floating_point()]
    dist = lambda ema: sum(float((a[ema][k] - a["model"][k]).norm()) for k in floats)  # noqa: E731
    assert 0 < dist("ema2") < dist("ema")
    weights, wcfg, record = load_weights(tmp_path / "straight" / WEIGHTS_EMA2_FILE)
    assert wcfg.ema_decay == 0.2 and wcfg.ema_decay2 == 0.0 and record["step"] == 6
    torch.testing.assert_close(weights[floats[0]], a["ema2"][floats[0]].float(), rtol=1e-2, atol=1e-2)  # bf16 copy
    # The same decay twice gives the same EMA, bit for bit; no second EMA by default.
    train(tiny_cfg(ema_decay=0.99, ema_decay2=0.99), tiny_data(), tmp_path / "same", device="cpu", progress=False)
    c = load_checkpoint(tmp_path / "same" / "last.pt")
    assert all(torch.equal(c["ema"][k], c["ema2"][k]) for k in c["ema"])
    train(tiny_cfg(steps=1), tiny_data(), tmp_path / "none", device="cpu", progress=False)
    assert "ema2" not in load_checkpoint(tmp_path / "none" / "last.pt")
    assert not (tmp_path / "none" / WEIGHTS_EMA2_FILE).exists()


def test_init_ema2_continues_the_second_ema_from_its_own_weights(tmp_path: Path) -> None:
    """--init-ema2: a run continued on another machine takes its second EMA from the weights-ema2 file
    written with the --init weights (not from the first EMA), and keeps the step it began at; a file of
    another step, a run without a second EMA, or --init-ema2 without --init are refused in one line."""
    from srm_bench.baselines.train import WEIGHTS_EMA2_FILE, WEIGHTS_FILE, TrainState, load_weights

    cfg = tiny_cfg(ema_decay=0.99, ema_decay2=0.2, steps=3)
    a = tmp_path / "a"
    train(cfg, tiny_data(), a, device="cpu", progress=False)
    first, _, rec1 = load_weights(a / WEIGHTS_FILE)
    second, _, rec2 = load_weights(a / WEIGHTS_EMA2_FILE)
    assert rec2["ema2_from"] == 0 and rec1["step"] == rec2["step"] == 3
    longer = with_overrides(cfg, steps=6)
    state = TrainState.from_weights(a / WEIGHTS_FILE, longer, torch.device("cpu"), ema2_path=a / WEIGHTS_EMA2_FILE)
    floats = [k for k in first if first[k].is_floating_point() and not torch.equal(first[k], second[k])]
    assert floats  # the two EMAs differ after three steps
    ema2 = state.ema2.state_dict()
    assert all(torch.equal(ema2[k], second[k]) for k in floats)
    assert state.record["ema2_from"] == 0 and state.record["init"]["step"] == 3
    # Without --init-ema2 the second EMA starts again from the first, at the --init step.
    plain = TrainState.from_weights(a / WEIGHTS_FILE, longer, torch.device("cpu"))
    assert all(torch.equal(plain.ema2.state_dict()[k], first[k]) for k in floats) and plain.record["ema2_from"] == 3
    # Continued through train(): the next machine's files keep where the second EMA began.
    train(longer, tiny_data(), tmp_path / "b", device="cpu", progress=False, init=a / WEIGHTS_FILE,
          init_ema2=a / WEIGHTS_EMA2_FILE)
    assert load_weights(tmp_path / "b" / WEIGHTS_EMA2_FILE)[2]["ema2_from"] == 0
    train(with_overrides(cfg, steps=2), tiny_data(), tmp_path / "c", device="cpu", progress=False)
    with pytest.raises(SrmBenchError, match="a second EMA of step 2, but --init .* is at step 3"):
        TrainState.from_weights(a / WEIGHTS_FILE, longer, torch.device("cpu"), ema2_path=tmp_path / "c" / WEIGHTS_EMA2_FILE)
    with pytest.raises(SrmBenchError, match="keeps no second EMA; add --ema-decay2"):
        TrainState.from_weights(a / WEIGHTS_FILE, with_overrides(longer, ema_decay2=0.0), torch.device("cpu"),
                                ema2_path=a / WEIGHTS_EMA2_FILE)
    with pytest.raises(SrmBenchError, match="goes with --init"):
        train(longer, tiny_data(), tmp_path / "d", device="cpu", progress=False, init_ema2=a / WEIGHTS_EMA2_FILE)


def test_resume_refuses_a_checkpoint_of_another_preset(tmp_path: Path) -> None:
    train(tiny_cfg(steps=1), tiny_data(), tmp_path, device="cpu", progress=False)
    other = with_overrides(tiny_cfg(steps=2), preset="small")
    with pytest.raises(SrmBenchError, match="belongs to srm/even-pixels/tiny"):
        train(other, tiny_data(), tmp_path, device="cpu", progress=False)


def test_load_checkpoint_refuses_other_files(tmp_path: Path) -> None:
    torch.save({"weights": 1}, tmp_path / "x.pt")
    with pytest.raises(SrmBenchError, match="not an srm-bench baseline checkpoint"):
        load_checkpoint(tmp_path / "x.pt")
    (tmp_path / "y.pt").write_text("garbage")
    with pytest.raises(SrmBenchError, match="not a readable checkpoint"):
        load_checkpoint(tmp_path / "y.pt")



def test_train_state_save_load_round_trip_and_refuses_another_run(tmp_path: Path) -> None:
    from srm_bench.baselines.train import BatchMaker, TrainState, make_loss_fn, train_step

    cfg, dev = tiny_cfg(), torch.device("cpu")
    state = TrainState.fresh(cfg, dev)
    batches = BatchMaker(cfg, dev, rank=0, local_batch=cfg.batch_size, data=tiny_data())
    loss_fn = make_loss_fn(cfg, state.model, dev)
    for step in range(2):  # optimizer moments, and an EMA that differs from the weights
        train_step(state, loss_fn, batches(step), step, lr=1e-2)
    state.record = {"step": 2, "images": 8, "gpu_hours": 0.001, "wall_s": 3.5, "init": None, "world_size": 1,
                    "device": "cpu", "data": "synthetic"}
    state.warm_from = 1
    state.save(tmp_path / "last.pt")
    assert not (tmp_path / "last.pt.tmp").exists()
    saved = load_checkpoint(tmp_path / "last.pt")  # the keys last.pt has always had
    assert set(saved) == {"format", "version", "config", "step", "model", "ema", "optimizer", "wall_s", "world_size",
                          "dataset_sha256", "device", "record", "warm_from"}
    assert saved["step"] == 2 and saved["dataset_sha256"] == "synthetic"

    loaded = TrainState.load(tmp_path / "last.pt", cfg, dev)
    assert loaded.record == state.record and loaded.warm_from == 1 and loaded.step == 2
    for a, b in ((state.model, loaded.model), (state.ema, loaded.ema)):
        for k, v in a.state_dict().items():
            assert torch.equal(v, b.state_dict()[k])
    assert any(not torch.equal(p, e) for p, e in zip(state.model_params, state.ema_params))
    opt_a, opt_b = state.opt.state_dict(), loaded.opt.state_dict()
    assert opt_a["param_groups"] == opt_b["param_groups"] and opt_a["state"].keys() == opt_b["state"].keys()
    for i, moments in opt_a["state"].items():
        for k, v in moments.items():
            assert torch.equal(v, opt_b["state"][i][k])
    # The loaded state trains on: its EMA follows its own weights.
    before = [p.clone() for p in loaded.ema_params]
    train_step(loaded, make_loss_fn(cfg, loaded.model, dev), batches(2), 2, lr=1e-2)
    assert any(not torch.equal(a, b) for a, b in zip(before, loaded.ema.parameters()))

    # Another preset, or another network under the same preset, is refused.
    for other in (with_overrides(cfg, preset="small"), with_overrides(cfg, model={**TINY_UNET, "base_channels": 8})):
        with pytest.raises(SrmBenchError, match="belongs to srm/even-pixels/tiny, not srm/even-pixels/"):
            TrainState.load(tmp_path / "last.pt", other, dev)

    # A checkpoint from before the training record existed still loads, its record rebuilt.
    old = {k: v for k, v in saved.items() if k not in ("record", "warm_from")}
    torch.save(old, tmp_path / "old.pt")
    legacy = TrainState.load(tmp_path / "old.pt", cfg, dev)
    assert legacy.warm_from == 0 and legacy.record == {"step": 2, "images": 2 * cfg.batch_size,
                                                       "gpu_hours": 3.5 / 3600, "wall_s": 3.5, "init": None}


def test_ddpm_sudoku_step_uses_the_mask(tmp_path: Path) -> None:
    cfg = make_config("sudoku", "ddpm", "tiny")
    model = dict(TINY_UNET, image_size=36, in_channels=1, cond_channels=2, patch_size=4)
    cfg = with_overrides(cfg, arch="unet", model=model, steps=2, batch_size=2, ckpt_every=2)
    rng = np.random.default_rng(0)
    images, known = rng.integers(0, 256, (4, 36, 36, 1), dtype=np.uint8), rng.random((4, 81)) < 0.5
    out = train(cfg, TrainData(torch.from_numpy(images), known, "s", 4), tmp_path, device="cpu", progress=False)
    assert out["steps"] == 2 and np.isfinite(out["loss"])
    # The conditioning of a batch is [mask, masked image]: 1 on the given cells' pixels (cell r, c is
    # patch 9 r + c), and the clean image there, 0 elsewhere. One item, so both rows of the batch are it.
    from srm_bench.baselines.train import BatchMaker

    batch = BatchMaker(cfg, torch.device("cpu"), rank=0, local_batch=2,
                       data=TrainData(torch.from_numpy(images[:1]), known[:1], "s", 1))(0)
    mask = torch.from_numpy(known[0].reshape(9, 9)).float().repeat_interleave(4, 0).repeat_interleave(4, 1)
    clean = torch.from_numpy(images[0, :, :, 0]).float() / 127.5 - 1.0
    assert batch.cond is not None and batch.cond.shape == (2, 2, 36, 36)
    for row in batch.cond:
        assert torch.equal(row[0], mask)
        torch.testing.assert_close(row[1], clean * mask)
    assert 0 < int(mask.sum()) < 36 * 36


@pytest.mark.slow
def test_ddp_two_cpu_processes_gloo(tmp_path: Path) -> None:
    script = tmp_path / "ddp.py"
    script.write_text(textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import torch.distributed as dist
        from test_baselines_train import tiny_cfg, tiny_data
        from srm_bench.baselines.train import train
        out = train(tiny_cfg(steps=3, ckpt_every=3), tiny_data(), {str(tmp_path / 'run')!r}, device="cpu", progress=False)
        assert out["world_size"] == 2 and out["steps"] == 3
        # DDP keeps the replicas identical: compare every rank's weights with rank 0's.
        from srm_bench.baselines.train import load_checkpoint
        dist.barrier()
        ref = load_checkpoint({str(tmp_path / 'run' / 'last.pt')!r})["model"]
        # One file per rank: the two processes' stdout can interleave within a line.
        open({str(tmp_path)!r} + f"/rank{{dist.get_rank()}}.txt", "w").write(f"steps {{out['steps']}} keys {{len(ref)}}")
        dist.barrier()
        dist.destroy_process_group()  # as the CLI does: no group left to the interpreter's exit
    """))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", "29517",
                          str(script)], capture_output=True, text=True, timeout=240, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    for r in (0, 1):
        assert (tmp_path / f"rank{r}.txt").read_text().startswith("steps 3 ")
    state = torch.load(tmp_path / "run" / "last.pt", weights_only=True)
    assert state["world_size"] == 2 and state["step"] == 3


def test_graphed_step_matches_the_plain_step() -> None:
    """``--cuda-graph``'s step (uncaptured here: no CUDA) computes what the plain step does: the
    gradient buffer is zeroed and filled each step, so weights, EMA and losses agree bit for bit."""
    from srm_bench.baselines.train import BatchMaker, GraphedGrads, TrainState, make_loss_fn, train_step

    cfg = tiny_cfg()
    dev = torch.device("cpu")
    runs = []
    for graph in (False, True):
        state = TrainState.fresh(cfg, dev)
        make_batch = BatchMaker(cfg, dev, rank=0, local_batch=cfg.batch_size, data=tiny_data())
        loss_fn = make_loss_fn(cfg, state.model, dev)
        graphed = GraphedGrads(state.model, loss_fn, make_batch(0), capture=False) if graph else None
        losses = [float(train_step(state, loss_fn, make_batch(k), k, cfg.lr, graphed)[0].detach()) for k in range(4)]
        runs.append((state, losses))
    (plain, plain_losses), (graphed_state, graphed_losses) = runs
    assert plain_losses == graphed_losses and len(set(plain_losses)) == 4
    for a, b in zip(plain.model.parameters(), graphed_state.model.parameters()):
        assert torch.equal(a, b)
    for a, b in zip(plain.ema.parameters(), graphed_state.ema.parameters()):
        assert torch.equal(a, b)
    # The gradients are views of the one flat buffer that the loop all-reduces.
    grads = [p.grad for p in graphed_state.model.parameters()]
    assert all(g is not None and g.untyped_storage().data_ptr() == grads[0].untyped_storage().data_ptr() for g in grads)


def test_max_minutes_counts_the_graph_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--max-minutes and the recorded wall time start before the CUDA graph's capture, which on a
    GPU compiles and warms up for minutes (lease y ran two minutes past its budget when they did
    not). A capture that takes two minutes of a fake clock stops a one-minute run at its first step."""
    import time as real_time

    import srm_bench.baselines.train as train_mod

    class Clock:
        offset = 0.0

        def perf_counter(self) -> float:
            return real_time.perf_counter() + self.offset

        def __getattr__(self, name: str):
            return getattr(real_time, name)

    clock = Clock()

    class SlowCapture(train_mod.GraphedGrads):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            clock.offset += 120.0

    monkeypatch.setattr(train_mod, "time", clock)
    monkeypatch.setattr(train_mod, "GraphedGrads", SlowCapture)
    out = train(tiny_cfg(cuda_graph=True), tiny_data(), tmp_path, device="cpu", progress=False, max_minutes=1.0)
    assert out["steps"] == 1 and out["wall_s"] >= 120.0
    assert load_checkpoint(tmp_path / "last.pt")["step"] == 1


def test_stop_at_stops_at_a_wall_clock_time_with_the_checkpoint_before_the_last_evaluation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--stop-at: a time already past stops the run at its first check (log_every 1: step 1) with a
    checkpoint of that step, written before the last evaluation, which a lease's end may cut."""
    import time

    import srm_bench.baselines.train as train_mod

    out = train(tiny_cfg(), tiny_data(), tmp_path / "a", device="cpu", progress=False, stop_at=time.time() - 1)
    assert out["steps"] == 1 and load_checkpoint(tmp_path / "a" / "last.pt")["step"] == 1
    out = train(tiny_cfg(), tiny_data(), tmp_path / "b", device="cpu", progress=False, stop_at=time.time() + 3600)
    assert out["steps"] == 6  # a time still ahead changes nothing

    def cut(*args, **kwargs):  # the lease's guard ending the process during the evaluation
        raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "evaluate_model", cut)
    with pytest.raises(KeyboardInterrupt):
        train(tiny_cfg(), tiny_data(), tmp_path / "c", device="cpu", progress=False, stop_at=time.time() - 1,
              eval_every=5)
    assert load_checkpoint(tmp_path / "c" / "last.pt")["step"] == 1


@pytest.mark.slow
def test_compile_cache_lets_a_fresh_machine_skip_the_compilation(tmp_path: Path) -> None:
    """--compile-cache: a run compiles (its graphs missing from an empty compiler cache) and writes
    the artifacts; a second process with another empty compiler cache, a fresh machine's state,
    loads the file and finds every graph there (cache hits, no misses). Each in its own process, as
    torch's compiler keeps in-memory caches."""
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_baselines_train import tiny_cfg, tiny_data
        from srm_bench.baselines.train import train
        from torch._dynamo.utils import counters
        train(tiny_cfg(compile=True), tiny_data(), sys.argv[1], device="cpu", progress=False, compile_cache=sys.argv[2])
        print(json.dumps(dict(counters["inductor"])))
    """))
    cache = tmp_path / "cache.gz"
    runs = []
    for i in range(2):
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / f"inductor-{i}")}
        proc = subprocess.run([sys.executable, str(script), str(tmp_path / f"run-{i}"), str(cache)], env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        if i == 0:
            assert cache.stat().st_size > 0 and cache.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    assert runs[0].get("fxgraph_cache_miss", 0) >= 1 and runs[0].get("fxgraph_cache_hit", 0) == 0
    assert runs[1].get("fxgraph_cache_hit", 0) >= 1 and runs[1].get("fxgraph_cache_miss", 0) == 0


def test_an_unusable_compile_cache_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A missing cache is the first run's normal case (no word); a damaged one must not stop the
    training: one warning, and the step compiles without it."""
    import gzip

    from srm_bench.baselines.train import load_compile_cache

    assert load_compile_cache(tmp_path / "none.gz") is False and not caplog.records
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip at all")
    assert load_compile_cache(bad) is False
    foreign = tmp_path / "foreign.gz"
    with gzip.open(foreign, "wb") as f:
        f.write(b"not torch's artifacts")
    assert load_compile_cache(foreign) is False
    ours = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and r.getMessage().startswith("compile cache")]
    assert len(ours) == 2 and all("not used" in w for w in ours)


@pytest.mark.slow
def test_cuda_graph_allreduce_matches_ddp_gloo(tmp_path: Path) -> None:
    """Without DDP (``--cuda-graph``) the loop's all-reduce of the flat gradient buffer keeps the
    two ranks' replicas where DDP puts them: the same weights after 3 steps."""
    script = tmp_path / "ddp.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_baselines_train import tiny_cfg, tiny_data
        from srm_bench.baselines.train import train
        for name, graph in (("ddp", False), ("graph", True)):
            out = train(tiny_cfg(steps=3, ckpt_every=3, cuda_graph=graph), tiny_data(), {str(tmp_path)!r} + "/" + name,
                        device="cpu", progress=False)
            assert out["world_size"] == 2 and out["steps"] == 3
        # As the CLI does: no process group left to the interpreter's exit, where gloo's threads were once
        # torn down mid-flight ("terminate called without an active exception", rank 1, SIGABRT).
        import torch.distributed as dist
        dist.barrier()
        dist.destroy_process_group()
    """))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", "29518",
                          str(script)], capture_output=True, text=True, timeout=240, env=env)
    # A failing rank's own message comes before the launcher's summary, which fills the tail.
    causes = [line for line in res.stderr.splitlines() if any(k in line for k in ("Error", "terminate", "what()"))]
    assert res.returncode == 0, "\n".join(causes[:20]) + "\n" + res.stderr[-1500:]
    ddp, graph = (load_checkpoint(tmp_path / name / "last.pt") for name in ("ddp", "graph"))
    assert ddp["world_size"] == graph["world_size"] == 2 and ddp["model"].keys() == graph["model"].keys()
    for part in ("model", "ema"):
        assert all(torch.equal(ddp[part][k], graph[part][k]) for k in ddp[part])
    # The run moved the weights (the comparison is not of two initial states).
    from srm_bench.baselines.train import TrainState

    init = TrainState.fresh(tiny_cfg(), torch.device("cpu")).model.state_dict()
    assert not all(torch.equal(init[k], ddp["model"][k]) for k in init)


def test_dit_trains_and_samples(tmp_path: Path) -> None:
    from srm_bench.baselines.dit import DiTConfig
    from srm_bench.baselines.inference import load_denoiser, sample_images
    from srm_bench.baselines.schedules import SamplerConfig

    dit = DiTConfig(image_size=8, in_channels=3, patch_size=4, token_patch=2, hidden=32, depth=1, heads=2).to_dict()
    cfg = tiny_cfg(arch="dit", model=dit, steps=2, ckpt_every=2)
    train(cfg, tiny_data(), tmp_path, device="cpu", progress=False)
    model, loaded, _ = load_denoiser(tmp_path / "last.pt", "cpu")
    assert loaded.arch == "dit"
    imgs = sample_images(model, loaded, SamplerConfig("sequential", order="predicted", steps=4), np.arange(2), seed=0,
                         device="cpu")
    assert imgs.shape == (2, 8, 8, 3) and imgs.dtype == np.uint8
