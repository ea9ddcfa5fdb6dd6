"""Registry entry point of the counting-stars evaluator (the code is in counting.py)."""
from __future__ import annotations

from .counting import STARS as EVALUATOR

__all__ = ["EVALUATOR"]
