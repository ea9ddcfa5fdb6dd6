"""The shipped baselines: catalogue, pins, `srm-bench models`, `sample --pretrained`."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest

from srm_bench.baselines import pretrained
from srm_bench.baselines.train import load_weights
from srm_bench.errors import ChecksumError, SrmBenchError

from test_baselines_cli import run_cli


def test_catalogue_matches_the_shipped_files() -> None:
    models = pretrained.catalogue()
    assert "srm-sudoku" in models
    for name, entry in models.items():
        path = pretrained.pretrained_path(name)  # checks the pin
        assert path.stat().st_size <= 20e6  # the budget for the Sudoku SRM
        _, cfg, record = load_weights(path)
        assert (cfg.task, cfg.baseline, cfg.preset) == (entry["task"], entry["baseline"], entry["preset"])
        assert record["images"] == entry["trained"]["images"] and record["step"] == entry["trained"]["steps"]
        assert all(0.0 <= m["accuracy"] <= 1.0 for m in entry["measured"])


def test_a_changed_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = pretrained.catalogue()["srm-sudoku"]
    bad = tmp_path / entry["file"]
    shutil.copy(pretrained.WEIGHTS_DIR / entry["file"], bad)
    with open(bad, "r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    shutil.copy(pretrained.CATALOGUE, tmp_path / "models.json")
    monkeypatch.setattr(pretrained, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(pretrained, "CATALOGUE", tmp_path / "models.json")
    with pytest.raises(ChecksumError, match="differs from the pinned"):
        pretrained.pretrained_path("srm-sudoku")
    bad.unlink()
    with pytest.raises(SrmBenchError, match="missing"):
        pretrained.pretrained_path("srm-sudoku")
    with pytest.raises(SrmBenchError, match="valid: .*srm-sudoku"):
        pretrained.pretrained_path("srm-nothing")


def test_models_lists_measured_rows_in_order() -> None:
    """`srm-bench models` lists a model's rows by split, sampler (parallel first), overlap, budget and seed, whatever
    order the catalogue holds them in (shipping writes them in the order the result files came)."""
    rows = [dict(split="test", sampler=s, overlap=o, nfe=n, eta=1.0, count=500, accuracy=0.1, where="x", seed=seed)
            for s, o, n, seed in (("random", 0.95, 1000, 1), ("predicted", 0.5, 1000, 0), ("parallel", 0.0, 1000, 0),
                                  ("random", 0.95, 1000, 0), ("predicted", 0.95, 100, 0), ("predicted", 0.95, 1000, 0))]
    entry = {"file": "none.safetensors", "sha256": "0" * 64, "task": "even-pixels", "baseline": "srm", "preset": "p",
             "trained": {}, "status": "", "measured": rows}
    import re

    listed = [re.match(r"\s+test\s+(.*?)\s+(\d+) NFE", line).groups() for line in pretrained.describe("m", entry)[3:]]
    assert listed == [("parallel", "1000"), ("predicted +overlap 0.5", "1000"), ("predicted +overlap 0.95", "1000"),
                      ("predicted +overlap 0.95", "100"), ("random +overlap 0.95", "1000"),
                      ("random +overlap 0.95, seed 1", "1000")]


def test_models_command_and_sample_pretrained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from srm_bench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["models"])
    code, out = int(exc.value.code or 0), capsys.readouterr().out
    entry = pretrained.catalogue()["srm-sudoku"]
    assert code == 0 and "srm-sudoku" in out and entry["sha256"][:12] in out and "cell-aux" in out
    code, out = run_cli(["sample", "-o", str(tmp_path / "x.h5")], capsys)
    assert code == 1 and "--pretrained" in out and not (tmp_path / "x.h5").exists()
    code, out = run_cli(["sample", "--pretrained", "srm-sudoku", "--sampler", "sequential", "--order", "predicted",
                         "--steps", "81", "--eta", "0", "--split", "easy", "-n", "1", "--device", "cpu",
                         "-o", str(tmp_path / "s.h5")], capsys)
    assert code == 0, out
    with h5py.File(tmp_path / "s.h5") as f:
        images = np.asarray(f["samples"])
        model = json.loads(f.attrs["model"])
    assert model["name"] == "srm-sudoku" and model["training"]["checkpoint_sha256"] == entry["sha256"]
    assert images.shape == (1, 252, 252, 1) and images.dtype == np.uint8
    from srm_bench.canonical import canonical_dataset

    ds = canonical_dataset("sudoku", "easy")
    given = ds.images(np.arange(1))[0]
    known = np.asarray(ds.items["mask"][0], dtype=bool).reshape(9, 9)
    r, c = np.argwhere(known)[0]
    np.testing.assert_array_equal(images[0, 28 * r:28 * r + 28, 28 * c:28 * c + 28], given[28 * r:28 * r + 28, 28 * c:28 * c + 28])


@pytest.mark.parametrize(("name", "sampler", "shape"), [
    ("srm-even-pixels", ["--sampler", "sequential", "--order", "predicted", "--overlap", "0.95", "--steps", "64"],
     (2, 32, 32, 3)),
    ("srm-counting-stars", ["--sampler", "parallel", "--steps", "8"], (2, 128, 128, 3)),
])
def test_sample_an_unconditional_model(name: str, sampler: list[str], shape: tuple[int, ...], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The Even Pixels and Counting SRMs sample without a given image; the file records the shipped
    weights' hash and the sampler, and the task's evaluator reads it."""
    entry = pretrained.catalogue()[name]
    code, out = run_cli(["sample", "--pretrained", name, *sampler, "-n", "2", "--device", "cpu",
                         "-o", str(tmp_path / "s.h5")], capsys)
    assert code == 0, out
    with h5py.File(tmp_path / "s.h5") as f:
        images = np.asarray(f["samples"])
        model = json.loads(f.attrs["model"])
    assert images.shape == shape and images.dtype == np.uint8 and images.std() > 0
    assert model["name"] == name and model["training"]["checkpoint_sha256"] == entry["sha256"]
    assert model["sampler"]["overlap"] == (0.95 if "--overlap" in sampler else 0.0)
    code, out = run_cli(["evaluate", str(tmp_path / "s.h5"), "--out", str(tmp_path / "res")], capsys)
    assert code == 0, out
    (result,) = (tmp_path / "res").glob("*.json")
    res = json.loads(result.read_text())
    assert res["task"] == entry["task"] and res["metrics"]["accuracy"]["n"] == 2
    assert res["model"]["training"]["checkpoint_sha256"] == entry["sha256"]


