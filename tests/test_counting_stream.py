"""The Counting training stream: banks of train-split images rendered in the background,
drawn on the device, the same whatever the workers, resumable with seek(), closed cleanly."""
from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest
import torch

from srm_bench.baselines.streams import (STREAMS, CountingPolygonsStream, CountingStarsStream, CountingStream,
                                         make_stream)
from srm_bench.errors import SrmBenchError
from srm_bench.generation import get_generator

SMALL = dict(bank_size=8, refresh=2)


def draws(stream: CountingStream, steps: range, n: int = 4) -> list[torch.Tensor]:
    """The batches of ``steps``, each drawn under the torch seed of its step (as BatchMaker does)."""
    out = []
    for k in steps:
        torch.manual_seed(1000 + k)
        out.append(stream.draw(n).x)
    return out


def as_uint8(x: torch.Tensor) -> np.ndarray:
    return np.round((x.permute(0, 2, 3, 1).numpy() + 1) * 127.5).astype(np.uint8)


@pytest.fixture(scope="module")
def reference() -> list[torch.Tensor]:
    """Draws 0-7 (banks 0-3) of an uninterrupted stream."""
    with CountingPolygonsStream("cpu", workers=2, **SMALL) as s:
        return draws(s, range(8))


def test_draws_are_images_in_minus_one_one(reference: list[torch.Tensor]) -> None:
    x = reference[0]
    assert x.shape == (4, 3, 128, 128) and x.dtype == torch.float32
    assert -1.0 <= float(x.min()) and float(x.max()) <= 1.0
    assert float(x.std()) > 0.1  # a picture, not a constant


def test_banks_are_the_train_split_items_whatever_the_workers() -> None:
    gen = get_generator("counting-stars")
    config = gen.make_config(split="train", seed=3)
    banks = []
    for workers in (1, 2):
        with CountingStarsStream("cpu", data_seed=3, workers=workers, **SMALL) as s:
            seen = []
            for k in range(2 * s.refresh):  # banks 0 and 1
                s.draw(1)
                if k % s.refresh == 0:
                    seen.append((s.bank_index, s.bank.clone(), dict(s.items)))  # type: ignore[union-attr]
            banks.append(seen)
    for (g, b1, items1), (_, b2, _) in zip(*banks):
        assert torch.equal(b1, b2)
        # bank g = items g * 8 .. g * 8 + 7 of the train split, as 'generate --split train' renders them
        want_items = gen.generate_items(config, {}, g * 8, g * 8 + 8)
        want = gen.render(config, {}, want_items)
        np.testing.assert_array_equal(b1.permute(0, 2, 3, 1).numpy(), want)
        np.testing.assert_array_equal(items1["n_objects"], want_items["n_objects"])
    assert not torch.equal(banks[0][0][1], banks[0][1][1])  # bank 1 is new images


def test_draws_come_from_the_bank_of_their_index(reference: list[torch.Tensor]) -> None:
    gen = get_generator("counting-polygons")
    config = gen.make_config(split="train", seed=0)
    bank1 = gen.render(config, {}, gen.generate_items(config, {}, 8, 16))
    for x in reference[2:4]:  # draws 2 and 3 are served by bank 1
        for img in as_uint8(x):
            assert any(np.array_equal(img, b) for b in bank1)
    assert not any(torch.equal(reference[k], reference[k + 2]) for k in range(6))


def test_same_seed_same_draws(reference: list[torch.Tensor]) -> None:
    with CountingPolygonsStream("cpu", workers=1, **SMALL) as s:
        again = draws(s, range(8))
    for a, b in zip(reference, again):
        assert torch.equal(a, b)


@pytest.mark.parametrize("start", [3, 4])  # mid bank 1, then the first draw of bank 2
def test_seek_resumes_the_uninterrupted_stream(reference: list[torch.Tensor], start: int) -> None:
    with CountingPolygonsStream("cpu", workers=2, **SMALL) as s:
        s.seek(start)
        resumed = draws(s, range(start, 8))  # crosses at least one bank switch
        assert s.draws == 8
    for k, x in zip(range(start, 8), resumed):
        assert torch.equal(x, reference[k]), k


