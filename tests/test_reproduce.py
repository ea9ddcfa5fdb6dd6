"""`srm-bench reproduce`: a baseline result's samples drawn again, hashes compared."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from srm_bench.baselines import pretrained


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit code and everything printed (the verdict on stdout, errors on stderr)."""
    from srm_bench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(args)
    cap = capsys.readouterr()
    return int(exc.value.code or 0), cap.out + cap.err


@pytest.fixture(scope="module")
def cpu_result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A result of the shipped Sudoku SRM drawn on the CPU: 2 easy puzzles, 81 NFE, stochastic."""
    from srm_bench.cli import main

    d = tmp_path_factory.mktemp("reproduce")
    for args in (["sample", "--pretrained", "srm-sudoku", "--sampler", "sequential", "--order", "predicted", "--steps",
                  "81", "--eta", "1", "--split", "easy", "-n", "2", "--batch-size", "2", "--device", "cpu",
                  "-o", str(d / "s.h5")],
                 ["evaluate", str(d / "s.h5"), "--out", str(d / "res")]):
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert not exc.value.code
    (path,) = (d / "res").glob("*.json")
    return path


def edited(src: Path, dst: Path, edit) -> Path:
    res = json.loads(src.read_text())
    edit(res)
    dst.write_text(json.dumps(res))
    return dst


def test_a_cpu_result_is_reproduced_bit_for_bit_whatever_the_batch(cpu_result: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    res = json.loads(cpu_result.read_text())
    assert res["model"]["sampler"]["batch_size"] == 2  # recorded by sample
    code, out = run_cli(["reproduce", str(cpu_result), "--device", "cpu", "-o", str(tmp_path / "again.h5")], capsys)
    assert code == 0 and "reproduced bit for bit" in out and res["samples"]["sha256"] in out, out
    assert (tmp_path / "again.h5").exists()
    # per-sample seeds: one sample per batch draws the same pixels on the CPU
    code, out = run_cli(["reproduce", str(cpu_result), "--device", "cpu", "--batch-size", "1"], capsys)
    assert code == 0 and "reproduced bit for bit" in out, out


def test_other_pixels_are_reported_with_both_hashes(cpu_result: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def other_run(r: dict) -> None:  # as if it had been drawn with another seed on another card
        r["samples"]["sha256"] = "0" * 64
        r["model"]["sampler"]["device"] = "NVIDIA H200"

    bad = edited(cpu_result, tmp_path / "bad.json", other_run)
    code, out = run_cli(["reproduce", str(bad), "--device", "cpu"], capsys)
    assert code == 1 and "differs" in out and "0" * 64 in out and "NVIDIA H200" in out and "device type" in out, out


def test_results_that_cannot_be_reproduced_get_one_line(cpu_result: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    def user(r: dict) -> None:
        r["model"]["provenance"] = "user"

    def unknown_weights(r: dict) -> None:
        r["model"]["training"]["checkpoint_sha256"] = "ab" * 32

    code, out = run_cli(["reproduce", str(edited(cpu_result, tmp_path / "u.json", user))], capsys)
    assert code == 1 and "not a baseline result" in out, out
    code, out = run_cli(["reproduce", str(edited(cpu_result, tmp_path / "w.json", unknown_weights))], capsys)
    assert code == 1 and "no shipped model" in out and "--checkpoint" in out, out
    other = tmp_path / "other.safetensors"
    shutil.copy(pretrained.pretrained_path("srm-sudoku"), other)
    with open(other, "ab") as f:
        f.write(b"\0")
    code, out = run_cli(["reproduce", str(cpu_result), "--checkpoint", str(other)], capsys)
    assert code == 1 and "is not the" in out, out
    code, out = run_cli(["reproduce", str(tmp_path / "missing.json")], capsys)
    assert code == 1 and "no such file" in out, out
    (tmp_path / "x.json").write_text("{not json")
    code, out = run_cli(["reproduce", str(tmp_path / "x.json")], capsys)
    assert code == 1 and "not a result JSON" in out, out
