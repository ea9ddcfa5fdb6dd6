"""The command line: help, exit codes, and one clear line for every bad input."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

import srm_bench
from srm_bench.errors import SrmBenchError
from srm_bench.cli import cli
from srm_bench.samples import _write_unchecked, write_samples




@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def _main(args: list[str]) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "srm_bench.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("args, shown", [
    (["--help"], ("generate", "evaluate")),
    (["train", "--help"], ("--preset", "--task")),
    (["oracle", "--help"], ("sudoku",)),
    (["train-evaluator", "--help"], ("counting-stars", "sudoku")),
])
def test_help_is_instant_and_imports_no_torch(args: list[str], shown: tuple[str, ...]) -> None:
    code = (f"import sys; from srm_bench.cli import cli; cli.main({args!r}, standalone_mode=False); "
            "print('torch' in sys.modules, 'h5py' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert all(word in out for word in shown), out
    assert out.strip().endswith("False False")


@pytest.mark.parametrize("args, message", [
    (["generate", "sudok", "--split", "hard"], "Did you mean 'sudoku'"),
    (["generate", "sudoku", "--split", "impossible"], "'impossible' is not one of"),
    (["verify", "/nonexistent/dir"], "no such file"),
])
def test_bad_names_give_one_line(args, message) -> None:
    code, out = _main(args)
    assert code in (1, 2) and message in out
    assert "Traceback" not in out


def test_generate_and_verify(tmp_path, runner) -> None:
    out = tmp_path / "e"
    res = runner.invoke(cli, ["generate", "sudoku", "--split", "easy", "-n", "12", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "12 sudoku/easy items" in res.output
    res = runner.invoke(cli, ["verify", str(out)])
    assert res.exit_code == 0 and "every hash matches" in res.output
    res = runner.invoke(cli, ["info", str(out)])
    assert "sudoku/easy" in res.output and "sha256" in res.output


def test_verify_catches_a_tampered_shard(tmp_path) -> None:
    out = srm_bench.generate("sudoku", "easy", n=12, out=tmp_path / "e", progress=False)
    shard = next(out.glob("*.h5"))
    with h5py.File(shard, "r+") as f:
        f["items/grid"][0, 0, 0] = 1 if f["items/grid"][0, 0, 0] != 1 else 2
    code, out_text = _main(["verify", str(out)])
    assert code == 1 and "does not match" in out_text and "Traceback" not in out_text


def test_generate_refuses_unwritable_output(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out = _main(["generate", "sudoku", "--split", "easy", "-n", "3", "-o", str(blocker / "sub")])
    assert code == 1 and "cannot create" in out


def test_generate_refuses_a_directory_of_another_dataset(tmp_path) -> None:
    out = srm_bench.generate("sudoku", "easy", n=5, out=tmp_path / "d", progress=False)
    code, text = _main(["generate", "sudoku", "--split", "hard", "-n", "5", "-o", str(out)])
    assert code == 1 and "holds another dataset" in text


@pytest.fixture()
def easy_ds(easy_small):
    return srm_bench.load_dataset(easy_small)


def _write(path, arr, ds, **kw):
    """Bad files as other tools write them: write_samples itself refuses them (see below)."""
    kw.setdefault("index", np.arange(arr.shape[0]))
    return _write_unchecked(path, arr, task="sudoku", split="easy", dataset_sha256=ds.content_sha256, **kw)


BAD_CASES = {
    "wrong size": (lambda im: im[:, :250, :250], {}, "must be 252x252"),
    "wrong channels": (lambda im: np.repeat(im, 3, axis=-1), {}, "1 channel"),
    "float without range": (lambda im: im.astype(np.float32) / 255, {}, "--range"),
    "nan": (lambda im: np.where(np.arange(im.shape[0])[:, None, None, None] == 3, np.nan, im / 255.0), {"value_range": "0,1"}, "NaN"),
    "out of declared range": (lambda im: im.astype(np.float32), {"value_range": "0,1"}, "outside the declared range"),
    "bool": (lambda im: im > 0, {}, "dtype bool"),
    "index out of range": (lambda im: im, {"index": np.arange(60) + 5}, "must lie in"),
}


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_bad_samples_give_one_line_and_no_result(case, easy_small, easy_ds, tmp_path) -> None:
    make, kw, message = BAD_CASES[case]
    path = _write(tmp_path / "s.h5", make(easy_ds.images()), easy_ds, **kw)
    out_dir = tmp_path / "results"
    code, text = _main(["evaluate", str(path), "--reference", str(easy_small), "--out", str(out_dir)])
    assert code == 1, text
    assert message in text and "Traceback" not in text
    assert len(text.strip().splitlines()) == 1
    assert not out_dir.exists() or not any(out_dir.iterdir())


@pytest.mark.parametrize("case", [c for c in BAD_CASES if c != "index out of range"])  # the puzzle count is evaluate's to know
def test_write_samples_refuses_what_evaluate_would(case, easy_ds, tmp_path) -> None:
    make, kw, message = BAD_CASES[case]
    images = make(easy_ds.images())
    with pytest.raises(SrmBenchError, match=re.escape(message)) as exc:
        write_samples(tmp_path / "s.h5", images, task="sudoku", split="easy", dataset_sha256=easy_ds.content_sha256,
                      index=np.arange(images.shape[0]), **kw)
    assert "\n" not in str(exc.value) and "not written" in str(exc.value)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("kw, message", [
    (dict(task="sudokoo"), "unknown task"), (dict(split="test"), "unknown split"),
    (dict(samples=np.zeros((0, 252, 252), np.uint8)), "holds no samples"),
    (dict(index=np.arange(3) - 1), "non-negative integer per sample"), (dict(index=np.arange(2)), "one non-negative"),
    (dict(index=np.zeros(3)), "one non-negative integer"), (dict(samples=np.full((3, 252, 252), 300)), "[0, 255]"),
])
def test_write_samples_refuses_bad_arguments(tmp_path, kw, message) -> None:
    args = dict(samples=np.zeros((3, 252, 252), np.uint8), task="sudoku", split="easy", index=np.arange(3)) | kw
    with pytest.raises(SrmBenchError, match=re.escape(message)):
        write_samples(tmp_path / "s.h5", args.pop("samples"), dataset_sha256=None, **args)
    assert not list(tmp_path.iterdir())


def test_sample_count_mismatch(easy_small, easy_ds, tmp_path) -> None:
    path = write_samples(tmp_path / "s.h5", easy_ds.images()[:10], task="sudoku", split="easy",
                         dataset_sha256=easy_ds.content_sha256)
    code, text = _main(["evaluate", str(path), "--reference", str(easy_small), "--no-save"])
    assert code == 1 and "10 samples but" in text


def test_samples_for_another_puzzle_set(easy_small, easy_ds, tmp_path) -> None:
    path = write_samples(tmp_path / "s.h5", easy_ds.images(), task="sudoku", split="easy", dataset_sha256="0" * 64)
    code, text = _main(["evaluate", str(path), "--reference", str(easy_small), "--no-save"])
    assert code == 1 and "another puzzle set" in text


@pytest.mark.parametrize("content", [b"", b"garbage bytes"])
def test_unreadable_samples(tmp_path, content) -> None:
    p = tmp_path / "s.h5"
    p.write_bytes(content)
    code, text = _main(["evaluate", str(p), "--no-save"])
    assert code == 1 and "not a readable HDF5" in text


def test_npz_and_png_inputs(easy_small, easy_ds, tmp_path, runner) -> None:
    from PIL import Image

    imgs = easy_ds.images()
    np.savez(tmp_path / "s.npz", arr_0=imgs)
    res = runner.invoke(cli, ["evaluate", str(tmp_path / "s.npz"), "--task", "sudoku", "--split", "easy",
                              "--reference", str(easy_small), "--json", "--no-save"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["metrics"]["accuracy"]["value"] == 1.0
    pngs = tmp_path / "png"
    pngs.mkdir()
    for i, im in enumerate(imgs):
        Image.fromarray(im[..., 0]).save(pngs / f"{i}.png")
    res = runner.invoke(cli, ["evaluate", str(pngs), "--task", "sudoku", "--split", "easy",
                              "--reference", str(easy_small), "--json", "--no-save"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["metrics"]["solved"]["value"] == 1.0
    code, text = _main(["evaluate", str(tmp_path / "s.npz"), "--no-save"])
    assert code == 1 and "--task" in text


def test_evaluate_writes_json_and_csv(easy_small, easy_ds, tmp_path, runner) -> None:
    path = _write(tmp_path / "s.h5", easy_ds.images(), easy_ds, model={"name": "my-model", "provenance": "user"})
    res = runner.invoke(cli, ["evaluate", str(path), "--reference", str(easy_small), "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert "my-model" in res.output and "accuracy" in res.output
    files = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".per_sample.csv")
    import pandas as pd

    frame = pd.read_csv(tmp_path / "r" / files[1])
    assert len(frame) == 60 and (frame["l1"] == 0).all()


@pytest.mark.parametrize("task, split, fails", [("sudoku", "hard", True), ("counting-stars", "test", False)])
def test_verify_images_against_the_pin(task, split, fails, tmp_path, monkeypatch) -> None:
    """Pure-numpy renderings must match the pinned images hash; Pillow ones only warn."""
    import srm_bench.canonical as canonical

    pins = {t: {s: dict(v) for s, v in d.items()} for t, d in canonical._pins().items()}
    pins[task][split]["images_sha256"] = "0" * 64
    monkeypatch.setattr(canonical, "_pins", lambda: pins)
    out = srm_bench.generate(task, split, out=tmp_path / "d", progress=False)
    res = CliRunner().invoke(cli, ["verify", str(out)])
    if fails:
        assert res.exit_code == 1 and "images differ" in str(res.exception)
    else:
        assert res.exit_code == 0 and "warning: the rendered images differ" in res.output