def test_seek_back_and_errors() -> None:
    with CountingPolygonsStream("cpu", workers=1, **SMALL) as s:
        a = draws(s, range(0, 3))
        s.seek(0)
        assert all(torch.equal(x, y) for x, y in zip(a, draws(s, range(0, 3))))
        with pytest.raises(SrmBenchError):
            s.seek(-1)
        assert s.wait_s > 0 and s.banks_served == 4  # banks 0, 1, then 0 and 1 again
    with pytest.raises(SrmBenchError):
        CountingStream("cpu", bank_size=0)
    with pytest.raises(SrmBenchError):
        CountingStream("cpu", workers=0)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live (or zombie) process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return bool(f.read())
    except FileNotFoundError:
        return False


def test_close_leaves_no_processes_or_files() -> None:
    s = CountingPolygonsStream("cpu", workers=2, **SMALL)
    s.draw(2)
    pids = list(s._pool._processes)  # the render workers
    folder = s._folder
    assert pids and all(_alive(p) for p in pids) and os.path.isdir(folder)
    s.close()
    s.close()  # twice is fine
    assert s.closed and not multiprocessing.active_children()
    assert not any(_alive(p) for p in pids) and not os.path.exists(folder)
    with pytest.raises(SrmBenchError, match="closed"):
        s.seek(10)
        s.draw(1)


def test_make_stream_knows_the_counting_tasks() -> None:
    assert STREAMS["counting-polygons"] is CountingPolygonsStream and STREAMS["counting-stars"] is CountingStarsStream
    s = make_stream("counting-stars", "cpu")  # the defaults: a 4096-image bank, closed before it is done
    try:
        assert isinstance(s, CountingStarsStream) and s.bank_size == 4096 and s.refresh == 300
        assert 1 <= s.workers <= 4
    finally:
        s.close()
    assert not multiprocessing.active_children()


def test_make_stream_takes_the_render_workers_of_counting_only() -> None:
    """``train --render-workers``: the Counting stream starts that many render processes; a task
    drawn on the device has none to set, and says so."""
    s = make_stream("counting-polygons", "cpu", batch=256, workers=3)  # not the default on a 2-core machine
    try:
        assert s.workers == 3 and s.refresh == 66
    finally:
        s.close()
    with pytest.raises(SrmBenchError, match="render-workers applies to the Counting tasks"):
        make_stream("even-pixels", "cpu", workers=2)
    assert not multiprocessing.active_children()


def test_train_hands_its_render_workers_to_the_stream(tmp_path, monkeypatch) -> None:
    import srm_bench.baselines.train as train_mod
    from srm_bench.baselines.presets import make_config

    seen = {}

    def fake_stream(task, device, **kw):
        seen.update(kw)
        raise SrmBenchError("stop here")

    monkeypatch.setattr(train_mod, "make_stream", fake_stream)
    with pytest.raises(SrmBenchError, match="stop here"):
        train_mod.train(make_config("counting-polygons", "srm", "tiny"), None, tmp_path / "run", device="cpu",
                        progress=False, render_workers=5)
    assert seen["workers"] == 5


def test_a_bank_serves_fewer_draws_at_a_larger_batch() -> None:
    """An image is drawn ~4.1 times while its bank is live, whatever the (global) batch: the
    paper's 56 keeps 300 draws a bank, the Counting campaign's 256 gets 66."""
    from srm_bench.baselines.streams import bank_refresh

    assert (bank_refresh(56), bank_refresh(256), bank_refresh(10**6)) == (300, 66, 1)
    assert bank_refresh(256, bank_size=8) == 1 and bank_refresh(2, bank_size=8) == 16
    with pytest.raises(SrmBenchError, match="batch must be at least 1"):
        bank_refresh(0)
    s = make_stream("counting-polygons", "cpu", batch=256)
    try:
        assert s.refresh == 66 and "66 draws each" in s.source["bank"]
    finally:
        s.close()


def test_forkserver_workers_render_the_same_bank_and_are_the_default_on_cuda() -> None:
    """On a CUDA device the workers must not be forked from the training process (CUDA is
    started there); forkserver renders the same bank as fork."""
    with CountingStarsStream("cpu", workers=1, start_method="forkserver", **SMALL) as s:
        s.draw(1)
        served = s.bank.clone()  # type: ignore[union-attr]
    with CountingStarsStream("cpu", workers=1, **SMALL) as s:
        s.draw(1)
        assert torch.equal(served, s.bank)  # type: ignore[arg-type]
    s = CountingStarsStream("cuda", workers=1, **SMALL)  # nothing is put on the device before a draw
    try:
        assert s._pool._mp_context.get_start_method() == "forkserver"  # type: ignore[attr-defined]
    finally:
        s.close()
