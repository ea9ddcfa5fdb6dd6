"""Sanity figures of the shipped counting classifiers on the canonical test images; prints them.

Usage:
    python benchmarks/check_counting_evaluator.py [--n 500] [--robust-n 200] [--device cpu]

For each task: mean ``accuracy`` / ``consistency`` on the canonical test images (the rule
holds, so both should be 1.0), then on the same images with one shown digit changed so
that {digits} != {#objects, #vertices} (accuracy should fall to 0, consistency stay 1).
Then robustness: the first ``--robust-n`` test images with Gaussian pixel noise, Gaussian
blur or JPEG compression, i.e. how far a sample may stray from a clean rendering before the
classifiers stop reading it (correct content, so 1.0 is the right score).
Then floors (``--floor-n``): what images that do not show the task score, i.e. what a sample's
accuracy must beat to mean anything: uniform pixel noise, the test images with their 8x8
patches shuffled (every patch of a true image, in the wrong places), and the test images
blurred by 3 px (the shapes left as blobs, the digits unreadable).
The floor "the numbers left out" draws the test images' objects as they are and no digits (the
two numbers at size 0): the score of a sample that draws the objects right and no numbers, as four
parallel samples of our SRM o-ch did (docs/baselines.md, fifty-sixth session). It runs on the --n
images whatever --floor-n says.
Each line also gives ``objects``: the share of images whose object count the classifier reads
as the number drawn, i.e. whether its count (the collapse warning's input) survives the change;
on the noise and shuffled floors, where nothing is drawn whole, it is printed for completeness.
"""
from __future__ import annotations

import argparse
import io

import numpy as np
from PIL import Image, ImageFilter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="images per task (the canonical split has 500)")
    parser.add_argument("--robust-n", type=int, default=200, help="images per robustness figure (0: skip)")
    parser.add_argument("--floor-n", type=int, default=500, help="images per floor figure (0: skip)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    from srm_bench.evaluators import counting as ev
    from srm_bench.generators.counting import POLYGONS, STARS

    for shape, gen in (("polygons", POLYGONS), ("stars", STARS)):
        config = gen.make_config("test", 0)
        items = gen.generate_items(config, {}, 0, args.n)
        n_drawn = items["n_objects"].astype(int)
        got = ev.classify(shape, gen.render(config, {}, items), device=args.device)
        print(f"counting-{shape:8s} canonical test images            accuracy {got['accuracy'].mean():.3f}  "
              f"consistency {got['consistency'].mean():.3f}  objects {(got['objects'] == n_drawn).mean():.3f}")
        changed = {k: v.copy() for k, v in items.items()}
        truth = [sorted(p) for p in zip(items["n_objects"].astype(int), items["vertices"].astype(int))]
        for i, shown in enumerate(changed["numbers"]):
            # the first digit becomes one that breaks {digits} == {#objects, #vertices}
            shown[0] = next(d for d in range(9, 0, -1) if d != shown[0] and sorted([d, int(shown[1])]) != truth[i])
        got = ev.classify(shape, gen.render(config, {}, changed), device=args.device)
        print(f"counting-{shape:8s} same images, one digit changed  accuracy {got['accuracy'].mean():.3f}  "
              f"consistency {got['consistency'].mean():.3f}  objects {(got['objects'] == n_drawn).mean():.3f}")
        # floor: what a sample that draws the objects and not the numbers scores (no training image lacks them)
        got = ev.classify(shape, gen.render(config, {}, without_numbers(items)), device=args.device)
        shift = np.bincount(np.clip(got["objects"] - n_drawn + 2, 0, 4), minlength=5) / len(n_drawn)
        print(f"counting-{shape:8s} {'floor: the numbers left out':32s} accuracy {got['accuracy'].mean():.3f}  "
              f"consistency {got['consistency'].mean():.3f}  objects {(got['objects'] == n_drawn).mean():.3f}  "
              f"(read - drawn <=-2/-1/0/+1/>=+2: {' / '.join(f'{v:.3f}' for v in shift)})")
        for n, variants, label in ((args.robust_n, degraded, ""), (args.floor_n, floors, "floor: ")):
            if not n:
                continue
            clean = gen.render(config, {}, {k: v[:n] for k, v in items.items()})
            for name, images in variants(clean):
                got = ev.classify(shape, images, device=args.device)
                print(f"counting-{shape:8s} {label + name:32s} accuracy {got['accuracy'].mean():.3f}  "
                      f"consistency {got['consistency'].mean():.3f}  objects {(got['objects'] == n_drawn[:n]).mean():.3f}")


def without_numbers(items: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A copy of generator ``items`` whose two numbers are drawn at size 0: the objects render as
    before, and where each digit was at most one faint pixel is left (coverage <= 16/255)."""
    bare = {k: v.copy() for k, v in items.items()}
    bare["number_radius"][:] = 0
    return bare


def degraded(images: np.ndarray):
    """(name, images) for each degradation of uint8 NHWC ``images``, fixed seed."""
    rng = np.random.default_rng(0)
    for sd in (3, 6, 10, 15):
        noisy = images.astype(np.float32) + rng.normal(0.0, sd, images.shape)
        yield f"Gaussian noise, sd {sd}/255", noisy.clip(0, 255).round().astype(np.uint8)
    for radius in (0.5, 1.0):
        yield f"Gaussian blur, radius {radius} px", np.stack(
            [np.asarray(Image.fromarray(x).filter(ImageFilter.GaussianBlur(radius))) for x in images])
    for quality in (90, 75):
        out = []
        for x in images:
            buf = io.BytesIO()
            Image.fromarray(x).save(buf, format="JPEG", quality=quality)
            out.append(np.asarray(Image.open(buf).convert("RGB")))
        yield f"JPEG, quality {quality}", np.stack(out)


def floors(images: np.ndarray, patch: int = 8):
    """(name, images) that do not show the task, made from uint8 NHWC ``images``, fixed seed."""
    rng = np.random.default_rng(0)
    yield "uniform pixel noise", rng.integers(0, 256, images.shape, dtype=np.uint8)
    n, h, w, c = images.shape
    gh, gw = h // patch, w // patch
    tiles = images.reshape(n, gh, patch, gw, patch, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, gh * gw, patch, patch, c)
    order = np.argsort(rng.random((n, gh * gw)), axis=1)
    shuffled = np.take_along_axis(tiles, order[:, :, None, None, None], axis=1)
    yield "8x8 patches shuffled", shuffled.reshape(n, gh, gw, patch, patch, c).transpose(0, 1, 3, 2, 4, 5).reshape(images.shape)
    yield "Gaussian blur, radius 3 px", np.stack(
        [np.asarray(Image.fromarray(x).filter(ImageFilter.GaussianBlur(3))) for x in images])


if __name__ == "__main__":
    main()
