"""Text Sudoku evaluator: parse a language model's reply into a 9x9 grid, then apply the
image track's Sudoku rules (``evaluators/sudoku.py``) to it.

The parser is deliberately forgiving about *where* the grid sits in a reply and strict about
*what* a grid is: exactly 81 digits in one of three layouts.

- 9 lines of 9 digits; ``|``, ``+``, ``-``, spaces, commas and brackets inside a line are
  ignored, and separator lines (no digits at all, e.g. ``---+---+---``) may sit between them;
- 81 digits in a row (optionally separated by single spaces or commas);
- a JSON array: 9 arrays of 9 numbers, 9 strings of 9 digits, or one flat array of 81 numbers.

Anything else (prose only, a grid with ``_`` or ``.`` left in it, 8 lines, a reply cut off by
the token limit) is unparsable. Where a reply holds several grids (it echoed the puzzle, or
wrote a draft first), the last complete one counts; where it holds ``<sudoku>`` blocks (the
format the prompt asks for) the last block that holds a grid counts, before any text outside.

Metrics per reply (aggregated with 95% intervals by the core):

- ``accuracy``: the grid is a valid Sudoku (L1 == 0); the image track's Acc and the paper's
  LLM *validity*.
- ``givens_kept``: every given cell holds its given digit (the paper's LLM *consistency*).
- ``solved``: valid and givens kept: the paper's LLM *accuracy* (Appendix F).
- ``l1``: the image track's L1; an unparsable reply counts as an empty grid (L1 = 243).
- ``parsed``: a grid was found in the reply.
"""
from __future__ import annotations

import json
import re

import numpy as np

from srm_bench.evaluation import MetricInfo

from .sudoku import bad_cells, sudoku_l1

NAME = "sudoku-text"
VERSION = 1
METRICS = {
    "accuracy": MetricInfo("rate", True, "valid Sudoku (L1 == 0); the paper's LLM validity"),
    "givens_kept": MetricInfo("rate", True, "every given cell keeps its digit; the paper's LLM consistency"),
    "solved": MetricInfo("rate", True, "valid and givens kept; the paper's LLM accuracy (Appendix F)"),
    "l1": MetricInfo("mean", False, "the image track's L1; an unparsable reply counts as an empty grid (243)"),
    "parsed": MetricInfo("rate", True, "a 9x9 grid of digits was found in the reply"),
}

_BLOCK = re.compile(r"<sudoku>(.*?)(?:</sudoku>|\Z)", re.S | re.I)
_INLINE_NOISE = re.compile(r"[\s|+\-,;:\[\]()'\"`*]")
_RUN81 = re.compile(r"(?<![0-9])[0-9](?:[ ,]?[0-9]){80}(?![ ,]?[0-9])")


def _as_grid(obj: object) -> np.ndarray | None:
    """A decoded JSON value as a (9, 9) uint8 grid of 0-9, or None."""
    def digit(v: object) -> int | None:
        if isinstance(v, bool):
            return None
        if isinstance(v, int) and 0 <= v <= 9:
            return v
        if isinstance(v, str) and len(v.strip()) == 1 and v.strip().isdigit():
            return int(v.strip())
        return None

    if not isinstance(obj, list):
        return None
    if len(obj) == 81:
        flat = [digit(v) for v in obj]
    elif len(obj) == 9 and all(isinstance(r, list) and len(r) == 9 for r in obj):
        flat = [digit(v) for r in obj for v in r]
    elif len(obj) == 9 and all(isinstance(r, str) and re.fullmatch(r"[0-9]{9}", r.strip()) for r in obj):
        flat = [int(c) for r in obj for c in r.strip()]
    else:
        return None
    if any(v is None for v in flat):
        return None
    return np.array(flat, dtype=np.uint8).reshape(9, 9)


