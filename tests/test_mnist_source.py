"""Reading real MNIST IDX files (--mnist DIR) and the embedded digit source."""
from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest

import srm_bench
from srm_bench.digits import EMBEDDED_SHA256, embedded_digits, mnist_idx_digits, pool_for, select_pool
from srm_bench.errors import SrmBenchError


def _write_idx(path, arr: np.ndarray, gz: bool) -> None:
    header = bytes([0, 0, 0x08, arr.ndim]) + b"".join(struct.pack(">I", d) for d in arr.shape)
    data = header + arr.astype(np.uint8).tobytes()
    (gzip.open if gz else open)(path, "wb").write(data)


@pytest.fixture(scope="module")
def idx_dir(tmp_path_factory):
    """An MNIST-format folder: the embedded digits shifted by -1, 0, +1 pixels (15,000 digits)."""
    d = tmp_path_factory.mktemp("mnist")
    ds = embedded_digits()
    images = np.concatenate([np.roll(ds.images, s, axis=2) for s in (-1, 0, 1)])
    labels = np.concatenate([ds.labels] * 3)
    _write_idx(d / "train-images-idx3-ubyte.gz", images, gz=True)
    _write_idx(d / "train-labels-idx1-ubyte.gz", labels, gz=True)
    _write_idx(d / "t10k-images-idx3-ubyte", ds.images[:100], gz=False)
    _write_idx(d / "t10k-labels-idx1-ubyte", ds.labels[:100], gz=False)
    return d


def test_embedded_digits_are_pinned() -> None:
    ds = embedded_digits()
    assert ds.images.shape == (5000, 28, 28) and ds.sha256 == EMBEDDED_SHA256
    assert np.bincount(ds.labels).tolist() == [500] * 10


def test_idx_reader(idx_dir) -> None:
    tr = mnist_idx_digits(idx_dir, "train")
    te = mnist_idx_digits(idx_dir, "test")
    assert tr.images.shape == (15000, 28, 28) and te.images.shape == (100, 28, 28)
    np.testing.assert_array_equal(te.images, embedded_digits().images[:100])


def test_truncated_and_missing_idx(tmp_path, idx_dir) -> None:
    data = (idx_dir / "t10k-images-idx3-ubyte").read_bytes()
    (tmp_path / "train-images-idx3-ubyte").write_bytes(data[:-10])
    (tmp_path / "train-labels-idx1-ubyte").write_bytes((idx_dir / "t10k-labels-idx1-ubyte").read_bytes())
    with pytest.raises(SrmBenchError, match="truncated"):
        mnist_idx_digits(tmp_path)
    with pytest.raises(SrmBenchError, match="no t10k-images"):
        mnist_idx_digits(tmp_path, "test")
    with pytest.raises(SrmBenchError, match="not a directory"):
        mnist_idx_digits(tmp_path / "nothing")


def test_generate_with_mnist_dir(idx_dir, tmp_path) -> None:
    pool = pool_for(str(idx_dir))
    assert pool.k == 1000 and pool.images.shape == (9, 1000, 28, 28)
    out = srm_bench.generate("sudoku", "easy", n=8, out=tmp_path / "e", mnist=str(idx_dir), progress=False)
    ds = srm_bench.load_dataset(out)
    assert ds.source()["digits"].startswith("mnist-idx:train:")
    assert ds.items["instance"].dtype == np.uint16
    res = srm_bench.evaluate(out, out=None)
    assert res["metrics"]["solved"]["value"] == 1.0


def test_pool_needs_enough_readable_digits() -> None:
    with pytest.raises(SrmBenchError, match="need 1000"):
        select_pool(embedded_digits(), 1000)


def test_cli_mnist_option(idx_dir, tmp_path) -> None:
    from click.testing import CliRunner

    from srm_bench.cli import cli

    res = CliRunner().invoke(cli, ["generate", "sudoku", "--split", "hard", "-n", "4", "--mnist", str(idx_dir),
                                   "-o", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
    assert "not the canonical" not in res.output  # n differs, so no canonical claim either way
    assert srm_bench.load_dataset(tmp_path / "h").config["digits"]["k"] == 1000
