"""Counting Polygons / Stars: layout, drawn content vs labels, determinism, backgrounds, evaluator."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

import srm_bench
from srm_bench.cli import main
from srm_bench.errors import ChecksumError, SrmBenchError
from srm_bench.dataset import load_dataset
from srm_bench.evaluators import counting as ev
from srm_bench.evaluators import train_counting as tc
from srm_bench.io import file_sha256
from srm_bench.generators import backgrounds as bgs
from srm_bench.generators import counting as cg

SHAPES = ("polygons", "stars")
GENS = {"polygons": cg.POLYGONS, "stars": cg.STARS}


def _items(shape: str, n: int, split: str = "test", mode: str = "benchmark", seed: int = 0):
    gen = GENS[shape]
    config = gen.make_config(split, seed, mode=mode)
    return gen, config, gen.generate_items(config, {}, 0, n)


def _circles(items: dict[str, np.ndarray], i: int) -> tuple[np.ndarray, np.ndarray]:
    n = int(items["n_objects"][i])
    xy = np.concatenate([items["object_xy"][i, :n], items["number_xy"][i]]).astype(np.float64)
    r = np.concatenate([items["object_radius"][i, :n], items["number_radius"][i]]).astype(np.float64)
    return xy, r


# ---------------------------------------------------------------------------- layout and labels

def test_layout_circles_are_disjoint_and_inside() -> None:
    rng = np.random.default_rng(1)
    for n in (3, 7, 11, 11, 11):
        for _ in range(40):
            xy, r = cg.sample_layout(rng, n)
            assert ((r >= 0.07) & (r <= 0.155)).all()
            assert ((xy - r[:, None] >= 0) & (xy + r[:, None] <= 1)).all()
            d = np.linalg.norm(xy[:, None] - xy[None], axis=-1)
            gap = d - (r[:, None] + r[None])
            assert (gap[~np.eye(n, dtype=bool)] >= 0).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_benchmark_items_follow_the_rule(shape: str) -> None:
    gen, _, items = _items(shape, 300)
    kmin, kmax = cg.SHAPES[shape]
    n, k = items["n_objects"].astype(int), items["vertices"].astype(int)
    assert set(n) == set(range(1, 10)) and set(k) == set(range(kmin, kmax + 1))
    assert (np.sort(items["numbers"], 1) == np.sort(np.stack([n, k], 1), 1)).all()
    assert items["consistent"].all() and items["rule_ok"].all()
    for i in range(300):
        assert (items["object_vertices"][i, :n[i]] == k[i]).all() and (items["object_vertices"][i, n[i]:] == 0).all()
        xy, r = _circles(items, i)
        d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) - (r[:, None] + r[None])
        assert (d[~np.eye(len(r), dtype=bool)] >= -1e-6).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_classifier_mode_breaks_the_rule_and_labels_say_so(shape: str) -> None:
    _, _, items = _items(shape, 400, split="train", mode="classifier")
    n, k = items["n_objects"].astype(int), items["vertices"].astype(int)
    pair_ok = (np.sort(items["numbers"], 1) == np.sort(np.stack([n, k], 1), 1)).all(1)
    consistent = np.array([len(set(items["object_vertices"][i, :n[i]])) == 1 for i in range(400)])
    assert (items["consistent"] == consistent).all()
    assert (items["rule_ok"] == (pair_ok & consistent)).all()
    assert 0.4 < pair_ok.mean() < 0.6  # digits broken in 50% of the images
    assert 0.1 < 1 - consistent.mean() < 0.35  # unequal vertex counts in ~25% of images with N >= 2
    assert ((items["numbers"] >= 1) & (items["numbers"] <= 9)).all()


def _area_and_perimeter(shape: str, k: int, r: float) -> tuple[float, float]:
    if shape == "polygons":
        return 0.5 * k * r * r * np.sin(2 * np.pi / k), 2 * k * r * np.sin(np.pi / k)
    ri = cg.STAR_INNER * r
    return k * r * ri * np.sin(np.pi / k), 2 * k * np.sqrt(r * r + ri * ri - 2 * r * ri * np.cos(np.pi / k))


@pytest.mark.parametrize("shape", SHAPES)
def test_drawn_content_matches_the_labels(shape: str) -> None:
    gen, config, items = _items(shape, 40)
    images = gen.render(config, {}, items)
    yy, xx = np.mgrid[0:128, 0:128] + 0.5
    for i in range(40):
        mask = cg.render_mask(shape, items, i)
        xy, r = _circles(items, i)
        dist = np.hypot(xx[..., None] - 128 * xy[:, 0], yy[..., None] - 128 * xy[:, 1]) - 128 * r
        # Nothing is drawn more than 3 pixels outside the circles; there the background is untouched.
        outside = (dist > 3).all(-1)
        assert mask[outside].max() == 0
        background = bgs.render_background(config["backgrounds"], items["background"][i])
        assert (images[i][outside] == background[outside]).all()
        # Fully covered pixels have exactly the image's colour, hsv(h, 1, 0.9) with h from the background.
        assert (images[i][mask == 255] == items["colour"][i]).all()
        assert items["hue"][i] == cg.least_frequent_hue(background)
        assert (items["colour"][i] == cg.object_colour(float(items["hue"][i]))).all()
        # Each object's coverage is its shape's area, plus at most a thin rim from the filled edge
        # pixels and the clipped ringing of the bicubic filter.
        for j in range(int(items["n_objects"][i])):
            k, rad = int(items["object_vertices"][i, j]), 128 * float(items["object_radius"][i, j])
            area, perimeter = _area_and_perimeter(shape, k, rad)
            got = mask[dist[..., j] <= 3].sum() / 255.0
            assert 0.93 * area - 1 <= got <= area + 0.4 * perimeter + 1


@pytest.mark.parametrize("shape", SHAPES)
def test_drawn_objects_have_the_labelled_vertex_counts(shape: str) -> None:
    """On the 512 canvas, each object's outline has K corners (polygons) or K points (stars)."""
    from skimage.measure import approximate_polygon, find_contours

    _, _, items = _items(shape, 12, mode="classifier", split="train")
    checked = 0
    for i in range(12):
        for j, polygons in enumerate(cg.object_polygons(shape, items, i)[: int(items["n_objects"][i])]):
            canvas = Image.new("L", (512, 512), 0)
            ImageDraw.Draw(canvas).polygon(polygons[0][0], fill=255)
            contour = max(find_contours(np.asarray(canvas, dtype=float), 127.5), key=len)
            centre = contour.mean(0)
            radius = np.linalg.norm(contour - centre, axis=1)
            k = int(items["object_vertices"][i, j])
            if shape == "polygons":
                ring = np.roll(contour[:-1], -int(radius[:-1].argmax()), axis=0)  # start at a corner
                pts = approximate_polygon(np.concatenate([ring, ring[:1]]), tolerance=1.5)[:-1]
                edges = np.roll(pts, -1, axis=0) - pts
                heading = np.arctan2(edges[:, 0], edges[:, 1])
                turn = np.abs((heading - np.roll(heading, 1) + np.pi) % (2 * np.pi) - np.pi)
                # A regular k-gon turns 2 pi / k at each corner (pixelation may split a corner in two).
                assert round(2 * np.pi / np.median(turn[turn > np.radians(15)])) == k
            else:
                far = radius[:-1] > 0.6 * radius.max()  # the contour along one spike is one run
                assert int((far & ~np.roll(far, 1)).sum()) == k
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("shape", SHAPES)
def test_patch_rendering_equals_the_whole_canvas(shape: str) -> None:
    """The atlas of per-object patches gives the 512 canvas resized (bicubic) to 128.

    Exceptions allowed: the 3-pixel image border (zero-padded here, renormalised by Pillow)
    and the rare pixel where two objects come within the filter's reach of each other.
    """
    _, _, items = _items(shape, 20)
    differ = 0
    for i in range(20):
        canvas = Image.new("L", (512, 512), 0)
        draw = ImageDraw.Draw(canvas)
        for polygons in cg.object_polygons(shape, items, i):
            for flat, hole in polygons:
                draw.polygon(flat, fill=0 if hole else 255)
        whole = np.asarray(canvas.resize((128, 128), Image.Resampling.BICUBIC)).astype(int)
        diff = np.abs(whole - cg.render_mask(shape, items, i).astype(int))[3:-3, 3:-3]
        differ += int((diff > 0).sum())
    assert differ <= 0.0005 * 20 * 122 * 122


