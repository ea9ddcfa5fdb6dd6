"""Atomic file writes and file hashing: the one place every subsystem writes and hashes files with.

A file written here is complete or absent: it is written to a temporary sibling first and
renamed over the target only when the write succeeded (``os.replace`` is atomic on POSIX).
"""
from __future__ import annotations

import hashlib
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .errors import ChecksumError, SrmBenchError


def atomic_path(path: Path) -> Path:
    """A temporary sibling of ``path`` to write into before ``os.replace``."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


@contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """Yield a temporary sibling of ``path`` to write; it replaces ``path`` only if the block
    succeeds, and is removed otherwise, so no half-written file is ever left behind."""
    path = Path(path)
    tmp = atomic_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def user_output(path: str | Path) -> Iterator[Path]:
    """:func:`atomic_output` for a path the user named: a missing folder or an OS error
    becomes one SrmBenchError line."""
    path = Path(path)
    if not path.parent.exists():
        raise SrmBenchError(f"{path.parent}: no such directory; create it or choose another -o")
    try:
        with atomic_output(path) as tmp:
            yield tmp
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot write ({exc.strerror})") from None


def write_json_atomic(path: Path, obj: Any) -> None:
    """Write indented JSON to ``path`` via a temp file and rename."""
    with atomic_output(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=False) + "\n")


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes (weights files)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_pinned_file(path: str | Path, pinned_sha256: str) -> None:
    """Raise ChecksumError (one line, "reinstall srm-bench") if a shipped file's SHA-256 is not its pin."""
    got = file_sha256(path)
    if got != pinned_sha256:
        raise ChecksumError(f"{path}: SHA-256 {got[:12]}... differs from the pinned {pinned_sha256[:12]}...; reinstall srm-bench")
