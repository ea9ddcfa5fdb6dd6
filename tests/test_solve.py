"""`srm-bench solve`: a user's function run over a canonical set, written and scored end to end."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import pytest

from srm_bench.cli import main

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "docs" / "examples" / "oracle_adapter.py"


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(["-q", *args])
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_the_documented_example_runs_end_to_end(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _cli(capsys, "solve", "sudoku", "--split", "easy", "--model", f"{EXAMPLE}:most_constrained",
                          "--limit", "10", "--batch-size", "4", "--results", "r")
    assert code == 0, err
    assert "samples: solve-most_constrained-easy.h5" in out
    with h5py.File(tmp_path / "solve-most_constrained-easy.h5") as f:
        assert f["samples"].shape[0] == 10 and list(f["index"][:]) == list(range(10))
        model = json.loads(f.attrs["model"]) if isinstance(f.attrs["model"], str) else dict(f.attrs["model"])
    assert model["adapter"].endswith("oracle_adapter.py:most_constrained") and model["provenance"] == "user"
    result = json.loads(next((tmp_path / "r").glob("*.json")).read_text())
    # the most-constrained oracle solves every easy puzzle (README: 1.000 on all 500), read back by the MLP
    assert result["metrics"]["solved"]["value"] == 1.0 and result["samples"]["count"] == 10
    assert result["model"]["name"] == "most_constrained"
    assert _cli(capsys, "leaderboard", "--verify", "-r", str(tmp_path / "r"))[0] == 0


def _module(tmp_path: Path, body: str) -> None:
    (tmp_path / "my_adapters.py").write_text("import numpy as np\n\n" + body)


def test_module_form_and_image_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_adapters", raising=False)  # imported fresh, dropped after the test
    _module(tmp_path, "def echo(batch):\n    return batch.images  # the puzzle itself: givens only, empty cells black\n")
    code, out, err = _cli(capsys, "solve", "sudoku", "--split", "easy", "--model", "my_adapters:echo",
                          "--limit", "3", "--results", "r", "--name", "echo-model")
    assert code == 0, err
    sys.modules.pop("my_adapters", None)
    result = json.loads(next((tmp_path / "r").glob("*.json")).read_text())
    assert result["model"]["name"] == "echo-model" and result["metrics"]["accuracy"]["value"] == 0.0


BROKEN = [
    ("raises", "def f(batch):\n    raise ValueError('boom\\nsecond line')\n", "raised ValueError: boom; nothing written"),
    ("wrong count", "def f(batch):\n    return np.ones((len(batch) + 1, 9, 9), np.uint8)\n", "want one result per puzzle"),
    ("wrong shape", "def f(batch):\n    return batch.digits[:, 0]\n", "returned shape (4, 9); want (B, 9, 9) digit grids"),
    ("zeros in grids", "def f(batch):\n    return batch.digits\n", "not digits 1-9"),
    ("returns None", "def f(batch):\n    return None\n", "returned a NoneType"),
    ("not callable", "f = 3\n", "not a callable"),
    ("import error", "import not_a_module_anywhere\n", "cannot import my_adapters.py (ModuleNotFoundError"),
]


@pytest.mark.parametrize("body,message", [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_a_broken_adapter_gives_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch, body, message):
    monkeypatch.chdir(tmp_path)
    _module(tmp_path, body)
    code, out, err = _cli(capsys, "solve", "sudoku", "--split", "easy", "--model", "my_adapters.py:f",
                          "--limit", "4", "--results", "r")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["my_adapters.py"]


def test_bad_model_spec(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(capsys, "solve", "sudoku", "--split", "easy", "--model", "no_colon")
    assert code == 1 and "want package.module:callable" in err
    code, _, err = _cli(capsys, "solve", "sudoku", "--split", "easy", "--model", "missing.py:f")
    assert code == 1 and "no such file missing.py" in err


def test_unconditional_task(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _module(tmp_path, "def grey(batch):\n    return np.full((len(batch), 32, 32, 3), 128, np.uint8)\n\n\n"
                      "def grey_float(batch):\n    return np.full((len(batch), 3, 32, 32), 0.5, np.float32)\n")
    code, _, err = _cli(capsys, "solve", "even-pixels", "--split", "test", "--model", "my_adapters.py:grey_float",
                        "--limit", "2", "--results", "r")
    assert code == 1 and "--range" in err and not (tmp_path / "r").exists()
    code, _, err = _cli(capsys, "solve", "even-pixels", "--split", "test", "--model", "my_adapters.py:grey_float",
                        "--limit", "2", "--results", "rf", "--range", "0,1", "-o", "f.h5")
    assert code == 0, err  # (B, C, H, W) floats in [0, 1], declared
    code, out, err = _cli(capsys, "solve", "even-pixels", "--split", "test", "--model", "my_adapters.py:grey",
                          "--limit", "5", "--results", "r")
    assert code == 0, err
    result = json.loads(next((tmp_path / "r").glob("*.json")).read_text())
    assert result["task"] == "even-pixels" and result["metrics"]["accuracy"]["value"] == 0.0
    assert result["samples"]["count"] == 5
