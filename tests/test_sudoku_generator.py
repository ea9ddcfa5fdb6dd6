"""MNIST Sudoku generation: validity, splits, determinism, held-out grids, canonical hashes."""
from __future__ import annotations

import numpy as np
import pytest

import srm_bench
from srm_bench.canonical import pinned
from srm_bench.generation import get_generator
from srm_bench.seeding import item_rng
from srm_bench.generators.sudoku import (
    GIVENS, apply_symmetry, base_grid, equivalent, random_solution, relabel, symmetry_invariant,
)
from srm_bench.evaluators.sudoku import sudoku_l1

GEN = get_generator("sudoku")


def _items(split: str, start: int, stop: int, seed: int = 0) -> dict[str, np.ndarray]:
    cfg = GEN.make_config(split=split, seed=seed)
    return GEN.generate_items(cfg, GEN.shared_arrays(cfg), start, stop)


@pytest.mark.parametrize("split", ["train", "easy", "medium", "hard"])
def test_grids_are_valid_and_givens_in_range(split: str) -> None:
    it = _items(split, 0, 400)
    assert it["grid"].dtype == np.uint8 and it["grid"].min() == 1 and it["grid"].max() == 9
    assert (sudoku_l1(it["grid"]) == 0).all()
    n_given = it["mask"].sum((1, 2))
    lo, hi = GIVENS[split]
    assert n_given.min() >= lo and n_given.max() <= hi
    # uniform over the range: both halves are hit and the mean is near the middle
    assert abs(n_given.mean() - (lo + hi) / 2) < 0.15 * (hi - lo + 1)


def test_givens_reach_both_ends_of_each_range() -> None:
    for split in ("easy", "medium", "hard"):
        lo, hi = GIVENS[split]
        n_given = _items(split, 0, 1500)["mask"].sum((1, 2))
        assert n_given.min() == lo and n_given.max() == hi, split


def test_random_access_matches_bulk_generation() -> None:
    bulk = _items("train", 0, 50)
    part = _items("train", 20, 30)
    for k in bulk:
        np.testing.assert_array_equal(bulk[k][20:30], part[k])


def test_symmetry_keeps_validity_and_covers_transforms() -> None:
    g = random_solution(np.random.default_rng(1))
    u = np.random.default_rng(2).random((200, 25))
    out = apply_symmetry(np.repeat(g[None], 200, 0), u)
    out = relabel(out, np.random.default_rng(3).random((200, 9)).argsort(1))
    assert (sudoku_l1(out) == 0).all()
    assert len({o.tobytes() for o in out}) == 200


def test_content_independent_of_workers_and_shard_size(tmp_path) -> None:
    a = srm_bench.generate("sudoku", "train", n=300, out=tmp_path / "a", shard_size=300, progress=False)
    b = srm_bench.generate("sudoku", "train", n=300, out=tmp_path / "b", shard_size=70, workers=2, progress=False)
    da, db = srm_bench.load_dataset(a), srm_bench.load_dataset(b)
    assert da.content_sha256 == db.content_sha256
    assert len(db.manifest["shards"]) == 5
    for k in da.items:
        np.testing.assert_array_equal(da.items[k], db.items[k])


def test_other_seed_gives_other_content(tmp_path) -> None:
    a = srm_bench.load_dataset(srm_bench.generate("sudoku", "easy", n=20, out=tmp_path / "a", progress=False))
    b = srm_bench.load_dataset(srm_bench.generate("sudoku", "easy", n=20, seed=1, out=tmp_path / "b", progress=False))
    assert a.content_sha256 != b.content_sha256


def test_stored_images_equal_rendered_images(easy_small) -> None:
    ds = srm_bench.load_dataset(easy_small)
    assert ds.stored_images is not None and ds.stored_images.shape == (60, 252, 252, 1)
    rendered = GEN.render(ds.config, ds.shared, ds.items)
    np.testing.assert_array_equal(ds.stored_images, rendered)
    compact = srm_bench.load_dataset(easy_small, images=False)
    np.testing.assert_array_equal(compact.images(np.arange(5, 9)), rendered[5:9])


