"""Sanity figures of the shipped counting classifiers on the canonical test images; prints them.

Usage:
    python benchmarks/check_counting_evaluator.py [--n 500] [--device cpu]

For each task: mean ``accuracy`` / ``consistency`` on the canonical test images (the rule
holds, so both should be 1.0), then on the same images with one shown digit changed so
that {digits} != {#objects, #vertices} (accuracy should fall to 0, consistency stay 1).
"""
from __future__ import annotations

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="images per task (the canonical split has 500)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    from srm_bench.evaluators import counting as ev
    from srm_bench.generators.counting import POLYGONS, STARS

    for shape, gen in (("polygons", POLYGONS), ("stars", STARS)):
        config = gen.make_config("test", 0)
        items = gen.generate_items(config, {}, 0, args.n)
        got = ev.classify(shape, gen.render(config, {}, items), device=args.device)
        print(f"counting-{shape:8s} canonical test images            accuracy {got['accuracy'].mean():.3f}  "
              f"consistency {got['consistency'].mean():.3f}")
        changed = {k: v.copy() for k, v in items.items()}
        truth = [sorted(p) for p in zip(items["n_objects"].astype(int), items["vertices"].astype(int))]
        for i, shown in enumerate(changed["numbers"]):
            # the first digit becomes one that breaks {digits} == {#objects, #vertices}
            shown[0] = next(d for d in range(9, 0, -1) if d != shown[0] and sorted([d, int(shown[1])]) != truth[i])
        got = ev.classify(shape, gen.render(config, {}, changed), device=args.device)
        print(f"counting-{shape:8s} same images, one digit changed  accuracy {got['accuracy'].mean():.3f}  "
              f"consistency {got['consistency'].mean():.3f}")


if __name__ == "__main__":
    main()
