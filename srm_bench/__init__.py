"""srm-bench: the benchmarks of 'Spatial Reasoning with Denoising Models'.

The Python API mirrors the CLI (which is a thin layer over it)::

    import srm_bench
    path = srm_bench.generate("sudoku", "hard")          # data/sudoku/hard
    result = srm_bench.evaluate("samples.h5")           # dict in the result schema

Heavy modules (torch, h5py) are imported lazily so that ``import srm_bench`` is cheap.
"""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def generate(task: str, split: str, **kwargs: Any):
    """Generate a dataset; see :func:`srm_bench.generation.generate`."""
    from .generation import generate as _generate

    return _generate(task, split, **kwargs)


def evaluate(path: str, **kwargs: Any):
    """Score a samples file; see :func:`srm_bench.evaluation.evaluate`, which also returns the
    path of the result JSON it wrote. This returns the result dict alone."""
    from .evaluation import evaluate as _evaluate

    return _evaluate(path, **kwargs).result


def load_dataset(path: str, **kwargs: Any):
    """Load a generated dataset directory or shard; see :func:`srm_bench.dataset.load_dataset`."""
    from .dataset import load_dataset as _load

    return _load(path, **kwargs)


__all__ = ["__version__", "generate", "evaluate", "load_dataset"]