def test_resume_keeps_finished_shards(tmp_path) -> None:
    out = srm_bench.generate("sudoku", "train", n=40, out=tmp_path / "r", shard_size=10, progress=False)
    first = sorted(out.glob("*.h5"))
    mtimes = {p.name: p.stat().st_mtime_ns for p in first}
    first[-1].unlink()  # as if the run had been killed while writing the last shard
    (out / f".{first[-1].name}.4242.tmp").write_bytes(b"half a shard")
    (out / "manifest.json").unlink()
    srm_bench.generate("sudoku", "train", n=40, out=out, shard_size=10, progress=False)
    again = {p.name: p.stat().st_mtime_ns for p in out.glob("*.h5")}
    assert set(again) == set(mtimes)
    assert not list(out.glob(".*.tmp"))
    assert all(again[k] == mtimes[k] for k in list(mtimes)[:-1])
    srm_bench.load_dataset(out, verify=True)


def test_invariant_and_equivalence_see_symmetries() -> None:
    g = random_solution(np.random.default_rng(5))
    u = np.random.default_rng(6).random((30, 25))
    out = relabel(apply_symmetry(np.repeat(g[None], 30, 0), u), np.random.default_rng(7).random((30, 9)).argsort(1))
    assert {symmetry_invariant(o) for o in out} == {symmetry_invariant(g)}
    assert equivalent(g, out[0]) and equivalent(out[3], out[11])
    assert not equivalent(g, random_solution(np.random.default_rng(8)))


def test_test_grids_are_held_out_from_train_grid_classes() -> None:
    """No test grid is equivalent (under Sudoku symmetries) to any train base grid."""
    cfg = GEN.make_config(split="train", seed=0)
    classes = cfg["grid_classes"]
    train_inv: dict[tuple, list[int]] = {}
    for k in range(classes):
        train_inv.setdefault(symmetry_invariant(base_grid(0, k)), []).append(k)
    assert len(train_inv) > 0.99 * classes  # the fingerprint separates almost all classes
    checked = 0
    for split in ("easy", "medium", "hard"):
        for g in _items(split, 0, 500)["grid"]:
            for k in train_inv.get(symmetry_invariant(g), []):  # rare fingerprint collisions
                assert not equivalent(g, base_grid(0, k)), (split, k)
                checked += 1
    assert checked < 20
    train = _items("train", 0, 2000)
    assert set(np.unique(train["grid_class"])) <= set(range(classes))


def test_canonical_hashes_are_pinned_and_reproduced(hard_dir) -> None:
    ds = srm_bench.load_dataset(hard_dir)
    pin = pinned("sudoku", "hard")
    assert pin is not None and pin["count"] == 500
    assert ds.content_sha256 == pin["content_sha256"]
    assert ds.manifest["images_sha256"] == pin["images_sha256"]
    for split in ("easy", "medium", "hard"):
        assert pinned("sudoku", split) is not None


def test_item_rng_is_keyed_by_split_and_index() -> None:
    a = item_rng(0, "sudoku/hard", 3).random(4)
    assert not np.allclose(a, item_rng(0, "sudoku/easy", 3).random(4))
    assert not np.allclose(a, item_rng(0, "sudoku/hard", 4).random(4))
    assert np.allclose(a, item_rng(0, "sudoku/hard", 3).random(4))


def test_torch_dataset(easy_small) -> None:
    import torch

    from srm_bench.generators.sudoku import SudokuTorchDataset

    ds = SudokuTorchDataset(str(easy_small))
    assert len(ds) == 60
    item = ds[7]
    assert item["image"].shape == (1, 252, 252) and item["image"].dtype == torch.float32
    assert item["image"].min() >= -1 and item["image"].max() <= 1
    raw = srm_bench.load_dataset(easy_small).images(np.array([7]))[0, :, :, 0]
    assert torch.allclose((item["image"][0] + 1) * 127.5, torch.from_numpy(raw.astype(np.float32)), atol=1e-3)
    batch = next(iter(torch.utils.data.DataLoader(ds, batch_size=4)))
    assert batch["mask"].shape == (4, 9, 9) and batch["grid"].dtype == torch.int64
