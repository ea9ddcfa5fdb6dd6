"""Even Pixels: 32x32 images with exactly 512 pixels of each of two complementary hues.

Each item is stored compactly as its hue offset (float64, turns in ``[0, 0.5)``) and its
1024-bit pixel assignment packed with ``np.packbits`` (128 bytes, row-major pixels, bit 1 =
the second hue ``offset + 0.5``). Images are rendered from that form: saturation 1.0,
value 0.7, uint8 RGB. One spatial variable is a 4x4 patch (8x8 = 64 variables).

Randomness. Item ``i`` of ``(seed, split)`` reads its own fixed run of 129 blocks of a
Philox4x64-10 stream keyed by ``SeedSequence([seed, stream_id(split)])``: blocks
``129 i + 1 .. 129 i + 129``. A whole shard is then one ``random_raw`` call, yet every item
remains a pure function of ``(seed, split, index)``, whatever the shard boundaries or workers.
Word 0 of the run gives the hue offset, words 1..512 give 1024 32-bit uniforms that drive
selection sampling (Knuth's Algorithm S): pixel ``p`` takes the second hue with probability
``needed / (1024 - p)``, which yields exactly 512 pixels of each hue, every half equally likely.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from srm_bench.errors import SrmBenchError
from srm_bench.registry import get_task
from srm_bench.generation import TaskGenerator
from srm_bench.seeding import stream_id

SIZE = get_task("even-pixels").image_side  # 32: the registry holds the task's shape
PIXELS = SIZE * SIZE
HALF = PIXELS // 2
PATCH_SIZE = get_task("even-pixels").patch_size  # 4
SATURATION = 1.0
VALUE = 0.7
HUE_OFFSET_MAX = 0.5

_BLOCKS_PER_ITEM = 129  # 4 uint64 words per Philox4x64 block: 516 words, 513 used
_WORDS_PER_ITEM = 4 * _BLOCKS_PER_ITEM
_CHUNK = 1024  # items per vectorised step and
_POSITIONS = 128  # pixel positions per block: sizes that keep the working set in cache
# (1024 - p) / 2**32 for pixel p, as a column: scales a 32-bit uniform to [0, 1024 - p).
_SCALE = np.arange(PIXELS, 0, -1, dtype=np.float64)[:, None] * 2.0 ** -32


def philox_key(seed: int, split: str) -> np.ndarray:
    """The 128-bit Philox key of a dataset: ``SeedSequence([seed, stream_id(split)])``."""
    return np.random.SeedSequence([int(seed), stream_id(split)]).generate_state(2, np.uint64)


def item_words(key: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The random words of items ``start..stop-1``: uint64 ``(stop - start, 516)``."""
    counter = np.array([start * _BLOCKS_PER_ITEM, 0, 0, 0], dtype=np.uint64)
    bits = np.random.Philox(key=key, counter=counter)
    return bits.random_raw((stop - start) * _WORDS_PER_ITEM).reshape(stop - start, _WORDS_PER_ITEM)


def _select_half(words: np.ndarray) -> np.ndarray:
    """Selection sampling of 512 of 1024 pixels per item; returns packed bits ``(n, 128)``.

    Pixel ``p`` is selected iff ``u_p * (1024 - p) / 2**32 < needed`` with ``u_p`` a 32-bit
    uniform; ``u_p * (1024 - p)`` is an integer below 2**53, so the float64 test is exact.
    """
    n = words.shape[0]
    # Little-endian view: uniform 2j is the low half of word j+1, uniform 2j+1 its high half.
    uniforms = np.ascontiguousarray(words[:, 1:1 + HALF], dtype="<u8").view("<u4")
    needed = np.full(n, float(HALF))
    chosen = np.empty((PIXELS, n), dtype=bool)
    for lo in range(0, PIXELS, _POSITIONS):
        # Positions in blocks, transposed to (position, item) so each step reads one row.
        scaled = uniforms[:, lo:lo + _POSITIONS].T.astype(np.float64)
        scaled *= _SCALE[lo:lo + _POSITIONS]
        for q in range(scaled.shape[0]):
            np.less(scaled[q], needed, out=chosen[lo + q])
            np.subtract(needed, chosen[lo + q], out=needed)
    return np.ascontiguousarray(np.packbits(chosen, axis=0).T)