def test_entropy_uncertainty_orders_by_the_class_head() -> None:
    from dataclasses import replace

    import torch

    from srm_bench.baselines.inference import load_denoiser, sample_images
    from srm_bench.baselines.schedules import SamplerConfig
    from srm_bench.canonical import canonical_dataset
    from srm_bench.leaderboard.store import sampler_label

    torch.manual_seed(0)
    model, cfg, _ = load_denoiser(pretrained.pretrained_path("srm-sudoku"), "cpu")
    ds = canonical_dataset("sudoku", "easy")
    given = ds.images(np.arange(1))
    known = np.asarray(ds.items["mask"][:1], dtype=bool).reshape(1, -1)
    frames: list[dict] = []
    sampler = SamplerConfig(name="sequential", order="predicted", steps=81, eta=0.0, uncertainty="entropy")
    sample_images(model, cfg, sampler, np.arange(1), seed=0, device="cpu", given=given, known=known,
                  callback=frames.append)
    # The first cell started is the open cell whose class distribution has the lowest entropy
    # (with entropy, the uncertainty the callback sees is the class entropy).
    first_started = int(torch.nonzero(frames[0]["s"][0] < frames[0]["t"][0]).flatten()[0])
    ent = frames[0]["logvar"][0]
    open_cells = ~torch.from_numpy(known[0])
    assert first_started == int(torch.argmin(ent.masked_fill(~open_cells, float("inf"))))
    assert float(ent[open_cells].min()) >= 0.0 and float(ent.max()) <= np.log(9) + 1e-4
    assert sampler.to_dict()["uncertainty"] == "entropy" and "uncertainty" not in SamplerConfig().to_dict()
    assert sampler_label(sampler.to_dict()).endswith("entropy uncertainty")
    with pytest.raises(SrmBenchError, match="predicted order only"):
        SamplerConfig(name="parallel", uncertainty="entropy").validate(81)
    with pytest.raises(SrmBenchError, match="class head"):
        sample_images(model, replace(cfg, model={**cfg.model, "classes": 0}), sampler, np.arange(1), seed=0,
                      device="cpu", given=given, known=known)


