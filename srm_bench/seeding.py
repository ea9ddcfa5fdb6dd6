"""Per-item seeding: every item's randomness comes from ``(seed, stream, index)``.

Content therefore never depends on the number of workers, the shard size or the order in
which items are made, and any item can be regenerated on its own.
"""
from __future__ import annotations

import zlib

import numpy as np


def stream_id(name: str) -> int:
    """A stable 32-bit id for a named random stream (a split, a pool, a sampler)."""
    return zlib.crc32(name.encode("utf-8"))


def item_rng(seed: int, stream: str, index: int) -> np.random.Generator:
    """The generator for one item: ``default_rng([seed, stream_id(stream), index])``."""
    return np.random.default_rng([int(seed), stream_id(stream), int(index)])