def hsv_to_rgb8(hue: np.ndarray, saturation: float, value: float) -> np.ndarray:
    """uint8 RGB ``(..., 3)`` of hues in turns at one saturation and value.

    Each channel is ``rint(255 * x)`` of the exact HSV formula, computed in float64.

    Example:
        >>> hsv_to_rgb8(np.array([0.0, 0.5]), 1.0, 0.7).tolist()
        [[178, 0, 0], [0, 178, 178]]
    """
    h6 = np.mod(np.asarray(hue, dtype=np.float64), 1.0) * 6.0
    sector = np.minimum(np.floor(h6), 5.0).astype(np.int64)
    f = h6 - sector
    v = value
    p = v * (1.0 - saturation)
    q = v * (1.0 - saturation * f)
    t = v * (1.0 - saturation * (1.0 - f))
    vv = np.full_like(f, v)
    pp = np.full_like(f, p)
    table = np.stack([
        np.stack([vv, t, pp], -1), np.stack([q, vv, pp], -1), np.stack([pp, vv, t], -1),
        np.stack([pp, q, vv], -1), np.stack([t, pp, vv], -1), np.stack([vv, pp, q], -1),
    ])
    rgb = np.take_along_axis(table, sector[None, ..., None], axis=0)[0]
    return np.rint(rgb * 255.0).astype(np.uint8)


def palette(hue_offset: np.ndarray, saturation: float = SATURATION, value: float = VALUE) -> np.ndarray:
    """The two colours of each item: uint8 ``(n, 2, 3)``, first hue then its complement."""
    hues = np.stack([hue_offset, hue_offset + 0.5], axis=-1)
    return hsv_to_rgb8(hues, saturation, value)


