"""The shard format: content hashes, atomic writes, validation of what is read."""
from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

from srm_bench.errors import ChecksumError, SrmBenchError
from srm_bench.shards import ContentHasher, content_hash, read_shard, write_shard

ATTRS = {"task": "t", "task_version": 1, "split": "s", "seed": 0, "config": {"a": 1}, "srm_bench_version": "0"}


def _items(n: int, start: int = 0) -> dict[str, np.ndarray]:
    idx = np.arange(start, start + n)
    return {"x": (idx[:, None] * np.arange(5)).astype(np.int32), "flag": idx % 3 == 0}


def test_content_hash_does_not_depend_on_shard_boundaries() -> None:
    whole = content_hash(_items(100), {"pool": np.arange(7)})
    for cuts in ([0, 100], [0, 1, 100], [0, 33, 66, 100], list(range(0, 101, 10))):
        h = ContentHasher()
        for a, b in zip(cuts[:-1], cuts[1:]):
            h.update(_items(b - a, a), {"pool": np.arange(7)})
        assert h.hexdigest() == whole


def test_content_hash_sees_every_byte_dtype_and_shape() -> None:
    base = content_hash(_items(10))
    changed = _items(10)
    changed["x"][3, 2] += 1
    assert content_hash(changed) != base
    assert content_hash({**_items(10), "x": _items(10)["x"].astype(np.int64)}) != base
    assert content_hash({**_items(10), "x": _items(10)["x"].reshape(10, 5, 1)}) != base
    assert content_hash(_items(10), {"pool": np.arange(3)}) != base


def test_round_trip_and_verify(tmp_path) -> None:
    p = tmp_path / "a.h5"
    entry = write_shard(p, attrs={**ATTRS, "index_start": 0}, items=_items(20), shared={"pool": np.arange(4)},
                        derived={"images": np.zeros((20, 2, 2, 1), np.uint8)})
    shard = read_shard(p, verify=True)
    assert shard.attrs["content_sha256"] == entry["content_sha256"] == content_hash(_items(20), {"pool": np.arange(4)})
    assert shard.config == {"a": 1}
    np.testing.assert_array_equal(shard.items["x"], _items(20)["x"])
    assert not list(tmp_path.glob(".*tmp")), "temp file left behind"


def test_tampered_shard_fails_verification(tmp_path) -> None:
    p = tmp_path / "a.h5"
    write_shard(p, attrs={**ATTRS, "index_start": 0}, items=_items(20))
    with h5py.File(p, "r+") as f:
        f["items/x"][0, 1] = 999
    read_shard(p)  # structure is fine
    with pytest.raises(ChecksumError, match="does not match"):
        read_shard(p, verify=True)


def test_failed_write_leaves_nothing(tmp_path) -> None:
    p = tmp_path / "a.h5"
    with pytest.raises(SrmBenchError):
        write_shard(p, attrs={**ATTRS, "index_start": 0}, items={"x": np.zeros(3), "y": np.zeros(4)})
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [b"", b"not hdf5 at all", None])
def test_unreadable_files_give_one_line(tmp_path, content) -> None:
    p = tmp_path / "bad.h5"
    if content is None:  # a real shard cut in half
        write_shard(p, attrs={**ATTRS, "index_start": 0}, items=_items(2000))
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2])
    else:
        p.write_bytes(content)
    with pytest.raises(SrmBenchError) as err:
        read_shard(p)
    assert "\n" not in str(err.value)


def test_foreign_hdf5_is_refused(tmp_path) -> None:
    p = tmp_path / "foreign.h5"
    with h5py.File(p, "w") as f:
        f["data"] = np.zeros(3)
    with pytest.raises(SrmBenchError, match="not an srm-bench shard"):
        read_shard(p)


def test_manifest_written_by_generate_is_valid_json(easy_small) -> None:
    m = json.loads((easy_small / "manifest.json").read_text())
    assert m["count"] == 60 and m["task"] == "sudoku" and m["split"] == "easy"
    assert sum(s["count"] for s in m["shards"]) == 60
