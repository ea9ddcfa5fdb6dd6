"""``srm-bench train`` / ``srm-bench sample``: outputs that evaluate reads, one-line errors for bad input."""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from srm_bench.baselines.presets import make_config, with_overrides
from srm_bench.baselines.train import train
from srm_bench.cli import main

from test_baselines_train import TINY_UNET, tiny_data

EP_UNET = dict(TINY_UNET, image_size=32)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ckpt")
    data = tiny_data()
    data.images = data.images.repeat(1, 4, 4, 1)  # 32x32
    out = {}
    for baseline in ("srm", "ddpm"):
        cfg = with_overrides(make_config("even-pixels", baseline, "tiny"), model=EP_UNET, steps=1, batch_size=2)
        train(cfg, data, root / baseline, device="cpu", progress=False)
        out[baseline] = root / baseline / "last.pt"
    return out


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    return int(exc.value.code or 0), err


@pytest.mark.parametrize("which, args, message", [
    ("srm", ["--sampler", "parallel", "--overlap", "0.5"], "--overlap does not apply to the parallel sampler"),
    ("srm", ["--sampler", "sequential", "--order", "graph"], "graph order needs a dependency graph"),
    ("srm", ["--sampler", "sequential", "--order", "random", "--steps", "10"], "smaller than the 64 patches"),
    ("srm", ["--task", "sudoku"], "is a even-pixels checkpoint, not sudoku"),
    ("srm", ["--preset", "paper"], "was trained with preset tiny, not paper"),
    ("ddpm", ["--sampler", "sequential", "--order", "random"], "only --sampler parallel applies"),
])
def test_bad_sampler_input_is_one_line_and_exit_1(checkpoints, tmp_path, capsys, which, args, message) -> None:
    out = tmp_path / "s.h5"
    code, err = run_cli(["sample", str(checkpoints[which]), "-n", "1", "--device", "cpu", "-o", str(out), *args], capsys)
    assert code == 1
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert not out.exists()


def test_sample_writes_a_file_that_names_its_model_and_sampler(checkpoints, tmp_path, capsys) -> None:
    from srm_bench.registry import get_task
    from srm_bench.samples import read_samples

    out = tmp_path / "s.h5"
    code, _ = run_cli(["sample", str(checkpoints["srm"]), "-n", "2", "--steps", "64", "--sampler", "sequential",
                       "--order", "predicted", "--overlap", "0.5", "--device", "cpu", "-o", str(out),
                       "--frames", str(tmp_path / "frames"), "--frame-every", "32"], capsys)
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == ["step00000.png", "step00032.png"]
    s = read_samples(out, lambda attrs: get_task(attrs["task"]))
    assert s.images.shape == (2, 32, 32, 3)
    model = s.attrs["model"]
    assert model["provenance"] == "baseline" and model["training"]["steps"] == 1
    # the schedule the weights were trained to, so a checkpoint cut partway through a cool-down shows
    assert {"schedule_steps", "cooldown_steps", "ema_decay"} <= set(model["training"])
    assert "sequential_mix" not in model["training"]  # only a run that used it says so
    assert model["sampler"]["order"] == "predicted" and model["sampler"]["steps"] == 64 and model["sampler"]["eta"] == 1.0
    code, err = run_cli(["sample", str(checkpoints["srm"]), "-n", "1", "--device", "cpu", "-o", str(out)], capsys)
    assert code == 1 and "exists" in err