def test_animate_writes_a_gif_of_the_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    gif = tmp_path / "a.gif"
    code, out = run_cli(["sample", "--pretrained", "srm-sudoku", "--sampler", "sequential", "--order", "predicted",
                         "--steps", "81", "--eta", "0", "--split", "easy", "-n", "1", "--device", "cpu",
                         "--frame-every", "20", "--animate", str(gif), "-o", str(tmp_path / "s.h5")], capsys)
    assert code == 0, out
    im = Image.open(gif)
    assert im.n_frames == 5  # steps 0, 20, 40, 60 and the last one (80)
    assert im.size == (4 * 252, 252 + 14)  # four panels and the caption bar
    assert not list(tmp_path.glob("*.tmp*"))
    with h5py.File(tmp_path / "s.h5") as f:
        final = np.asarray(f["samples"])[0, :, :, 0]
    im.seek(4)
    last = np.asarray(im.convert("L"))[14:, :252]
    assert np.abs(last.astype(int) - final.astype(int)).mean() < 2.0  # the last frame shows the sample
    for bad, message in (("a.png", "a .gif or an .mp4"),):
        code, out = run_cli(["sample", "--pretrained", "srm-sudoku", "--sampler", "parallel", "--steps", "2", "-n", "1",
                             "--split", "easy", "--device", "cpu", "--animate", str(tmp_path / bad),
                             "-o", str(tmp_path / "t.h5")], capsys)
        assert code == 1 and message in out and not (tmp_path / "t.h5").exists()
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        from srm_bench.baselines.inference import Animator

        with pytest.raises(SrmBenchError, match="imageio-ffmpeg"):
            Animator(tmp_path / "a.mp4", 1, 10)


def test_every_measured_figure_is_backed_by_its_result_file() -> None:
    """The catalogue's accuracies are not typed in: each row that names a result file agrees with
    it (split, sampler knobs, count, accuracy and interval), and the file was sampled from the
    shipped weights."""
    import math

    root = Path(__file__).resolve().parents[1]
    for name, entry in pretrained.catalogue().items():
        backed = [m for m in entry.get("measured", []) if m.get("result")]
        # a partner (a baseline recorded beside the model, not shipped): its rows are backed by results of its weights
        rows = [(m, entry["sha256"]) for m in backed] + [(m, p["sha256"]) for p in entry.get("partners", [])
                                                         for m in p["measured"]]
        for m, sha in rows:
            res = json.loads((root / m["result"]).read_text())
            s = res["model"]["sampler"]
            sampler = "parallel" if s["name"] == "parallel" else s["order"] + ("-entropy" if s.get("uncertainty") == "entropy" else "")
            assert (res["split"], sampler, s["steps"], s["eta"]) == (m["split"], m["sampler"], m["nfe"], m["eta"]), m
            assert (s.get("overlap") or 0.0) == m.get("overlap", 0.0), m
            assert s.get("ramp", "even") == m.get("ramp", "even"), m
            assert s.get("seed", 0) == m.get("seed", 0), m
            acc = res["metrics"]["accuracy"]
            assert acc["n"] == m["count"] and math.isclose(acc["value"], m["accuracy"], abs_tol=5e-5), m
            assert [round(x, 3) for x in acc["ci95"]] == m["ci95"], m
            if "consistency" in res["metrics"]:  # Counting: the figure the paper's stars finding is about
                con = res["metrics"]["consistency"]
                assert math.isclose(con["value"], m["consistency"], abs_tol=5e-5), m
                assert [round(x, 3) for x in con["ci95"]] == m["consistency_ci95"], m
            assert res["model"]["training"]["checkpoint_sha256"] == sha, (name, m["result"])
        for p in entry.get("partners", []):
            assert p["sha256"] != entry["sha256"] and p["measured"], (name, p["name"])
            t = json.loads((root / p["measured"][0]["result"]).read_text())["model"]["training"]
            assert (t["baseline"], t["preset"], t["images"], round(t["gpu_hours"], 3)) == (
                p["baseline"], p["preset"], p["trained"]["images"], p["trained"]["gpu_hours"]), (name, p["name"])
        if name == "srm-sudoku":  # Table 1's hard row for every sampler, and predicted order on every split
            assert len(backed) >= 15
            # issue 11's partner: a DDPM of the same network and images, parallel on hard
            ddpm = [p for p in entry.get("partners", []) if p["baseline"] == "ddpm"]
            assert ddpm and ddpm[0]["trained"]["images"] == entry["trained"]["images"]
            assert ("hard", "parallel") in {(m["split"], m["sampler"]) for m in ddpm[0]["measured"]}
            table = {(m["split"], m["sampler"]) for m in backed if (m["nfe"], m["eta"], m.get("ramp")) == (1000, 1.0, None)}
            assert table >= {("hard", s) for s in ("parallel", "random", "graph", "predicted", "predicted-entropy")}
            assert table >= {(split, "predicted") for split in ("easy", "medium", "hard")}
        if name == "srm-counting-stars":  # Table 3's five SRM rows
            assert {(m["sampler"], m.get("overlap")) for m in backed} == {("parallel", None), ("predicted", None),
                                                                           ("predicted", 0.95), ("random", None),
                                                                           ("random", 0.95)}
        if name == "srm-even-pixels":  # Table 2's three SRM rows at least
            assert {(m["sampler"], m.get("overlap")) for m in backed} >= {("parallel", None), ("predicted", 0.95),
                                                                           ("random", 0.95)}
