"""Issue 13: results you can trust. Each test names the numbered case of the issue it covers."""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import srm_bench
import srm_bench.evaluation as evaluation
from srm_bench.errors import SrmBenchError
from srm_bench.samples import write_samples


@pytest.fixture(scope="module")
def easy_ds(easy_small):
    return srm_bench.load_dataset(easy_small)


def _samples(tmp_path: Path, ds, images=None, name="s.h5", **kw) -> Path:
    kw.setdefault("index", np.arange(ds.count))
    kw.setdefault("model", {"name": "m", "provenance": "user"})
    return write_samples(tmp_path / name, ds.images() if images is None else images, task="sudoku", split="easy",
                         dataset_sha256=ds.content_sha256, **kw)


@pytest.fixture()
def same_second(monkeypatch):
    """Every result is stamped with one creation time, as two runs started in the same second are."""
    import datetime as dt
    import types

    import srm_bench.results as results

    fixed = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
    fake = types.SimpleNamespace(timezone=dt.timezone, datetime=types.SimpleNamespace(now=lambda tz=None: fixed))
    monkeypatch.setattr(results, "_dt", fake)


# ------------------------------------------------------------------ case 1 and 9: result files


def test_case1_results_of_one_second_do_not_collide(easy_small, easy_ds, tmp_path, same_second):
    good = _samples(tmp_path, easy_ds, name="good.h5")
    broken = easy_ds.images().copy()
    broken[::2] = 0  # every other puzzle blanked: accuracy 0.5
    bad = _samples(tmp_path, easy_ds, broken, name="bad.h5")
    out = tmp_path / "r"
    a, a_path = evaluation.evaluate(good, reference=easy_small, out=out)
    b, b_path = evaluation.evaluate(bad, reference=easy_small, out=out)
    assert a_path is not None and b_path is not None
    assert a_path != b_path and a["created"] == b["created"]
    assert len(list(out.iterdir())) == 4
    for path in (a_path, b_path):
        res = json.loads(path.read_text())
        csv = pd.read_csv(out / res["per_sample_file"])
        assert csv["accuracy"].mean() == res["metrics"]["accuracy"]["value"]
    with pytest.raises(SrmBenchError, match="never overwritten"):  # the same result again: refused, first kept
        evaluation.evaluate(good, reference=easy_small, out=out)
    assert len(list(out.iterdir())) == 4


def test_case9_bad_provenance_leaves_nothing(easy_small, easy_ds, tmp_path):
    path = _samples(tmp_path, easy_ds, model={"name": "m", "provenance": "bogus"})
    with pytest.raises(SrmBenchError, match="provenance"):
        evaluation.evaluate(path, reference=easy_small, out=tmp_path / "r")
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())


def test_case9_a_failed_json_write_removes_the_csv(easy_small, easy_ds, tmp_path, monkeypatch):
    path = _samples(tmp_path, easy_ds)
    real = evaluation._create_exclusive

    def full_disk(p, data):
        if p.suffix == ".json":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(p, data)

    monkeypatch.setattr(evaluation, "_create_exclusive", full_disk)
    with pytest.raises(SrmBenchError, match="No space left"):
        evaluation.evaluate(path, reference=easy_small, out=tmp_path / "r")
    assert list((tmp_path / "r").iterdir()) == []


# ------------------------------------------------------------------ case 3: one puzzle scored many times


def test_case3_one_puzzle_scored_many_times_is_refused(easy_small, easy_ds, tmp_path):
    first = np.repeat(easy_ds.images()[:1], easy_ds.count, axis=0)
    path = _samples(tmp_path, easy_ds, first, index=np.zeros(easy_ds.count, dtype=np.int64))
    with pytest.raises(SrmBenchError, match=r"names 1 puzzle\(s\) more than once \(0\)"):
        evaluation.evaluate(path, reference=easy_small, out=tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_case3_samples_hash_covers_the_index():
    from srm_bench.shards import array_sha256

    images = np.arange(4 * 252 * 252, dtype=np.uint64).astype(np.uint8).reshape(4, 252, 252, 1)
    plain = evaluation.samples_sha256(images)
    assert plain == array_sha256(images)  # results written before the index was hashed keep their hash
    assert evaluation.samples_sha256(images, np.arange(4)) == plain
    shifted = evaluation.samples_sha256(images, np.array([1, 2, 3, 4]))
    assert shifted != plain and shifted != evaluation.samples_sha256(images, np.array([4, 3, 2, 1]))


# ------------------------------------------------------------------ cases 2 and 4: the leaderboard


def _honest(d: Path, name: str, flags, **kw) -> dict:
    """A result and its per-sample CSV that agree, as `srm-bench evaluate` writes them."""
    from test_leaderboard import make_result
    from srm_bench.results import rate_metric

    flags = np.asarray(flags, dtype=bool)
    res = make_result(n=flags.size, metrics={"accuracy": rate_metric(flags)}, samples_sha=name * 64, **kw)
    res["per_sample_file"] = f"{name}.per_sample.csv"
    d.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"sample": np.arange(flags.size), "accuracy": flags}).to_csv(d / res["per_sample_file"], index=False)
    (d / f"{name}.json").write_text(json.dumps(res))
    return res


