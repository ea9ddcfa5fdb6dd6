"""Issue 13: results you can trust. Each test names the numbered case of the issue it covers."""
from __future__ import annotations

import errno
import json
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
    a = evaluation.evaluate(good, reference=easy_small, out=out)
    b = evaluation.evaluate(bad, reference=easy_small, out=out)
    assert a["_path"] != b["_path"] and a["created"] == b["created"]
    assert len(list(out.iterdir())) == 4
    for r in (a, b):
        res = json.loads(Path(r["_path"]).read_text())
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
