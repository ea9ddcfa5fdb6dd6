"""Registry entry point of the counting-polygons generator (the code is in counting.py)."""
from __future__ import annotations

from .counting import CLI_OPTIONS, POLYGONS as GENERATOR

__all__ = ["CLI_OPTIONS", "GENERATOR"]
