"""Registry entry point of the counting-polygons evaluator (the code is in counting.py)."""
from __future__ import annotations

from .counting import POLYGONS as EVALUATOR

__all__ = ["EVALUATOR"]