def _json_candidates(text: str) -> list[tuple[int, np.ndarray]]:
    """(end offset, grid) for every bracket-balanced JSON array in ``text`` that is a grid.

    One pass matches the brackets; only arrays long enough to hold 81 digits and short enough
    to be a grid are decoded, so a long reply full of brackets costs linear time.
    """
    out = []
    stack: list[int] = []
    for e, ch in enumerate(text):
        if ch == "[":
            stack.append(e)
        elif ch == "]" and stack:
            s = stack.pop()
            if not 100 <= e + 1 - s <= 4000:  # 9 strings of 9 digits take 109 characters
                continue
            try:
                grid = _as_grid(json.loads(text[s:e + 1]))
            except (ValueError, RecursionError):
                grid = None
            if grid is not None:
                out.append((e + 1, grid))
    return out


def _line_candidates(text: str) -> list[tuple[int, np.ndarray]]:
    """(end offset, grid) for every run of 9 digit lines (separator lines allowed between)."""
    out = []
    run: list[str] = []
    end = 0
    pos = 0

    def flush() -> None:
        if run and len(run) % 9 == 0:  # 18 lines: two grids written back to back
            for k in range(0, len(run), 9):
                out.append((end, np.array([[int(c) for c in row] for row in run[k:k + 9]], dtype=np.uint8)))

    for line in text.splitlines(keepends=True):
        clean = _INLINE_NOISE.sub("", line)
        if re.fullmatch(r"[0-9]{9}", clean):
            run.append(clean)
            end = pos + len(line.rstrip())
        elif clean:  # prose, or a line with blanks left in it: the run ends
            flush()
            run = []
        pos += len(line)
    flush()
    return out


def _run_candidates(text: str) -> list[tuple[int, np.ndarray]]:
    out = []
    for m in _RUN81.finditer(text):
        digits = re.sub(r"[ ,]", "", m.group(0))
        out.append((m.end(), np.array([int(c) for c in digits], dtype=np.uint8).reshape(9, 9)))
    return out


def _last_grid(text: str) -> np.ndarray | None:
    cands = _json_candidates(text) + _line_candidates(text) + _run_candidates(text)
    return max(cands, key=lambda c: c[0])[1] if cands else None


def parse_reply(text: str | None, finish_reason: str | None = None) -> tuple[np.ndarray | None, str]:
    """The grid a reply gives, and why not where it gives none.

    Returns:
        ``(grid, "")`` with a (9, 9) uint8 grid of digits 0-9 (a 0 makes the grid invalid,
        it does not make the reply unparsable), or ``(None, reason)``.

    Example:
        >>> g, why = parse_reply("Sure!\\n<sudoku>\\n" + "\\n".join(["123456789"] * 9) + "\\n</sudoku>")
        >>> g.shape, why
        ((9, 9), '')
    """
    if text is None or not str(text).strip():
        return None, "empty reply"
    text = str(text)
    for block in reversed(_BLOCK.findall(text)):
        grid = _last_grid(block)
        if grid is not None:
            return grid, ""
    grid = _last_grid(text)
    if grid is not None:
        return grid, ""
    if finish_reason == "length":
        return None, "no complete grid: the reply was cut off at the token limit"
    return None, "no 9x9 grid of digits found"


def score_grids(grids: list[np.ndarray | None], givens: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """Per-reply metrics of parsed grids against their puzzles, with the image track's rules.

    Args:
        grids: one (9, 9) grid or None (unparsable) per reply.
        givens: (N, 9, 9) solution digits of each reply's puzzle.
        mask: (N, 9, 9) bool, True on the given cells.
    """
    n = len(grids)
    parsed = np.array([g is not None for g in grids], dtype=bool)
    arr = np.zeros((n, 9, 9), dtype=np.uint8)
    for i, g in enumerate(grids):
        if g is not None:
            arr[i] = g
    l1 = sudoku_l1(arr)
    kept = ((arr == givens) | ~mask).all((1, 2)) & parsed  # an unparsable reply keeps nothing
    valid = (l1 == 0) & parsed
    bad = bad_cells(arr, givens, mask).reshape(n, 81)
    return {
        "accuracy": valid,
        "givens_kept": kept,
        "solved": valid & kept,
        "l1": l1,
        "parsed": parsed,
        "digits": np.array(["".join(map(str, a.reshape(81))) if p else "" for a, p in zip(arr, parsed)], dtype=object),
        "bad_cells": np.array(["".join("1" if b else "0" for b in row) for row in bad], dtype=object),
        "masked": (~mask).sum((1, 2)).astype(np.int64),
    }