def render_items(hue_offset: np.ndarray, assignment: np.ndarray, saturation: float = SATURATION,
                 value: float = VALUE) -> np.ndarray:
    """uint8 images ``(n, 32, 32, 3)`` from hue offsets ``(n,)`` and packed assignments ``(n, 128)``.

    Raises:
        SrmBenchError: arrays of the wrong shape.
    """
    hue_offset = np.asarray(hue_offset, dtype=np.float64)
    assignment = np.asarray(assignment, dtype=np.uint8)
    n = hue_offset.shape[0]
    if hue_offset.shape != (n,) or assignment.shape != (n, PIXELS // 8):
        raise SrmBenchError(
            f"even-pixels items must be hue_offset (n,) and assignment (n, {PIXELS // 8}); "
            f"got {hue_offset.shape} and {assignment.shape}"
        )
    colours = palette(hue_offset, saturation, value)
    images = np.empty((n, PIXELS, 3), dtype=np.uint8)
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        second = np.unpackbits(assignment[lo:hi], axis=1)
        # first + bit * (second - first) in uint8 modular arithmetic is exact; one channel at
        # a time is several times faster than broadcasting over a trailing axis of 3.
        for ch in range(3):
            first = colours[lo:hi, 0, ch:ch + 1]
            np.multiply(second, colours[lo:hi, 1, ch:ch + 1] - first, out=images[lo:hi, :, ch])
            images[lo:hi, :, ch] += first
    return images.reshape(n, SIZE, SIZE, 3)


class EvenPixelsGenerator(TaskGenerator):
    """Generator of the Even Pixels task (see the module docstring for the exact recipe)."""

    task: ClassVar[str] = "even-pixels"
    task_version: ClassVar[int] = 1

    def make_config(self, split: str, seed: int, **options: Any) -> dict[str, Any]:
        """The fixed recipe plus the split and seed that key the random stream.

        Raises:
            SrmBenchError: a negative seed or an unknown option.
        """
        if options:
            raise SrmBenchError(f"even-pixels takes no generator options (got {', '.join(sorted(options))})")
        if int(seed) < 0:
            raise SrmBenchError(f"--seed must be a non-negative integer (got {seed})")
        # Split and seed are part of the config because the random stream is keyed by them.
        return {
            "split": split, "seed": int(seed), "image_size": SIZE, "channels": 3,
            "patch_size": PATCH_SIZE, "pixels_per_hue": HALF, "saturation": SATURATION, "value": VALUE,
            "hue_offset_max": HUE_OFFSET_MAX,
            "rng": "philox4x64-10/seedsequence/129-blocks-per-item/selection-sampling",
        }

    def default_count(self, split: str) -> int:
        return 1_000_000 if split == "train" else 500

    def default_shard_size(self, split: str) -> int:
        return 50_000 if split == "train" else 10_000

    def generate_items(self, config: dict[str, Any], shared: dict[str, np.ndarray], start: int,
                       stop: int) -> dict[str, np.ndarray]:
        """Compact items ``start..stop-1``: ``hue_offset`` (n,) float64, ``assignment`` (n, 128) uint8."""
        key = philox_key(config["seed"], config["split"])
        n = stop - start
        hue = np.empty(n, dtype=np.float64)
        assignment = np.empty((n, PIXELS // 8), dtype=np.uint8)
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            words = item_words(key, start + lo, start + hi)
            # 53 random bits scaled to [0, 0.5): exact in float64 (0.5 is a power of two).
            hue[lo:hi] = (words[:, 0] >> np.uint64(11)).astype(np.float64) * (2.0 ** -53 * HUE_OFFSET_MAX)
            assignment[lo:hi] = _select_half(words)
        return {"hue_offset": hue, "assignment": assignment}

    def render(self, config: dict[str, Any], shared: dict[str, np.ndarray],
               items: dict[str, np.ndarray]) -> np.ndarray:
        return render_items(items["hue_offset"], items["assignment"], config["saturation"], config["value"])


GENERATOR = EvenPixelsGenerator()


def to_model_range(images: np.ndarray) -> np.ndarray:
    """uint8 NHWC images to float32 NCHW in [-1, 1] (0 -> -1.0, 255 -> 1.0): ``x / 127.5 - 1``."""
    return np.ascontiguousarray(images.transpose(0, 3, 1, 2)).astype(np.float32) / 127.5 - 1.0


def _training_set_class() -> type:
    import torch
    from torch.utils.data import Dataset as TorchDataset

    class EvenPixelsTrainingSet(TorchDataset):
        """Even Pixels images for training: float32 tensors ``(3, 32, 32)`` in ``[-1, 1]``.

        Pixel value ``x`` (uint8) becomes ``x / 127.5 - 1``; samples written back for
        evaluation in that range need ``--range -1,1``. Images are rendered from the compact
        items on access (no image storage needed); ``__getitems__`` renders a whole batch at
        once when a DataLoader asks for one.

        Args:
            source: a dataset directory or shard made by ``srm-bench generate even-pixels``,
                or a loaded :class:`srm_bench.dataset.Dataset`.

        Raises:
            SrmBenchError: the source is missing, damaged or of another task.

        Example:
            >>> ds = EvenPixelsTrainingSet.from_seed(8)
            >>> tuple(ds[0].shape), float(ds[0].min()) >= -1.0
            ((3, 32, 32), True)
        """

        def __init__(self, source: Any) -> None:
            from srm_bench.dataset import Dataset, load_dataset

            ds = source if isinstance(source, Dataset) else load_dataset(Path(source), images=False)
            if ds.task != GENERATOR.task:
                raise SrmBenchError(f"{ds.path}: is a {ds.task} dataset, not even-pixels")
            self._init(ds.items["hue_offset"], ds.items["assignment"], ds.config)

        @classmethod
        def from_seed(cls, n: int, *, seed: int = 0, split: str = "train") -> "EvenPixelsTrainingSet":
            """``n`` items generated in memory, identical to ``srm-bench generate`` with this seed."""
            config = GENERATOR.make_config(split=split, seed=seed)
            items = GENERATOR.generate_items(config, {}, 0, int(n))
            obj = cls.__new__(cls)
            obj._init(items["hue_offset"], items["assignment"], config)
            return obj

        def _init(self, hue_offset: np.ndarray, assignment: np.ndarray, config: dict[str, Any]) -> None:
            self.hue_offset = hue_offset
            self.assignment = assignment
            self.saturation = float(config["saturation"])
            self.value = float(config["value"])

        def __len__(self) -> int:
            return int(self.hue_offset.shape[0])

        def images(self, idx: Any) -> np.ndarray:
            """uint8 NHWC images of the given indices (exactly the generator's bytes)."""
            idx = np.atleast_1d(np.asarray(idx, dtype=np.int64))
            return render_items(self.hue_offset[idx], self.assignment[idx], self.saturation, self.value)

        def __getitem__(self, i: int) -> torch.Tensor:
            if not -len(self) <= int(i) < len(self):
                raise IndexError(f"index {i} out of range for {len(self)} items")
            return torch.from_numpy(to_model_range(self.images([int(i)]))[0])

        def __getitems__(self, indices: list[int]) -> list[torch.Tensor]:
            return list(torch.from_numpy(to_model_range(self.images(indices))).unbind(0))

    EvenPixelsTrainingSet.__module__ = __name__
    EvenPixelsTrainingSet.__qualname__ = "EvenPixelsTrainingSet"
    return EvenPixelsTrainingSet


def __getattr__(name: str) -> Any:
    # The torch Dataset is built on first use so that generation and the CLI never import torch.
    if name == "EvenPixelsTrainingSet":
        cls = _training_set_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
