"""Registry entry point of the counting-polygons evaluator (the code is in counting.py)."""
from __future__ import annotations

from .counting import POLYGONS as EVALUATOR, make_train_command

train_command = make_train_command("polygons")

__all__ = ["EVALUATOR", "train_command"]