def _forge(res: dict, **metric) -> dict:
    res = json.loads(json.dumps(res))
    res["metrics"]["accuracy"].update(metric)
    return res


FORGERIES = {
    "json says 1.0, csv says 0.5": (dict(value=1.0, ci95=[0.99, 1.0]), "but a.per_sample.csv gives 0.5"),
    "accuracy 7": (dict(value=7.0, ci95=[6.0, 8.0]), "rates lie in [0, 1]"),
    "negative": (dict(value=-3.0, ci95=[-4.0, -2.0]), "rates lie in [0, 1]"),
    "infinite": (dict(value=float("-inf")), "must be finite"),
    "nan": (dict(value=float("nan")), "must be finite"),
    "reversed interval": (dict(ci95=[0.6, 0.4]), "outside its interval"),
    "rate as a mean": (dict(kind="mean"), "the evaluator scores it as rate"),
    "n too large": (dict(n=5000), "n = 5000"),
}


@pytest.mark.parametrize("case", list(FORGERIES))
def test_case2_forged_metrics_are_refused(tmp_path, caplog, case):
    from srm_bench.leaderboard.store import load_entries

    change, message = FORGERIES[case]
    d = tmp_path / "res"
    res = _honest(d, "a", [True, False] * 50)
    (d / "a.json").write_text(json.dumps(_forge(res, **change)))
    _honest(d, "b", [True] * 10 + [False] * 90)
    with caplog.at_level("WARNING", logger="srm_bench.leaderboard.store"):
        entries = load_entries([d])
    assert [Path(e.path).name for e in entries] == ["b.json"]
    (line,) = [r.getMessage() for r in caplog.records]
    assert "a.json" in line and message in line


def test_case2_missing_or_swapped_csv_is_refused(tmp_path):
    from srm_bench.leaderboard.store import load_entries

    d = tmp_path / "res"
    _honest(d, "a", [True, False] * 50)
    (d / "a.per_sample.csv").unlink()
    res = _honest(d, "b", [True, False] * 50)
    res["per_sample_sha256"] = "0" * 64
    (d / "b.json").write_text(json.dumps(res))
    problems: list[str] = []
    assert load_entries([d], problems) == []
    assert "per-sample file a.per_sample.csv is missing" in problems[0] and "per_sample_sha256" in problems[1]


@pytest.mark.parametrize("provenance", ["paper", "baseline", "oracle"])
def test_case2_provenance_must_be_backed(tmp_path, provenance):
    from srm_bench.leaderboard.store import load_entries

    d = tmp_path / "res"
    _honest(d, "a", [True] * 100, provenance=provenance)
    problems: list[str] = []
    assert load_entries([d], problems) == []
    assert f"provenance {provenance!r}" in problems[0] or f"provenance '{provenance}'" in problems[0]


def test_case2_a_copy_of_a_committed_oracle_keeps_its_provenance_only_with_its_figures(tmp_path):
    import shutil

    from srm_bench.leaderboard.store import checkout_results_dir, load_entries
    from srm_bench.results import per_sample_path

    src = checkout_results_dir() / "oracles" / "sudoku-easy-oracle-greedy-20261126T021223Z.json"
    d = tmp_path / "res"
    d.mkdir()
    shutil.copy(src, d / src.name)
    shutil.copy(per_sample_path(src.parent, json.loads(src.read_text())["per_sample_file"]), d)
    (entry,) = load_entries([d])
    assert entry.result["model"]["provenance"] == "oracle"  # `make demo` reproduces it: shown as an oracle
    res = json.loads(src.read_text())
    res["metrics"]["min_confidence"]["value"] += 5e-5  # inside its interval, off the committed figure
    (d / src.name).write_text(json.dumps(res))
    problems: list[str] = []
    assert load_entries([d], problems) == [] and "provenance 'oracle'" in problems[0]