def test_train_cli_refuses_sharpness_for_ddpm(tmp_path, capsys) -> None:
    """SRM-only options are refused for the DDPM, values out of range for the SRM; nothing is written."""
    cases = [
        (["ddpm", "even-pixels", "--sharpness", "0.5"], "--sharpness applies to the SRM"),
        (["ddpm", "even-pixels", "--tsampling", "independent"], "--tsampling applies to the SRM"),
        (["ddpm", "sudoku", "--sequential-mix", "0.3"], "--sequential-mix applies to the SRM"),
        (["srm", "sudoku", "--sequential-mix", "1.3"], "sequential_mix must lie in [0, 1]"),
        (["ddpm", "counting-stars", "--zero-patch-prob", "0.5"], "--zero-patch-prob applies to the SRM"),
        (["srm", "even-pixels", "--zero-patch-prob", "-0.1"], "zero_patch_prob and zero_patch_max_frac must lie in [0, 1]"),
        (["ddpm", "counting-polygons", "--parallel-mix", "0.5"], "--parallel-mix applies to the SRM"),
        (["srm", "counting-polygons", "--parallel-mix", "2"], "parallel_mix must lie in [0, 1]"),
        (["srm", "sudoku", "--parallel-mix", "0.2", "--sequential-mix", "0.2"], "not both"),
        (["srm", "even-pixels", "--ema-decay2", "1.0"], "--ema-decay2 must be in [0, 1)"),
        (["srm", "even-pixels", "--sequential-overlap", "0.9"], "set sequential_mix too"),
        (["srm", "even-pixels", "--sequential-order", "predicted"], "set sequential_mix too"),
        (["srm", "even-pixels", "--stop-at", "-5"], "--stop-at takes seconds since the epoch"),
        (["ddpm", "even-pixels", "--sequential-overlap", "0.9"], "--sequential-overlap applies to the SRM"),
        (["ddpm", "sudoku", "--ema-decay", "-0.5"], "--ema-decay must be in [0, 1)"),
        (["ddpm", "even-pixels", "--preset", "tiny", "--device", "cpu", "--spike-guard", "0.9"],
         "--spike-guard must be 0 (off) or above 1"),
        (["srm", "even-pixels", "--preset", "tiny", "--device", "cpu", "--ema-decay2", "0.9", "--init-ema2",
          str(tmp_path / "weights-ema2.safetensors")], "--init-ema2 " + str(tmp_path / "weights-ema2.safetensors") + ": goes with --init"),
    ]
    for (baseline, task, *extra), message in cases:
        code, err = run_cli(["train", "--baseline", baseline, "--task", task, *extra, "-o", str(tmp_path / "r")], capsys)
        assert code == 1 and message in err, (extra, err)
        assert not (tmp_path / "r").exists(), extra


def test_zero_patch_prob_reaches_the_run_and_is_named_in_the_samples_only_when_changed(tmp_path, capsys) -> None:
    from srm_bench.baselines.train import load_checkpoint
    from srm_bench.registry import get_task
    from srm_bench.samples import read_samples

    def training_of(run, zero):
        extra = [] if zero is None else ["--zero-patch-prob", zero]
        code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "even-pixels", "--preset", "tiny", "-o", str(run),
                           "--steps", "1", "--batch-size", "2", "--device", "cpu", *extra], capsys)
        assert code == 0
        out = run / "s.h5"
        code, _ = run_cli(["-q", "sample", str(run / "weights.safetensors"), "-n", "1", "--steps", "4", "--device", "cpu",
                           "-o", str(out)], capsys)
        assert code == 0
        state = load_checkpoint(run / "last.pt")
        return state["config"]["tsampling"]["zero_patch_prob"], read_samples(
            out, lambda attrs: get_task(attrs["task"])).attrs["model"]["training"]

    prob, training = training_of(tmp_path / "a", "0.5")
    assert prob == 0.5 and training["zero_patch_prob"] == 0.5
    prob, training = training_of(tmp_path / "b", None)  # the preset's rule (the authors': every row)
    assert prob == 1.0 and "zero_patch_prob" not in training


def test_train_cli_unknown_task(tmp_path, capsys) -> None:
    code, err = run_cli(["train", "--baseline", "srm", "--task", "mnist", "-o", str(tmp_path / "r")], capsys)
    assert code == 1 and "no baseline presets for task 'mnist'" in err


def test_train_cli_on_a_generated_split(tmp_path, capsys) -> None:
    import srm_bench

    srm_bench.generate("even-pixels", "train", n=8, out=tmp_path / "data")
    code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "even-pixels", "--preset", "tiny", "--data",
                       str(tmp_path / "data"), "-o", str(tmp_path / "run"), "--steps", "2", "--batch-size", "2",
                       "--tsampling", "independent", "--device", "cpu"], capsys)
    assert code == 0
    from srm_bench.baselines.train import load_checkpoint

    state = load_checkpoint(tmp_path / "run" / "last.pt")
    assert state["step"] == 2 and state["config"]["tsampling"]["kind"] == "independent"
    assert state["dataset_sha256"] == srm_bench.load_dataset(tmp_path / "data").content_sha256
    assert (tmp_path / "run" / "log.csv").read_text().splitlines()[0].startswith("step,images,loss,mse,vlb,nll")
    with pytest.raises(SystemExit):
        main(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "--data", str(tmp_path / "data"),
              "-o", str(tmp_path / "run2"), "--device", "cpu"])
    assert "is a even-pixels dataset, but the run trains on sudoku" in capsys.readouterr().err


