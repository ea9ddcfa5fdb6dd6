"""Registry entry point of the counting-stars generator (the code is in counting.py)."""
from __future__ import annotations

from .counting import CLI_OPTIONS, STARS as GENERATOR

__all__ = ["CLI_OPTIONS", "GENERATOR"]