def test_case2_a_copy_with_other_figures_pushes_nothing_out(tmp_path):
    from srm_bench.leaderboard.store import load_entries

    d = tmp_path / "res"
    real = _honest(d, "z", [True, False] * 50)
    (d / "0-first.per_sample.csv").write_text("sample,accuracy\n" + "".join(f"{i},True\n" for i in range(100)))
    forged = _forge(real, value=1.0, ci95=[0.963, 1.0])
    forged["per_sample_file"] = "0-first.per_sample.csv"
    forged["metrics"]["accuracy"]["ci95"] = list(__import__("srm_bench.stats", fromlist=["x"]).wilson_interval(100, 100))
    (d / "0-first.json").write_text(json.dumps(forged))
    problems: list[str] = []
    assert load_entries([d], problems) == []  # same samples, two different scores: neither is shown
    assert len(problems) == 2 and all("different metrics" in p for p in problems)


def test_case4_deeply_nested_json_does_not_stop_the_leaderboard(tmp_path):
    from srm_bench.leaderboard.store import load_entries

    d = tmp_path / "res"
    _honest(d, "b", [True] * 10 + [False] * 90)
    (d / "a.json").write_text("[" * 100_000 + "]" * 100_000)
    problems: list[str] = []
    assert [Path(e.path).name for e in load_entries([d], problems)] == ["b.json"]
    assert problems == [f"{d / 'a.json'}: skipped, JSON nested too deeply to be a result"]


def test_case2_leaderboard_verify(tmp_path):
    from click.testing import CliRunner

    from srm_bench.cli import cli

    runner = CliRunner()
    ok = runner.invoke(cli, ["leaderboard", "--verify"])
    assert ok.exit_code == 0, ok.output
    assert "every result passes" in ok.output
    d = tmp_path / "res"
    _honest(d, "b", [True] * 10 + [False] * 90)
    (d / "b.json").write_text(json.dumps(_forge(json.loads((d / "b.json").read_text()), value=0.9, ci95=[0.8, 0.95])))
    import shutil

    _honest(d, "e", [True] * 50 + [False] * 50)
    shutil.copy(d / "e.json", d / "f.json")  # a duplicate is warned about, not a failure
    bad = runner.invoke(cli, ["leaderboard", "--verify", "-r", str(d), "--no-committed", "--no-paper"])
    assert bad.exit_code == 1 and "1 of 2 result(s) failed" in str(bad.exception)
    problems: list[str] = []
    from srm_bench.leaderboard.store import load_entries

    load_entries([d], problems)
    assert len(problems) == 1 and "b.json" in problems[0]


def test_case3_an_ignored_puzzle_cannot_top_the_sudoku_table(tmp_path):
    """The neighbouring puzzle's solution is a valid grid (accuracy 1.0) but keeps few givens."""
    from test_leaderboard import make_result

    from srm_bench.leaderboard.store import default_dirs, load_frame
    from srm_bench.leaderboard.tables import LAYOUTS, build_table, render
    from srm_bench.results import rate_metric

    d = tmp_path / "res"
    d.mkdir()
    ignores = {"accuracy": rate_metric(np.ones(500, bool)), "givens_kept": rate_metric(np.arange(500) < 25)}
    solves = {"accuracy": rate_metric(np.arange(500) < 250), "givens_kept": rate_metric(np.ones(500, bool))}
    (d / "a.json").write_text(json.dumps(make_result(model="ignores", metrics=ignores, samples_sha="a" * 64)))
    (d / "b.json").write_text(json.dumps(make_result(model="solves", metrics=solves, samples_sha="b" * 64)))
    weaker = {"accuracy": rate_metric(np.arange(500) < 100), "givens_kept": rate_metric(np.ones(500, bool))}
    (d / "c.json").write_text(json.dumps(make_result(model="weaker", metrics=weaker, samples_sha="c" * 64)))
    frame = load_frame(default_dirs([d], paper=False, checkout=False))
    table = build_table(frame, LAYOUTS["table1"])
    acc = {r.labels["model"]: r.cells[-1] for r in table.rows}
    assert acc["ignores"].flagged and not acc["ignores"].bold and acc["solves"].bold
    text = render(frame, "md", task="sudoku")
    assert "1.000 ± 0.004 †" in text and "givens kept below 1.0" in text
    assert r"$^\dagger$" in render(frame, "latex", task="sudoku")


def test_case15_latex_escapes_backslashes(tmp_path):
    from test_leaderboard import make_result

    from srm_bench.leaderboard.store import default_dirs, load_frame
    from srm_bench.leaderboard.tables import render

    d = tmp_path / "res"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(make_result(model=r"\input /etc/hostname")))
    latex = render(load_frame(default_dirs([d], paper=False, checkout=False)), "latex", task="sudoku")
    assert r"\input" not in latex and r"\textbackslash{}input /etc/hostname" in latex


# ------------------------------------------------------------------ cases 5, 6, 8, 11, 12, 14, 15: generate


def _gen(out, n=20, **kw):
    kw.setdefault("shard_size", 10)
    return srm_bench.generate("sudoku", "train", n=n, out=out, progress=False, **kw)