def test_digit_outlines_cover_their_circle_centre() -> None:
    outlines = cg.digit_outlines()
    assert sorted(outlines) == list(range(1, 10))
    for d, polys in outlines.items():
        pts = np.concatenate([p for p, _ in polys])
        assert np.abs(pts).max() < 1.0 / cg.DIGIT_SIZE  # the glyph fits its circle
        assert sum(hole for _, hole in polys) == {4: 1, 6: 1, 8: 2, 9: 1}.get(d, 0)


# ---------------------------------------------------------------------------- determinism and canonical set

def test_content_does_not_depend_on_workers_or_shards(tmp_path: Path) -> None:
    a = srm_bench.generate("counting-stars", "test", n=24, out=tmp_path / "a", workers=1, progress=False)
    b = srm_bench.generate("counting-stars", "test", n=24, out=tmp_path / "b", workers=2, shard_size=5, progress=False)
    ma, mb = (json.loads((p / "manifest.json").read_text()) for p in (a, b))
    assert ma["content_sha256"] == mb["content_sha256"] and ma["images_sha256"] == mb["images_sha256"]
    ds = load_dataset(b)
    assert np.array_equal(ds.stored_images, GENS["stars"].render(ds.config, {}, ds.items))
    assert ma["source"]["backgrounds"] == "embedded-skimage-photos"


