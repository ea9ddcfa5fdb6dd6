"""Issue 13: a table-driven fuzz of bad inputs across evaluate, verify and the leaderboard.

Every input must give a result or one SrmBenchError line (exit 1), never another exception,
and leave no result file. Kept fast: one leaderboard load for all results, tiny datasets.
"""
from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import srm_bench
from srm_bench.cli import cli
from srm_bench.errors import SrmBenchError

ODD = [None, -1, 0, 10**30, 1e308, float("nan"), "x", "", [], [1, 2], {}, {"a": 1}, True]


def _leaves(obj, prefix=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, prefix + (k,))
    yield prefix


def _set(obj, path, value):
    obj = copy.deepcopy(obj)
    if not path:
        return value
    target = obj
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return obj


def test_fuzz_leaderboard_never_crashes_and_shows_nothing_impossible(tmp_path):
    from srm_bench.leaderboard.store import default_dirs, load_entries, load_frame
    from srm_bench.leaderboard.tables import render

    src = Path(__file__).resolve().parents[1] / "leaderboard" / "results" / "oracles"
    base = json.loads((src / "sudoku-easy-oracle-greedy-20261126T021223Z.json").read_text())
    base["model"]["provenance"] = "user"
    from srm_bench.results import per_sample_path, read_per_sample_bytes

    csv = read_per_sample_bytes(per_sample_path(src, base["per_sample_file"])).decode()  # committed files are .gz
    d = tmp_path / "res"
    d.mkdir()
    cases = 0
    for path in {p for p in _leaves(base)}:
        for value in ODD:
            (d / f"r{cases}.json").write_text(json.dumps(_set(base, path, value)))
            cases += 1
    (d / base["per_sample_file"]).write_text(csv)
    assert cases >= 200
    problems: list[str] = []
    entries = load_entries([d], problems)
    for e in entries:  # whatever is shown can be true
        for m in e.result["metrics"].values():
            assert math.isfinite(m["value"])
            if m["kind"] == "rate":
                assert 0 <= m["value"] <= 1
    frame = load_frame(default_dirs([d], paper=False, checkout=False))
    for fmt in ("md", "latex", "html", "csv", "json"):
        render(frame, fmt)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return srm_bench.generate("sudoku", "easy", n=4, shard_size=2, out=tmp_path_factory.mktemp("f") / "d", progress=False)


MANIFEST_KEYS = ["format", "format_version", "task", "task_version", "split", "seed", "count", "config", "source",
                 "content_sha256", "images_sha256", "shards"]
SHARD_KEYS = ["file", "index_start", "count", "content_sha256", "derived_sha256"]


@pytest.mark.parametrize("where", MANIFEST_KEYS + [f"shards.{k}" for k in SHARD_KEYS])
def test_fuzz_verify_never_crashes(tiny, tmp_path, where):
    runner = CliRunner()
    d = tmp_path / "d"
    for value in ODD:
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(tiny, d)
        m = json.loads((d / "manifest.json").read_text())
        path = ("shards", 0, where.split(".")[1]) if where.startswith("shards.") else (where,)
        target = m
        for k in path[:-1]:
            target = target[k]
        if target[path[-1]] == value:
            continue
        target[path[-1]] = value
        (d / "manifest.json").write_text(json.dumps(m))
        for cmd in (["verify", str(d)], ["info", str(d)]):
            res = CliRunner().invoke(cli, cmd)
            assert res.exception is None or isinstance(res.exception, SrmBenchError), (where, value, cmd, res.exception)
        res = runner.invoke(cli, ["verify", str(d)])
        if where not in ("images_sha256",):  # a stored-images hash of another kind is only checked where images are
            assert res.exit_code == 1, (where, value, res.output)


ATTRS = {"task": "even-pixels", "split": "test", "dataset_sha256": "ab" * 32}


@pytest.mark.parametrize("key", ["task", "split", "range", "dataset_sha256", "model", "source", "samples_dtype"])
def test_fuzz_evaluate_attrs_never_crash(tmp_path, key):
    import h5py

    for k, value in enumerate(ODD + ["{}", "[]", '{"name": 5}', '{"provenance": "paper"}']):
        p = tmp_path / f"s{k}.h5"
        arr = np.zeros((2, 32, 32, 3), np.uint8)
        with h5py.File(p, "w") as f:
            attrs = dict(ATTRS)
            if key == "samples_dtype":
                try:
                    arr = np.asarray(np.full(arr.shape, value if not isinstance(value, (dict, list)) or value else 0))
                except (TypeError, ValueError, OverflowError):
                    continue
                if arr.dtype == object:
                    continue
            else:
                attrs[key] = value
            try:
                f.create_dataset("samples", data=arr)
            except TypeError:  # a dtype HDF5 cannot store (unicode): nothing to score
                continue
            for a, v in attrs.items():
                if v is None:
                    continue
                try:
                    f.attrs[a] = json.dumps(v) if isinstance(v, (dict, list)) else v
                except (TypeError, ValueError):
                    pass
        out = tmp_path / "r"
        res = CliRunner().invoke(cli, ["evaluate", str(p), "--out", str(out)])
        assert res.exception is None or isinstance(res.exception, SrmBenchError), (key, value, res.exception)
        if res.exception is not None:
            assert not out.exists() or not any(out.iterdir()), (key, value)
            assert "\n" not in str(res.exception)
        shutil.rmtree(out, ignore_errors=True)