def test_case6_a_smaller_n_never_shrinks_a_finished_dataset(tmp_path):
    out = _gen(tmp_path / "d", n=30)
    with pytest.raises(SrmBenchError, match="finished sudoku/train dataset \\(30 items.*--overwrite"):
        _gen(out, n=10)
    with pytest.raises(SrmBenchError, match="--overwrite"):
        _gen(out, n=30, seed=1)
    assert srm_bench.load_dataset(out, verify=True).count == 30
    assert srm_bench.load_dataset(_gen(out, n=10, overwrite=True), verify=True).count == 10


def test_case6_an_unfinished_run_is_not_cut_either(tmp_path):
    out = _gen(tmp_path / "d", n=30)
    (out / "manifest.json").unlink()  # as if killed before the manifest
    with pytest.raises(SrmBenchError, match="would delete; pass --overwrite"):
        _gen(out, n=10)
    assert len(list(out.glob("*.h5"))) == 3
    assert srm_bench.load_dataset(_gen(out, n=30)).count == 30  # the same command resumes


def test_case8_one_run_per_output_directory(tmp_path):
    import fcntl

    from srm_bench.generation import LOCK

    out = tmp_path / "d"
    out.mkdir()
    with open(out / LOCK, "a") as held:  # another generate holds the directory
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SrmBenchError, match="another 'srm-bench generate' is writing into this directory"):
            _gen(out)
    assert not list(out.glob("*.h5"))
    assert srm_bench.load_dataset(_gen(out)).count == 20  # released: the next run goes ahead


def test_case14_resume_rehashes_kept_shards(tmp_path):
    import h5py

    out = _gen(tmp_path / "d")
    shard = sorted(out.glob("*.h5"))[0]
    with h5py.File(shard, "r+") as f:  # damage the content, keep every attr
        name = next(iter(f["items"]))
        arr = f["items"][name][()]
        arr.flat[0] = arr.flat[0] + 1 if arr.dtype != bool else not arr.flat[0]
        f["items"][name][...] = arr
    (out / "manifest.json").unlink()
    _gen(out)
    srm_bench.load_dataset(out, verify=True)


def test_case5_full_disk_is_one_line(tmp_path, monkeypatch):
    import srm_bench.generation as generation

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(generation, "write_shard", full)
    with pytest.raises(SrmBenchError, match=r"cannot write \(No space left on device\); free space"):
        _gen(tmp_path / "d")


@pytest.mark.parametrize("kw, message", [
    (dict(seed=-1), "--seed must be"), (dict(seed=2**64), "--seed must be"),
    (dict(shard_size=0), "--shard-size must be at least 1"), (dict(n=10**15), "-n must be in"),
    (dict(n=10**8, shard_size=1), "raise --shard-size"),
])
def test_case11_case15_absurd_options_are_refused(tmp_path, kw, message):
    with pytest.raises(SrmBenchError, match=message):
        _gen(tmp_path / "d", **kw)


