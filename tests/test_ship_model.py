"""benchmarks/ship_model.py: a shipped model's catalogue entry is rebuilt from its weights' record
and from results of exactly those weights."""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = ROOT / "baselines" / "weights"


def _module():
    spec = importlib.util.spec_from_file_location("ship_model", ROOT / "benchmarks" / "ship_model.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _catalogue() -> dict:
    return json.loads((WEIGHTS / "models.json").read_text())


@pytest.mark.parametrize("name", sorted(_catalogue()))
def test_every_shipped_entry_is_rebuilt_exactly_from_its_results(name, capsys) -> None:
    """The committed entries were written by hand before the script: rebuilt from their own weights
    and result files (same status, card and date) they come out identical, field for field."""
    entry = _catalogue()[name]
    rc = _module().main([name, str(WEIGHTS / entry["file"]), *(str(ROOT / m["result"]) for m in entry["measured"]),
                         "--status", entry["status"], "--date", entry["trained"]["date"], "--dry-run"])
    assert rc == 0
    assert json.loads(capsys.readouterr().out) == {name: entry}


@pytest.fixture
def shop(tmp_path) -> Path:
    """A copy of the catalogue and of the (small) shipped Counting weights."""
    d = tmp_path / "weights"
    d.mkdir()
    shutil.copy(WEIGHTS / "models.json", d / "models.json")
    shutil.copy(WEIGHTS / _catalogue()["srm-counting-stars"]["file"], d / _catalogue()["srm-counting-stars"]["file"])
    return d


def _stars_results() -> list[str]:
    return [str(ROOT / m["result"]) for m in _catalogue()["srm-counting-stars"]["measured"]]


def test_a_result_of_other_weights_is_refused_and_nothing_changes(shop, tmp_path, capsys) -> None:
    """Shipping the stars weights with a result the Even Pixels SRM scored: one line naming both
    hashes, exit 1, the catalogue and the weights folder untouched."""
    before = {p.name: p.read_bytes() for p in shop.iterdir()}
    ep = str(ROOT / _catalogue()["srm-even-pixels"]["measured"][0]["result"])
    weights = tmp_path / "w.safetensors"
    shutil.copy(shop / _catalogue()["srm-counting-stars"]["file"], weights)
    rc = _module().main(["srm-counting-stars", str(weights), *_stars_results(), ep, "--status", "x",
                         "--weights-dir", str(shop)])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "\n" not in err
    assert "not the shipped" in err and _catalogue()["srm-counting-stars"]["sha256"][:12] in err
    assert {p.name: p.read_bytes() for p in shop.iterdir()} == before


def test_a_new_entry_needs_its_card_and_a_result(shop, tmp_path, capsys) -> None:
    weights = shop / _catalogue()["srm-counting-stars"]["file"]
    mod = _module()
    assert mod.main(["srm-new", str(weights), *_stars_results(), "--status", "x", "--weights-dir", str(shop)]) == 1
    assert "--card" in capsys.readouterr().err
    assert mod.main(["srm-new", str(weights), "--status", "x", "--card", "c", "--weights-dir", str(shop)]) == 1
    assert "at least one result" in capsys.readouterr().err


def test_weights_of_another_run_need_their_own_card(shop, capsys) -> None:
    """Weights that saw fewer images than the shipped entry's are another run, not its continuation: the old
    card would describe the wrong training, so --card is required; given, the entry is written."""
    catalogue = json.loads((shop / "models.json").read_text())
    entry = catalogue["srm-counting-stars"]
    entry["trained"]["images"] += 1  # the shipped weights as if they had seen one image more than these
    (shop / "models.json").write_text(json.dumps(catalogue))
    weights = shop / entry["file"]
    mod = _module()
    args = ["srm-counting-stars", str(weights), *_stars_results()[:1], "--status", "x", "--weights-dir", str(shop)]
    assert mod.main(args) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not its continuation" in err and "--card" in err
    assert mod.main([*args, "--card", "NVIDIA H200 (1 GPU)", "--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out)["srm-counting-stars"]["trained"]["card"] == "NVIDIA H200 (1 GPU)"


def test_shipping_under_a_new_file_name_pins_it_and_removes_the_old_file(shop, tmp_path) -> None:
    old = _catalogue()["srm-counting-stars"]
    weights = tmp_path / "o-s2s.safetensors"
    shutil.copy(shop / old["file"], weights)
    rc = _module().main(["srm-counting-stars", str(weights), *_stars_results()[:2], "--status", "new status",
                         "--file", "renamed.safetensors", "--date", "2030-01-01", "--weights-dir", str(shop)])
    assert rc == 0
    entry = json.loads((shop / "models.json").read_text())["srm-counting-stars"]
    assert entry["file"] == "renamed.safetensors" and (shop / "renamed.safetensors").read_bytes() == weights.read_bytes()
    assert not (shop / old["file"]).exists() and not list(shop.glob("*.tmp"))
    assert entry["sha256"] == old["sha256"] and entry["status"] == "new status"
    assert entry["trained"] == {**old["trained"], "date": "2030-01-01"}
    assert entry["measured"] == old["measured"][:2]
    others = {k: v for k, v in json.loads((shop / "models.json").read_text()).items() if k != "srm-counting-stars"}
    assert others == {k: v for k, v in _catalogue().items() if k != "srm-counting-stars"}


def test_new_results_of_the_same_weights_keep_their_date(shop, capsys) -> None:
    """Re-shipping the very weights (new result rows, e.g. under a new evaluator) does not make them look
    trained today: without --date the old entry's date stays; an explicit --date still wins."""
    old = _catalogue()["srm-counting-stars"]
    args = ["srm-counting-stars", str(shop / old["file"]), *_stars_results()[:1], "--status", "s",
            "--weights-dir", str(shop), "--dry-run"]
    assert _module().main(args) == 0
    assert json.loads(capsys.readouterr().out)["srm-counting-stars"]["trained"]["date"] == old["trained"]["date"]
    assert _module().main([*args, "--date", "2030-01-01"]) == 0
    assert json.loads(capsys.readouterr().out)["srm-counting-stars"]["trained"]["date"] == "2030-01-01"


def test_a_partner_is_recorded_from_its_results_and_kept_until_dropped(shop, tmp_path, capsys) -> None:
    """--partner: results of weights that do not ship become one partner per weights hash, every figure read from
    them; a later ship without --partner keeps it, --no-partners drops it; the shipped weights' own result and the
    two flags together are refused with one line and nothing written."""
    mod = _module()
    weights = shop / _catalogue()["srm-counting-stars"]["file"]
    ep = [ROOT / m["result"] for m in _catalogue()["srm-even-pixels"]["measured"][:2]]
    base = ["srm-counting-stars", str(weights), *_stars_results(), "--status", "x", "--weights-dir", str(shop)]
    assert mod.main([*base, "--partner", *map(str, ep)]) == 0
    capsys.readouterr()
    entry = json.loads((shop / "models.json").read_text())["srm-counting-stars"]
    (partner,) = entry["partners"]
    t = json.loads(ep[0].read_text())["model"]["training"]
    assert partner["sha256"] == t["checkpoint_sha256"] == _catalogue()["srm-even-pixels"]["sha256"]
    assert (partner["baseline"], partner["preset"], partner["trained"]["images"]) == (
        t["baseline"], t["preset"], t["images"])
    assert partner["measured"] == [mod.measured_row(p, partner["sha256"]) for p in ep]
    assert mod.main(base) == 0  # kept without --partner
    assert json.loads((shop / "models.json").read_text())["srm-counting-stars"]["partners"] == [partner]
    before = (shop / "models.json").read_bytes()
    own = _stars_results()[:1]
    for extra, words in ((["--partner", *own], "shipped weights themselves"),
                         (["--partner", str(ep[0]), "--no-partners"], "contradict")):
        capsys.readouterr()
        assert mod.main([*base, *extra]) == 1
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and words in err
        assert (shop / "models.json").read_bytes() == before
    assert mod.main([*base, "--no-partners"]) == 0
    assert "partners" not in json.loads((shop / "models.json").read_text())["srm-counting-stars"]
