"""Registry entry point of the counting-stars evaluator (the code is in counting.py)."""
from __future__ import annotations

from .counting import STARS as EVALUATOR, make_train_command

train_command = make_train_command("stars")

__all__ = ["EVALUATOR", "train_command"]