def test_predicted_order_mix_trains_and_is_named_in_the_samples_and_the_leaderboard(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o", str(run),
                       "--steps", "2", "--batch-size", "2", "--sequential-mix", "1.0", "--sequential-overlap", "0.9",
                       "--sequential-order", "predicted", "--device", "cpu"], capsys)
    assert code == 0
    from srm_bench.baselines.train import load_checkpoint
    from srm_bench.leaderboard.store import _tsampling
    from srm_bench.registry import get_task
    from srm_bench.samples import read_samples

    assert load_checkpoint(run / "last.pt")["config"]["tsampling"]["sequential_order"] == "predicted"
    out = tmp_path / "s.h5"
    code, _ = run_cli(["-q", "sample", str(run / "weights.safetensors"), "--sampler", "parallel", "--steps", "4",
                       "--split", "hard", "-n", "1", "--device", "cpu", "-o", str(out)], capsys)
    assert code == 0
    training = read_samples(out, lambda attrs: get_task(attrs["task"])).attrs["model"]["training"]
    assert training["sequential_order"] == "predicted" and "sequential_tail" not in training  # the default: not written
    assert _tsampling(training) == "uniform_tbar + 1 sequential (overlap 0.9, predicted order)"


def test_completion_mix_trains_and_is_named_in_the_samples_and_the_leaderboard(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    code, err = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o", str(run),
                         "--steps", "2", "--batch-size", "2", "--completion-max", "2", "--device", "cpu"], capsys)
    assert code == 1 and "completion_max sizes the rows of completion_mix" in err and not run.exists()
    code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o", str(run),
                       "--steps", "2", "--batch-size", "2", "--sequential-mix", "0.5", "--completion-mix", "0.25",
                       "--completion-max", "2", "--device", "cpu"], capsys)
    assert code == 0
    from srm_bench.baselines.train import load_checkpoint
    from srm_bench.leaderboard.store import _tsampling
    from srm_bench.registry import get_task
    from srm_bench.samples import read_samples

    ts = load_checkpoint(run / "last.pt")["config"]["tsampling"]
    assert ts["completion_mix"] == 0.25 and ts["completion_max"] == 2
    out = tmp_path / "s.h5"
    code, _ = run_cli(["-q", "sample", str(run / "weights.safetensors"), "--sampler", "parallel", "--steps", "4",
                       "--split", "hard", "-n", "1", "--device", "cpu", "-o", str(out)], capsys)
    assert code == 0
    training = read_samples(out, lambda attrs: get_task(attrs["task"])).attrs["model"]["training"]
    assert training["completion_mix"] == 0.25 and training["completion_max"] == 2
    assert _tsampling(training) == "uniform_tbar + 0.5 sequential + 0.25 completion (1-2 noisy patches)"


def test_sequential_mix_trains_continues_and_is_named_in_the_samples(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o", str(run),
                       "--steps", "2", "--batch-size", "2", "--sequential-mix", "0.5", "--device", "cpu"], capsys)
    assert code == 0
    from srm_bench.baselines.train import load_checkpoint

    assert load_checkpoint(run / "last.pt")["config"]["tsampling"]["sequential_mix"] == 0.5
    # a run continued with --init may change the mix (the network is the same)
    code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o", str(tmp_path / "ft"),
                       "--init", str(run / "weights.safetensors"), "--steps", "4", "--batch-size", "2",
                       "--sequential-mix", "1.0", "--sequential-tail", "0.5", "--cooldown-steps", "2", "--device", "cpu"], capsys)
    assert code == 0
    from srm_bench.registry import get_task
    from srm_bench.samples import read_samples

    out = tmp_path / "s.h5"
    code, _ = run_cli(["-q", "sample", str(tmp_path / "ft" / "weights.safetensors"), "--sampler", "sequential", "--order",
                       "predicted", "--steps", "81", "--split", "hard", "-n", "1", "--device", "cpu", "-o", str(out)], capsys)
    assert code == 0
    training = read_samples(out, lambda attrs: get_task(attrs["task"])).attrs["model"]["training"]
    assert training["sequential_mix"] == 1.0 and training["cooldown_steps"] == 2 and training["schedule_steps"] == 4
    assert training["steps"] == 4 and "parallel_mix" not in training
    assert "sequential_order" not in training  # random order, the default, is not written
    assert training["sequential_tail"] == 0.5  # the mix's rows read in the last half of the run
    # --parallel-mix (one shared level, no clean patch, in a share of the rows) is recorded the same way
    code, _ = run_cli(["-q", "train", "--baseline", "srm", "--task", "sudoku", "--preset", "tiny", "-o", str(tmp_path / "pm"),
                       "--init", str(run / "weights.safetensors"), "--steps", "3", "--batch-size", "2",
                       "--parallel-mix", "0.5", "--device", "cpu"], capsys)
    assert code == 0
    assert load_checkpoint(tmp_path / "pm" / "last.pt")["config"]["tsampling"]["parallel_mix"] == 0.5