def _generate_with_two_workers(out: Path, stderr, wait_s: float):
    """Start a long two-worker generate run; (process, worker pids) once both workers exist
    (fewer pids if they never started within ``wait_s``)."""
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "srm_bench.cli", "-q", "generate", "sudoku", "--split", "train",
                             "-n", "2000000", "--shard-size", "2000", "-j", "2", "-o", str(out)],
                            stderr=stderr, text=True)
    children: list[int] = []
    deadline = time.time() + wait_s
    while time.time() < deadline and len(children) < 2:
        time.sleep(0.2)
        try:
            children = [int(c) for c in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        except OSError:
            break
    return proc, children


def _process_state(pid: int) -> str:
    """The state letter of /proc/PID/stat, or "gone"."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_case12_ctrl_c_is_one_line_exit_130_and_workers_die(tmp_path):
    import signal
    import subprocess
    import time

    out = tmp_path / "d"
    proc, children = _generate_with_two_workers(out, subprocess.PIPE, 120)
    assert len(children) == 2, "the two workers never started"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("interrupted;") and "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    time.sleep(1.0)
    for pid in children:
        state = _process_state(pid)
        assert state in ("gone", "Z", "X"), f"worker {pid} still running ({state})"
    assert not list(out.glob(".*.tmp"))


def test_case12_workers_of_a_sigkilled_run_die_with_it(tmp_path):
    import signal
    import subprocess
    import time

    proc, children = _generate_with_two_workers(tmp_path / "d", subprocess.DEVNULL, 60)
    try:
        assert len(children) == 2, "the two workers never started"
        time.sleep(1.0)  # both at work on a shard
    finally:
        proc.kill()  # SIGKILL: no handler runs in the parent; only PR_SET_PDEATHSIG can stop the workers
        proc.wait(timeout=30)

    def alive(pid: int) -> bool:
        return _process_state(pid) not in ("gone", "Z", "X")

    deadline = time.time() + 10
    while time.time() < deadline and any(alive(pid) for pid in children):
        time.sleep(0.1)
    left = [pid for pid in children if alive(pid)]
    for pid in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their SIGKILLed parent"


# ------------------------------------------------------------------ case 13: verify


@pytest.fixture(scope="module")
def small_ds(tmp_path_factory):
    return srm_bench.generate("sudoku", "easy", n=20, shard_size=10, out=tmp_path_factory.mktemp("v") / "d",
                              progress=False)


def _set(path, value):
    def edit(m):
        obj = m
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
        return m
    return edit


MANIFEST_EDITS = {
    "task": (_set(["task"], "even-pixels"), "task does not match"),
    "split": (_set(["split"], "hard"), "split does not match"),
    "seed": (_set(["seed"], 7), "seed does not match"),
    "count": (_set(["count"], 21), "the manifest says 21"),
    "config": (_set(["config", "split"], "medium"), "config does not match"),
    "source": (_set(["source"], {"digits": "elsewhere"}), "source does not match"),
    "format_version": (_set(["format_version"], 2), "format_version 2"),
    "task_version": (_set(["task_version"], 9), "task_version does not match"),
    "shard count": (_set(["shards", 1, "count"], 11), "the manifest says 20"),
    "shard derived hash": (_set(["shards", 0, "derived_sha256", "images"], "0" * 64), "derived_sha256 does not match"),
    "no shards": (_set(["shards"], []), "lists no shards"),
    "shards a string": (_set(["shards"], "abc"), "'shards' has the wrong type"),
    "shard without file": (lambda m: {**m, "shards": [{k: v for k, v in e.items() if k != "file"} for e in m["shards"]]},
                           "lacks file"),
    "path out of the directory": (_set(["shards", 0, "file"], "../../x.h5"), "not a file in the dataset directory"),
    "absolute path": (_set(["shards", 0, "file"], "/etc/passwd"), "not a file in the dataset directory"),
    "not an object": (lambda m: [m], "not a JSON object"),
    "seed a string": (_set(["seed"], "0"), "'seed' has the wrong type"),
}


@pytest.mark.parametrize("case", list(MANIFEST_EDITS))
def test_case13_verify_catches_every_manifest_edit(small_ds, tmp_path, case):
    import shutil

    from click.testing import CliRunner

    from srm_bench.cli import cli

    edit, message = MANIFEST_EDITS[case]
    d = tmp_path / "d"
    shutil.copytree(small_ds, d)
    m = json.loads((d / "manifest.json").read_text())
    (d / "manifest.json").write_text(json.dumps(edit(m)))
    res = CliRunner().invoke(cli, ["verify", str(d)])
    assert res.exit_code == 1 and isinstance(res.exception, SrmBenchError), res.output
    assert message in str(res.exception) and "\n" not in str(res.exception)
    info = CliRunner().invoke(cli, ["info", str(d)])  # info never reports what the shards are not
    assert info.exit_code == 0 or isinstance(info.exception, SrmBenchError)


def test_case13_verify_reports_extra_and_missing_files(small_ds, tmp_path):
    import shutil

    from click.testing import CliRunner

    from srm_bench.cli import cli

    d = tmp_path / "d"
    shutil.copytree(small_ds, d)
    (d / "notes.txt").write_text("mine")
    res = CliRunner().invoke(cli, ["verify", str(d)])
    assert res.exit_code == 0 and "warning: 1 file(s) that are not part of the dataset: notes.txt" in res.output
    shutil.copy(d / "sudoku-easy-00000.h5", d / "sudoku-easy-00007.h5")
    res = CliRunner().invoke(cli, ["verify", str(d)])
    assert res.exit_code == 1 and "shard file(s) not in the manifest (sudoku-easy-00007.h5)" in str(res.exception)
    (d / "sudoku-easy-00000.h5").unlink()
    (d / "sudoku-easy-00001.h5").unlink()
    res = CliRunner().invoke(cli, ["verify", str(d)])
    assert res.exit_code == 1 and "2 shard(s) listed in the manifest are missing" in str(res.exception)


# ------------------------------------------------------------------ cases 7 and 10: evaluate's bad inputs


def _h5(path, arr=None, group=False, shape=None, **attrs):
    import h5py

    with h5py.File(path, "w") as f:
        if group:
            f.create_group("samples")
        elif shape is not None:
            f.create_dataset("samples", shape=shape, dtype=np.uint8, chunks=(1,) + shape[1:], compression="gzip")
        else:
            f.create_dataset("samples", data=arr)
        for k, v in attrs.items():
            f.attrs[k] = v
    return path


EP = dict(task="even-pixels", split="test")
EP_IMG = np.zeros((2, 32, 32, 3), np.uint8)


def _npy_as_npz(p):
    np.save(p.with_suffix(".npy"), EP_IMG)
    p.with_suffix(".npy").rename(p)
    return p


BAD_EVALUATE = {
    "zero float samples": (lambda p: _h5(p, np.zeros((0, 32, 32, 3), np.float32), range="0,1", **EP), [], "holds no samples"),
    "attr task=5": (lambda p: _h5(p, EP_IMG, task=5, split="test"), [], "attr 'task' must be a string"),
    "model name 123": (lambda p: _h5(p, EP_IMG, model=json.dumps({"name": 123}), dataset_sha256="ab" * 32, **EP), [],
                       "non-empty string 'name'"),
    "samples a group": (lambda p: _h5(p, group=True, **EP), [], "is an HDF5 group"),
    "declares 11.8 GiB": (lambda p: _h5(p, shape=(200000, 252, 252), task="sudoku", split="hard"), [],
                          "more than this machine can hold"),
    "npy renamed npz": (lambda p: _npy_as_npz(p.with_suffix(".npz")), ["-t", "even-pixels", "-s", "test"],
                        "not an .npz archive"),
    "zip garbage npz": (lambda p: (p.with_suffix(".npz").write_bytes(b"PK\x03\x04" + bytes(100)), p.with_suffix(".npz"))[1],
                        ["-t", "even-pixels", "-s", "test"], "not a readable .npz"),
    "source not JSON": (lambda p: _h5(p, EP_IMG, dataset_sha256="ab" * 32, source="foreign", **EP), [], "attr 'source'"),
    "source a list": (lambda p: _h5(p, EP_IMG, dataset_sha256="ab" * 32, source="[1]", **EP), [], "attr 'source' must be"),
    "device bogus": (lambda p: _h5(p, EP_IMG, **EP), ["--device", "bogus"], "not a device torch knows"),
    "device cuda:99": (lambda p: _h5(p, EP_IMG, **EP), ["--device", "cuda:99"], "no such CUDA device"),
    "batch size 0": (lambda p: _h5(p, EP_IMG, **EP), ["--batch-size", "0"], "--batch-size must be"),
    "batch size -4": (lambda p: _h5(p, EP_IMG, **EP), ["--batch-size", "-4"], "--batch-size must be"),
    "floats of [0, 1] declared -1,1": (lambda p: _h5(p, np.full((2, 32, 32, 3), 0.5, np.float32), range="-1,1", **EP), [],
                                       "pass --range 0,1"),
}


@pytest.mark.parametrize("case", list(BAD_EVALUATE))
def test_case7_case10_bad_inputs_give_one_line_and_no_file(tmp_path, case):
    from click.testing import CliRunner

    from srm_bench.cli import cli

    make, args, message = BAD_EVALUATE[case]
    path = make(tmp_path / "s.h5")
    res = CliRunner().invoke(cli, ["evaluate", str(path), "--out", str(tmp_path / "r"), *args])
    assert isinstance(res.exception, SrmBenchError), (res.output, res.exception)
    assert message in str(res.exception) and "\n" not in str(res.exception)
    assert not (tmp_path / "r").exists()


def test_case10_palette_pngs_are_read_as_their_colours(easy_small, easy_ds, tmp_path):
    from PIL import Image

    pngs = tmp_path / "png"
    pngs.mkdir()
    images = easy_ds.images()
    for i, im in enumerate(images):  # an adaptive palette: the stored indices are not the grey levels
        Image.fromarray(im[..., 0]).convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE, colors=256).save(pngs / f"{i}.png")
    first = Image.open(pngs / "0.png")
    assert first.mode == "P" and not np.array_equal(np.asarray(first), images[0, ..., 0])
    assert np.array_equal(np.asarray(first.convert("L")), images[0, ..., 0])
    res, path = evaluation.evaluate(pngs, task="sudoku", split="easy", reference=easy_small, out=None)
    assert res["metrics"]["accuracy"]["value"] == 1.0 and path is None


# ------------------------------------------------------------------ case 15 and the newcomer's list


def test_case15_results_of_an_unknown_task_or_split_are_refused_with_a_warning(tmp_path):
    from test_leaderboard import make_result

    from srm_bench.leaderboard.store import load_entries

    d = tmp_path / "res"
    d.mkdir()
    (d / "task.json").write_text(json.dumps(make_result(task="chess", samples_sha="1" * 64)))
    (d / "split.json").write_text(json.dumps(make_result(split="expert", samples_sha="2" * 64)))
    problems: list[str] = []
    assert load_entries([d], problems) == []
    assert "unknown task 'chess'" in problems[1] and "unknown split 'expert'" in problems[0]


def test_newcomer_quiet_after_the_command_single_test_split_and_info_npz(tmp_path):
    from click.testing import CliRunner

    from srm_bench.cli import cli

    runner = CliRunner()
    res = runner.invoke(cli, ["generate", "even-pixels", "-n", "3", "-o", str(tmp_path / "ep"), "-q"])
    assert res.exit_code == 0 and "even-pixels/test" in res.output, res.output  # --split defaults to the only test split
    np.savez(tmp_path / "s.npz", arr_0=np.zeros((2, 32, 32, 3), np.uint8))
    res = runner.invoke(cli, ["info", str(tmp_path / "s.npz")])
    assert res.exit_code == 0 and "arr_0" in res.output and "uint8 (2, 32, 32, 3)" in res.output
    res = runner.invoke(cli, ["evaluate", str(tmp_path / "s.npz"), "-t", "even-pixels", "--no-save", "--json",
                              "--reference", str(tmp_path / "ep")])
    assert isinstance(res.exception, SrmBenchError) or res.exit_code == 0, res.exception
    assert "--split" not in str(res.exception or "")


def test_newcomer_oracle_has_a_default_output(easy_small, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from srm_bench.cli import cli

    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["oracle", "sudoku", "--strategy", "greedy", "--split", "easy",
                                   "--reference", str(easy_small)])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "oracle-greedy-easy.h5").is_file()


@pytest.mark.parametrize("command", [["generate"], ["evaluate"], ["info"], ["verify"], ["oracle"], ["oracle", "sudoku"],
                                     ["train-evaluator"], ["leaderboard"], ["plot"], ["plot", "difficulty"],
                                     ["plot", "overlap"], ["plot", "samples"]])
def test_newcomer_every_command_help_has_an_example(command):
    from click.testing import CliRunner

    from srm_bench.cli import cli

    res = CliRunner().invoke(cli, [*command, "--help"])
    assert res.exit_code == 0 and "Example" in res.output, res.output


def test_case7_an_npz_declaring_terabytes_is_refused_before_reading(tmp_path):
    import zipfile

    from srm_bench.samples import read_samples
    from srm_bench.registry import get_task

    header = tmp_path / "h.npy"
    with open(header, "wb") as f:  # a valid header declaring 10^7 Sudoku images, and no data
        np.lib.format.write_array_header_1_0(f, {"descr": "|u1", "fortran_order": False, "shape": (10**7, 252, 252)})
    path = tmp_path / "s.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.write(header, "arr_0.npy")
    with pytest.raises(SrmBenchError, match="more than this machine can hold"):
        read_samples(path, lambda attrs: get_task("sudoku"))
    np.savez(tmp_path / "ok.npz", arr_0=np.zeros((1, 252, 252), np.uint8))
    assert read_samples(tmp_path / "ok.npz", lambda attrs: get_task("sudoku")).images.shape == (1, 252, 252, 1)


# ------------------------------------------------------------------ case 10: samples of one task scored as another

CS_IMG = np.zeros((2, 128, 128, 3), np.uint8)


def _canonical_hash(task: str) -> str:
    from srm_bench.canonical import pinned

    return pinned(task, "test")["content_sha256"]


@pytest.mark.parametrize("attrs, task, message", [
    ({"task": "counting-stars", "split": "test"}, "counting-polygons", "samples are of task 'counting-stars', not 'counting-polygons'"),
    ({"task": "counting-polygons", "split": "test"}, "counting-stars", "samples are of task 'counting-polygons', not 'counting-stars'"),
    # no task attr, but a dataset hash that is the other task's canonical set
    ({"dataset_sha256": "STARS"}, "counting-polygons", "is the canonical counting-stars/test set"),
    ({"dataset_sha256": "POLYGONS"}, "counting-stars", "is the canonical counting-polygons/test set"),
])
def test_case10_samples_of_another_task_are_refused(tmp_path, attrs, task, message):
    from click.testing import CliRunner

    from srm_bench.cli import cli

    attrs = {k: (_canonical_hash(f"counting-{v.lower()}") if k == "dataset_sha256" else v) for k, v in attrs.items()}
    path = _h5(tmp_path / "s.h5", CS_IMG, **attrs)
    res = CliRunner().invoke(cli, ["evaluate", str(path), "--task", task, "--split", "test", "--out", str(tmp_path / "r")])
    assert isinstance(res.exception, SrmBenchError), (res.output, res.exception)
    assert message in str(res.exception) and "\n" not in str(res.exception)
    assert not (tmp_path / "r").exists()


def test_case10_samples_without_a_task_name_the_look_alike_in_a_warning(tmp_path, caplog):
    from srm_bench.registry import get_task

    with caplog.at_level("WARNING"):
        evaluation._check_task_without_attr(get_task("counting-polygons"), {}, tmp_path / "s.npz")
    assert "counting-stars samples have the same size" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING"):  # nothing looks like Sudoku: no warning
        evaluation._check_task_without_attr(get_task("sudoku"), {}, tmp_path / "s.npz")
    assert caplog.text == ""
    # the task's own canonical hash passes
    evaluation._check_task_without_attr(get_task("counting-stars"), {"dataset_sha256": _canonical_hash("counting-stars")},
                                        tmp_path / "s.h5")


# ------------------------------------------------------------------ case 11: -n against the disk and memory


def _refused_by_cli(args, capsys) -> str:
    from srm_bench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["generate", *args, "-q"])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 1 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_case11_n_is_checked_against_the_free_disk_before_any_work(tmp_path, monkeypatch, capsys):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**12, 10**12 - 10**6, 10**6))  # 1 MB free
    out = tmp_path / "d"
    err = _refused_by_cli(["sudoku", "--split", "train", "-n", "100000", "-o", str(out)], capsys)
    assert "needs about" in err and "MiB of disk" in err and "976.6 KiB is free" in err
    assert not list(out.glob("*.h5")) and not list(out.glob(".*.tmp"))
    _gen(out, n=20)  # small enough: made
    # a resume counts only the items still to make
    for p in sorted(out.glob("*.h5"))[1:]:
        p.unlink()
    (out / "manifest.json").unlink()
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**12, 10**12, 100))
    with pytest.raises(SrmBenchError, match="for the 20 items still to make, but 100 bytes is free"):
        _gen(out, n=30)
    assert len(list(out.glob("*.h5"))) == 1


def test_case11_n_is_checked_against_the_memory_available(tmp_path, monkeypatch, capsys):
    import srm_bench.samples as samples

    monkeypatch.setattr(samples, "_available_memory", lambda: 2 * 2**20)  # 2 MiB
    out = tmp_path / "d"
    # one shard of 500 Sudoku images (252x252) is ~30 MiB raw
    err = _refused_by_cli(["sudoku", "--split", "easy", "-n", "100", "-o", str(out)], capsys)
    assert "MiB of memory (1 shard(s) of 500 items at once), but 2.0 MiB is available" in err
    assert not list(out.glob("*.h5"))
    srm_bench.generate("sudoku", "easy", n=10, shard_size=10, out=out, progress=False)  # 10 images fit


# ------------------------------------------------------------------ per-sample files stored gzip-compressed


def test_a_compressed_per_sample_file_checks_as_the_plain_one(tmp_path):
    import gzip
    import hashlib

    from leaderboard.compress import compress_tree, main
    from srm_bench.leaderboard.store import load_entries

    d = tmp_path / "res"
    res = _honest(d, "a", [True, False, False] * 40)
    csv = d / "a.per_sample.csv"
    res["per_sample_sha256"] = hashlib.sha256(csv.read_bytes()).hexdigest()
    (d / "a.json").write_text(json.dumps(res))
    text = csv.read_bytes()
    assert compress_tree([d])[:1] == (1,)
    assert not csv.exists() and gzip.decompress((d / "a.per_sample.csv.gz").read_bytes()) == text
    assert main([str(d)]) == 0  # a second pass finds nothing left to do
    problems: list[str] = []
    (entry,) = load_entries([d], problems)
    assert problems == [] and entry.result["metrics"]["accuracy"]["value"] == pytest.approx(40 / 120)
    # the hash is of the CSV text, so a changed verdict inside the gzip is caught
    (d / "a.per_sample.csv.gz").write_bytes(gzip.compress(text.replace(b"True", b"False", 1), mtime=0))
    assert load_entries([d], problems) == [] and "does not match the per_sample_sha256" in problems[0]
    (d / "a.per_sample.csv.gz").write_bytes(b"\x1f\x8b not gzip")
    problems.clear()
    assert load_entries([d], problems) == [] and "not a readable gzip file" in problems[0]


def test_compress_leaves_a_csv_that_does_not_match_its_hash(tmp_path, capsys):
    from leaderboard.compress import main

    d = tmp_path / "res"
    res = _honest(d, "b", [True] * 10)
    res["per_sample_sha256"] = "0" * 64
    (d / "b.json").write_text(json.dumps(res))
    assert main([str(d)]) == 1
    out = capsys.readouterr().out
    assert "b.per_sample.csv: does not match the per_sample_sha256 of its result; left as it is (b.json)" in out
    assert (d / "b.per_sample.csv").is_file() and not (d / "b.per_sample.csv.gz").exists()
    assert main([str(tmp_path / "nowhere")]) == 1