@pytest.mark.parametrize("task", ["counting-polygons", "counting-stars"])
def test_canonical_test_set_matches_its_pin(task: str, tmp_path: Path) -> None:
    from srm_bench.canonical import pinned

    pin = pinned(task, "test")
    assert pin is not None and pin["count"] == 500
    out = srm_bench.generate(task, "test", out=tmp_path / "t", progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["content_sha256"] == pin["content_sha256"]


# ---------------------------------------------------------------------------- backgrounds

def test_embedded_train_and_test_windows_are_disjoint() -> None:
    config = bgs.embedded_config()
    rng = np.random.default_rng(0)
    for split in ("train", "test"):
        for _ in range(400):
            k, s, y0, x0, flip = (int(v) for v in bgs.sample_background(config, split, rng))
            h, w, _ = bgs.scaled_photo(config["photos"][k], config["scales"][s]).shape
            along, length = (x0, w) if w >= h else (y0, h)
            cut = min(int(config["train_fraction"] * length), length - 128)
            if split == "train":
                assert along + 128 <= cut - bgs.CUT_GAP
            else:
                assert along >= cut and along + 128 <= length
            assert flip in (0, 1)


def _write_images(folder: Path, n: int) -> None:
    folder.mkdir()
    rng = np.random.default_rng(0)
    for i in range(n):
        Image.fromarray(rng.integers(0, 256, (128, 128, 3), dtype=np.uint8)).save(folder / f"{i:03d}.png")


def test_folder_backgrounds_split_95_5_by_sorted_name(tmp_path: Path) -> None:
    _write_images(tmp_path / "faces", 40)
    config = bgs.folder_config(tmp_path / "faces")
    assert bgs.folder_range(config, "train") == (0, 38) and bgs.folder_range(config, "test") == (38, 40)
    out = srm_bench.generate("counting-polygons", "test", n=12, out=tmp_path / "o", progress=False,
                             backgrounds=str(tmp_path / "faces"))
    ds = load_dataset(out)
    assert set(ds.items["background"][:, 0]) <= {38, 39}
    assert ds.manifest["source"]["backgrounds"] == "folder"
    i = 0
    outside = cg.render_mask("polygons", ds.items, i) == 0
    face = np.asarray(Image.open(tmp_path / "faces" / f"{ds.items['background'][i, 0]:03d}.png"))
    assert (ds.stored_images[i][outside] == face[outside]).all()


def _bad_folders(tmp_path: Path) -> dict[str, Path]:
    empty = tmp_path / "empty"
    empty.mkdir()
    text = tmp_path / "text"
    _write_images(text, 3)
    (text / "notes.txt").write_text("hello")
    broken = tmp_path / "broken"
    _write_images(broken, 3)
    (broken / "004.png").write_bytes(b"not a png at all")
    return {"empty": empty, "text": text, "broken": broken, "missing": tmp_path / "nope"}


@pytest.mark.parametrize("case, message", [
    ("empty", "needs at least 2 image files"), ("text", "notes.txt is not an image file"),
    ("broken", "004.png is not a readable image"), ("missing", "not a directory"),
])
def test_bad_background_folders_give_one_line(tmp_path: Path, case: str, message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = _bad_folders(tmp_path)[case]
    with pytest.raises(SystemExit) as exit_:
        main(["-q", "generate", "counting-stars", "--split", "test", "-n", "2", "--backgrounds", str(folder),
              "-o", str(tmp_path / "out")])
    assert exit_.value.code == 1
    captured = capsys.readouterr()
    lines = [ln for ln in (captured.out + captured.err).splitlines() if ln.strip()]
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("error: --backgrounds")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_unreadable_background_folder_gives_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()

    def refuse(self: Path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "iterdir", refuse)
    with pytest.raises(SrmBenchError, match="cannot list the folder"):
        bgs.folder_config(folder)


# ---------------------------------------------------------------------------- evaluator

def test_pair_index_matches_the_pair_table() -> None:
    a, b = np.meshgrid(np.arange(1, 10), np.arange(1, 10))
    got = ev.pair_index(a.ravel(), b.ravel())
    want = [ev.PAIR_INDEX[(min(x, y), max(x, y))] for x, y in zip(a.ravel(), b.ravel())]
    assert got.tolist() == want and sorted(set(want)) == list(range(45))


def test_decode_scores_by_the_rule() -> None:
    torch = pytest.importorskip("torch")

    def logits(pair: tuple[int, int], objects: int, present: list[int]) -> dict:
        p = torch.full((1, 45), -5.0)
        p[0, ev.PAIR_INDEX[pair]] = 5
        o = torch.full((1, 9), -5.0)
        o[0, objects - 1] = 5
        v = torch.full((1, 8), -5.0)
        for k in present:
            v[0, k - 2] = 5
        return {"pair": p, "objects": o, "vertices": v}

    # (pair, objects, vertex counts present, paper accuracy, strict accuracy, consistency);
    # with 5 and 6 equally present the head's best count is the first, 5: the paper's rule passes
    cases = [((3, 5), 3, [5], True, True, True), ((3, 5), 5, [3], True, True, True),
             ((3, 5), 4, [5], False, False, True), ((3, 5), 3, [5, 6], True, False, False),
             ((3, 5), 3, [6, 7], False, False, False), ((3, 5), 3, [], False, False, False),
             ((4, 4), 4, [4], True, True, True)]
    for pair, objects, present, acc, strict, con in cases:
        got = ev.decode(logits(pair, objects, present), vmin=2)
        assert bool(got["accuracy"][0]) is acc and bool(got["strict_accuracy"][0]) is strict
        assert bool(got["consistency"][0]) is con
        assert got["vertex_set"][0] == sum(1 << k for k in present)


def test_decode_reads_no_pair_and_no_object_as_never_accurate() -> None:
    """An open-set model's "no pair" (class 45) reads as digits (0, 0) and its "no object" (class 0)
    as 0 objects; neither meets the rule, whatever the other heads say."""
    torch = pytest.importorskip("torch")

    def logits(pair: int, objects: int, present: list[int]) -> dict:
        p, o, v = torch.full((1, 46), -5.0), torch.full((1, 10), -5.0), torch.full((1, 5), -5.0)
        p[0, pair], o[0, objects] = 5, 5
        for k in present:
            v[0, k - 3] = 5
        return {"pair": p, "objects": o, "vertices": v}

    good = ev.decode(logits(ev.PAIR_INDEX[(3, 4)], 3, [4]), vmin=3)  # 3 squares, digits 3 and 4
    assert good["accuracy"][0] and good["objects"][0] == 3 and (good["digit_a"][0], good["digit_b"][0]) == (3, 4)
    none = ev.decode(logits(ev.NO_PAIR, 3, [4]), vmin=3)
    assert not none["accuracy"][0] and (none["digit_a"][0], none["digit_b"][0]) == (0, 0) and none["consistency"][0]
    empty = ev.decode(logits(ev.PAIR_INDEX[(3, 4)], 0, []), vmin=3)
    assert not empty["accuracy"][0] and empty["objects"][0] == 0 and not empty["consistency"][0]
    # a pair head of another size is no counting classifier
    with pytest.raises(SrmBenchError, match="pair head of 44 classes"):
        ev.decode({"pair": torch.zeros(1, 44), "objects": torch.zeros(1, 9), "vertices": torch.zeros(1, 5)}, vmin=3)


def test_open_set_items_drop_numbers_or_objects_per_item_and_label_them() -> None:
    gen, config, items = _items("polygons", 600, split="train", mode="classifier")
    got = tc.open_set_items(items, 7, 0)
    assert (items["number_radius"] > 0).all() and (items["n_objects"] > 0).all()  # a copy: the items are kept
    both = (got["number_radius"] == 0).all(1)
    one = (got["number_radius"] == 0).sum(1) == 1
    empty = got["n_objects"] == 0
    assert not (empty & (both | one)).any()  # exclusive: every image keeps something drawn
    # the shares OPEN_SET asks for (10%, 10%, 5%), within 4 standard errors on 600 items
    for hit, p in ((both, 0.10), (one, 0.10), (empty, 0.05)):
        assert abs(hit.mean() - p) < 4 * (p * (1 - p) / 600) ** 0.5
    changed = both | one | empty
    assert not got["rule_ok"][changed].any() and np.array_equal(got["rule_ok"][~changed], items["rule_ok"][~changed])
    assert not got["consistent"][empty].any() and (got["object_vertices"][empty] == 0).all()
    labels = tc.labels_of(got, "polygons", open_set=True)
    assert (labels["pair"][both | one] == ev.NO_PAIR).all() and (labels["pair"][~(both | one)] < ev.NO_PAIR).all()
    assert (labels["objects"] == got["n_objects"]).all() and (labels["vertices"][empty] == 0).all()
    # each item's choice is its own: the same whatever block it is made in
    late = tc.open_set_items({k: v[300:] for k, v in items.items()}, 7, 300)
    assert all(np.array_equal(late[k], got[k][300:]) for k in got)
    # rendered: an image without objects holds only its two digits
    from srm_bench.generators.counting import render_mask
    i = int(np.flatnonzero(empty)[0])
    assert render_mask("polygons", got, i).sum() < render_mask("polygons", items, i).sum()


def test_widened_heads_read_as_the_closed_set_model_until_trained() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    closed = ev.build_model(5, width=4, layers=(1, 1, 1, 1)).eval()
    wide = ev.build_model(5, width=4, layers=(1, 1, 1, 1), open_set=True).eval()
    wide.load_state_dict(tc.widen_heads(closed.state_dict()))
    assert ev.is_open_set(wide.state_dict()["pair.weight"].shape[0])
    assert not ev.is_open_set(closed.state_dict()["pair.weight"].shape[0])
    x = torch.randn(16, 3, 128, 128)
    with torch.no_grad():
        a, b = ev.decode(closed(x), vmin=3), ev.decode(wide(x), vmin=3)
    for k in ("digit_a", "digit_b", "objects", "vertex_set", "accuracy"):
        assert np.array_equal(a[k], b[k]), k
    assert (b["objects"] >= 1).all()  # count n is class n in the widened head, class n - 1 in the closed one


def test_evaluator_version_follows_the_pin_and_the_pin_must_match_the_heads(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_weights("stars")
    assert ev.STARS.version == (3 if json.loads(ev.PINS_FILE.read_text())["counting-stars.safetensors"].get("open_set")
                                else 2)
    (tmp_path / "counting-stars.safetensors").write_bytes(ev.weights_path("stars").read_bytes())
    pins = json.loads(ev.PINS_FILE.read_text())
    pins["counting-stars.safetensors"]["open_set"] = not pins["counting-stars.safetensors"].get("open_set", False)
    (tmp_path / "counting-weights.json").write_text(json.dumps(pins))
    monkeypatch.setattr(ev, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(ev, "PINS_FILE", tmp_path / "counting-weights.json")
    assert ev.STARS.version == (3 if pins["counting-stars.safetensors"]["open_set"] else 2)
    ev.load_model.cache_clear()
    try:
        with pytest.raises(SrmBenchError, match="its pin in counting-weights.json says otherwise"):
            ev.load_model("stars")
    finally:
        ev.load_model.cache_clear()


def test_evaluator_rejects_wrong_image_shapes() -> None:
    with pytest.raises(SrmBenchError, match=r"\(N, 128, 128, 3\)"):
        ev.classify("stars", np.zeros((2, 64, 64, 3), np.uint8))


def _needs_weights(shape: str) -> None:
    if not ev.weights_path(shape).exists():
        pytest.skip(f"no shipped weights for counting-{shape}")


@pytest.mark.parametrize("shape", SHAPES)
def test_weights_are_small_and_pinned(shape: str) -> None:
    _needs_weights(shape)
    path = ev.weights_path(shape)
    assert path.stat().st_size <= 15 * 2 ** 20
    assert file_sha256(path) == json.loads(ev.PINS_FILE.read_text())[path.name]["sha256"]


@pytest.mark.parametrize("shape", SHAPES)
def test_classifier_reads_test_images_and_catches_changed_numbers(shape: str) -> None:
    _needs_weights(shape)
    gen, config, items = _items(shape, 48)
    got = ev.classify(shape, gen.render(config, {}, items), batch_size=48)
    assert got["accuracy"].mean() >= 0.9 and got["consistency"].mean() >= 0.9
    # Change one digit of each image to another value: the rule is broken, accuracy falls to ~0.
    wrong = {k: v.copy() for k, v in items.items()}
    n, k = items["n_objects"].astype(int), items["vertices"].astype(int)
    for i in range(48):
        shown = wrong["numbers"][i]
        shown[0] = next(d for d in (9, 8, 7, 1, 2) if sorted([d, int(shown[1])]) != sorted([n[i], k[i]]))
    got = ev.classify(shape, gen.render(config, {}, wrong), batch_size=48)
    assert got["accuracy"].mean() <= 0.1 and got["strict_accuracy"].mean() <= 0.1


def test_tampered_weights_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_weights("stars")
    bad = tmp_path / "counting-stars.safetensors"
    data = bytearray(ev.weights_path("stars").read_bytes())
    data[-1] ^= 1
    bad.write_bytes(bytes(data))
    (tmp_path / "counting-weights.json").write_text(ev.PINS_FILE.read_text())
    monkeypatch.setattr(ev, "WEIGHTS_DIR", tmp_path)
    monkeypatch.setattr(ev, "PINS_FILE", tmp_path / "counting-weights.json")
    ev.load_model.cache_clear()
    with pytest.raises(ChecksumError, match="differs from the pinned"):
        ev.load_model("stars")
    ev.load_model.cache_clear()


# ---------------------------------------------------------------------------- training (tiny, CPU)

_TINY = dict(n_train=8, n_test=4, steps=3, max_seconds=None, batch_size=2, lr=1e-3, device="cpu", workers=1,
             seed=3, progress=False, n_canonical=2)


def test_resumed_training_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    whole, report = tc.train_classifier("stars", **_TINY)
    assert report["steps_done"] == 3 and report["resumed_at_step"] == 0
    ckpt = tmp_path / "run.ckpt"
    # max_seconds=0 stops after the first step and leaves a checkpoint; the rerun does steps 2 and 3.
    _, first = tc.train_classifier("stars", **{**_TINY, "max_seconds": 0.0}, checkpoint=ckpt)
    assert first["steps_done"] == 1 and ckpt.exists()
    resumed, second = tc.train_classifier("stars", **_TINY, checkpoint=ckpt)
    assert second["resumed_at_step"] == 1 and second["steps_done"] == 3
    a, b = whole.state_dict(), resumed.state_dict()
    assert a.keys() == b.keys()
    for k in a:
        assert (a[k] == b[k]).all(), k
    assert second["held_out"] == report["held_out"]


def test_a_checkpoint_of_another_run_is_refused(tmp_path: Path) -> None:
    ckpt = tmp_path / "run.ckpt"
    tc.train_classifier("stars", **{**_TINY, "max_seconds": 0.0}, checkpoint=ckpt)
    with pytest.raises(SrmBenchError, match=r"belongs to another run: steps=3 \(now 5\)"):
        tc.train_classifier("stars", **{**_TINY, "steps": 5}, checkpoint=ckpt)
    ckpt.write_bytes(ckpt.read_bytes()[:1000])
    with pytest.raises(SrmBenchError, match="not a readable training checkpoint"):
        tc.train_classifier("stars", **_TINY, checkpoint=ckpt)


def test_train_command_keeps_the_checkpoint_only_when_stopped_early(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    args = ["train-evaluator", "counting-polygons", "-o", str(tmp_path), "--n-train", "8", "--n-test", "4",
            "--steps", "3", "--batch-size", "2", "--device", "cpu", "--workers", "1"]
    ckpt = tmp_path / "counting-polygons.ckpt"
    orig = tc.canonical_check
    monkeypatch.setattr(tc, "canonical_check", lambda shape, model, device, n=500: orig(shape, model, device, n=2))
    with pytest.raises(SystemExit) as stop:
        main(args + ["--max-seconds", "0"])
    assert stop.value.code == 0
    assert ckpt.exists() and "stopped after 1 of 3 steps; no weights written" in capsys.readouterr().err
    assert not (tmp_path / "counting-polygons.safetensors").exists()
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 0 and not ckpt.exists()
    pins = json.loads((tmp_path / "counting-weights.json").read_text())
    entry = pins["counting-polygons.safetensors"]
    assert entry["steps_done"] == 3
    assert file_sha256(tmp_path / "counting-polygons.safetensors") == entry["sha256"]


def test_checkpoints_hold_only_tensors_and_plain_python_values(tmp_path: Path) -> None:
    # torch's weights_only loader refuses numpy scalars on some versions (2.11 did): keep them out.
    import torch

    ckpt = tmp_path / "run.ckpt"
    # saved after every step but the last, so the state after a cosine-schedule step is in it
    tc.train_classifier("stars", **_TINY, checkpoint=ckpt, checkpoint_every=0.0)
    odd: list[str] = []

    def walk(x: object, where: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{where}.{k}")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                walk(v, f"{where}[{i}]")
        elif not (x is None or type(x) in (int, float, str, bool) or isinstance(x, torch.Tensor)):
            odd.append(f"{where}: {type(x).__name__}")

    walk(torch.load(ckpt, weights_only=False), "checkpoint")
    assert not odd


def test_training_degradations_are_seeded_mild_and_optional() -> None:
    import torch

    gen, config, items = _items("stars", 16)
    clean = ev.to_unit(gen.render(config, {}, items), "cpu")
    a = tc.degrade_batch(clean, torch.Generator().manual_seed(5))
    b = tc.degrade_batch(clean, torch.Generator().manual_seed(5))
    assert torch.equal(a, b) and a.shape == clean.shape and 0.0 <= float(a.min()) and float(a.max()) <= 1.0
    changed = (a - clean).abs().flatten(1).amax(1) > 0
    assert 0 < int(changed.sum()) < 16  # some images degraded, some left clean
    assert float((a - clean).abs().mean()) < 0.02  # mild: the mean pixel moves by under 2%
    # with both probabilities at zero the batch comes back unchanged
    off = {**tc.AUGMENT, "blur_p": 0.0, "noise_p": 0.0}
    saved = dict(tc.AUGMENT)
    try:
        tc.AUGMENT.update(off)
        assert torch.equal(tc.degrade_batch(clean, torch.Generator().manual_seed(5)), clean)
    finally:
        tc.AUGMENT.update(saved)


def test_jpeg_training_images_do_not_depend_on_workers() -> None:
    one, _, _ = tc.make_classifier_data("polygons", "train", 24, 0, 1, block=8, jpeg=True)
    two, _, _ = tc.make_classifier_data("polygons", "train", 24, 0, 2, block=8, jpeg=True)
    plain, _, _ = tc.make_classifier_data("polygons", "train", 24, 0, 1, block=8)
    assert np.array_equal(one, two)
    assert 0 < int((one != plain).reshape(24, -1).any(1).sum()) < 24


def test_init_starts_from_the_given_weights(tmp_path: Path) -> None:
    from safetensors.torch import load_file

    model, report = tc.train_classifier("stars", **_TINY)
    tc.save_weights(model, "stars", tmp_path, report)
    start = tmp_path / "counting-stars.safetensors"
    # lr 0: no parameter moves, so the model is exactly the file it started from
    tuned, rep = tc.train_classifier("stars", **{**_TINY, "lr": 0.0, "steps": 1}, init=start, augment=True)
    want = load_file(str(start))
    got = tuned.state_dict()
    assert rep["init_sha256"] == file_sha256(start) and rep["augment"] == tc.AUGMENT
    assert all((got[k].float() == want[k].float()).all() for k in want if k.endswith("weight"))
    bad = tmp_path / "other.safetensors"
    from safetensors.torch import save_file
    import torch
    save_file({"x": torch.zeros(2)}, str(bad))
    with pytest.raises(SrmBenchError, match="not weights of the counting-stars classifier"):
        tc.train_classifier("stars", **_TINY, init=bad)


def test_open_set_fine_tuning_widens_a_closed_set_start_and_pins_version_3(tmp_path: Path) -> None:
    from safetensors.torch import load_file

    closed, report = tc.train_classifier("stars", **_TINY)
    assert report["open_set"] is None
    tc.save_weights(closed, "stars", tmp_path, report)
    start = tmp_path / "counting-stars.safetensors"
    assert not ev.is_open_set(load_file(str(start))["pair.weight"].shape[0])
    tuned, rep = tc.train_classifier("stars", **{**_TINY, "n_train": 40, "n_test": 40}, init=start, open_set=True)
    assert rep["open_set"] == tc.OPEN_SET and ev.is_open_set(tuned.state_dict()["pair.weight"].shape[0])
    assert {"no_pair_recall", "no_pair_false", "no_object_recall", "no_object_false"} <= rep["held_out"].keys()
    out = tmp_path / "open"
    pin = tc.save_weights(tuned, "stars", out, rep)
    assert pin["open_set"] is True and ev.is_open_set(
        load_file(str(out / "counting-stars.safetensors"))["pair.weight"].shape[0])
    # open-set weights cannot be fine-tuned closed-set
    with pytest.raises(SrmBenchError, match="open-set weights; fine-tune them with --open-set"):
        tc.train_classifier("stars", **_TINY, init=out / "counting-stars.safetensors")


def _check_script():
    """benchmarks/check_counting_evaluator.py as a module (its floors are tested here)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "check_counting_evaluator.py"
    spec = importlib.util.spec_from_file_location("check_counting_evaluator", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_evaluator_floor_shuffles_whole_patches() -> None:
    """The 'patches shuffled' floor of benchmarks/check_counting_evaluator.py keeps every 8x8
    patch of each image (as a multiset) and only moves them."""
    mod = _check_script()
    images = np.random.default_rng(1).integers(0, 256, (3, 32, 24, 3), dtype=np.uint8)
    floors = dict(mod.floors(images))
    shuffled = floors["8x8 patches shuffled"]
    assert shuffled.shape == images.shape and shuffled.dtype == np.uint8

    def patches(x):
        return sorted(x[i:i + 8, j:j + 8].tobytes() for i in range(0, 32, 8) for j in range(0, 24, 8))

    for a, b in zip(images, shuffled):
        assert patches(a) == patches(b)
        assert not np.array_equal(a, b)
    assert floors["uniform pixel noise"].shape == images.shape


def test_evaluator_floor_without_numbers_keeps_the_objects_and_drops_the_digits() -> None:
    """The 'numbers left out' floor: the mask is the full one outside the two digit discs, and
    inside them the digits' coverage is gone (a faint dot of <= 16/255 at most)."""
    from srm_bench.generators.counting import POLYGONS, render_mask

    mod = _check_script()
    items = POLYGONS.generate_items(POLYGONS.make_config("test", 0), {}, 0, 12)
    bare = mod.without_numbers(items)
    assert (items["number_radius"] > 0).all()  # the copy, not the items, loses its numbers
    yy, xx = np.mgrid[0:128, 0:128] + 0.5
    for i in range(12):
        full, mask = render_mask("polygons", items, i).astype(int), render_mask("polygons", bare, i).astype(int)
        near = np.zeros((128, 128), bool)
        for j in range(2):
            cx, cy = items["number_xy"][i, j] * 128
            near |= (xx - cx) ** 2 + (yy - cy) ** 2 <= (items["number_radius"][i, j] * 128 + 2) ** 2
        assert np.array_equal(full[~near], mask[~near])  # every object pixel as before
        removed = full - mask
        assert removed.sum() > 255 * 20 and removed.min() >= -16  # the digits' ink gone, nothing drawn instead
        assert mask[removed > 0].max() <= 16


def test_collapse_note_names_the_count_and_where_the_accuracy_is() -> None:
    # 60 of 100 samples show one object, the accurate ones split 12 among them and 3 among the rest
    objects = np.array([1] * 60 + [2, 3, 4, 5, 6, 7, 8, 9] * 5)
    accuracy = np.array([True] * 12 + [False] * 48 + [True] * 3 + [False] * 37)
    note = ev.collapse_note(objects, accuracy)
    assert note is not None and note.startswith("the evaluator reads 1 object in 60% of the samples ")
    assert "12 of the 15 accurate samples" in note
    assert ev.collapse_note(np.array([3] * 50 + [4] * 50), np.zeros(100, bool)).startswith("the evaluator reads 3 objects in 50% of the samples")
    # the data's spread, or one count in just under half the samples: nothing to say
    assert ev.collapse_note(np.tile(ev.COUNTS, 20), np.ones(180, bool)) is None
    assert ev.collapse_note(np.array([2] * 49 + [5] * 51), np.ones(100, bool)).startswith("the evaluator reads 5 objects in 51%")
    assert ev.collapse_note(np.array([2] * 49 + [5] * 26 + [6] * 25), np.ones(100, bool)) is None
    assert ev.object_count_shares(np.array([1, 1, 9, 4])).tolist() == [0.5, 0, 0, 0.25, 0, 0, 0, 0, 0.25]
    assert ev.COUNTS.tolist() == list(range(cg.N_RANGE[0], cg.N_RANGE[1] + 1))  # the head reads what the data holds


def test_consistency_by_objects_compares_samplers_at_the_data_s_object_counts() -> None:
    """Two samplers equally consistent at each object count but drawing different numbers of objects: the raw
    consistency favours the one that draws fewer, the standardised one does not."""
    per_group = {1: 1.0, 2: 0.75, 3: 0.5, 4: 0.25, 6: 0.0}  # 4 stands for 4-5, 6 for 6-9

    def draw(counts: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
        objects = np.concatenate([np.full(n, k) for k, n in counts.items()])
        consistent = np.concatenate([np.arange(n) < round(per_group[k] * n) for k, n in counts.items()])
        return objects, consistent

    few = draw({1: 40, 2: 40, 3: 8, 4: 8, 6: 4})
    many = draw({1: 4, 2: 8, 3: 8, 4: 40, 6: 40})
    assert few[1].mean() > 2 * many[1].mean()
    for objects, consistent in (few, many):
        means, counts, std = ev.consistency_by_objects(objects, consistent)
        assert means.tolist() == [1.0, 0.75, 0.5, 0.25, 0.0] and counts.sum() == 100
        assert std == pytest.approx((1.0 + 0.75 + 0.5 + 2 * 0.25) / 9)
    # images read as no object stay out; an empty group leaves the standard undefined
    means, counts, std = ev.consistency_by_objects(np.array([0, 0, 2, 2]), np.array([True, True, True, False]))
    assert counts.tolist() == [0, 2, 0, 0, 0] and means[1] == 0.5 and np.isnan(std)
    with pytest.raises(SrmBenchError, match="differ in shape"):
        ev.consistency_by_objects(np.array([1, 2]), np.array([True]))


def test_spread_note_gives_both_consistencies_when_the_object_counts_are_far_from_the_data_s() -> None:
    """`evaluate`'s info line (CountingEvaluator.describe): where the samples' object counts are far from the
    data's uniform 1-9 it gives the consistency as drawn and at the data's counts; the data's spread gets none."""
    few = (np.repeat([1, 2, 3, 4, 6], [40, 40, 8, 8, 4]),
           np.concatenate([np.arange(n) < k for n, k in ((40, 40), (40, 30), (8, 4), (8, 2), (4, 0))]))
    note = ev.spread_note(*few)
    assert note is not None and "total variation 0.58, mean 2.0 objects" in note
    assert "0.760 on the images read as holding objects" in note  # 76 of 100 consistent
    assert f"{(1.0 + 0.75 + 0.5 + 2 * 0.25) / 9:.3f} at the data's object counts" in note
    assert "1: 1.00, 2: 0.75, 3: 0.50, 4/5: 0.25, 6-9: 0.00" in note
    # no-object readings count in neither figure; an empty group leaves it not comparable
    with_none = ev.spread_note(np.concatenate([few[0], np.zeros(50, int)]), np.concatenate([few[1], np.ones(50, bool)]))
    assert with_none == note
    gap = ev.spread_note(np.repeat([1, 2, 4, 6], 10), np.ones(40, bool))
    assert gap is not None and gap.endswith("not comparable at the data's counts (no image read as 3 objects)")
    uniform = np.tile(ev.COUNTS, 20)
    assert ev.spread_note(uniform, np.ones(180, bool)) is None
    assert ev.spread_note(np.zeros(10, int), np.zeros(10, bool)) is None
    assert ev.CountingEvaluator("polygons").describe({"objects": few[0], "consistency": few[1]}) == [note]
    assert ev.CountingEvaluator("polygons").diagnose({"objects": uniform, "accuracy": np.ones(180, bool)}) == []


def test_evaluate_warns_when_the_samples_draw_one_object(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The paper's rule rewards a model that always draws one polygon, a "1" and its vertex count:
    `evaluate` scores it as usual and says so in one warning; samples with the data's spread pass quietly."""
    _needs_weights("polygons")
    from srm_bench.evaluation import evaluate

    gen, config, items = _items("polygons", 400)
    one = np.flatnonzero(items["n_objects"] == 1)[:30]
    rest = np.flatnonzero(items["n_objects"] > 1)[:10]
    assert len(one) == 30
    for name, idx, warned in (("one", np.concatenate([one, rest]), True), ("spread", np.arange(40), False)):
        pick = {k: v[idx] for k, v in items.items()}
        np.savez(tmp_path / f"{name}.npz", arr_0=gen.render(config, {}, pick))
        caplog.clear()
        with caplog.at_level("INFO", logger="srm_bench.evaluation"):
            res = evaluate(tmp_path / f"{name}.npz", task="counting-polygons", split="test", out=None)
        notes = [r.getMessage() for r in caplog.records if "of the samples (the benchmark's" in r.getMessage()]
        spread = [r for r in caplog.records if "far from the data's uniform 1-9" in r.getMessage()]
        assert res.result["metrics"]["accuracy"]["value"] >= 0.9  # rendered test items: the rule holds
        if warned:
            assert len(notes) == 1 and "reads 1 object in" in notes[0] and notes[0].startswith(str(tmp_path / "one.npz"))
            # the object counts, far from the data's, also get the info line (not a warning)
            assert len(spread) == 1 and spread[0].levelname == "INFO"
        else:
            assert notes == []
            shares = ev.object_count_shares(items["n_objects"][:40])
            assert 0.5 * np.abs(shares - 1 / 9).sum() < ev.SPREAD_TV and spread == []


def test_number_patches_hold_every_pixel_the_numbers_draw_and_little_else() -> None:
    """cg.number_patches (the gauge's "numbers" row, benchmarks/probe_write_count.py): the patches it
    names cover every pixel that the two numbers change (erased at size 0, the rest of the image is the
    same), and little else."""
    from srm_bench.canonical import canonical_dataset

    data, n = canonical_dataset("counting-polygons", "test"), 12
    items = {k: v[:n] for k, v in data.items.items()}
    erased = cg.POLYGONS.render(data.config, {}, {**items, "number_radius": np.zeros_like(items["number_radius"])})
    changed = (data.images(slice(0, n)) != erased).any(-1)  # (n, 128, 128)
    touched = cg.number_patches(items, 128, 8)
    given_pixels = np.kron(~touched.reshape(n, 16, 16), np.ones((8, 8), bool))
    assert changed.any(axis=(1, 2)).all() and not (changed & given_pixels).any()
    # x first: the same patches with the axes swapped would leave number pixels in given patches
    swapped = np.kron(~touched.reshape(n, 16, 16).transpose(0, 2, 1), np.ones((8, 8), bool))
    assert (changed & swapped).any()
    # two disks of radius <= 0.155 x 128 px touch at most ~2 x 36 patches of 8x8, and at least one each
    assert (touched.sum(1) >= 2).all() and (touched.sum(1) <= 80).all()
    # numbers at size 0 (open-set items) touch nothing
    assert not cg.number_patches({**items, "number_radius": np.zeros_like(items["number_radius"])}).any()