def test_sample_without_a_progress_bar_logs_a_line_a_batch(checkpoints, tmp_path, caplog) -> None:
    """Where no bar is drawn (stderr not a terminal: a log file, nohup), each finished batch says how far the
    command is; with a bar, no such lines."""
    from srm_bench.baselines import inference
    from srm_bench.baselines.schedules import SamplerConfig

    cfg = SamplerConfig(name="parallel", steps=2)
    with caplog.at_level(logging.INFO, logger=inference.__name__):
        inference.sample_checkpoint(checkpoints["srm"], cfg, tmp_path / "a.h5", count=5, batch_size=2, device="cpu")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("sampled ")]
    assert [m.split(" (")[0] for m in lines] == ["sampled 2 of 5", "sampled 4 of 5", "sampled 5 of 5"]
    assert lines[-1].endswith("about 0 s left)")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=inference.__name__):
        inference.sample_checkpoint(checkpoints["srm"], cfg, tmp_path / "b.h5", count=5, batch_size=2, device="cpu",
                                    progress=True)
    assert not [r for r in caplog.records if r.getMessage().startswith("sampled ")]


def test_an_interrupted_sample_continues_where_it_stopped_and_refuses_another_commands_batches(
        checkpoints, tmp_path, monkeypatch, capsys) -> None:
    from srm_bench.baselines import inference
    from srm_bench.baselines.schedules import SamplerConfig
    from srm_bench.registry import get_task
    from srm_bench.samples import read_samples

    cfg = SamplerConfig(name="parallel", steps=4)
    whole = inference.sample_checkpoint(checkpoints["srm"], cfg, tmp_path / "whole.h5", count=5, batch_size=2,
                                        device="cpu")
    real, calls = inference.sample, []

    def sample_then_stop(*args, **kwargs):
        calls.append(len(args[1]))
        if len(calls) == 3:
            raise KeyboardInterrupt  # stopped during the third batch
        return real(*args, **kwargs)

    monkeypatch.setattr(inference, "sample", sample_then_stop)
    out = tmp_path / "s.h5"
    with pytest.raises(KeyboardInterrupt):
        inference.sample_checkpoint(checkpoints["srm"], cfg, out, count=5, batch_size=2, device="cpu")
    partial = tmp_path / "s.h5.partial.npz"
    assert not out.exists() and partial.exists()
    # another seed's command refuses the kept batches, through the CLI in one line
    code, err = run_cli(["sample", str(checkpoints["srm"]), "-n", "5", "--batch-size", "2", "--steps", "4",
                         "--sampler", "parallel", "--seed", "1", "--device", "cpu", "-o", str(out)], capsys)
    assert code == 1 and err.count("\n") == 1 and "holds samples of another command" in err and not out.exists()
    kept = partial.read_bytes()
    partial.write_bytes(kept[:len(kept) // 2])  # cut while it was written: one line, not a traceback
    code, err = run_cli(["sample", str(checkpoints["srm"]), "-n", "5", "--batch-size", "2", "--steps", "4",
                         "--sampler", "parallel", "--device", "cpu", "-o", str(out)], capsys)
    assert code == 1 and err.count("\n") == 1 and "unreadable" in err and "delete it" in err
    partial.write_bytes(kept)
    calls.clear()
    inference.sample_checkpoint(checkpoints["srm"], cfg, out, count=5, batch_size=2, device="cpu")
    assert calls == [1]  # only the last sample was drawn again
    assert not partial.exists()
    first, second = (read_samples(p, lambda attrs: get_task(attrs["task"])) for p in (whole, out))
    assert np.array_equal(first.images, second.images)
